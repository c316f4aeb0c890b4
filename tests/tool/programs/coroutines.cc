// SPDX-License-Identifier: GPL-2.0-or-later
/* Generators on their own stacks (ucontext: makecontext/swapcontext).

   usage: coroutines PLACEMENT THREAD G K N [ROUNDS | escape | again]

   PLACEMENT: where the generators' stacks are
     malloc      64 KiB blocks from malloc (in the main thread: the heap, far
                 below the main stack; in a worker thread: that thread's
                 malloc arena)
     mmap-high   mmap'ed 256 KiB stacks at a hint 64 GiB above the driver's
                 stack pointer
     mmap-low    mmap'ed 256 KiB stacks at a hint 64 GiB below it (or half
                 of the way to address 0)
   THREAD: main (the driver runs in the main thread) or worker (in a second
   thread, which allocates the stacks too).
   G generators, each yielding K values; N ints of input per generator.

   drive() resumes the G generators round robin (resume_generator) until
   all have finished, or for ROUNDS rounds only (the thread then ends with
   the generators suspended), and passes every value to consume(). With
   "escape", a generator does not return after its K values: it calls
   escape(), which longjmps back into the driver's resume_generator (to a
   setjmp on the driver's stack), leaving its frames on its own stack.
   With "again", the driver runs a second batch of G generators after the
   first has finished and its stacks were freed: the new stacks reuse the
   old addresses (the program prints "reused N", N of G stacks). Generator g runs
   generate(g): K times produce() (a sum over the next N/K ints of its own
   array) and yield_value() (swapcontext back to the driver); then it
   returns, and uc_link resumes the driver. The program prints where the
   stacks lie relative to the driver's stack ("placement above|below").

   Exact activation counts: drive 1, generate G, produce G*K,
   yield_value G*K, consume G*K, resume_generator G*(K+1); with ROUNDS = R
   <= K: produce, yield_value, consume and resume_generator G*R each; with
   "escape": escape G, the others as without; with "again": twice as
   without (drive 1). 
   Input: every int of every array is read exactly once, by produce() inside
   generate() inside drive(); nothing else reads the arrays. */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "progs.h"

enum { kSmallStack = 64 * 1024, kLargeStack = 256 * 1024 };

struct Generator {
  ucontext_t context;
  char* stack;
  size_t stack_size;
  const int* data;
  long slice;
  long value;
  bool done;
};

static ucontext_t driver_context;
static Generator* generators;
static long G, K, N, rounds;
static long sum_produced, sum_consumed;
static const char* placement;
static bool escapes;
static long batches;
static jmp_buf escape_point;
static long counts[7];
enum { kGenerate, kProduce, kYield, kConsume, kResume, kDrive, kEscape };

extern "C" NOINLINE long produce(const int* data, long n) {
  counts[kProduce]++;
  long s = 0;
  for (long i = 0; i < n; i++) s += data[i];
  return s;
}

extern "C" NOINLINE void yield_value(Generator* gen, long v) {
  counts[kYield]++;
  gen->value = v;
  swapcontext(&gen->context, &driver_context);
}

extern "C" NOINLINE void escape(void) {
  counts[kEscape]++;
  longjmp(escape_point, 1);
}

extern "C" NOINLINE void generate(int g) {
  counts[kGenerate]++;
  Generator* gen = &generators[g];
  for (long i = 0; i < K; i++) {
    long v = produce(gen->data + i * gen->slice, gen->slice);
    sum_produced += v;
    yield_value(gen, v);
  }
  gen->done = true;
  if (escapes) escape();
}

extern "C" NOINLINE void consume(long v) {
  counts[kConsume]++;
  sum_consumed += v;
  burn(50);
}

/* True if the generator yielded a value, false if it finished. */
extern "C" NOINLINE bool resume_generator(Generator* gen) {
  counts[kResume]++;
  if (setjmp(escape_point) == 0) swapcontext(&driver_context, &gen->context);
  return !gen->done;
}

/* An mmap'ed stack near `hint` (the kernel and Valgrind honour a free,
   aligned hint). */
