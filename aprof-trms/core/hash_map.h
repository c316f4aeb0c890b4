// Open-addressing hash map (linear probing, power-of-two capacity) for
// trivially copyable keys and values. No erase: profile tables only grow.
// Traits supplies `static u64 Hash(const Key&)` and
// `static bool Equal(const Key&, const Key&)`.
#ifndef APROF_CORE_HASH_MAP_H
#define APROF_CORE_HASH_MAP_H

#include <type_traits>

#include "platform.h"

namespace aprof {

template <typename Key, typename Value, typename Traits>
class HashMap {
  static_assert(std::is_trivially_copyable<Key>::value &&
                    std::is_trivially_copyable<Value>::value,
                "HashMap moves slots with memcpy");

 public:
  HashMap() = default;
  ~HashMap() { PlatformFree(slots_); }
  HashMap(const HashMap&) = delete;
  HashMap& operator=(const HashMap&) = delete;

  size_t size() const { return size_; }

  void Clear() {
    PlatformFree(slots_);
    slots_ = nullptr;
    capacity_ = size_ = 0;
  }

  // Returns the value for key, inserting a zero-initialised one if absent.
  Value& FindOrInsert(const Key& key) {
    if ((size_ + 1) * 4 > capacity_ * 3) Rehash(capacity_ ? capacity_ * 2 : 64);
    Slot* slot = Probe(slots_, capacity_, key);
    if (!slot->used) {
      slot->used = true;
      slot->key = key;
      __builtin_memset(static_cast<void*>(&slot->value), 0, sizeof(Value));
      ++size_;
    }
    return slot->value;
  }

  const Value* Find(const Key& key) const {
    if (!capacity_) return nullptr;
    const Slot* slot = Probe(slots_, capacity_, key);
    return slot->used ? &slot->value : nullptr;
  }

  // Calls fn(key, value) for every entry, in no particular order.
  template <typename Fn>
  void ForEach(Fn fn) const {
    for (size_t i = 0; i < capacity_; ++i)
      if (slots_[i].used) fn(slots_[i].key, slots_[i].value);
  }

 private:
  struct Slot {
    Key key;
    Value value;
    bool used;
  };

  static Slot* Probe(Slot* slots, size_t capacity, const Key& key) {
    size_t i = static_cast<size_t>(Traits::Hash(key)) & (capacity - 1);
    while (slots[i].used && !Traits::Equal(slots[i].key, key))
      i = (i + 1) & (capacity - 1);
    return &slots[i];
  }

  void Rehash(size_t capacity) {
    Slot* slots = static_cast<Slot*>(PlatformAllocate(capacity * sizeof(Slot)));
    __builtin_memset(static_cast<void*>(slots), 0, capacity * sizeof(Slot));
    for (size_t i = 0; i < capacity_; ++i)
      if (slots_[i].used) *Probe(slots, capacity, slots_[i].key) = slots_[i];
    PlatformFree(slots_);
    slots_ = slots;
    capacity_ = capacity;
  }

  Slot* slots_ = nullptr;
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
