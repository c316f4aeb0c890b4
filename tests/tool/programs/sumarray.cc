// SPDX-License-Identifier: GPL-2.0-or-later
/* One routine reading an array of n ints (paper, section 2: RMS of a loop
   over its input).

   usage: sumarray N

   main fills a 64-byte aligned array of N ints, then calls run_sum(), which
   calls sum_array() once; sum_array reads each element once and writes no
   memory. Exact, at --memory-resolution=R (R in 1, 2, 4, 8, 16; N a multiple
   of 4): sum_array's RMS = TRMS = 4N/R + C, where the fixed part C (its own
   reads outside the array, e.g. the return address at `ret`) does not depend
   on N. Single-threaded, no system call in the routine: no induced reads.
   run_sum contains exactly the same reads (plus its own fixed part), so with
   --skip-routine=sum_array its RMS grows by 4N/R as well.
   Cost: sum_array executes at least one basic block per element.

   Exact activation counts: run_sum 1, sum_array 1. */
#include "progs.h"

extern "C" NOINLINE long sum_array(const int* a, long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += a[i];
  return s;
}

extern "C" NOINLINE long run_sum(const int* a, long n) {
  return sum_array(a, n) + 1;
}

int main(int argc, char** argv) {
  if (argc != 2) usage(argv[0], "N");
  long n = arg_long(argc, argv, 1, "N");
  int* a = (int*)aligned_alloc(64, (size_t)(n + 16) * sizeof(int));
  if (a == NULL) return 1;
  long expected = 0;
  for (long i = 0; i < n; i++) {
    a[i] = (int)(i % 1000);
    expected += i % 1000;
  }
  long s = run_sum(a, n) - 1;
  if (s != expected) {
    fprintf(stderr, "sum %ld, expected %ld\n", s, expected);
    return 1;
  }
  print_count("run_sum", 1);
  print_count("sum_array", 1);
  printf("n %ld\n", n);
  return 0;
}
