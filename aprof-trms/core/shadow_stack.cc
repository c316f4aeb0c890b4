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

}  // namespace aprof
