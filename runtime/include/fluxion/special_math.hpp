// Fluxion runtime: derivative rules of the C++17 mathematical special
// functions of <cmath> (std::beta, std::cyl_bessel_j, std::legendre, ...),
// with the conventions of math.hpp, which includes this header.
//
// Orders and degrees given as unsigned integers (legendre's l, hermite's n)
// carry no derivative. The real order nu of the cylinder functions
// (cyl_bessel_j/i/k, cyl_neumann) has no derivative these rules can
// compute: they give NaN for it wherever it counts (a nonzero seed reaching
// an order whose adjoint is kept, a nonzero tangent of the order), and 0
// where it does not (a constant order), never a wrong number.
#ifndef FLUXION_SPECIAL_MATH_HPP
#define FLUXION_SPECIAL_MATH_HPP

#include <fluxion/math.hpp>

#include <cmath>
#include <limits>
#include <type_traits>

#if defined(__cpp_lib_math_special_functions) ||                              \
    defined(__STDCPP_MATH_SPEC_FUNCS__)

namespace fluxion::custom {

namespace detail {

template <class T> inline T nan() { return std::numeric_limits<T>::quiet_NaN(); }

/// What an underivable order contributes: nothing when its seed or
/// tangent is 0, else NaN.
template <class T> inline T orderTerm(T SeedOrTangent) {
  return SeedOrTangent == 0 ? T(0) : nan<T>();
}

/// zeta'(s). For s >= 0: the Euler-Maclaurin form of zeta with N terms
/// and K Bernoulli corrections, differentiated term by term; for s < 0:
/// the reflection zeta(s) = 2^s pi^(s-1) sin(pi s / 2) Gamma(1 - s)
/// zeta(1 - s), differentiated. At the pole s = 1: -inf.
template <class T> inline T zetaDeriv(T s) {
  if (std::isnan(s))
    return s;
  if (s == 1)
    return -std::numeric_limits<T>::infinity();
  if (s < 0) {
    T t = 1 - s;
    T Z = std::riemann_zeta(t), DZ = zetaDeriv(t);
    T C = std::pow(T(2), s) * std::pow(Pi<T>, s - 1) * std::tgamma(t) * Z;
    T H = Pi<T> * s / 2;
    return C * ((std::log(2 * Pi<T>) - digamma(t) - DZ / Z) * std::sin(H) +
                Pi<T> / 2 * std::cos(H));
  }
  if (s >= 48) { // zeta(s) - 1 < 4e-15 here: the sum itself converges fast
    T D = 0;
    for (int n = 2; n <= 24; ++n)
      D -= std::log(T(n)) * std::pow(T(n), -s);
    return D;
  }
  const int N = 20;
  // B_2k / (2k)!, k = 1..10.
  static const T C[] = {T(1.0L / 12),
                        T(-1.0L / 720),
                        T(1.0L / 30240),
                        T(-1.0L / 1209600),
                        T(1.0L / 47900160),
                        T(-691.0L / 1307674368000.0L),
                        T(1.0L / 74724249600.0L),
                        T(-3617.0L / 10670622842880000.0L),
                        T(43867.0L / 5109094217170944000.0L),
                        T(-174611.0L / 802857662698291200000.0L)};
  T D = 0;
  for (int n = 2; n < N; ++n)
    D -= std::log(T(n)) * std::pow(T(n), -s);
  T LnN = std::log(T(N)), NS = std::pow(T(N), -s);
  // N^(1-s) / (s - 1) and N^-s / 2.
  D += N * NS * (-LnN / (s - 1) - 1 / ((s - 1) * (s - 1)));
  D -= LnN * NS / 2;
  // c_k P_k(s) N^(-s-2k+1), P_k(s) = s (s+1) ... (s+2k-2).
  T P = s, DP = 1, Pow = NS / N; // N^(-s-1)
  for (int k = 0; k < 10; ++k) {
    D += C[k] * Pow * (DP - LnN * P);
    // P_{k+1} = P_k (s + 2k + 1) (s + 2k + 2).
    T A = s + 2 * k + 1, B = s + 2 * k + 2;
    DP = DP * A * B + P * (A + B);
    P = P * A * B;
    Pow /= T(N) * T(N);
  }
  return D;
}

/// P_l'(x) by the recurrences of P_l and P_l' (exact at x = +-1 too).
template <class T> inline T legendreDeriv(unsigned l, T x) {
  if (l == 0)
    return T(0);
  T P0 = 1, P1 = x, D0 = 0, D1 = 1;
  for (unsigned k = 1; k < l; ++k) {
    T P2 = (T(2 * k + 1) * x * P1 - T(k) * P0) / T(k + 1);
    T D2 = D0 + T(2 * k + 1) * P1;
    P0 = P1;
    P1 = P2;
    D0 = D1;
    D1 = D2;
  }
  return D1;
}

/// d/dx assoc_legendre(l, m, x) = (l x P_l^m - (l + m) P_{l-1}^m) / (x^2 - 1)
/// inside (-1, 1). At x = +-1: P_l' for m = 0; -+inf for m = 1 (the
/// one-sided slope of sqrt(1 - x^2)); -2x P_l''(x) for m = 2; 0 for m > 2.
template <class T> inline T assocLegendreDeriv(unsigned l, unsigned m, T x) {
  if (m > l)
    return T(0);
  if (m == 0)
    return legendreDeriv(l, x);
  if (std::fabs(x) == 1) {
    T Sign = x > 0 ? T(1) : (l % 2 ? T(1) : T(-1)); // P_l'(+-1)'s sign
    if (m == 1)
      return -x * Sign * std::numeric_limits<T>::infinity();
    if (m == 2) // P_l''(+-1) = (+-1)^l (l-1) l (l+1) (l+2) / 8
      return -2 * x * (x > 0 || l % 2 == 0 ? T(1) : T(-1)) *
             (T(l) - 1) * T(l) * (T(l) + 1) * (T(l) + 2) / 8;
    return T(0);
  }
  T Lower = m <= l - 1 ? std::assoc_legendre(l - 1, m, x) : T(0);
  return (T(l) * x * std::assoc_legendre(l, m, x) - T(l + m) * Lower) /
         ((x - 1) * (x + 1));
}

// x-derivatives of the cylinder functions at x > 0: recurrences in the
// order. J and I at x = 0: 0 for nu = 0, 1/2 for nu = 1, +inf for
// 0 < nu < 1, 0 for nu > 1.
template <class T> inline T besselAtZero(T nu) {
  if (nu == 0 || nu > 1)
    return T(0);
  return nu == 1 ? T(0.5) : std::numeric_limits<T>::infinity();
}
template <class T> inline T cyl_bessel_j_dx(T nu, T x) {
  return x == 0 ? besselAtZero(nu)
                : nu / x * std::cyl_bessel_j(nu, x) -
                      std::cyl_bessel_j(nu + 1, x);
}
template <class T> inline T cyl_bessel_i_dx(T nu, T x) {
  return x == 0 ? besselAtZero(nu)
                : nu / x * std::cyl_bessel_i(nu, x) +
                      std::cyl_bessel_i(nu + 1, x);
}
template <class T> inline T cyl_bessel_k_dx(T nu, T x) {
  return nu / x * std::cyl_bessel_k(nu, x) - std::cyl_bessel_k(nu + 1, x);
}
template <class T> inline T cyl_neumann_dx(T nu, T x) {
  return nu / x * std::cyl_neumann(nu, x) - std::cyl_neumann(nu + 1, x);
}

} // namespace detail

#define FLUXION_FLOAT_TEMPLATE template <class T, detail::IfFloat<T> = 0>

// One real argument: the derivative D (an expression in x and the value v).
#define FLUXION_SPECIAL_1(NAME, D)                                             \
  FLUXION_FLOAT_TEMPLATE inline T NAME##_vjp(T x, T seed, T *d_x) {            \
    T v = std::NAME(x);                                                        \
    *d_x += detail::product0(seed, T(D));                                      \
    return v;                                                                  \
  }                                                                            \
  FLUXION_FLOAT_TEMPLATE inline T NAME##_jvp(T x, T t_x) {                     \
    T v = std::NAME(x);                                                        \
    (void)v;                                                                   \
    return detail::product0(T(D), t_x);                                        \
  }

