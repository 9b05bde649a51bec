// Fluxion runtime: standard algorithms inside differentiated code.
//
// Inside differentiated code an iterator of a std::vector is a position in
// its storage (the engine's LowerIterators.cpp), and an algorithm over
// positions is a call of the function of the same name below over
// pointers into the storage (LowerAlgorithms.cpp), whose body is
// differentiated like the user's own code: std::fill(y.begin(), y.end(), v)
// is fluxion::fill(y.data(), y.data() + y.size(), v). Adding an algorithm
// is adding a function here. (An algorithm given a lambda, such as
// std::transform, is a loop in place that calls the lambda instead.)
//
// std::max_element(first, last) returns first + k for some k in
// [0, last - first]: the position carries no derivative, the element it
// designates does. Each marker NAME_position below tells the engine that the
// algorithm std::NAME returns such a position in the range starting at its
// first argument: inside differentiated code, *std::max_element(x, x + n)
// is read as x[k], so its derivative flows to that element (the element
// selected, like fmax's). Over a container's iterators, k comes from the
// pointer version below, which is run, never differentiated.
#ifndef FLUXION_ALGORITHM_HPP
#define FLUXION_ALGORITHM_HPP

#include <algorithm>
#include <cstddef>

namespace fluxion::custom {

/// The type of every position marker.
struct position_in_first_range {};

inline constexpr position_in_first_range max_element_position{};
inline constexpr position_in_first_range min_element_position{};
inline constexpr position_in_first_range find_position{};
inline constexpr position_in_first_range find_if_position{};
inline constexpr position_in_first_range find_if_not_position{};
inline constexpr position_in_first_range adjacent_find_position{};
inline constexpr position_in_first_range lower_bound_position{};
inline constexpr position_in_first_range upper_bound_position{};
inline constexpr position_in_first_range partition_point_position{};
inline constexpr position_in_first_range is_sorted_until_position{};

} // namespace fluxion::custom

namespace fluxion {

// <numeric>'s folds over a container's storage: inside differentiated code,
// std::accumulate(x.begin(), x.end(), init) is accumulate(x.data(),
// x.data() + x.size(), init) below (the engine's LowerContainer.cpp), whose
// loop is differentiated like the user's own; the library's versions take
// iterators, which derivative code does not follow.
template <class T, class U>
U accumulate(const T *first, const T *last, U init) {
  for (; first != last; ++first)
    init = init + *first;
  return init;
}

template <class T, class S, class U>
U inner_product(const T *first1, const T *last1, const S *first2, U init) {
  for (; first1 != last1; ++first1, ++first2)
    init = init + *first1 * *first2;
  return init;
}

// Writing algorithms. Index loops over the count, the form the engine's
// loop analyses know best; each reads and writes what the library's does,
// in the same order (partial_sum and adjacent_difference may work in
// place, as the library's may).
template <class T, class U> void fill(T *first, T *last, const U &value) {
  std::ptrdiff_t n = last - first;
  for (std::ptrdiff_t i = 0; i < n; ++i)
    first[i] = value;
}

template <class T, class N, class U>
T *fill_n(T *first, N count, const U &value) {
  for (N i = 0; i < count; ++i)
    first[i] = value;
  return count > 0 ? first + count : first;
}

template <class T, class U> U *copy(const T *first, const T *last, U *out) {
  std::ptrdiff_t n = last - first;
  for (std::ptrdiff_t i = 0; i < n; ++i)
    out[i] = first[i];
  return out + n;
}

template <class T, class N, class U> U *copy_n(const T *first, N count, U *out) {
  for (N i = 0; i < count; ++i)
    out[i] = first[i];
  return count > 0 ? out + count : out;
}

template <class T, class U>
U *copy_backward(const T *first, const T *last, U *out_last) {
  std::ptrdiff_t n = last - first;
  for (std::ptrdiff_t i = n - 1; i >= 0; --i)
    out_last[i - n] = first[i];
  return out_last - n;
}

template <class T, class U>
U *partial_sum(const T *first, const T *last, U *out) {
  std::ptrdiff_t n = last - first;
  if (n == 0)
    return out;
  T sum = first[0];
  out[0] = sum;
  for (std::ptrdiff_t i = 1; i < n; ++i) {
    sum = sum + first[i];
    out[i] = sum;
  }
  return out + n;
}

template <class T, class U>
U *adjacent_difference(const T *first, const T *last, U *out) {
  std::ptrdiff_t n = last - first;
  if (n == 0)
    return out;
  T previous = first[0];
  out[0] = previous;
  for (std::ptrdiff_t i = 1; i < n; ++i) {
    T current = first[i];
    out[i] = current - previous;
    previous = current;
  }
  return out + n;
}

template <class T, class U> void iota(T *first, T *last, U value) {
  std::ptrdiff_t n = last - first;
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    first[i] = value;
    ++value;
  }
}

template <class T> void reverse(T *first, T *last) {
  std::ptrdiff_t n = last - first;
  for (std::ptrdiff_t i = 0; i < n / 2; ++i) {
    T t = first[i];
    first[i] = first[n - 1 - i];
    first[n - 1 - i] = t;
  }
}

// Sorting values: a heap sort, whose comparisons are data and whose swaps
// carry the derivatives with the values (O(n log n) recorded swaps). Equal
// values may end in another order than std::sort's: the sorted values are
// the same, and so is each one's derivative unless ties carry different
// derivatives (where the derivative of sorting does not exist).
template <class T>
void sort_sift_down(T *a, std::ptrdiff_t root, std::ptrdiff_t n) {
  while (2 * root + 1 < n) {
    std::ptrdiff_t child = 2 * root + 1;
    if (child + 1 < n && a[child] < a[child + 1])
      child = child + 1;
    if (!(a[root] < a[child]))
      break;
    T t = a[root];
    a[root] = a[child];
    a[child] = t;
    root = child;
  }
}

template <class T> void sort(T *first, T *last) {
  std::ptrdiff_t n = last - first;
  for (std::ptrdiff_t start = n / 2 - 1; start >= 0; --start)
    sort_sift_down(first, start, n);
  for (std::ptrdiff_t end = n - 1; end > 0; --end) {
    T t = first[0];
    first[0] = first[end];
    first[end] = t;
    sort_sift_down(first, 0, end);
  }
}

// Positions over a container's storage (run under stop_gradient: only the
// position is used).
template <class T> const T *max_element(const T *first, const T *last) {
  return std::max_element(first, last);
}
template <class T> const T *min_element(const T *first, const T *last) {
  return std::min_element(first, last);
}
template <class T, class U>
const T *find(const T *first, const T *last, const U &value) {
  return std::find(first, last, value);
}
template <class T> const T *adjacent_find(const T *first, const T *last) {
  return std::adjacent_find(first, last);
}
template <class T, class U>
const T *lower_bound(const T *first, const T *last, const U &value) {
  return std::lower_bound(first, last, value);
}
template <class T, class U>
const T *upper_bound(const T *first, const T *last, const U &value) {
  return std::upper_bound(first, last, value);
}
template <class T> const T *is_sorted_until(const T *first, const T *last) {
  return std::is_sorted_until(first, last);
}

} // namespace fluxion

#endif // FLUXION_ALGORITHM_HPP
