// Copyright (C) 2026, the aprof-trms authors.
// SPDX-License-Identifier: GPL-2.0-or-later
#include "syscall_input.h"

#include "options.h"
#include "tool_state.h"
#include "valgrind_headers.h"

namespace aprof {

namespace {

// The latest system call of each thread (-1: none yet), indexed by
// ThreadId. Kept until the next one, because the core reports a call's
// buffers between its pre- and post-hooks in an order we should not rely on.
InternalVector<Int>* g_current_syscall;

Int& CurrentSyscall(ThreadId tid) {
  if (!g_current_syscall) g_current_syscall = New<InternalVector<Int>>();
  while (g_current_syscall->size() <= tid) g_current_syscall->push_back(-1);
  return (*g_current_syscall)[tid];
}

// Data-transfer system calls: the paper's list plus the vectored, message
// and "2" variants. The set used by --syscall-input=io.
bool IsDataTransfer(Int sysno) {
  switch (sysno) {
    case __NR_read: case __NR_pread64: case __NR_readv: case __NR_preadv: case __NR_preadv2:
    case __NR_recvfrom: case __NR_recvmsg: case __NR_recvmmsg: case __NR_msgrcv:
    case __NR_write: case __NR_pwrite64: case __NR_writev: case __NR_pwritev:
    case __NR_pwritev2: case __NR_sendto: case __NR_sendmsg: case __NR_sendmmsg:
    case __NR_msgsnd:
      return true;
    default:
      return false;
  }
}

bool Counts(CorePart part, ThreadId tid) {
  if (part != Vg_CoreSysCall && part != Vg_CoreSysCallArgInMem) return false;
  if (!g_tool.engine) return false;
  if (TheOptions().syscall_input == SyscallInput::kAll) return true;
  return IsDataTransfer(CurrentSyscall(tid));
}

void PreSyscall(ThreadId tid, UInt sysno, UWord*, UInt) { CurrentSyscall(tid) = static_cast<Int>(sysno); }

void PostSyscall(ThreadId, UInt, UWord*, UInt, SysRes) {}

void KernelReads(CorePart part, ThreadId tid, const HChar*, Addr address, SizeT size) {
  if (!Counts(part, tid)) return;
  g_tool.calls->SwitchTo(tid);
  g_tool.engine->KernelRead(address, size);
}

// Length of a NUL-terminated string in client memory, stopping at the
// first unreadable page (the kernel will then fail the call with EFAULT).
SizeT ReadableStringLength(Addr address) {
  SizeT length = 0;
  for (;;) {
    const Addr page_end = VG_PGROUNDDN(address + length) + VKI_PAGE_SIZE;
    if (!VG_(am_is_valid_for_client)(address + length, 1, VKI_PROT_READ)) return length;
    for (; address + length < page_end; ++length)
      if (reinterpret_cast<const HChar*>(address)[length] == '\0') return length + 1;
  }
}

void KernelReadsString(CorePart part, ThreadId tid, const HChar*, Addr address) {
  if (!Counts(part, tid)) return;
  g_tool.calls->SwitchTo(tid);
  g_tool.engine->KernelRead(address, ReadableStringLength(address));
}

void KernelWrote(CorePart part, ThreadId tid, Addr address, SizeT size) {
  if (!Counts(part, tid)) return;
  g_tool.engine->KernelWrite(address, size);
}

}  // namespace

void RegisterSyscallInputTracking() {
  VG_(needs_syscall_wrapper)(PreSyscall, PostSyscall);
  VG_(track_pre_mem_read)(KernelReads);
  VG_(track_pre_mem_read_asciiz)(KernelReadsString);
  VG_(track_post_mem_write)(KernelWrote);
}

}  // namespace aprof
