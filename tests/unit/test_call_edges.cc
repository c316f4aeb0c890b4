// SPDX-License-Identifier: GPL-2.0-or-later
// Caller-to-callee edges of the profile: exact call counts and inclusive
// costs for calls, recursion, coroutine runs and collection switched off.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include "core/engine.h"

namespace aprof {
namespace {

enum : RoutineId { kA = 1, kB, kC, kMain };

const CallEdgeTotals* EdgeOf(const Engine& engine, RoutineId caller, RoutineId callee) {
  return engine.thread_record(0).profile.edges().Find({caller, callee});
}

// Calls `callee` from the current top, which costs `cost` inside it.
void CallLeaf(Engine& engine, RoutineId callee, u64 cost) {
  engine.Call(callee);
  engine.AddCost(cost);
  engine.Return();
}

TEST(CallEdges, CountCallsAndInclusiveCostPerCallerCalleePair) {
  Engine engine;
  engine.SwitchTo(1);
  engine.Call(kMain);
  engine.Call(kA);
  for (int i = 0; i < 3; ++i) CallLeaf(engine, kB, 2);
  engine.Return();
  engine.Call(kC);
  for (int i = 0; i < 5; ++i) CallLeaf(engine, kB, 7);
  engine.Return();
  engine.ExitAllThreads();

  const CallEdgeTotals* ab = EdgeOf(engine, kA, kB);
  const CallEdgeTotals* cb = EdgeOf(engine, kC, kB);
  ASSERT_NE(ab, nullptr);
  ASSERT_NE(cb, nullptr);
  EXPECT_EQ(ab->calls, 3u);
  EXPECT_EQ(ab->inclusive_cost, 6u);
  EXPECT_EQ(cb->calls, 5u);
  EXPECT_EQ(cb->inclusive_cost, 35u);
  EXPECT_EQ(EdgeOf(engine, kMain, kA)->inclusive_cost, 6u);
  EXPECT_EQ(EdgeOf(engine, kMain, kC)->calls, 1u);
  // main was called by no routine: no edge into it.
  EXPECT_EQ(engine.thread_record(0).profile.edges().size(), 4u);
}

TEST(CallEdges, RecursionIsAnEdgeFromTheRoutineToItself) {
  Engine engine;
  engine.SwitchTo(1);
  for (int depth = 0; depth < 4; ++depth) {
    engine.Call(kA);
    engine.AddCost(1);
  }
  for (int depth = 0; depth < 4; ++depth) engine.Return();
  engine.ExitAllThreads();
  const CallEdgeTotals* aa = EdgeOf(engine, kA, kA);
  ASSERT_NE(aa, nullptr);
  EXPECT_EQ(aa->calls, 3u);
  // Nested activations cost 1, 2 and 3 (cumulative): each counts.
  EXPECT_EQ(aa->inclusive_cost, 6u);
  EXPECT_EQ(engine.thread_record(0).profile.edges().size(), 1u);
}

TEST(CallEdges, NotRecordedWhileCollectionIsOff) {
  Engine engine;
  engine.SwitchTo(1);
  engine.Call(kA);
  engine.set_recording(false);
  CallLeaf(engine, kB, 1);
  engine.set_recording(true);
  CallLeaf(engine, kC, 1);
  engine.ExitAllThreads();
  EXPECT_EQ(EdgeOf(engine, kA, kB), nullptr);
  ASSERT_NE(EdgeOf(engine, kA, kC), nullptr);
  EXPECT_EQ(EdgeOf(engine, kA, kC)->calls, 1u);
}

TEST(CallEdges, SuspendedRunsMakeOneCallOfTheirLastCaller) {
  Engine engine;
  engine.SwitchTo(1);
  engine.Call(kA);
  engine.Call(kB);  // a coroutine's frame, first run
  engine.AddCost(3);
  const ActivationResult first_run = engine.Suspend();
  engine.Return();  // kA completes
  engine.Call(kC);
  engine.Call(kB);  // resumed from kC, second run
  engine.AddCost(4);
  engine.Return(first_run);
  engine.Return();
  engine.ExitAllThreads();
  EXPECT_EQ(EdgeOf(engine, kA, kB), nullptr);
  ASSERT_NE(EdgeOf(engine, kC, kB), nullptr);
  EXPECT_EQ(EdgeOf(engine, kC, kB)->calls, 1u);
  EXPECT_EQ(EdgeOf(engine, kC, kB)->inclusive_cost, 7u);
}

}  // namespace
}  // namespace aprof
