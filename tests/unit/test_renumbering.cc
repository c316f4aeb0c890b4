// SPDX-License-Identifier: GPL-2.0-or-later
// Counter-overflow renumbering (Figure 13): with a threshold so low that the
// counter is renumbered every few dozen events, every activation and every
// profile table must be identical to a run that never renumbers, and to the
// naive algorithm.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "naive_oracle.h"
#include "trace.h"

namespace aprof::testing {
namespace {

// Every profile tuple of every thread and metric, in a canonical order.
std::vector<std::vector<uint64_t>> ProfileRows(const Engine& engine) {
  std::vector<std::vector<uint64_t>> rows;
  for (size_t t = 0; t < engine.thread_record_count(); ++t) {
    const ThreadRecord& record = engine.thread_record(t);
    for (uint32_t m = 0; m < kInputMetricCount; ++m) {
      record.profile.ForEachTuple(
          static_cast<InputMetric>(m), [&](const ProfileKey& k, const InputSizeTuple& v) {
            rows.push_back({record.serial, m, k.routine, k.input_size, v.calls, v.min_cost,
                            v.max_cost, v.sum_cost, v.sum_cost_squared.low,
                            v.sum_cost_squared.middle,
                            v.sum_cost_squared.high, v.sum_self_cost, v.sum_induced_by_threads,
                            v.sum_induced_by_kernel});
          });
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// After a renumbering the counter restarts at 3 * (pending activations) + 4,
// up to 76 with 4 threads of 6 frames. A lower threshold is legal: the
// counter is then renumbered at every step, the harshest case.
constexpr Timestamp kTinyThreshold = 32;
constexpr int kTraces = 2000;

TEST(Renumbering, TinyThresholdGivesIdenticalProfiles) {
  uint64_t total_events = 0, total_renumberings = 0;
  ForEachRandomTrace(7777, kTraces, 300, 300, [&](const SeededTrace& t) {
    const uint64_t seed = t.seed;
    const Trace& trace = t.trace;
    const unsigned shift = t.resolution_shift;

    EngineOptions never;
    never.resolution_shift = shift;
    EngineOptions often = never;
    often.overflow_threshold = kTinyThreshold;

    Engine reference(never), renumbered(often);
    const auto expected = RunEngine(reference, trace);
    const auto actual = RunEngine(renumbered, trace);
    ASSERT_EQ(reference.statistics().renumberings, 0u);
    ASSERT_EQ(actual, expected) << "seed " << seed;
    ASSERT_EQ(ProfileRows(renumbered), ProfileRows(reference)) << "seed " << seed;

    NaiveOracle oracle(shift);
    ASSERT_EQ(actual, oracle.Run(trace)) << "seed " << seed;

    total_events += trace.size();
    total_renumberings += renumbered.statistics().renumberings;
  });
  // "Every few dozen events" at most.
  ASSERT_GT(total_renumberings, 0u);
  EXPECT_LT(total_events / total_renumberings, 30u);
}

// Deep stacks in two threads, many live cells in both threads' shadow
// memories: once more than 65 activations are pending the counter restarts
// above the threshold, so it is renumbered at every call and switch.
TEST(Renumbering, DeepStacksOfTwoThreads) {
  constexpr int kDepth = 300;
  Trace trace = {StartThread(1), StartThread(2)};
  for (int depth = 0; depth < kDepth; ++depth) {
    for (uint32_t tid : {1u, 2u}) {
      trace.insert(trace.end(), {SwitchTo(tid), Call(depth % 7), Cost(1),
                                 Write(0x10000 + 64 * (depth % 50), 64),
                                 Read(0x20000 + 4 * ((depth * tid) % 97), 8),
                                 Read(0x10000 + 64 * (depth % 50) + 4 * tid, 4)});
    }
    if (depth % 10 == 0) trace.push_back(KernelWrite(0x20000, 256));
  }
  for (int depth = 0; depth < kDepth; ++depth) {
    for (uint32_t tid : {1u, 2u}) {
      trace.insert(trace.end(), {SwitchTo(tid), Read(0x20000 + 8 * (depth % 37), 4), Return()});
    }
  }

  EngineOptions often;
  often.overflow_threshold = 200;
  Engine reference, renumbered(often);
  const auto expected = RunEngine(reference, trace);
  const auto actual = RunEngine(renumbered, trace);
  EXPECT_GT(renumbered.statistics().renumberings, 1000u);
  ASSERT_EQ(actual, expected);
  EXPECT_EQ(ProfileRows(renumbered), ProfileRows(reference));
  NaiveOracle oracle(reference.options().resolution_shift);
  EXPECT_EQ(actual, oracle.Run(trace));
}

// Resident memory of this process (second field of /proc/self/statm).
long ResidentKib() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// A renumbering rewrites the timestamps of every allocated chunk, but must
// not write the slots of cells never accessed: that would make every page of
// every chunk resident. Here one cell per 64 KiB chunk over 128 MiB: 2048
// pages of shadow resident per shadow memory (8 MiB), 128 MiB if a
// renumbering wrote every slot.
TEST(RenumberingMemory, CellsNeverAccessedStayOutOfMemory) {
  EngineOptions options;
  options.overflow_threshold = 1000;
  Engine engine(options);
  engine.SwitchTo(1);
  engine.Call(1);
  constexpr uptr kBase = uptr{1} << 40, kBytes = uptr{128} << 20, kChunk = uptr{1} << 16;
  for (uptr a = kBase; a < kBase + kBytes; a += kChunk) engine.Write(a, 4);
  const long before = ResidentKib();
  while (engine.statistics().renumberings == 0) {
    engine.Call(2);
    engine.Return();
  }
  EXPECT_LT(ResidentKib() - before, 16 * 1024);
}

}  // namespace
}  // namespace aprof::testing
