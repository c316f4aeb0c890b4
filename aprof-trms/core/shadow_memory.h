// SPDX-License-Identifier: GPL-2.0-or-later
// Three-level shadow memory: one 32-bit timestamp per memory cell over the
// whole 47-bit x86-64 user address space.
//
//   address bits 46..30 -> primary table (2^17 entries, one per GiB)
//   address bits 29..16 -> secondary table (2^14 entries, one per 64 KiB)
//   address bits 15..0  -> chunk: one Timestamp per cell of 2^shift bytes
//
// Secondary tables and chunks are allocated on first write access, so a
// per-thread table stays proportional to the memory that thread touched;
// they come from a ShadowAllocator shared by all shadow memories of an
// engine, which carves them out of large regions. Lookups that must not
// allocate (reading the global write timestamps) return null for untouched
// memory, which means "timestamp 0".
#ifndef APROF_CORE_SHADOW_MEMORY_H
#define APROF_CORE_SHADOW_MEMORY_H

#include "internal_vector.h"
#include "shadow_allocator.h"
#include "types.h"

namespace aprof {

class ShadowMemory {
 public:
  static constexpr unsigned kAddressBits = 47;
  static constexpr unsigned kChunkAddressBits = 16;
  static constexpr unsigned kSecondaryBits = 14;
  static constexpr unsigned kPrimaryBits =
      kAddressBits - kSecondaryBits - kChunkAddressBits;
  static constexpr uptr kAddressLimit = uptr{1} << kAddressBits;

  // Cells are 2^allocator.resolution_shift() bytes (shift 0..4: 1 to 16
  // bytes). The allocator must outlive the shadow memory; it counts the
  // blocks under `kind`.
  ShadowMemory(ShadowAllocator& allocator, ShadowKind kind);
  ~ShadowMemory();
  ShadowMemory(const ShadowMemory&) = delete;
  ShadowMemory& operator=(const ShadowMemory&) = delete;

  // Entries of the chunk cache (below), direct-mapped by chunk index.
  static constexpr uptr kCachedChunks = 256;

  uptr cells_per_chunk() const { return cell_in_chunk_mask_ + 1; }
  // Number of cells in the covered address space.
  uptr cell_limit() const { return kAddressLimit >> shift_; }

  // Slot of a cell (cell index = address >> shift, below cell_limit()),
  // allocating its chunk if needed.
  Timestamp* Slot(uptr cell) {
    APROF_DCHECK_LT(cell, cell_limit());
    const uptr chunk_index = ChunkIndexOf(cell);
    const CachedChunk& cached = cache_[chunk_index & (kCachedChunks - 1)];
    if (APROF_UNLIKELY(cached.index != chunk_index)) return UncachedSlot(cell);
    return cached.chunk + (cell & cell_in_chunk_mask_);
  }

  // Calls fn(cell, slots, count) for consecutive runs of cells covering
  // [first, last], one run per chunk: slots[i] is the slot of cell + i.
  template <typename Fn>
  void ForEachRun(uptr first, uptr last, Fn fn) {
    for (uptr cell = first, count; cell <= last; cell += count) {
      const uptr left_in_chunk = cells_per_chunk() - (cell & cell_in_chunk_mask_);
      count = last - cell + 1 < left_in_chunk ? last - cell + 1 : left_in_chunk;
      fn(cell, Slot(cell), count);
    }
  }

  // Timestamp of a cell, 0 if it was never written. A chunk never
  // allocated is cached too, as absent: reads of memory nobody wrote (a
  // mapped file, read-only data) then skip the table walk as well.
  Timestamp Get(uptr cell) {
    const uptr chunk_index = ChunkIndexOf(cell);
    const CachedChunk& cached = cache_[chunk_index & (kCachedChunks - 1)];
    const Timestamp* chunk = APROF_LIKELY((cached.index & ~kAbsentChunk) == chunk_index)
                                 ? cached.chunk
                                 : UncachedChunk(chunk_index);
    return chunk ? chunk[cell & cell_in_chunk_mask_] : 0;
  }

  // Chunk holding the cells of chunk_index (= address >> 16), or null.
  Timestamp* FindChunk(uptr chunk_index) { return ChunkFor(chunk_index, false); }
  // The same, allocating it if needed.
  Timestamp* ChunkAt(uptr chunk_index) { return ChunkFor(chunk_index, true); }
  // Whether the tables hold a chunk for chunk_index (the cache left alone).
  bool HasChunk(uptr chunk_index) const { return TableChunk(chunk_index) != nullptr; }
  // Whether the chunk cache holds the (allocated) chunk of a cell: Slot()
  // then finds it without a table walk or an allocation.
  bool IsCached(uptr cell) const {
    const uptr chunk_index = ChunkIndexOf(cell);
    return cache_[chunk_index & (kCachedChunks - 1)].index == chunk_index;
  }
  uptr ChunkIndexOf(uptr cell) const { return cell >> chunk_index_shift_; }

  // Called with the chunk index each time a chunk is allocated (the engine
  // learns which memory a thread accesses for the first time; no lookup
  // on the access path).
  using NewChunkHook = void (*)(void* context, uptr chunk_index);
  void set_new_chunk_hook(NewChunkHook hook, void* context) {
    new_chunk_hook_ = hook;
    new_chunk_context_ = context;
  }