// Ei'(x) = e^x / x (+-inf at the pole x = 0).
FLUXION_SPECIAL_1(expint, std::exp(x) / x)
FLUXION_SPECIAL_1(riemann_zeta,
                  detail::zetaDeriv<detail::Wide<T>>(detail::Wide<T>(x)))
// K'(k) = E / (k (1 - k^2)) - K / k, E'(k) = (E - K) / k; 0 at k = 0,
// infinite at |k| = 1.
FLUXION_SPECIAL_1(comp_ellint_1,
                  x == 0 ? T(0)
                  : std::fabs(x) == 1
                      ? std::copysign(std::numeric_limits<T>::infinity(), x)
                      : std::comp_ellint_2(x) / (x * (1 - x) * (1 + x)) -
                            v / x)
FLUXION_SPECIAL_1(comp_ellint_2,
                  x == 0 ? T(0) : (v - std::comp_ellint_1(x)) / x)

// An unsigned degree n, then a real x.
#define FLUXION_SPECIAL_N(NAME, D)                                             \
  FLUXION_FLOAT_TEMPLATE inline T NAME##_vjp(unsigned n, T x, T seed,          \
                                             T *d_x) {                         \
    T v = std::NAME(n, x);                                                     \
    *d_x += detail::product0(seed, T(D));                                      \
    return v;                                                                  \
  }                                                                            \
  FLUXION_FLOAT_TEMPLATE inline T NAME##_jvp(unsigned n, T x, T t_x) {         \
    T v = std::NAME(n, x);                                                     \
    (void)v;                                                                   \
    return detail::product0(T(D), t_x);                                        \
  }

