// Fluxion runtime: derivative rules of <cmath>.
//
// Generated code differentiates a call to g(p...) by calling, in namespace
// fluxion::custom, the overload that ordinary overload resolution picks for
// the argument types of g's own parameters:
//
//   R g_vjp(P1 p1, ..., Pn pn, R seed, T1 *d_p1, ..., Tk *d_pk)
//       adds seed * dg/dp_i into *d_p_i for every floating parameter p_i (in
//       order; integer parameters get no pointer) and returns g(p...);
//   R g_jvp(P1 p1, ..., Pn pn, T1 t_p1, ..., Tk t_pk)
//       returns sum_i dg/dp_i * t_p_i (the tangent, not the value).
//
// Calls mixing argument types resolve to the same types as <cmath>'s own
// overloads: an integer counts as double, and the result has the type of the
// sum of the (promoted) arguments, so std::pow(float, int) gives double.
//
// Where a function is not differentiable the rules return the value JAX uses.
#ifndef FLUXION_MATH_HPP
#define FLUXION_MATH_HPP

#include <cmath>
#include <limits>
#include <type_traits>

namespace fluxion::custom {

namespace detail {

template <class... Ts>
inline constexpr bool AllFloating = (std::is_floating_point_v<Ts> && ...);

template <class... Ts> using IfFloat = std::enable_if_t<AllFloating<Ts...>, int>;

template <class F, class I>
using IfFloatInt = std::enable_if_t<
    std::is_floating_point_v<F> && std::is_integral_v<I>, int>;

template <class I, class F>
using IfIntFloat = std::enable_if_t<
    std::is_integral_v<I> && std::is_floating_point_v<F>, int>;

/// The type <cmath> computes a mixed call in.
template <class T>
using Promote1 = std::conditional_t<std::is_integral_v<T>, double, T>;
template <class... Ts> using Promoted = decltype((Promote1<Ts>() + ...));

template <class T> inline constexpr T Ln2 = T(0.693147180559945309417232121458176568L);
template <class T> inline constexpr T Ln10 = T(2.30258509299404568401799145468436421L);
template <class T>
inline constexpr T TwoOverSqrtPi = T(1.12837916709551257389615890312154517L);

template <class T> inline constexpr T Pi = T(3.14159265358979323846264338327950288L);

/// float rules compute auxiliary functions (digamma, zeta') in double.
template <class T>
using Wide = std::conditional_t<std::is_same_v<T, float>, double, T>;

/// The digamma function psi = Gamma'/Gamma, which <cmath> lacks: NaN at
/// the poles (0, -1, -2, ...), the reflection psi(1 - x) - pi cot(pi x)
/// below 1/2, the recurrence psi(x) = psi(x + 1) - 1/x up to 10 (16 for
/// long double), then the asymptotic series (relative error below 1e-17,
/// resp. 1e-19, there).
template <class T> inline T digamma(T x) {
  if (std::isnan(x))
    return x;
  if (x <= 0 && x == std::floor(x))
    return std::numeric_limits<T>::quiet_NaN();
  T Acc = 0;
  if (x < T(0.5)) {
    // cot has period 1: reduce first, so that pi * r stays accurate.
    T r = x - std::floor(x);
    Acc = -Pi<T> / std::tan(Pi<T> * r);
    x = 1 - x;
  }
  const T Shift = sizeof(T) > sizeof(double) ? T(16) : T(10);
  for (; x < Shift; x += 1)
    Acc -= 1 / x;
  // sum_k B_2k / (2k x^2k), k = 1..8.
  T z = 1 / (x * x);
  T Series =
      z * (T(1) / 12 -
           z * (T(1) / 120 -
                z * (T(1) / 252 -
                     z * (T(1) / 240 -
                          z * (T(1) / 132 -
                               z * (T(691) / 32760 -
                                    z * (T(1) / 12 - z * (T(3617) / 8160))))))));
  return Acc + std::log(x) - T(0.5) / x - Series;
}

/// sign(+-0) = +-0, so that fabs'(0) = 0 as in JAX; NaN stays NaN.
template <class T> inline T sign(T X) {
  return X > 0 ? T(1) : X < 0 ? T(-1) : X;
}

/// A zero seed or tangent contributes nothing, even through an infinite
/// partial derivative: a value that no path uses (the argument fmax did not
/// select, an input a direction does not move) has derivative 0, not the
/// NaN of 0 * inf. Used by every rule whose partial can be infinite where
/// the function itself is finite (sqrt and cbrt at 0, asin at 1, log at 0
/// under fmax, pow(0, 0.5)) and by the two-argument rules.
/// The same for an undefined partial (NaN: pow's in its exponent at a
/// negative base, which std::pow(x, 2.0) and the second derivative of
/// std::pow(x, 2) meet with a zero tangent of the exponent).
/// Only the 0 * inf, 0 * NaN and 0 / 0 cases change: elsewhere these are the plain
/// product and quotient, so that differentiating a rule again (f_hvp)
/// keeps the derivative of the zero factor.
template <class T> inline T product0(T A, T B) {
  if ((A == 0 && (std::isinf(B) || std::isnan(B))) ||
      (B == 0 && (std::isinf(A) || std::isnan(A))))
    return T(0);
  return A * B;
}
template <class T> inline T quotient0(T A, T B) {
  if (A == 0 && B == 0)
    return T(0);
  return A / B;
}

} // namespace detail

//===----------------------------------------------------------------------===//
// One argument
//===----------------------------------------------------------------------===//

#define FLUXION_FLOAT_TEMPLATE template <class T, detail::IfFloat<T> = 0>

// Trigonometric.

FLUXION_FLOAT_TEMPLATE inline T sin_vjp(T x, T seed, T *d_x) {
  *d_x += seed * std::cos(x);
  return std::sin(x);
}
FLUXION_FLOAT_TEMPLATE inline T sin_jvp(T x, T t_x) { return std::cos(x) * t_x; }

FLUXION_FLOAT_TEMPLATE inline T cos_vjp(T x, T seed, T *d_x) {
  *d_x -= seed * std::sin(x);
  return std::cos(x);
}
FLUXION_FLOAT_TEMPLATE inline T cos_jvp(T x, T t_x) { return -std::sin(x) * t_x; }

FLUXION_FLOAT_TEMPLATE inline T tan_vjp(T x, T seed, T *d_x) {
  T y = std::tan(x);
  *d_x += seed * (1 + y * y);
  return y;
}
FLUXION_FLOAT_TEMPLATE inline T tan_jvp(T x, T t_x) {
  T y = std::tan(x);
  return (1 + y * y) * t_x;
}

// (1 - x)(1 + x) rather than 1 - x^2: accurate near |x| = 1.
FLUXION_FLOAT_TEMPLATE inline T asin_vjp(T x, T seed, T *d_x) {
  *d_x += detail::quotient0(seed, std::sqrt((1 - x) * (1 + x)));
  return std::asin(x);
}
FLUXION_FLOAT_TEMPLATE inline T asin_jvp(T x, T t_x) {
  return detail::quotient0(t_x, std::sqrt((1 - x) * (1 + x)));
}

FLUXION_FLOAT_TEMPLATE inline T acos_vjp(T x, T seed, T *d_x) {
  *d_x -= detail::quotient0(seed, std::sqrt((1 - x) * (1 + x)));
  return std::acos(x);
}
FLUXION_FLOAT_TEMPLATE inline T acos_jvp(T x, T t_x) {
  return -detail::quotient0(t_x, std::sqrt((1 - x) * (1 + x)));
}

FLUXION_FLOAT_TEMPLATE inline T atan_vjp(T x, T seed, T *d_x) {
  *d_x += seed / (1 + x * x);
  return std::atan(x);
}
FLUXION_FLOAT_TEMPLATE inline T atan_jvp(T x, T t_x) { return t_x / (1 + x * x); }

// Hyperbolic.

FLUXION_FLOAT_TEMPLATE inline T sinh_vjp(T x, T seed, T *d_x) {
  *d_x += seed * std::cosh(x);
  return std::sinh(x);
}
FLUXION_FLOAT_TEMPLATE inline T sinh_jvp(T x, T t_x) { return std::cosh(x) * t_x; }

FLUXION_FLOAT_TEMPLATE inline T cosh_vjp(T x, T seed, T *d_x) {
  *d_x += seed * std::sinh(x);
  return std::cosh(x);
}
FLUXION_FLOAT_TEMPLATE inline T cosh_jvp(T x, T t_x) { return std::sinh(x) * t_x; }

FLUXION_FLOAT_TEMPLATE inline T tanh_vjp(T x, T seed, T *d_x) {
  T y = std::tanh(x);
  *d_x += seed * (1 - y * y);
  return y;
}
FLUXION_FLOAT_TEMPLATE inline T tanh_jvp(T x, T t_x) {
  T y = std::tanh(x);
  return (1 - y * y) * t_x;
}

FLUXION_FLOAT_TEMPLATE inline T asinh_vjp(T x, T seed, T *d_x) {
  *d_x += seed / std::sqrt(x * x + 1);
  return std::asinh(x);
}
FLUXION_FLOAT_TEMPLATE inline T asinh_jvp(T x, T t_x) {
  return t_x / std::sqrt(x * x + 1);
}

FLUXION_FLOAT_TEMPLATE inline T acosh_vjp(T x, T seed, T *d_x) {
  *d_x += detail::quotient0(seed, std::sqrt((x - 1) * (x + 1)));
  return std::acosh(x);
}
FLUXION_FLOAT_TEMPLATE inline T acosh_jvp(T x, T t_x) {
  return detail::quotient0(t_x, std::sqrt((x - 1) * (x + 1)));
}

FLUXION_FLOAT_TEMPLATE inline T atanh_vjp(T x, T seed, T *d_x) {
  *d_x += detail::quotient0(seed, ((1 - x) * (1 + x)));
  return std::atanh(x);
}
FLUXION_FLOAT_TEMPLATE inline T atanh_jvp(T x, T t_x) {
  return detail::quotient0(t_x, ((1 - x) * (1 + x)));
}

// Exponential and logarithmic.

FLUXION_FLOAT_TEMPLATE inline T exp_vjp(T x, T seed, T *d_x) {
  T y = std::exp(x);
  *d_x += seed * y;
  return y;
}
FLUXION_FLOAT_TEMPLATE inline T exp_jvp(T x, T t_x) { return std::exp(x) * t_x; }

FLUXION_FLOAT_TEMPLATE inline T exp2_vjp(T x, T seed, T *d_x) {
  T y = std::exp2(x);
  *d_x += seed * (y * detail::Ln2<T>);
  return y;
}
FLUXION_FLOAT_TEMPLATE inline T exp2_jvp(T x, T t_x) {
  return std::exp2(x) * detail::Ln2<T> * t_x;
}

FLUXION_FLOAT_TEMPLATE inline T expm1_vjp(T x, T seed, T *d_x) {
  T y = std::expm1(x);
  *d_x += seed * (y + 1);
  return y;
}
FLUXION_FLOAT_TEMPLATE inline T expm1_jvp(T x, T t_x) { return std::exp(x) * t_x; }

FLUXION_FLOAT_TEMPLATE inline T log_vjp(T x, T seed, T *d_x) {
  *d_x += detail::quotient0(seed, x);
  return std::log(x);
}
FLUXION_FLOAT_TEMPLATE inline T log_jvp(T x, T t_x) {
  return detail::quotient0(t_x, x);
}

FLUXION_FLOAT_TEMPLATE inline T log2_vjp(T x, T seed, T *d_x) {
  *d_x += detail::quotient0(seed, (x * detail::Ln2<T>));
  return std::log2(x);
}
FLUXION_FLOAT_TEMPLATE inline T log2_jvp(T x, T t_x) {
  return detail::quotient0(t_x, (x * detail::Ln2<T>));
}

FLUXION_FLOAT_TEMPLATE inline T log10_vjp(T x, T seed, T *d_x) {
  *d_x += detail::quotient0(seed, (x * detail::Ln10<T>));
  return std::log10(x);
}
FLUXION_FLOAT_TEMPLATE inline T log10_jvp(T x, T t_x) {
  return detail::quotient0(t_x, (x * detail::Ln10<T>));
}

FLUXION_FLOAT_TEMPLATE inline T log1p_vjp(T x, T seed, T *d_x) {
  *d_x += detail::quotient0(seed, (1 + x));
  return std::log1p(x);
}
FLUXION_FLOAT_TEMPLATE inline T log1p_jvp(T x, T t_x) {
  return detail::quotient0(t_x, (1 + x));
}

// Powers.

// sqrt'(0) = +inf, as in JAX.
FLUXION_FLOAT_TEMPLATE inline T sqrt_vjp(T x, T seed, T *d_x) {
  T y = std::sqrt(x);
  *d_x += detail::quotient0(seed, (2 * y));
  return y;
}
FLUXION_FLOAT_TEMPLATE inline T sqrt_jvp(T x, T t_x) {
  return detail::quotient0(t_x, (2 * std::sqrt(x)));
}

// cbrt'(0) = +inf, as in JAX.
FLUXION_FLOAT_TEMPLATE inline T cbrt_vjp(T x, T seed, T *d_x) {
  T y = std::cbrt(x);
  *d_x += detail::quotient0(seed, (3 * y * y));
  return y;
}
FLUXION_FLOAT_TEMPLATE inline T cbrt_jvp(T x, T t_x) {
  T y = std::cbrt(x);
  return detail::quotient0(t_x, (3 * y * y));
}

// Absolute value: fabs'(0) = 0, as in JAX (see detail::sign).

FLUXION_FLOAT_TEMPLATE inline T fabs_vjp(T x, T seed, T *d_x) {
  *d_x += seed * detail::sign(x);
  return std::fabs(x);
}
FLUXION_FLOAT_TEMPLATE inline T fabs_jvp(T x, T t_x) { return detail::sign(x) * t_x; }

FLUXION_FLOAT_TEMPLATE inline T abs_vjp(T x, T seed, T *d_x) {
  *d_x += seed * detail::sign(x);
  return std::abs(x);
}
FLUXION_FLOAT_TEMPLATE inline T abs_jvp(T x, T t_x) { return detail::sign(x) * t_x; }

// Error functions.

FLUXION_FLOAT_TEMPLATE inline T erf_vjp(T x, T seed, T *d_x) {
  *d_x += seed * (detail::TwoOverSqrtPi<T> * std::exp(-x * x));
  return std::erf(x);
}
FLUXION_FLOAT_TEMPLATE inline T erf_jvp(T x, T t_x) {
  return detail::TwoOverSqrtPi<T> * std::exp(-x * x) * t_x;
}

FLUXION_FLOAT_TEMPLATE inline T erfc_vjp(T x, T seed, T *d_x) {
  *d_x -= seed * (detail::TwoOverSqrtPi<T> * std::exp(-x * x));
  return std::erfc(x);
}
FLUXION_FLOAT_TEMPLATE inline T erfc_jvp(T x, T t_x) {
  return -detail::TwoOverSqrtPi<T> * std::exp(-x * x) * t_x;
}

// Rounding: piecewise constant. The derivative is 0 everywhere, the jumps
// included (as in JAX), so nothing is added to *d_x.

FLUXION_FLOAT_TEMPLATE inline T floor_vjp(T x, T, T *) { return std::floor(x); }
FLUXION_FLOAT_TEMPLATE inline T floor_jvp(T, T) { return T(0); }

FLUXION_FLOAT_TEMPLATE inline T ceil_vjp(T x, T, T *) { return std::ceil(x); }
FLUXION_FLOAT_TEMPLATE inline T ceil_jvp(T, T) { return T(0); }

FLUXION_FLOAT_TEMPLATE inline T round_vjp(T x, T, T *) { return std::round(x); }
FLUXION_FLOAT_TEMPLATE inline T round_jvp(T, T) { return T(0); }

FLUXION_FLOAT_TEMPLATE inline T trunc_vjp(T x, T, T *) { return std::trunc(x); }
FLUXION_FLOAT_TEMPLATE inline T trunc_jvp(T, T) { return T(0); }

FLUXION_FLOAT_TEMPLATE inline T rint_vjp(T x, T, T *) { return std::rint(x); }
FLUXION_FLOAT_TEMPLATE inline T rint_jvp(T, T) { return T(0); }

FLUXION_FLOAT_TEMPLATE inline T nearbyint_vjp(T x, T, T *) {
  return std::nearbyint(x);
}
FLUXION_FLOAT_TEMPLATE inline T nearbyint_jvp(T, T) { return T(0); }

// ldexp(x, n) = x * 2^n and scalbn (the same for binary floating types).

FLUXION_FLOAT_TEMPLATE inline T ldexp_vjp(T x, int n, T seed, T *d_x) {
  *d_x += seed * std::ldexp(T(1), n);
  return std::ldexp(x, n);
}
FLUXION_FLOAT_TEMPLATE inline T ldexp_jvp(T, int n, T t_x) {
  return std::ldexp(t_x, n);
}

FLUXION_FLOAT_TEMPLATE inline T scalbn_vjp(T x, int n, T seed, T *d_x) {
  *d_x += seed * std::scalbn(T(1), n);
  return std::scalbn(x, n);
}
FLUXION_FLOAT_TEMPLATE inline T scalbn_jvp(T, int n, T t_x) {
  return std::scalbn(t_x, n);
}

// scalbln(x, n): scalbn with a long exponent.
FLUXION_FLOAT_TEMPLATE inline T scalbln_vjp(T x, long n, T seed, T *d_x) {
  *d_x += seed * std::scalbln(T(1), n);
  return std::scalbln(x, n);
}
FLUXION_FLOAT_TEMPLATE inline T scalbln_jvp(T, long n, T t_x) {
  return std::scalbln(t_x, n);
}

// Gamma functions. lgamma(x) = log|Gamma(x)|, whose derivative is psi(x)
// for negative x too; tgamma' = Gamma psi. At the poles (x = 0, -1, -2,
// ...), where the values are infinite, the derivatives are NaN.
FLUXION_FLOAT_TEMPLATE inline T lgamma_vjp(T x, T seed, T *d_x) {
  *d_x += seed * static_cast<T>(detail::digamma<detail::Wide<T>>(x));
  return std::lgamma(x);
}
FLUXION_FLOAT_TEMPLATE inline T lgamma_jvp(T x, T t_x) {
  return static_cast<T>(detail::digamma<detail::Wide<T>>(x)) * t_x;
}

FLUXION_FLOAT_TEMPLATE inline T tgamma_vjp(T x, T seed, T *d_x) {
  T v = std::tgamma(x);
  *d_x += seed * (v * static_cast<T>(detail::digamma<detail::Wide<T>>(x)));
  return v;
}
FLUXION_FLOAT_TEMPLATE inline T tgamma_jvp(T x, T t_x) {
  return std::tgamma(x) * static_cast<T>(detail::digamma<detail::Wide<T>>(x)) *
         t_x;
}

// logb(x) is the exponent of x, an integer: piecewise constant like floor.
FLUXION_FLOAT_TEMPLATE inline T logb_vjp(T x, T, T *) { return std::logb(x); }
FLUXION_FLOAT_TEMPLATE inline T logb_jvp(T, T) { return T(0); }

// frexp(x, &e) = x * 2^-e with an integer exponent e (which carries no
// derivative): the mantissa's derivative is 2^-e, the jumps where e
// changes ignored, as for fmod. The rules do not write *e: the generated
// code's own call of frexp does.
template <class T, detail::IfFloat<T> = 0>
inline T frexp_vjp(T x, int *, T seed, T *d_x) {
  int e = 0;
  T m = std::frexp(x, &e);
  *d_x += seed * std::ldexp(T(1), -e);
  return m;
}
template <class T, detail::IfFloat<T> = 0>
inline T frexp_jvp(T x, int *, T t_x) {
  int e = 0;
  std::frexp(x, &e);
  return std::ldexp(t_x, -e);
}

// modf(x, &i) = x - trunc(x), with i = trunc(x): the fraction has
// derivative 1, the integer part 0. The adjoint of *i, which the call
// overwrites, is consumed; the tangent of *i is 0.
template <class T, detail::IfFloat<T> = 0>
inline T modf_vjp(T x, T *, T seed, T *d_x, T *d_i) {
  T i;
  *d_x += seed;
  *d_i = 0;
  return std::modf(x, &i);
}
template <class T, detail::IfFloat<T> = 0>
inline T modf_jvp(T, T *, T t_x, T *t_i) {
  *t_i = 0;
  return t_x;
}

//===----------------------------------------------------------------------===//
// Two arguments
//
// Each rule gives the two partial derivatives in the type R the call is
// computed in, from the arguments and the value v. FLUXION_BINARY_RULE(g)
// then defines g_vjp and g_jvp for every argument mix <cmath> accepts: two
// floating arguments of any types, and a floating argument with an integer
// one (which gets no derivative), as in std::pow(x, 3) or std::fmax(x, 0).
//===----------------------------------------------------------------------===//

namespace detail {

// atan2(x, y) is the angle of the point (y, x). At the origin the partials
// are 0/0 = NaN, as in JAX.
template <class R> inline R atan2_dx(R x, R y, R) { return y / (x * x + y * y); }
template <class R> inline R atan2_dy(R x, R y, R) { return -x / (x * x + y * y); }

// At the origin both partials are 0 (JAX's hypot, like fabs'(0) = 0).
template <class R> inline R hypot_dx(R x, R, R v) { return v == 0 ? R(0) : x / v; }
template <class R> inline R hypot_dy(R, R y, R v) { return v == 0 ? R(0) : y / v; }

// d/dx is y x^(y-1) but 0 at x == y == 0, where the formula gives 0 * inf
// (JAX's value); d/dy is log(x) x^y but 0 when x == 0 (where the formula
// gives -inf * 0). The exception for y == 0 is made only where it is
// needed, at x == 0: elsewhere y x^(y-1) is already 0 there, and its own
// derivative in y, x^-1, is what f_hvp and f_hessian must see (a select on
// y == 0 alone hid it).
template <class R> inline R pow_dx(R x, R y, R) {
  return y == 0 && x == 0 ? R(0) : y * std::pow(x, y - 1);
}
template <class R> inline R pow_dy(R x, R, R v) {
  return x == 0 ? R(0) : v * std::log(x);
}

// fmin and fmax return one of their arguments: the whole derivative goes to
// that one; ties go to the first; a NaN argument is the one not returned.
template <class R> inline bool fmaxTakesX(R x, R y) {
  return x >= y || std::isnan(y);
}
template <class R> inline R fmax_dx(R x, R y, R) { return fmaxTakesX(x, y) ? R(1) : R(0); }
template <class R> inline R fmax_dy(R x, R y, R) { return fmaxTakesX(x, y) ? R(0) : R(1); }

template <class R> inline bool fminTakesX(R x, R y) {
  return x <= y || std::isnan(y);
}
template <class R> inline R fmin_dx(R x, R y, R) { return fminTakesX(x, y) ? R(1) : R(0); }
template <class R> inline R fmin_dy(R x, R y, R) { return fminTakesX(x, y) ? R(0) : R(1); }

// fmod(x, y) = x - trunc(x / y) * y; the jumps are ignored, as in JAX.
template <class R> inline R fmod_dx(R, R, R) { return R(1); }
template <class R> inline R fmod_dy(R x, R y, R) { return -std::trunc(x / y); }

// copysign(x, y) = +-|x|: +1 where the signs of x and y agree, -1 where they
// differ, and 0 at x == 0 (JAX's value, like fabs'(0) = 0). Nothing for y.
template <class R> inline R copysign_dx(R x, R y, R) {
  return std::signbit(y) ? -sign(x) : sign(x);
}
template <class R> inline R copysign_dy(R, R, R) { return R(0); }

// fdim(x, y) = max(x - y, 0): derivative (1, -1) where x > y, (0, 0)
// elsewhere, the kink x == y included (relu'(0) = 0, as in JAX).
template <class R> inline R fdim_dx(R x, R y, R) { return x > y ? R(1) : R(0); }
template <class R> inline R fdim_dy(R x, R y, R) { return x > y ? R(-1) : R(0); }

// remainder(x, y) = x - n y with n = x / y rounded to the nearest integer
// (ties to even); n is recovered exactly from the value, as (x - v) / y.
// The jumps where n changes are ignored, as for fmod.
template <class R> inline R remainder_dx(R, R, R) { return R(1); }
template <class R> inline R remainder_dy(R x, R y, R v) {
  return -std::nearbyint((x - v) / y);
}

// nextafter(x, y) is x moved by one unit in the last place toward y: the
// derivative of the identity in x, none in y.
template <class R> inline R nextafter_dx(R, R, R) { return R(1); }
template <class R> inline R nextafter_dy(R, R, R) { return R(0); }

} // namespace detail

#define FLUXION_BINARY_RULE(NAME)                                              \
  template <class X, class Y, detail::IfFloat<X, Y> = 0>                       \
  inline detail::Promoted<X, Y> NAME##_vjp(                                    \
      X x, Y y, detail::Promoted<X, Y> seed, X *d_x, Y *d_y) {                 \
    using R = detail::Promoted<X, Y>;                                          \
    R v = std::NAME(x, y), rx = static_cast<R>(x), ry = static_cast<R>(y);     \
    *d_x += static_cast<X>(detail::product0(seed, detail::NAME##_dx(rx, ry, v))); \
    *d_y += static_cast<Y>(detail::product0(seed, detail::NAME##_dy(rx, ry, v))); \
    return v;                                                                  \
  }                                                                            \
  template <class X, class Y, detail::IfFloat<X, Y> = 0>                       \
  inline detail::Promoted<X, Y> NAME##_jvp(X x, Y y, X t_x, Y t_y) {           \
    using R = detail::Promoted<X, Y>;                                          \
    R v = std::NAME(x, y), rx = static_cast<R>(x), ry = static_cast<R>(y);     \
    return detail::product0(detail::NAME##_dx(rx, ry, v), static_cast<R>(t_x)) + \
           detail::product0(detail::NAME##_dy(rx, ry, v), static_cast<R>(t_y)); \
  }                                                                            \
  template <class X, class I, detail::IfFloatInt<X, I> = 0>                    \
  inline detail::Promoted<X, I> NAME##_vjp(                                    \
      X x, I y, detail::Promoted<X, I> seed, X *d_x) {                         \
    using R = detail::Promoted<X, I>;                                          \
    R v = std::NAME(x, y);                                                     \
    *d_x += static_cast<X>(detail::product0(                                   \
        seed, detail::NAME##_dx(static_cast<R>(x), static_cast<R>(y), v)));    \
    return v;                                                                  \
  }                                                                            \
  template <class X, class I, detail::IfFloatInt<X, I> = 0>                    \
  inline detail::Promoted<X, I> NAME##_jvp(X x, I y, X t_x) {                  \
    using R = detail::Promoted<X, I>;                                          \
    R v = std::NAME(x, y);                                                     \
    return detail::product0(                                                   \
        detail::NAME##_dx(static_cast<R>(x), static_cast<R>(y), v),            \
        static_cast<R>(t_x));                                                  \
  }                                                                            \
  template <class I, class Y, detail::IfIntFloat<I, Y> = 0>                    \
  inline detail::Promoted<I, Y> NAME##_vjp(                                    \
      I x, Y y, detail::Promoted<I, Y> seed, Y *d_y) {                         \
    using R = detail::Promoted<I, Y>;                                          \
    R v = std::NAME(x, y);                                                     \
    *d_y += static_cast<Y>(detail::product0(                                   \
        seed, detail::NAME##_dy(static_cast<R>(x), static_cast<R>(y), v)));    \
    return v;                                                                  \
  }                                                                            \
  template <class I, class Y, detail::IfIntFloat<I, Y> = 0>                    \
  inline detail::Promoted<I, Y> NAME##_jvp(I x, Y y, Y t_y) {                  \
    using R = detail::Promoted<I, Y>;                                          \
    R v = std::NAME(x, y);                                                     \
    return detail::product0(                                                   \
        detail::NAME##_dy(static_cast<R>(x), static_cast<R>(y), v),            \
        static_cast<R>(t_y));                                                  \
  }

FLUXION_BINARY_RULE(atan2)
FLUXION_BINARY_RULE(hypot)
FLUXION_BINARY_RULE(pow)
FLUXION_BINARY_RULE(fmin)
FLUXION_BINARY_RULE(fmax)
FLUXION_BINARY_RULE(fmod)
FLUXION_BINARY_RULE(copysign)
FLUXION_BINARY_RULE(fdim)
FLUXION_BINARY_RULE(remainder)
FLUXION_BINARY_RULE(nextafter)

#undef FLUXION_BINARY_RULE

//===----------------------------------------------------------------------===//
// Three arguments
//===----------------------------------------------------------------------===//

template <class X, class Y, class Z, detail::IfFloat<X, Y, Z> = 0>
inline detail::Promoted<X, Y, Z> fma_vjp(X x, Y y, Z z,
                                         detail::Promoted<X, Y, Z> seed,
                                         X *d_x, Y *d_y, Z *d_z) {
  using R = detail::Promoted<X, Y, Z>;
  *d_x += static_cast<X>(seed * static_cast<R>(y));
  *d_y += static_cast<Y>(seed * static_cast<R>(x));
  *d_z += static_cast<Z>(seed);
  return std::fma(x, y, z);
}
template <class X, class Y, class Z, detail::IfFloat<X, Y, Z> = 0>
inline detail::Promoted<X, Y, Z> fma_jvp(X x, Y y, Z, X t_x, Y t_y, Z t_z) {
  using R = detail::Promoted<X, Y, Z>;
  return static_cast<R>(y) * static_cast<R>(t_x) +
         static_cast<R>(x) * static_cast<R>(t_y) + static_cast<R>(t_z);
}

// remquo(x, y, &q): remainder's value and derivatives; q (the low bits of
// the quotient, an integer) carries no derivative and is written by the
// generated code's own call of remquo, not by the rules.
template <class X, class Y, detail::IfFloat<X, Y> = 0>
inline detail::Promoted<X, Y> remquo_vjp(X x, Y y, int *,
                                          detail::Promoted<X, Y> seed,
                                          X *d_x, Y *d_y) {
  return remainder_vjp(x, y, seed, d_x, d_y);
}
template <class X, class Y, detail::IfFloat<X, Y> = 0>
inline detail::Promoted<X, Y> remquo_jvp(X x, Y y, int *, X t_x, Y t_y) {
  return remainder_jvp(x, y, t_x, t_y);
}

// nexttoward(x, y): nextafter with a long double direction; the result has
// x's type.
template <class X, detail::IfFloat<X> = 0>
inline X nexttoward_vjp(X x, long double y, X seed, X *d_x, long double *) {
  *d_x += seed;
  return std::nexttoward(x, y);
}
template <class X, detail::IfFloat<X> = 0>
inline X nexttoward_jvp(X, long double, X t_x, long double) {
  return t_x;
}

// hypot(x, y, z) (C++17) = |(x, y, z)|: the partials are the coordinates
// over the value, 0 at the origin (like hypot(x, y) and fabs'(0)).
template <class X, class Y, class Z, detail::IfFloat<X, Y, Z> = 0>
inline detail::Promoted<X, Y, Z> hypot_vjp(X x, Y y, Z z,
                                           detail::Promoted<X, Y, Z> seed,
                                           X *d_x, Y *d_y, Z *d_z) {
  using R = detail::Promoted<X, Y, Z>;
  R v = std::hypot(x, y, z);
  R s = v == 0 ? R(0) : seed / v;
  *d_x += static_cast<X>(s * static_cast<R>(x));
  *d_y += static_cast<Y>(s * static_cast<R>(y));
  *d_z += static_cast<Z>(s * static_cast<R>(z));
  return v;
}
template <class X, class Y, class Z, detail::IfFloat<X, Y, Z> = 0>
inline detail::Promoted<X, Y, Z> hypot_jvp(X x, Y y, Z z, X t_x, Y t_y,
                                           Z t_z) {
  using R = detail::Promoted<X, Y, Z>;
  R v = std::hypot(x, y, z);
  if (v == 0)
    return R(0);
  return (static_cast<R>(x) * static_cast<R>(t_x) +
          static_cast<R>(y) * static_cast<R>(t_y) +
          static_cast<R>(z) * static_cast<R>(t_z)) /
         v;
}

//===----------------------------------------------------------------------===//
// C spellings: sinf/sinl, powf/powl, ... take and return float/long double.
//===----------------------------------------------------------------------===//

#define FLUXION_C_SPELLINGS_1(NAME)                                            \
  inline float NAME##f_vjp(float x, float seed, float *d_x) {                  \
    return NAME##_vjp(x, seed, d_x);                                           \
  }                                                                            \
  inline float NAME##f_jvp(float x, float t_x) { return NAME##_jvp(x, t_x); }  \
  inline long double NAME##l_vjp(long double x, long double seed,              \
                                 long double *d_x) {                           \
    return NAME##_vjp(x, seed, d_x);                                           \
  }                                                                            \
  inline long double NAME##l_jvp(long double x, long double t_x) {             \
    return NAME##_jvp(x, t_x);                                                 \
  }

#define FLUXION_C_SPELLINGS_INT(NAME)                                          \
  inline float NAME##f_vjp(float x, int n, float seed, float *d_x) {           \
    return NAME##_vjp(x, n, seed, d_x);                                        \
  }                                                                            \
  inline float NAME##f_jvp(float x, int n, float t_x) {                        \
    return NAME##_jvp(x, n, t_x);                                              \
  }                                                                            \
  inline long double NAME##l_vjp(long double x, int n, long double seed,       \
                                 long double *d_x) {                           \
    return NAME##_vjp(x, n, seed, d_x);                                        \
  }                                                                            \
  inline long double NAME##l_jvp(long double x, int n, long double t_x) {      \
    return NAME##_jvp(x, n, t_x);                                              \
  }

