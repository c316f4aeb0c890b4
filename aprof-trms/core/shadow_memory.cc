#include "shadow_memory.h"

#include "platform.h"

namespace aprof {

ShadowMemory::ShadowMemory(unsigned resolution_shift)
    : shift_(resolution_shift),
      chunk_index_shift_(kChunkAddressBits - resolution_shift),
      cell_in_chunk_mask_((uptr{1} << (kChunkAddressBits - resolution_shift)) - 1) {
  APROF_CHECK(resolution_shift <= 4);
  primary_ = static_cast<Timestamp***>(
      PlatformAllocateZeroedPages(kPrimaryEntries * sizeof(Timestamp**)));
}

ShadowMemory::~ShadowMemory() {
  for (uptr p : used_primary_indices_) {
    Timestamp** secondary = primary_[p];
    for (uptr s = 0; s < kSecondaryEntries; ++s)
      if (secondary[s]) PlatformFreePages(secondary[s], chunk_bytes());
    PlatformFreePages(secondary, kSecondaryEntries * sizeof(Timestamp*));
  }
  PlatformFreePages(primary_, kPrimaryEntries * sizeof(Timestamp**));
}

Timestamp* ShadowMemory::UncachedSlot(uptr cell) {
  const uptr chunk_index = ChunkIndexOf(cell);
  return ChunkFor(chunk_index, /*allocate=*/true) + (cell & cell_in_chunk_mask_);
}

Timestamp** ShadowMemory::AllocateSecondary(uptr primary_index) {
  APROF_CHECK(primary_index < kPrimaryEntries);
  const uptr bytes = kSecondaryEntries * sizeof(Timestamp*);
  Timestamp** secondary = static_cast<Timestamp**>(PlatformAllocateZeroedPages(bytes));
  allocated_bytes_ += bytes;
  primary_[primary_index] = secondary;
  used_primary_indices_.push_back(primary_index);
  return secondary;
}

Timestamp* ShadowMemory::AllocateChunk() {
  allocated_bytes_ += chunk_bytes();
  return static_cast<Timestamp*>(PlatformAllocateZeroedPages(chunk_bytes()));
}

}  // namespace aprof
