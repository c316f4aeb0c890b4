// SPDX-License-Identifier: GPL-2.0-or-later
/* Signal handlers.

   usage: signals raise K | altstack K | altstack-thread K | siglongjmp K

   raise K:      signal_loop(K) sends itself SIGUSR1 K times (raise() and
                 kill(getpid()) alternately), waits until the handler ran and
                 calls after_signal() after each. The handler on_signal calls
                 handler_work().
   altstack K:   the same, the handler running on an alternate signal stack
                 (sigaltstack, SA_ONSTACK) in a static buffer: below the main
                 stack, so the handler's stack pointer is lower than the
                 interrupted code's, as if it were a deeper call.
   altstack-thread K: the same in a second thread whose own stack is a static
                 buffer and whose alternate signal stack is mmap'ed memory
                 above it: the handler's stack pointer is HIGHER than the
                 interrupted code's (main blocks SIGUSR1, so that kill() too
                 reaches this thread). A profiler that unwound its shadow stack by
                 stack pointer alone would close signal_loop at the first
                 signal; signal_loop must stay open until it returns, so its
                 cumulative cost covers all K calls of after_signal.
   siglongjmp K: siglongjmp_loop(K) K times: sigsetjmp, then victim1 ->
                 victim2 -> victim3, which raises SIGUSR2; the handler
                 jumping_handler siglongjmps back to siglongjmp_loop (victim1..3
                 and the handler never return); then after_siglongjmp().

   Exact activation counts (printed, also counted by the program itself):
     raise/altstack/altstack-thread: signal_loop 1, on_signal K,
       handler_work K, after_signal K;
     siglongjmp: siglongjmp_loop 1, victim1/2/3 K, jumping_handler K,
       after_siglongjmp K.
   Linked with -z now. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "progs.h"

static volatile sig_atomic_t handled;
static volatile long sink;
static sigjmp_buf jump_env;

extern "C" NOINLINE void handler_work(void) {
  handled = handled + 1;
}

extern "C" NOINLINE void on_signal(int sig) {
  (void)sig;
  handler_work();
}

extern "C" NOINLINE void after_signal(void) {
  burn(300);
}

extern "C" NOINLINE long signal_loop(long k) {
  for (long i = 0; i < k; i++) {
    sig_atomic_t before = handled;
    if (i % 2 == 0)
      raise(SIGUSR1);
    else
      kill(getpid(), SIGUSR1);
    /* Natively the signal is handled before raise/kill return; under Valgrind
       it may come a little later: wait for it (never two pending at once). */
    while (handled == before) sched_yield();
    after_signal();
  }
  return handled;
}

extern "C" NOINLINE void jumping_handler(int sig) {
  (void)sig;
  handled = handled + 1;
  siglongjmp(jump_env, 1);
}

extern "C" NOINLINE void victim3(void) {
  raise(SIGUSR2);
  /* The handler does not return; under Valgrind it may run a little later. */
  for (long i = 0; i < 1000000; i++) sched_yield();
  abort();
}

extern "C" NOINLINE void victim2(void) {
  victim3();
  sink = sink + 1;
}

extern "C" NOINLINE void victim1(void) {
  victim2();
  sink = sink + 1;
}

extern "C" NOINLINE void after_siglongjmp(void) {
  burn(300);
}

extern "C" NOINLINE long siglongjmp_loop(long k) {
  volatile long jumps = 0;
  for (volatile long i = 0; i < k; i++) {
    if (sigsetjmp(jump_env, 1) == 0)
      victim1();
    else
      jumps = jumps + 1;
    after_siglongjmp();
  }
  return jumps;
}

static void install(int sig, void (*fn)(int), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  if (sigaction(sig, &sa, NULL) != 0) {
    perror("sigaction");
    exit(1);
  }
}

static void set_altstack(void* base, size_t size) {
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = base;
  ss.ss_size = size;
  if (sigaltstack(&ss, NULL) != 0) {
    perror("sigaltstack");
    exit(1);
  }
}

enum { STACK_SIZE = 1 << 20 };
static char low_altstack[STACK_SIZE] __attribute__((aligned(4096)));
static char low_thread_stack[STACK_SIZE] __attribute__((aligned(4096)));
static long n_signals;
static long thread_result;

static void* altstack_thread(void*) {
  /* main blocks SIGUSR1: kill(getpid()) must reach this thread. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  /* The alternate stack is per thread: mmap'ed, so above this thread's stack. */
  void* high = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (high == MAP_FAILED || (char*)high < low_thread_stack) {
    fprintf(stderr, "altstack-thread: mmap'ed stack %p not above %p\n", high,
            (void*)low_thread_stack);
    exit(1);
  }
  set_altstack(high, STACK_SIZE);
  thread_result = signal_loop(n_signals);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) usage(argv[0], "raise|altstack|altstack-thread|siglongjmp K");
  long k = arg_long(argc, argv, 2, "K");
  n_signals = k;
  const char* mode = argv[1];
  if (strcmp(mode, "raise") == 0 || strcmp(mode, "altstack") == 0) {
    if (strcmp(mode, "altstack") == 0) {
      set_altstack(low_altstack, STACK_SIZE);
      install(SIGUSR1, on_signal, SA_ONSTACK);
    } else {
      install(SIGUSR1, on_signal, 0);
    }
    if (signal_loop(k) != k) return 1;
  } else if (strcmp(mode, "altstack-thread") == 0) {
    install(SIGUSR1, on_signal, SA_ONSTACK);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, NULL); /* inherited; the thread unblocks it */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, low_thread_stack, STACK_SIZE);
    pthread_t t;
    if (pthread_create(&t, &attr, altstack_thread, NULL) != 0) return 1;
    pthread_join(t, NULL);
    if (thread_result != k) return 1;
  } else if (strcmp(mode, "siglongjmp") == 0) {
    install(SIGUSR2, jumping_handler, 0);
    if (siglongjmp_loop(k) != k || handled != k) return 1;
    print_count("siglongjmp_loop", 1);
    const char* names[] = {"victim1", "victim2", "victim3", "jumping_handler",
                           "after_siglongjmp"};
    for (const char* name : names) print_count(name, k);
    return 0;
  } else {
    usage(argv[0], "raise|altstack|altstack-thread|siglongjmp K");
  }
  if (handled != k) {
    fprintf(stderr, "%ld signals handled, expected %ld\n", (long)handled, k);
    return 1;
  }
  print_count("signal_loop", 1);
  print_count("on_signal", k);
  print_count("handler_work", k);
  print_count("after_signal", k);
  return 0;
}
