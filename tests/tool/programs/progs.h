// SPDX-License-Identifier: GPL-2.0-or-later
/* Shared helpers of the aprof-trms tool test programs.

   The programs are compiled as C++ but written in a C style: every routine a
   test looks up is extern "C" (its report name is then the plain symbol) and
   NOINLINE, i.e. __attribute__((noipa)): never inlined, cloned, merged or
   analysed across calls, so every call in the source is a real call at run
   time whatever -O level the user's CXXFLAGS add.

   Each program prints one line "count NAME N" per routine whose number of
   activations it makes exact, counted natively by the program itself; the
   tests compare the report with these lines and with the number they expect. */
#ifndef APROF_TEST_PROGS_H
#define APROF_TEST_PROGS_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NOINLINE __attribute__((noipa))

/* n iterations of an empty loop the compiler must keep: about one basic block
   per iteration, charged to the routine that uses it (always inlined). */
static inline __attribute__((always_inline)) void burn(int n) {
  for (int i = 0; i < n; i++) __asm__ volatile("" ::: "memory");
}

static inline void print_count(const char* name, long n) {
  printf("count %s %ld\n", name, n);
}

/* Parses a non-negative decimal command-line argument or exits with status 2. */
static inline long arg_long(int argc, char** argv, int i, const char* what) {
  if (i >= argc) {
    fprintf(stderr, "%s: missing argument %s\n", argv[0], what);
    exit(2);
  }
  char* end;
  long v = strtol(argv[i], &end, 10);
  if (*argv[i] == '\0' || *end != '\0' || v < 0) {
    fprintf(stderr, "%s: bad %s '%s'\n", argv[0], what, argv[i]);
    exit(2);
  }
  return v;
}

/* A private anonymous mapping (MAP_NORESERVE: only pages touched count), or
   exit with status 1. */
static inline void* map_anonymous(size_t bytes, int prot) {
  void* p = mmap(NULL, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return p;
}

static inline void usage(const char* prog, const char* text) {
  fprintf(stderr, "usage: %s %s\n", prog, text);
  exit(2);
}

#endif
