// Functions called from instrumented guest code. They must be fast: they
// run for every superblock and every memory access.
//
// Copyright (C) 2026, the aprof-trms authors.
// SPDX-License-Identifier: GPL-2.0-or-later
#ifndef APROF_RUNTIME_HOOKS_H
#define APROF_RUNTIME_HOOKS_H

#include "core/types.h"
#include "superblock_info.h"

namespace aprof {

// Index of the exit by which the running thread left its previous
// superblock; each exit stores its index here just before leaving.
extern u32 g_last_exit;

void OnSuperblockEntry(SuperblockInfo* block, uptr stack_pointer);
void OnRead(uptr address, uptr size);
void OnWrite(uptr address, uptr size);

}  // namespace aprof

#endif  // APROF_RUNTIME_HOOKS_H