static char* stack_at(uintptr_t hint, size_t size) {
  hint &= ~(uintptr_t)0xfffff;
  void* p = mmap((void*)hint, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return (char*)p;
}

static void make_generator(Generator* gen, int g, char* local) {
  const uintptr_t sp = (uintptr_t)local;
  /* 64 GiB away, or half-way to address 0 if the stack is lower. */
  const uintptr_t far = sp / 2 < (64UL << 30) ? sp / 2 : 64UL << 30;
  size_t size = kLargeStack;
  if (strcmp(placement, "malloc") == 0) {
    size = kSmallStack;
    gen->stack = (char*)malloc(size);
  } else if (strcmp(placement, "mmap-high") == 0) {
    gen->stack = stack_at(sp + far + g * (1UL << 20), size);
  } else {
    gen->stack = stack_at(sp - far - g * (1UL << 20), size);
  }
  int* data = (int*)malloc((size_t)N * sizeof(int));
  for (long i = 0; i < N; i++) data[i] = (int)((i * 7 + g) % 1000);
  gen->data = data;
  gen->slice = N / K;
  gen->done = false;
  getcontext(&gen->context);
  gen->context.uc_stack.ss_sp = gen->stack;
  gen->context.uc_stack.ss_size = size;
  gen->stack_size = size;
  gen->context.uc_link = &driver_context;
  makecontext(&gen->context, (void (*)())generate, 1, g);
}

static void free_generator(Generator* gen) {
  if (strcmp(placement, "malloc") == 0)
    free(gen->stack);
  else
    munmap(gen->stack, gen->stack_size);
  free((void*)gen->data);
}

static void run_batch(char* local) {
  for (long g = 0; g < G; g++) make_generator(&generators[g], (int)g, local);
  long live = G;
  for (long round = 0; live > 0 && round < rounds; round++) {
    live = 0;
    for (long g = 0; g < G; g++) {
      if (generators[g].done) continue;
      if (resume_generator(&generators[g])) {
        consume(generators[g].value);
        live++;
      }
    }
  }
}

extern "C" NOINLINE void drive(void) {
  counts[kDrive]++;
  char local;
  char* first_stacks[64];
  for (long batch = 0; batch < batches; batch++) {
    run_batch(&local);
    if (batch == 0) {
      long above = 0;
      for (long g = 0; g < G; g++) above += generators[g].stack > &local;
      printf("placement %s\n", above == G ? "above" : above == 0 ? "below" : "mixed");
    } else {
      long reused = 0;
      for (long g = 0; g < G; g++) reused += generators[g].stack == first_stacks[g];
      printf("reused %ld\n", reused);
    }
    for (long g = 0; g < G; g++) {
      if (batch == 0) first_stacks[g] = generators[g].stack;
      if (batch + 1 < batches) free_generator(&generators[g]);
    }
  }
}

static void* driver_thread(void*) {
  drive();
  return NULL;
}

int main(int argc, char** argv) {
  const char* const kUsage = "malloc|mmap-high|mmap-low main|worker G K N [ROUNDS|escape|again]";
  if (argc != 6 && argc != 7) usage(argv[0], kUsage);
  placement = argv[1];
  if (strcmp(placement, "malloc") && strcmp(placement, "mmap-high") && strcmp(placement, "mmap-low"))
    usage(argv[0], kUsage);
  const bool worker = strcmp(argv[2], "worker") == 0;
  if (!worker && strcmp(argv[2], "main")) usage(argv[0], kUsage);
  G = arg_long(argc, argv, 3, "G");
  K = arg_long(argc, argv, 4, "K");
  N = arg_long(argc, argv, 5, "N");
  escapes = argc == 7 && strcmp(argv[6], "escape") == 0;
  batches = argc == 7 && strcmp(argv[6], "again") == 0 ? 2 : 1;
  rounds = argc == 7 && !escapes && batches == 1 ? arg_long(argc, argv, 6, "ROUNDS") : K + 1;
  if (G < 1 || G > 64 || K < 1 || N % K != 0)
    usage(argv[0], "... 1 <= G <= 64, K >= 1, N a multiple of K");
  generators = (Generator*)calloc((size_t)G, sizeof(Generator));
  if (worker) {
    pthread_t t;
    if (pthread_create(&t, NULL, driver_thread, NULL) != 0) return 1;
    pthread_join(t, NULL);
  } else {
    drive();
  }
  if (sum_produced != sum_consumed) {
    fprintf(stderr, "produced %ld, consumed %ld\n", sum_produced, sum_consumed);
    return 1;
  }
  print_count("drive", counts[kDrive]);
  print_count("generate", counts[kGenerate]);
  print_count("produce", counts[kProduce]);
  print_count("yield_value", counts[kYield]);
  print_count("consume", counts[kConsume]);
  print_count("resume_generator", counts[kResume]);
  print_count("escape", counts[kEscape]);
  return 0;
}