// H_n' = 2n H_{n-1}; L_n' = -L_{n-1}^1; P_l' by recurrence.
FLUXION_SPECIAL_N(hermite, n == 0 ? T(0) : 2 * T(n) * std::hermite(n - 1, x))
FLUXION_SPECIAL_N(laguerre,
                  n == 0 ? T(0) : -std::assoc_laguerre(n - 1, 1u, x))
FLUXION_SPECIAL_N(legendre, detail::legendreDeriv(n, x))
// j_n' = (n / x) j_n - j_{n+1}, the same for y_n; j_n'(0) = 1/3 for n = 1,
// else 0.
FLUXION_SPECIAL_N(sph_bessel, x == 0 ? (n == 1 ? T(1) / 3 : T(0))
                                     : T(n) / x * v - std::sph_bessel(n + 1, x))
FLUXION_SPECIAL_N(sph_neumann, T(n) / x * v - std::sph_neumann(n + 1, x))

// Two unsigned degrees, then a real x.
#define FLUXION_SPECIAL_NM(NAME, D)                                            \
  FLUXION_FLOAT_TEMPLATE inline T NAME##_vjp(unsigned n, unsigned m, T x,      \
                                             T seed, T *d_x) {                 \
    T v = std::NAME(n, m, x);                                                  \
    *d_x += detail::product0(seed, T(D));                                      \
    return v;                                                                  \
  }                                                                            \
  FLUXION_FLOAT_TEMPLATE inline T NAME##_jvp(unsigned n, unsigned m, T x,      \
                                             T t_x) {                          \
    T v = std::NAME(n, m, x);                                                  \
    (void)v;                                                                   \
    return detail::product0(T(D), t_x);                                        \
  }

// (L_n^m)' = -L_{n-1}^{m+1}.
FLUXION_SPECIAL_NM(assoc_laguerre,
                   n == 0 ? T(0) : -std::assoc_laguerre(n - 1, m + 1, x))
FLUXION_SPECIAL_NM(assoc_legendre, detail::assocLegendreDeriv(n, m, x))
// d/dtheta Y_l^m = m cot(theta) Y_l^m + sqrt((l - m)(l + m + 1)) Y_l^{m+1}
// (NaN where sin(theta) = 0 and m > 0).
FLUXION_SPECIAL_NM(sph_legendre,
                   m > n ? T(0)
                         : (m == 0 ? T(0) : T(m) / std::tan(x) * v) +
                               (m + 1 > n ? T(0)
                                          : std::sqrt(T(n - m) * T(n + m + 1)) *
                                                std::sph_legendre(n, m + 1, x)))

