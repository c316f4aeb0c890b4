// SPDX-License-Identifier: GPL-2.0-or-later
/* A program that runs in phases and waits between them, so that a test can
   dump and zero its profile while it runs (docs/manual.md, "Profiling a
   server").

   usage: phases PHASES CALLS [THREADS]

   Single-threaded (THREADS absent or 0): for each phase k = 1..PHASES, main
   calls phase_work(), which calls leaf(i) for i = 0..CALLS-1 (each reads
   4 * (i % 8 + 1) ints of a table: 8 input sizes) and inner() once, which
   calls leaf() 3 times; then main prints "phase k" and waits (a blocking read() of one byte from stdin) before the
   next phase, so that a dump or zero between phases falls at the same point
   of every run. Exact counts: phase_work PHASES, inner PHASES, leaf
   PHASES * (CALLS + 3); every activation of a phase completes inside it.

   With THREADS > 0: main starts THREADS workers, prints "running" and waits
   for one byte on stdin (the test dumps and zeroes meanwhile, while the
   workers run), then waits for them. Each worker runs PHASES rounds of
   phase_work() (leaf CALLS times and inner once each round):
   exact counts over the whole run: leaf THREADS * PHASES * (CALLS + 3). */
#include <pthread.h>
#include <unistd.h>

#include "progs.h"

static int table[64];
static volatile long sink;

extern "C" NOINLINE long leaf(int offset) {
  long s = 0;
  for (int i = 0; i < 4 * (offset % 8 + 1); i++) s += table[i];
  return s;
}

extern "C" NOINLINE void inner(void) {
  for (int i = 0; i < 3; i++) sink = sink + leaf(i);
}

extern "C" NOINLINE void phase_work(long calls) {
  for (long i = 0; i < calls; i++) sink = sink + leaf(static_cast<int>(i));
  inner();
}

static long rounds, calls_per_round;

static void* worker(void*) {
  for (long r = 0; r < rounds; r++) phase_work(calls_per_round);
  return nullptr;
}

static void wait_for_test(void) {
  char byte;
  if (read(0, &byte, 1) != 1) exit(3);
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) usage(argv[0], "PHASES CALLS [THREADS]");
  rounds = arg_long(argc, argv, 1, "PHASES");
  calls_per_round = arg_long(argc, argv, 2, "CALLS");
  const long threads = argc == 4 ? arg_long(argc, argv, 3, "THREADS") : 0;
  for (int i = 0; i < 64; i++) table[i] = i;
  if (threads == 0) {
    for (long k = 1; k <= rounds; k++) {
      phase_work(calls_per_round);
      printf("phase %ld\n", k);
      fflush(stdout);
      wait_for_test();
    }
    print_count("leaf", rounds * (calls_per_round + 3));
    return 0;
  }
  pthread_t ids[64];
  if (threads > 64) usage(argv[0], "PHASES CALLS [THREADS <= 64]");
  for (long t = 0; t < threads; t++) pthread_create(&ids[t], nullptr, worker, nullptr);
  printf("running\n");
  fflush(stdout);
  wait_for_test();
  for (long t = 0; t < threads; t++) pthread_join(ids[t], nullptr);
  print_count("leaf", threads * rounds * (calls_per_round + 3));
  return 0;
}
