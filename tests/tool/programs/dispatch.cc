// SPDX-License-Identifier: GPL-2.0-or-later
/* A dispatcher through a function pointer, run from a stripped binary
   (issue 10, item 8): built with -O2, dispatch() is a single indirect jump
   (`jmp *(%rsi)`, a tail call through o->fn), the shape of a PLT stub but not
   one. The tests run the stripped copy, dispatch-stripped (made by `strip`).

   usage: dispatch N

   main calls dispatch() N times; each call jumps on to add_one().
   Exact activation counts: dispatch N (named by object and address once
   stripped). */
#include "progs.h"

struct ops {
  int (*fn)(int);
};

extern "C" NOINLINE int add_one(int x) { return x + 1; }

extern "C" NOINLINE int dispatch(int x, struct ops* o) { return o->fn(x); }

int main(int argc, char** argv) {
  if (argc != 2) usage(argv[0], "N");
  const long n = arg_long(argc, argv, 1, "N");
  struct ops o = {add_one};
  long sum = 0;
  for (long i = 0; i < n; i++) sum += dispatch(static_cast<int>(i), &o);
  if (sum != n * (n + 1) / 2) {
    fprintf(stderr, "sum %ld, expected %ld\n", sum, n * (n + 1) / 2);
    return 1;
  }
  print_count("dispatch", n);
  return 0;
}
