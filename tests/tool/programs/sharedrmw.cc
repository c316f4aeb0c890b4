// SPDX-License-Identifier: GPL-2.0-or-later
/* Read-modify-writes and other access sequences on ONE shared 8-byte cell
   pair, seen by another thread: their writes must reach the global write
   timestamps, or the other thread's reads stop being thread-induced.

   usage: sharedrmw OP N

   A consumer thread runs sh_consume(N); the main thread waits until the
   consumer is ready, then runs sh_produce_OP(N). Both are leaf routines in
   assembly touching no stack memory, that wait for each other on a flag
   with raw sched_yield system calls (no calls inside the routines):

     producer, N times: wait until flag == 0; OP on x; flag = 1.
     consumer: read flag (0: the producer waits for `ready`); ready = 1;
               N times: wait until flag == 1; read x (8 bytes); flag = 0.

   Strict alternation makes every count exact whatever the scheduling. At
   the default resolution (4-byte cells; x is two cells, x0 and x1), with W
   the number of cells of x that OP writes and R the two cells of the
   routine's return address (read by `ret`, written by its own `call`):

   sh_consume:  RMS = 3 + R (flag, x0, x1). Thread-induced reads: one of the
                flag per item (the producer's write of 1) and one per item of
                each cell OP writes, so N + W*N. TRMS = those + the first reads
                that were not induced: the flag's first read, each cell of x
                that OP never writes, and R: N + W*N + 1 + (2 - W) + R.
   sh_produce_OP: RMS = 1 + Rx + R, where Rx is the number of cells of x
                whose first access by OP is a read (the flag is read first).
                Thread-induced: the flag after each of the consumer's writes
                of 0 but the last, N - 1. TRMS = RMS + N - 1.

   OP        instructions                         W  Rx
   add       addl $1, x        (x += 1)           1  1
   lock_add  lock addl $1, x                      1  1
   xchg      xchg %eax, x                         1  1
   cas_ok    lock cmpxchg, expecting x's value    1  1
   cas_fail  lock cmpxchg, expecting another one  0  1
   read_write   4-byte read, add, 4-byte write    1  1
   read4_write8 4-byte read, then 8-byte write    2  1
   write8_read4 8-byte write, then 4-byte read    2  0
   write4_read8 4-byte write, then 8-byte read    1  1

   main checks x's final value (the compare-and-swaps did succeed or fail).
   Exact activation counts: sh_consume 1, sh_produce_OP 1. */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "progs.h"

#define FUNC(name) \
  ".text\n.globl " #name "\n.type " #name ", @function\n.p2align 4\n" #name ":\n"
#define END(name) ".size " #name ", .-" #name "\n"

extern "C" {
/* Each in its own 64-byte line; x is 8-byte aligned. */
alignas(64) volatile long sh_x;
alignas(64) volatile int sh_flag;
alignas(64) volatile int sh_ready;
long sh_consume(long n);
}

/* Waits for flag == `value` (%eax is clobbered), yielding the CPU. */
#define WAIT_FLAG(label, test)                 \
  label ":mov sh_flag(%rip), %eax\n"           \
  "  test %eax, %eax\n"                        \
  "  " test " 9f\n"                            \
  "  mov $24, %eax\n" /* sched_yield */        \
  "  syscall\n"                                \
  "  jmp " label "b\n"                         \
  "9:\n"

/* sh_produce_OP(n): %r10 counts items, %r8 holds x's value (the producer is
   its only writer). */
