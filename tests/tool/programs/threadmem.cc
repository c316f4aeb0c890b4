// SPDX-License-Identifier: GPL-2.0-or-later
/* Threads one after the other, each touching memory of its own: a thread's
   shadow memory must be given back when it exits.

   usage: threadmem MIB THREADS

   THREADS times, one at a time: the main thread maps MIB MiB of fresh
   anonymous memory, starts a thread that writes one int on every 4 KiB page
   of it (touch_pages) and joins it, then unmaps the memory. The main thread
   never touches the mapping, so the only shadow memory of a thread's pages
   is that thread's own (given back when it exits) and the global one (given
   back at the unmap): the shadow in use must stay that of about one thread,
   however many threads ran. From the second thread on, an inaccessible
   mapping of the same size is made first, so that every thread gets new
   addresses (printed as "thread T at ADDRESS").

   Exact: touch_pages THREADS activations, each writing MIB * 256 ints. */
#include <pthread.h>
#include <sys/mman.h>

#include "progs.h"

namespace {

struct Work {
  int* base;
  long pages;
};

}  // namespace

extern "C" NOINLINE void touch_pages(int* base, long pages) {
  for (long i = 0; i < pages; i++) base[i * (4096 / sizeof(int))] = (int)i;
}

extern "C" void* thread_main(void* arg) {
  const Work* work = static_cast<const Work*>(arg);
  touch_pages(work->base, work->pages);
  return nullptr;
}

int main(int argc, char** argv) {
  if (argc != 3) usage(argv[0], "MIB THREADS");
  const long mib = arg_long(argc, argv, 1, "MIB");
  const long threads = arg_long(argc, argv, 2, "THREADS");
  if (mib == 0) usage(argv[0], "MIB THREADS (MIB > 0)");
  const size_t bytes = (size_t)mib << 20;
  for (long t = 0; t < threads; t++) {
    if (t > 0) map_anonymous(bytes, PROT_NONE);  // kept: a spacer, never touched
    Work work = {static_cast<int*>(map_anonymous(bytes, PROT_READ | PROT_WRITE)),
                 (long)(bytes / 4096)};
    printf("thread %ld at %p\n", t, (void*)work.base);
    pthread_t thread;
    if (pthread_create(&thread, NULL, thread_main, &work) != 0 ||
        pthread_join(thread, NULL) != 0) {
      fprintf(stderr, "threadmem: pthread_create or pthread_join failed\n");
      return 1;
    }
    if (munmap(work.base, bytes) != 0) {
      perror("threadmem: munmap");
      return 1;
    }
  }
  print_count("touch_pages", threads);
  return 0;
}
