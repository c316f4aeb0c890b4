// SPDX-License-Identifier: GPL-2.0-or-later
// What the call tracker needs to know about a translated superblock: where
// it is, whether it starts a function, and how each of its exits leaves it.
// Built once per translation by the instrumenter; never freed, because a
// thread may still refer to the block it executed last when Valgrind
// discards the translation (a few dozen bytes per block of guest code).
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_SUPERBLOCK_INFO_H
#define APROF_SUPERBLOCK_INFO_H

#include "core/types.h"

namespace aprof {

enum class ExitKind : u8 {
  kJump,    // fall-through, branch or indirect jump
  kCall,
  kReturn,
  kSystem,  // system call, client request and other trips to the core
};

struct SuperblockInfo;

struct ExitInfo {
  ExitKind kind;
  const SuperblockInfo* from;  // the block it leaves; null: unknown origin
};

struct SuperblockInfo {
  uptr address;
  const void* object;  // the DebugInfo of the block's ELF object, or null
  int section;         // VgSectKind of the block's address
  bool is_function_entry;
  // A PLT stub: it only jumps on to the callee, so it is not a routine.
  bool is_plt_stub;
  // A block of Go's runtime.gogo, whose last jump lands on the stack of the
  // goroutine it resumes (go_preemption.h: EntersGoroutine).
  bool enters_goroutine;
  // Also, the resumed goroutine's g is in R14 at the jump (Go 1.17 and
  // later: go_preemption.h, LoadsGoroutineRegister).
  bool names_goroutine;
  // The routine started at this address, resolved on the first call here.
  bool routine_known;
  bool routine_transparent;
  RoutineId routine;
  ExitInfo exits[1];  // side exits in order, then the final exit
};

}  // namespace aprof

#endif  // APROF_SUPERBLOCK_INFO_H
