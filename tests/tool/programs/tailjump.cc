// SPDX-License-Identifier: GPL-2.0-or-later
/* A static function reached only by a tail jump, run from a binary with
   symbols and from its stripped copy, tailjump-stripped (made by `strip`).
   Built with -O2 (sibling calls on), dispatch() ends with `jmp *(%rdi)`,
   a tail call through w->fn, as Tcl's command dispatcher jumps into a
   command's procedure. Once stripped, sum_prefix() has no symbol: only the
   unwind table (.eh_frame_hdr) says where it starts.

   usage: tailjump N

   main calls dispatch() N times, the i-th time with a prefix of i elements;
   each call jumps on to sum_prefix(), which reads them.
   Exact activation counts: dispatch N, sum_prefix N. */
#include "progs.h"

struct worker {
  long (*fn)(const long*, long);
};

/* static: no symbol in the stripped copy (nor in .dynsym). */
static NOINLINE long sum_prefix(const long* a, long n) {
  long sum = 0;
  for (long i = 0; i < n; i++) sum += a[i];
  return sum;
}

extern "C" NOINLINE long dispatch(const struct worker* w, const long* a, long n) {
  return w->fn(a, n);
}

int main(int argc, char** argv) {
  if (argc != 2) usage(argv[0], "N");
  const long n = arg_long(argc, argv, 1, "N");
  long* a = static_cast<long*>(calloc(n + 1, sizeof(long)));
  for (long i = 0; i < n; i++) a[i] = i;
  const struct worker w = {sum_prefix};
  long sum = 0;
  for (long i = 1; i <= n; i++) sum += dispatch(&w, a, i);
  /* The sum over i of 0 + 1 + ... + (i - 1). */
  if (sum != (n - 1) * n * (n + 1) / 6) {
    fprintf(stderr, "sum %ld, expected %ld\n", sum, (n - 1) * n * (n + 1) / 6);
    return 1;
  }
  free(a);
  print_count("dispatch", n);
  print_count("sum_prefix", n);
  return 0;
}
