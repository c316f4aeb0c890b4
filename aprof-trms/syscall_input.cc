// SPDX-License-Identifier: GPL-2.0-or-later
// External input (syscall_input.h): the buffers the kernel writes and reads
// for each system call, as kernel writes and reads.
//
// Copyright (C) 2026, the aprof-trms authors.
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
  g_tool.engine->KernelWrite(address, size, static_cast<u32>(CurrentSyscall(tid)));
}

}  // namespace

// System calls that write user memory, by name (amd64). Numbers that are
// not listed print as syscall-<number>.
#define APROF_SYSCALLS_THAT_WRITE(X)                                                          \
  X(read) X(pread64) X(readv) X(preadv) X(preadv2) X(recvfrom) X(recvmsg) X(recvmmsg)       \
  X(msgrcv) X(getdents) X(getdents64) X(stat) X(fstat) X(lstat) X(newfstatat) X(statx)      \
  X(statfs) X(fstatfs) X(readlink) X(readlinkat) X(getcwd) X(uname) X(sysinfo) X(times)     \
  X(getrandom) X(gettimeofday) X(clock_gettime) X(clock_getres) X(time) X(nanosleep)        \
  X(clock_nanosleep) X(pipe) X(pipe2) X(socketpair) X(accept) X(accept4) X(getsockname)     \
  X(getpeername) X(getsockopt) X(poll) X(ppoll) X(select) X(pselect6) X(epoll_wait)         \
  X(epoll_pwait) X(wait4) X(waitid) X(rt_sigaction) X(rt_sigprocmask) X(rt_sigpending)      \
  X(rt_sigtimedwait) X(sigaltstack) X(getrlimit) X(prlimit64) X(getrusage) X(getresuid)     \
  X(getresgid) X(getgroups) X(ioctl) X(fcntl) X(futex) X(sched_getaffinity)                 \
  X(sched_getparam) X(get_robust_list) X(arch_prctl) X(prctl) X(clone) X(clone3)            \
  X(set_tid_address) X(io_getevents) X(timerfd_gettime) X(timer_gettime) X(getitimer)       \
  X(setitimer) X(capget) X(mq_timedreceive) X(process_vm_readv) X(getxattr) X(lgetxattr)    \
  X(fgetxattr) X(listxattr) X(llistxattr) X(flistxattr) X(sendfile) X(splice) X(mmap)       \
  X(write) X(pwrite64) X(writev) X(pwritev) X(sendto) X(sendmsg) X(sendmmsg) X(msgsnd)      \
  X(open) X(openat) X(close) X(lseek) X(execve) X(exit) X(exit_group) X(kill) X(tgkill)

const char* SyscallName(u32 sysno, char (&buffer)[32]) {
  switch (sysno) {
#define APROF_SYSCALL_CASE(name) case __NR_##name: return #name;
    APROF_SYSCALLS_THAT_WRITE(APROF_SYSCALL_CASE)
#undef APROF_SYSCALL_CASE
    default:
      break;
  }
  if (sysno == kUnknownSyscall) return "unknown";
  VG_(snprintf)(buffer, sizeof buffer, "syscall-%u", sysno);
  return buffer;
}

void RegisterSyscallInputTracking() {
  VG_(needs_syscall_wrapper)(PreSyscall, PostSyscall);
  VG_(track_pre_mem_read)(KernelReads);
  VG_(track_pre_mem_read_asciiz)(KernelReadsString);
  VG_(track_post_mem_write)(KernelWrote);
}

}  // namespace aprof
