// Call and return detection, callgrind-style (see docs/design.md):
// per-thread stacks of (stack pointer, return address) kept in step with the
// engine's pending activations, driven by the superblock entry hook.
//
//  - a call exit pushes the callee; a jump is an (emulated) call when it
//    lands on a function entry or in another object or section (tail calls,
//    PLT stubs), unless it just unwound frames (longjmp, exceptions);
//  - frames whose recorded stack pointer lies below the current one are
//    completed (returns, longjmp, C++ exceptions, missed returns);
//  - PLT stubs and transparent routines (the lazy-binding resolver,
//    --skip-routine) get no frame;
//  - a signal handler runs above a barrier: unwinding never crosses it, so
//    a handler on another stack cannot close the interrupted frames. The
//    barrier goes away at sigreturn or when the handler is left by a jump.
//
// Copyright (C) 2026, the aprof-trms authors.
// SPDX-License-Identifier: GPL-2.0-or-later
#ifndef APROF_CALL_TRACKER_H
#define APROF_CALL_TRACKER_H

#include "core/engine.h"
#include "core/internal_vector.h"
#include "routine_table.h"
#include "runtime_hooks.h"
#include "superblock_info.h"

namespace aprof {

class CallTracker {
 public:
  CallTracker(Engine& engine, RoutineTable& routines) : engine_(engine), routines_(routines) {}
  ~CallTracker();
  CallTracker(const CallTracker&) = delete;
  CallTracker& operator=(const CallTracker&) = delete;

  void ThreadCreated(ThreadId tid);
  void ThreadExited(ThreadId tid);
  // The thread that runs from now on (Valgrind runs one at a time).
  void SwitchTo(ThreadId tid);
  void SignalDelivered(ThreadId tid);
  void SignalReturned(ThreadId tid);
  // Entry of a block after an exit that may call, return or unwind
  // (g_last_exit), or the first block of a thread or signal handler.
  void OnSuperblockEntry(SuperblockInfo* block, uptr stack_pointer);
  // End of the program: complete every pending activation.
  void ExitAllThreads();
  // In a fork child, only `tid` remains.
  void ResetAfterFork(ThreadId tid);

 private:
  // A real return raises the stack pointer above the callee's entry value,
  // so the stack pointer alone tells which frames are done.
  struct Frame {
    uptr stack_pointer;  // at the callee's entry
  };
  struct SignalContext {
    size_t barrier;  // frames below belong to the interrupted code
    const ExitInfo* interrupted_exit;
    bool handler_entered;
    bool handler_had_frame;
  };
  struct ThreadCalls {
    InternalVector<Frame> frames;
    InternalVector<SignalContext> signals;
    const ExitInfo* last_exit = &kUnknownOrigin;  // g_last_exit while not running
  };

  // Hands g_pending_cost to the engine's current thread.
  void FlushCost();
  ThreadCalls& CallsOf(ThreadId tid);
  void ForgetThread(ThreadId tid);
  // Pops frames the stack pointer has left; true if any was popped.
  bool Unwind(ThreadCalls& t, uptr stack_pointer, ExitKind how);
  void Push(ThreadCalls& t, SuperblockInfo* block, uptr stack_pointer);
  void Pop(ThreadCalls& t);

  Engine& engine_;
  RoutineTable& routines_;
  InternalVector<ThreadCalls*> threads_;  // indexed by ThreadId
  ThreadCalls* current_ = nullptr;
};

}  // namespace aprof

#endif  // APROF_CALL_TRACKER_H
