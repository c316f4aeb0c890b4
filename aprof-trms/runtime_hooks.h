// SPDX-License-Identifier: GPL-2.0-or-later
// Functions called from instrumented guest code. They must be fast: they
// run for every superblock and every memory access.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_RUNTIME_HOOKS_H
#define APROF_RUNTIME_HOOKS_H

#include "core/types.h"
#include "superblock_info.h"

namespace aprof {

// The exit by which the running thread left its previous superblock, if
// that exit may have called, returned or unwound; null after exits that
// cannot (a branch inside a function). Each exit stores it just before
// leaving, and a superblock's entry calls OnSuperblockEntry only when it is
// not null: most blocks are entered without a helper call.
extern const ExitInfo* g_last_exit;

// Cost (basic blocks or guest instructions) of the running thread not yet
// handed to the engine. Instrumented code adds to it inline; the call
// tracker hands it over before any event that reads the cost clock.
extern u64 g_pending_cost;

// Bytes processed by rep-prefixed string instructions and not yet charged
// (fewer than one unit's worth: string_instruction.h).
extern u64 g_rep_bytes;

// Stands for the exit "before" a thread's first block or a signal handler's
// first block, so that those blocks are examined too.
extern const ExitInfo kUnknownOrigin;

void OnSuperblockEntry(SuperblockInfo* block, uptr stack_pointer);
void OnRead(uptr address, uptr size);
void OnWrite(uptr address, uptr size);
// OnWrite with --input-sources=yes (also records the writer of the cells).
void OnWriteTagged(uptr address, uptr size);
// The same for accesses wider than a cell (chosen at instrumentation time).
void OnReadWide(uptr address, uptr size);
void OnWriteWide(uptr address, uptr size);
void OnWriteWideTagged(uptr address, uptr size);

}  // namespace aprof

#endif  // APROF_RUNTIME_HOOKS_H
