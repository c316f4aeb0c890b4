// SPDX-License-Identifier: GPL-2.0-or-later
// Shadow memory blocks carved out of large regions (see shadow_allocator.h).
//
// Copyright (C) 2026, the aprof-trms authors.
#include "shadow_allocator.h"

#include "platform.h"
#include "shadow_memory.h"

namespace aprof {

BlockPool::BlockPool(uptr block_bytes) : block_bytes_(block_bytes) {
  APROF_CHECK(block_bytes >= 4096 && block_bytes <= kRegionBytes &&
              (block_bytes & (block_bytes - 1)) == 0);
}

BlockPool::~BlockPool() {
  for (char* region : regions_) PlatformFreePages(region, kRegionBytes);
}

void* BlockPool::Allocate() {
  if (!free_blocks_.empty()) {
    void* block = free_blocks_.back();
    free_blocks_.pop_back();
    ++reused_count_;
    return block;
  }
  if (unused_ == region_end_) {
    unused_ = static_cast<char*>(PlatformAllocateZeroedPages(kRegionBytes));
    region_end_ = unused_ + kRegionBytes;
    regions_.push_back(unused_);
  }
  void* block = unused_;
  unused_ += block_bytes_;
  ++fresh_count_;
  return block;
}

void BlockPool::Free(void* block) {
  PlatformReleasePages(block, block_bytes_);
  free_blocks_.push_back(block);
}

namespace {

uptr ChunkBytes(unsigned resolution_shift) {
  return (uptr{1} << (ShadowMemory::kChunkAddressBits - resolution_shift)) * sizeof(Timestamp);
}

}  // namespace

ShadowAllocator::ShadowAllocator(unsigned resolution_shift)
    : resolution_shift_(resolution_shift),
      chunks_(ChunkBytes(resolution_shift)),
      secondaries_((uptr{1} << ShadowMemory::kSecondaryBits) * sizeof(Timestamp*)),
      primaries_((uptr{1} << ShadowMemory::kPrimaryBits) * sizeof(Timestamp**)) {
  APROF_CHECK_LE(resolution_shift, 4u);
}

void* ShadowAllocator::Take(BlockPool& pool, ShadowKind kind) {
  const unsigned k = static_cast<unsigned>(kind);
  in_use_.bytes[k] += pool.block_bytes();
  if (in_use_.bytes[k] > kind_peaks_.bytes[k]) kind_peaks_.bytes[k] = in_use_.bytes[k];
  if (in_use_.total() > at_peak_.total()) at_peak_ = in_use_;
  return pool.Allocate();
}

void ShadowAllocator::Give(BlockPool& pool, void* block, ShadowKind kind) {
  in_use_.bytes[static_cast<unsigned>(kind)] -= pool.block_bytes();
  pool.Free(block);
}

}  // namespace aprof
