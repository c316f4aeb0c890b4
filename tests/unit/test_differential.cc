// SPDX-License-Identifier: GPL-2.0-or-later
// The engine against the naive algorithm (Figure 10) on thousands of random
// multi-thread traces: every completed activation's TRMS, RMS, induced split
// and costs must match, at every memory resolution.
#include <gtest/gtest.h>

#include "naive_oracle.h"
#include "trace.h"

namespace aprof::testing {
namespace {

std::string Dump(const Trace& trace) {
  std::string out;
  for (const Event& e : trace) out += ToString(e) + "\n";
  return out;
}

// Compares activation by activation and reports the first difference with
// the trace that produced it.
void ExpectSameActivations(const std::vector<ObservedActivation>& engine,
                           const std::vector<ObservedActivation>& oracle, const Trace& trace,
                           uint64_t seed) {
  ASSERT_EQ(engine.size(), oracle.size()) << "seed " << seed;
  for (size_t i = 0; i < engine.size(); ++i) {
    ASSERT_EQ(engine[i], oracle[i]) << "seed " << seed << ", activation " << i
                                    << "\n engine: " << ToString(engine[i])
                                    << "\n oracle: " << ToString(oracle[i]) << "\ntrace:\n"
                                    << Dump(trace);
  }
}

constexpr int kTracesPerResolution = 1000;
// Random traces of 200 to 599 events; each test runs them at the resolution
// of its parameter (the shift drawn with a trace is not used).
constexpr int kMinEvents = 200, kEventSpread = 400;

// What a run of traces exercised, summed over the traces.
struct Exercised {
  uint64_t activations = 0, induced_thread = 0, induced_kernel = 0, trms_above_rms = 0;
  uint64_t fence_reads = 0, full_reads = 0;
  uint64_t made_private = 0, private_shared = 0, orphans_shared = 0, renumberings = 0;
};

// One trace through the engine and the oracle at resolution `shift`.
void CheckTrace(const Trace& trace, uint64_t seed, unsigned shift, Exercised* exercised,
                Timestamp overflow_threshold = kMaxTimestamp) {
  EngineOptions options;
  options.resolution_shift = shift;
  options.overflow_threshold = overflow_threshold;
  Engine engine(options);
  const auto from_engine = RunEngine(engine, trace);
  NaiveOracle oracle(shift);
  const auto from_oracle = oracle.Run(trace);
  ASSERT_TRUE(oracle.consistent()) << "seed " << seed;
  ExpectSameActivations(from_engine, from_oracle, trace, seed);
  exercised->fence_reads += engine.statistics().fence_reads;
  exercised->full_reads += engine.statistics().full_reads;
  exercised->made_private += engine.statistics().chunks_made_private;
  exercised->private_shared += engine.statistics().private_chunks_shared;
  exercised->orphans_shared += engine.statistics().orphans_shared;
  exercised->renumberings += engine.statistics().renumberings;

  for (const ObservedActivation& a : from_engine) {
    ++exercised->activations;
    exercised->induced_thread += a.induced_by_threads;
    exercised->induced_kernel += a.induced_by_kernel;
    exercised->trms_above_rms += a.trms > a.rms;
    ASSERT_GE(a.trms, a.rms) << "inequality 1, seed " << seed;
  }
}

class Differential : public ::testing::TestWithParam<unsigned> {};

TEST_P(Differential, EngineMatchesNaiveAlgorithm) {
  const unsigned shift = GetParam();
  Exercised exercised;
  ForEachRandomTrace(1000003ULL * shift, kTracesPerResolution, kMinEvents, kEventSpread,
                     [&](const SeededTrace& t) { CheckTrace(t.trace, t.seed, shift, &exercised); });
  // The traces must exercise what they are meant to test.
  EXPECT_GT(exercised.activations, 30u * kTracesPerResolution);
  EXPECT_GT(exercised.induced_thread, 10u * kTracesPerResolution);
  EXPECT_GT(exercised.induced_kernel, 5u * kTracesPerResolution);
  EXPECT_GT(exercised.trms_above_rms, 5u * kTracesPerResolution);
  // Reads that end at the read fence although the counter moved since the
  // thread's latest access (re-reads after a callee returned).
  EXPECT_GT(exercised.fence_reads, 5u * kTracesPerResolution);
}

// Traces of few hot cells and long runs of one thread between switches and
// kernel writes, where most re-reads after a return end at the fence: the
// fence's own fast path against the naive algorithm.
TEST_P(Differential, ReadFenceMatchesNaiveAlgorithm) {
  const unsigned shift = GetParam();
  TraceShape shape;
  shape.threads = 2;
  shape.address_span = 16;
  shape.quiet_percent = 75;
  Exercised exercised;
  for (int i = 0; i < kTracesPerResolution / 2; ++i) {
    const uint64_t seed = 3000017ULL * (shift + 1) + i;
    std::mt19937_64 rng(seed);
    shape.events = kMinEvents + static_cast<int>(rng() % kEventSpread);
    CheckTrace(RandomTrace(rng, shape), seed, shift, &exercised);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(exercised.fence_reads, 20u * kTracesPerResolution / 2)
      << exercised.full_reads << " reads in ReadCell";
  EXPECT_GT(exercised.induced_thread + exercised.induced_kernel, 2u * kTracesPerResolution);
}

// Traces where each thread mostly accesses a 64 KiB chunk of its own, which
// the others reach now and then: chunks private to one thread (write times
// kept as bits) that a second thread, a kernel write or an unmap reaches
// later, or whose owner exits first; also with the counter renumbered
// every few dozen events, which leaves private chunks private.
constexpr int kPrivateChunkTraces = 200;  // per threshold; each allocates many chunks

TEST_P(Differential, PrivateChunksMatchNaiveAlgorithm) {
  const unsigned shift = GetParam();
  TraceShape shape;
  shape.own_chunk_percent = 70;
  shape.quiet_percent = 50;
  for (const Timestamp threshold : {kMaxTimestamp, Timestamp{32}}) {
    SCOPED_TRACE(threshold);
    Exercised exercised;
    for (int i = 0; i < kPrivateChunkTraces; ++i) {
      const uint64_t seed = 5000011ULL * (shift + 1) + i;
      std::mt19937_64 rng(seed);
      shape.events = kMinEvents + static_cast<int>(rng() % kEventSpread);
      CheckTrace(RandomTrace(rng, shape), seed, shift, &exercised, threshold);
      if (HasFatalFailure()) return;
    }
    EXPECT_GT(exercised.made_private, 2u * kPrivateChunkTraces);
    // Write times rebuilt from a live owner's slots, and from an exited one's bits.
    EXPECT_GT(exercised.private_shared, 2u * kPrivateChunkTraces);
    EXPECT_GT(exercised.orphans_shared, kPrivateChunkTraces / 10u);
    EXPECT_GT(exercised.induced_thread, 5u * kPrivateChunkTraces);
    if (threshold != kMaxTimestamp) {
      EXPECT_GT(exercised.renumberings, 5u * kPrivateChunkTraces);
    }
  }
}

// With induced reads not tracked (--trms=no), every activation's TRMS is its
// RMS, and both equal the naive algorithm's RMS.
TEST_P(Differential, RmsOnlyEngineMatchesNaiveRms) {
  const unsigned shift = GetParam();
  ForEachRandomTrace(7000003ULL * shift, kTracesPerResolution / 4, kMinEvents, kEventSpread,
                     [&](const SeededTrace& t) {
    const uint64_t seed = t.seed;
    const Trace& trace = t.trace;

    EngineOptions options;
    options.resolution_shift = shift;
    options.track_induced = false;
    Engine engine(options);
    std::vector<ObservedActivation> expected = NaiveOracle(shift).Run(trace);
    for (ObservedActivation& a : expected) {
      a.trms = a.rms;
      a.induced_by_threads = a.induced_by_kernel = 0;
    }
    ExpectSameActivations(RunEngine(engine, trace), expected, trace, seed);
  });
}

INSTANTIATE_TEST_SUITE_P(AllResolutions, Differential, ::testing::Values(0u, 1u, 2u, 3u, 4u),
                         [](const ::testing::TestParamInfo<unsigned>& info) {
                           return std::to_string(1u << info.param) + "ByteCells";
                         });

}  // namespace
}  // namespace aprof::testing
