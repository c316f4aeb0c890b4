// SPDX-License-Identifier: GPL-2.0-or-later
/* The bundled example profiled by scripts/run-example.sh (and used by the
   end-to-end test of the scripts). Each routine has a known growth:

   sum_array(a, n)        linear: reads n ints            (RMS = TRMS = n)
   insertion_sort(a, n)   quadratic on reversed input     (RMS = TRMS = n)
   consume_items(n)       reads one shared cell n times, each time after the
                          producer thread rewrote it      (RMS = 1, TRMS = n)
   read_chunks(fd, k)     read()s k chunks into one small buffer and reads
                          its first word each time        (RMS = 1, TRMS = k,
                                                           all external)

   Two worker threads call sum_array and insertion_sort on sizes 1..max;
   the main thread then calls consume_items for 50, 100, ..., 500 items and
   read_chunks for 40, 100, ..., 640 chunks. Every routine runs the same
   basic blocks on every run whatever the scheduling (see the handshake
   below), so its fits do not change from run to run.
   Usage: workload [max_size]   (default 200)

   Copyright (C) 2026, the aprof-trms authors. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int max_size = 200;

NOINLINE long sum_array(const int* a, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  return s;
}

NOINLINE void insertion_sort(int* a, int n) {
  for (int i = 1; i < n; i++) {
    int v = a[i], j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}

static void* worker(void* arg) {
  const int first = (int)(long)arg;
  int* a = malloc(sizeof(int) * max_size);
  long total = 0;
  for (int n = first; n <= max_size; n += 2) {
    for (int i = 0; i < n; i++) a[i] = n - i; /* reversed: the worst case */
    total += sum_array(a, n);
    insertion_sort(a, n);
  }
  free(a);
  return (void*)total;
}

/* Producer/consumer over one shared cell (the paper's Figure 2), with a
   handshake through two pipes: the consumer writes a "ready" byte, the
   producer waits for it, rewrites the cell and writes an "item" byte, which
   the consumer waits for before reading the cell. Waiting is a read() that
   blocks in the kernel or not, with the same client code either way: each
   thread runs the same basic blocks whatever the scheduling, and every read
   of the cell comes after the producer's write. So the fits of
   consume_items are the same on every run. (With semaphores, whether
   sem_wait found the count posted or had to sleep depended on scheduling,
   and so did the cost of consume_items.) The token bytes are never read by
   the program: they are no input of the routines. */
static volatile int shared_item;
static int to_producer[2], to_consumer[2];

NOINLINE void produce_item(int v) { shared_item = v; }

static void wait_byte(int fd) {
  char token;
  if (read(fd, &token, 1) != 1) abort();
}

static void send_byte(int fd) {
  static const char token = 1;
  if (write(fd, &token, 1) != 1) abort();
}

static void* producer(void* arg) {
  const int n = (int)(long)arg;
  for (int i = 0; i < n; i++) {
    wait_byte(to_producer[0]);
    produce_item(i);
    send_byte(to_consumer[1]);
  }
  return NULL;
}

NOINLINE long consume_items(int n) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    send_byte(to_producer[1]);
    wait_byte(to_consumer[0]);
    s += shared_item;
  }
  return s;
}

/* Buffered reads from a file (the paper's Figure 3). */
NOINLINE long read_chunks(int fd, int k) {
  int buffer[16];
  long s = 0;
  for (int i = 0; i < k; i++) {
    if (read(fd, buffer, sizeof buffer) != sizeof buffer) break;
    s += buffer[0];
  }
  return s;
}

int main(int argc, char** argv) {
  if (argc > 1) max_size = atoi(argv[1]);
  if (max_size < 1) {
    fprintf(stderr, "usage: %s [max_size >= 1]\n", argv[0]);
    return 2;
  }

  pthread_t threads[2];
  for (long t = 0; t < 2; t++) pthread_create(&threads[t], NULL, worker, (void*)(t + 1));
  long total = 0;
  for (int t = 0; t < 2; t++) {
    void* r;
    pthread_join(threads[t], &r);
    total += (long)r;
  }

  /* The first call of a libc routine touches state nobody touched before
     (the read() and write() paths): a large first input for whoever calls
     it first. Do that here in main, so that every measured activation of
     the routines below starts from the same state. */
  if (pipe(to_producer) != 0 || pipe(to_consumer) != 0) return 1;
  send_byte(to_consumer[1]);
  wait_byte(to_consumer[0]);
  for (int n = 50; n <= 500; n += 50) {
    pthread_t p;
    pthread_create(&p, NULL, producer, (void*)(long)n);
    total += consume_items(n);
    pthread_join(p, NULL);
  }

  int fd = open("/dev/zero", O_RDONLY);
  if (fd >= 0) {
    int warm_up[16];
    if (read(fd, warm_up, sizeof warm_up) != sizeof warm_up) return 1;
    for (int k = 40; k <= 640; k += 60) total += read_chunks(fd, k);
    close(fd);
  }
  printf("workload done: %ld\n", total);
  return 0;
}