// Two real arguments: partials DX and DY (expressions in x, y and the
// value v, computed in R), for every mix of floating types and for a
// floating argument with an integer one (std::beta(x, 2)).
#define FLUXION_SPECIAL_2(NAME, DX, DY)                                        \
  template <class X, class Y, detail::IfFloat<X, Y> = 0>                       \
  inline detail::Promoted<X, Y> NAME##_vjp(                                    \
      X x_, Y y_, detail::Promoted<X, Y> seed, X *d_x, Y *d_y) {               \
    using R = detail::Promoted<X, Y>;                                          \
    R x = x_, y = y_, v = std::NAME(x, y);                                     \
    *d_x += static_cast<X>(detail::product0(seed, R(DX)));                     \
    *d_y += static_cast<Y>(detail::product0(seed, R(DY)));                     \
    return v;                                                                  \
  }                                                                            \
  template <class X, class Y, detail::IfFloat<X, Y> = 0>                       \
  inline detail::Promoted<X, Y> NAME##_jvp(X x_, Y y_, X t_x, Y t_y) {         \
    using R = detail::Promoted<X, Y>;                                          \
    R x = x_, y = y_, v = std::NAME(x, y);                                     \
    (void)v;                                                                   \
    return detail::product0(R(DX), R(t_x)) + detail::product0(R(DY), R(t_y));  \
  }                                                                            \
  template <class X, class I, detail::IfFloatInt<X, I> = 0>                    \
  inline detail::Promoted<X, I> NAME##_vjp(                                    \
      X x_, I y_, detail::Promoted<X, I> seed, X *d_x) {                       \
    using R = detail::Promoted<X, I>;                                          \
    R x = x_, y = R(y_), v = std::NAME(x, y);                                  \
    *d_x += static_cast<X>(detail::product0(seed, R(DX)));                     \
    return v;                                                                  \
  }                                                                            \
  template <class X, class I, detail::IfFloatInt<X, I> = 0>                    \
  inline detail::Promoted<X, I> NAME##_jvp(X x_, I y_, X t_x) {                \
    using R = detail::Promoted<X, I>;                                          \
    R x = x_, y = R(y_), v = std::NAME(x, y);                                  \
    (void)v;                                                                   \
    return detail::product0(R(DX), R(t_x));                                    \
  }                                                                            \
  template <class I, class Y, detail::IfIntFloat<I, Y> = 0>                    \
  inline detail::Promoted<I, Y> NAME##_vjp(                                    \
      I x_, Y y_, detail::Promoted<I, Y> seed, Y *d_y) {                       \
    using R = detail::Promoted<I, Y>;                                          \
    R x = R(x_), y = y_, v = std::NAME(x, y);                                  \
    *d_y += static_cast<Y>(detail::product0(seed, R(DY)));                     \
    return v;                                                                  \
  }                                                                            \
  template <class I, class Y, detail::IfIntFloat<I, Y> = 0>                    \
  inline detail::Promoted<I, Y> NAME##_jvp(I x_, Y y_, Y t_y) {                \
    using R = detail::Promoted<I, Y>;                                          \
    R x = R(x_), y = y_, v = std::NAME(x, y);                                  \
    (void)v;                                                                   \
    return detail::product0(R(DY), R(t_y));                                    \
  }

// B(x, y) = Gamma(x) Gamma(y) / Gamma(x + y): B (psi(x) - psi(x + y)).
FLUXION_SPECIAL_2(beta,
                  v * (detail::digamma<detail::Wide<R>>(x) -
                       detail::digamma<detail::Wide<R>>(x + y)),
                  v * (detail::digamma<detail::Wide<R>>(y) -
                       detail::digamma<detail::Wide<R>>(x + y)))
