// fluxion::pass_through: forward fn(x), derivative the identity in x
// (TensorFlow's grad_pass_through, the straight-through estimator), through
// every mode. References are hand derivatives with dq/du = 1.
#include <fluxion/fluxion.hpp>

#include <gtest/gtest.h>

#include <cmath>

namespace passthrough {

static double quantize(double v) { return std::round(v * 4) / 4; }

// q = quantize(x * w) with dq/d(xw) taken as 1.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
loss(double x, double w) {
  double q = fluxion::pass_through(quantize, x * w);
  return q * q + x;
}

// Inside a loop, on array elements.
[[fluxion::grad]] double quantized_sum(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += fluxion::pass_through(quantize, x[i]) * x[i];
  return s;
}

TEST(PassThrough, GradientIsStraightThrough) {
  for (double x : {0.9, -0.37, 2.2})
    for (double w : {1.3, -0.8}) {
      double dx = 0, dw = 0;
      double v = loss_grad(x, w, &dx, &dw);
      double q = quantize(x * w);
      EXPECT_DOUBLE_EQ(v, q * q + x);
      EXPECT_NEAR(dx, 2 * q * w + 1, 1e-12);
      EXPECT_NEAR(dw, 2 * q * x, 1e-12);
      // A finite difference sees the steps of round: zero almost everywhere.
      double h = 1e-7;
      double fd = (loss(x, w + h) - loss(x, w - h)) / (2 * h);
      EXPECT_NEAR(fd, 0.0, 1e-6);
    }
}

TEST(PassThrough, ForwardAndSecondOrder) {
  double x = 0.9, w = 1.3, q = quantize(x * w);
  EXPECT_NEAR(loss_jvp(x, w, 1.0, 0.0), 2 * q * w + 1, 1e-12);
  EXPECT_NEAR(loss_jvp(x, w, 0.0, 1.0), 2 * q * x, 1e-12);
  double H[4];
  loss_hessian(x, w, H);
  EXPECT_NEAR(H[0], 2 * w * w, 1e-12);
  EXPECT_NEAR(H[1], 2 * x * w + 2 * q, 1e-12);
  EXPECT_NEAR(H[2], H[1], 1e-12);
  EXPECT_NEAR(H[3], 2 * x * x, 1e-12);
}

TEST(PassThrough, InLoops) {
  double x[3] = {0.3, -1.1, 2.6}, dx[3] = {0, 0, 0};
  quantized_sum_grad(x, 3, dx);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(dx[i], quantize(x[i]) + x[i], 1e-12) << i;
}

} // namespace passthrough