#define FLUXION_C_SPELLINGS_2(NAME)                                            \
  inline float NAME##f_vjp(float x, float y, float seed, float *d_x,           \
                           float *d_y) {                                       \
    return NAME##_vjp(x, y, seed, d_x, d_y);                                   \
  }                                                                            \
  inline float NAME##f_jvp(float x, float y, float t_x, float t_y) {           \
    return NAME##_jvp(x, y, t_x, t_y);                                         \
  }                                                                            \
  inline long double NAME##l_vjp(long double x, long double y,                 \
                                 long double seed, long double *d_x,           \
                                 long double *d_y) {                           \
    return NAME##_vjp(x, y, seed, d_x, d_y);                                   \
  }                                                                            \
  inline long double NAME##l_jvp(long double x, long double y,                 \
                                 long double t_x, long double t_y) {           \
    return NAME##_jvp(x, y, t_x, t_y);                                         \
  }

FLUXION_C_SPELLINGS_1(sin)
FLUXION_C_SPELLINGS_1(cos)
FLUXION_C_SPELLINGS_1(tan)
FLUXION_C_SPELLINGS_1(asin)
FLUXION_C_SPELLINGS_1(acos)
FLUXION_C_SPELLINGS_1(atan)
FLUXION_C_SPELLINGS_1(sinh)
FLUXION_C_SPELLINGS_1(cosh)
FLUXION_C_SPELLINGS_1(tanh)
FLUXION_C_SPELLINGS_1(asinh)
FLUXION_C_SPELLINGS_1(acosh)
FLUXION_C_SPELLINGS_1(atanh)
FLUXION_C_SPELLINGS_1(exp)
FLUXION_C_SPELLINGS_1(exp2)
FLUXION_C_SPELLINGS_1(expm1)
FLUXION_C_SPELLINGS_1(log)
FLUXION_C_SPELLINGS_1(log2)
FLUXION_C_SPELLINGS_1(log10)
FLUXION_C_SPELLINGS_1(log1p)
FLUXION_C_SPELLINGS_1(sqrt)
FLUXION_C_SPELLINGS_1(cbrt)
FLUXION_C_SPELLINGS_1(fabs)
FLUXION_C_SPELLINGS_1(erf)
FLUXION_C_SPELLINGS_1(erfc)
FLUXION_C_SPELLINGS_1(floor)
FLUXION_C_SPELLINGS_1(ceil)
FLUXION_C_SPELLINGS_1(round)
FLUXION_C_SPELLINGS_1(trunc)
FLUXION_C_SPELLINGS_1(rint)
FLUXION_C_SPELLINGS_1(nearbyint)
FLUXION_C_SPELLINGS_INT(ldexp)
FLUXION_C_SPELLINGS_INT(scalbn)
FLUXION_C_SPELLINGS_2(atan2)
FLUXION_C_SPELLINGS_2(hypot)
FLUXION_C_SPELLINGS_2(pow)
FLUXION_C_SPELLINGS_2(fmin)
FLUXION_C_SPELLINGS_2(fmax)
FLUXION_C_SPELLINGS_2(fmod)
FLUXION_C_SPELLINGS_2(copysign)
FLUXION_C_SPELLINGS_1(lgamma)
FLUXION_C_SPELLINGS_1(tgamma)
FLUXION_C_SPELLINGS_1(logb)
FLUXION_C_SPELLINGS_2(fdim)
FLUXION_C_SPELLINGS_2(remainder)
FLUXION_C_SPELLINGS_2(nextafter)