// F(phi, k) = ellint_1(k, phi), E(phi, k) = ellint_2(k, phi), with
// Delta = sqrt(1 - k^2 sin^2 phi):
//   dF/dphi = 1 / Delta, dF/dk = E / (k k'^2) - F / k - k sin 2phi / (2 k'^2 Delta),
//   dE/dphi = Delta,     dE/dk = (E - F) / k,
// 0 in k at k = 0 (both are even in k).
#define FLUXION_ELL_DELTA (std::sqrt(1 - x * x * std::sin(y) * std::sin(y)))
FLUXION_SPECIAL_2(ellint_1,
                  x == 0 ? R(0)
                         : std::ellint_2(x, y) / (x * (1 - x) * (1 + x)) -
                               v / x -
                               x * std::sin(2 * y) /
                                   (2 * (1 - x) * (1 + x) * FLUXION_ELL_DELTA),
                  1 / FLUXION_ELL_DELTA)
FLUXION_SPECIAL_2(ellint_2, x == 0 ? R(0) : (v - std::ellint_1(x, y)) / x,
                  FLUXION_ELL_DELTA)
// Pi(n, k) = comp_ellint_3(k, n):
//   dPi/dk = k / (n - k^2) (E / (k^2 - 1) + Pi),
//   dPi/dn = (E + (k^2 - n) K / n + (n^2 - k^2) Pi / n) / (2 (k^2 - n)(n - 1)),
// and at n = 0, dPi/dn = (K - E) / k^2 (pi / 4 at k = 0).
FLUXION_SPECIAL_2(
    comp_ellint_3,
    x == 0 ? R(0)
           : x / (y - x * x) * (std::comp_ellint_2(x) / (x * x - 1) + v),
    y == 0 ? (x == 0 ? detail::Pi<R> / 4
                     : (std::comp_ellint_1(x) - std::comp_ellint_2(x)) /
                           (x * x))
           : (std::comp_ellint_2(x) + (x * x - y) * std::comp_ellint_1(x) / y +
              (y * y - x * x) * v / y) /
                 (2 * (x * x - y) * (y - 1)))

