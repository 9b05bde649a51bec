// std::min, std::max and std::clamp where the fuzzer found them refused or
// unsupported: in more than one function of a translation unit (each
// namespace below has its own users), as one branch of a conditional between
// lvalues, and under f_hvp (forward over the rules' own reverse). Every
// derivative is checked against finite differences away from the kinks.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

namespace mm_a {
[[fluxion::grad]] double f(double x, double y) {
  return std::max(x, y) * std::min(x, 2.0);
}
} // namespace mm_a

namespace mm_b {
[[fluxion::grad]] [[fluxion::hessian]] double f(double x, double y) {
  return std::max(x * y, y) * x + std::clamp(x, -0.5, 0.5) * y * y;
}
// One branch an lvalue, the other std::max: the conditional is only read.
[[fluxion::grad]] [[fluxion::jvp]] double pick(double x, double y) {
  return x > 0 ? y : std::max(x, y * y);
}
} // namespace mm_b

// A later function template instance, after the plain users above.
template <class T> [[fluxion::grad]] T later(T x, T y) {
  return std::min(x, y) * std::max(x, y);
}

namespace {

TEST(MinMax, SeveralFunctionsInOneFile) {
  auto A = fluxion::check_gradient(mm_a::f, mm_a::f_grad, 0.7, -0.3);
  EXPECT_TRUE(A.ok()) << A;
  auto B = fluxion::check_gradient(mm_b::f, mm_b::f_grad, 0.8, 0.4);
  EXPECT_TRUE(B.ok()) << B;
  double dx = 0, dy = 0;
  later_grad(0.3, 0.9, &dx, &dy);
  EXPECT_DOUBLE_EQ(dx, 0.9);
  EXPECT_DOUBLE_EQ(dy, 0.3);
}

TEST(MinMax, ConditionalBetweenLvalues) {
  for (double x : {-0.7, 0.6}) {
    auto R = fluxion::check_gradient(mm_b::pick, mm_b::pick_grad, x, 1.3);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(mm_b::pick, mm_b::pick_jvp, x, 1.3);
    EXPECT_TRUE(J.ok()) << J;
  }
}

TEST(MinMax, HessianThroughTheRules) {
  // Both sides of each kink: x*y against y, and x inside and outside the
  // clamp's range.
  for (double x : {0.3, 1.7, -0.9})
    for (double y : {0.4, -0.8}) {
      auto H = fluxion::check_hvp(mm_b::f, mm_b::f_hvp, x, y);
      EXPECT_TRUE(H.ok()) << H;
    }
  double H[4];
  mm_b::f_hessian(1.7, 0.4, H); // max picks x*y: f = x^2 y + 0.5 y^2
  EXPECT_NEAR(H[0], 2 * 0.4, 1e-14);
  EXPECT_NEAR(H[1], 2 * 1.7 + 0.0, 1e-14);
  EXPECT_NEAR(H[3], 1.0, 1e-14);
}

} // namespace
