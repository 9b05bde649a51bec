// Fluxion runtime: derivative rules of std::min, std::max, std::clamp and
// std::swap on numbers.
//
// std::min, std::max and std::clamp return a reference to one of their
// arguments. Inside differentiated code a call whose result is only read is
// used by value (the engine's lowering of calls, LowerExpr.cpp) and these
// rules give it its derivative: the whole derivative goes to the argument
// the library selects, so that ties and NaNs follow the library's own
// choice. That choice is fmax's and fmin's at ties (math.hpp: std::max(a,
// b) and std::min(a, b) return a when a == b, and fmax(x, y)'s derivative
// goes to x); with a NaN the library returns a where fmax returns the other
// argument, and the derivative follows the value returned.
#ifndef FLUXION_MINMAX_HPP
#define FLUXION_MINMAX_HPP

#include <algorithm>
#include <type_traits>
#include <utility>

namespace fluxion::custom {

namespace minmax_detail {
template <class T>
using IfFloat = std::enable_if_t<std::is_floating_point_v<T>, int>;
} // namespace minmax_detail

// The selection is the one the standard specifies, written out: max(a, b)
// is `a < b ? b : a` and min(a, b) is `b < a ? b : a` (the first argument
// when they are equivalent, and when the comparison involves a NaN), and
// clamp(v, lo, hi) is `v < lo ? lo : hi < v ? hi : v`. Plain branches keep
// the rules' own bodies differentiable: f_hvp differentiates them again.
#define FLUXION_SELECT_RULE_2(NAME, SECOND_WINS)                               \
  template <class T, minmax_detail::IfFloat<T> = 0>                            \
  inline T NAME##_vjp(const T &a, const T &b, T seed, T *d_a, T *d_b) {        \
    if (SECOND_WINS) {                                                         \
      *d_b += seed;                                                            \
      return b;                                                                \
    }                                                                          \
    *d_a += seed;                                                              \
    return a;                                                                  \
  }                                                                            \
  template <class T, minmax_detail::IfFloat<T> = 0>                            \
  inline T NAME##_jvp(const T &a, const T &b, T t_a, T t_b) {                  \
    return (SECOND_WINS) ? t_b : t_a;                                          \
  }

FLUXION_SELECT_RULE_2(max, a < b)
FLUXION_SELECT_RULE_2(min, b < a)
#undef FLUXION_SELECT_RULE_2

// clamp(v, lo, hi) returns lo below the range, hi above it and v inside it,
// its ends included (the derivative then goes to v).
template <class T, minmax_detail::IfFloat<T> = 0>
inline T clamp_vjp(const T &v, const T &lo, const T &hi, T seed, T *d_v,
                   T *d_lo, T *d_hi) {
  if (v < lo) {
    *d_lo += seed;
    return lo;
  }
  if (hi < v) {
    *d_hi += seed;
    return hi;
  }
  *d_v += seed;
  return v;
}
template <class T, minmax_detail::IfFloat<T> = 0>
inline T clamp_jvp(const T &v, const T &lo, const T &hi, T t_v, T t_lo,
                   T t_hi) {
  return v < lo ? t_lo : hi < v ? t_hi : t_v;
}

// swap(a, b) exchanges the values, and so their derivatives: the adjoints
// going back, the tangents going forward (the generated code calls the
// _jvp rule before std::swap, which exchanges the values).
template <class T, minmax_detail::IfFloat<T> = 0>
inline void swap_vjp(const T &, const T &, T *d_a, T *d_b) {
  T D = *d_a;
  *d_a = *d_b;
  *d_b = D;
}
template <class T, minmax_detail::IfFloat<T> = 0>
inline void swap_jvp(const T &, const T &, T *t_a, T *t_b) {
  T D = *t_a;
  *t_a = *t_b;
  *t_b = D;
}

} // namespace fluxion::custom

namespace fluxion {

// std::max({a, b, c}) and std::min({...}) inside differentiated code are
// max_of(max_of(a, b), c) and min_of(...) (the engine's
// LowerAlgorithms.cpp): the library's choice, the first of equal values,
// written out so that the derivative follows the value selected.
template <class T> T max_of(T a, T b) { return a < b ? b : a; }
template <class T> T min_of(T a, T b) { return b < a ? b : a; }

} // namespace fluxion

#endif // FLUXION_MINMAX_HPP
