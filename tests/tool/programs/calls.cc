// SPDX-License-Identifier: GPL-2.0-or-later
/* Indirect calls: through function pointers and through the PLT.

   usage: calls fnptr K | plt K

   fnptr K: 3K calls through a volatile table of function pointers, in turn
            op_add, op_sub, op_mul: exactly K activations of each.
   plt K:   K calls of abs() from libc through the executable's PLT. This
            program is linked with lazy binding (-z lazy): the first call goes
            through the dynamic linker's _dl_runtime_resolve*, which jumps to
            abs; the later ones jump straight from the PLT stub to abs. Exactly
            K activations of abs (object libc.so.6) and 1 of call_abs_loop.
            (Compiled with -fno-builtin so that abs() is a real call.)

   Exact activation counts: as printed. */
#include <string.h>

#include "progs.h"

extern "C" NOINLINE long op_add(long a, long b) { return a + b; }
extern "C" NOINLINE long op_sub(long a, long b) { return a - b; }
extern "C" NOINLINE long op_mul(long a, long b) { return a * b; }

typedef long (*op_fn)(long, long);
static op_fn volatile ops[3] = {op_add, op_sub, op_mul};

extern "C" NOINLINE long call_ops(long k) {
  long acc = 0;
  for (long i = 0; i < 3 * k; i++) acc += ops[i % 3](i, 3);
  return acc;
}

extern "C" NOINLINE long call_abs_loop(long k) {
  long acc = 0;
  for (long i = 0; i < k; i++) acc += abs((int)(i - k / 2));
  return acc;
}

int main(int argc, char** argv) {
  if (argc != 3) usage(argv[0], "fnptr K | plt K");
  long k = arg_long(argc, argv, 2, "K");
  if (strcmp(argv[1], "fnptr") == 0) {
    long acc = call_ops(k), expected = 0;
    for (long i = 0; i < 3 * k; i++)
      expected += i % 3 == 0 ? i + 3 : i % 3 == 1 ? i - 3 : i * 3;
    if (acc != expected) return 1;
    print_count("call_ops", 1);
    print_count("op_add", k);
    print_count("op_sub", k);
    print_count("op_mul", k);
  } else if (strcmp(argv[1], "plt") == 0) {
    long acc = call_abs_loop(k), expected = 0;
    for (long i = 0; i < k; i++) expected += i - k / 2 < 0 ? k / 2 - i : i - k / 2;
    if (acc != expected) return 1;
    print_count("call_abs_loop", 1);
    print_count("abs", k);
  } else {
    usage(argv[0], "fnptr K | plt K");
  }
  return 0;
}
