// SPDX-License-Identifier: GPL-2.0-or-later
// Per-thread profile: for each routine and each input size, aggregates of
// the activations that had that input size, per input metric (TRMS and RMS)
// so both plots come from the same run. Plus per-routine totals and the
// caller-to-callee edges of the call graph.
#ifndef APROF_CORE_PROFILE_TABLE_H
#define APROF_CORE_PROFILE_TABLE_H

#include "hash_map.h"
#include "input_sources.h"
#include "internal_vector.h"
#include "shadow_stack.h"
#include "types.h"

namespace aprof {

enum class InputMetric : u32 { kTrms = 0, kRms = 1 };
constexpr u32 kInputMetricCount = 2;

// A 192-bit unsigned accumulator: the sum of up to 2^64 squares of 64-bit
// costs cannot overflow it. Three 64-bit words rather than a 128-bit and a
// 64-bit one: no 16-byte alignment, so a tuple has no padding.
struct WideSum {
  u64 low;  // bits 0-63
  u64 middle;  // bits 64-127
  u64 high;  // bits 128-191

  u128 Low128() const { return (static_cast<u128>(middle) << 64) | low; }
  void Add(u128 x) {
    const u128 before = Low128();
    const u128 sum = before + x;
    if (sum < before) ++high;
    low = static_cast<u64>(sum);
    middle = static_cast<u64>(sum >> 64);
  }
  void Add(const WideSum& o) {
    Add(o.Low128());
    high += o.high;
  }
  bool operator==(const WideSum& o) const {
    return low == o.low && middle == o.middle && high == o.high;
  }
};

// Aggregate of the activations of one routine that had one input size.
struct InputSizeTuple {
  u64 calls;
  u64 min_cost;
  u64 max_cost;
  u64 sum_cost;
  WideSum sum_cost_squared;
  u64 sum_self_cost;
  u64 sum_induced_by_threads;
  u64 sum_induced_by_kernel;
};
// Ten words: the profile tables' memory is mostly these (docs/design.md).
static_assert(sizeof(InputSizeTuple) == 80, "a tuple without padding");

struct ProfileKey {
  RoutineId routine;
  u64 input_size;
};

struct ProfileKeyTraits {
  static u64 Hash(const ProfileKey& k) {
    return MixHash(k.input_size * 0x9e3779b97f4a7c15ULL + k.routine);
  }
  static bool Equal(const ProfileKey& a, const ProfileKey& b) {
    return a.routine == b.routine && a.input_size == b.input_size;
  }
};

using InputSizeTable = HashMap<ProfileKey, InputSizeTuple, ProfileKeyTraits>;

// The caller of an activation that no routine called: the first routine of
// a thread (or of a suspended coroutine stack completed at exit).
constexpr RoutineId kNoCaller = ~RoutineId{0};

struct CallEdgeKey {
  RoutineId caller;
  RoutineId callee;
};

struct CallEdgeKeyTraits {
  static u64 Hash(const CallEdgeKey& k) {
    return MixHash((static_cast<u64>(k.caller) << 32) | k.callee);
  }
  static bool Equal(const CallEdgeKey& a, const CallEdgeKey& b) {
    return a.caller == b.caller && a.callee == b.callee;
  }
};

// The completed activations of `callee` whose parent was an activation of
// `caller` (like callgrind's calls= lines).
struct CallEdgeTotals {
  u64 calls;
  // Sum of the callees' cumulative costs: each activation counts, so the
  // nested activations of a recursive edge count again.
  u64 inclusive_cost;
};

using CallEdgeTable = HashMap<CallEdgeKey, CallEdgeTotals, CallEdgeKeyTraits>;

struct RoutineTotals {
  u64 calls;
  u64 self_cost;
  // Cost of the outermost activations only, so recursion is not counted
  // twice: the routine's inclusive share of the thread's cost.
  u64 cumulative_cost;
  // Activations of this routine currently pending on the thread's stack.
  u64 pending;
};

class ThreadProfile {
 public:
  ThreadProfile() = default;
  ThreadProfile(const ThreadProfile&) = delete;
  ThreadProfile& operator=(const ThreadProfile&) = delete;

  void RecordCall(RoutineId routine);
  // Every call is matched by one completion; `record` says whether the
  // completed activation enters the tables, totals and edges. `caller`: the
  // routine of the parent activation, or kNoCaller.
  void RecordActivation(const ActivationResult& a, bool record = true,
                        RoutineId caller = kNoCaller);
  // Enters a completed activation that was pending nowhere in this thread
  // (a suspended activation whose stack moves to another thread): whether
  // it is outermost is said, not counted.
  void AddActivation(const ActivationResult& a, bool outermost, RoutineId caller);

  // Calls fn(const ProfileKey&, const InputSizeTuple&) for every input size
  // of every routine under `metric`, in no particular order.
  template <typename Fn>
  void ForEachTuple(InputMetric metric, Fn fn) const;
  // Indexed by RoutineId; routines never called in this thread have calls 0.
  const InternalVector<RoutineTotals>& routines() const { return routines_; }
  const CallEdgeTable& edges() const { return edges_; }

  // Calling contexts: the completed activation also enters the tables
  // keyed by its context (a.context) instead of its routine. Called only
  // for recorded activations, after RecordActivation.
  void RecordContextActivation(const ActivationResult& a);
  // Keyed by context: ProfileKey::routine holds a ContextId.
  const InputSizeTable& context_table(InputMetric metric) const {
    return context_tables_[static_cast<u32>(metric)];
  }

  // --input-sources: one more induced read by `consumer` of a cell whose
  // latest write was `writer`'s.
  void CountInducedRead(RoutineId consumer, WriterTag writer) {
    ++sources_.FindOrInsert({consumer, writer});
  }
  const SourceCounts& sources() const { return sources_; }

  // Forgets every recorded activation (tables, totals, edges, sources,
  // contexts) but keeps the count of pending activations per routine, which
  // tells which later completion is outermost (the `zero` monitor command).
  void ClearRecorded();

 private:
  RoutineTotals& TotalsOf(RoutineId routine);

  // Nearly every activation has TRMS == RMS (all of them without induced
  // reads): those go to one table that both metrics share, one lookup per
  // activation. The others go to a table per metric. A metric's tuple for
  // (routine, size) is the merge of the shared tuple and its own.
  InputSizeTable equal_sizes_;
  InputSizeTable own_sizes_[kInputMetricCount];
  InternalVector<RoutineTotals> routines_;
  SourceCounts sources_;
  CallEdgeTable edges_;
  InputSizeTable context_tables_[kInputMetricCount];
};

// Adds the activations aggregated in `from` to `into` (neither empty).
void MergeTuple(InputSizeTuple& into, const InputSizeTuple& from);

template <typename Fn>
void ThreadProfile::ForEachTuple(InputMetric metric, Fn fn) const {
  const InputSizeTable& own = own_sizes_[static_cast<u32>(metric)];
  equal_sizes_.ForEach([&](const ProfileKey& key, const InputSizeTuple& shared) {
    const InputSizeTuple* extra = own.Find(key);
    if (!extra) return fn(key, shared);
    InputSizeTuple merged = shared;
    MergeTuple(merged, *extra);
    fn(key, merged);
  });
  own.ForEach([&](const ProfileKey& key, const InputSizeTuple& tuple) {
    if (!equal_sizes_.Find(key)) fn(key, tuple);
  });
}

}  // namespace aprof

#endif  // APROF_CORE_PROFILE_TABLE_H
