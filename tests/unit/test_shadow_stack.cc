// SPDX-License-Identifier: GPL-2.0-or-later
// The shadow stack on its own: the owner search against a linear scan at
// every depth up to several hundred frames (the random engine traces stay
// shallow), and frames pushed into storage that earlier frames used.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/shadow_stack.h"

namespace aprof::testing {
namespace {

// The frame a linear scan from the top finds for a first access of the top
// activation to a cell last accessed at ts.
size_t OwnerByScan(const ShadowStack& stack, Timestamp ts) {
  size_t i = stack.depth();
  while (stack.at(i).ts > ts) --i;
  return i;
}

// Pushes activations with increasing start timestamps, gaps of 1 to 4 (as
// calls between which other events advanced the counter).
void PushTo(ShadowStack& stack, size_t depth, std::mt19937_64& rng, Timestamp& now) {
  while (stack.depth() < depth) {
    now += 1 + static_cast<Timestamp>(rng() % 4);
    stack.Push(static_cast<RoutineId>(stack.depth()), now, /*cost_now=*/0);
  }
}

// Every timestamp below the top's, at every depth from 1 to 400: the parent
// first, then the gallop down from it and the bisection of its last step.
TEST(ShadowStack, OwnerSearchMatchesLinearScan) {
  std::mt19937_64 rng(16);
  ShadowStack stack;
  Timestamp now = kThreadRootTimestamp;
  uint64_t searches = 0, below_parent = 0;
  for (size_t depth = 1; depth <= 400; ++depth) {
    PushTo(stack, depth, rng, now);
    for (Timestamp ts = kThreadRootTimestamp; ts < stack.top().ts; ++ts) {
      const size_t expected = OwnerByScan(stack, ts);
      ASSERT_EQ(&stack.LatestStartedAtOrBefore(ts), &stack.at(expected))
          << "depth " << depth << ", ts " << ts << ", expected frame " << expected;
      ++searches;
      below_parent += expected + 1 < depth;
    }
  }
  // Most searches must go past the parent, into the gallop and bisection.
  EXPECT_GT(below_parent, searches * 9 / 10);
}

// The same after pops and pushes that reuse the stack's storage, with
// timestamps as renumbering leaves them (rewritten in place).
TEST(ShadowStack, OwnerSearchAfterPopsAndRenumbering) {
  std::mt19937_64 rng(17);
  ShadowStack stack;
  Timestamp now = kThreadRootTimestamp;
  for (int round = 0; round < 200; ++round) {
    PushTo(stack, 1 + rng() % 300, rng, now);
    const size_t keep = rng() % (stack.depth() + 1);
    while (stack.depth() > keep) stack.Pop(/*cost_now=*/0);
    if (round % 10 == 9) {  // squeeze the starts together, keeping their order
      for (size_t i = 1; i <= stack.depth(); ++i) stack.at(i).ts = static_cast<Timestamp>(kThreadRootTimestamp + 2 * i);
      now = kThreadRootTimestamp + 2 * static_cast<Timestamp>(stack.depth());
    }
    PushTo(stack, stack.depth() + 1 + rng() % 40, rng, now);
    for (Timestamp ts = kThreadRootTimestamp; ts < stack.top().ts; ++ts)
      ASSERT_EQ(&stack.LatestStartedAtOrBefore(ts), &stack.at(OwnerByScan(stack, ts)))
          << "round " << round << ", depth " << stack.depth() << ", ts " << ts;
  }
}

// A frame is filled in place: whatever a popped frame left in the storage,
// a new one starts with empty partials and counts.
TEST(ShadowStack, PushedFrameStartsEmptyInReusedStorage) {
  ShadowStack stack;
  for (int depth = 1; depth <= 40; ++depth) {
    stack.Push(7, static_cast<Timestamp>(depth + 1), /*cost_now=*/100);
    Frame& frame = stack.top();
    frame.trms = frame.rms = 5;
    frame.induced_by_threads = frame.induced_by_kernel = 3;
    frame.children_cost = 9;
  }
  while (stack.depth() > 0) stack.Pop(/*cost_now=*/200);
  for (int depth = 1; depth <= 40; ++depth) {
    stack.Push(static_cast<RoutineId>(depth), static_cast<Timestamp>(100 + depth),
               /*cost_now=*/300 + depth);
    const Frame& frame = stack.top();
    EXPECT_EQ(frame.trms, 0);
    EXPECT_EQ(frame.rms, 0);
    EXPECT_EQ(frame.induced_by_threads, 0u);
    EXPECT_EQ(frame.induced_by_kernel, 0u);
    EXPECT_EQ(frame.children_cost, 0u);
    EXPECT_EQ(frame.entry_cost, 300u + depth);
    EXPECT_EQ(frame.routine, static_cast<RoutineId>(depth));
    EXPECT_EQ(stack.top().ts, static_cast<Timestamp>(100 + depth));
  }
  // Popping the top returns what it measured and folds it into its parent.
  stack.top().rms = 2;
  stack.top().trms = 3;
  stack.top().induced_by_kernel = 1;
  const ActivationResult done = stack.Pop(/*cost_now=*/400);
  EXPECT_EQ(done.routine, 40u);
  EXPECT_EQ(done.rms, 2u);
  EXPECT_EQ(done.trms, 3u);
  EXPECT_EQ(done.induced_by_kernel, 1u);
  EXPECT_EQ(done.cost, 400u - 340u);
  EXPECT_EQ(stack.top().rms, 2);
  EXPECT_EQ(stack.top().trms, 3);
  EXPECT_EQ(stack.top().induced_by_kernel, 1u);
  EXPECT_EQ(stack.top().children_cost, 60u);
  EXPECT_EQ(stack.top().ts, static_cast<Timestamp>(139));
}

}  // namespace
}  // namespace aprof::testing
