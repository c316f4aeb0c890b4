// SPDX-License-Identifier: GPL-2.0-or-later
/* C++ exceptions thrown through several frames.

   usage: exceptions K

   main calls catch_one(i) K times. catch_one calls level1 inside a try block;
   level1 -> level2 -> level3 -> aprof_test::Thrower::raise_error(int), which
   throws; the exception unwinds level3, level2 and level1 and is caught in
   catch_one, which then calls after_catch() from its handler.

   Exact activation counts: catch_one, level1, level2, level3, raise_error
   and after_catch: K each. Every activation of level1..3 and raise_error is
   left by the unwinder, never by `ret`: a profiler that did not close them
   would see catch_one, level1... nested ever deeper (recursive) instead of K
   separate, non-overlapping activations.
   Demangling: raise_error is a C++ member function; its report name is
   "aprof_test::Thrower::raise_error(int)", mangled
   "_ZN10aprof_test7Thrower11raise_errorEi". */
#include "progs.h"

static volatile long sink;
static long after_catch_calls;

namespace aprof_test {
struct Thrower {
  NOINLINE static void raise_error(int code);
};
NOINLINE void Thrower::raise_error(int code) { throw code; }
}  // namespace aprof_test

extern "C" NOINLINE void level3(int i) {
  aprof_test::Thrower::raise_error(i);
  sink = sink + 1;
}

extern "C" NOINLINE void level2(int i) {
  level3(i);
  sink = sink + 1;
}

extern "C" NOINLINE void level1(int i) {
  level2(i);
  sink = sink + 1;
}

extern "C" NOINLINE int after_catch(int code) {
  after_catch_calls++;
  burn(200);
  return code;
}

extern "C" NOINLINE int catch_one(int i) {
  try {
    level1(i);
  } catch (int code) {
    return after_catch(code);
  }
  return -1;
}

int main(int argc, char** argv) {
  if (argc != 2) usage(argv[0], "K");
  long k = arg_long(argc, argv, 1, "K");
  for (long i = 0; i < k; i++)
    if (catch_one((int)i) != (int)i) return 1;
  if (after_catch_calls != k) return 1;
  const char* names[] = {"catch_one", "level1", "level2", "level3",
                         "aprof_test::Thrower::raise_error(int)", "after_catch"};
  for (const char* name : names) print_count(name, k);
  return 0;
}
