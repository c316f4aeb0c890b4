// The few services the engine needs from its host. The engine is linked with
// exactly one implementation: platform_native.cc (libc, for unit tests and
// benchmarks) or platform_valgrind.cc (Valgrind's core, inside the tool).
#ifndef APROF_CORE_PLATFORM_H
#define APROF_CORE_PLATFORM_H

#include <new>

#include "types.h"

namespace aprof {

// General-purpose heap memory; never returns null (the host aborts instead).
void* PlatformAllocate(size_t bytes);
void PlatformFree(void* p);

// Large zero-filled blocks (shadow tables). Page-granular so that untouched
// parts cost no resident memory. Never returns null.
void* PlatformAllocateZeroedPages(size_t bytes);
void PlatformFreePages(void* p, size_t bytes);
// Zero-fills whole pages [p, p + bytes) inside a block from
// PlatformAllocateZeroedPages, giving their resident memory back to the
// system where it can (the mapping stays).
void PlatformReleasePages(void* p, size_t bytes);

// Reports a failed internal invariant and terminates.
[[noreturn]] void PlatformCheckFailed(const char* file, int line,
                                      const char* condition);

// Object allocation over PlatformAllocate (the engine uses no global
// operator new, so it links the same way natively and inside the tool).
template <typename T, typename... Args>
T* New(Args&&... args) {
  return new (PlatformAllocate(sizeof(T))) T(static_cast<Args&&>(args)...);
}

template <typename T>
void Delete(T* object) {
  if (!object) return;
  object->~T();
  PlatformFree(object);
}

}  // namespace aprof

#define APROF_CHECK(cond)                                             \
  do {                                                                \
    if (__builtin_expect(!(cond), 0))                                 \
      ::aprof::PlatformCheckFailed(__FILE__, __LINE__, #cond);        \
  } while (0)

#endif  // APROF_CORE_PLATFORM_H
