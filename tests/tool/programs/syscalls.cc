// SPDX-License-Identifier: GPL-2.0-or-later
/* Memory written or read by the kernel on behalf of system calls.

   usage: syscalls read K PATH     write K chunks of 16 bytes to PATH, then
                                   read_loop() reads them back 16 bytes at a
                                   time (paper, Figure 3 / Example 4)
          syscalls uname K         uname_loop(K)
          syscalls write NBYTES    write_block(): one write() of NBYTES bytes
                                   to /dev/null

   read_loop: read() fills a 16-byte stack buffer K times (then returns 0 at
     end of file); the routine reads only buf[0] after each call. The kernel
     wrote buf[0] since the routine last accessed it, so each of the K reads
     of buf[0] is an external induced first access:
         sum external reads = K + c, TRMS = K + C, RMS = C', c, C, C' independent of K
     (read is an I/O system call: the same with --syscall-input=all and io).
   uname_loop: uname() (not an I/O system call) fills a struct utsname K
     times; the routine reads one byte of it after each call. With
     --syscall-input=all: sum external reads = K + c, TRMS = K + C; with
     --syscall-input=io the kernel's writes are not input: no external reads,
     TRMS = RMS, both independent of K.
   write_block: the kernel reads NBYTES bytes of a buffer the main routine
     filled; the routine itself touches nothing else of it. Kernel reads count
     as reads of the thread: RMS = TRMS = NBYTES / resolution + C.

   Exact activation counts: read_loop 1 (K + 1 read() calls), uname_loop 1,
   write_block 1. Linked with -z now (no lazy PLT resolution in the loops). */
#include <fcntl.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "progs.h"

extern "C" NOINLINE long read_loop(int fd, long* sum_out) {
  char buf[16] __attribute__((aligned(16)));
  long calls = 0, sum = 0;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    calls++;
    if (n <= 0) break;
    sum += *(volatile char*)&buf[0];
  }
  *sum_out = sum;
  return calls;
}

extern "C" NOINLINE long uname_loop(long k) {
  struct utsname u;
  long sum = 0;
  for (long i = 0; i < k; i++) {
    if (uname(&u) != 0) abort();
    sum += *(volatile char*)&u.sysname[0];
  }
  return sum;
}

extern "C" NOINLINE long write_block(int fd, const char* buf, long nbytes) {
  return write(fd, buf, nbytes);
}

static int do_read(long k, const char* path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) { perror(path); return 1; }
  char chunk[16];
  for (long i = 0; i < k; i++) {
    memset(chunk, (int)('a' + i % 26), sizeof chunk);
    if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk) { perror("write"); return 1; }
  }
  close(fd);
  fd = open(path, O_RDONLY);
  if (fd < 0) { perror(path); return 1; }
  long sum = 0;
  long calls = read_loop(fd, &sum);
  close(fd);
  long expected = 0;
  for (long i = 0; i < k; i++) expected += 'a' + i % 26;
  if (calls != k + 1 || sum != expected) {
    fprintf(stderr, "read_loop: %ld read() calls, sum %ld; expected %ld, %ld\n",
            calls, sum, k + 1, expected);
    return 1;
  }
  print_count("read_loop", 1);
  printf("reads %ld\n", calls);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) usage(argv[0], "read K PATH | uname K | write NBYTES");
  if (strcmp(argv[1], "read") == 0 && argc == 4)
    return do_read(arg_long(argc, argv, 2, "K"), argv[3]);
  if (strcmp(argv[1], "uname") == 0 && argc == 3) {
    uname_loop(arg_long(argc, argv, 2, "K"));
    print_count("uname_loop", 1);
    return 0;
  }
  if (strcmp(argv[1], "write") == 0 && argc == 3) {
    long nbytes = arg_long(argc, argv, 2, "NBYTES");
    char* buf = (char*)aligned_alloc(64, (size_t)nbytes + 64);
    memset(buf, 'x', (size_t)nbytes);
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0 || write_block(fd, buf, nbytes) != nbytes) { perror("write"); return 1; }
    print_count("write_block", 1);
    return 0;
  }
  usage(argv[0], "read K PATH | uname K | write NBYTES");
}
