// SPDX-License-Identifier: GPL-2.0-or-later
/* fork: parent and child keep running the same code.

   usage: forking | forking exec K | forking after-exec K

   After fork(), the child calls child_work() 11 times and common_work() 5
   times, then exits with status 0; the parent calls parent_work() 7 times
   and common_work() 3 times, waits for the child and exits with 0. Each
   process must write its own report (with --aprof-out-file=DIR/aprof.%p: two
   files, named after the two pids).

   Exact activation counts, counting only what runs after the fork:
     parent: parent_work 7, common_work 3, child_work 0;
     child:  child_work 11, common_work 5, parent_work 0.
   before_fork() is called twice before the fork: the parent's report has it,
   the child's does not (docs/manual.md: the child reports what it did after
   the fork).

   "exec K": calls before_exec() once, then executes itself as
   "after-exec K", which calls child_work() K times. Under
   --trace-children=yes the image after exec reports under the same pid;
   the image before exec is not reported (docs/manual.md). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progs.h"

static volatile long sink;

extern "C" NOINLINE void before_fork(void) { burn(10); }
extern "C" NOINLINE void parent_work(void) { burn(50); }
extern "C" NOINLINE void child_work(void) { burn(50); }
extern "C" NOINLINE void common_work(void) { burn(50); }

extern "C" NOINLINE void before_exec(void) { burn(10); }

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "exec") == 0) {
    before_exec();
    char mode[] = "after-exec";
    char* args[] = {argv[0], mode, argv[2], nullptr};
    execv(argv[0], args);
    perror("execv");
    return 1;
  }
  if (argc == 3 && strcmp(argv[1], "after-exec") == 0) {
    const long k = atol(argv[2]);
    for (long i = 0; i < k; i++) child_work();
    print_count("child_work", k);
    return 0;
  }
  before_fork();
  before_fork();
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 1;
  }
  if (pid == 0) {
    for (int i = 0; i < 11; i++) child_work();
    for (int i = 0; i < 5; i++) common_work();
    printf("child %ld parent %ld\n", (long)getpid(), (long)getppid());
    exit(0);
  }
  for (int i = 0; i < 7; i++) parent_work();
  for (int i = 0; i < 3; i++) common_work();
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return 1;
  printf("parent %ld child %ld\n", (long)getpid(), (long)pid);
  return 0;
}
