// SPDX-License-Identifier: GPL-2.0-or-later
// The few services the engine needs from its host. The engine is linked with
// exactly one implementation: platform_native.cc (libc, for unit tests and
// benchmarks) or platform_valgrind.cc (Valgrind's core, inside the tool).
#ifndef APROF_CORE_PLATFORM_H
#define APROF_CORE_PLATFORM_H

#include <new>

#include "types.h"

namespace aprof {

// General-purpose heap memory; never returns null (the host aborts instead).
void* PlatformAllocate(size_t bytes);
void PlatformFree(void* p);

// Large zero-filled blocks (shadow tables). Page-granular so that untouched
// parts cost no resident memory. Never returns null.
void* PlatformAllocateZeroedPages(size_t bytes);
void PlatformFreePages(void* p, size_t bytes);
// Zero-fills whole pages [p, p + bytes) inside a block from
// PlatformAllocateZeroedPages, giving their resident memory back to the
// system where it can (the mapping stays).
void PlatformReleasePages(void* p, size_t bytes);

// Reports a failed internal invariant and terminates.
[[noreturn]] void PlatformCheckFailed(const char* file, int line,
                                      const char* condition);
// The same for a failed comparison (APROF_CHECK_LT and the others), with
// the values of both sides: what a crash report from a user's machine
// needs to tell an off-by-one from a wild value.
[[noreturn]] void PlatformCheckOpFailed(const char* file, int line, const char* condition,
                                        long long left, long long right);

// Object allocation over PlatformAllocate (the engine uses no global
// operator new, so it links the same way natively and inside the tool).
template <typename T, typename... Args>
T* New(Args&&... args) {
  return new (PlatformAllocate(sizeof(T))) T(static_cast<Args&&>(args)...);
}

template <typename T>
void Delete(T* object) {
  if (!object) return;
  object->~T();
  PlatformFree(object);
}

}  // namespace aprof

// Branch and inlining hints, named (memcheck: "it's critical for
// performance that the requested inlining occurs"): only where a profile
// or the hooks' generated code showed that the compiler's choice costs.
#define APROF_LIKELY(cond) __builtin_expect(!!(cond), 1)
#define APROF_UNLIKELY(cond) __builtin_expect(!!(cond), 0)
#define APROF_NOINLINE __attribute__((noinline))
#define APROF_ALWAYS_INLINE __attribute__((always_inline)) inline

// Internal invariants, checked in every build (they cost a predicted
// branch); a failure reports the file, line and condition and terminates.
#define APROF_CHECK(cond)                                             \
  do {                                                                \
    if (APROF_UNLIKELY(!(cond)))                                      \
      ::aprof::PlatformCheckFailed(__FILE__, __LINE__, #cond);        \
  } while (0)

// A comparison whose failure also prints both operands (as integers).
#define APROF_CHECK_OP(left, op, right)                                               \
  do {                                                                                \
    const auto aprof_check_left = (left);                                             \
    const auto aprof_check_right = (right);                                           \
    if (APROF_UNLIKELY(!(aprof_check_left op aprof_check_right)))                     \
      ::aprof::PlatformCheckOpFailed(__FILE__, __LINE__, #left " " #op " " #right,    \
                                     static_cast<long long>(aprof_check_left),        \
                                     static_cast<long long>(aprof_check_right));      \
  } while (0)
#define APROF_CHECK_EQ(left, right) APROF_CHECK_OP(left, ==, right)
#define APROF_CHECK_NE(left, right) APROF_CHECK_OP(left, !=, right)
#define APROF_CHECK_LT(left, right) APROF_CHECK_OP(left, <, right)
#define APROF_CHECK_LE(left, right) APROF_CHECK_OP(left, <=, right)
#define APROF_CHECK_GT(left, right) APROF_CHECK_OP(left, >, right)
#define APROF_CHECK_GE(left, right) APROF_CHECK_OP(left, >=, right)

// Debug-only checks, for what hot code assumes and cannot afford to test
// on every access (an index within its vector, a cell within the shadow
// memory, a current thread): on in the unit tests and in a tool configured
// with --enable-debug (APROF_DEBUG), compiled out of the tool by default.
// Compiled out, the condition is still type-checked but never evaluated.
#ifdef APROF_DEBUG
#define APROF_DCHECK(cond) APROF_CHECK(cond)
#define APROF_DCHECK_OP(left, op, right) APROF_CHECK_OP(left, op, right)
#else
#define APROF_DCHECK(cond)   \
  do {                       \
    if (false) (void)(cond); \
  } while (0)
#define APROF_DCHECK_OP(left, op, right) APROF_DCHECK((left) op (right))
#endif
#define APROF_DCHECK_LT(left, right) APROF_DCHECK_OP(left, <, right)
#define APROF_DCHECK_GT(left, right) APROF_DCHECK_OP(left, >, right)

// Counters of slow-path events for --stats=yes (chunk-cache misses, owner
// searches...): compiled in with APROF_STATS (configure --enable-stats, and
// the unit tests), out of the default tool, where the access hooks and the
// call path must not pay even an increment. The counters exist in every
// build (they stay 0), so code that prints them is the same everywhere.
namespace aprof {
#ifdef APROF_STATS
constexpr bool kCountEvents = true;
#else
constexpr bool kCountEvents = false;
#endif
}  // namespace aprof
#define APROF_COUNT_EVENT(counter)                  \
  do {                                              \
    if constexpr (::aprof::kCountEvents) ++(counter); \
  } while (0)
#define APROF_COUNT_EVENTS(counter, amount)                   \
  do {                                                        \
    if constexpr (::aprof::kCountEvents) (counter) += (amount); \
  } while (0)

#endif  // APROF_CORE_PLATFORM_H
