// SPDX-License-Identifier: GPL-2.0-or-later
// Shadow memory at the extremes of the address space, at every resolution,
// across chunk boundaries; the region allocator under it; forgetting
// unmapped memory; thread-id reuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "core/shadow_memory.h"
#include "trace.h"

namespace aprof::testing {
namespace {

constexpr uptr kTop = ShadowMemory::kAddressLimit;  // 2^47
constexpr uptr kChunk = uptr{1} << ShadowMemory::kChunkAddressBits;

class ShadowMemoryAtResolution : public ::testing::TestWithParam<unsigned> {};

TEST_P(ShadowMemoryAtResolution, ExtremeCellsAreDistinctAndPersistent) {
  const unsigned shift = GetParam();
  ShadowAllocator allocator(shift);
  ShadowMemory memory(allocator, ShadowKind::kThread);
  const uptr last_cell = (kTop - 1) >> shift;
  EXPECT_EQ(memory.cell_limit(), last_cell + 1);
  EXPECT_EQ(memory.Get(0), 0u);
  EXPECT_EQ(memory.Get(last_cell), 0u);
  EXPECT_EQ(memory.allocated_bytes(), 0u) << "Get must not allocate";

  *memory.Slot(0) = 11;
  *memory.Slot(last_cell) = 22;
  *memory.Slot(last_cell - 1) = 33;
  EXPECT_EQ(memory.Get(0), 11u);
  EXPECT_EQ(memory.Get(last_cell), 22u);
  EXPECT_EQ(memory.Get(last_cell - 1), 33u);
  EXPECT_EQ(memory.Get(1), 0u);
}

TEST_P(ShadowMemoryAtResolution, NeighbouringChunksAreIndependent) {
  const unsigned shift = GetParam();
  ShadowAllocator allocator(shift);
  ShadowMemory memory(allocator, ShadowKind::kThread);
  // The last cell of a chunk and the first of the next, also across a
  // secondary-table (1 GiB) boundary.
  for (uptr boundary : {kChunk * 5, uptr{1} << 30, uptr{3} << 30}) {
    const uptr before = (boundary - 1) >> shift, after = boundary >> shift;
    *memory.Slot(before) = 7;
    EXPECT_EQ(memory.Get(after), 0u);
    *memory.Slot(after) = 9;
    EXPECT_EQ(memory.Get(before), 7u);
    EXPECT_EQ(memory.FindChunk((boundary - 1) / kChunk)[(before) & (memory.cells_per_chunk() - 1)], 7u);
  }
  std::set<uptr> visited;
  memory.ForEachChunk([&](uptr chunk_index, Timestamp*) { visited.insert(chunk_index); });
  EXPECT_EQ(visited, (std::set<uptr>{4, 5, (uptr{1} << 30) / kChunk - 1, (uptr{1} << 30) / kChunk,
                                     (uptr{3} << 30) / kChunk - 1, (uptr{3} << 30) / kChunk}));
}

// Forgetting: chunks covered whole go back to the allocator (and the chunk
// cache forgets them), partly covered ones are zeroed only where covered, a
// secondary table covered whole goes too, untouched memory allocates nothing.
TEST_P(ShadowMemoryAtResolution, ForgetFreesWholeChunksAndZeroesParts) {
  const unsigned shift = GetParam();
  ShadowAllocator allocator(shift);
  ShadowMemory memory(allocator, ShadowKind::kThread);
  const uptr base = uptr{5} << 30;  // chunks 0, 1, 2 of the 6th GiB
  const uptr cell = uptr{1} << shift;
  for (uptr a = base; a < base + 3 * kChunk; a += cell) *memory.Slot(a >> shift) = 5;
  const u64 three_chunks = memory.allocated_bytes();

  // The whole middle chunk and the last page of the first one.
  memory.Forget((base + kChunk - 4096) >> shift, (base + 2 * kChunk - 1) >> shift);
  EXPECT_EQ(memory.FindChunk(base / kChunk + 1), nullptr);
  EXPECT_EQ(memory.allocated_bytes(), three_chunks - allocator.chunk_bytes());
  EXPECT_EQ(memory.Get((base + kChunk - 4096 - 1) >> shift), 5u);
  EXPECT_EQ(memory.Get((base + kChunk - 4096) >> shift), 0u);
  EXPECT_EQ(memory.Get((base + kChunk - 1) >> shift), 0u);
  EXPECT_EQ(memory.Get((base + 2 * kChunk) >> shift), 5u);
  // The freed chunk was in the chunk cache: a new write must get a fresh,
  // zeroed chunk, not the freed one through a stale cache entry.
  Timestamp* again = memory.Slot((base + kChunk) >> shift);
  EXPECT_EQ(memory.FindChunk(base / kChunk + 1), again);
  EXPECT_EQ(*again, 0u);
  EXPECT_EQ(memory.Get((base + 2 * kChunk - 1) >> shift), 0u);

  // The whole GiB: no chunk, no table left; forgetting untouched memory
  // (even the whole address space) allocates nothing.
  memory.Forget(base >> shift, ((base + (uptr{1} << 30)) >> shift) - 1);
  EXPECT_EQ(memory.allocated_bytes(), 0u);
  memory.Forget(0, memory.cell_limit() - 1);
  EXPECT_EQ(memory.allocated_bytes(), 0u);
  int chunks = 0;
  memory.ForEachChunk([&](uptr, Timestamp*) { ++chunks; });
  EXPECT_EQ(chunks, 0);
  EXPECT_EQ(memory.Get(base >> shift), 0u);
  *memory.Slot(base >> shift) = 8;
  EXPECT_EQ(memory.Get(base >> shift), 8u);
}

// A secondary table whose last chunk is forgotten goes back too, even when
// the forgotten range covers only part of its GiB, and is mapped again when
// the memory is touched again; one with chunks left stays.
TEST_P(ShadowMemoryAtResolution, ForgettingTheLastChunksOfATableFreesTheTable) {
  const unsigned shift = GetParam();
  ShadowAllocator allocator(shift);
  ShadowMemory memory(allocator, ShadowKind::kThread);
  const uptr base = (uptr{7} << 30) + 40 * kChunk;
  *memory.Slot(base >> shift) = 1;
  *memory.Slot((base + 3 * kChunk) >> shift) = 2;
  *memory.Slot((base + (uptr{1} << 30)) >> shift) = 3;  // the next GiB's table
  const u64 next_gib = allocator.chunk_bytes() + allocator.secondary_bytes();
  memory.Forget(base >> shift, ((base + kChunk) >> shift) - 1);
  EXPECT_EQ(memory.allocated_bytes(), next_gib + allocator.chunk_bytes() + allocator.secondary_bytes())
      << "one chunk left: the table stays";
  memory.Forget((base + 3 * kChunk) >> shift, ((base + 4 * kChunk) >> shift) - 1);
  EXPECT_EQ(memory.allocated_bytes(), next_gib);
  EXPECT_EQ(memory.Get((base + (uptr{1} << 30)) >> shift), 3u);
  int chunks = 0;
  memory.ForEachChunk([&](uptr, Timestamp*) { ++chunks; });
  EXPECT_EQ(chunks, 1);
  *memory.Slot(base >> shift) = 4;
  EXPECT_EQ(memory.Get(base >> shift), 4u);
  EXPECT_EQ(memory.Get((base + 3 * kChunk) >> shift), 0u);
  EXPECT_EQ(memory.allocated_bytes(), 2 * next_gib);
}

// Mappings need not be aligned to chunks: a range that ends inside a chunk
// frees it if nothing outside the range was accessed in it, and keeps it
// (zeroed where covered) otherwise.
TEST_P(ShadowMemoryAtResolution, ForgettingPartOfAChunkFreesItIfNothingElseWasAccessed) {
  const unsigned shift = GetParam();
  ShadowAllocator allocator(shift);
  ShadowMemory memory(allocator, ShadowKind::kThread);
  const uptr base = (uptr{9} << 30) + 5 * kChunk;
  *memory.Slot((base + 4096) >> shift) = 5;          // inside the range below
  *memory.Slot((base + kChunk + 4096) >> shift) = 6;  // next chunk, outside it
  *memory.Slot((base + kChunk + 16) >> shift) = 7;    // next chunk, inside it
  const u64 two_chunks = memory.allocated_bytes();
  memory.Forget((base + 64) >> shift, ((base + kChunk + 64) >> shift) - 1);
  EXPECT_EQ(memory.FindChunk(base / kChunk), nullptr);
  EXPECT_EQ(memory.allocated_bytes(), two_chunks - allocator.chunk_bytes());
  EXPECT_EQ(memory.Get((base + kChunk + 4096) >> shift), 6u);
  EXPECT_EQ(memory.Get((base + kChunk + 16) >> shift), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllResolutions, ShadowMemoryAtResolution,
                         ::testing::Values(0u, 1u, 2u, 3u, 4u));

// --- The region allocator ---------------------------------------------------

constexpr uptr kBlock = uptr{64} << 10;
constexpr uptr kBlocksPerRegion = BlockPool::kRegionBytes / kBlock;

TEST(BlockPool, ManyBlocksFromFewRegions) {
  BlockPool pool(kBlock);
  EXPECT_EQ(pool.region_count(), 0u) << "nothing is mapped before the first block";
  std::vector<char*> blocks;
  for (uptr i = 0; i < kBlocksPerRegion; ++i) blocks.push_back(static_cast<char*>(pool.Allocate()));
  EXPECT_EQ(pool.region_count(), 1u);
  blocks.push_back(static_cast<char*>(pool.Allocate()));  // the first of a new region
  EXPECT_EQ(pool.region_count(), 2u);
  // Disjoint, page-aligned, whole: the first and last byte of every block
  // (the last block of a region ends where the region ends) are writable
  // and belong to that block alone.
  std::sort(blocks.begin(), blocks.end());
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<uptr>(blocks[i]) % 4096, 0u);
    if (i > 0) {
      EXPECT_GE(blocks[i] - blocks[i - 1], static_cast<ptrdiff_t>(kBlock));
    }
    blocks[i][0] = 1;
    blocks[i][kBlock - 1] = 2;
  }
  for (char* block : blocks) EXPECT_TRUE(block[0] == 1 && block[kBlock - 1] == 2);
}

TEST(BlockPool, FreedBlocksAreReusedZeroed) {
  BlockPool pool(kBlock);
  std::vector<char*> blocks;
  for (int i = 0; i < 3; ++i) blocks.push_back(static_cast<char*>(pool.Allocate()));
  for (uptr b = 0; b < kBlock; b += 512) blocks[1][b] = 7;
  std::fill(blocks[2], blocks[2] + kBlock, 9);
  pool.Free(blocks[1]);
  pool.Free(blocks[2]);
  EXPECT_EQ(pool.free_block_count(), 2u);
  // Most recently freed first, then the other, then fresh ones.
  char* first = static_cast<char*>(pool.Allocate());
  char* second = static_cast<char*>(pool.Allocate());
  EXPECT_EQ(first, blocks[2]);
  EXPECT_EQ(second, blocks[1]);
  EXPECT_EQ(std::count(first, first + kBlock, 0), static_cast<ptrdiff_t>(kBlock));
  EXPECT_EQ(std::count(second, second + kBlock, 0), static_cast<ptrdiff_t>(kBlock));
  char* fresh = static_cast<char*>(pool.Allocate());
  EXPECT_TRUE(fresh != blocks[0] && fresh != blocks[1] && fresh != blocks[2]);
  EXPECT_EQ(pool.free_block_count(), 0u);
  EXPECT_EQ(pool.region_count(), 1u);
}

TEST(BlockPool, AFullRegionOfFreedBlocksServesBeforeANewOne) {
  BlockPool pool(kBlock);
  std::vector<void*> blocks;
  for (uptr i = 0; i < kBlocksPerRegion; ++i) blocks.push_back(pool.Allocate());
  for (void* block : blocks) pool.Free(block);
  for (uptr i = 0; i < kBlocksPerRegion; ++i) pool.Allocate();
  EXPECT_EQ(pool.region_count(), 1u);
}

// A shadow memory over 1 GiB touched at one cell per chunk: 16,384 chunks
// (more than Valgrind's 30,000 segments once two shadow memories do it)
// from a handful of regions, and the peak survives freeing.
TEST(ShadowAllocator, ManyChunksFewRegionsAndThePeak) {
  ShadowAllocator allocator(2);
  {
    ShadowMemory memory(allocator, ShadowKind::kThread);
    const uptr primary_bytes = allocator.in_use_bytes();
    for (uptr a = uptr{1} << 32; a < (uptr{5} << 30); a += kChunk) *memory.Slot(a >> 2) = 3;
    const uptr chunks = (uptr{1} << 30) / kChunk;
    EXPECT_EQ(memory.allocated_bytes(), chunks * allocator.chunk_bytes() + allocator.secondary_bytes());
    EXPECT_EQ(allocator.in_use_bytes(), memory.allocated_bytes() + primary_bytes);
    // Chunks fill whole regions, one region for the table, one for the primary.
    EXPECT_EQ(allocator.region_count(),
              chunks * allocator.chunk_bytes() / BlockPool::kRegionBytes + 2);
  }
  EXPECT_EQ(allocator.in_use_bytes(), 0u) << "the destructor gives everything back";
  EXPECT_EQ(allocator.peak_bytes(), (uptr{1} << 30) + allocator.secondary_bytes() +
                                        (uptr{1} << ShadowMemory::kPrimaryBits) * sizeof(void*));
  // A second shadow memory reuses what the first gave back.
  const size_t regions = allocator.region_count();
  ShadowMemory again(allocator, ShadowKind::kThread);
  for (uptr a = 0; a < (uptr{1} << 30); a += kChunk) *again.Slot(a >> 2) = 4;
  EXPECT_EQ(allocator.region_count(), regions);
}

// --- Unmapped memory in the engine -----------------------------------------

// A cell read, unmapped and read again in the same activation counts twice:
// memory mapped again is new memory. The rest of the unmapped page, never
// read, changes nothing; a write by another thread before the unmap no
// longer makes the read induced.
TEST(EngineUnmap, RemappedMemoryIsNewMemory) {
  constexpr uint64_t kX = 0x7f0000001000, kY = 0x7f0000002000;
  Engine engine;
  auto done = RunEngine(engine, {StartThread(1), StartThread(2), SwitchTo(2), Write(kY),
                                 SwitchTo(1), Call(1), Read(kX), Call(2), Read(kX), Return(),
                                 Unmap(kX & ~uint64_t{0xffff}, uint64_t{1} << 20), Read(kX),
                                 Read(kY), Return()});
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].rms, 1u);  // routine 2: kX
  EXPECT_EQ(done[1].rms, 3u);  // routine 1: kX, kX again, kY
  EXPECT_EQ(done[1].trms, 3u);
  EXPECT_EQ(done[1].induced_by_threads, 0u);
  // Left after every thread exited: the global shadow's primary table; its
  // chunk of kY was given back by the unmap, and with it its secondary table.
  const u64 primary_bytes = (uptr{1} << ShadowMemory::kPrimaryBits) * sizeof(void*);
  const u64 secondary_bytes = (uptr{1} << ShadowMemory::kSecondaryBits) * sizeof(void*);
  EXPECT_EQ(engine.shadow_bytes(), primary_bytes);
  // At the peak: 3 primary tables, 3 secondary tables, 3 chunks.
  EXPECT_EQ(engine.shadow_peak_bytes(), 3 * (primary_bytes + secondary_bytes + kChunk));
}

