// f_jacobian: against closed-form Jacobians, against columns built from
// f_jvp with unit tangents and rows built from f_vjp with unit seeds, and
// against central differences. Shapes: square, wide (reverse sweeps are
// fewer), tall (forward sweeps are fewer), a single row, float.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>
#include <vector>

namespace jc {

// 3 rows (result, out[0], out[1]) x 2 columns (x, y).
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] double
sq(double x, double y, double out[2]) {
  out[0] = x * y;
  out[1] = std::sin(x) + y * y;
  return x * x * std::exp(y);
}

// Wide: 2 rows x 5 columns, a loop and a branch.
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] void
wide(const double x[5], double y[2]) {
  y[0] = 0;
  y[1] = 1;
  for (int i = 0; i < 5; ++i) {
    y[0] += x[i] * x[i] * (i + 1);
    if (x[i] > 0)
      y[1] *= 1 + x[i];
    else
      y[1] += std::exp(x[i]);
  }
}

// Tall: 1 + 6 rows x 2 columns, with a pass-through integer.
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] double
tall(double a, double b, double y[6], int k) {
  for (int i = 0; i < 6; ++i)
    y[i] = std::pow(a, i) * b + k * std::cos(b * i);
  return a * b;
}

// One row: a gradient as a 1 x 4 Jacobian (scalar and array inputs).
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] double
row(const double x[3], double s) {
  return s * (x[0] * x[1] + x[1] * x[2]) + std::log(1 + s * s) * x[0];
}

// float.
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] void
fl(const float x[2], float y[3]) {
  y[0] = x[0] * x[1];
  y[1] = std::exp(x[0]) - x[1];
  y[2] = x[1] * x[1] * x[1];
}

// Only [[fluxion::jacobian]], nothing stacked: 2 rows x 2 columns.
[[fluxion::jacobian]] double alone(double x, double y, double out[1]) {
  out[0] = x / (1 + y * y);
  return x * y * y;
}

} // namespace jc

namespace {

using so::Rng;
using Vec = std::vector<double>;

void expectMatrixClose(const Vec &A, const Vec &B, double tol) {
  ASSERT_EQ(A.size(), B.size());
  for (std::size_t i = 0; i < A.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "entry " << i);
    SO_EXPECT_CLOSE(A[i], B[i], tol);
  }
}

TEST(Jacobian, SquareClosedFormJvpColumnsVjpRows) {
  Rng rng(201);
  for (int t = 0; t < 15; ++t) {
    double x = rng.uniform(-1.5, 1.5), y = rng.uniform(-1.5, 1.5);
    Vec J(6, -7.0);
    double out[2];
    jc::sq_jacobian(x, y, out, J.data());
    double e = std::exp(y);
    Vec ref = {2 * x * e, x * x * e, y, x, std::cos(x), 2 * y};
    expectMatrixClose(J, ref, 1e-13);
    // Columns from f_jvp.
    for (int j = 0; j < 2; ++j) {
      double o[2], to[2] = {0, 0};
      double r0 = jc::sq_jvp(x, y, o, j == 0, j == 1, to);
      SO_EXPECT_CLOSE(J[0 * 2 + j], r0, 1e-13);
      SO_EXPECT_CLOSE(J[1 * 2 + j], to[0], 1e-13);
      SO_EXPECT_CLOSE(J[2 * 2 + j], to[1], 1e-13);
    }
    // Rows from f_vjp.
    for (int i = 0; i < 3; ++i) {
      double o[2], dout[2] = {i == 1 ? 1.0 : 0.0, i == 2 ? 1.0 : 0.0};
      double dx = 0, dy = 0;
      jc::sq_vjp(x, y, o, i == 0 ? 1.0 : 0.0, &dx, &dy, dout);
      SO_EXPECT_CLOSE(J[i * 2 + 0], dx, 1e-13);
      SO_EXPECT_CLOSE(J[i * 2 + 1], dy, 1e-13);
    }
  }
}

// Reference Jacobian of `wide` by central differences.
Vec wideFD(const Vec &x) {
  Vec J(10);
  for (int j = 0; j < 5; ++j) {
    Vec xp = x, xm = x;
    double h = 1e-6;
    xp[j] += h;
    xm[j] -= h;
    double yp[2], ym[2];
    jc::wide(xp.data(), yp);
    jc::wide(xm.data(), ym);
    for (int i = 0; i < 2; ++i)
      J[i * 5 + j] = (yp[i] - ym[i]) / (2 * h);
  }
  return J;
}

TEST(Jacobian, WideAgainstVjpRowsJvpColumnsAndFD) {
  Rng rng(202);
  for (int t = 0; t < 15; ++t) {
    Vec x = rng.vec(5, -1, 1), J(10, -7.0);
    double y[2];
    jc::wide_jacobian(x.data(), y, J.data());
    for (int i = 0; i < 2; ++i) {
      Vec dx(5, 0.0);
      double yy[2], dy[2] = {double(i == 0), double(i == 1)};
      jc::wide_vjp(x.data(), yy, dx.data(), dy);
      for (int j = 0; j < 5; ++j)
        SO_EXPECT_CLOSE(J[i * 5 + j], dx[j], 1e-13);
    }
    for (int j = 0; j < 5; ++j) {
      Vec tx = so::unit(5, j);
      double yy[2], ty[2] = {0, 0};
      jc::wide_jvp(x.data(), yy, tx.data(), ty);
      SO_EXPECT_CLOSE(J[0 * 5 + j], ty[0], 1e-13);
      SO_EXPECT_CLOSE(J[1 * 5 + j], ty[1], 1e-13);
    }
    expectMatrixClose(J, wideFD(x), 1e-7);
    // Row 0 closed form: 2 (j+1) x_j.
    for (int j = 0; j < 5; ++j)
      SO_EXPECT_CLOSE(J[j], 2 * (j + 1) * x[j], 1e-13);
  }
}

