// SPDX-License-Identifier: GPL-2.0-or-later
// External input: memory that the kernel writes for a system call is a
// kernel write (new input for whoever reads it), memory it reads is a read
// by the calling thread. Valgrind's core reports the exact buffers of every
// system call; --syscall-input chooses which system calls count.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_SYSCALL_INPUT_H
#define APROF_SYSCALL_INPUT_H

#include "core/input_sources.h"

namespace aprof {

// Registers the core callbacks; call from pre_clo_init.
void RegisterSyscallInputTracking();

// The name of a system call ("read"), "syscall-<number>" (written into
// buffer) for one without a name here, "unknown" for kUnknownSyscall.
const char* SyscallName(u32 sysno, char (&buffer)[32]);

}  // namespace aprof

#endif  // APROF_SYSCALL_INPUT_H
