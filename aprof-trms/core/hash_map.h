// SPDX-License-Identifier: GPL-2.0-or-later
// Hash map for trivially copyable keys and values, built for the profile
// tables: many small tables per thread, a few with 10^5 entries, no erase.
// The entries sit densely, in insertion order, in fixed-size chunks that
// never move (a returned reference stays valid); an open-addressing index
// (linear probing, power-of-two capacity, at most 3/4 full) of 8-byte slots
// finds them. A slot is the entry's number + 1 (0: empty) under 32 bits of
// the key's hash, so a probe compares keys only when the hashes agree, and
// growing rewrites the index alone. Against slots holding key and value
// (a 96-byte profile tuple took a 128-byte slot, 1/4 to 5/8 of them empty),
// an entry costs its own size plus 11 to 22 bytes of index.
// Traits supplies `static u64 Hash(const Key&)` and
// `static bool Equal(const Key&, const Key&)`.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_CORE_HASH_MAP_H
#define APROF_CORE_HASH_MAP_H

#include <type_traits>

#include "internal_vector.h"
#include "platform.h"

namespace aprof {

// kMaxEntries: the index holds an entry's number in 32 bits and its home
// slot in the hash's top 32 bits, so at most 2^31 entries (index capacity
// at most 2^32); a table that would grow beyond stops the run with a failed
// check rather than wrap. Tests lower it to reach that path.
template <typename Key, typename Value, typename Traits, u64 kMaxEntries = u64{1} << 31>
class HashMap {
  static_assert(std::is_trivially_copyable<Key>::value &&
                    std::is_trivially_copyable<Value>::value,
                "HashMap moves slots with memcpy");
  static_assert(kMaxEntries <= (u64{1} << 31), "entry numbers and home slots are 32 bits");

  struct Entry {
    Key key;
    Value value;
  };
  // Entries per chunk: a power of two, chunks of at most 4 KiB (one entry
  // if an entry is larger).
  static constexpr size_t ChunkEntries() {
    size_t n = 1;
    while (2 * n * sizeof(Entry) <= 4096) n *= 2;
    return n;
  }
  static constexpr size_t kChunkEntries = ChunkEntries();

 public:
  HashMap() = default;
  ~HashMap() { Clear(); }
  HashMap(const HashMap&) = delete;
  HashMap& operator=(const HashMap&) = delete;

  size_t size() const { return size_; }

  void Clear() {
    for (Entry* chunk : chunks_) PlatformFree(chunk);
    chunks_.clear();
    PlatformFree(index_);
    index_ = nullptr;
    capacity_ = size_ = 0;
  }

  // Returns the value for key, inserting a zero-initialised one if absent.
  Value& FindOrInsert(const Key& key) {
    if ((size_ + 1) * 4 > capacity_ * 3) Rehash(capacity_ ? capacity_ * 2 : kFirstCapacity);
    const u32 home = HomeOf(key);
    u64* slot = Probe(home, key);
    if (*slot) return EntryAt(*slot).value;
    APROF_CHECK_LT(size_, kMaxEntries);
    if (size_ % kChunkEntries == 0)
      chunks_.push_back(static_cast<Entry*>(PlatformAllocate(kChunkEntries * sizeof(Entry))));
    Entry& entry = chunks_.back()[size_ % kChunkEntries];
    entry.key = key;
    __builtin_memset(static_cast<void*>(&entry.value), 0, sizeof(Value));
    *slot = (static_cast<u64>(home) << 32) | (size_ + 1);
    ++size_;
    return entry.value;
  }

  const Value* Find(const Key& key) const {
    if (!capacity_) return nullptr;
    const u64* slot = Probe(HomeOf(key), key);
    return *slot ? &EntryAt(*slot).value : nullptr;
  }

  // Calls fn(key, value) for every entry, in insertion order.
  template <typename Fn>
  void ForEach(Fn fn) const {
    for (size_t i = 0; i < size_; ++i) {
      const Entry& entry = chunks_[i / kChunkEntries][i % kChunkEntries];
      fn(entry.key, entry.value);
    }
  }

  // Heap bytes held (entries' chunks, the chunk list and the index).
  size_t bytes() const {
    return chunks_.size() * (kChunkEntries * sizeof(Entry) + sizeof(Entry*)) +
           capacity_ * sizeof(u64);
  }

 private:
  static constexpr size_t kFirstCapacity = 16;

  static u32 HomeOf(const Key& key) { return static_cast<u32>(Traits::Hash(key) >> 32); }

  Entry& EntryAt(u64 slot) const {
    const size_t i = static_cast<u32>(slot) - 1;
    return chunks_[i / kChunkEntries][i % kChunkEntries];
  }

  // The slot holding key, or the empty slot where it belongs.
  u64* Probe(u32 home, const Key& key) const {
    const size_t mask = capacity_ - 1;
    for (size_t i = home & mask;; i = (i + 1) & mask) {
      u64* slot = &index_[i];
      if (!*slot) return slot;
      if (static_cast<u32>(*slot >> 32) == home && Traits::Equal(EntryAt(*slot).key, key))
        return slot;
    }
  }

  void Rehash(size_t capacity) {
    u64* index = static_cast<u64*>(PlatformAllocate(capacity * sizeof(u64)));
    __builtin_memset(index, 0, capacity * sizeof(u64));
    const size_t mask = capacity - 1;
    for (size_t i = 0; i < capacity_; ++i) {
      if (!index_[i]) continue;
      size_t j = static_cast<size_t>(index_[i] >> 32) & mask;
      while (index[j]) j = (j + 1) & mask;
      index[j] = index_[i];
    }
    PlatformFree(index_);
    index_ = index;
    capacity_ = capacity;
  }

  InternalVector<Entry*> chunks_;
  u64* index_ = nullptr;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

// Mixes 64 bits (the finaliser of MurmurHash3).
inline u64 MixHash(u64 x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace aprof

#endif  // APROF_CORE_HASH_MAP_H
