// SPDX-License-Identifier: GPL-2.0-or-later
// Private chunks of the global shadow (core/private_chunks.h): memory one
// thread alone accesses gets no global write times, and what makes a chunk
// shared gives it exactly the write times a shared chunk would have held.
// The random traces against the naive algorithm are in test_differential.cc
// (PrivateChunksMatchNaiveAlgorithm); here the memory it saves and the event
// the traces do not have (TakeAsAccessedByTop).
#include <gtest/gtest.h>

#include <vector>

#include "core/engine.h"

namespace aprof::testing {
namespace {

constexpr uptr kMiB = uptr{1} << 20;
constexpr uptr kChunkBytes = uptr{1} << ShadowMemory::kChunkAddressBits;

u64 GlobalShadowBytes(const Engine& engine) {
  return engine.shadow_allocator().in_use().bytes[static_cast<unsigned>(ShadowKind::kGlobalWrites)];
}

void WriteEveryCell(Engine& engine, uptr address, uptr bytes) {
  for (uptr a = address; a < address + bytes; a += 4) engine.Write(a, 4);
}

// Thread 1 writes 1 MiB (16 chunks) that thread 2 then reads in part.
TEST(PrivateChunks, OnlyChunksAnotherThreadReachesGetWriteTimes) {
  Engine engine;
  const u64 primary_table = GlobalShadowBytes(engine);
  engine.SwitchTo(1);
  engine.Call(1);
  WriteEveryCell(engine, 0x40000000, kMiB);
  EXPECT_EQ(GlobalShadowBytes(engine), primary_table) << "one thread's memory has no write times";
  EXPECT_EQ(engine.statistics().chunks_made_private, 16u);
  // Bits: 2 KiB per chunk of 4-byte cells, against 64 KiB of write times.
  EXPECT_LT(engine.private_chunk_bytes(), 16 * kChunkBytes / 16);

  engine.SwitchTo(2);
  engine.Call(2);
  engine.Read(0x40000000 + 3 * kChunkBytes + 8, 4);
  engine.Read(0x40000000 + 5 * kChunkBytes, 4);
  engine.Return();
  EXPECT_EQ(engine.statistics().private_chunks_shared, 2u);
  // Two chunks of write times and their secondary table.
  EXPECT_EQ(GlobalShadowBytes(engine), primary_table + 2 * engine.shadow_allocator().chunk_bytes() +
                                           engine.shadow_allocator().secondary_bytes());
  EXPECT_FALSE(engine.FindInconsistency(/*walk_shadow=*/true));
}

// Both reads of thread 2 above are induced by thread 1's writes, whether
// the chunk was private (write times rebuilt from thread 1's slots), orphaned
// by thread 1's exit (rebuilt from the bits), or shared from the start.
std::vector<ActivationResult> ReadsOfAnotherThread(bool shared_from_start, bool writer_exits) {
  std::vector<ActivationResult> done;
  Engine engine;
  engine.set_activation_observer(
      [](void* context, const ThreadRecord&, const ActivationResult& a) {
        static_cast<std::vector<ActivationResult>*>(context)->push_back(a);
      },
      &done);
  if (shared_from_start) {
    engine.SwitchTo(3);
    engine.Read(0x40000000 + 64, 4);  // not written by anyone
  }
  engine.SwitchTo(1);
  engine.Call(1);
  engine.Write(0x40000000, 16);
  engine.Read(0x40000000 + 32, 4);  // read only: no write time
  engine.Return();
  if (writer_exits) engine.ExitThread(1);
  engine.SwitchTo(2);
  engine.Call(2);
  engine.Read(0x40000000, 48);
  engine.Return();
  return done;
}

TEST(PrivateChunks, WriteTimesAreRebuiltWhenAnotherThreadReads) {
  for (const bool writer_exits : {false, true}) {
    SCOPED_TRACE(writer_exits ? "writer exited" : "writer live");
    const ActivationResult shared = ReadsOfAnotherThread(true, writer_exits).back();
    const ActivationResult private_first = ReadsOfAnotherThread(false, writer_exits).back();
    EXPECT_EQ(shared.induced_by_threads, 4u);
    EXPECT_EQ(private_first.induced_by_threads, shared.induced_by_threads);
    EXPECT_EQ(private_first.trms, shared.trms);
    EXPECT_EQ(private_first.rms, shared.rms);
  }
}

// A kernel write makes the chunk shared (its writes have the kernel bit).
TEST(PrivateChunks, KernelWriteMakesTheChunkShared) {
  Engine engine;
  const u64 primary_table = GlobalShadowBytes(engine);
  engine.SwitchTo(1);
  engine.Call(1);
  engine.Write(0x40000000, 4);
  EXPECT_EQ(GlobalShadowBytes(engine), primary_table);
  engine.KernelWrite(0x40000000 + 8, 4);
  EXPECT_EQ(engine.statistics().private_chunks_shared, 1u);
  engine.Read(0x40000000, 12);
  engine.Return();
  EXPECT_FALSE(engine.FindInconsistency(/*walk_shadow=*/true));
}

// Go's stack copy sets the thread's slots to its top activation's start,
// which may lie below the thread's own latest write: the exact procedure
// then finds the activation's reads induced (slot below the write time),
// which a private chunk's bits cannot say; the chunk becomes shared first.
// (The reads go past the read fence, which claim 1 of design.md's proof
// would not allow for slots that only grow, after a switch.)
u64 InducedAfterTakingAsAccessed(bool shared_from_start) {
  Engine engine;
  u64 induced = 0;
  engine.set_activation_observer(
      [](void* context, const ThreadRecord&, const ActivationResult& a) {
        *static_cast<u64*>(context) += a.induced_by_threads;
      },
      &induced);
  if (shared_from_start) {
    engine.SwitchTo(2);
    engine.Read(0x40000000 + 64, 4);
  }
  engine.SwitchTo(1);
  engine.Call(1);
  engine.Call(2);  // the counter moves past the top's start
  engine.Return();
  engine.Write(0x40000000, 16);
  engine.TakeAsAccessedByTop(0x40000000, 16);
  engine.SwitchTo(2);  // the read fence rises above the slots taken
  engine.SwitchTo(1);
  engine.Read(0x40000000, 16);
  engine.Return();
  return induced;
}

TEST(PrivateChunks, SlotsTakenBelowOwnWritesKeepTheirInducedReads) {
  EXPECT_EQ(InducedAfterTakingAsAccessed(true), 4u);
  EXPECT_EQ(InducedAfterTakingAsAccessed(false), 4u);
}

}  // namespace
}  // namespace aprof::testing