TEST(Jacobian, TallClosedFormAndJvpColumns) {
  Rng rng(203);
  for (int k = 0; k < 3; ++k)
    for (int t = 0; t < 10; ++t) {
      double a = rng.uniform(0.2, 1.5), b = rng.uniform(-1.5, 1.5);
      Vec J(14, -7.0);
      double y[6];
      jc::tall_jacobian(a, b, y, k, J.data());
      // row 0: d(ab) = (b, a); row 1+i: (i a^{i-1} b, a^i - k i sin(b i)).
      SO_EXPECT_CLOSE(J[0], b, 1e-13);
      SO_EXPECT_CLOSE(J[1], a, 1e-13);
      for (int i = 0; i < 6; ++i) {
        double da = i == 0 ? 0.0 : i * std::pow(a, i - 1) * b;
        double db = std::pow(a, i) - k * i * std::sin(b * i);
        SO_EXPECT_CLOSE(J[(1 + i) * 2 + 0], da, 1e-12);
        SO_EXPECT_CLOSE(J[(1 + i) * 2 + 1], db, 1e-12);
      }
      for (int j = 0; j < 2; ++j) {
        double yy[6], ty[6] = {};
        double r0 = jc::tall_jvp(a, b, yy, k, j == 0, j == 1, ty);
        SO_EXPECT_CLOSE(J[j], r0, 1e-13);
        for (int i = 0; i < 6; ++i)
          SO_EXPECT_CLOSE(J[(1 + i) * 2 + j], ty[i], 1e-13);
      }
      for (int i = 0; i < 7; ++i) {
        double yy[6], dy[6] = {};
        if (i > 0)
          dy[i - 1] = 1;
        double da = 0, db = 0;
        jc::tall_vjp(a, b, yy, k, i == 0 ? 1.0 : 0.0, &da, &db, dy);
        SO_EXPECT_CLOSE(J[i * 2 + 0], da, 1e-13);
        SO_EXPECT_CLOSE(J[i * 2 + 1], db, 1e-13);
      }
    }
}

TEST(Jacobian, SingleRowIsTheGradient) {
  Rng rng(204);
  for (int t = 0; t < 15; ++t) {
    Vec x = rng.vec(3, -1, 1);
    double s = rng.uniform(-1, 1);
    Vec J(4, -7.0);
    jc::row_jacobian(x.data(), s, J.data());
    double L = std::log(1 + s * s);
    Vec ref = {s * x[1] + L, s * (x[0] + x[2]), s * x[1],
               x[0] * x[1] + x[1] * x[2] + 2 * s / (1 + s * s) * x[0]};
    expectMatrixClose(J, ref, 1e-13);
    Vec g(3, 0.0);
    double gs = 0;
    jc::row_grad(x.data(), s, g.data(), &gs);
    for (int j = 0; j < 3; ++j)
      SO_EXPECT_CLOSE(J[j], g[j], 1e-13);
    SO_EXPECT_CLOSE(J[3], gs, 1e-13);
  }
}

TEST(Jacobian, AloneWithoutOtherAnnotations) {
  Rng rng(206);
  for (int t = 0; t < 10; ++t) {
    double x = rng.uniform(-1, 1), y = rng.uniform(-1, 1), out[1], J[4];
    jc::alone_jacobian(x, y, out, J);
    double q = 1 + y * y;
    SO_EXPECT_CLOSE(out[0], x / q, 1e-15);
    SO_EXPECT_CLOSE(J[0], y * y, 1e-13);
    SO_EXPECT_CLOSE(J[1], 2 * x * y, 1e-13);
    SO_EXPECT_CLOSE(J[2], 1 / q, 1e-13);
    SO_EXPECT_CLOSE(J[3], -2 * x * y / (q * q), 1e-13);
  }
}

TEST(Jacobian, Float) {
  Rng rng(205);
  for (int t = 0; t < 10; ++t) {
    float x[2] = {float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))};
    float y[3], J[6];
    jc::fl_jacobian(x, y, J);
    float ref[6] = {x[1], x[0], std::exp(x[0]), -1, 0, 3 * x[1] * x[1]};
    for (int i = 0; i < 6; ++i)
      SO_EXPECT_CLOSE(J[i], ref[i], 1e-6);
    for (int j = 0; j < 2; ++j) {
      float tx[2] = {float(j == 0), float(j == 1)}, yy[3], ty[3] = {};
      jc::fl_jvp(x, yy, tx, ty);
      for (int i = 0; i < 3; ++i)
        SO_EXPECT_CLOSE(J[i * 2 + j], ty[i], 1e-6);
    }
  }
}

} // namespace
