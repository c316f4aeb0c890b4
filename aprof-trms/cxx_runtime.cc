// SPDX-License-Identifier: GPL-2.0-or-later
// Minimal C++ runtime for the freestanding tool: there is no libstdc++ (and
// no libc) at run time, so the pieces the compiler may reference are
// provided here over Valgrind's core.
//
// Copyright (C) 2026, the aprof-trms authors.
//
// Not provided on purpose: exceptions, RTTI, thread-safe statics (all
// disabled by the compile flags). Global constructors are never run.
// memcpy/memset/memmove/memcmp come from libcoregrind.

#include <stddef.h>

#include <new>  // declarations only (std::nothrow_t, std::align_val_t)

#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
extern "C" {
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
}

namespace {

const HChar kNewCostCentre[] = "aprof.new";

// Over-aligned allocations (alignas > 16): keep the raw pointer just before
// the aligned block.
void* AlignedAlloc(size_t n, size_t align) {
  if (align < sizeof(void*)) align = sizeof(void*);
  char* raw = static_cast<char*>(
      VG_(malloc)(kNewCostCentre, n + align + sizeof(void*)));
  Addr a = (Addr)(raw + sizeof(void*));
  a = (a + align - 1) & ~(Addr)(align - 1);
  reinterpret_cast<void**>(a)[-1] = raw;
  return reinterpret_cast<void*>(a);
}

void AlignedFree(void* p) {
  if (p != nullptr) VG_(free)(reinterpret_cast<void**>(p)[-1]);
}

}  // namespace

// --- Plain new/delete -------------------------------------------------------
void* operator new(size_t n) { return VG_(malloc)(kNewCostCentre, n); }
void* operator new[](size_t n) { return VG_(malloc)(kNewCostCentre, n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  return VG_(malloc)(kNewCostCentre, n);
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return VG_(malloc)(kNewCostCentre, n);
}

void operator delete(void* p) noexcept {
  if (p != nullptr) VG_(free)(p);
}
void operator delete[](void* p) noexcept {
  if (p != nullptr) VG_(free)(p);
}
void operator delete(void* p, size_t) noexcept {
  if (p != nullptr) VG_(free)(p);
}
void operator delete[](void* p, size_t) noexcept {
  if (p != nullptr) VG_(free)(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  if (p != nullptr) VG_(free)(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  if (p != nullptr) VG_(free)(p);
}

// --- Over-aligned new/delete (C++17) --------------------------------------
void* operator new(size_t n, std::align_val_t al) {
  return AlignedAlloc(n, static_cast<size_t>(al));
}
void* operator new[](size_t n, std::align_val_t al) {
  return AlignedAlloc(n, static_cast<size_t>(al));
}
void operator delete(void* p, std::align_val_t) noexcept { AlignedFree(p); }
void operator delete[](void* p, std::align_val_t) noexcept { AlignedFree(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  AlignedFree(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  AlignedFree(p);
}

// --- ABI support functions --------------------------------------------------
extern "C" {

void __cxa_pure_virtual(void) {
  VG_(tool_panic)("aprof-trms: pure virtual function called");
}

void __cxa_deleted_virtual(void) {
  VG_(tool_panic)("aprof-trms: deleted virtual function called");
}

// Destructors of function-local statics would be registered here. The tool
// never unloads and exits through Valgrind's core, so they are not run.
void* __dso_handle = nullptr;
int __cxa_atexit(void (*)(void*), void*, void*) { return 0; }

}  // extern "C"
