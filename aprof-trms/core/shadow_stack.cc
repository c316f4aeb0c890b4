#include "shadow_stack.h"

#include "platform.h"

namespace aprof {

ShadowStack::ShadowStack() { Push(/*routine=*/0, kThreadRootTimestamp, 0); }

void ShadowStack::Push(RoutineId routine, Timestamp ts, u64 cost_now) {
  // Filled in place: a frame built aside and copied in made the copy's wide
  // loads wait for the narrow stores of its fields (a store-forwarding
  // stall, 3% of the samples on call-heavy sqlite3).
  frames_.resize(frames_.size() + 1);
  Frame& frame = frames_.back();
  frame.ts = ts;
  frame.routine = routine;
  frame.entry_cost = cost_now;
}

ActivationResult ShadowStack::Pop(u64 cost_now) {
  APROF_CHECK(depth() > 0);
  const Frame done = frames_.back();
  frames_.pop_back();
  Frame& parent = frames_.back();

  ActivationResult result;
  result.routine = done.routine;
  // At the top of the stack the partial value is the whole value.
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

Frame& ShadowStack::LatestStartedAtOrBefore(Timestamp ts) {
  // Most often the cell was last touched by the caller of the top
  // activation (a loop calling a routine on the same data): try it first.
  const size_t n = frames_.size();
  if (frames_[n - 1].ts <= ts) return frames_[n - 1];
  if (frames_[n - 2].ts <= ts) return frames_[n - 2];  // n >= 2: the root's ts is minimal
  // Otherwise the answer is still usually near the top of a deep stack:
  // gallop down from it (steps 1, 2, 4...), then search the last step
  // (log of the distance from the top, not of the depth).
  // Invariant: frames_[lo].ts <= ts < frames_[hi].ts.
  size_t hi = n - 2, lo = 0;
  for (size_t step = 1; step <= hi; step *= 2) {
    if (frames_[hi - step].ts <= ts) {
      lo = hi - step;
      break;
    }
    hi -= step;
  }
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (frames_[mid].ts <= ts)
      lo = mid;
    else
      hi = mid;
  }
  return frames_[lo];
}

}  // namespace aprof
