// SPDX-License-Identifier: GPL-2.0-or-later
// Call and return detection from the superblock entry hook (call_tracker.h):
// frames pushed at calls, popped when the stack pointer leaves them.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "call_tracker.h"

#include "run_control.h"
#include "runtime_hooks.h"
#include "valgrind_headers.h"

namespace aprof {

CallTracker::~CallTracker() {
  for (ThreadCalls* t : threads_) Delete(t);
}

CallTracker::ThreadCalls::ThreadCalls(ThreadId id) : tid(id) {
  stack = New<CallStack>();
  stacks.push_back(stack);
  chain.push_back(stack);
}

CallTracker::ThreadCalls::~ThreadCalls() {
  for (CallStack* s : stacks) Delete(s);
}

CallTracker::ThreadCalls& CallTracker::CallsOf(ThreadId tid) {
  if (tid >= threads_.size()) threads_.resize(tid + 1);
  if (!threads_[tid]) threads_[tid] = New<ThreadCalls>(tid);
  return *threads_[tid];
}

void CallTracker::ForgetThread(ThreadId tid) {
  if (tid >= threads_.size() || !threads_[tid]) return;
  if (current_ == threads_[tid]) current_ = nullptr;
  Delete(threads_[tid]);
  threads_[tid] = nullptr;
}

void CallTracker::ThreadCreated(ThreadId tid) {
  ForgetThread(tid);
  engine_.StartThread(tid);
  CallsOf(tid);
}

void CallTracker::FlushCost() {
  if (g_pending_cost && engine_.has_current_thread()) engine_.AddCost(g_pending_cost);
  g_pending_cost = 0;
}

void CallTracker::ThreadExited(ThreadId tid) {
  FlushCost();
  if (tid < threads_.size() && threads_[tid] && threads_[tid]->stacks.size() > 1) {
    // Frames that ran in pieces complete with their earlier runs, which
    // only the tracker knows: complete them here, in the exiting thread.
    engine_.SwitchTo(tid);
    CompleteAllStacks(*threads_[tid]);
    if (current_ && current_ != threads_[tid]) engine_.SwitchTo(current_->tid);
  }
  engine_.ExitThread(tid);
  ForgetThread(tid);
}

void CallTracker::SwitchTo(ThreadId tid) {
  // The cost so far belongs to the thread that ran it; signal delivery and
  // return, which switch first, rely on this too.
  FlushCost();
  ThreadCalls& next = CallsOf(tid);
  if (current_ == &next) return;
  // g_last_exit belongs to the running thread: park it with the thread.
  if (current_) current_->last_exit = g_last_exit;
  g_last_exit = next.last_exit;
  current_ = &next;
  engine_.SwitchTo(tid);
}

void CallTracker::SignalDelivered(ThreadId tid) {
  SwitchTo(tid);
  ThreadCalls& t = *current_;
  t.signals.push_back({t.stack->frames.size(), g_last_exit, false, false});
  g_last_exit = &kUnknownOrigin;  // examine the handler's first block
  // A handler on an alternate stack is not a stack switch: its frames stay
  // above the barrier on the interrupted stack.
  t.window_low = 0;
  t.window_last = ~uptr{0};
}

void CallTracker::SignalReturned(ThreadId tid) {
  SwitchTo(tid);
  ThreadCalls& t = *current_;
  if (t.signals.empty()) return;  // the handler was left by a jump earlier
  const SignalContext context = t.signals.back();
  t.signals.pop_back();
  if (t.signals.empty()) ReopenWindow(t);
  while (t.stack->frames.size() > context.barrier) Pop(t);
  // Resume as if the interrupted block had just left by its own exit.
  g_last_exit = context.interrupted_exit;
}

void CallTracker::ResolveRoutine(SuperblockInfo* block) {
  if (block->routine_known) return;
  block->routine = routines_.IdFor(block->address);
  const RoutineInfo& info = routines_.info(block->routine);
  block->routine_transparent = info.transparent;
  if (info.collect_inside) engine_.MarkCollectInside(block->routine);
  block->routine_known = true;
}

void CallTracker::Push(ThreadCalls& t, SuperblockInfo* block, uptr stack_pointer) {
  if (block->is_plt_stub) return;  // the stub jumps on to the callee
  ResolveRoutine(block);
  if (block->routine_transparent) return;
  if (APROF_UNLIKELY(dump_at_routines_)) DumpAtRoutine(block->routine, /*before=*/true);
  t.stack->frames.push_back({stack_pointer, block->routine});
  // The first frame of a coroutine's stack roots its contexts.
  if (APROF_UNLIKELY(t.stack->frames.size() == 1 && t.stack != t.stacks[0]))
    engine_.CallFirstOnStack(block->routine);
  else
    engine_.Call(block->routine);
  if (!t.signals.empty() && t.stack->frames.size() > t.signals.back().barrier)
    t.signals.back().handler_had_frame = true;
}

void CallTracker::Pop(ThreadCalls& t) {
  CallStack& s = *t.stack;
  const RoutineId routine = s.frames.back().routine;
  s.frames.pop_back();
  if (APROF_UNLIKELY(s.frames.size() < s.earlier.size())) {
    // A frame suspended before (see Engine::Suspend).
    engine_.Return(s.earlier.back());
    s.earlier.pop_back();
  } else {
    engine_.Return();
  }
  if (APROF_UNLIKELY(dump_at_routines_)) DumpAtRoutine(routine, /*before=*/false);
}

bool CallTracker::Unwind(ThreadCalls& t, uptr stack_pointer, ExitKind how) {
  bool popped = false;
  const InternalVector<Frame>& frames = t.stack->frames;
  for (;;) {
    const size_t floor = t.signals.empty() ? 0 : t.signals.back().barrier;
    while (frames.size() > floor && frames.back().LeftAt(stack_pointer)) {
      APROF_COUNT_EVENT(unwound_frames_);
      Pop(t);
      popped = true;
    }
    if (t.signals.empty() || frames.size() > floor) return popped;
    const SignalContext& context = t.signals.back();
    // All frames of the innermost handler are gone. After a normal return
    // the handler's sigreturn closes the context; after a jump (siglongjmp)
    // the handler is left for good and unwinding continues below it.
    if (!context.handler_had_frame || !popped || how == ExitKind::kReturn) return popped;
    t.signals.pop_back();
    if (t.signals.empty()) ReopenWindow(t);
  }
}

void CallTracker::OnSuperblockEntry(SuperblockInfo* block, uptr stack_pointer) {
  APROF_COUNT_EVENT(superblock_entries_);
  // The cost so far ran in the frames as they were before this entry.
  FlushCost();
  ThreadCalls& t = *current_;
  const ExitInfo& exit = *g_last_exit;
  g_last_exit = nullptr;
  // One comparison on the common path: is the stack pointer still on the
  // running stack, near its frames?
  bool restart = false;
  const bool resumed_goroutine =
      APROF_UNLIKELY(exit.from && exit.from->enters_goroutine) && t.signals.empty();
  if (APROF_UNLIKELY(resumed_goroutine)) {
    GoroutineStack goroutine;
    const bool named =
        exit.from->names_goroutine && ResumedGoroutine(t.tid, stack_pointer, &goroutine);
    FollowStackPointer(t, stack_pointer, block->is_function_entry, /*known_switch=*/true,
                       named ? &goroutine : nullptr);
  } else if (APROF_UNLIKELY(stack_pointer - t.window_low > t.window_last)) {
    restart = StartsOver(t, block, stack_pointer);
    FollowStackPointer(t, stack_pointer, block->is_function_entry, /*known_switch=*/false);
  }

  if (!t.signals.empty() && !t.signals.back().handler_entered) {
    t.signals.back().handler_entered = true;
    Push(t, block, stack_pointer);  // the signal handler
  } else if (!exit.from) {
    Push(t, block, stack_pointer);  // first block of the thread
  } else {
    // A call leaves the stack pointer below the top frame's, and Unwind
    // would pop nothing: tested here, without a call to the loop.
    const InternalVector<Frame>& frames = t.stack->frames;
    const bool unwound =
        !frames.empty() && frames.back().LeftAt(stack_pointer) && Unwind(t, stack_pointer, exit.kind);
    bool call = exit.kind == ExitKind::kCall;
    // A jump (or a return that returned to nothing: push/ret) that enters a
    // function, another object or another section is a call: tail calls,
    // PLT stubs, the lazy-binding resolver jumping on. Not after unwinding:
    // longjmp and exception landing pads enter code that was already active.
    if (!unwound && (exit.kind == ExitKind::kJump || exit.kind == ExitKind::kReturn)) {
      call = block->is_function_entry || block->object != exit.from->object ||
             block->section != exit.from->section;
    }
    if (call && !restart) Push(t, block, stack_pointer);
  }
  if (APROF_UNLIKELY(resumed_goroutine)) AwaitRestart(t, stack_pointer);
}

void CallTracker::ExitAllThreads() {
  FlushCost();
  for (ThreadCalls* t : threads_) {
    if (!t || t->stacks.size() == 1) continue;
    engine_.SwitchTo(t->tid);  // the end: no thread runs any more
    CompleteAllStacks(*t);
  }
  engine_.ExitAllThreads();
  for (ThreadId tid = 0; tid < threads_.size(); ++tid) ForgetThread(tid);
}

ThreadId CallTracker::FindDisagreement() const {
  for (const ThreadCalls* t : threads_) {
    if (!t) continue;
    size_t frames = 0;
    for (const CallStack* stack : t->chain) frames += stack->frames.size();
    if (frames != engine_.depth_of(t->tid)) return t->tid;
  }
  return 0;
}

void CallTracker::ResetAfterFork(ThreadId tid) {
  FlushCost();
  for (ThreadId other = 0; other < threads_.size(); ++other)
    if (other != tid) ForgetThread(other);
  engine_.ResetAfterFork(tid);
  current_ = &CallsOf(tid);
}

}  // namespace aprof
