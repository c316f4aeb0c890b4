// SPDX-License-Identifier: GPL-2.0-or-later
// The slow-path event counters of --stats=yes (APROF_STATS, on in the unit
// tests): exact counts on accesses whose path is known.
#include <gtest/gtest.h>

#include "core/engine.h"
#include "core/shadow_memory.h"

namespace aprof::testing {
namespace {

static_assert(kCountEvents, "the unit tests are built with APROF_STATS");

// The chunk cache is direct-mapped: cycling through two chunks whose
// indexes share an entry misses every time; revisiting a cached chunk does
// not.
TEST(EventCounters, ChunkCacheMissesAreCountedExactly) {
  ShadowAllocator allocator(/*resolution_shift=*/2);
  ShadowMemory memory(allocator, ShadowKind::kThread);
  const uptr cells_per_chunk = memory.cells_per_chunk();
  *memory.Slot(0) = 1;
  EXPECT_EQ(memory.cache_misses(), 1u);
  *memory.Slot(1) = 1;
  *memory.Slot(cells_per_chunk - 1) = 1;
  EXPECT_EQ(memory.cache_misses(), 1u) << "same chunk: cached";
  for (int round = 0; round < 3; ++round)
    for (uptr i = 0; i < 2; ++i)
      *memory.Slot(i * ShadowMemory::kCachedChunks * cells_per_chunk) = 1;  // same entry
  EXPECT_EQ(memory.cache_misses(), 1u + 6u - 1u) << "chunk 0 was cached before the first round";
  EXPECT_EQ(memory.Get(5 * cells_per_chunk), 0u);  // never allocated: a miss, cached as absent
  EXPECT_EQ(memory.Get(5 * cells_per_chunk + 1), 0u);
  EXPECT_EQ(memory.cache_misses(), 6u + 1u);
  *memory.Slot(5 * cells_per_chunk) = 1;  // an absent entry is a miss for a write
  EXPECT_EQ(memory.cache_misses(), 6u + 2u);
  EXPECT_EQ(memory.Get(5 * cells_per_chunk), 1u);
  EXPECT_EQ(memory.cache_misses(), 6u + 2u);
}

// Reads of cells not accessed at the counter value go to ReadCell; re-reads
// at the same counter value do not. The owner search runs for a first read
// by an activation of a cell its thread accessed before (in another
// activation).
TEST(EventCounters, FullReadsAndOwnerSearches) {
  Engine engine;
  engine.StartThread(1);
  engine.SwitchTo(1);
  engine.Call(1);
  engine.Read(0x1000, 4);  // first read, never accessed: no search
  engine.Read(0x1000, 4);  // same counter value: ends at the own-slot check
  engine.Call(2);
  engine.Read(0x1000, 4);  // first read by routine 2: its owner is routine 1
  engine.Read(0x2000, 8);  // two cells, both new
  engine.Return();
  engine.Return();
  const EngineStatistics& stats = engine.statistics();
  EXPECT_EQ(stats.cell_reads, 5u);
  EXPECT_EQ(stats.full_reads, 4u);
  EXPECT_EQ(stats.unchanged_reads, 0u);
  EXPECT_EQ(stats.owner_searches, 1u);
  EXPECT_EQ(engine.thread_cache_misses(), 1u) << "0x1000 and 0x2000 share a chunk";
  EXPECT_EQ(engine.global_cache_misses(), 1u) << "never written: cached as absent";
  engine.ExitThread(1);
  EXPECT_EQ(engine.thread_cache_misses(), 1u) << "kept after the thread exits";
}

// A re-read after a callee returned is no first read of the caller and
// cannot be induced: it ends at the read fence. After a switch away and
// back it cannot end there (another thread may have written the cell), and
// ReadCell then finds that nothing changes.
TEST(EventCounters, ReadsEndAtTheFence) {
  Engine engine;
  engine.SwitchTo(1);
  engine.Call(1);
  engine.Read(0x1000, 4);
  engine.Call(2);
  engine.Return();
  engine.Read(0x1000, 4);  // ends at the fence
  engine.SwitchTo(2);
  engine.SwitchTo(1);
  engine.Read(0x1000, 4);  // ReadCell: not induced, not a first read
  const EngineStatistics& stats = engine.statistics();
  EXPECT_EQ(stats.cell_reads, 3u);
  EXPECT_EQ(stats.full_reads, 2u);
  EXPECT_EQ(stats.unchanged_reads, 1u);
}

}  // namespace
}  // namespace aprof::testing
