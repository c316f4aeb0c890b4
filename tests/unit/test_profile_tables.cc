// SPDX-License-Identifier: GPL-2.0-or-later
// The profile tables against the naive algorithm: on random multi-thread
// traces, every (thread, metric, routine, input size) tuple of the engine
// must equal the aggregate of the naive oracle's activations with that input
// size. The engine keeps activations with TRMS == RMS in a table both
// metrics share and the others in a table per metric (profile_table.h); the
// traces must reach every case: sizes with only shared activations, only
// own ones, and both (whose tuples are merged).
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "naive_oracle.h"
#include "trace.h"

namespace aprof::testing {
namespace {

// (thread serial, metric, routine, input size)
using TupleKey = std::tuple<uint32_t, uint32_t, RoutineId, uint64_t>;

struct NaiveTuple {
  uint64_t calls = 0, min_cost = 0, max_cost = 0, sum_cost = 0;
  unsigned __int128 sum_cost_squared = 0;  // the traces' costs are small
  uint64_t sum_self_cost = 0, sum_induced_by_threads = 0, sum_induced_by_kernel = 0;
  // Activations of this tuple with TRMS == RMS, and with TRMS != RMS.
  uint64_t equal = 0, unequal = 0;

  bool operator==(const NaiveTuple& o) const {
    return calls == o.calls && min_cost == o.min_cost && max_cost == o.max_cost &&
           sum_cost == o.sum_cost && sum_cost_squared == o.sum_cost_squared &&
           sum_self_cost == o.sum_self_cost &&
           sum_induced_by_threads == o.sum_induced_by_threads &&
           sum_induced_by_kernel == o.sum_induced_by_kernel;
  }
};

std::ostream& operator<<(std::ostream& out, const NaiveTuple& t) {
  return out << "calls " << t.calls << " min " << t.min_cost << " max " << t.max_cost << " sum "
             << t.sum_cost << " sq " << static_cast<uint64_t>(t.sum_cost_squared) << " self "
             << t.sum_self_cost << " threads " << t.sum_induced_by_threads << " kernel "
             << t.sum_induced_by_kernel;
}

std::map<TupleKey, NaiveTuple> Aggregate(const std::vector<ObservedActivation>& activations) {
  std::map<TupleKey, NaiveTuple> tuples;
  for (const ObservedActivation& a : activations) {
    const uint64_t sizes[kInputMetricCount] = {a.trms, a.rms};
    for (uint32_t m = 0; m < kInputMetricCount; ++m) {
      NaiveTuple& t = tuples[{a.thread_serial, m, a.routine, sizes[m]}];
      if (t.calls == 0 || a.cost < t.min_cost) t.min_cost = a.cost;
      if (a.cost > t.max_cost) t.max_cost = a.cost;
      ++t.calls;
      t.sum_cost += a.cost;
      t.sum_cost_squared += static_cast<unsigned __int128>(a.cost) * a.cost;
      t.sum_self_cost += a.self_cost;
      t.sum_induced_by_threads += a.induced_by_threads;
      t.sum_induced_by_kernel += a.induced_by_kernel;
      ++(a.trms == a.rms ? t.equal : t.unequal);
    }
  }
  return tuples;
}

std::map<TupleKey, NaiveTuple> EngineTuples(const Engine& engine) {
  std::map<TupleKey, NaiveTuple> tuples;
  for (size_t i = 0; i < engine.thread_record_count(); ++i) {
    const ThreadRecord& record = engine.thread_record(i);
    for (uint32_t m = 0; m < kInputMetricCount; ++m) {
      record.profile.ForEachTuple(
          static_cast<InputMetric>(m), [&](const ProfileKey& key, const InputSizeTuple& v) {
            NaiveTuple t;
            t.calls = v.calls;
            t.min_cost = v.min_cost;
            t.max_cost = v.max_cost;
            t.sum_cost = v.sum_cost;
            EXPECT_EQ(v.sum_cost_squared.high, 0u);
            t.sum_cost_squared = v.sum_cost_squared.Low128();
            t.sum_self_cost = v.sum_self_cost;
            t.sum_induced_by_threads = v.sum_induced_by_threads;
            t.sum_induced_by_kernel = v.sum_induced_by_kernel;
            const bool inserted = tuples.emplace(TupleKey{record.serial, m, key.routine,
                                                          key.input_size}, t).second;
            EXPECT_TRUE(inserted) << "a tuple listed twice";
          });
    }
  }
  return tuples;
}

constexpr int kTraces = 1000;

TEST(ProfileTables, EqualNaiveAggregatesOfActivations) {
  uint64_t only_equal = 0, only_unequal = 0, merged = 0;
  ForEachRandomTrace(4242, kTraces, 200, 400, [&](const SeededTrace& t) {
    const uint64_t seed = t.seed;
    const Trace& trace = t.trace;
    EngineOptions options;
    options.resolution_shift = t.resolution_shift;

    Engine engine(options);
    RunEngine(engine, trace);
    NaiveOracle oracle(options.resolution_shift);
    const auto expected = Aggregate(oracle.Run(trace));
    const auto actual = EngineTuples(engine);

    ASSERT_EQ(actual.size(), expected.size()) << "seed " << seed;
    for (const auto& [key, tuple] : expected) {
      const auto found = actual.find(key);
      ASSERT_NE(found, actual.end()) << "seed " << seed << ": no tuple for routine "
                                     << std::get<2>(key) << " size " << std::get<3>(key);
      ASSERT_EQ(found->second, tuple) << "seed " << seed << ", metric " << std::get<1>(key)
                                      << ", routine " << std::get<2>(key) << ", size "
                                      << std::get<3>(key);
      if (tuple.unequal == 0)
        ++only_equal;
      else if (tuple.equal == 0)
        ++only_unequal;
      else
        ++merged;
    }
  });
  // The traces must reach every way a tuple is stored.
  EXPECT_GT(only_equal, 10u * kTraces);
  EXPECT_GT(only_unequal, 1u * kTraces);
  EXPECT_GT(merged, kTraces / 8u);
}

}  // namespace
}  // namespace aprof::testing
