// SPDX-License-Identifier: GPL-2.0-or-later
// Private chunks of the global shadow: 64 KiB of memory that one live
// thread alone has a shadow chunk for, and that no other thread and no
// kernel write wrote since it was last forgotten. No read of such memory
// can be induced (docs/design.md, "Private chunks"), so the global shadow
// keeps no 32-bit write time per cell for it, only one bit per cell
// saying whether its owner wrote the cell; the write times are rebuilt
// from the owner's own slots when the chunk becomes shared.
#ifndef APROF_CORE_PRIVATE_CHUNKS_H
#define APROF_CORE_PRIVATE_CHUNKS_H

#include "hash_map.h"
#include "platform.h"
#include "types.h"

namespace aprof {

class PrivateChunks {
 public:
  struct Chunk {
    // The owning thread (the engine's record of it), null once it exited:
    // the chunk is then "orphaned" (no live thread has a chunk there).
    const void* owner;
    // Whether the owner wrote cell i: bit i % 32 of written()[i / 32].
    u32* written() { return reinterpret_cast<u32*>(this + 1); }
  };

  explicit PrivateChunks(uptr cells_per_chunk) : words_per_chunk_((cells_per_chunk + 31) / 32) {}
  ~PrivateChunks() {
    ForEach([](uptr, Chunk& chunk) { PlatformFree(&chunk); });
  }
  PrivateChunks(const PrivateChunks&) = delete;
  PrivateChunks& operator=(const PrivateChunks&) = delete;

  // The private chunk of chunk_index, or null (the chunk is shared: the
  // global shadow holds its write times, or none was written).
  Chunk* Find(uptr chunk_index) {
    CachedChunk& cached = cache_[chunk_index & (kCachedChunks - 1)];
    if (APROF_LIKELY(cached.index == chunk_index)) return cached.chunk;
    Chunk* const* found = chunks_.Find(chunk_index);
    if (found && *found) cached = {chunk_index, *found};
    return found ? *found : nullptr;
  }

  // The private chunk of chunk_index if the cache holds it, else null
  // (private or not): the write path's inline probe.
  Chunk* Cached(uptr chunk_index) {
    const CachedChunk& cached = cache_[chunk_index & (kCachedChunks - 1)];
    return cached.index == chunk_index ? cached.chunk : nullptr;
  }

  // chunk_index (not private) becomes private to owner, nothing written.
  void Create(uptr chunk_index, const void* owner) {
    const size_t bytes = chunk_bytes();
    bitmap_bytes_ += bytes;
    Chunk* chunk = static_cast<Chunk*>(PlatformAllocate(bytes));
    __builtin_memset(static_cast<void*>(chunk), 0, bytes);
    chunk->owner = owner;
    Chunk*& entry = chunks_.FindOrInsert(chunk_index);
    APROF_DCHECK(entry == nullptr);
    entry = chunk;
    cache_[chunk_index & (kCachedChunks - 1)] = {chunk_index, chunk};
  }

  // chunk_index is no longer private. Its table entry stays, null: the
  // table is keyed by every chunk ever private (16 bytes each).
  void Remove(uptr chunk_index) {
    Chunk*& entry = chunks_.FindOrInsert(chunk_index);
    PlatformFree(entry);
    bitmap_bytes_ -= chunk_bytes();
    entry = nullptr;
    CachedChunk& cached = cache_[chunk_index & (kCachedChunks - 1)];
    if (cached.index == chunk_index) cached = CachedChunk();
  }

  static void MarkWritten(Chunk& chunk, uptr first, uptr count) {
    for (uptr i = first; i < first + count; ++i) chunk.written()[i / 32] |= u32{1} << (i % 32);
  }
  static void ClearWritten(Chunk& chunk, uptr first, uptr count) {
    for (uptr i = first; i < first + count; ++i) chunk.written()[i / 32] &= ~(u32{1} << (i % 32));
  }
  // Calls fn(i) for every cell i the owner wrote, in order.
  template <typename Fn>
  void ForEachWritten(Chunk& chunk, Fn fn) const {
    for (uptr word = 0; word < words_per_chunk_; ++word)
      for (u32 bits = chunk.written()[word]; bits != 0; bits &= bits - 1)
        fn(word * 32 + static_cast<uptr>(__builtin_ctz(bits)));
  }
  bool NoneWritten(Chunk& chunk) const {
    for (uptr word = 0; word < words_per_chunk_; ++word)
      if (chunk.written()[word] != 0) return false;
    return true;
  }

  // Calls fn(chunk_index, chunk) for every private chunk; fn must not
  // create or remove any.
  template <typename Fn>
  void ForEach(Fn fn) {
    chunks_.ForEach([&fn](uptr chunk_index, Chunk* chunk) {
      if (chunk) fn(chunk_index, *chunk);
    });
  }
  // Chunk indexes ever private (bounds a walk over ForEach).
  size_t ever_private() const { return chunks_.size(); }
  // Bytes of bitmaps, table entries and index (statistics).
  u64 bytes() const { return bitmap_bytes_ + chunks_.bytes(); }

 private:
  struct KeyTraits {
    static u64 Hash(uptr chunk_index) { return MixHash(chunk_index); }
    static bool Equal(uptr a, uptr b) { return a == b; }
  };
  // Writes to a private chunk come here each time (the global shadow's
  // cache holds shared chunks only): recently used private chunks,
  // direct-mapped by chunk index, spare the hash table's probe.
  static constexpr uptr kCachedChunks = 256;
  struct CachedChunk {
    uptr index = ~uptr{0};
    Chunk* chunk = nullptr;
  };

  size_t chunk_bytes() const { return sizeof(Chunk) + words_per_chunk_ * sizeof(u32); }

  const uptr words_per_chunk_;
  HashMap<uptr, Chunk*, KeyTraits> chunks_;
  CachedChunk cache_[kCachedChunks];
  u64 bitmap_bytes_ = 0;  // of the private chunks now
};

}  // namespace aprof

#endif  // APROF_CORE_PRIVATE_CHUNKS_H
