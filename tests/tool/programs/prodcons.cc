// SPDX-License-Identifier: GPL-2.0-or-later
/* Producer/consumer over ONE shared int cell (paper, Figure 1 / Example 2).

   usage: prodcons spin|sem N

   The main thread (produce_all) writes the values 1..N one at a time into
   `cell`; a second thread (consume_all) reads each value once. The cell is the
   same memory location every time, so consume_all's RMS does not depend on N,
   while its TRMS grows with N: every read of `cell` follows a write by the
   other thread.

   spin: the handshake is a flag `full` (1 = a value is waiting), polled with
         sched_yield(). Exact: consume_all reads `full` once before the
         producer may start (a plain first access), then each item costs it
         exactly two thread-induced first reads (the producer's write of
         `full` = 1 and of `cell`); its own writes of `full` = 0 induce
         nothing. So, for one activation of consume_all:
             sum of thread-induced reads = 2N + c, external reads = 0,
             TRMS = 2N + C, RMS = C', with c, C, C' independent of N.
   sem:  the usual two POSIX semaphores (empty, full). TRMS >= N + C and RMS
         independent of N up to the paths taken inside sem_wait/sem_post
         (not exact: those depend on the interleaving).

   produce_all: exactly N thread-induced reads (`full` after each of the
   consumer's N - 1 writes of 0 before an item, and consumer_ready once).

   Exact activation counts: consume_all 1, produce_all 1.
   Link with -z now: no lazy PLT resolution inside the measured routines. */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <string.h>

#include "progs.h"

static volatile int cell __attribute__((aligned(64)));
static volatile int full __attribute__((aligned(64)));
static volatile int consumer_ready __attribute__((aligned(64)));
static sem_t sem_empty, sem_full;
static long n_items;
static long consumed_sum;

extern "C" NOINLINE long consume_all(long n) {
  long sum = 0;
  /* Fixed part: one call of sched_yield whatever the interleaving (its PLT
     slot, written by the main thread's dynamic linker, is a constant induced
     read), and the first access of `full`, before the producer may start. */
  sched_yield();
  if (__atomic_load_n(&full, __ATOMIC_ACQUIRE) != 0) abort();
  consumer_ready = 1; /* now it may */
  for (long i = 0; i < n; i++) {
    while (__atomic_load_n(&full, __ATOMIC_ACQUIRE) == 0) sched_yield();
    sum += cell;
    __atomic_store_n(&full, 0, __ATOMIC_RELEASE);
  }
  return sum;
}

extern "C" NOINLINE void produce_all(long n) {
  while (consumer_ready == 0) sched_yield();
  for (long i = 1; i <= n; i++) {
    while (__atomic_load_n(&full, __ATOMIC_ACQUIRE) != 0) sched_yield();
    cell = (int)i;
    __atomic_store_n(&full, 1, __ATOMIC_RELEASE);
  }
}

extern "C" NOINLINE long consume_all_sem(long n) {
  long sum = 0;
  for (long i = 0; i < n; i++) {
    sem_wait(&sem_full);
    sum += cell;
    sem_post(&sem_empty);
  }
  return sum;
}

extern "C" NOINLINE void produce_all_sem(long n) {
  for (long i = 1; i <= n; i++) {
    sem_wait(&sem_empty);
    cell = (int)i;
    sem_post(&sem_full);
  }
}

static void* consumer_spin(void*) {
  consumed_sum = consume_all(n_items);
  return NULL;
}

static void* consumer_sem(void*) {
  consumed_sum = consume_all_sem(n_items);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) usage(argv[0], "spin|sem N");
  int spin = strcmp(argv[1], "spin") == 0;
  if (!spin && strcmp(argv[1], "sem") != 0) usage(argv[0], "spin|sem N");
  n_items = arg_long(argc, argv, 2, "N");
  sem_init(&sem_empty, 0, 1);
  sem_init(&sem_full, 0, 0);

  pthread_t consumer;
  if (pthread_create(&consumer, NULL, spin ? consumer_spin : consumer_sem, NULL) != 0) {
    perror("pthread_create");
    return 1;
  }
  if (spin)
    produce_all(n_items);
  else
    produce_all_sem(n_items);
  pthread_join(consumer, NULL);

  long expected = n_items * (n_items + 1) / 2;
  if (consumed_sum != expected) {
    fprintf(stderr, "consumed sum %ld, expected %ld\n", consumed_sum, expected);
    return 1;
  }
  print_count(spin ? "consume_all" : "consume_all_sem", 1);
  print_count(spin ? "produce_all" : "produce_all_sem", 1);
  printf("items %ld\n", n_items);
  return 0;
}
