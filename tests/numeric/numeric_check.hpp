// Helpers of the numeric test suites: central finite differences, a
// relative + absolute comparison, a deterministic random number generator and
// the checks every generated gradient goes through.
//
// Every reference these suites compare against is independent of Fluxion:
// either a central finite difference of the primal function or a derivative
// derived by hand in closed form.
#ifndef FLUXION_TESTS_NUMERIC_CHECK_HPP
#define FLUXION_TESTS_NUMERIC_CHECK_HPP

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace nt {

using ld = long double;

//===----------------------------------------------------------------------===//
// Tolerances per floating type
//===----------------------------------------------------------------------===//

/// Step and tolerances of the finite-difference checks for type T. The step
/// is about cbrt(epsilon), which balances truncation (h^2) and rounding
/// (eps / h) errors of the central difference.
template <class T> struct Tol;
template <> struct Tol<float> {
  static constexpr ld step = 4e-3L;  // relative FD step
  static constexpr ld fd_rtol = 4e-3L;
  static constexpr ld fd_atol = 4e-4L; // times (1 + |f|)
  static constexpr ld exact_rtol = 2e-5L; // against a closed form
  static constexpr ld exact_atol = 1e-6L;
};
template <> struct Tol<double> {
  static constexpr ld step = 1e-6L;
  static constexpr ld fd_rtol = 2e-6L;
  static constexpr ld fd_atol = 2e-8L;
  static constexpr ld exact_rtol = 1e-11L;
  static constexpr ld exact_atol = 1e-13L;
};
template <> struct Tol<long double> {
  static constexpr ld step = 2e-6L;
  static constexpr ld fd_rtol = 1e-8L;
  static constexpr ld fd_atol = 1e-10L;
  static constexpr ld exact_rtol = 1e-14L;
  static constexpr ld exact_atol = 1e-16L;
};

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

/// |actual - expected| <= atol + rtol * max(|actual|, |expected|); NaN never
/// compares close; equal infinities do.
inline ::testing::AssertionResult close(ld actual, ld expected, ld rtol,
                                        ld atol) {
  if (std::isnan(actual) || std::isnan(expected))
    return ::testing::AssertionFailure()
           << "NaN: actual " << actual << ", expected " << expected;
  if (std::isinf(actual) || std::isinf(expected)) {
    if (actual == expected)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "actual " << actual << ", expected " << expected;
  }
  ld diff = std::fabs(actual - expected);
  ld bound = atol + rtol * std::max(std::fabs(actual), std::fabs(expected));
  if (diff <= bound)
    return ::testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(17);
  os << "actual " << actual << ", expected " << expected << ", |diff| "
     << diff << " > bound " << bound << " (rtol " << rtol << ", atol " << atol
     << ")";
  return ::testing::AssertionFailure() << os.str();
}

#define NT_EXPECT_CLOSE(actual, expected, rtol, atol)                          \
  EXPECT_TRUE(::nt::close((actual), (expected), (rtol), (atol)))               \
      << #actual " vs " #expected

/// Against a closed-form derivative, with the tolerances of type T.
#define NT_EXPECT_EXACT(T, actual, expected)                                   \
  EXPECT_TRUE(::nt::close((actual), (expected), ::nt::Tol<T>::exact_rtol,      \
                          ::nt::Tol<T>::exact_atol))                           \
      << #actual " vs " #expected

//===----------------------------------------------------------------------===//
// Deterministic random numbers
//===----------------------------------------------------------------------===//

class Rng {
public:
  explicit Rng(std::uint32_t seed = 20240917u) : gen_(seed) {}
  ld uniform(ld lo, ld hi) {
    // Built from the integer engine, so that the sequence does not depend on
    // the standard library's distribution implementation.
    ld u = static_cast<ld>(gen_()) / 4294967296.0L;
    return lo + (hi - lo) * u;
  }
  /// A value with |x| in [lo, hi] and a random sign.
  ld signed_uniform(ld lo, ld hi) {
    ld m = uniform(lo, hi);
    return (gen_() & 1u) ? m : -m;
  }
  int integer(int lo, int hi) { // inclusive
    return lo + static_cast<int>(gen_() % static_cast<std::uint32_t>(hi - lo + 1));
  }
  template <class T> std::vector<T> vec(std::size_t n, ld lo, ld hi) {
    std::vector<T> v(n);
    for (auto &x : v)
      x = static_cast<T>(uniform(lo, hi));
    return v;
  }

private:
  std::mt19937 gen_;
};

//===----------------------------------------------------------------------===//
// Central finite differences
//===----------------------------------------------------------------------===//

/// d f / d x at x of a scalar function, by a central difference with a step
/// scaled to |x|. The step is taken in T (so that the function sees exactly
/// representable points) and the quotient is formed in long double with the
/// step that was actually taken.
template <class T, class F> ld central_diff(F &&f, T x, ld rel = Tol<T>::step) {
  T h = static_cast<T>(rel * std::max<ld>(1, std::fabs(static_cast<ld>(x))));
  T xp = x + h, xm = x - h;
  ld fp = static_cast<ld>(f(xp)), fm = static_cast<ld>(f(xm));
  return (fp - fm) / (static_cast<ld>(xp) - static_cast<ld>(xm));
}

/// d f / d x[i] of a function of an array, f(const T* x) -> scalar.
template <class T, class F>
ld central_diff_at(F &&f, const std::vector<T> &x, std::size_t i,
                   ld rel = Tol<T>::step) {
  std::vector<T> p = x, m = x;
  T h = static_cast<T>(rel * std::max<ld>(1, std::fabs(static_cast<ld>(x[i]))));
  p[i] = x[i] + h;
  m[i] = x[i] - h;
  ld fp = static_cast<ld>(f(p.data())), fm = static_cast<ld>(f(m.data()));
  return (fp - fm) / (static_cast<ld>(p[i]) - static_cast<ld>(m[i]));
}

/// The whole gradient of f(const T* x) -> scalar.
template <class T, class F>
std::vector<ld> fd_gradient(F &&f, const std::vector<T> &x,
                            ld rel = Tol<T>::step) {
  std::vector<ld> g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    g[i] = central_diff_at<T>(f, x, i, rel);
  return g;
}

/// The Jacobian (row-major, m x n) of f(const T* x, T* y) with m outputs, by
/// central differences of each output.
template <class T, class F>
std::vector<ld> fd_jacobian(F &&f, const std::vector<T> &x, std::size_t m,
                            ld rel = Tol<T>::step) {
  std::size_t n = x.size();
  std::vector<ld> J(m * n);
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<T> p = x, q = x, yp(m), yq(m);
    T h = static_cast<T>(rel * std::max<ld>(1, std::fabs(static_cast<ld>(x[k]))));
    p[k] = x[k] + h;
    q[k] = x[k] - h;
    f(p.data(), yp.data());
    f(q.data(), yq.data());
    ld step = static_cast<ld>(p[k]) - static_cast<ld>(q[k]);
    for (std::size_t i = 0; i < m; ++i)
      J[i * n + k] = (static_cast<ld>(yp[i]) - static_cast<ld>(yq[i])) / step;
  }
  return J;
}

