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

class Differential : public ::testing::TestWithParam<unsigned> {};

TEST_P(Differential, EngineMatchesNaiveAlgorithm) {
  const unsigned shift = GetParam();
  uint64_t activations = 0, induced_thread = 0, induced_kernel = 0, trms_above_rms = 0;
  ForEachRandomTrace(1000003ULL * shift, kTracesPerResolution, kMinEvents, kEventSpread,
                     [&](const SeededTrace& t) {
    const uint64_t seed = t.seed;
    const Trace& trace = t.trace;

    EngineOptions options;
    options.resolution_shift = shift;
    Engine engine(options);
    const auto from_engine = RunEngine(engine, trace);
    NaiveOracle oracle(shift);
    const auto from_oracle = oracle.Run(trace);
    ASSERT_TRUE(oracle.consistent()) << "seed " << seed;
    ExpectSameActivations(from_engine, from_oracle, trace, seed);

    for (const ObservedActivation& a : from_engine) {
      ++activations;
      induced_thread += a.induced_by_threads;
      induced_kernel += a.induced_by_kernel;
      trms_above_rms += a.trms > a.rms;
      ASSERT_GE(a.trms, a.rms) << "inequality 1, seed " << seed;
    }
  });
  // The traces must exercise what they are meant to test.
  EXPECT_GT(activations, 30u * kTracesPerResolution);
  EXPECT_GT(induced_thread, 10u * kTracesPerResolution);
  EXPECT_GT(induced_kernel, 5u * kTracesPerResolution);
  EXPECT_GT(trms_above_rms, 5u * kTracesPerResolution);
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
