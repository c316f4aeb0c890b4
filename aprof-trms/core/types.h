// SPDX-License-Identifier: GPL-2.0-or-later
// Basic integer types of the engine. The engine is compiled both natively
// (unit tests, benchmarks) and freestanding inside the Valgrind tool, so it
// uses only compiler-provided headers.
#ifndef APROF_CORE_TYPES_H
#define APROF_CORE_TYPES_H

#include <stddef.h>
#include <stdint.h>

namespace aprof {

using u8 = uint8_t;
using u32 = uint32_t;
using u64 = uint64_t;
using uptr = uintptr_t;
using u128 = unsigned __int128;

// Timestamps as stored in shadow memory and on the shadow stack.
using Timestamp = u32;

// Opaque routine identifier handed to the engine by its user (the tool maps
// it to object + entry address).
using RoutineId = u32;

// A node of the calling-context tree (context_tree.h): 1, 2, 3...; 0 is
// none (the parent of a root; every activation while contexts are off).
using ContextId = u32;
constexpr ContextId kNoContext = 0;

// Engine-side thread identifier: the host's id (Valgrind ThreadId), small
// and reusable after a thread exits.
using ThreadId = u32;

// What a consistency check found wrong (sanity checks, tests); nothing when
// `what` is null.
struct Inconsistency {
  const char* what = nullptr;  // the invariant that does not hold
  u32 thread = 0;              // serial of the thread concerned, 0 if none
  size_t frame = 0;            // the frame concerned (stack checks; 0: the root)

  explicit operator bool() const { return what != nullptr; }
};

}  // namespace aprof

#endif  // APROF_CORE_TYPES_H