// An access is split into the cells it overlaps, chunk boundaries included.
TEST(EngineCells, AccessesSpanningCellsAndChunks) {
  struct Case {
    unsigned shift;
    uptr address, size;
    uint64_t cells;
  } cases[] = {
      {2, 0x1000, 4, 1},      {2, 0x1002, 4, 2},         {2, 0x1000, 32, 8},
      {2, kChunk - 4, 8, 2},  {0, kChunk - 3, 8, 8},      {4, kChunk - 8, 16, 2},
      {3, 0x1001, 1, 1},      {4, 0x1000, 64, 4},        {1, kChunk * 7 - 1, 2, 2},
  };
  for (const Case& c : cases) {
    EngineOptions options;
    options.resolution_shift = c.shift;
    Engine engine(options);
    auto done = RunEngine(engine, {StartThread(1), SwitchTo(1), Call(1), Read(c.address, c.size),
                                   Read(c.address, c.size), Return()});
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].rms, c.cells) << "shift " << c.shift << " address " << c.address;
    EXPECT_EQ(done[0].trms, c.cells);
  }
}

// Accesses wider than a cell (8 and 16 bytes at 4-byte cells) take the
// wide path (RunEngine sends them where the instrumenter does): its
// one-chunk shortcut must not take them either.
TEST(EngineCells, AccessesBeyondTheAddressSpaceAreNotTracked) {
  Engine engine;
  auto done = RunEngine(engine, {StartThread(1), SwitchTo(1), Call(1), Read(kTop - 4, 8),
                                 Read(kTop, 4), Read(~uptr{0} - 7, 4), Read(kTop, 16),
                                 Write(kTop + 64, 8), Read(kTop + 64, 8),
                                 Read(~uptr{0} - 15, 16), Read(~uptr{0} - 3, 8), Return()});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].rms, 1u);  // only the cell just below 2^47
  // The last read wraps around the top of memory: its 4 bytes up to it count.
  EXPECT_EQ(engine.statistics().untracked_access_bytes, 4u + 4u + 4u + 16u + 8u + 8u + 16u + 4u);
}

