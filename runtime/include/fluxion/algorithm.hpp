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

#endif // FLUXION_ALGORITHM_HPP
