// SPDX-License-Identifier: GPL-2.0-or-later
// The three-level shadow memory (shadow_memory.h): table walks,
// allocation, forgetting unmapped cells.
#include "shadow_memory.h"

#include "platform.h"

namespace aprof {

ShadowMemory::ShadowMemory(ShadowAllocator& allocator, ShadowKind kind)
    : shift_(allocator.resolution_shift()),
      chunk_index_shift_(kChunkAddressBits - shift_),
      cell_in_chunk_mask_((uptr{1} << (kChunkAddressBits - shift_)) - 1),
      primary_(allocator.AllocatePrimary(kind)),
      allocator_(allocator),
      kind_(kind) {}

ShadowMemory::~ShadowMemory() {
  for (const UsedSecondary& used : used_secondaries_) {
    Timestamp** secondary = primary_[used.primary_index];
    for (uptr s = 0; s < kSecondaryEntries; ++s)
      if (secondary[s]) allocator_.FreeChunk(secondary[s], kind_);
    allocator_.FreeSecondary(secondary, kind_);
  }
  allocator_.FreePrimary(primary_, kind_);
}

Timestamp* ShadowMemory::UncachedSlot(uptr cell) {
  APROF_COUNT_EVENT(cache_misses_);
  const uptr chunk_index = ChunkIndexOf(cell);
  return ChunkFor(chunk_index, /*allocate=*/true) + (cell & cell_in_chunk_mask_);
}

Timestamp** ShadowMemory::AllocateSecondary(uptr primary_index) {
  APROF_CHECK_LT(primary_index, kPrimaryEntries);
  Timestamp** secondary = allocator_.AllocateSecondary(kind_);
  allocated_bytes_ += allocator_.secondary_bytes();
  primary_[primary_index] = secondary;
  used_secondaries_.push_back({primary_index, 0});
  return secondary;
}

ShadowMemory::UsedSecondary& ShadowMemory::UsedSecondaryOf(uptr primary_index) {
  // From the newest: a chunk is mostly allocated right after its table.
  for (size_t i = used_secondaries_.size(); i-- > 0;)
    if (used_secondaries_[i].primary_index == primary_index) return used_secondaries_[i];
  APROF_CHECK(false && "a secondary table in use is listed");
  __builtin_unreachable();
}

Timestamp* ShadowMemory::NewChunk(uptr chunk_index, Timestamp*& entry) {
  Timestamp* chunk = entry = AllocateChunk(chunk_index >> kSecondaryBits);
  cache_[chunk_index & (kCachedChunks - 1)] = {chunk_index, chunk};
  if (new_chunk_hook_) new_chunk_hook_(new_chunk_context_, chunk_index);
  return chunk;
}

Timestamp* ShadowMemory::AllocateChunk(uptr primary_index) {
  ++UsedSecondaryOf(primary_index).chunks;
  allocated_bytes_ += allocator_.chunk_bytes();
  return allocator_.AllocateChunk(kind_);
}

void ShadowMemory::Forget(uptr first, uptr last) {
  APROF_CHECK_LE(first, last);
  APROF_CHECK_LT(last, cell_limit());
  const unsigned cells_per_secondary_shift = chunk_index_shift_ + kSecondaryBits;
  for (uptr p = first >> cells_per_secondary_shift; p <= last >> cells_per_secondary_shift; ++p) {
    if (primary_[p] == nullptr) continue;  // a GiB never touched: nothing to forget
    const uptr secondary_first = p << cells_per_secondary_shift;
    const uptr secondary_last = secondary_first + ((uptr{1} << cells_per_secondary_shift) - 1);
    ForgetInSecondary(p, first > secondary_first ? first : secondary_first,
                      last < secondary_last ? last : secondary_last);
    if (UsedSecondaryOf(p).chunks == 0) FreeSecondary(p);
  }
}

void ShadowMemory::ForgetInSecondary(uptr primary_index, uptr first, uptr last) {
  Timestamp** secondary = primary_[primary_index];
  uptr& chunks_in_table = UsedSecondaryOf(primary_index).chunks;
  for (uptr chunk_index = ChunkIndexOf(first); chunk_index <= ChunkIndexOf(last); ++chunk_index) {
    Timestamp*& chunk = secondary[chunk_index & (kSecondaryEntries - 1)];
    if (chunk == nullptr) continue;
    const uptr chunk_first = chunk_index << chunk_index_shift_;
    const uptr chunk_last = chunk_first + cell_in_chunk_mask_;
    if (first > chunk_first || chunk_last > last) {
      // Partly covered (an unmapped range ends inside this 64 KiB): zero the
      // covered cells, and keep the chunk if the rest holds a timestamp.
      // Mappings need not be aligned to 64 KiB: without the test, every
      // unmap would leave the chunks at its two ends behind for good.
      const uptr from = (first > chunk_first ? first : chunk_first) & cell_in_chunk_mask_;
      const uptr to = (last < chunk_last ? last : chunk_last) & cell_in_chunk_mask_;
      for (uptr i = from; i <= to; ++i) chunk[i] = 0;
      if (!AllZero(chunk, 0, from) || !AllZero(chunk, to + 1, cells_per_chunk())) continue;
    }
    CachedChunk& cached = cache_[chunk_index & (kCachedChunks - 1)];
    if (cached.index == chunk_index) cached = CachedChunk();
    allocator_.FreeChunk(chunk, kind_);
    allocated_bytes_ -= allocator_.chunk_bytes();
    chunk = nullptr;
    --chunks_in_table;
  }
}

bool ShadowMemory::AllZero(const Timestamp* slots, uptr begin, uptr end) {
  for (uptr i = begin; i < end; ++i)
    if (slots[i] != 0) return false;
  return true;
}

// Only called once every chunk of the table has been freed.
void ShadowMemory::FreeSecondary(uptr primary_index) {
  allocator_.FreeSecondary(primary_[primary_index], kind_);
  allocated_bytes_ -= allocator_.secondary_bytes();
  primary_[primary_index] = nullptr;
  UsedSecondary& used = UsedSecondaryOf(primary_index);
  used = used_secondaries_.back();
  used_secondaries_.pop_back();
}

Timestamp* ShadowMemory::TableChunk(uptr chunk_index) const {
  Timestamp** secondary = primary_[chunk_index >> kSecondaryBits];
  return secondary ? secondary[chunk_index & (kSecondaryEntries - 1)] : nullptr;
}

bool ShadowMemory::CacheAgreesWithTables() const {
  for (uptr i = 0; i < kCachedChunks; ++i) {
    const CachedChunk& cached = cache_[i];
    if (cached.index == CachedChunk().index) continue;  // empty
    const uptr index = cached.index & ~kAbsentChunk;
    if ((index & (kCachedChunks - 1)) != i || index >> kSecondaryBits >= kPrimaryEntries) return false;
    // An absent entry must hold no chunk, and the tables none either.
    const bool absent = cached.index != index;
    if ((cached.chunk == nullptr) != absent || TableChunk(index) != cached.chunk) return false;
  }
  return true;
}

bool ShadowMemory::AllSlotsAtMost(Timestamp mask, Timestamp limit) {
  bool at_most = true;
  ForEachChunk([&](uptr, const Timestamp* slots) {
    for (uptr i = 0; i < cells_per_chunk(); ++i) at_most &= (slots[i] & mask) <= limit;
  });
  return at_most;
}

}  // namespace aprof