// A host thread id reused after its thread exited starts clean: the new
// thread has read nothing yet, and what the old thread wrote was written by
// another thread.
TEST(EngineThreads, ReusedThreadIdStartsClean) {
  constexpr uint64_t kX = 0x5000;
  Engine engine;
  auto done = RunEngine(engine, {StartThread(1), StartThread(2), SwitchTo(2), Call(1), Read(kX),
                                 Write(kX), Return(), Call(2), Read(kX), ExitThread(2),
                                 StartThread(2), SwitchTo(2), Call(3), Read(kX), Read(kX), Return()});
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[1].routine, 2u);  // closed by the thread's exit
  EXPECT_EQ(done[1].rms, 1u);
  EXPECT_EQ(done[1].trms, 1u);
  EXPECT_EQ(done[2].routine, 3u);
  EXPECT_EQ(done[2].rms, 1u);
  EXPECT_EQ(done[2].trms, 1u);
  EXPECT_EQ(done[2].induced_by_threads, 1u);
  EXPECT_EQ(done[2].thread_serial, 3u);
  ASSERT_EQ(engine.thread_record_count(), 3u);
  EXPECT_EQ(engine.thread_record(1).tid, 2u);
  EXPECT_EQ(engine.thread_record(2).tid, 2u);
  EXPECT_FALSE(engine.thread_record(1).live);
}

TEST(EngineThreads, UnmatchedReturnIsCountedNotFatal) {
  Engine engine;
  auto done = RunEngine(engine, {StartThread(1), SwitchTo(1), Return(), Call(1), Return(), Return()});
  EXPECT_EQ(done.size(), 1u);
  EXPECT_EQ(engine.statistics().unmatched_returns, 2u);
}

}  // namespace
}  // namespace aprof::testing
