// SPDX-License-Identifier: GPL-2.0-or-later
/* Large memory: one routine writes, another reads, one int every STRIDE
   bytes of an anonymous mapping of MIB MiB, in ROUNDS rounds that each map,
   touch and unmap the memory again.

   usage: bigmem MIB STRIDE ROUNDS

   Each round maps MIB MiB (MAP_NORESERVE), calls write_cells() on it, then
   read_cells() on it, then unmaps it. Before the rounds, read_cells() reads
   a small mapping of 16 strides. STRIDE is a multiple of 16 bytes, so every
   int read is in a cell of its own at every --memory-resolution, and
   read_cells reads nothing else but the fixed part C of any routine (e.g.
   its return address), which does not depend on its arguments. Exact: each
   round's read_cells activation has RMS = TRMS = N + C with
   N = MIB MiB / STRIDE, and the small one 16 + C: their difference is
   N - 16. Single-threaded, no system call inside the routines: no induced
   reads. Memory mapped again at the same address in a later round is new
   memory, so every round's activation has the same input size. From the
   second round on, an inaccessible mapping of the same size is made first:
   it takes the place the previous round unmapped, so that every round
   touches new addresses (printed as "round R at ADDRESS"), and shadow
   memory not given back at munmap would add up round after round.

   Exact activation counts: write_cells ROUNDS, read_cells ROUNDS + 1. */
#include <sys/mman.h>

#include "progs.h"

extern "C" NOINLINE void write_cells(int* base, long count, long stride_ints) {
  for (long i = 0; i < count; i++) base[i * stride_ints] = (int)i;
}

extern "C" NOINLINE long read_cells(const int* base, long count, long stride_ints) {
  long sum = 0;
  for (long i = 0; i < count; i++) sum += base[i * stride_ints];
  return sum;
}

int main(int argc, char** argv) {
  if (argc != 4) usage(argv[0], "MIB STRIDE ROUNDS");
  const long mib = arg_long(argc, argv, 1, "MIB");
  const long stride = arg_long(argc, argv, 2, "STRIDE");
  const long rounds = arg_long(argc, argv, 3, "ROUNDS");
  if (mib == 0 || stride == 0 || stride % 16 != 0 || (mib << 20) % stride != 0) {
    fprintf(stderr, "bigmem: MIB > 0, STRIDE a multiple of 16 dividing MIB MiB\n");
    return 2;
  }
  const size_t bytes = (size_t)mib << 20;
  const long count = (long)(bytes / stride), stride_ints = stride / (long)sizeof(int);

  int* small = (int*)map_anonymous(16 * stride, PROT_READ | PROT_WRITE);
  if (read_cells(small, 16, stride_ints) != 0) return 1;
  for (long r = 0; r < rounds; r++) {
    if (r > 0) map_anonymous(bytes, PROT_NONE);  // kept: a spacer, never touched
    int* big = (int*)map_anonymous(bytes, PROT_READ | PROT_WRITE);
    printf("round %ld at %p\n", r, (void*)big);
    write_cells(big, count, stride_ints);
    if (read_cells(big, count, stride_ints) != count * (count - 1) / 2) {
      fprintf(stderr, "bigmem: wrong sum in round %ld\n", r);
      return 1;
    }
    if (munmap(big, bytes) != 0) {
      perror("bigmem: munmap");
      return 1;
    }
  }
  print_count("write_cells", rounds);
  print_count("read_cells", rounds + 1);
  printf("cells %ld\n", count);
  return 0;
}
