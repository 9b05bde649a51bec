// The call-site form on lambdas: differentiated with respect to their
// parameters, with what they capture (by copy) held constant. fluxion-gen cannot write a closure's type, so these tests are
// outside the round trip. Derivatives are checked against finite
// differences, and reverse mode against forward mode.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace {

TEST(CallSiteLambda, CapturesAreConstants) {
  double k = 1.7;
  const double c = 0.25;
  auto f = [k, c](double x, double y) { return k * std::sin(x * y) + c * y; };
  auto df = fluxion::grad(f);
  auto R = fluxion::check_gradient(f, df, 0.4, -1.3);
  EXPECT_TRUE(R.ok()) << R;
  double dx = 0, dy = 0;
  EXPECT_EQ(df(0.4, -1.3, &dx, &dy), f(0.4, -1.3));
  EXPECT_NEAR(dx, k * std::cos(0.4 * -1.3) * -1.3, 1e-14);
}

TEST(CallSiteLambda, ArraysNamesAndForwardMode) {
  int n = 3;
  auto norm2 = [n](const double *v, double s) {
    double t = 0;
    for (int i = 0; i < n; ++i)
      t += s * v[i] * v[i];
    return t;
  };
  double v[3] = {0.5, -1.0, 2.0};
  auto dv = fluxion::grad(norm2, "v");
  double d[3] = {0, 0, 0};
  dv(v, 2.0, d);
  for (int i = 0; i < 3; ++i)
    EXPECT_DOUBLE_EQ(d[i], 2 * 2.0 * v[i]);
  // <J t, 1> by forward mode equals <t, J^T 1> by reverse mode.
  auto tv = fluxion::jvp(norm2);
  double t[3] = {0.3, 0.2, -0.7};
  double forward = tv(v, 2.0, t, 0.0);
  double reverse = t[0] * d[0] + t[1] * d[1] + t[2] * d[2];
  EXPECT_NEAR(forward, reverse, 1e-14);
}

TEST(CallSiteLambda, WrittenInTheCallAndSecondOrder) {
  auto d = fluxion::grad([](double x) { return x * x * x; });
  double dx = 0;
  d(2.0, &dx);
  EXPECT_DOUBLE_EQ(dx, 12.0);
  auto h = fluxion::hessian([](double x, double y) { return x * x * y; });
  double H[4];
  h(1.5, 2.0, H);
  EXPECT_DOUBLE_EQ(H[0], 4.0);
  EXPECT_DOUBLE_EQ(H[1], 3.0);
  EXPECT_DOUBLE_EQ(H[3], 0.0);
}

} // namespace
