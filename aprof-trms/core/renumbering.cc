// SPDX-License-Identifier: GPL-2.0-or-later
// Counter-overflow renumbering (Figure 13 of the paper, section 4.4).
//
// Timestamps are compared only (a) cell against stack frames of the same
// thread and (b) a thread's access timestamp of a cell against the global
// write timestamp of the same cell; never across cells. So every timestamp
// can be mapped to a small value that keeps the outcome of every comparison
// the algorithm can still make.
//
// Let A[1..n] be the sorted timestamps of all pending activations of all
// threads and A[0] = kThreadRootTimestamp (the thread roots). Activation
// A[q] gets the new value B(q) = 3q + 1, so B(0) is the root's timestamp
// again. A timestamp x falls in bucket q when A[q] <= x < A[q+1]. Inside a
// bucket three values B(q), B(q)+1, B(q)+2 order a thread's access relative
// to the cell's latest write, which is renumbered to B(q)+1:
//   access before the write -> B(q), the write itself -> B(q)+1,
//   access after the write -> B(q)+2.
// An access in another bucket than the write only needs its bucket: B(j).
// The counter restarts at B(n)+3, above every renumbered value.
#include "engine.h"
#include "platform.h"
#include "sort.h"

namespace aprof {

namespace {

class Renumbering {
 public:
  // pending: sorted, distinct timestamps of all pending activations.
  explicit Renumbering(const InternalVector<Timestamp>& pending) : pending_(pending) {}

  // Bucket of x >= kThreadRootTimestamp: the number of pending timestamps <= x.
  size_t Bucket(Timestamp x) const {
    size_t lo = 0, hi = pending_.size();  // answer in [lo, hi]
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (pending_[mid] <= x)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }

  static Timestamp Base(size_t bucket) { return static_cast<Timestamp>(3 * bucket + 1); }

  Timestamp ActivationTimestamp(Timestamp old) const { return Base(Bucket(old)); }

  // New value of a thread's access timestamp, given the old latest-write
  // time of the same cell (0 if never written).
  // access != 0: a cell never accessed is left alone.
  Timestamp AccessTimestamp(Timestamp access, Timestamp write_time) const {
    const size_t access_bucket = Bucket(access);
    if (write_time == 0 || Bucket(write_time) != access_bucket) return Base(access_bucket);
    if (access < write_time) return Base(access_bucket);
    if (access == write_time) return Base(access_bucket) + 1;
    return Base(access_bucket) + 2;
  }

  Timestamp WriteTimestamp(Timestamp write_time) const { return Base(Bucket(write_time)) + 1; }

  Timestamp NewCounter() const { return Base(pending_.size()) + 3; }

 private:
  const InternalVector<Timestamp>& pending_;
};

}  // namespace

void Engine::Renumber() {
  ++stats_.renumberings;

  InternalVector<Timestamp> pending;
  for (LiveThread* thread : live_) {
    if (!thread) continue;
    for (size_t i = 1; i <= thread->stack.depth(); ++i) pending.push_back(thread->stack.at(i).ts);
  }
  HeapSort(pending.data(), pending.size(), [](Timestamp a, Timestamp b) { return a < b; });
  const Renumbering renumbering(pending);

  // Per-thread access timestamps first: they need the old write timestamps.
  const uptr cells_per_chunk = global_writes_.cells_per_chunk();
  for (LiveThread* thread : live_) {
    if (!thread) continue;
    thread->memory.ForEachChunk([&](uptr chunk_index, Timestamp* accesses) {
      const Timestamp* writes = global_writes_.FindChunk(chunk_index);
      for (uptr i = 0; i < cells_per_chunk; ++i) {
        // Never accessed stays 0, unwritten: the pages of a chunk the thread
        // did not touch stay out of memory.
        if (accesses[i] == 0) continue;
        const Timestamp write_time = writes ? (writes[i] & kTimeMask) : 0;
        accesses[i] = renumbering.AccessTimestamp(accesses[i], write_time);
      }
    });
  }
  global_writes_.ForEachChunk([&](uptr, Timestamp* writes) {
    for (uptr i = 0; i < cells_per_chunk; ++i) {
      if (writes[i] == 0) continue;
      writes[i] = renumbering.WriteTimestamp(writes[i] & kTimeMask) | (writes[i] & kKernelWriteBit);
    }
  });
  for (LiveThread* thread : live_) {
    if (!thread) continue;
    for (size_t i = 1; i <= thread->stack.depth(); ++i) {
      Frame& frame = thread->stack.at(i);
      frame.ts = renumbering.ActivationTimestamp(frame.ts);
    }
  }

  count_ = renumbering.NewCounter();
  APROF_CHECK_LT(count_, kMaxTimestamp);
  // Conservative (the caller's tick raises the fence as well): the old
  // horizon is not renumbered, and renumbering is rare.
  RaiseHorizon();
}

}  // namespace aprof
