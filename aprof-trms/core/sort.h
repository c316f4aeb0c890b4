// SPDX-License-Identifier: GPL-2.0-or-later
// In-place heap sort: O(n log n) worst case, no recursion, no allocation,
// usable inside the tool where <algorithm>'s support code is not guaranteed.
#ifndef APROF_CORE_SORT_H
#define APROF_CORE_SORT_H

#include "types.h"

namespace aprof {

namespace sort_detail {
template <typename T, typename Less>
void SiftDown(T* a, size_t root, size_t n, Less less) {
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && less(a[child], a[child + 1])) ++child;
    if (!less(a[root], a[child])) return;
    T tmp = a[root];
    a[root] = a[child];
    a[child] = tmp;
    root = child;
  }
}
}  // namespace sort_detail

template <typename T, typename Less>
void HeapSort(T* a, size_t n, Less less) {
  if (n < 2) return;
  for (size_t i = n / 2; i-- > 0;) sort_detail::SiftDown(a, i, n, less);
  for (size_t end = n - 1; end > 0; --end) {
    T tmp = a[0];
    a[0] = a[end];
    a[end] = tmp;
    sort_detail::SiftDown(a, 0, end, less);
  }
}

}  // namespace aprof

#endif  // APROF_CORE_SORT_H
