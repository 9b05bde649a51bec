// Fluxion runtime: standard algorithms that return a position in a range.
//
// std::max_element(first, last) returns first + k for some k in
// [0, last - first]: the position carries no derivative, the element it
// designates does. Each marker NAME_position below tells the engine that the
// algorithm std::NAME returns such a position in the range starting at its
// first argument: inside differentiated code, *std::max_element(x, x + n)
// is read as x[k], so its derivative flows to that element (the element
// selected, like fmax's). Adding an algorithm is adding a line here.
#ifndef FLUXION_ALGORITHM_HPP
#define FLUXION_ALGORITHM_HPP

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

} // namespace fluxion

#endif // FLUXION_ALGORITHM_HPP
