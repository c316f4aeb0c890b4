// SPDX-License-Identifier: GPL-2.0-or-later
// Go's asynchronous preemption, turned off from inside the tool (see
// docs/design.md, "Goroutines"): the runtime's preemption signals are not
// sent, as with GODEBUG=asyncpreemptoff=1.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_GO_PREEMPTION_H
#define APROF_GO_PREEMPTION_H

#include "core/types.h"
#include "valgrind_headers.h"

namespace aprof {

// The superblock to translate instead of `in`, which starts at `address`:
// `in` itself, or, at the entry of Go's runtime.tgkill unless
// --go-async-preemption=yes, `in` sending no preemption signal (SIGURG).
IRSB* WithoutGoAsyncPreemption(IRSB* in, const VexGuestLayout* layout, Addr address);

// The block at `address` belongs to Go's runtime.gogo, whose last jump
// lands on the stack of the goroutine it resumes. A stack switch whatever
// the stack pointers: on threads other than the main one the scheduler's
// stack lies in the Go heap's mapping, which Valgrind takes whole for the
// thread's stack, goroutine stacks below it included.
bool EntersGoroutine(Addr address);

// Go 1.17 and later: the block at `address` belongs to the local routine
// gogo, which puts the g of the goroutine it resumes in register R14 before
// its last jump (Go 1.16 and earlier have no such routine and no g
// register).
bool LoadsGoroutineRegister(Addr address);

// A goroutine as its g describes it: the g's address, which names the
// goroutine while it lives, and its stack [low, high) (g.stack, the first
// field of every Go release's g), which moves when the runtime copies the
// stack to grow or shrink it.
struct GoroutineStack {
  uptr g;
  uptr low;
  uptr high;
};

// At the first block after such a gogo on thread tid: the goroutine it
// resumed, from R14; false if R14 does not point at a g whose stack holds
// stack_pointer.
bool ResumedGoroutine(ThreadId tid, uptr stack_pointer, GoroutineStack* resumed);

// Whether the program ran Go's runtime.tgkill (the report then says whether
// asynchronous preemption was on).
bool GoThreadKillSeen();

}  // namespace aprof

#endif  // APROF_GO_PREEMPTION_H