#define FLUXION_C_SPELLINGS_LONG_EXP(NAME)                                     \
  inline float NAME##f_vjp(float x, long n, float seed, float *d_x) {          \
    return NAME##_vjp(x, n, seed, d_x);                                        \
  }                                                                            \
  inline float NAME##f_jvp(float x, long n, float t_x) {                       \
    return NAME##_jvp(x, n, t_x);                                              \
  }                                                                            \
  inline long double NAME##l_vjp(long double x, long n, long double seed,      \
                                 long double *d_x) {                           \
    return NAME##_vjp(x, n, seed, d_x);                                        \
  }                                                                            \
  inline long double NAME##l_jvp(long double x, long n, long double t_x) {     \
    return NAME##_jvp(x, n, t_x);                                              \
  }
FLUXION_C_SPELLINGS_LONG_EXP(scalbln)
#undef FLUXION_C_SPELLINGS_LONG_EXP

inline float frexpf_vjp(float x, int *e, float seed, float *d_x) {
  return frexp_vjp(x, e, seed, d_x);
}
inline float frexpf_jvp(float x, int *e, float t_x) {
  return frexp_jvp(x, e, t_x);
}
inline long double frexpl_vjp(long double x, int *e, long double seed,
                              long double *d_x) {
  return frexp_vjp(x, e, seed, d_x);
}
inline long double frexpl_jvp(long double x, int *e, long double t_x) {
  return frexp_jvp(x, e, t_x);
}
inline float modff_vjp(float x, float *i, float seed, float *d_x,
                       float *d_i) {
  return modf_vjp(x, i, seed, d_x, d_i);
}
inline float modff_jvp(float x, float *i, float t_x, float *t_i) {
  return modf_jvp(x, i, t_x, t_i);
}
inline long double modfl_vjp(long double x, long double *i, long double seed,
                             long double *d_x, long double *d_i) {
  return modf_vjp(x, i, seed, d_x, d_i);
}
inline long double modfl_jvp(long double x, long double *i, long double t_x,
                             long double *t_i) {
  return modf_jvp(x, i, t_x, t_i);
}
inline float remquof_vjp(float x, float y, int *q, float seed, float *d_x,
                         float *d_y) {
  return remquo_vjp(x, y, q, seed, d_x, d_y);
}
inline float remquof_jvp(float x, float y, int *q, float t_x, float t_y) {
  return remquo_jvp(x, y, q, t_x, t_y);
}
inline long double remquol_vjp(long double x, long double y, int *q,
                               long double seed, long double *d_x,
                               long double *d_y) {
  return remquo_vjp(x, y, q, seed, d_x, d_y);
}
inline long double remquol_jvp(long double x, long double y, int *q,
                               long double t_x, long double t_y) {
  return remquo_jvp(x, y, q, t_x, t_y);
}
inline float nexttowardf_vjp(float x, long double y, float seed, float *d_x,
                             long double *d_y) {
  return nexttoward_vjp(x, y, seed, d_x, d_y);
}
inline float nexttowardf_jvp(float x, long double y, float t_x,
                             long double t_y) {
  return nexttoward_jvp(x, y, t_x, t_y);
}
inline long double nexttowardl_vjp(long double x, long double y,
                                   long double seed, long double *d_x,
                                   long double *d_y) {
  return nexttoward_vjp(x, y, seed, d_x, d_y);
}
inline long double nexttowardl_jvp(long double x, long double y,
                                   long double t_x, long double t_y) {
  return nexttoward_jvp(x, y, t_x, t_y);
}

