// SPDX-License-Identifier: GPL-2.0-or-later
/* Memory accesses the instrumenter must turn into exactly the right events,
   each in a leaf routine written in assembly so that its instruction
   sequence (and which accesses share one superblock) is fixed.

   usage: accesses avx|noavx

   main calls every routine below once (the AVX routines only with `avx`;
   the program exits with status 3 if `avx` is asked for on a CPU without
   AVX). Every routine is a leaf that touches no stack memory of its own, so
   its input is exactly: the cells of its static buffers whose first access
   in the activation is a read (its RMS), plus the cells of its return
   address read by `ret` (8 bytes at an address = 8 mod 16, written by the
   caller's `call`: 8 / R cells at --memory-resolution=R <= 8, one cell at
   16). Buffers are 64-byte aligned and private to their routine. All
   numbers below are at the default resolution (4-byte cells), without the
   return address:

   acc_empty      nothing: RMS 0.
   acc_orders     in one superblock, on six cells: read+write, write+read,
                  write+write+read, read+read+write, read+write+read,
                  write+read+write: the three cells read first: RMS 3.
   acc_overlap    in one superblock: 8-byte write then 4-byte reads of both
                  halves (0 cells), 4-byte read then 8-byte read (2),
                  4-byte write then 8-byte read (1), 8-byte read, 4-byte
                  write, 8-byte read (2): RMS 5 (at 1-byte cells 20, at
                  8- and 16-byte cells 2).
   acc_cmov       cmovne with a false condition, then cmove with a true one,
                  from two cells: x86 reads the memory operand of cmov
                  whatever the condition (and Valgrind loads it
                  unconditionally): RMS 2.
   acc_masked     (AVX) vmaskmovps load of lanes 0, 2, 4, 6 (guarded loads),
                  then a plain read of lane 1 (4 + 1 cells); vmaskmovps store
                  of lanes 0, 2, 4, 6 (guarded stores) then a 32-byte read of
                  the 8 lanes (4 cells not written): RMS 9.
   acc_rep        rep movsb of 64 bytes (reads 16 cells, writes 16), rep
                  stosb of 64 bytes, then 16-byte reads of both destinations
                  (all written): RMS 16.
   acc_vec16      (argument: a 64 KiB-aligned region of 3 chunks; a chunk is
                  64 KiB of address space) 16-byte reads across a chunk
                  boundary (4 cells) and across cells, misaligned (5 cells);
                  a 16-byte store across the next chunk boundary, then
                  16-byte reads of each side (2 + 2 cells not written): 13.
   acc_vec32      (AVX) the same with 32 bytes: a misaligned read across a
                  chunk boundary (9 cells), a store across the next boundary
                  then reads of [-32, 0) and [2, 34) around it (4 + 5 cells
                  not written): 18.
   acc_dirty      cpuid (a dirty helper without memory effects), fxsave (a
                  dirty helper writing the x87 part, stores for the XMM
                  registers: the architectural image is bytes [0, 416)),
                  then 16-byte reads of those 416 bytes (all written), then
                  fxrstor of another image, which reads its bytes [0, 416):
                  RMS 104.
   acc_syscalls   (arguments: fds of /dev/null and /dev/zero) 16-byte reads
                  of a 64-byte buffer (16 cells), read() of 64 bytes into it,
                  the same reads again (16 reads induced by the kernel), then
                  write() of another 64-byte buffer (the kernel reads 16
                  cells): RMS 32, TRMS 48, external input 16.
   acc_branchy    (argument: n) n loop iterations with an indirect jump to a
                  label of the same routine, a forward and a backward branch;
                  then a direct tail jump to acc_tail, which jumps indirectly
                  to acc_tail_leaf's entry. Exact activations: acc_branchy 1,
                  acc_tail 1, acc_tail_leaf 1 (branches and jumps within a
                  routine are no calls, jumps to another routine's entry are);
                  each has the leaf's return address as input.
                  Exact instructions (--cost-metric=instructions): acc_branchy
                  1 + 7n + n/2 (the extra add of odd iterations, n even) + 1,
                  acc_tail 2, acc_tail_leaf 1.

   Every loaded value stays live (distinct registers, or added up): VEX
   deletes a load whose result is never used, and then no read happens.

   Single-threaded and deterministic. Exact activation counts: as printed. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "progs.h"

extern "C" {
void acc_empty(void);
void acc_orders(void);
void acc_overlap(void);
void acc_cmov(void);
void acc_masked(void);
void acc_rep(void);
void acc_vec16(char* region);
void acc_vec32(char* region);
void acc_dirty(void);
void acc_syscalls(int null_fd, int zero_fd);
void acc_branchy(long n);
void acc_prepare_fxrstor_image(void);
}

#define FUNC(name) \
  ".text\n.globl " #name "\n.type " #name ", @function\n.p2align 4\n" #name ":\n"
#define END(name) ".size " #name ", .-" #name "\n"
/* A private, 64-byte aligned buffer of `bytes` zero bytes. */
#define BUFFER(name, bytes) ".bss\n.p2align 6\n" #name ":\n.zero " #bytes "\n"

