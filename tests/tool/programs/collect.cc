// SPDX-License-Identifier: GPL-2.0-or-later
/* Collection control with client requests (aprof-trms/aprof-trms.h).

   usage: collect

   main fills a table of 64 ints, then:
       before() x 5;  APROF_TRMS_START_COLLECTION;  inside() x 7;
       APROF_TRMS_STOP_COLLECTION;  after() x 4
   inside() reads the 64 ints of the table (it wrote none of them): its RMS
   is 64 cells (at the default resolution) plus a fixed part, and the same
   whether or not collection was on before, since memory accesses are tracked
   while collection is off.

   Exact activation counts in the report:
     --collect-atstart=yes (default): before 5, inside 7, after absent;
     --collect-atstart=no:            before absent, inside 7, after absent.
   main and everything that completes after the STOP request has no
   activation in the report (main appears as the caller of inside()). */
#include "aprof-trms.h"
#include "progs.h"

static int table[64];
static volatile long sink;

extern "C" NOINLINE void before(void) { burn(20); }
extern "C" NOINLINE void after(void) { burn(20); }

extern "C" NOINLINE long inside(void) {
  long s = 0;
  for (int i = 0; i < 64; i++) s += table[i];
  return s;
}

int main(void) {
  for (int i = 0; i < 64; i++) table[i] = i;
  for (int i = 0; i < 5; i++) before();
  APROF_TRMS_START_COLLECTION;
  for (int i = 0; i < 7; i++) sink = sink + inside();
  APROF_TRMS_STOP_COLLECTION;
  for (int i = 0; i < 4; i++) after();
  print_count("inside", 7);
  return 0;
}
