// SPDX-License-Identifier: GPL-2.0-or-later
/* Where a routine's input came from (--input-sources=yes).

   usage: sources halves ROUNDS CELLS   two producer threads fill the two
                                        halves of a buffer, the main thread
                                        reads all of it, ROUNDS times
          sources reuse                 two threads one after the other (the
                                        second gets the first's Valgrind
                                        thread id) each fill half a buffer

   halves: CELLS ints (CELLS even); thread A runs fill_half() on the low
     half, thread B runs fill_half() on the high half, then all three meet
     at a barrier; consume_rounds() (main thread) then sums the buffer in its
     own loop and meets them at a second barrier before the next round. Every
     cell was written by a producer since the consumer last read it, so
     consume_rounds' own induced reads from each producer thread's
     fill_half are exactly ROUNDS * CELLS / 2 (its barrier waits are callees).
   reuse: thread A runs fill_half() on buf[0..16) and is joined; thread B is
     started after (same Valgrind tid) and runs fill_half() on buf[16..32);
     consume_once() reads the 32 ints: 16 induced reads from each of the two
     threads' fill_half.

   Exact activation counts: halves: consume_rounds 1, fill_half 2 * ROUNDS;
   reuse: consume_once 1, fill_half 2. */
#include <pthread.h>
#include <string.h>

#include "progs.h"

static int* buffer;
static long cells, rounds;
static pthread_barrier_t written, consumed;
static volatile long sink;

extern "C" NOINLINE void fill_half(int* half, long n, int value) {
  for (long i = 0; i < n; i++) half[i] = value;
}

extern "C" NOINLINE long consume_rounds(void) {
  long sum = 0;
  for (long r = 0; r < rounds; r++) {
    pthread_barrier_wait(&written);
    for (long i = 0; i < cells; i++) sum += buffer[i];
    pthread_barrier_wait(&consumed);
  }
  return sum;
}

extern "C" NOINLINE long consume_once(void) {
  long sum = 0;
  for (long i = 0; i < 32; i++) sum += buffer[i];
  return sum;
}

static void* producer(void* arg) {
  const long half = (long)arg;
  for (long r = 0; r < rounds; r++) {
    fill_half(buffer + half * (cells / 2), cells / 2, (int)(r + 1));
    pthread_barrier_wait(&written);
    pthread_barrier_wait(&consumed);
  }
  return NULL;
}

static void* one_fill(void* arg) {
  fill_half(buffer + (long)arg * 16, 16, 1);
  return NULL;
}

static void start_and_join(void* (*fn)(void*), void* arg) {
  pthread_t t;
  if (pthread_create(&t, NULL, fn, arg) != 0) {
    perror("pthread_create");
    exit(1);
  }
  pthread_join(t, NULL);
}

int main(int argc, char** argv) {
  if (argc < 2) usage(argv[0], "halves ROUNDS CELLS | reuse");
  if (strcmp(argv[1], "reuse") == 0) {
    buffer = (int*)calloc(32, sizeof(int));
    start_and_join(one_fill, (void*)0);
    start_and_join(one_fill, (void*)1);
    sink = consume_once();
    print_count("consume_once", 1);
    print_count("fill_half", 2);
    return sink == 32 ? 0 : 1;
  }
  if (strcmp(argv[1], "halves") != 0) usage(argv[0], "halves ROUNDS CELLS | reuse");
  rounds = arg_long(argc, argv, 2, "ROUNDS");
  cells = arg_long(argc, argv, 3, "CELLS");
  if (cells % 2) usage(argv[0], "halves ROUNDS CELLS (CELLS even)");
  buffer = (int*)aligned_alloc(64, (cells * sizeof(int) + 63) / 64 * 64);
  pthread_barrier_init(&written, NULL, 3);
  pthread_barrier_init(&consumed, NULL, 3);
  pthread_t a, b;
  if (pthread_create(&a, NULL, producer, (void*)0) != 0 ||
      pthread_create(&b, NULL, producer, (void*)1) != 0) {
    perror("pthread_create");
    return 1;
  }
  sink = consume_rounds();
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  print_count("consume_rounds", 1);
  print_count("fill_half", 2 * rounds);
  return 0;
}
