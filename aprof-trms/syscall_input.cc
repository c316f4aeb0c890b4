// SPDX-License-Identifier: GPL-2.0-or-later
// External input (syscall_input.h): the buffers the kernel writes and reads
// for each system call, as kernel writes and reads; and the system calls
// that set up kernel writes outside system calls, which it cannot see.
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

// --- Kernel writes outside system calls -------------------------------------------

bool unseen_mechanism_set_up[kKernelWriteMechanismCount];

// Records the mechanism; the first time, warns in the log that input sizes
// may miss what the kernel writes through it.
void NoticeUnseenKernelWrites(KernelWriteMechanism mechanism) {
  if (unseen_mechanism_set_up[mechanism]) return;
  unseen_mechanism_set_up[mechanism] = true;
  if (mechanism == kIoUring)
    VG_(umsg)("aprof-trms: warning: the program set up io_uring: the kernel writes its "
              "completions into memory outside any system call of the program, and input sizes "
              "miss what a routine reads of them (docs/manual.md)\n");
  else
    VG_(umsg)("aprof-trms: warning: the program opened its own memory (/proc/self/mem) for "
              "writing: input sizes miss what is written through it (docs/manual.md)\n");
}

// Skips the decimal digits at p (at least one); null if there are none.
const char* SkipDigits(const char* p) {
  if (*p < '0' || *p > '9') return nullptr;
  while (*p >= '0' && *p <= '9') ++p;
  return p;
}

// Whether `path` names this process's own memory file: /proc/<P>/mem or
// /proc/<P>/task/<tid>/mem, <P> being self, thread-self or our pid.
bool IsOwnMemoryFile(const char* path) {
  // The kernel read the name, but another thread may have unmapped it since.
  const SizeT length = ReadableStringLength(reinterpret_cast<Addr>(path));
  if (length == 0 || path[length - 1] != '\0') return false;
  if (VG_(strncmp)(path, "/proc/", 6) != 0) return false;
  const char* p = path + 6;
  HChar pid[16];
  VG_(snprintf)(pid, sizeof pid, "%d/", VG_(getpid)());
  if (VG_(strncmp)(p, "self/", 5) == 0) p += 5;
  else if (VG_(strncmp)(p, "thread-self/", 12) == 0) p += 12;
  else if (VG_(strncmp)(p, pid, VG_(strlen)(pid)) == 0) p += VG_(strlen)(pid);
  else return false;
  if (VG_(strncmp)(p, "task/", 5) == 0) {
    p = SkipDigits(p + 5);
    if (p == nullptr || *p++ != '/') return false;
  }
  return VG_(strcmp)(p, "mem") == 0;
}

bool OpensForWriting(UWord flags) { return (flags & VKI_O_ACCMODE) != VKI_O_RDONLY; }

// After a successful open or openat (Valgrind 3.19 fails openat2 with
// ENOSYS), and after io_uring_setup. Names relative to a directory
// descriptor are not resolved: a program reaching its memory file that way
// is not noticed (docs/manual.md).
void NoticeSetUps(UInt sysno, const UWord* args) {
  const char* path = nullptr;
  UWord flags = 0;
  switch (sysno) {
    case __NR_io_uring_setup:
      NoticeUnseenKernelWrites(kIoUring);
      return;
    case __NR_open:
      path = reinterpret_cast<const char*>(args[0]);
      flags = args[1];
      break;
    case __NR_openat:
      path = reinterpret_cast<const char*>(args[1]);
      flags = args[2];
      break;
    default:
      return;
  }
  if (OpensForWriting(flags) && IsOwnMemoryFile(path)) NoticeUnseenKernelWrites(kProcSelfMem);
}

void PostSyscall(ThreadId, UInt sysno, UWord* args, UInt, SysRes res) {
  if (!sr_isError(res)) NoticeSetUps(sysno, args);
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

bool KernelWritesUnseen(KernelWriteMechanism mechanism) {
  return unseen_mechanism_set_up[mechanism];
}

const char* KernelWriteMechanismName(KernelWriteMechanism mechanism) {
  return mechanism == kIoUring ? "io_uring" : "proc-self-mem";
}

void RegisterSyscallInputTracking() {
  VG_(needs_syscall_wrapper)(PreSyscall, PostSyscall);
  VG_(track_pre_mem_read)(KernelReads);
  VG_(track_pre_mem_read_asciiz)(KernelReadsString);
  VG_(track_post_mem_write)(KernelWrote);
}

}  // namespace aprof
