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
// SPDX-License-Identifier: GPL-2.0-or-later
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

 private:
  const uptr block_bytes_;
  InternalVector<char*> regions_;
  char* unused_ = nullptr;      // first never handed out block of the newest region
  char* region_end_ = nullptr;  // end of the newest region
  InternalVector<void*> free_blocks_;  // most recently freed last
};

// All shadow blocks of one engine (the global and every per-thread shadow
// memory), with the bytes in use and their peak.
class ShadowAllocator {
 public:
  // Cells of 2^resolution_shift bytes set the chunk size.
  explicit ShadowAllocator(unsigned resolution_shift);

  unsigned resolution_shift() const { return resolution_shift_; }

  Timestamp* AllocateChunk() { return static_cast<Timestamp*>(Take(chunks_)); }
  void FreeChunk(Timestamp* chunk) { Give(chunks_, chunk); }
  Timestamp** AllocateSecondary() { return static_cast<Timestamp**>(Take(secondaries_)); }
  void FreeSecondary(Timestamp** secondary) { Give(secondaries_, secondary); }
  Timestamp*** AllocatePrimary() { return static_cast<Timestamp***>(Take(primaries_)); }
  void FreePrimary(Timestamp*** primary) { Give(primaries_, primary); }

  uptr chunk_bytes() const { return chunks_.block_bytes(); }
  uptr secondary_bytes() const { return secondaries_.block_bytes(); }
  // Address space of the blocks handed out and not freed (tables and
  // chunks): an upper bound of the resident shadow, which is smaller where
  // the program touched only some pages of a chunk's 64 KiB.
  u64 in_use_bytes() const { return in_use_bytes_; }
  u64 peak_bytes() const { return peak_bytes_; }
  // Host mappings made so far, all pools together.
  size_t region_count() const {
    return chunks_.region_count() + secondaries_.region_count() + primaries_.region_count();
  }

 private:
  void* Take(BlockPool& pool);
  void Give(BlockPool& pool, void* block);

  const unsigned resolution_shift_;
  BlockPool chunks_;
  BlockPool secondaries_;
  BlockPool primaries_;
  u64 in_use_bytes_ = 0;
  u64 peak_bytes_ = 0;
};

}  // namespace aprof

#endif  // APROF_CORE_SHADOW_ALLOCATOR_H