//===----------------------------------------------------------------------===//
// The standard checks of a generated gradient
//===----------------------------------------------------------------------===//

inline std::string where(const std::vector<ld> &x) {
  std::ostringstream os;
  os.precision(17);
  os << "at (";
  for (std::size_t i = 0; i < x.size(); ++i)
    os << (i ? ", " : "") << x[i];
  os << ")";
  return os.str();
}
template <class T> std::string where(const std::vector<T> &x) {
  return where(std::vector<ld>(x.begin(), x.end()));
}

/// Runs the gradient G(const T* x, T* d) -> value of the primal F(const T* x)
/// -> value over the flattened inputs x, whose flattened adjoint buffer d has
/// nd entries (nd may be less than x.size() when some inputs are not
/// differentiated; FD columns are then given by `cols`, the index into x of
/// each entry of d). Checks that
///   * the returned value is F(x),
///   * a second call on the same buffers adds the same gradient again,
///   * the gradient matches central finite differences of F.
/// Returns the gradient of the first call for further (closed-form) checks.
template <class T, class F, class G>
std::vector<ld> check_gradient(F &&f, G &&g, const std::vector<T> &x,
                               std::vector<std::size_t> cols = {},
                               ld rtol = Tol<T>::fd_rtol,
                               ld atol = Tol<T>::fd_atol) {
  if (cols.empty())
    for (std::size_t i = 0; i < x.size(); ++i)
      cols.push_back(i);
  SCOPED_TRACE(where(x));
  std::size_t nd = cols.size();
  std::vector<T> xin = x;
  std::vector<T> d(nd, T(0));
  ld value = static_cast<ld>(f(xin.data()));
  ld ret = static_cast<ld>(g(xin.data(), d.data()));
  EXPECT_TRUE(close(ret, value, Tol<T>::exact_rtol, Tol<T>::exact_atol))
      << "f_grad must return f(x)";
  EXPECT_EQ(xin, x) << "inputs must not be modified";
  std::vector<ld> first(d.begin(), d.end());

  // A second call adds the same gradient into the same buffers.
  ld ret2 = static_cast<ld>(g(xin.data(), d.data()));
  EXPECT_TRUE(close(ret2, value, Tol<T>::exact_rtol, Tol<T>::exact_atol));
  for (std::size_t i = 0; i < nd; ++i)
    EXPECT_TRUE(close(d[i], 2 * first[i], 1e-12L + Tol<T>::exact_rtol,
                      Tol<T>::exact_atol))
        << "d[" << i << "] after a second call must be twice the gradient";

  ld scale = 1 + std::fabs(value);
  for (std::size_t i = 0; i < nd; ++i) {
    ld fd = central_diff_at<T>(f, x, cols[i]);
    EXPECT_TRUE(close(first[i], fd, rtol, atol * scale))
        << "d/dx[" << cols[i] << "] against central finite differences";
  }
  return first;
}

/// Scalar-function convenience: f(T) -> T and g(T, T*) -> T.
template <class T, class F, class G>
ld check_gradient1(F &&f, G &&g, T x, ld rtol = Tol<T>::fd_rtol,
                   ld atol = Tol<T>::fd_atol) {
  auto F1 = [&](const T *v) { return f(v[0]); };
  auto G1 = [&](const T *v, T *d) { return g(v[0], d); };
  return check_gradient<T>(F1, G1, std::vector<T>{x}, {}, rtol, atol)[0];
}

/// seed^T J for the FD Jacobian J (m x n).
inline std::vector<ld> seed_times(const std::vector<ld> &J,
                                  const std::vector<ld> &seed, std::size_t n) {
  std::size_t m = seed.size();
  std::vector<ld> r(n, 0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k = 0; k < n; ++k)
      r[k] += seed[i] * J[i * n + k];
  return r;
}

} // namespace nt

#endif // FLUXION_TESTS_NUMERIC_CHECK_HPP
