// SPDX-License-Identifier: GPL-2.0-or-later
/* Calling contexts (--collect-context=yes).

   usage: contexts callers N... | threads K N | deep D

   callers N...: for each N, linear_caller(N) calls work(N, 1) once and
                 quadratic_caller(N) calls work(N, N) once. work(n, passes)
                 reads the first n cells of a table `passes` times: its RMS
                 is n cells plus a constant (its own stack), the same from
                 both callers, but its cost grows ~n from linear_caller and
                 ~n^2 from quadratic_caller.
   threads K N:  two threads, one started in entry_a, one in entry_b; each
                 calls shared_work(N) K times.
   deep D:       in a thread with a 256 MiB stack, deep_rec(D) calls
                 deep_rec(D-1) ... deep_rec(0): D+1 nested activations.

   Exact activation counts (printed): callers: linear_caller, quadratic_caller
   and work(, passes) once per N from each caller; threads: entry_a 1,
   entry_b 1, shared_work 2K; deep: deep_rec D+1. */
#include <pthread.h>
#include <string.h>

#include "progs.h"

enum { kTableCells = 4096 };
static int table[kTableCells];
static volatile long sink;

extern "C" NOINLINE long work(long n, long passes) {
  long s = 0;
  for (long p = 0; p < passes; p++)
    for (long i = 0; i < n; i++) s += table[i];
  return s;
}

extern "C" NOINLINE void linear_caller(long n) { sink = sink + work(n, 1); }

extern "C" NOINLINE void quadratic_caller(long n) { sink = sink + work(n, n); }

static long thread_calls, thread_n;

extern "C" NOINLINE long shared_work(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += table[i];
  return s;
}

extern "C" NOINLINE void* entry_a(void*) {
  for (long i = 0; i < thread_calls; i++) sink = sink + shared_work(thread_n);
  return nullptr;
}

extern "C" NOINLINE void* entry_b(void*) {
  for (long i = 0; i < thread_calls; i++) sink = sink + shared_work(thread_n);
  return nullptr;
}

extern "C" NOINLINE long deep_rec(long n) {
  if (n == 0) return 0;
  return deep_rec(n - 1) + 1;
}

static long deep_depth;

extern "C" NOINLINE void* deep_entry(void*) {
  sink = deep_rec(deep_depth);
  return nullptr;
}

static void run_thread(void* (*entry)(void*), size_t stack_size) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (stack_size && pthread_attr_setstacksize(&attr, stack_size) != 0) exit(3);
  pthread_t thread;
  if (pthread_create(&thread, &attr, entry, nullptr) != 0) exit(3);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

int main(int argc, char** argv) {
  const char* what = "callers N... | threads K N | deep D";
  if (argc < 3) usage(argv[0], what);
  for (long i = 0; i < kTableCells; i++) table[i] = (int)i;
  if (strcmp(argv[1], "callers") == 0) {
    for (int i = 2; i < argc; i++) {
      long n = arg_long(argc, argv, i, "N");
      if (n > kTableCells) usage(argv[0], "callers N... (N <= 4096)");
      linear_caller(n);
      quadratic_caller(n);
    }
    print_count("linear_caller", argc - 2);
    print_count("quadratic_caller", argc - 2);
    print_count("work", 2L * (argc - 2));
  } else if (strcmp(argv[1], "threads") == 0 && argc == 4) {
    thread_calls = arg_long(argc, argv, 2, "K");
    thread_n = arg_long(argc, argv, 3, "N");
    if (thread_n > kTableCells) usage(argv[0], "threads K N (N <= 4096)");
    run_thread(entry_a, 0);  // one after the other: the counts stay exact
    run_thread(entry_b, 0);
    print_count("entry_a", 1);
    print_count("entry_b", 1);
    print_count("shared_work", 2 * thread_calls);
  } else if (strcmp(argv[1], "deep") == 0 && argc == 3) {
    deep_depth = arg_long(argc, argv, 2, "D");
    run_thread(deep_entry, (size_t)256 << 20);
    print_count("deep_rec", deep_depth + 1);
  } else {
    usage(argv[0], what);
  }
  return 0;
}
