// SPDX-License-Identifier: GPL-2.0-or-later
// The consistency checks behind --sanity-level: each invariant of the
// shadow stack, broken on purpose, is reported with its frame; the engine
// passes every check, shadow walk included, after every event of random
// traces, with and without renumbering; chunk caches stay in step with
// their tables when chunks are given back.
#include <string>

#include <gtest/gtest.h>

#include "core/engine.h"
#include "core/shadow_stack.h"
#include "trace.h"

namespace aprof::testing {
namespace {

std::string Describe(const Inconsistency& found) {
  if (!found) return "consistent";
  return std::string(found.what) + " (thread " + std::to_string(found.thread) + ", frame " +
         std::to_string(found.frame) + ")";
}

// A stack of three pending activations at timestamps 10, 20, 30, entered
// at costs 5, 7, 9, and the counter and clock a consistent stack allows.
constexpr Timestamp kNow = 40;
constexpr u64 kCostNow = 100;
void PushThree(ShadowStack& stack) {
  stack.Push(/*routine=*/1, 10, 5);
  stack.Push(2, 20, 7);
  stack.Push(3, 30, 9);
}

void ExpectBroken(const ShadowStack& stack, const char* what, size_t frame,
                  Timestamp now = kNow, u64 cost_now = kCostNow) {
  const Inconsistency found = stack.FindInconsistency(now, cost_now);
  ASSERT_TRUE(found) << "expected: " << what;
  EXPECT_STREQ(found.what, what);
  EXPECT_EQ(found.frame, frame) << Describe(found);
}

TEST(ShadowStackSanity, ConsistentStacksPass) {
  ShadowStack stack;
  EXPECT_FALSE(stack.FindInconsistency(kThreadRootTimestamp, 0)) << "a new stack";
  PushThree(stack);
  stack.at(2).rms = -2;  // given up to frame 3, which counts them
  stack.at(3).rms = 2;
  stack.at(3).trms = 3;  // one more: induced
  stack.at(1).children_cost = 9 - 5;
  EXPECT_FALSE(stack.FindInconsistency(kNow, kCostNow)) << Describe(stack.FindInconsistency(kNow, kCostNow));
  EXPECT_FALSE(stack.FindInconsistency(30, 9)) << "the top started at the counter and the clock";
}

// One invariant broken on a consistent stack of three activations (or a
// counter or clock it no longer fits), and the frame a check must name.
struct BrokenInvariant {
  const char* what;
  size_t frame;
  void (*breaks)(ShadowStack& stack);
  Timestamp now = kNow;
  u64 cost_now = kCostNow;
};

TEST(ShadowStackSanity, EachBrokenInvariantIsNamedWithItsFrame) {
  const BrokenInvariant cases[] = {
      {"the root's timestamp changed", 0, [](ShadowStack& s) { s.at(0).ts = 2; }},
      {"timestamps do not increase upwards", 2,
       [](ShadowStack& s) { s.at(2).ts = 10; }},  // equal to its parent's
      {"a timestamp is above the counter", 3, [](ShadowStack&) {}, /*now=*/29},
      {"entry costs decrease upwards", 3, [](ShadowStack& s) { s.at(3).entry_cost = 6; }},
      {"an entry cost is above the cost clock", 3, [](ShadowStack&) {}, kNow, /*cost_now=*/8},
      {"completed children cost more than their parent ran", 2,
       [](ShadowStack& s) { s.at(2).children_cost = kCostNow - 7 + 1; }},
      {"a partial TRMS is below its partial RMS", 1, [](ShadowStack& s) { s.at(1).rms = 1; }},
      {"a pending activation's RMS is negative", 2,  // nothing above gives it back
       [](ShadowStack& s) { s.at(2).rms = s.at(2).trms = -1; }},
  };
  for (const BrokenInvariant& broken : cases) {
    SCOPED_TRACE(broken.what);
    ShadowStack stack;
    PushThree(stack);
    broken.breaks(stack);
    ExpectBroken(stack, broken.what, broken.frame, broken.now, broken.cost_now);
  }
}

// The checks after every event of random multi-thread traces: the engine
// keeps its invariants through calls, returns, thread exits, unmaps and
// (with a tiny threshold) renumbering at every few events.
void ExpectConsistentThroughout(Timestamp overflow_threshold, uint64_t first_seed, int traces) {
  uint64_t renumberings = 0;
  ForEachRandomTrace(first_seed, traces, 200, 200, [&](const SeededTrace& t) {
    EngineOptions options;
    options.resolution_shift = t.resolution_shift;
    options.overflow_threshold = overflow_threshold;
    options.track_sources = t.seed % 2 == 0;  // writer tags: a third shadow memory
    Engine engine(options);
    RunEngine(engine, t.trace, [&](size_t i) {
      const Inconsistency cheap = engine.FindCheapInconsistency();
      ASSERT_FALSE(cheap) << Describe(cheap) << ", seed " << t.seed << ", after event " << i
                          << ": " << ToString(t.trace[i]);
      // The shadow walk reads every slot of every chunk: every 16 events.
      const Inconsistency full = engine.FindInconsistency(/*walk_shadow=*/i % 16 == 15);
      ASSERT_FALSE(full) << Describe(full) << ", seed " << t.seed << ", after event " << i
                         << ": " << ToString(t.trace[i]);
    });
    renumberings += engine.statistics().renumberings;
  });
  if (overflow_threshold < kMaxTimestamp) {
    EXPECT_GT(renumberings, 10u * traces);
  }
}

TEST(EngineSanity, ConsistentAfterEveryEvent) { ExpectConsistentThroughout(kMaxTimestamp, 424242, 200); }

TEST(EngineSanity, ConsistentAfterEveryEventWithRenumbering) {
  ExpectConsistentThroughout(/*overflow_threshold=*/32, 535353, 200);
}

// Forget() gives chunks back: an entry of the chunk cache left pointing at
// one would send the next access to memory that another shadow may own.
TEST(ShadowMemorySanity, ChunkCacheFollowsChunksGivenBack) {
  ShadowAllocator allocator(/*resolution_shift=*/2);
  ShadowMemory memory(allocator, ShadowKind::kThread);
  const uptr cells_per_chunk = memory.cells_per_chunk();
  for (uptr chunk = 0; chunk < 20; ++chunk) *memory.Slot(chunk * cells_per_chunk) = 7;
  EXPECT_TRUE(memory.CacheAgreesWithTables());
  memory.Forget(0, 20 * cells_per_chunk - 1);  // whole chunks: all given back
  EXPECT_EQ(memory.allocated_bytes(), 0u);
  EXPECT_TRUE(memory.CacheAgreesWithTables());
  *memory.Slot(5) = 3;  // the same chunk index again
  EXPECT_TRUE(memory.CacheAgreesWithTables());
}

// The shadow walk finds a time above the limit wherever it is, under the
// mask (the global shadow's kernel bit is not time).
TEST(ShadowMemorySanity, WalkFindsASlotAboveTheLimit) {
  ShadowAllocator allocator(/*resolution_shift=*/2);
  ShadowMemory memory(allocator, ShadowKind::kGlobalWrites);
  const uptr cells_per_chunk = memory.cells_per_chunk();
  *memory.Slot(3) = 40;
  *memory.Slot(7 * cells_per_chunk + cells_per_chunk - 1) = 40 | kKernelWriteBit;
  EXPECT_TRUE(memory.AllSlotsAtMost(kTimeMask, 40));
  EXPECT_FALSE(memory.AllSlotsAtMost(~Timestamp{0}, 40)) << "the kernel bit, unmasked";
  *memory.Slot(7 * cells_per_chunk + cells_per_chunk - 1) = 41;  // the last slot of a chunk
  EXPECT_FALSE(memory.AllSlotsAtMost(kTimeMask, 40));
}

}  // namespace
}  // namespace aprof::testing
