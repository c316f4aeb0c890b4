// SPDX-License-Identifier: GPL-2.0-or-later
/* Tail calls: a routine that leaves by jumping to another one.

   usage: tailcall compiled K M | asm K M | asm-mutual D

   compiled K M: main calls tc_f K times and tc_g M times. tc_f ends with
                 `return tc_g(...)`; this file is compiled with -O2
                 -foptimize-sibling-calls, so tc_f jumps to tc_g (jmp, no
                 call) and tc_g returns straight to main. Whether or not the
                 compiler emitted the jump, the counts are: tc_f K, tc_g K + M.
   asm K M:      the same with asm_f / asm_g written in assembly, so the tail
                 jump is guaranteed: asm_f K, asm_g K + M.
   asm-mutual D: asm_even(D) and asm_odd jump to each other down to 0 (every
                 step a tail jump to the other routine's entry, all at the same
                 stack pointer); the last one returns to main: asm_even has
                 D/2 + 1 activations and asm_odd (D+1)/2 (integer division).

   Exact activation counts: as printed. */
#include <string.h>

#include "progs.h"

extern "C" {
volatile long tc_sink;
long asm_f(long x);
long asm_g(long x);
long asm_even(long n);
long asm_odd(long n);
}

/* asm_f(x): asm_g(x + 1) by a tail jump. asm_g(x): 2x + 1.
   asm_even(n): n == 0 ? 1 : asm_odd(n - 1); asm_odd(n): n == 0 ? 0 : asm_even(n - 1). */
__asm__(
    ".text\n"
    ".globl asm_f\n.type asm_f, @function\n"
    "asm_f:\n"
    "  addq $1, %rdi\n"
    "  jmp asm_g\n"
    ".size asm_f, .-asm_f\n"
    ".globl asm_g\n.type asm_g, @function\n"
    "asm_g:\n"
    "  leaq 1(%rdi,%rdi), %rax\n"
    "  ret\n"
    ".size asm_g, .-asm_g\n"
    ".globl asm_even\n.type asm_even, @function\n"
    "asm_even:\n"
    "  testq %rdi, %rdi\n"
    "  je 1f\n"
    "  subq $1, %rdi\n"
    "  jmp asm_odd\n"
    "1:\n"
    "  movl $1, %eax\n"
    "  ret\n"
    ".size asm_even, .-asm_even\n"
    ".globl asm_odd\n.type asm_odd, @function\n"
    "asm_odd:\n"
    "  testq %rdi, %rdi\n"
    "  je 1f\n"
    "  subq $1, %rdi\n"
    "  jmp asm_even\n"
    "1:\n"
    "  xorl %eax, %eax\n"
    "  ret\n"
    ".size asm_odd, .-asm_odd\n");

extern "C" NOINLINE long tc_g(long x) {
  tc_sink = tc_sink + x;
  return 2 * x + 1;
}

extern "C" NOINLINE long tc_f(long x) {
  tc_sink = tc_sink + 1;
  return tc_g(x + 1);
}

int main(int argc, char** argv) {
  if (argc < 3) usage(argv[0], "compiled K M | asm K M | asm-mutual D");
  long k = arg_long(argc, argv, 2, "K");
  if (strcmp(argv[1], "compiled") == 0 || strcmp(argv[1], "asm") == 0) {
    long m = arg_long(argc, argv, 3, "M");
    int is_asm = argv[1][0] == 'a';
    long (*f)(long) = is_asm ? asm_f : tc_f;
    long (*g)(long) = is_asm ? asm_g : tc_g;
    long acc = 0, expected = 0;
    for (long i = 0; i < k; i++) {
      acc += f(i);
      expected += 2 * (i + 1) + 1;
    }
    for (long i = 0; i < m; i++) {
      acc += g(i);
      expected += 2 * i + 1;
    }
    if (acc != expected) return 1;
    print_count(is_asm ? "asm_f" : "tc_f", k);
    print_count(is_asm ? "asm_g" : "tc_g", k + m);
  } else if (strcmp(argv[1], "asm-mutual") == 0) {
    if (asm_even(k) != (k % 2 == 0)) return 1;
    print_count("asm_even", k / 2 + 1);
    print_count("asm_odd", (k + 1) / 2);
  } else {
    usage(argv[0], "compiled K M | asm K M | asm-mutual D");
  }
  return 0;
}
