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

// Ways the kernel writes the program's memory outside the program's own
// system calls, so that no core event reports the writes and input sizes
// miss them (docs/manual.md, "What input sizes miss"), in the order of the
// report's kernel-writes-unseen records (docs/report-format.md). A third
// way, process_vm_writev(2) called by another process, leaves no trace here.
enum KernelWriteMechanism {
  kIoUring,      // io_uring_setup succeeded: completions are written by the kernel
  kProcSelfMem,  // the process opened its own /proc/.../mem for writing
  kKernelWriteMechanismCount
};

// True once the process set up the mechanism (a failed io_uring_setup or
// open sets up nothing, so it does not count).
bool KernelWritesUnseen(KernelWriteMechanism mechanism);
// Its name in the report: "io_uring", "proc-self-mem".
const char* KernelWriteMechanismName(KernelWriteMechanism mechanism);

// The name of a system call ("read"), "syscall-<number>" (written into
// buffer) for one without a name here, "unknown" for kUnknownSyscall.
const char* SyscallName(u32 sysno, char (&buffer)[32]);

}  // namespace aprof

#endif  // APROF_SYSCALL_INPUT_H
