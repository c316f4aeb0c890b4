// SPDX-License-Identifier: GPL-2.0-or-later
/* A coroutine handed from one thread to another, as Go's scheduler hands a
   goroutine to whichever thread runs it next.

   usage: handoff N

   The coroutine (ucontext, on its own mmap'ed stack) runs generate():
   first_half() (burns N blocks), yield_value() (swapcontext back), then
   second_half() (burns N blocks) and returns (uc_link). Thread A starts it
   (start_on_a) and gets control back at the yield; thread A then waits
   while thread B resumes it (resume_on_b) to its end; A exits after B.

   Exact activation counts: first_half 1 (in thread A), second_half 1 (in
   thread B), yield_value 1, start_on_a 1, resume_on_b 1. generate runs in
   both threads: started in A, suspended at the yield, and resumed in B. */
#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "progs.h"

enum { kStack = 256 * 1024 };

static ucontext_t coroutine, back;
static long n;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int stage;  // 1: A has started the coroutine; 2: B has finished it

extern "C" NOINLINE void first_half(void) { burn(n); }
extern "C" NOINLINE void second_half(void) { burn(n); }
extern "C" NOINLINE void yield_value(void) { swapcontext(&coroutine, &back); }

extern "C" NOINLINE void generate(void) {
  first_half();
  yield_value();
  second_half();
}

static void set_stage(int s) {
  pthread_mutex_lock(&lock);
  stage = s;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

static void wait_stage(int s) {
  pthread_mutex_lock(&lock);
  while (stage < s) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
}

extern "C" NOINLINE void start_on_a(void) { swapcontext(&back, &coroutine); }
extern "C" NOINLINE void resume_on_b(void) { swapcontext(&back, &coroutine); }

static void* thread_a(void*) {
  start_on_a();
  set_stage(1);
  wait_stage(2);  // stays alive while B runs the coroutine
  return nullptr;
}

static void* thread_b(void*) {
  wait_stage(1);
  resume_on_b();
  set_stage(2);
  return nullptr;
}

int main(int argc, char** argv) {
  n = arg_long(argc, argv, 1, "N");
  char* stack = static_cast<char*>(
      mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (stack == MAP_FAILED) return 1;
  getcontext(&coroutine);
  coroutine.uc_stack.ss_sp = stack;
  coroutine.uc_stack.ss_size = kStack;
  coroutine.uc_link = &back;
  makecontext(&coroutine, generate, 0);
  pthread_t a, b;
  pthread_create(&a, nullptr, thread_a, nullptr);
  pthread_create(&b, nullptr, thread_b, nullptr);
  pthread_join(b, nullptr);
  pthread_join(a, nullptr);
  static const char* const kOnce[] = {"first_half", "second_half", "yield_value", "start_on_a",
                                     "resume_on_b"};
  for (const char* name : kOnce) print_count(name, 1);
  return 0;
}
