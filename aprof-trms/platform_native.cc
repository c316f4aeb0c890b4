// SPDX-License-Identifier: GPL-2.0-or-later
// Host interface of the engine (core/platform.h) for native builds (unit
// tests, benchmarks), over libc.
//
// Copyright (C) 2026, the aprof-trms authors.

#include "core/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

namespace aprof {

namespace {

size_t RoundUpToPages(size_t bytes) {
  static const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (bytes == 0) bytes = 1;
  return (bytes + kPage - 1) / kPage * kPage;
}

[[noreturn]] void OutOfMemory(const char* what, size_t bytes) {
  fprintf(stderr, "aprof-trms: out of memory (%s of %zu bytes)\n", what,
          bytes);
  abort();
}

}  // namespace

void* PlatformAllocate(size_t bytes) {
  void* p = malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) OutOfMemory("malloc", bytes);
  return p;
}

void PlatformFree(void* p) { free(p); }

void* PlatformAllocateZeroedPages(size_t bytes) {
  size_t len = RoundUpToPages(bytes);
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) OutOfMemory("mmap", len);
  return p;
}

void PlatformFreePages(void* p, size_t bytes) {
  if (p == nullptr) return;
  if (munmap(p, RoundUpToPages(bytes)) != 0)
    PlatformCheckFailed(__FILE__, __LINE__, "munmap of zeroed pages failed");
}

void PlatformReleasePages(void* p, size_t bytes) {
  // Private anonymous pages read as zero after MADV_DONTNEED.
  if (madvise(p, bytes, MADV_DONTNEED) != 0) memset(p, 0, bytes);
}

void PlatformCheckFailed(const char* file, int line, const char* condition) {
  fprintf(stderr, "aprof-trms: internal check failed at %s:%d: %s\n", file,
          line, condition);
  fflush(stderr);
  abort();
}

void PlatformCheckOpFailed(const char* file, int line, const char* condition, long long left,
                           long long right) {
  fprintf(stderr, "aprof-trms: internal check failed at %s:%d: %s (%lld vs %lld)\n", file, line,
          condition, left, right);
  fflush(stderr);
  abort();
}

}  // namespace aprof
