// SPDX-License-Identifier: GPL-2.0-or-later
/* One routine called from several callers.

   usage: callers A_CALLS C_CALLS N

   main calls caller_a() once and caller_c() once. caller_a calls sum_prefix
   A_CALLS times and caller_c calls it C_CALLS times; sum_prefix(n) reads the
   first n cells of a table (filled by main) once: its RMS is n cells plus
   its own stack.

   Exact activation counts (printed): caller_a 1, caller_c 1,
   sum_prefix A_CALLS + C_CALLS; exact edges: caller_a -> sum_prefix
   A_CALLS calls, caller_c -> sum_prefix C_CALLS calls. */
#include "progs.h"

enum { kTableCells = 4096 };
static int table[kTableCells];
static volatile long sink;

extern "C" NOINLINE long sum_prefix(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += table[i];
  return s;
}

extern "C" NOINLINE void caller_a(long calls, long n) {
  for (long i = 0; i < calls; i++) sink = sink + sum_prefix(n);
}

extern "C" NOINLINE void caller_c(long calls, long n) {
  for (long i = 0; i < calls; i++) sink = sink + sum_prefix(n);
}

int main(int argc, char** argv) {
  if (argc != 4) usage(argv[0], "A_CALLS C_CALLS N");
  long a_calls = arg_long(argc, argv, 1, "A_CALLS");
  long c_calls = arg_long(argc, argv, 2, "C_CALLS");
  long n = arg_long(argc, argv, 3, "N");
  if (n > kTableCells) usage(argv[0], "A_CALLS C_CALLS N (N <= 4096)");
  for (long i = 0; i < kTableCells; i++) table[i] = (int)i;
  caller_a(a_calls, n);
  caller_c(c_calls, n);
  print_count("caller_a", 1);
  print_count("caller_c", 1);
  print_count("sum_prefix", a_calls + c_calls);
  return 0;
}
