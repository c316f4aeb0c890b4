// SPDX-License-Identifier: GPL-2.0-or-later
/* Three worker threads take items from a queue guarded by a mutex, so
   which thread processes which item, and what waits, vary from run to run;
   each item is one call of process() on an array of growing size. The CI
   gate (regress.py) must pass on two runs of the same mode and fail from
   the linear mode to the quadratic one.

   usage: gatework linear|quadratic

   process(a, n) reads the n ints of a (TRMS n at --memory-resolution=4):
   linear: one pass; quadratic: every pair. Items: n from 40 to 1200,
   growing by 1.15x, each size twice.

   Exact activation counts: process once per item (the program prints it). */
#include <pthread.h>
#include <string.h>

#include "progs.h"

static int g_quadratic;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static long g_next;
static long g_items;
static long g_sizes[128];
static long g_sum;

extern "C" NOINLINE long process(const int* a, long n) {
  long s = 0;
  if (g_quadratic) {
    for (long i = 0; i < n; i++)
      for (long j = 0; j < n; j++) s += a[i] < a[j];
  } else {
    for (long i = 0; i < n; i++) s += a[i];
  }
  return s;
}

static void* worker(void*) {
  int* a = (int*)malloc(2000 * sizeof(int));
  if (a == NULL) exit(1);
  for (;;) {
    pthread_mutex_lock(&g_lock);
    const long item = g_next++;
    pthread_mutex_unlock(&g_lock);
    if (item >= g_items) break;
    const long n = g_sizes[item];
    for (long i = 0; i < n; i++) a[i] = (int)((i * 7919 + item) % 1000);
    const long s = process(a, n);
    pthread_mutex_lock(&g_lock);
    g_sum += s;
    pthread_mutex_unlock(&g_lock);
  }
  free(a);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2 || (strcmp(argv[1], "linear") != 0 && strcmp(argv[1], "quadratic") != 0))
    usage(argv[0], "linear|quadratic");
  g_quadratic = strcmp(argv[1], "quadratic") == 0;
  for (double n = 40; n <= 1200; n *= 1.15) {
    g_sizes[g_items++] = (long)n;
    g_sizes[g_items++] = (long)n;
  }
  pthread_t threads[3];
  for (pthread_t& t : threads) pthread_create(&t, NULL, worker, NULL);
  for (pthread_t& t : threads) pthread_join(t, NULL);
  print_count("process", g_items);
  return g_sum < 0;
}