__asm__(
    BUFFER(ord_buf, 64) BUFFER(ovl_buf, 64) BUFFER(cmov_buf, 64)
    BUFFER(mask_buf, 128) BUFFER(rep_src, 64) BUFFER(rep_dst, 64) BUFFER(rep_fill, 64)
    BUFFER(fxsave_img, 512) BUFFER(fxrstor_img, 512)
    BUFFER(sys_in, 64) BUFFER(sys_out, 64)

    FUNC(acc_empty)
    "  ret\n"
    END(acc_empty)

    FUNC(acc_orders)
    "  mov ord_buf+0(%rip), %eax\n"   /* read, write: read first */
    "  mov %eax, ord_buf+0(%rip)\n"
    "  mov %eax, ord_buf+4(%rip)\n"   /* write, read */
    "  mov ord_buf+4(%rip), %ecx\n"
    "  mov %eax, ord_buf+8(%rip)\n"   /* write, write, read */
    "  mov %eax, ord_buf+8(%rip)\n"
    "  add ord_buf+8(%rip), %ecx\n"
    "  add ord_buf+12(%rip), %ecx\n"  /* read, read, write: read first */
    "  add ord_buf+12(%rip), %ecx\n"
    "  mov %eax, ord_buf+12(%rip)\n"
    "  add ord_buf+16(%rip), %ecx\n"  /* read, write, read: read first */
    "  mov %eax, ord_buf+16(%rip)\n"
    "  add ord_buf+16(%rip), %ecx\n"
    "  mov %eax, ord_buf+20(%rip)\n"  /* write, read, write */
    "  add ord_buf+20(%rip), %ecx\n"
    "  mov %eax, ord_buf+20(%rip)\n"
    "  ret\n"
    END(acc_orders)

    FUNC(acc_overlap)
    "  mov %rax, ovl_buf+0(%rip)\n"   /* 8-byte write, 4-byte reads of it */
    "  mov ovl_buf+0(%rip), %ecx\n"
    "  add ovl_buf+4(%rip), %ecx\n"
    "  add ovl_buf+16(%rip), %ecx\n"  /* 4-byte read, 8-byte read */
    "  add ovl_buf+16(%rip), %rcx\n"
    "  mov %eax, ovl_buf+32(%rip)\n"  /* 4-byte write, 8-byte read */
    "  add ovl_buf+32(%rip), %rcx\n"
    "  add ovl_buf+48(%rip), %rcx\n"  /* 8-byte read, 4-byte write, 8-byte read */
    "  mov %eax, ovl_buf+48(%rip)\n"
    "  add ovl_buf+48(%rip), %rcx\n"
    "  ret\n"
    END(acc_overlap)

    FUNC(acc_cmov)
    "  xor %eax, %eax\n"              /* ZF = 1 */
    "  cmovne cmov_buf+0(%rip), %ecx\n"
    "  cmove cmov_buf+4(%rip), %ecx\n"
    "  ret\n"
    END(acc_cmov)

    FUNC(acc_masked)
    "  mov $-1, %eax\n"               /* mask: lanes 0, 2, 4, 6 (no memory) */
    "  vmovd %eax, %xmm1\n"
    "  vpinsrd $2, %eax, %xmm1, %xmm1\n"
    "  vinsertf128 $1, %xmm1, %ymm1, %ymm1\n"
    "  vmaskmovps mask_buf+0(%rip), %ymm1, %ymm0\n"
    "  mov mask_buf+4(%rip), %ecx\n"  /* lane 1, not loaded above */
    "  vmaskmovps %ymm0, %ymm1, mask_buf+64(%rip)\n"
    "  vmovups mask_buf+64(%rip), %ymm2\n"
    "  vzeroupper\n"
    "  ret\n"
    END(acc_masked)

    FUNC(acc_rep)
    "  lea rep_src(%rip), %rsi\n"
    "  lea rep_dst(%rip), %rdi\n"
    "  mov $64, %ecx\n"
    "  rep movsb\n"
    "  lea rep_fill(%rip), %rdi\n"
    "  xor %eax, %eax\n"
    "  mov $64, %ecx\n"
    "  rep stosb\n"
    "  movdqu rep_dst+0(%rip), %xmm0\n"
    "  movdqu rep_dst+16(%rip), %xmm1\n"
    "  movdqu rep_dst+32(%rip), %xmm2\n"
    "  movdqu rep_dst+48(%rip), %xmm3\n"
    "  movdqu rep_fill+0(%rip), %xmm4\n"
    "  movdqu rep_fill+16(%rip), %xmm5\n"
    "  movdqu rep_fill+32(%rip), %xmm6\n"
    "  movdqu rep_fill+48(%rip), %xmm7\n"
    "  ret\n"
    END(acc_rep)

    FUNC(acc_vec16)
    "  movdqu 65536-8(%rdi), %xmm0\n"    /* [-8, 8) around chunk boundary 1 */
    "  movdqu 65536+66(%rdi), %xmm1\n"   /* [66, 82): cells 16..20 */
    "  movups %xmm0, 131072-8(%rdi)\n"   /* store [-8, 8) around boundary 2 */
    "  movdqu 131072-16(%rdi), %xmm2\n"  /* [-16, 0): 2 cells not written */
    "  movdqu 131072(%rdi), %xmm3\n"     /* [0, 16): 2 cells not written */
    "  ret\n"
    END(acc_vec16)

    FUNC(acc_vec32)
    "  vmovdqu 65536-18(%rdi), %ymm0\n"  /* [-18, 14): cells -5..3 */
    "  vmovdqu %ymm0, 131072-16(%rdi)\n" /* store [-16, 16) around boundary 2 */
    "  vmovdqu 131072-32(%rdi), %ymm1\n" /* [-32, 0): 4 cells not written */
    "  vmovdqu 131072+2(%rdi), %ymm2\n"  /* [2, 34): cells 0..8, 5 not written */
    "  vzeroupper\n"
    "  ret\n"
    END(acc_vec32)

    FUNC(acc_dirty)
    "  mov %rbx, %r8\n"                  /* cpuid clobbers rbx (callee-saved) */
    "  xor %eax, %eax\n"
    "  cpuid\n"
    "  mov %r8, %rbx\n"
    "  fxsave fxsave_img(%rip)\n"
    "  lea fxsave_img(%rip), %rsi\n"
    "  mov $26, %ecx\n"                  /* 26 * 16 = 416 bytes */
    "1:movdqu (%rsi), %xmm0\n"
    "  add $16, %rsi\n"
    "  dec %ecx\n"
    "  jnz 1b\n"
    "  fxrstor fxrstor_img(%rip)\n"
    "  ret\n"
    END(acc_dirty)

    /* Called by main before acc_dirty: a valid image for fxrstor. */
    FUNC(acc_prepare_fxrstor_image)
    "  fxsave fxrstor_img(%rip)\n"
    "  ret\n"
    END(acc_prepare_fxrstor_image)

    FUNC(acc_syscalls)
    "  mov %edi, %r8d\n"                 /* /dev/null */
    "  mov %esi, %r9d\n"                 /* /dev/zero */
    "  movdqu sys_in+0(%rip), %xmm0\n"
    "  movdqu sys_in+16(%rip), %xmm1\n"
    "  movdqu sys_in+32(%rip), %xmm2\n"
    "  movdqu sys_in+48(%rip), %xmm3\n"
    "  xor %eax, %eax\n"                 /* read(zero_fd, sys_in, 64) */
    "  mov %r9d, %edi\n"
    "  lea sys_in(%rip), %rsi\n"
    "  mov $64, %edx\n"
    "  syscall\n"
    "  movdqu sys_in+0(%rip), %xmm4\n"
    "  movdqu sys_in+16(%rip), %xmm5\n"
    "  movdqu sys_in+32(%rip), %xmm6\n"
    "  movdqu sys_in+48(%rip), %xmm7\n"
    "  mov $1, %eax\n"                   /* write(null_fd, sys_out, 64) */
    "  mov %r8d, %edi\n"
    "  lea sys_out(%rip), %rsi\n"
    "  mov $64, %edx\n"
    "  syscall\n"
    "  ret\n"
    END(acc_syscalls)

    FUNC(acc_branchy)
    "  xor %eax, %eax\n"
    "1:lea 2f(%rip), %rdx\n"
    "  jmp *%rdx\n"                      /* indirect jump within the routine */
    "2:add $1, %eax\n"
    "  test $1, %al\n"
    "  jz 3f\n"                          /* forward branch */
    "  add $2, %eax\n"
    "3:dec %rdi\n"
    "  jnz 1b\n"                         /* backward branch */
    "  jmp acc_tail\n"                   /* direct tail jump */
    END(acc_branchy)

    FUNC(acc_tail)
    "  lea acc_tail_leaf(%rip), %rdx\n"
    "  jmp *%rdx\n"                      /* indirect tail jump */
    END(acc_tail)

    FUNC(acc_tail_leaf)
    "  ret\n"
    END(acc_tail_leaf)
    ".text\n");

