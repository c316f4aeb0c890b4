// SPDX-License-Identifier: GPL-2.0-or-later
// The shadow stack (shadow_stack.h): the owner search and the consistency
// check.
#include "shadow_stack.h"

#include "platform.h"

namespace aprof {

ShadowStack::ShadowStack() { Push(/*routine=*/0, kThreadRootTimestamp, 0); }

Frame& ShadowStack::LatestStartedAtOrBefore(Timestamp ts) {
  // Most often the cell was last touched by the caller of the top
  // activation (a loop calling a routine on the same data): try it first.
  // n >= 2: the top's ts is above ts, and the root's ts is minimal.
  const size_t n = frames_.size();
  if (frames_[n - 2].ts <= ts) return frames_[n - 2];
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

Inconsistency ShadowStack::FindInconsistency(Timestamp now, u64 cost_now) const {
  Inconsistency found;
  const auto fail = [&found](const char* what, size_t frame) {
    found.what = what;
    found.frame = frame;
    return found;
  };
  if (frames_[0].ts != kThreadRootTimestamp) return fail("the root's timestamp changed", 0);
  for (size_t i = 0; i < frames_.size(); ++i) {
    const Frame& frame = frames_[i];
    if (i > 0 && frame.ts <= frames_[i - 1].ts) return fail("timestamps do not increase upwards", i);
    if (frame.ts > now) return fail("a timestamp is above the counter", i);
    if (i > 0 && frame.entry_cost < frames_[i - 1].entry_cost)
      return fail("entry costs decrease upwards", i);
    if (frame.entry_cost > cost_now) return fail("an entry cost is above the cost clock", i);
    if (frame.children_cost > cost_now - frame.entry_cost)
      return fail("completed children cost more than their parent ran", i);
    if (frame.trms < frame.rms) return fail("a partial TRMS is below its partial RMS", i);
  }
  int64_t rms_so_far = 0;
  for (size_t i = frames_.size(); i-- > 0;) {
    rms_so_far += frames_[i].rms;
    if (rms_so_far < 0) return fail("a pending activation's RMS is negative", i);
  }
  return found;
}

}  // namespace aprof
