// SPDX-License-Identifier: GPL-2.0-or-later
/* Copies and fills of growing size, the work whose cost glibc hands to
   rep-prefixed string instructions above a CPU-dependent threshold
   (GLIBC_TUNABLES glibc.cpu.x86_rep_movsb_threshold and
   x86_rep_stosb_threshold move it).

   usage: copies MAX_BYTES

   For n from 256 bytes up to MAX_BYTES, growing by 1.25x:
     copy_bytes(d, s, n)  memcpy of n bytes (glibc: vector loop or rep movsb)
     fill_bytes(d, n)     memchr of n bytes (vector loop), then memset of n
                          bytes (glibc: vector loop or rep stosb)
     movs_bytes(d, s, n)  rep movsb of n bytes, inline
     movs_quads(d, s, n)  rep movsq of n / 8 quadwords, inline: the same bytes
   Each routine reads n bytes once (its source; fill_bytes its buffer,
   which copy_bytes filled with other bytes): its TRMS grows by n / R cells
   at --memory-resolution=R, and its work is linear in n. Single-threaded, no system call in the routines.

   Exact activation counts: each routine once per size. */
#include <string.h>

#include "progs.h"

extern "C" NOINLINE void copy_bytes(char* d, const char* s, size_t n) { memcpy(d, s, n); }

// Scans the buffer for the fill byte (memchr reads all n bytes: the copy
// before left none), then fills it: an input of n bytes, linear work.
extern "C" NOINLINE void fill_bytes(char* d, size_t n) {
  if (memchr(d, 0x55, n) == NULL) memset(d, 0x55, n);
}

extern "C" NOINLINE void movs_bytes(char* d, const char* s, size_t n) {
  __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

extern "C" NOINLINE void movs_quads(char* d, const char* s, size_t n) {
  size_t quads = n / 8;
  __asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(quads) : : "memory");
}

int main(int argc, char** argv) {
  if (argc != 2) usage(argv[0], "MAX_BYTES");
  const long max = arg_long(argc, argv, 1, "MAX_BYTES");
  char* source = (char*)aligned_alloc(64, (size_t)max + 64);
  char* target = (char*)aligned_alloc(64, (size_t)max + 64);
  if (source == NULL || target == NULL) return 1;
  memset(source, 1, (size_t)max);
  long sizes = 0;
  for (double n = 256; n <= max; n *= 1.25, ++sizes) {
    const size_t bytes = (size_t)n & ~(size_t)7;
    copy_bytes(target, source, bytes);
    fill_bytes(target, bytes);
    movs_bytes(target, source, bytes);
    movs_quads(target, source, bytes);
  }
  print_count("copy_bytes", sizes);
  print_count("fill_bytes", sizes);
  print_count("movs_bytes", sizes);
  print_count("movs_quads", sizes);
  return target[100] == 1 ? 0 : 1;
}