  // Calls fn(chunk_index, slots) for every allocated chunk; slots has
  // cells_per_chunk() entries.
  template <typename Fn>
  void ForEachChunk(Fn fn) {
    for (const UsedSecondary& used : used_secondaries_) {
      Timestamp** secondary = primary_[used.primary_index];
      for (uptr s = 0; s < kSecondaryEntries; ++s)
        if (secondary[s]) fn((used.primary_index << kSecondaryBits) | s, secondary[s]);
    }
  }

  // Cells [first, last] become never accessed (timestamp 0), as after
  // munmap: chunks they cover whole go back to the allocator, the others
  // are zeroed in place (and go back too if nothing else in them was
  // accessed), and a secondary table left without chunks goes back too;
  // nothing is allocated.
  void Forget(uptr first, uptr last);

  // Bytes of secondary tables and chunks held, for statistics.
  u64 allocated_bytes() const { return allocated_bytes_; }
  // Lookups that missed the chunk cache and walked the tables (counted
  // with APROF_STATS only, see platform.h).
  u64 cache_misses() const { return cache_misses_; }

  // Whether every chunk-cache entry is empty or holds the chunk the tables
  // hold for its index (sanity checks, tests): a stale entry would send
  // accesses to a chunk given back, which another shadow may now use.
  bool CacheAgreesWithTables() const;
  // Whether every slot, masked, is at most `limit` (sanity checks: no
  // time above the counter). Reads every slot of every chunk: slow.
  bool AllSlotsAtMost(Timestamp mask, Timestamp limit);

 private:
  static constexpr uptr kPrimaryEntries = uptr{1} << kPrimaryBits;
  static constexpr uptr kSecondaryEntries = uptr{1} << kSecondaryBits;

  // Looks a chunk up in the tables and remembers it in the chunk cache.
  Timestamp* ChunkFor(uptr chunk_index, bool allocate) {
    Timestamp** secondary = primary_[chunk_index >> kSecondaryBits];
    if (APROF_UNLIKELY(secondary == nullptr)) {
      if (!allocate) return nullptr;
      secondary = AllocateSecondary(chunk_index >> kSecondaryBits);
    }
    Timestamp*& chunk = secondary[chunk_index & (kSecondaryEntries - 1)];
    if (APROF_UNLIKELY(chunk == nullptr)) {
      if (!allocate) return nullptr;
      return NewChunk(chunk_index, chunk);
    }
    cache_[chunk_index & (kCachedChunks - 1)] = {chunk_index, chunk};
    return chunk;
  }

  // Out of line, so that the cached path of Slot() needs no stack frame in
  // the access hooks.
  APROF_NOINLINE Timestamp* UncachedSlot(uptr cell);
  // Get()'s lookup past the cache: null for a chunk never allocated, which
  // the cache then holds as absent (flagged, so that Slot() takes it for a
  // miss and allocates).
  Timestamp* UncachedChunk(uptr chunk_index) {
    APROF_COUNT_EVENT(cache_misses_);
    Timestamp* chunk = ChunkFor(chunk_index, /*allocate=*/false);
    if (!chunk) cache_[chunk_index & (kCachedChunks - 1)] = {chunk_index | kAbsentChunk, nullptr};
    return chunk;
  }
  // The tables' chunk of chunk_index, or null, leaving the cache alone.
  Timestamp* TableChunk(uptr chunk_index) const;
  // Allocates the chunk of chunk_index into its (empty) table entry, caches
  // it and calls the new-chunk hook.
  APROF_NOINLINE Timestamp* NewChunk(uptr chunk_index, Timestamp*& entry);
  Timestamp** AllocateSecondary(uptr primary_index);
  Timestamp* AllocateChunk(uptr primary_index);
  // Forget() within the secondary table of primary_index.
  void ForgetInSecondary(uptr primary_index, uptr first, uptr last);
  // Whether slots[begin, end) are all 0.
  static bool AllZero(const Timestamp* slots, uptr begin, uptr end);
  void FreeSecondary(uptr primary_index);

  // Recently used chunks, direct-mapped by chunk index: accesses cluster in
  // a few regions at a time (stack, heap, globals, I/O buffers), each of
  // which usually keeps its entry, so most lookups skip both table levels.
  struct CachedChunk {
    uptr index = ~uptr{0};  // no chunk has this index, flagged or not
    Timestamp* chunk = nullptr;
  };
  // The flag of a cache entry that holds a chunk index with no chunk (Get()
  // only): chunk indexes have 31 bits.
  static constexpr uptr kAbsentChunk = uptr{1} << 63;

  const unsigned shift_;
  // Derived from shift_, kept to spare the access path their computation.
  const unsigned chunk_index_shift_;  // cell -> chunk index
  const uptr cell_in_chunk_mask_;     // cell -> its index in the chunk
  Timestamp*** primary_;
  CachedChunk cache_[kCachedChunks];
  ShadowAllocator& allocator_;  // after the fields of the access path
  // Primary entries that hold a secondary table, so that walks over the
  // shadow never scan the mostly empty primary table, with the number of
  // chunks in the table, so that a table whose last chunk is forgotten goes
  // back to the allocator (a program that maps and unmaps memory at ever
  // new addresses would otherwise keep a table per GiB it ever used).
  struct UsedSecondary {
    uptr primary_index;
    uptr chunks;
  };
  UsedSecondary& UsedSecondaryOf(uptr primary_index);
  InternalVector<UsedSecondary> used_secondaries_;
  u64 allocated_bytes_ = 0;
  const ShadowKind kind_;
  u64 cache_misses_ = 0;
  NewChunkHook new_chunk_hook_ = nullptr;
  void* new_chunk_context_ = nullptr;
};

}  // namespace aprof

#endif  // APROF_CORE_SHADOW_MEMORY_H
