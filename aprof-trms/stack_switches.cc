// SPDX-License-Identifier: GPL-2.0-or-later
// Stack switches: a thread running on several machine stacks (coroutines:
// ucontext, Boost.Context, fibers). See docs/design.md, "Stack switches".
//
// Each stack keeps its own frames. A stack pointer that leaves the running
// stack's window belongs to another stack the thread ran on (the one whose
// known stack pointers it falls among), to the running stack further away
// than the window reached (within the thread's own stack segment; on other
// stacks, deeper by less than --max-stackframe), or else to a new stack. Switching to a
// stack suspends the stacks resumed after it; switching to a stack that is
// not running resumes it on top of the running one, so the engine's stack
// stays one chain of activations with increasing timestamps.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "call_tracker.h"

#include "core/platform.h"
#include "valgrind_headers.h"

namespace aprof {

namespace {

// How far above its highest known stack pointer a stack still reaches: the
// code that started it (a trampoline such as glibc's __start_context) runs
// just above its first frame. Small, so that a stack allocated right above
// another one is told apart: Go's goroutine stacks start at 2 KiB, side by
// side (with 4 KiB, a goroutine resumed near the top of its stack was taken
// for the one below it, and one blocking routine kept half of its cost).
constexpr uptr kAboveHighest = 256;

uptr Min(uptr a, uptr b) { return a < b ? a : b; }
uptr Max(uptr a, uptr b) { return a > b ? a : b; }

// The thread's own stack segment [*lowest, *highest] as Valgrind knows it
// (from the initial stack or the clone that made the thread); false if it
// does not know.
bool OwnStackSegment(ThreadId tid, uptr* lowest, uptr* highest) {
  const uptr size = VG_(thread_get_stack_size)(tid);
  const uptr max = VG_(thread_get_stack_max)(tid);
  if (size == 0 || max < size - 1) return false;
  *lowest = max - (size - 1);
  *highest = max;
  return true;
}

}  // namespace

void CallTracker::CallStack::TakeSpanOfFrames() {
  if (frames.empty()) return;
  low = Min(low, frames.back().stack_pointer);  // the top frame is the deepest
  high = Max(high, frames[0].stack_pointer);
}

void CallTracker::ReopenWindow(ThreadCalls& t) {
  t.window_low = 1;  // empty: the next block entry looks
  t.window_last = 0;
}

void CallTracker::FollowStackPointer(ThreadCalls& t, uptr stack_pointer, bool at_function_entry,
                                     bool known_switch, const GoroutineStack* goroutine) {
  CallStack* target = goroutine ? StackOfGoroutine(t, *goroutine, at_function_entry) : nullptr;
  // A new goroutine owns its whole stack: no frame left there is live.
  if (goroutine && at_function_entry) RetireStacksWithin(t, nullptr, goroutine->low, goroutine->high);
  if (target == nullptr) target = StackOf(t, stack_pointer, known_switch);
  if (goroutine) {
    target->goroutine = goroutine->g;
    target->goroutine_high = goroutine->high;
    if (!at_function_entry) RetireStacksWithin(t, target, goroutine->low, goroutine->high);
  }
  if (target != t.stack) {
    ++stack_switches_;
    size_t in_chain = 0;
    while (in_chain < t.chain.size() && t.chain[in_chain] != target) ++in_chain;
    if (in_chain < t.chain.size()) {
      while (t.stack != target) SuspendRunningStack(t);
    } else {
      ResumeStack(t, target);
      // A resumed coroutine goes on in the middle of a routine (after its
      // call to the switch routine). Landing on a routine's entry instead, a
      // new coroutine starts on a stack used before: the frames left at or
      // below its stack pointer by the one that ended there are over.
      if (at_function_entry) {
        while (!target->frames.empty() && target->frames.back().stack_pointer <= stack_pointer)
          Pop(t);
      }
    }
  }
  target->low = Min(target->low, stack_pointer);
  target->high = Max(target->high, stack_pointer);
  SetWindow(t, stack_pointer);
}

bool CallTracker::CallStack::Reaches(uptr stack_pointer) const {
  return low <= high && stack_pointer >= low && stack_pointer <= high + kAboveHighest;
}

CallTracker::CallStack* CallTracker::StackOf(ThreadCalls& t, uptr stack_pointer, bool known_switch) {
  CallStack& running = *t.stack;
  running.TakeSpanOfFrames();
  // Among the stack pointers of another stack: a return to it (the stack
  // pointer lands just above its top frame, the routine that switched) or
  // a jump into it.
  for (CallStack* s : t.stacks) {
    if (s != &running && s->Reaches(stack_pointer)) return s;
  }
  if (CallStack* adopted = AdoptSuspendedStack(t, stack_pointer)) return adopted;
  // Still the running stack: in the thread's own stack segment, as Valgrind
  // knows it; for other stacks (whose extent nobody knows), not much deeper
  // than the stack reached before, nor above its outermost frame.
  if (running.low > running.high) return &running;  // first look at this stack
  uptr lowest, highest;
  if (known_switch) {
    if (running.Reaches(stack_pointer)) return &running;
  } else if (&running == t.stacks[0] && OwnStackSegment(t.tid, &lowest, &highest)) {
    if (stack_pointer >= lowest && stack_pointer <= highest) return &running;
  } else if (stack_pointer <= running.high + kAboveHighest &&
             (stack_pointer >= running.low ||
              running.low - stack_pointer <= VG_(clo_max_stackframe))) {
    return &running;
  }
  // A new stack; a stack with no frames left (its coroutine ended) serves
  // again.
  for (CallStack* s : t.stacks) {
    if (s != &running && s->frames.empty() && s->earlier.empty()) {
      bool in_chain = false;
      for (CallStack* c : t.chain) in_chain |= c == s;
      if (in_chain) continue;
      s->low = ~uptr{0};
      s->high = 0;
      return s;
    }
  }
  CallStack* fresh = New<CallStack>();
  t.stacks.push_back(fresh);
  return fresh;
}

CallTracker::CallStack* CallTracker::StackOfGoroutine(ThreadCalls& t, const GoroutineStack& goroutine,
                                                      bool at_function_entry) {
  auto of_goroutine = [&goroutine](const CallStack* s) { return s->goroutine == goroutine.g; };
  CallStack* found = nullptr;
  for (CallStack* s : t.stacks) {
    if (of_goroutine(s)) found = s;
  }
  if (found == nullptr) found = AdoptSuspendedStackIf(t, of_goroutine);
  if (found == nullptr) return nullptr;
  // A goroutine starts at a routine's entry: a new one on a g used before
  // (the stack pointers say which stack it runs on).
  if (at_function_entry) {
    found->goroutine = 0;
    return nullptr;
  }
  // The runtime copied the stack (runtime.copystack, to grow it from
  // newstack or shrink it during a collection): every pointer into it moved
  // by the distance between the old and the new top, the frames' stack
  // pointers too.
  if (found->goroutine_high != goroutine.high) {
    const uptr distance = goroutine.high - found->goroutine_high;
    for (Frame& frame : found->frames) frame.stack_pointer += distance;
    found->low = ~uptr{0};
    found->high = 0;
    found->TakeSpanOfFrames();
    ++copied_stacks_;
  }
  return found;
}

bool CallTracker::InSomeChain(const CallStack* stack) const {
  for (const ThreadCalls* other : threads_) {
    if (other == nullptr) continue;
    for (const CallStack* c : other->chain)
      if (c == stack) return true;
  }
  return false;
}

void CallTracker::RetireStacksWithin(ThreadCalls& t, const CallStack* kept, uptr low, uptr high) {
  for (ThreadCalls* owner : threads_) {
    if (owner == nullptr) continue;
    for (size_t i = 1; i < owner->stacks.size(); ++i) {
      CallStack* s = owner->stacks[i];
      if (s == kept || s->low > s->high || s->high < low || s->low >= high) continue;
      if (s->frames.empty() || InSomeChain(s)) continue;
      // What ran there stays in the profile of the thread it ran in.
      engine_.SwitchTo(owner->tid);
      CompleteSuspendedFrames(*s);
      engine_.SwitchTo(t.tid);
      ++retired_stacks_;
    }
  }
}

void CallTracker::CompleteSuspendedRuns(CallStack& s) {
  for (size_t j = s.earlier.size(); j-- > 0;) {
    bool outermost = true;
    for (size_t i = 0; i < j; ++i) outermost &= s.earlier[i].routine != s.earlier[j].routine;
    engine_.CompleteSuspendedApart(s.earlier[j], j > 0 ? s.earlier[j - 1].routine : kNoCaller,
                                   outermost);
  }
  s.earlier.clear();
}

void CallTracker::CompleteSuspendedFrames(CallStack& s) {
  CompleteSuspendedRuns(s);
  s.frames.clear();
  s.low = ~uptr{0};
  s.high = 0;
  s.goroutine = 0;
}

void CallTracker::AwaitRestart(ThreadCalls& t, uptr stack_pointer) {
  const CallStack& s = *t.stack;
  if (s.frames.empty() || s.frames.back().stack_pointer != stack_pointer) return;
  t.restart_at = stack_pointer;
  ReopenWindow(t);  // the next block entry looks: StartsOver
  // The goroutine stopped in its prologue (to grow its stack, or to let
  // another run) and waited for nothing: what touched its stack meanwhile
  // (the copy, the collector's scan, on this thread) is not input to its
  // frames, which go on as if they had not stopped.
  if (s.goroutine != 0) engine_.TakeAsAccessedByTop(stack_pointer, s.goroutine_high - stack_pointer);
}

bool CallTracker::StartsOver(ThreadCalls& t, SuperblockInfo* block, uptr stack_pointer) {
  if (t.restart_at == 0) return false;
  const bool at = t.restart_at == stack_pointer;
  t.restart_at = 0;
  const InternalVector<Frame>& frames = t.stack->frames;
  if (!at || !block->is_function_entry || frames.empty() ||
      frames.back().stack_pointer != stack_pointer)
    return false;
  ResolveRoutine(block);
  return block->routine == frames.back().routine;
}

CallTracker::CallStack* CallTracker::AdoptSuspendedStack(ThreadCalls& t, uptr stack_pointer) {
  return AdoptSuspendedStackIf(
      t, [stack_pointer](const CallStack* s) { return s->Reaches(stack_pointer); });
}

template <typename Matches>
CallTracker::CallStack* CallTracker::AdoptSuspendedStackIf(ThreadCalls& t, Matches matches) {
  for (ThreadCalls* other : threads_) {
    if (other == nullptr || other == &t) continue;
    // Never another thread's own stack (stacks[0]), nor one of its chain.
    for (size_t i = 1; i < other->stacks.size(); ++i) {
      CallStack* s = other->stacks[i];
      if (!matches(s)) continue;
      bool in_chain = false;
      for (const CallStack* c : other->chain) in_chain |= c == s;
      if (in_chain) return nullptr;
      other->stacks[i] = other->stacks.back();
      other->stacks.pop_back();
      // What ran on the other thread stays in its profile, whose cost it
      // is: the suspended activations complete there, and their frames
      // start new activations here when the stack resumes.
      engine_.SwitchTo(other->tid);
      CompleteSuspendedRuns(*s);
      engine_.SwitchTo(t.tid);
      t.stacks.push_back(s);
      ++adopted_stacks_;
      return s;
    }
  }
  return nullptr;
}

void CallTracker::SuspendRunningStack(ThreadCalls& t) {
  CallStack& s = *t.stack;
  APROF_CHECK(t.chain.size() > 1 && t.signals.empty());
  s.TakeSpanOfFrames();
  const size_t runs_before = s.earlier.size();
  s.earlier.resize(s.frames.size());
  for (size_t i = s.frames.size(); i-- > 0;) {
    const ActivationResult run = engine_.Suspend();
    if (i < runs_before)
      AddRun(s.earlier[i], run);
    else
      s.earlier[i] = run;
  }
  t.chain.pop_back();
  t.stack = t.chain.back();
}

void CallTracker::ResumeStack(ThreadCalls& t, CallStack* stack) {
  t.stack->TakeSpanOfFrames();
  t.chain.push_back(stack);
  t.stack = stack;
  // Every frame of a suspended stack has its earlier runs, unless the stack
  // was taken over from another thread (AdoptSuspendedStack): then none has.
  APROF_CHECK(stack->earlier.size() == stack->frames.size() || stack->earlier.empty());
  // Its first frame starts its own contexts' segment (context_tree.h).
  for (size_t i = 0; i < stack->earlier.size(); ++i) engine_.Resume(stack->earlier[i], i == 0);
  for (size_t i = stack->earlier.size(); i < stack->frames.size(); ++i) {
    if (i == 0)
      engine_.CallFirstOnStack(stack->frames[i].routine);
    else
      engine_.Call(stack->frames[i].routine);
  }
}

void CallTracker::SetWindow(ThreadCalls& t, uptr stack_pointer) {
  const CallStack& running = *t.stack;
  // As far as StackOf would take a stack pointer for the running stack...
  uptr low = running.low > VG_(clo_max_stackframe) ? running.low - VG_(clo_max_stackframe) : 0;
  uptr high = running.high + kAboveHighest;
  if (&running == t.stacks[0] && OwnStackSegment(t.tid, &low, &high)) {
    low = Min(low, stack_pointer);  // the first look at the stack may lie outside
    high = Max(high, stack_pointer);
  }
  // ... and short of the other stacks' stack pointers, which go to them.
  for (const CallStack* s : t.stacks) {
    if (s == &running || s->low > s->high) continue;
    const uptr reach = s->high + kAboveHighest;
    if (reach < stack_pointer)
      low = Max(low, reach + 1);
    else if (s->low > stack_pointer)
      high = Min(high, s->low - 1);
  }
  APROF_CHECK_LE(low, stack_pointer);
  APROF_CHECK_LE(stack_pointer, high);
  t.window_low = low;
  t.window_last = high - low;
}

void CallTracker::CompleteAllStacks(ThreadCalls& t) {
  for (;;) {
    while (!t.stack->frames.empty()) Pop(t);
    if (t.chain.size() == 1) break;
    t.chain.pop_back();
    t.stack = t.chain.back();
  }
  // The suspended stacks: every frame has its earlier runs.
  for (CallStack* s : t.stacks) {
    for (size_t i = s->earlier.size(); i-- > 0;)
      engine_.CompleteSuspended(s->earlier[i], i > 0 ? s->earlier[i - 1].routine : kNoCaller);
    s->frames.clear();
    s->earlier.clear();
  }
}

}  // namespace aprof
