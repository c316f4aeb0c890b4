// SPDX-License-Identifier: GPL-2.0-or-later
// Host interface of the engine (core/platform.h) inside the Valgrind tool,
// over Valgrind's core services.
//
// Copyright (C) 2026, the aprof-trms authors.

#include "core/platform.h"

#include "valgrind_headers.h"

namespace aprof {

void* PlatformAllocate(size_t bytes) {
  // VG_(malloc) never returns NULL: it reports out-of-memory and exits.
  return VG_(malloc)("aprof.engine", bytes);
}

void PlatformFree(void* p) {
  if (p != nullptr) VG_(free)(p);
}

void* PlatformAllocateZeroedPages(size_t bytes) {
  // VG_(am_shadow_alloc) maps fresh anonymous (hence zero-filled) memory for
  // Valgrind's own use and returns NULL on failure. Lengths are page-rounded
  // here and in PlatformFreePages so that both agree.
  SizeT len = VG_PGROUNDUP(bytes == 0 ? 1 : bytes);
  void* p = VG_(am_shadow_alloc)(len);
  if (p == nullptr) {
    VG_(out_of_memory_NORETURN)("aprof.pages", len);
    VG_(tool_panic)("aprof-trms: out of memory");  // not reached
  }
  return p;
}

void PlatformFreePages(void* p, size_t bytes) {
  if (p == nullptr) return;
  SizeT len = VG_PGROUNDUP(bytes == 0 ? 1 : bytes);
  SysRes res = VG_(am_munmap_valgrind)((Addr)p, len);
  if (sr_isError(res))
    PlatformCheckFailed(__FILE__, __LINE__,
                        "VG_(am_munmap_valgrind) of zeroed pages failed");
}

void PlatformReleasePages(void* p, size_t bytes) {
  // Private anonymous pages read as zero after MADV_DONTNEED, and the
  // mapping (hence Valgrind's segment table) is unchanged. The tool API has
  // no madvise; if the call fails, zero-fill by hand.
  constexpr RegWord kMadvDontNeed = 4;  // Linux's MADV_DONTNEED; vki has no name for it
  SysRes res = VG_(do_syscall)(__NR_madvise, (RegWord)p, bytes, kMadvDontNeed, 0, 0, 0, 0, 0);
  if (sr_isError(res)) VG_(memset)(p, 0, bytes);
}

void PlatformCheckFailed(const char* file, int line, const char* condition) {
  VG_(message)(Vg_UserMsg, "aprof-trms: internal check failed at %s:%d: %s\n",
               file, line, condition);
  VG_(tool_panic)("aprof-trms: internal check failed");
}

void PlatformCheckOpFailed(const char* file, int line, const char* condition, long long left,
                           long long right) {
  VG_(message)(Vg_UserMsg, "aprof-trms: internal check failed at %s:%d: %s (%lld vs %lld)\n",
               file, line, condition, left, right);
  VG_(tool_panic)("aprof-trms: internal check failed");
}

}  // namespace aprof
