// SPDX-License-Identifier: GPL-2.0-or-later
// Shadow memory blocks (chunks, secondary and primary tables) carved out of
// large regions, so that the number of host mappings does not grow with the
// memory the program touches.
//
// Valgrind's address-space manager tracks a fixed number of segments
// (VG_N_SEGMENTS): when every 64 KiB chunk was a mapping of its own, a
// program touching about 1 GiB made Valgrind abort before the report was
// written. As memcheck does for its secondary maps and sanitizer_common for
// its allocator regions, a BlockPool maps regions of kRegionBytes and hands
// them out one fixed-size block at a time; pages become resident only when
// written, so untouched shadow still costs no memory. A freed block is given
// back to the host (its pages zero and no longer resident) and handed out
// again before the pool maps a new region.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_CORE_SHADOW_ALLOCATOR_H
#define APROF_CORE_SHADOW_ALLOCATOR_H

#include "internal_vector.h"
#include "types.h"

namespace aprof {

// Zero-filled blocks of one size.
class BlockPool {
 public:
  // 64 MiB: 16 GiB of touched memory then takes 512 mappings per shadow
  // memory at 4-byte cells, far below Valgrind's limit (30,000 in 3.19).
  static constexpr uptr kRegionBytes = uptr{64} << 20;

  // block_bytes: a power of two, at least a page, at most kRegionBytes.
  explicit BlockPool(uptr block_bytes);
  ~BlockPool();
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  // A zero-filled, page-aligned block of block_bytes(); never null.
  void* Allocate();
  // Gives a block from Allocate() back: its pages are released to the host
  // and it is handed out again, zero-filled, before any new one.
  void Free(void* block);

  uptr block_bytes() const { return block_bytes_; }
  size_t region_count() const { return regions_.size(); }
  size_t free_block_count() const { return free_blocks_.size(); }
  // Blocks handed out so far: never used before, and freed ones again.
  u64 fresh_count() const { return fresh_count_; }
  u64 reused_count() const { return reused_count_; }

 private:
  const uptr block_bytes_;
  u64 fresh_count_ = 0;
  u64 reused_count_ = 0;
  InternalVector<char*> regions_;
  char* unused_ = nullptr;      // first never handed out block of the newest region
  char* region_end_ = nullptr;  // end of the newest region
  InternalVector<void*> free_blocks_;  // most recently freed last
};

// What a shadow memory records, for the statistics of where the shadow goes.
enum class ShadowKind : unsigned {
  kGlobalWrites,  // wts: the latest write of every cell
  kThread,        // ts_t of the live threads, all together
  kWriterTags,    // the writer of every cell (--input-sources=yes)
};
constexpr unsigned kShadowKinds = 3;

// Bytes of blocks in use, by kind of shadow memory.
struct ShadowUsage {
  u64 bytes[kShadowKinds] = {};
  u64 total() const {
    u64 sum = 0;
    for (u64 b : bytes) sum += b;
    return sum;
  }
};

// All shadow blocks of one engine (the global and every per-thread shadow
// memory), with the bytes in use and their peak.
class ShadowAllocator {
 public:
  // Cells of 2^resolution_shift bytes set the chunk size.
  explicit ShadowAllocator(unsigned resolution_shift);

  unsigned resolution_shift() const { return resolution_shift_; }

  // kind: of the shadow memory the block is for (statistics only).
  Timestamp* AllocateChunk(ShadowKind kind) {
    return static_cast<Timestamp*>(Take(chunks_, kind));
  }
  void FreeChunk(Timestamp* chunk, ShadowKind kind) { Give(chunks_, chunk, kind); }
  Timestamp** AllocateSecondary(ShadowKind kind) {
    return static_cast<Timestamp**>(Take(secondaries_, kind));
  }
  void FreeSecondary(Timestamp** secondary, ShadowKind kind) { Give(secondaries_, secondary, kind); }
  Timestamp*** AllocatePrimary(ShadowKind kind) {
    return static_cast<Timestamp***>(Take(primaries_, kind));
  }
  void FreePrimary(Timestamp*** primary, ShadowKind kind) { Give(primaries_, primary, kind); }

  uptr chunk_bytes() const { return chunks_.block_bytes(); }
  uptr secondary_bytes() const { return secondaries_.block_bytes(); }
  // Address space of the blocks handed out and not freed (tables and
  // chunks): an upper bound of the resident shadow, which is smaller where
  // the program touched only some pages of a chunk's 64 KiB.
  u64 in_use_bytes() const { return in_use_.total(); }
  u64 peak_bytes() const { return at_peak_.total(); }
  // The same by kind: now, at the peak of the total, and each kind's own peak.
  const ShadowUsage& in_use() const { return in_use_; }
  const ShadowUsage& at_peak() const { return at_peak_; }
  const ShadowUsage& kind_peaks() const { return kind_peaks_; }
  // Host mappings made so far, all pools together.
  size_t region_count() const {
    return chunks_.region_count() + secondaries_.region_count() + primaries_.region_count();
  }
  const BlockPool& chunk_pool() const { return chunks_; }

 private:
  void* Take(BlockPool& pool, ShadowKind kind);
  void Give(BlockPool& pool, void* block, ShadowKind kind);

  const unsigned resolution_shift_;
  BlockPool chunks_;
  BlockPool secondaries_;
  BlockPool primaries_;
  ShadowUsage in_use_;
  ShadowUsage at_peak_;
  ShadowUsage kind_peaks_;
};

}  // namespace aprof

#endif  // APROF_CORE_SHADOW_ALLOCATOR_H
