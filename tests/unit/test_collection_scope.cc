// SPDX-License-Identifier: GPL-2.0-or-later
// What the engine records while a run is profiled in parts: --collect-inside
// (only activations with a marked routine pending below them, or of one) and
// zeroing (the `zero` monitor command: the recorded profile is forgotten,
// pending activations complete whole and outermost as before).
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include "core/engine.h"

namespace aprof {
namespace {

enum : RoutineId { kMain = 1, kOutside, kInside, kLeaf };

const RoutineTotals& TotalsOf(const Engine& engine, RoutineId routine) {
  return engine.thread_record(0).profile.routines()[routine];
}

void CallLeaf(Engine& engine, RoutineId callee, u64 cost) {
  engine.Call(callee);
  engine.AddCost(cost);
  engine.Return();
}

// main calls kLeaf directly twice, then kInside, which calls kLeaf 3 times
// and kInside again (recursion), which calls kLeaf once.
void RunScopedProgram(Engine& engine) {
  engine.SwitchTo(1);
  engine.Call(kMain);
  CallLeaf(engine, kLeaf, 1);
  CallLeaf(engine, kLeaf, 1);
  engine.Call(kInside);
  for (int i = 0; i < 3; ++i) CallLeaf(engine, kLeaf, 2);
  engine.Call(kInside);
  CallLeaf(engine, kLeaf, 5);
  engine.Return();
  engine.Return();
  CallLeaf(engine, kOutside, 1);
  engine.ExitAllThreads();
}

TEST(CollectInside, RecordsTheMarkedRoutineAndWhatRunsBelowIt) {
  Engine engine;
  engine.CollectOnlyInside();
  engine.MarkCollectInside(kInside);
  RunScopedProgram(engine);
  EXPECT_EQ(TotalsOf(engine, kLeaf).calls, 4u) << "the leaves below kInside only";
  EXPECT_EQ(TotalsOf(engine, kLeaf).self_cost, 11u);
  EXPECT_EQ(TotalsOf(engine, kInside).calls, 2u) << "kInside itself, nested one too";
  EXPECT_EQ(TotalsOf(engine, kInside).cumulative_cost, 11u) << "outermost activation";
  EXPECT_EQ(TotalsOf(engine, kMain).calls, 0u);
  EXPECT_EQ(TotalsOf(engine, kOutside).calls, 0u) << "after kInside returned";
}

TEST(CollectInside, WithoutMarksEverythingIsRecorded) {
  Engine engine;
  RunScopedProgram(engine);
  EXPECT_EQ(TotalsOf(engine, kLeaf).calls, 6u);
  EXPECT_EQ(TotalsOf(engine, kMain).calls, 1u);
  EXPECT_EQ(TotalsOf(engine, kOutside).calls, 1u);
}

TEST(CollectInside, NothingIsRecordedBeforeAMarkedRoutineIsMet) {
  Engine engine;
  engine.CollectOnlyInside();
  RunScopedProgram(engine);
  EXPECT_EQ(TotalsOf(engine, kLeaf).calls, 0u);
  EXPECT_EQ(TotalsOf(engine, kMain).calls, 0u);
}

TEST(CollectInside, CollectionOffStillWins) {
  Engine engine;
  engine.CollectOnlyInside();
  engine.MarkCollectInside(kInside);
  engine.set_recording(false);
  RunScopedProgram(engine);
  EXPECT_EQ(TotalsOf(engine, kLeaf).calls, 0u);
  EXPECT_EQ(TotalsOf(engine, kInside).calls, 0u);
}

TEST(CollectInside, InputSizesStayExactInsideTheScope) {
  // kInside reads 3 cells its caller read before: still its input.
  Engine engine;
  engine.CollectOnlyInside();
  engine.MarkCollectInside(kInside);
  engine.SwitchTo(1);
  engine.Call(kMain);
  for (uptr cell = 0; cell < 3; ++cell) engine.Read(0x1000 + 4 * cell, 4);
  engine.Call(kInside);
  for (uptr cell = 0; cell < 3; ++cell) engine.Read(0x1000 + 4 * cell, 4);
  engine.Return();
  engine.ExitAllThreads();
  u64 size = 0;
  engine.thread_record(0).profile.ForEachTuple(InputMetric::kRms,
                                               [&](const ProfileKey& key, const InputSizeTuple&) {
    if (key.routine == kInside) size = key.input_size;
  });
  EXPECT_EQ(size, 3u);
}

TEST(ZeroProfiles, ForgetsWhatCompletedAndKeepsPendingActivationsWhole) {
  Engine engine;
  engine.SwitchTo(1);
  engine.Call(kMain);
  engine.AddCost(10);
  CallLeaf(engine, kLeaf, 3);
  engine.Call(kInside);
  engine.AddCost(4);
  engine.ZeroProfiles();
  EXPECT_EQ(TotalsOf(engine, kLeaf).calls, 0u);
  EXPECT_EQ(engine.thread_record(0).profile.edges().size(), 0u);
  engine.AddCost(6);
  engine.Return();  // kInside: cost 10, started before the zero
  engine.Return();  // main
  engine.ExitAllThreads();
  EXPECT_EQ(TotalsOf(engine, kLeaf).calls, 0u);
  EXPECT_EQ(TotalsOf(engine, kInside).calls, 1u);
  EXPECT_EQ(TotalsOf(engine, kInside).cumulative_cost, 10u);
  EXPECT_EQ(TotalsOf(engine, kMain).calls, 1u);
  EXPECT_EQ(TotalsOf(engine, kMain).cumulative_cost, 23u) << "the whole activation";
}

TEST(ZeroProfiles, TotalsCountOnlyWhatCompletesAfterTheZero) {
  Engine engine;
  engine.SwitchTo(1);
  engine.Call(kMain);
  CallLeaf(engine, kLeaf, 3);
  engine.ZeroProfiles();
  CallLeaf(engine, kLeaf, 5);
  const RoutineTotals& leaf = TotalsOf(engine, kLeaf);
  EXPECT_EQ(leaf.calls, 1u);
  EXPECT_EQ(leaf.self_cost, 5u);
  EXPECT_EQ(leaf.cumulative_cost, 5u);
  const CallEdgeTotals* edge = engine.thread_record(0).profile.edges().Find({kMain, kLeaf});
  ASSERT_NE(edge, nullptr);
  EXPECT_EQ(edge->calls, 1u);
  EXPECT_EQ(edge->inclusive_cost, 5u);
}

TEST(ZeroProfiles, RecursionStaysOutermostAcrossAZero) {
  // A recursive routine pending across the zero: its outer activation is
  // still the one whose cost counts as cumulative, once.
  Engine engine;
  engine.SwitchTo(1);
  engine.Call(kInside);
  engine.AddCost(1);
  engine.ZeroProfiles();
  engine.Call(kInside);
  engine.AddCost(2);
  engine.Return();
  engine.Return();
  engine.ExitAllThreads();
  EXPECT_EQ(TotalsOf(engine, kInside).calls, 2u);
  EXPECT_EQ(TotalsOf(engine, kInside).cumulative_cost, 3u);
}

}  // namespace
}  // namespace aprof
