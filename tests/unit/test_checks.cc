// SPDX-License-Identifier: GPL-2.0-or-later
// The internal checks (core/platform.h): a failed comparison names its
// condition and prints both operands; a passing one evaluates each operand
// once; the engine's own checks fire where its callers break an invariant,
// and its debug-only checks are on in the unit tests.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include "core/internal_vector.h"
#include "core/platform.h"
#include "core/shadow_stack.h"

namespace aprof {
namespace {

TEST(ChecksDeathTest, FailedComparisonPrintsBothOperands) {
  const u64 written = 7, limit = 3;
  EXPECT_DEATH(APROF_CHECK_LT(written, limit),
               "internal check failed at .*test_checks.cc:[0-9]+: written < limit \\(7 vs 3\\)");
  const long long trms = -2;
  EXPECT_DEATH(APROF_CHECK_GE(trms, 0), "trms >= 0 \\(-2 vs 0\\)");
}

TEST(Checks, PassingComparisonEvaluatesEachOperandOnce) {
  int left_evaluations = 0, right_evaluations = 0;
  APROF_CHECK_EQ(++left_evaluations, ++right_evaluations);
  APROF_CHECK_LE(++left_evaluations, ++right_evaluations);
  EXPECT_EQ(left_evaluations, 2);
  EXPECT_EQ(right_evaluations, 2);
}

// The unit tests build the engine with its debug-only checks.
TEST(ChecksDeathTest, DebugChecksAreOnInTheUnitTests) {
  InternalVector<u32> values;
  values.push_back(5);
  EXPECT_EQ(values[0], 5u);
  EXPECT_DEATH(values[1], "i < size_ \\(1 vs 1\\)");
  values.pop_back();
  EXPECT_DEATH(values.back(), "size_ > 0u \\(0 vs 0\\)");
}

TEST(ChecksDeathTest, PopOfAnEmptyShadowStackNamesTheDepth) {
  ShadowStack stack;
  EXPECT_DEATH(stack.Pop(/*cost_now=*/0), "depth\\(\\) > 0u \\(0 vs 0\\)");
}

}  // namespace
}  // namespace aprof
