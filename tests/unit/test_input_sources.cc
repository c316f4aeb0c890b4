// SPDX-License-Identifier: GPL-2.0-or-later
// --input-sources: who wrote the cells behind each induced read. The engine
// against the naive oracle on random traces, through renumbering, and on
// the hand-written programs of issue 14 whose answers are exact.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include "naive_oracle.h"
#include "trace.h"

namespace aprof::testing {
namespace {

EngineOptions WithSources(unsigned shift = 2) {
  EngineOptions options;
  options.resolution_shift = shift;
  options.track_sources = true;
  return options;
}

SourceCounts SourcesOf(const Trace& trace, const EngineOptions& options) {
  Engine engine(options);
  RunEngine(engine, trace);
  return EngineSources(engine);
}

SourceCount FromThread(uint32_t thread, RoutineId consumer, uint32_t producer, RoutineId routine) {
  return {thread, consumer, false, producer, routine};
}

SourceCount FromSyscall(uint32_t thread, RoutineId consumer, uint32_t syscall) {
  return {thread, consumer, true, 0, syscall};
}

TEST(InputSources, EngineMatchesNaiveAlgorithm) {
  uint64_t counted = 0;
  ForEachRandomTrace(4242, 300, 300, 300, [&](const SeededTrace& t) {
    Engine with(WithSources(t.resolution_shift));
    EngineOptions plain_options;
    plain_options.resolution_shift = t.resolution_shift;
    Engine plain(plain_options);
    const auto activations = RunEngine(with, t.trace);
    // Tracking sources changes no input size.
    ASSERT_EQ(activations, RunEngine(plain, t.trace)) << "seed " << t.seed;

    NaiveOracle oracle(t.resolution_shift);
    oracle.Run(t.trace);
    const SourceCounts engine_sources = EngineSources(with);
    ASSERT_EQ(engine_sources, oracle.sources())
        << "seed " << t.seed << "\nengine:\n" << ToString(engine_sources) << "oracle:\n"
        << ToString(oracle.sources());
    for (const auto& [key, reads] : engine_sources) counted += reads;
  });
  EXPECT_GT(counted, 5000u);  // the traces do exercise induced reads
}

TEST(InputSources, RenumberingChangesNoSource) {
  uint64_t renumberings = 0;
  ForEachRandomTrace(99, 150, 300, 300, [&](const SeededTrace& t) {
    EngineOptions often = WithSources(t.resolution_shift);
    often.overflow_threshold = 64;
    Engine renumbered(often);
    RunEngine(renumbered, t.trace);
    renumberings += renumbered.statistics().renumberings;
    const SourceCounts expected = SourcesOf(t.trace, WithSources(t.resolution_shift));
    ASSERT_FALSE(expected.empty()) << "seed " << t.seed;
    ASSERT_EQ(EngineSources(renumbered), expected) << "seed " << t.seed;
  });
  EXPECT_GT(renumberings, 150u);
}

// The paper's producer/consumer: routine 3 of thread 1 writes one cell n
// times, routine 7 of thread 2 reads it after each write.
TEST(InputSources, ConsumerReadsEverythingFromTheProducer) {
  constexpr int kItems = 50;
  Trace trace = {StartThread(1), StartThread(2), SwitchTo(1), Call(3), SwitchTo(2), Call(7)};
  for (int i = 0; i < kItems; ++i) {
    trace.insert(trace.end(), {SwitchTo(1), Write(0x1000), SwitchTo(2), Read(0x1000)});
  }
  const SourceCounts expected = {{FromThread(2, 7, 1, 3), kItems}};
  EXPECT_EQ(SourcesOf(trace, WithSources()), expected);
}

// A read() loop: the kernel fills a buffer for system call 0, the routine
// reads it.
TEST(InputSources, ReadLoopInputComesFromTheSystemCall) {
  constexpr int kCalls = 20;
  constexpr uint32_t kRead = 0;
  Trace trace = {StartThread(1), SwitchTo(1), Call(5)};
  for (int i = 0; i < kCalls; ++i) trace.insert(trace.end(), {KernelWrite(0x2000, 16, kRead), Read(0x2000, 16)});
  const SourceCounts expected = {{FromSyscall(1, 5, kRead), kCalls * 4}};
  EXPECT_EQ(SourcesOf(trace, WithSources()), expected);
}

// Two producers (routines 3 and 4 of threads 1 and 2) fill the two halves
// of a 64-cell buffer, round after round; routine 7 of thread 3 reads all of
// it after each round: exactly half of its input comes from each.
TEST(InputSources, TwoProducersSplitTheBufferInHalves) {
  constexpr int kRounds = 10, kCells = 64;
  Trace trace = {StartThread(1), StartThread(2), StartThread(3),
                 SwitchTo(1), Call(3), SwitchTo(2), Call(4), SwitchTo(3), Call(7)};
  for (int round = 0; round < kRounds; ++round) {
    trace.push_back(SwitchTo(1));
    for (int c = 0; c < kCells / 2; ++c) trace.push_back(Write(0x4000 + 4 * c));
    trace.push_back(SwitchTo(2));
    for (int c = kCells / 2; c < kCells; ++c) trace.push_back(Write(0x4000 + 4 * c));
    trace.push_back(SwitchTo(3));
    trace.push_back(Read(0x4000, 4 * kCells));
  }
  const SourceCounts expected = {{FromThread(3, 7, 1, 3), kRounds * kCells / 2},
                                 {FromThread(3, 7, 2, 4), kRounds * kCells / 2}};
  EXPECT_EQ(SourcesOf(trace, WithSources()), expected);
}

// Host thread id 2 is reused: the two threads behind it are serials 2 and 3,
// and each keeps its own writes.
TEST(InputSources, ReusedThreadIdDoesNotMergeTwoThreads) {
  const Trace trace = {StartThread(1), SwitchTo(2), Call(3), Write(0x1000), ExitThread(2),
                       SwitchTo(2), Call(3), Write(0x1004), Write(0x1008), ExitThread(2),
                       SwitchTo(1), Call(9), Read(0x1000, 12)};
  const SourceCounts expected = {{FromThread(1, 9, 2, 3), 1}, {FromThread(1, 9, 3, 3), 2}};
  EXPECT_EQ(SourcesOf(trace, WithSources()), expected);
}

// Outside every routine, on both sides.
TEST(InputSources, ReadsAndWritesOutsideRoutines) {
  const Trace trace = {StartThread(1), StartThread(2), SwitchTo(1), Write(0x1000),
                       SwitchTo(2), Read(0x1000)};
  const SourceCounts expected = {{FromThread(2, kNoRoutine, 1, kNoRoutine), 1}};
  EXPECT_EQ(SourcesOf(trace, WithSources()), expected);
}

// In a fork()ed child the survivor is thread 1; what the parent's other
// threads wrote is attributed to thread 0.
TEST(InputSources, ForkRenumbersProducerThreads) {
  Engine engine(WithSources());
  engine.SwitchTo(1);
  engine.Call(3);
  engine.WriteTagged(0x1000, 4);
  engine.SwitchTo(2);
  engine.Call(4);
  engine.WriteTagged(0x1004, 4);
  engine.ResetAfterFork(2);  // thread 2 (serial 2) survives as serial 1
  engine.SwitchTo(2);
  engine.Call(5);
  engine.Read(0x1000, 8);
  engine.SwitchTo(3);
  engine.Call(6);
  engine.Read(0x1004, 4);
  engine.ExitAllThreads();
  const SourceCounts expected = {{FromThread(1, 5, 0, 3), 1}, {FromThread(2, 6, 1, 4), 1}};
  EXPECT_EQ(EngineSources(engine), expected);
}

}  // namespace
}  // namespace aprof::testing
