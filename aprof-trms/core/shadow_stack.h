// SPDX-License-Identifier: GPL-2.0-or-later
// Per-thread shadow stack of pending routine activations (Figure 11 of the
// paper), growing without a fixed limit.
//
// Entry 0 is the thread root: a permanent frame with timestamp
// kThreadRootTimestamp, older than every activation, that absorbs accesses
// made while no routine is pending and accumulates the thread's totals.
// It is never completed nor reported as a routine.
#ifndef APROF_CORE_SHADOW_STACK_H
#define APROF_CORE_SHADOW_STACK_H

#include "internal_vector.h"
#include "platform.h"
#include "types.h"

namespace aprof {

// Timestamp of every thread root; activations get larger ones. Cells never
// accessed keep timestamp 0.
constexpr Timestamp kThreadRootTimestamp = 1;

struct Frame {
  // Partial sizes: TRMS(i) = sum of frames[j].trms for j >= i (the paper's
  // invariant 2), likewise for RMS. A partial may be negative.
  int64_t trms;
  int64_t rms;
  // Induced first accesses of this activation and its completed children;
  // these are never decremented, so they are plain counts.
  u64 induced_by_threads;
  u64 induced_by_kernel;
  u64 entry_cost;
  u64 children_cost;
  Timestamp ts;
  RoutineId routine;
};

// What a completed activation measured.
struct ActivationResult {
  RoutineId routine;
  u64 trms;
  u64 rms;
  u64 induced_by_threads;
  u64 induced_by_kernel;
  u64 cost;       // cumulative: the activation and its callees
  u64 self_cost;  // cost minus the cost of its callees
  ContextId context;  // kNoContext unless calling contexts are kept
};

// Adds what one more run of an activation measured (see Engine::Suspend);
// the activation keeps its context.
inline void AddRun(ActivationResult& totals, const ActivationResult& run) {
  totals.trms += run.trms;
  totals.rms += run.rms;
  totals.induced_by_threads += run.induced_by_threads;
  totals.induced_by_kernel += run.induced_by_kernel;
  totals.cost += run.cost;
  totals.self_cost += run.self_cost;
}

class ShadowStack {
 public:
  ShadowStack();

  // Number of pending activations (the thread root excluded).
  size_t depth() const { return frames_.size() - 1; }
  Frame& top() { return frames_.back(); }
  Frame& at(size_t i) { return frames_[i]; }
  const Frame& at(size_t i) const { return frames_[i]; }

  // Inline, as Pop: each runs once per activation, a few dozen block
  // entries apart on call-heavy programs (sqlite3).
  void Push(RoutineId routine, Timestamp ts, u64 cost_now) {
    // Filled field by field in place: no call to memset for the new
    // element, and no frame built aside and copied in (the copy's wide
    // loads waited for the narrow stores of its fields, a store-forwarding
    // stall: 3% of the samples on sqlite3).
    Frame& frame = frames_.Append();
    frame.trms = 0;
    frame.rms = 0;
    frame.induced_by_threads = 0;
    frame.induced_by_kernel = 0;
    frame.entry_cost = cost_now;
    frame.children_cost = 0;
    frame.ts = ts;
    frame.routine = routine;
  }

  // Completes the top activation (depth() > 0), folds its partial values into
  // its parent and returns what it measured.
  ActivationResult Pop(u64 cost_now);

  // The most recent frame whose timestamp is <= ts, for a ts below the
  // top's (ts >= the root's, ts < top().ts): the activation that was on top
  // when a cell with timestamp ts was last accessed, for a first access of
  // the top activation. Stack timestamps increase upwards.
  Frame& LatestStartedAtOrBefore(Timestamp ts);

  // The first invariant that does not hold, walking up from the root
  // (sanity checks: --sanity-level; tests). `now`: the engine's counter;
  // `cost_now`: the thread's cost clock. The invariants: the root's
  // timestamp at the bottom; timestamps increasing upwards (the owner
  // search relies on it), none above the counter; entry costs never
  // decreasing upwards, none above the clock, no frame's completed children
  // costing more than the frame has run; TRMS >= RMS in every frame
  // (an induced read adds to TRMS alone, never takes from it); every
  // pending activation's RMS so far (the sum from its frame up) >= 0.
  // Frame-local failures name their frame, the RMS one the topmost frame
  // whose RMS so far is negative.
  Inconsistency FindInconsistency(Timestamp now, u64 cost_now) const;

 private:
  InternalVector<Frame> frames_;
};

inline ActivationResult ShadowStack::Pop(u64 cost_now) {
  APROF_CHECK_GT(depth(), 0u);
  // Read in place: the vector keeps the popped element's storage.
  frames_.pop_back();
  const Frame& done = *frames_.end();
  Frame& parent = frames_.back();

  ActivationResult result;
  result.routine = done.routine;
  // At the top of the stack the partial value is the whole value.
  // One plain check for both: this runs on every return, and the
  // operand-printing form costs Engine::Return two more instructions
  // (it keeps the values for the message).
  APROF_CHECK(done.trms >= 0 && done.rms >= 0);
  result.trms = static_cast<u64>(done.trms);
  result.rms = static_cast<u64>(done.rms);
  result.induced_by_threads = done.induced_by_threads;
  result.induced_by_kernel = done.induced_by_kernel;
  result.cost = cost_now - done.entry_cost;
  result.self_cost = result.cost - done.children_cost;

  parent.trms += done.trms;
  parent.rms += done.rms;
  parent.induced_by_threads += done.induced_by_threads;
  parent.induced_by_kernel += done.induced_by_kernel;
  parent.children_cost += result.cost;
  return result;
}

}  // namespace aprof

#endif  // APROF_CORE_SHADOW_STACK_H