// The cylinder functions: a real order nu (no derivative: see the top of
// this file) or an integer one, then x.
#define FLUXION_CYLINDER(NAME)                                                 \
  template <class N, class X, detail::IfFloat<N, X> = 0>                       \
  inline detail::Promoted<N, X> NAME##_vjp(                                    \
      N nu, X x, detail::Promoted<N, X> seed, N *d_nu, X *d_x) {               \
    using R = detail::Promoted<N, X>;                                          \
    R v = std::NAME(R(nu), R(x));                                              \
    *d_nu += static_cast<N>(detail::orderTerm(seed));                          \
    *d_x += static_cast<X>(                                                    \
        detail::product0(seed, detail::NAME##_dx(R(nu), R(x))));              \
    return v;                                                                  \
  }                                                                            \
  template <class N, class X, detail::IfFloat<N, X> = 0>                       \
  inline detail::Promoted<N, X> NAME##_jvp(N nu, X x, N t_nu, X t_x) {         \
    using R = detail::Promoted<N, X>;                                          \
    return detail::orderTerm(R(t_nu)) +                                        \
           detail::product0(detail::NAME##_dx(R(nu), R(x)), R(t_x));           \
  }                                                                            \
  template <class I, class X, detail::IfIntFloat<I, X> = 0>                    \
  inline detail::Promoted<I, X> NAME##_vjp(                                    \
      I nu, X x, detail::Promoted<I, X> seed, X *d_x) {                        \
    using R = detail::Promoted<I, X>;                                          \
    R v = std::NAME(R(nu), R(x));                                              \
    *d_x += static_cast<X>(                                                    \
        detail::product0(seed, detail::NAME##_dx(R(nu), R(x))));              \
    return v;                                                                  \
  }                                                                            \
  template <class I, class X, detail::IfIntFloat<I, X> = 0>                    \
  inline detail::Promoted<I, X> NAME##_jvp(I nu, X x, X t_x) {                 \
    using R = detail::Promoted<I, X>;                                          \
    return detail::product0(detail::NAME##_dx(R(nu), R(x)), R(t_x));           \
  }

FLUXION_CYLINDER(cyl_bessel_j)
FLUXION_CYLINDER(cyl_bessel_i)
FLUXION_CYLINDER(cyl_bessel_k)
FLUXION_CYLINDER(cyl_neumann)

// Pi(n; phi, k) = ellint_3(k, n, phi), with m = k^2 and
// Delta = sqrt(1 - k^2 sin^2 phi):
//   dPi/dphi = 1 / ((1 - n sin^2 phi) Delta),
//   dPi/dk = k / (n - m) (E / (m - 1) + Pi - m sin 2phi / (2 (m - 1) Delta)),
//   dPi/dn = (E + (m - n) F / n + (n^2 - m) Pi / n
//             - n Delta sin 2phi / (2 (1 - n sin^2 phi))) / (2 (m - n)(n - 1)),
// and at n = 0, dPi/dn = (F - E) / m (phi / 2 - sin 2phi / 4 at k = 0).
template <class K, class N, class P, detail::IfFloat<K, N, P> = 0>
inline void ellint3Partials(detail::Promoted<K, N, P> k,
                            detail::Promoted<K, N, P> n,
                            detail::Promoted<K, N, P> phi,
                            detail::Promoted<K, N, P> v,
                            detail::Promoted<K, N, P> (&D)[3]) {
  using R = detail::Promoted<K, N, P>;
  R s = std::sin(phi), m = k * k, s2 = std::sin(2 * phi);
  R Delta = std::sqrt(1 - m * s * s);
  R E = std::ellint_2(k, phi), F = std::ellint_1(k, phi);
  D[0] = k == 0 ? R(0)
                : k / (n - m) * (E / (m - 1) + v - m * s2 / (2 * (m - 1) * Delta));
  if (n == 0)
    D[1] = k == 0 ? phi / 2 - s2 / 4 : (F - E) / m;
  else
    D[1] = (E + (m - n) * F / n + (n * n - m) * v / n -
            n * Delta * s2 / (2 * (1 - n * s * s))) /
           (2 * (m - n) * (n - 1));
  D[2] = 1 / ((1 - n * s * s) * Delta);
}
template <class K, class N, class P, detail::IfFloat<K, N, P> = 0>
inline detail::Promoted<K, N, P> ellint_3_vjp(K k, N n, P phi,
                                              detail::Promoted<K, N, P> seed,
                                              K *d_k, N *d_n, P *d_phi) {
  using R = detail::Promoted<K, N, P>;
  R v = std::ellint_3(R(k), R(n), R(phi)), D[3];
  ellint3Partials<K, N, P>(k, n, phi, v, D);
  *d_k += static_cast<K>(detail::product0(seed, D[0]));
  *d_n += static_cast<N>(detail::product0(seed, D[1]));
  *d_phi += static_cast<P>(detail::product0(seed, D[2]));
  return v;
}
template <class K, class N, class P, detail::IfFloat<K, N, P> = 0>
inline detail::Promoted<K, N, P> ellint_3_jvp(K k, N n, P phi, K t_k, N t_n,
                                              P t_phi) {
  using R = detail::Promoted<K, N, P>;
  R v = std::ellint_3(R(k), R(n), R(phi)), D[3];
  ellint3Partials<K, N, P>(k, n, phi, v, D);
  return detail::product0(D[0], R(t_k)) + detail::product0(D[1], R(t_n)) +
         detail::product0(D[2], R(t_phi));
}

// The float and long double spellings (std::betaf, std::legendrel, ...).
#define FLUXION_SPELL_1(NAME, SFX, T)                                          \
  inline T NAME##SFX##_vjp(T x, T seed, T *d_x) {                              \
    return NAME##_vjp(x, seed, d_x);                                           \
  }                                                                            \
  inline T NAME##SFX##_jvp(T x, T t_x) { return NAME##_jvp(x, t_x); }
#define FLUXION_SPELL_N(NAME, SFX, T)                                          \
  inline T NAME##SFX##_vjp(unsigned n, T x, T seed, T *d_x) {                  \
    return NAME##_vjp(n, x, seed, d_x);                                        \
  }                                                                            \
  inline T NAME##SFX##_jvp(unsigned n, T x, T t_x) {                           \
    return NAME##_jvp(n, x, t_x);                                              \
  }