inline float fmaf_vjp(float x, float y, float z, float seed, float *d_x,
                      float *d_y, float *d_z) {
  return fma_vjp(x, y, z, seed, d_x, d_y, d_z);
}
inline float fmaf_jvp(float x, float y, float z, float t_x, float t_y,
                      float t_z) {
  return fma_jvp(x, y, z, t_x, t_y, t_z);
}
inline long double fmal_vjp(long double x, long double y, long double z,
                            long double seed, long double *d_x,
                            long double *d_y, long double *d_z) {
  return fma_vjp(x, y, z, seed, d_x, d_y, d_z);
}
inline long double fmal_jvp(long double x, long double y, long double z,
                            long double t_x, long double t_y,
                            long double t_z) {
  return fma_jvp(x, y, z, t_x, t_y, t_z);
}

// Functions whose derivative is a function of their result (exp, tanh,
// sqrt) also have rules with the result as residual (see
// docs/custom-derivatives.md): first-order code keeps exp(x) from the
// forward sweep instead of computing it again in the reverse one, which
// costs a tape entry in a loop instead of a second exp. Non-template
// overloads, one per type (and C spelling), so that the residual type is
// found by overload resolution. Second order uses the _vjp rules above.
#define FLUXION_RESULT_RULE(NAME, T, STD, ADJ)                                 \
  inline T NAME##_fwd(T x, T &y) {                                             \
    y = std::STD(x);                                                           \
    return y;                                                                  \
  }                                                                            \
  inline void NAME##_bwd(T, const T &y, T seed, T *d_x) { *d_x += ADJ; }