#define PRODUCER(op, body)                     \
  FUNC(sh_produce_##op)                        \
  "  mov %rdi, %r10\n"                         \
  "  xor %r8d, %r8d\n"                         \
  WAIT_FLAG("1", "jz")                         \
  body                                         \
  "  movl $1, sh_flag(%rip)\n"                 \
  "  dec %r10\n"                               \
  "  jnz 1b\n"                                 \
  "  ret\n"                                    \
  END(sh_produce_##op)

__asm__(
    FUNC(sh_consume)
    "  mov sh_flag(%rip), %eax\n"
    "  movl $1, sh_ready(%rip)\n"
    "  xor %r8d, %r8d\n"
    WAIT_FLAG("1", "jnz")
    "  add sh_x(%rip), %r8\n"
    "  movl $0, sh_flag(%rip)\n"
    "  dec %rdi\n"
    "  jnz 1b\n"
    "  mov %r8, %rax\n"
    "  ret\n"
    END(sh_consume)

    PRODUCER(add, "  addl $1, sh_x(%rip)\n")
    PRODUCER(lock_add, "  lock addl $1, sh_x(%rip)\n")
    PRODUCER(xchg, "  lea 1(%r8), %eax\n  xchg %eax, sh_x(%rip)\n  inc %r8\n")
    PRODUCER(cas_ok, "  mov %r8d, %eax\n  lea 1(%r8), %ecx\n"
                     "  lock cmpxchg %ecx, sh_x(%rip)\n  inc %r8\n")
    PRODUCER(cas_fail, "  lea 1000(%r8), %eax\n  mov $5, %ecx\n"
                       "  lock cmpxchg %ecx, sh_x(%rip)\n")
    PRODUCER(read_write, "  mov sh_x(%rip), %eax\n  add $1, %eax\n  mov %eax, sh_x(%rip)\n")
    PRODUCER(read4_write8, "  mov sh_x(%rip), %eax\n  lea 1(%rax), %rcx\n  mov %rcx, sh_x(%rip)\n")
    PRODUCER(write8_read4, "  lea 1(%r8), %rcx\n  mov %rcx, sh_x(%rip)\n"
                           "  mov sh_x(%rip), %r8d\n")
    PRODUCER(write4_read8, "  lea 1(%r8), %ecx\n  mov %ecx, sh_x(%rip)\n"
                           "  mov sh_x(%rip), %r8\n")
    ".text\n");

extern "C" {
void sh_produce_add(long n);
void sh_produce_lock_add(long n);
void sh_produce_xchg(long n);
void sh_produce_cas_ok(long n);
void sh_produce_cas_fail(long n);
void sh_produce_read_write(long n);
void sh_produce_read4_write8(long n);
void sh_produce_write8_read4(long n);
void sh_produce_write4_read8(long n);
}

struct Op {
  const char* name;
  void (*produce)(long n);
  bool writes;  // x ends as N, else stays 0
};

static const Op kOps[] = {
    {"add", sh_produce_add, true},
    {"lock_add", sh_produce_lock_add, true},
    {"xchg", sh_produce_xchg, true},
    {"cas_ok", sh_produce_cas_ok, true},
    {"cas_fail", sh_produce_cas_fail, false},
    {"read_write", sh_produce_read_write, true},
    {"read4_write8", sh_produce_read4_write8, true},
    {"write8_read4", sh_produce_write8_read4, true},
    {"write4_read8", sh_produce_write4_read8, true},
};

static long n_items;

static void* consumer(void*) {
  sh_consume(n_items);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) usage(argv[0], "OP N");
  const Op* op = NULL;
  for (const Op& o : kOps)
    if (strcmp(argv[1], o.name) == 0) op = &o;
  if (op == NULL) usage(argv[0], "OP N (OP: add lock_add xchg cas_ok cas_fail read_write "
                                 "read4_write8 write8_read4 write4_read8)");
  n_items = arg_long(argc, argv, 2, "N");
  if (n_items == 0) usage(argv[0], "OP N (N > 0)");

  pthread_t thread;
  if (pthread_create(&thread, NULL, consumer, NULL) != 0) {
    perror("pthread_create");
    return 1;
  }
  while (sh_ready == 0) sched_yield();
  char name[64];
  snprintf(name, sizeof name, "sh_produce_%s", op->name);
  op->produce(n_items);
  pthread_join(thread, NULL);

  const long expected = op->writes ? n_items : 0;
  if (sh_x != expected) {
    fprintf(stderr, "x is %ld, expected %ld\n", sh_x, expected);
    return 1;
  }
  print_count("sh_consume", 1);
  print_count(name, 1);
  return 0;
}
