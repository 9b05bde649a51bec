// Shared helpers of the second-order / forward-mode suite: random points,
// dot products, and central finite differences (the independent references).
#ifndef FLUXION_TESTS_SECOND_ORDER_SO_COMMON_HPP
#define FLUXION_TESTS_SECOND_ORDER_SO_COMMON_HPP

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace so {

// Deterministic random numbers in [lo, hi).
class Rng {
public:
  explicit Rng(unsigned seed) : Gen(seed) {}
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(Gen);
  }
  std::vector<double> vec(std::size_t n, double lo, double hi) {
    std::vector<double> v(n);
    for (double &e : v)
      e = uniform(lo, hi);
    return v;
  }

private:
  std::mt19937 Gen;
};

template <class T> T dot(const T *a, const T *b, std::size_t n) {
  T s = 0;
  for (std::size_t i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

// |a - b| <= tol * (1 + max(|a|, |b|)).
inline ::testing::AssertionResult close(long double a, long double b,
                                        long double tol) {
  long double scale = 1 + std::fmax(std::fabs(a), std::fabs(b));
  if (std::fabs(a - b) <= tol * scale)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << static_cast<double>(a) << " vs " << static_cast<double>(b)
         << " (diff " << static_cast<double>(std::fabs(a - b))
         << ", tol " << static_cast<double>(tol * scale) << ")";
}

#define SO_EXPECT_CLOSE(a, b, tol) EXPECT_TRUE(::so::close((a), (b), (tol)))

// Central difference of a scalar function along a direction:
// (f(x + h t) - f(x - h t)) / 2h, f taking a std::vector<double>.
template <class F>
double fd_dir(F f, const std::vector<double> &x, const std::vector<double> &t,
              double h = 1e-6) {
  std::vector<double> xp = x, xm = x;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xp[i] += h * t[i];
    xm[i] -= h * t[i];
  }
  return (f(xp) - f(xm)) / (2 * h);
}

// Central difference of a vector function (the gradient) along t:
// g(x + h t) - g(x - h t) / 2h, g(x) -> std::vector<double>.
template <class G>
std::vector<double> fd_vec_dir(G g, const std::vector<double> &x,
                               const std::vector<double> &t, double h = 1e-5) {
  std::vector<double> xp = x, xm = x;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xp[i] += h * t[i];
    xm[i] -= h * t[i];
  }
  std::vector<double> gp = g(xp), gm = g(xm), r(gp.size());
  for (std::size_t i = 0; i < r.size(); ++i)
    r[i] = (gp[i] - gm[i]) / (2 * h);
  return r;
}

inline std::vector<double> unit(std::size_t n, std::size_t i) {
  std::vector<double> e(n, 0.0);
  e[i] = 1;
  return e;
}

} // namespace so

#endif
