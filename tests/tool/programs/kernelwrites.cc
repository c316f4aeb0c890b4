// SPDX-License-Identifier: GPL-2.0-or-later
/* Ways the kernel writes this process's memory outside its own system calls
   (docs/manual.md, "What input sizes miss"): the tool cannot see the writes
   but notices the set-up, warns once and writes kernel-writes-unseen records.

   usage: kernelwrites mem WHICH ACCESS K [io_uring]
          kernelwrites io_uring

   mem: opens its own memory file K times, then with io_uring does what the
     io_uring mode does. WHICH: self (/proc/self/mem), thread-self,
     pid (/proc/<pid>/mem), task (/proc/self/task/<tid>/mem), other
     (/proc/<parent pid>/mem: not its own), missing (a task that does not
     exist: the open fails); ACCESS: ro, wo or rw.
   io_uring: calls io_uring_setup(2) directly.

   mem: with write access, each opening writes "new" through the file into a
     buffer that read_buffer() then reads; it prints "buffer new" when the
     kernel wrote it, "buffer old" when it could not (read-only). "opened N"
     counts the successful openings.
   io_uring: prints "io_uring_setup ok" or "io_uring_setup failed: REASON"
     (a kernel may refuse it: sysctl kernel.io_uring_disabled, seccomp). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "progs.h"

static char buffer[16] = "old";

extern "C" NOINLINE char read_buffer(void) { return buffer[0]; }

static void own_memory_file(const char* which, char* path, size_t size) {
  if (strcmp(which, "self") == 0) snprintf(path, size, "/proc/self/mem");
  else if (strcmp(which, "thread-self") == 0) snprintf(path, size, "/proc/thread-self/mem");
  else if (strcmp(which, "pid") == 0) snprintf(path, size, "/proc/%d/mem", (int)getpid());
  else if (strcmp(which, "task") == 0)
    snprintf(path, size, "/proc/self/task/%ld/mem", (long)syscall(SYS_gettid));
  else if (strcmp(which, "other") == 0) snprintf(path, size, "/proc/%d/mem", (int)getppid());
  else if (strcmp(which, "missing") == 0) snprintf(path, size, "/proc/self/task/999999999/mem");
  else exit(2);
}

static int open_flags(const char* access) {
  if (strcmp(access, "ro") == 0) return O_RDONLY;
  if (strcmp(access, "wo") == 0) return O_WRONLY;
  if (strcmp(access, "rw") == 0) return O_RDWR;
  exit(2);
}

static void write_through_memory_file(const char* which, const char* access, long times) {
  char path[64];
  own_memory_file(which, path, sizeof path);
  const int flags = open_flags(access);
  long opened = 0;
  for (long i = 0; i < times; i++) {
    const int fd = open(path, flags);
    if (fd < 0) continue;
    opened++;
    if (flags != O_RDONLY && strcmp(which, "other") != 0)
      pwrite(fd, "new", 4, (off_t)(unsigned long)buffer);
    close(fd);
  }
  printf("opened %ld\nbuffer %c%c%c\n", opened, read_buffer(), buffer[1], buffer[2]);
}

static int set_up_io_uring(void) {
  unsigned char params[120] = {0};  // struct io_uring_params, zeroed
  const long fd = syscall(__NR_io_uring_setup, 4, params);
  if (fd < 0) printf("io_uring_setup failed: %s\n", strerror(errno));
  else printf("io_uring_setup ok\n");
  return 0;
}

int main(int argc, char** argv) {
  const bool then_io_uring = argc == 6 && strcmp(argv[5], "io_uring") == 0;
  if ((argc == 5 || then_io_uring) && strcmp(argv[1], "mem") == 0) {
    write_through_memory_file(argv[2], argv[3], arg_long(argc, argv, 4, "K"));
    return then_io_uring ? set_up_io_uring() : 0;
  }
  if (argc == 2 && strcmp(argv[1], "io_uring") == 0) return set_up_io_uring();
  fprintf(stderr, "usage: kernelwrites mem WHICH ACCESS K [io_uring] | kernelwrites io_uring\n");
  return 2;
}
