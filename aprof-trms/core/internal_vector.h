// SPDX-License-Identifier: GPL-2.0-or-later
// A growable array for trivially copyable elements, allocated through the
// platform layer (no libstdc++ runtime). Modelled on sanitizer_common's
// InternalMmapVector: no exceptions, no element destructors.
#ifndef APROF_CORE_INTERNAL_VECTOR_H
#define APROF_CORE_INTERNAL_VECTOR_H

#include <type_traits>

#include "platform.h"

namespace aprof {

template <typename T>
class InternalVector {
  static_assert(std::is_trivially_copyable<T>::value,
                "InternalVector moves elements with memcpy");

 public:
  InternalVector() = default;
  ~InternalVector() { PlatformFree(data_); }
  InternalVector(const InternalVector&) = delete;
  InternalVector& operator=(const InternalVector&) = delete;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  T& operator[](size_t i) {
    APROF_DCHECK_LT(i, size_);
    return data_[i];
  }
  const T& operator[](size_t i) const {
    APROF_DCHECK_LT(i, size_);
    return data_[i];
  }
  T& back() {
    APROF_DCHECK_GT(size_, 0u);
    return data_[size_ - 1];
  }
  const T& back() const {
    APROF_DCHECK_GT(size_, 0u);
    return data_[size_ - 1];
  }

  void push_back(const T& value) {
    if (size_ == capacity_) Grow(size_ + 1);
    data_[size_++] = value;
  }
  // Appends an element left uninitialised, for the caller to fill in place.
  T& Append() {
    if (size_ == capacity_) Grow(size_ + 1);
    return data_[size_++];
  }
  void pop_back() {
    APROF_DCHECK_GT(size_, 0u);
    --size_;
  }
  void clear() { size_ = 0; }

  // Grows (zero-filling new elements) or shrinks to n elements.
  void resize(size_t n) {
    if (n > capacity_) Grow(n);
    if (n > size_) __builtin_memset(static_cast<void*>(data_ + size_), 0, (n - size_) * sizeof(T));
    size_ = n;
  }

 private:
  void Grow(size_t min_capacity) {
    size_t capacity = capacity_ ? capacity_ * 2 : 16;
    if (capacity < min_capacity) capacity = min_capacity;
    T* data = static_cast<T*>(PlatformAllocate(capacity * sizeof(T)));
    if (size_) __builtin_memcpy(static_cast<void*>(data), data_, size_ * sizeof(T));
    PlatformFree(data_);
    data_ = data;
    capacity_ = capacity;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace aprof

#endif  // APROF_CORE_INTERNAL_VECTOR_H