/* A 64 KiB-aligned region of three chunks. */
static char* chunk_aligned_region(void) {
  const size_t chunk = 65536;
  char* p = (char*)mmap(NULL, 4 * chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return (char*)(((unsigned long)p + chunk - 1) & ~(chunk - 1));
}

int main(int argc, char** argv) {
  if (argc != 2) usage(argv[0], "avx|noavx");
  const bool avx = strcmp(argv[1], "avx") == 0;
  if (!avx && strcmp(argv[1], "noavx") != 0) usage(argv[0], "avx|noavx");
  if (avx && !__builtin_cpu_supports("avx")) {
    fprintf(stderr, "%s: this CPU has no AVX\n", argv[0]);
    return 3;
  }
  int null_fd = open("/dev/null", O_WRONLY);
  int zero_fd = open("/dev/zero", O_RDONLY);
  if (null_fd < 0 || zero_fd < 0) {
    perror("open");
    return 1;
  }
  char* region = chunk_aligned_region();
  acc_prepare_fxrstor_image();

  acc_empty();
  acc_orders();
  acc_overlap();
  acc_cmov();
  acc_rep();
  acc_vec16(region);
  acc_dirty();
  acc_syscalls(null_fd, zero_fd);
  acc_branchy(10);
  if (avx) {
    acc_masked();
    acc_vec32(region);
  }
  print_count("acc_branchy", 1);
  print_count("acc_tail", 1);
  print_count("acc_tail_leaf", 1);
  printf("path %s\n", avx ? "avx" : "noavx");
  return 0;
}
