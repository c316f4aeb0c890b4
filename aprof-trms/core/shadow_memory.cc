#include "shadow_memory.h"

#include "platform.h"

namespace aprof {

ShadowMemory::ShadowMemory(ShadowAllocator& allocator)
    : shift_(allocator.resolution_shift()),
      chunk_index_shift_(kChunkAddressBits - shift_),
      cell_in_chunk_mask_((uptr{1} << (kChunkAddressBits - shift_)) - 1),
      primary_(allocator.AllocatePrimary()),
      allocator_(allocator) {}

ShadowMemory::~ShadowMemory() {
  for (uptr p : used_primary_indices_) {
    Timestamp** secondary = primary_[p];
    for (uptr s = 0; s < kSecondaryEntries; ++s)
      if (secondary[s]) allocator_.FreeChunk(secondary[s]);
    allocator_.FreeSecondary(secondary);
  }
  allocator_.FreePrimary(primary_);
}

Timestamp* ShadowMemory::UncachedSlot(uptr cell) {
  const uptr chunk_index = ChunkIndexOf(cell);
  return ChunkFor(chunk_index, /*allocate=*/true) + (cell & cell_in_chunk_mask_);
}

Timestamp** ShadowMemory::AllocateSecondary(uptr primary_index) {
  APROF_CHECK(primary_index < kPrimaryEntries);
  Timestamp** secondary = allocator_.AllocateSecondary();
  allocated_bytes_ += allocator_.secondary_bytes();
  primary_[primary_index] = secondary;
  used_primary_indices_.push_back(primary_index);
  return secondary;
}

Timestamp* ShadowMemory::AllocateChunk() {
  allocated_bytes_ += allocator_.chunk_bytes();
  return allocator_.AllocateChunk();
}

void ShadowMemory::Forget(uptr first, uptr last) {
  APROF_CHECK(first <= last && last < cell_limit());
  const unsigned cells_per_secondary_shift = chunk_index_shift_ + kSecondaryBits;
  for (uptr p = first >> cells_per_secondary_shift; p <= last >> cells_per_secondary_shift; ++p) {
    if (primary_[p] == nullptr) continue;  // a GiB never touched: nothing to forget
    const uptr secondary_first = p << cells_per_secondary_shift;
    const uptr secondary_last = secondary_first + ((uptr{1} << cells_per_secondary_shift) - 1);
    ForgetInSecondary(p, first > secondary_first ? first : secondary_first,
                      last < secondary_last ? last : secondary_last);
    if (first <= secondary_first && secondary_last <= last) FreeSecondary(p);
  }
}

void ShadowMemory::ForgetInSecondary(uptr primary_index, uptr first, uptr last) {
  Timestamp** secondary = primary_[primary_index];
  for (uptr chunk_index = ChunkIndexOf(first); chunk_index <= ChunkIndexOf(last); ++chunk_index) {
    Timestamp*& chunk = secondary[chunk_index & (kSecondaryEntries - 1)];
    if (chunk == nullptr) continue;
    const uptr chunk_first = chunk_index << chunk_index_shift_;
    const uptr chunk_last = chunk_first + cell_in_chunk_mask_;
    if (first <= chunk_first && chunk_last <= last) {
      CachedChunk& cached = cache_[chunk_index & (kCachedChunks - 1)];
      if (cached.index == chunk_index) cached = CachedChunk();
      allocator_.FreeChunk(chunk);
      allocated_bytes_ -= allocator_.chunk_bytes();
      chunk = nullptr;
      continue;
    }
    // Partly covered (an unmapped range ends inside this 64 KiB): zero the
    // covered cells and keep the chunk for the rest.
    const uptr from = (first > chunk_first ? first : chunk_first) & cell_in_chunk_mask_;
    const uptr to = (last < chunk_last ? last : chunk_last) & cell_in_chunk_mask_;
    for (uptr i = from; i <= to; ++i) chunk[i] = 0;
  }
}

// Only called once every chunk of the table has been freed.
void ShadowMemory::FreeSecondary(uptr primary_index) {
  allocator_.FreeSecondary(primary_[primary_index]);
  allocated_bytes_ -= allocator_.secondary_bytes();
  primary_[primary_index] = nullptr;
  for (uptr& used : used_primary_indices_) {
    if (used != primary_index) continue;
    used = used_primary_indices_.back();
    used_primary_indices_.pop_back();
    return;
  }
}

}  // namespace aprof