#define FLUXION_SPELL_NM(NAME, SFX, T)                                         \
  inline T NAME##SFX##_vjp(unsigned n, unsigned m, T x, T seed, T *d_x) {      \
    return NAME##_vjp(n, m, x, seed, d_x);                                     \
  }                                                                            \
  inline T NAME##SFX##_jvp(unsigned n, unsigned m, T x, T t_x) {               \
    return NAME##_jvp(n, m, x, t_x);                                           \
  }
#define FLUXION_SPELL_2(NAME, SFX, T)                                          \
  inline T NAME##SFX##_vjp(T x, T y, T seed, T *d_x, T *d_y) {                 \
    return NAME##_vjp(x, y, seed, d_x, d_y);                                   \
  }                                                                            \
  inline T NAME##SFX##_jvp(T x, T y, T t_x, T t_y) {                           \
    return NAME##_jvp(x, y, t_x, t_y);                                         \
  }
#define FLUXION_SPELL_3(NAME, SFX, T)                                          \
  inline T NAME##SFX##_vjp(T x, T y, T z, T seed, T *d_x, T *d_y, T *d_z) {    \
    return NAME##_vjp(x, y, z, seed, d_x, d_y, d_z);                           \
  }                                                                            \
  inline T NAME##SFX##_jvp(T x, T y, T z, T t_x, T t_y, T t_z) {               \
    return NAME##_jvp(x, y, z, t_x, t_y, t_z);                                 \
  }
#define FLUXION_SPELLINGS(KIND, NAME)                                          \
  KIND(NAME, f, float)                                                         \
  KIND(NAME, l, long double)

FLUXION_SPELLINGS(FLUXION_SPELL_1, expint)
FLUXION_SPELLINGS(FLUXION_SPELL_1, riemann_zeta)
FLUXION_SPELLINGS(FLUXION_SPELL_1, comp_ellint_1)
FLUXION_SPELLINGS(FLUXION_SPELL_1, comp_ellint_2)
FLUXION_SPELLINGS(FLUXION_SPELL_N, hermite)
FLUXION_SPELLINGS(FLUXION_SPELL_N, laguerre)
FLUXION_SPELLINGS(FLUXION_SPELL_N, legendre)
FLUXION_SPELLINGS(FLUXION_SPELL_N, sph_bessel)
FLUXION_SPELLINGS(FLUXION_SPELL_N, sph_neumann)
FLUXION_SPELLINGS(FLUXION_SPELL_NM, assoc_laguerre)
FLUXION_SPELLINGS(FLUXION_SPELL_NM, assoc_legendre)
FLUXION_SPELLINGS(FLUXION_SPELL_NM, sph_legendre)
FLUXION_SPELLINGS(FLUXION_SPELL_2, beta)
FLUXION_SPELLINGS(FLUXION_SPELL_2, ellint_1)
FLUXION_SPELLINGS(FLUXION_SPELL_2, ellint_2)
FLUXION_SPELLINGS(FLUXION_SPELL_2, comp_ellint_3)
FLUXION_SPELLINGS(FLUXION_SPELL_2, cyl_bessel_j)
FLUXION_SPELLINGS(FLUXION_SPELL_2, cyl_bessel_i)
FLUXION_SPELLINGS(FLUXION_SPELL_2, cyl_bessel_k)
FLUXION_SPELLINGS(FLUXION_SPELL_2, cyl_neumann)
FLUXION_SPELLINGS(FLUXION_SPELL_3, ellint_3)

#undef FLUXION_SPELLINGS
#undef FLUXION_SPELL_3
#undef FLUXION_SPELL_2
#undef FLUXION_SPELL_NM
#undef FLUXION_SPELL_N
#undef FLUXION_SPELL_1
#undef FLUXION_ELL_DELTA
#undef FLUXION_CYLINDER
#undef FLUXION_SPECIAL_2
#undef FLUXION_SPECIAL_NM
#undef FLUXION_SPECIAL_N
#undef FLUXION_SPECIAL_1
#undef FLUXION_FLOAT_TEMPLATE

} // namespace fluxion::custom

#endif // special functions available

#endif // FLUXION_SPECIAL_MATH_HPP
