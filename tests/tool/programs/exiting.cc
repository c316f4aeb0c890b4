// SPDX-License-Identifier: GPL-2.0-or-later
/* Programs that end abruptly: the report must still be complete.

   usage: exiting deep D         descend(D) recurses to descend(0), which
                                 calls exit(3): D + 1 activations of descend
                                 are pending at exit
          exiting thread D       3 threads spin in busy_loop() (never
                                 returning) while a 4th calls deep_exit(D),
                                 which recurses to deep_exit(0) and calls
                                 exit(5) from there; main is blocked in
                                 pthread_join
          exiting abort          crash_level1 -> 2 -> 3 -> abort()  (SIGABRT)
          exiting segv           crash_level1 -> 2 -> 3 -> store to address 0
                                 (SIGSEGV)

   An atexit handler, at_exit_handler(), runs once in "deep" and "thread".
   Exact activation counts (all pending when the program ends, except
   at_exit_handler): deep: descend D + 1, at_exit_handler 1, main 1;
   thread: deep_exit D + 1, busy_loop 3, at_exit_handler 1, main 1, and 5
   thread records; abort/segv: crash_level1/2/3 1 each, main 1.
   Exit status: deep 3, thread 5; abort/segv: killed by the signal. The
   expected counts are printed first (stdout is flushed before the end). */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "progs.h"

static volatile long sink;
static volatile int busy_started;
static long depth;
static int crash_kind; /* 0 abort, 1 segv */

extern "C" NOINLINE void at_exit_handler(void) {
  sink = sink + 1;
}

extern "C" NOINLINE void descend(long n) {
  if (n < 0) return; /* never: only silences -Winfinite-recursion */
  if (n == 0) exit(3);
  descend(n - 1);
  sink = sink + 1;
}

extern "C" NOINLINE void busy_loop(void) {
  __atomic_add_fetch(&busy_started, 1, __ATOMIC_SEQ_CST);
  for (;;) {
    burn(100);
    sched_yield();
  }
}

extern "C" NOINLINE void deep_exit(long n) {
  if (n < 0) return; /* never: only silences -Winfinite-recursion */
  if (n == 0) exit(5);
  deep_exit(n - 1);
  sink = sink + 1;
}

static void* busy_main(void*) {
  busy_loop();
  return NULL;
}

static void* exiter_main(void*) {
  while (__atomic_load_n(&busy_started, __ATOMIC_SEQ_CST) < 3) sched_yield();
  deep_exit(depth);
  return NULL;
}

extern "C" NOINLINE void crash_level3(void) {
  if (crash_kind == 0) abort();
  *(volatile int*)(long)sink = 1; /* sink is 0: a store to address 0 */
}

extern "C" NOINLINE void crash_level2(void) {
  crash_level3();
  sink = sink + 1;
}

extern "C" NOINLINE void crash_level1(void) {
  crash_level2();
  sink = sink + 1;
}

int main(int argc, char** argv) {
  if (argc < 2) usage(argv[0], "deep D | thread D | abort | segv");
  const char* mode = argv[1];
  if (strcmp(mode, "deep") == 0 || strcmp(mode, "thread") == 0) {
    depth = arg_long(argc, argv, 2, "D");
    atexit(at_exit_handler);
    print_count(mode[0] == 'd' ? "descend" : "deep_exit", depth + 1);
    print_count("at_exit_handler", 1);
    print_count("main", 1);
    if (mode[0] == 't') {
      print_count("busy_loop", 3);
      printf("threads 5\n");
    }
    fflush(stdout);
    if (mode[0] == 'd') descend(depth);
    pthread_t t;
    for (int i = 0; i < 3; i++)
      if (pthread_create(&t, NULL, busy_main, NULL) != 0) return 1;
    if (pthread_create(&t, NULL, exiter_main, NULL) != 0) return 1;
    pthread_join(t, NULL);
    return 1; /* not reached */
  }
  if (strcmp(mode, "abort") == 0 || strcmp(mode, "segv") == 0) {
    crash_kind = mode[0] == 's';
    print_count("crash_level1", 1);
    print_count("crash_level2", 1);
    print_count("crash_level3", 1);
    print_count("main", 1);
    fflush(stdout);
    crash_level1();
    return 1; /* not reached */
  }
  usage(argv[0], "deep D | thread D | abort | segv");
}