#define FLUXION_RESULT_RULES(NAME, ADJ)                                        \
  FLUXION_RESULT_RULE(NAME, float, NAME, ADJ)                                  \
  FLUXION_RESULT_RULE(NAME, double, NAME, ADJ)                                 \
  FLUXION_RESULT_RULE(NAME, long double, NAME, ADJ)                            \
  FLUXION_RESULT_RULE(NAME##f, float, NAME, ADJ)                               \
  FLUXION_RESULT_RULE(NAME##l, long double, NAME, ADJ)

// The same expressions as the _vjp rules, so both give the same bits.
FLUXION_RESULT_RULES(exp, seed * y)
FLUXION_RESULT_RULES(tanh, seed * (1 - y * y))
FLUXION_RESULT_RULES(sqrt, detail::quotient0(seed, 2 * y))

// sin and cos keep the other one, computed with it by sincos where the C
// library has it (one call for both): a reverse sweep computes no sine or
// cosine at all.
namespace detail {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
inline void sinCos(float x, float &s, float &c) { ::sincosf(x, &s, &c); }
inline void sinCos(double x, double &s, double &c) { ::sincos(x, &s, &c); }
inline void sinCos(long double x, long double &s, long double &c) {
  ::sincosl(x, &s, &c);
}
#else
template <class T> inline void sinCos(T x, T &s, T &c) {
  s = std::sin(x);
  c = std::cos(x);
}
#endif
} // namespace detail

#define FLUXION_SINCOS_RULE(SIN, COS, T)                                       \
  inline T SIN##_fwd(T x, T &c) {                                              \
    T s;                                                                       \
    detail::sinCos(x, s, c);                                                   \
    return s;                                                                  \
  }                                                                            \
  inline void SIN##_bwd(T, const T &c, T seed, T *d_x) { *d_x += seed * c; }   \
  inline T COS##_fwd(T x, T &s) {                                              \
    T c;                                                                       \
    detail::sinCos(x, s, c);                                                   \
    return c;                                                                  \
  }                                                                            \
  inline void COS##_bwd(T, const T &s, T seed, T *d_x) { *d_x -= seed * s; }
FLUXION_SINCOS_RULE(sin, cos, float)
FLUXION_SINCOS_RULE(sin, cos, double)
FLUXION_SINCOS_RULE(sin, cos, long double)
FLUXION_SINCOS_RULE(sinf, cosf, float)
FLUXION_SINCOS_RULE(sinl, cosl, long double)
#undef FLUXION_SINCOS_RULE

#undef FLUXION_RESULT_RULES
#undef FLUXION_RESULT_RULE
#undef FLUXION_C_SPELLINGS_1
#undef FLUXION_C_SPELLINGS_INT
#undef FLUXION_C_SPELLINGS_2
#undef FLUXION_FLOAT_TEMPLATE

} // namespace fluxion::custom

// The C++17 special functions (std::beta, std::cyl_bessel_j, ...).
#include <fluxion/special_math.hpp>

#endif // FLUXION_MATH_HPP
