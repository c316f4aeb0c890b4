// SPDX-License-Identifier: GPL-2.0-or-later
// Exact values for the worked examples of the paper (Examples 1-4,
// Figures 1-3) and of the slides' RMS walkthrough. Each trace also runs
// through the naive oracle, so the expected numbers are checked twice.
#include <gtest/gtest.h>

#include "naive_oracle.h"
#include "trace.h"

namespace aprof::testing {
namespace {

enum : RoutineId { kF = 1, kG, kH, kProducer, kProduceData, kConsumer, kConsumeData, kExternalRead };
constexpr uint64_t kX = 0x1000, kY = 0x1004, kZ = 0x1008, kW = 0x100c;

std::vector<ObservedActivation> RunBoth(const Trace& trace) {
  Engine engine;
  std::vector<ObservedActivation> from_engine = RunEngine(engine, trace);
  NaiveOracle oracle(engine.options().resolution_shift);
  std::vector<ObservedActivation> from_oracle = oracle.Run(trace);
  EXPECT_TRUE(oracle.consistent());
  EXPECT_EQ(from_engine, from_oracle);
  return from_engine;
}

const ObservedActivation& Only(const std::vector<ObservedActivation>& all, RoutineId routine) {
  const ObservedActivation* found = nullptr;
  for (const ObservedActivation& a : all) {
    if (a.routine != routine) continue;
    EXPECT_EQ(found, nullptr) << "routine " << routine << " completed more than once";
    found = &a;
  }
  EXPECT_NE(found, nullptr) << "routine " << routine << " never completed";
  static const ObservedActivation kMissing{};
  return found ? *found : kMissing;
}

// Figure 1a: f in T1 reads x twice; g in T2 overwrites x in between.
TEST(PaperExamples, Example1SecondReadIsInducedByAnotherThread) {
  auto done = RunBoth({StartThread(1), StartThread(2), SwitchTo(1), Call(kF), Read(kX),
                       SwitchTo(2), Call(kG), Write(kX), Return(),
                       SwitchTo(1), Read(kX), Return()});
  const ObservedActivation& f = Only(done, kF);
  EXPECT_EQ(f.rms, 1u);
  EXPECT_EQ(f.trms, 2u);
  EXPECT_EQ(f.induced_by_threads, 1u);
  EXPECT_EQ(f.induced_by_kernel, 0u);
  EXPECT_EQ(Only(done, kG).trms, 0u);  // g only writes
}

// Figure 1b: f reads x; T2 writes x; f's child h reads x; f reads x again.
TEST(PaperExamples, Example2InducedReadThroughADescendant) {
  auto done = RunBoth({StartThread(1), StartThread(2), SwitchTo(1), Call(kF), Read(kX),
                       SwitchTo(2), Call(kG), Write(kX), Return(),
                       SwitchTo(1), Call(kH), Read(kX), Return(), Read(kX), Return()});
  const ObservedActivation& f = Only(done, kF);
  const ObservedActivation& h = Only(done, kH);
  EXPECT_EQ(h.rms, 1u);
  EXPECT_EQ(h.trms, 1u);
  EXPECT_EQ(h.induced_by_threads, 1u);  // both a first and an induced access: induced
  EXPECT_EQ(f.rms, 1u);
  EXPECT_EQ(f.trms, 2u);  // the third read follows h's access: not induced
  EXPECT_EQ(f.induced_by_threads, 1u);
}

// Example 3, Figure 2: producer/consumer over one shared cell x.
TEST(PaperExamples, Example3ProducerConsumer) {
  constexpr int kItems = 50;
  Trace trace = {StartThread(1), StartThread(2), SwitchTo(1), Call(kProducer),
                 SwitchTo(2), Call(kConsumer)};
  for (int i = 0; i < kItems; ++i) {
    trace.insert(trace.end(), {SwitchTo(1), Call(kProduceData), Write(kX), Cost(3), Return(),
                               SwitchTo(2), Call(kConsumeData), Read(kX), Cost(2), Return()});
  }
  trace.insert(trace.end(), {Return(), SwitchTo(1), Return()});
  auto done = RunBoth(trace);

  const ObservedActivation& consumer = Only(done, kConsumer);
  EXPECT_EQ(consumer.rms, 1u);
  EXPECT_EQ(consumer.trms, uint64_t{kItems});
  EXPECT_EQ(consumer.induced_by_threads, uint64_t{kItems});
  EXPECT_EQ(consumer.cost, 2u * kItems);
  EXPECT_EQ(consumer.self_cost, 0u);
  const ObservedActivation& producer = Only(done, kProducer);
  EXPECT_EQ(producer.trms, 0u);
  EXPECT_EQ(producer.cost, 3u * kItems);
  int consume_calls = 0;
  for (const ObservedActivation& a : done) {
    if (a.routine != kConsumeData) continue;
    ++consume_calls;
    EXPECT_EQ(a.trms, 1u);
    EXPECT_EQ(a.rms, 1u);
  }
  EXPECT_EQ(consume_calls, kItems);
}

// Example 4, Figure 3: the kernel refills a 2-cell buffer, only b[0] is read.
TEST(PaperExamples, Example4BufferedExternalRead) {
  constexpr int kIterations = 40;
  constexpr uint64_t kBuffer = 0x2000;
  Trace trace = {StartThread(1), SwitchTo(1), Call(kExternalRead)};
  for (int i = 0; i < kIterations; ++i) {
    trace.insert(trace.end(), {KernelWrite(kBuffer, 8), Call(kConsumeData), Read(kBuffer), Return()});
  }
  trace.push_back(Return());
  auto done = RunBoth(trace);

  const ObservedActivation& reader = Only(done, kExternalRead);
  EXPECT_EQ(reader.rms, 1u);
  EXPECT_EQ(reader.trms, uint64_t{kIterations});
  EXPECT_EQ(reader.induced_by_kernel, uint64_t{kIterations});
  EXPECT_EQ(reader.induced_by_threads, 0u);
}

// A kernel read (e.g. write(2) sending a buffer) is a read by the caller.
TEST(PaperExamples, KernelReadCountsAsReadOfTheCaller) {
  auto done = RunBoth({StartThread(1), SwitchTo(1), Call(kF), KernelRead(kX, 16), Return()});
  EXPECT_EQ(Only(done, kF).rms, 4u);
  EXPECT_EQ(Only(done, kF).trms, 4u);
}

// The slides' RMS walkthrough ("RMS example").
TEST(PaperExamples, SlidesRmsWalkthrough) {
  auto done = RunBoth({StartThread(1), SwitchTo(1), Call(kF), Read(kX), Write(kY), Call(kG),
                       Read(kX), Read(kY), Read(kZ), Write(kW), Return(), Read(kW), Return()});
  EXPECT_EQ(Only(done, kG).rms, 3u);
  EXPECT_EQ(Only(done, kF).rms, 2u);
  EXPECT_EQ(Only(done, kG).trms, 3u);  // single thread: TRMS == RMS
  EXPECT_EQ(Only(done, kF).trms, 2u);
}

// Inequality 1 and cost accounting on a nested, recursive trace.
TEST(PaperExamples, RecursionSelfAndCumulativeCost) {
  Trace trace = {StartThread(1), SwitchTo(1)};
  for (int i = 0; i < 5; ++i) trace.insert(trace.end(), {Call(kF), Cost(10), Read(kX + 4 * i)});
  for (int i = 0; i < 5; ++i) trace.push_back(Return());
  Engine engine;
  auto done = RunEngine(engine, trace);
  ASSERT_EQ(done.size(), 5u);
  for (size_t i = 0; i < done.size(); ++i) {  // innermost completes first
    EXPECT_EQ(done[i].cost, 10u * (i + 1));
    EXPECT_EQ(done[i].self_cost, 10u);
    EXPECT_EQ(done[i].rms, i + 1);
  }
  const RoutineTotals& totals = engine.thread_record(0).profile.routines()[kF];
  EXPECT_EQ(totals.calls, 5u);
  EXPECT_EQ(totals.self_cost, 50u);
  EXPECT_EQ(totals.cumulative_cost, 50u);  // outermost activation only
  EXPECT_EQ(engine.thread_record(0).cost, 50u);
}

}  // namespace
}  // namespace aprof::testing
