// SPDX-License-Identifier: GPL-2.0-or-later
/* Many threads.

   usage: threads

   The main thread starts 64 threads that all wait on a barrier (so all 64
   are alive at the same time); then thread number i (0..63) calls worker()
   i + 1 times. Threads whose number is a multiple of 8 then leave with
   pthread_exit() from three calls deep (exit_level1 -> exit_level2 ->
   exit_level3), i.e. with frames still open; the others return from
   thread_main normally.

   Exact activation counts: worker 64 * 65 / 2 = 2080 in all, and i + 1 in
   the i-th thread (so the per-thread counts are exactly 1, 2, ..., 64);
   exit_level1/2/3: 8 each. The report has 65 thread records (main + 64). */
#include <pthread.h>

#include "progs.h"

enum { NTHREADS = 64 };

static pthread_barrier_t barrier;
static volatile long sink;
static long worker_calls[NTHREADS];

extern "C" NOINLINE void worker(long i) {
  worker_calls[i]++;
  burn(20);
}

extern "C" NOINLINE void exit_level3(void) {
  pthread_exit(NULL);
}

extern "C" NOINLINE void exit_level2(void) {
  exit_level3();
  sink = sink + 1;
}

extern "C" NOINLINE void exit_level1(void) {
  exit_level2();
  sink = sink + 1;
}

static void* thread_main(void* arg) {
  long i = (long)arg;
  pthread_barrier_wait(&barrier);
  for (long j = 0; j <= i; j++) worker(i);
  if (i % 8 == 0) exit_level1();
  return NULL;
}

int main(void) {
  pthread_t t[NTHREADS];
  pthread_barrier_init(&barrier, NULL, NTHREADS);
  for (long i = 0; i < NTHREADS; i++) {
    if (pthread_create(&t[i], NULL, thread_main, (void*)i) != 0) {
      perror("pthread_create");
      return 1;
    }
  }
  long total = 0;
  for (long i = 0; i < NTHREADS; i++) {
    pthread_join(t[i], NULL);
    if (worker_calls[i] != i + 1) return 1;
    total += worker_calls[i];
  }
  print_count("worker", total);
  print_count("exit_level1", NTHREADS / 8);
  print_count("exit_level2", NTHREADS / 8);
  print_count("exit_level3", NTHREADS / 8);
  printf("threads %d\n", NTHREADS + 1);
  return 0;
}
