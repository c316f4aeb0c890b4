// Shadow memory at the extremes of the address space, at every resolution,
// across chunk boundaries; thread-id reuse.
#include <gtest/gtest.h>

#include <set>

#include "core/shadow_memory.h"
#include "trace.h"

namespace aprof::testing {
namespace {

constexpr uptr kTop = ShadowMemory::kAddressLimit;  // 2^47
constexpr uptr kChunk = uptr{1} << ShadowMemory::kChunkAddressBits;

class ShadowMemoryAtResolution : public ::testing::TestWithParam<unsigned> {};

TEST_P(ShadowMemoryAtResolution, ExtremeCellsAreDistinctAndPersistent) {
  const unsigned shift = GetParam();
  ShadowMemory memory(shift);
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
  ShadowMemory memory(shift);
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

INSTANTIATE_TEST_SUITE_P(AllResolutions, ShadowMemoryAtResolution,
                         ::testing::Values(0u, 1u, 2u, 3u, 4u));

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

TEST(EngineCells, AccessesBeyondTheAddressSpaceAreNotTracked) {
  Engine engine;
  auto done = RunEngine(engine, {StartThread(1), SwitchTo(1), Call(1), Read(kTop - 4, 8),
                                 Read(kTop, 4), Read(~uptr{0} - 7, 4), Return()});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].rms, 1u);  // only the cell just below 2^47
  EXPECT_EQ(engine.statistics().untracked_access_bytes, 4u + 4u + 4u);
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
