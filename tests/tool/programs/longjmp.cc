// SPDX-License-Identifier: GPL-2.0-or-later
/* longjmp out of recursion.

   usage: longjmp DEPTH REPS

   jump_loop(DEPTH, REPS) repeats REPS times: setjmp, then recurse(DEPTH - 1),
   which recurses down to recurse(0); recurse(0) longjmps back to jump_loop,
   abandoning DEPTH frames of recurse; then jump_loop calls after_jump(), which
   does some work (a few hundred basic blocks).

   Exact activation counts: jump_loop 1, recurse DEPTH * REPS, after_jump REPS.
   No activation of recurse ends with `ret`. If a profiler left the abandoned
   frames open, after_jump and the next recursions would run "inside" the first
   recurse activation; with the frames closed at the longjmp, after_jump's
   parent is jump_loop, so recurse's cumulative cost (outermost activations)
   stays below after_jump's and jump_loop's covers both. */
#include <setjmp.h>

#include "progs.h"

static jmp_buf env;
static volatile long sink;

extern "C" NOINLINE void recurse(long depth) {
  if (depth < 0) return; /* never: only silences -Winfinite-recursion */
  if (depth == 0) longjmp(env, 1);
  recurse(depth - 1);
  sink = sink + 1; /* never reached */
}

extern "C" NOINLINE void after_jump(void) {
  burn(500);
  sink = sink + 1;
}

extern "C" NOINLINE long jump_loop(long depth, long reps) {
  volatile long jumps = 0;
  for (volatile long i = 0; i < reps; i++) {
    if (setjmp(env) == 0)
      recurse(depth - 1);
    else
      jumps = jumps + 1;
    after_jump();
  }
  return jumps;
}

int main(int argc, char** argv) {
  if (argc != 3) usage(argv[0], "DEPTH REPS");
  long depth = arg_long(argc, argv, 1, "DEPTH");
  long reps = arg_long(argc, argv, 2, "REPS");
  if (depth < 1) usage(argv[0], "DEPTH REPS (DEPTH >= 1)");
  if (jump_loop(depth, reps) != reps) return 1;
  print_count("jump_loop", 1);
  print_count("recurse", depth * reps);
  print_count("after_jump", reps);
  return 0;
}
