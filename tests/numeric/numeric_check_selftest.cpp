// Self-test of the checking helpers: they must accept a correct gradient and
// reject a wrong one, one that overwrites instead of adding, and a wrong
// returned value. (Plain C++, no annotations.)
#include <gtest/gtest-spi.h>

#include "numeric_check.hpp"

namespace {

double cube(const double *v) { return v[0] * v[0] * v[0] + v[1]; }

double good(const double *v, double *d) {
  d[0] += 3 * v[0] * v[0];
  d[1] += 1;
  return cube(v);
}
double wrong_value(const double *v, double *d) {
  d[0] += 3 * v[0] * v[0] * 1.001;
  d[1] += 1;
  return cube(v);
}
double overwrites(const double *v, double *d) {
  d[0] = 3 * v[0] * v[0];
  d[1] = 1;
  return cube(v);
}
double bad_return(const double *v, double *d) {
  good(v, d);
  return 0;
}

/// Runs fn with its failures intercepted; true when at least one failure
/// was reported and one of them contains `what`.
template <class Fn> bool fails_with(Fn fn, const char *what) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::
            INTERCEPT_ONLY_CURRENT_THREAD,
        &results);
    fn();
  }
  for (int i = 0; i < results.size(); ++i)
    if (std::string(results.GetTestPartResult(i).message()).find(what) !=
        std::string::npos)
      return true;
  return false;
}

} // namespace

TEST(NumericCheck, AcceptsCorrectGradient) {
  auto g = nt::check_gradient<double>(cube, good, {1.25, -0.5});
  NT_EXPECT_EXACT(double, g[0], 3 * 1.5625L);
}

TEST(NumericCheck, RejectsWrongGradient) {
  EXPECT_TRUE(fails_with(
      [] { nt::check_gradient<double>(cube, wrong_value, {1.25, -0.5}); },
      "central finite differences"));
}

TEST(NumericCheck, RejectsOverwritingGradient) {
  EXPECT_TRUE(fails_with(
      [] { nt::check_gradient<double>(cube, overwrites, {1.25, -0.5}); },
      "twice the gradient"));
}

TEST(NumericCheck, RejectsWrongReturnValue) {
  EXPECT_TRUE(fails_with(
      [] { nt::check_gradient<double>(cube, bad_return, {1.25, -0.5}); },
      "must return f(x)"));
}

TEST(NumericCheck, FiniteDifferencesAreAccurate) {
  NT_EXPECT_CLOSE(nt::central_diff<double>([](double x) { return std::exp(x); }, 2.0),
                  std::exp(2.0L), 1e-9L, 0.0L);
  NT_EXPECT_CLOSE(nt::central_diff<float>([](float x) { return x * x; }, 3.0f), 6.0L,
                  1e-3L, 0.0L);
  NT_EXPECT_CLOSE(
      nt::central_diff<long double>([](long double x) { return std::sin(x); }, 0.5L),
      std::cos(0.5L), 1e-10L, 0.0L);
  EXPECT_FALSE(nt::close(1.0L, 1.1L, 1e-3L, 1e-3L));
  EXPECT_FALSE(nt::close(NAN, NAN, 1, 1));
}

TEST(NumericCheck, RngIsDeterministic) {
  nt::Rng a(5), b(5);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(a.uniform(-1, 1), b.uniform(-1, 1));
}
