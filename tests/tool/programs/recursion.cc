// SPDX-License-Identifier: GPL-2.0-or-later
/* Deep recursion.

   usage: recursion direct D | mutual D | tree D | bigframe D

   direct D: rec(D) calls rec(D-1) ... rec(0): exactly D+1 activations of rec,
             nested D+1 deep (not tail calls: rec adds 1 after the call).
   mutual D: is_even(D) and is_odd call each other down to 0 (compiled as real
             calls, -fno-optimize-sibling-calls): is_even has D/2 + 1
             activations and is_odd (D+1)/2 (integer division).
   tree D:   walk(D) calls walk(D-1) twice (a binary tree of 2^(D+1) - 1
             activations) and reads and writes a small global table at every
             level, so activations have many different RMS/TRMS values (used
             to compare runs with and without timestamp renumbering).
   bigframe D: big_frame() has a 3 MiB local array (more than Valgrind's
             default --max-stackframe, within the 8 MiB main stack) and calls
             leaf() D times from below it: not a stack switch.

   Exact activation counts: as above (printed). */
#include <string.h>

#include "progs.h"

static volatile long sink;
static int table[256];

extern "C" NOINLINE long rec(long n) {
  if (n == 0) return 0;
  return rec(n - 1) + 1;
}

extern "C" NOINLINE int is_odd(long n);

extern "C" NOINLINE int is_even(long n) {
  if (n == 0) return 1;
  return is_odd(n - 1);
}

extern "C" NOINLINE int is_odd(long n) {
  if (n == 0) return 0;
  return is_even(n - 1);
}

extern "C" NOINLINE long walk(long d, long seed) {
  long s = table[(seed * 7 + d) & 255];
  table[(seed * 13 + 3 * d) & 255] = (int)s + 1;
  if (d == 0) return s;
  s += walk(d - 1, seed * 2 + 1);
  s += walk(d - 1, seed * 2 + 2);
  for (long i = 0; i < (d & 7) * 4; i++) s += table[(seed + i * 5) & 255];
  return s;
}

extern "C" NOINLINE long leaf(volatile char* p) { return p[0]; }

extern "C" NOINLINE long big_frame(long d) {
  volatile char big[3 << 20];
  big[0] = 1;
  big[sizeof big - 1] = 2;
  long s = 0;
  for (long i = 0; i < d; i++) s += leaf(big + (i & 1));
  return s;
}

int main(int argc, char** argv) {
  if (argc != 3) usage(argv[0], "direct|mutual|tree|bigframe D");
  long d = arg_long(argc, argv, 2, "D");
  if (strcmp(argv[1], "direct") == 0) {
    if (rec(d) != d) return 1;
    print_count("rec", d + 1);
  } else if (strcmp(argv[1], "mutual") == 0) {
    if (is_even(d) != (d % 2 == 0)) return 1;
    print_count("is_even", d / 2 + 1);
    print_count("is_odd", (d + 1) / 2);
  } else if (strcmp(argv[1], "tree") == 0) {
    if (d > 24) usage(argv[0], "tree D (D <= 24)");
    sink = walk(d, 0);
    print_count("walk", (2L << d) - 1);
  } else if (strcmp(argv[1], "bigframe") == 0) {
    sink = big_frame(d);
    print_count("big_frame", 1);
    print_count("leaf", d);
  } else {
    usage(argv[0], "direct|mutual|tree|bigframe D");
  }
  return 0;
}
