// Eigen views: Map and Ref parameters (contract v2: their adjoints and
// tangents are objects of the type they view), Map over raw arrays, of
// vectors and matrices, read-only and written, Ref of vectors, const and
// not; and views as destinations (X.col(k) = e, z.segment(i, n) += e). Each
// derivative is checked against central differences (taken on the arrays
// the views look at, or by fluxion::check_*), and forward mode against
// reverse mode by the dot-product test.
// fluxion/check.hpp before Eigen: the checker works with either order.
#include <fluxion/check.hpp>

#include <Eigen/Dense>

#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace views {

using Eigen::Map;
using Eigen::MatrixXd;
using Eigen::Ref;
using Eigen::Vector3d;
using Eigen::VectorXd;

[[fluxion::grad]] [[fluxion::jvp]] double mapped(Map<const VectorXd> x,
                                                 Map<const MatrixXd> A) {
  return (A * x).squaredNorm() + x.sum() * A(1, 0);
}

[[fluxion::grad]] [[fluxion::jvp]] void mapped_out(Map<const Vector3d> x,
                                                   Map<Vector3d> y) {
  y = x.cwiseProduct(x) + 2.0 * x;
  y(0) += std::sin(x(1));
}

[[fluxion::grad]] [[fluxion::jvp]] double reffed(const Ref<const VectorXd> &x,
                                                 Ref<VectorXd> y, double s) {
  y = s * x;
  y(1) = y(1) * x(0);
  return x.dot(x) * s;
}

// Views as destinations: columns, rows, segments, heads, blocks.
[[fluxion::grad]] [[fluxion::jvp]] void scatter(const MatrixXd &W,
                                                const VectorXd &x,
                                                MatrixXd &Y, VectorXd &z) {
  Y.setZero();
  z.setZero();
  Y.col(0) = W * x;
  Y.col(1).noalias() = W * x.cwiseProduct(x);
  Y.row(0) += x.head(2).transpose();
  z.segment(1, 2) = 2.0 * x.tail(2).array().exp().matrix();
  z.head(1) -= x.head(1) * x(3);
  Y.block(1, 1, 2, 1) -= 0.5 * z.tail(2);
}

// Arithmetic on arrays in place: a number added to or taken from every
// coefficient (`a.array() += s`, an ArrayXd's `b -= s`), array expressions
// multiplied and divided in (`a.array() *= x.array()`, `b /= ...`, the
// same into views: `a.head(2).array() *= ...`), a variable multiplied by
// itself, and `.matrix()` / `.array()` of a whole variable as destinations.
[[fluxion::grad]] [[fluxion::jvp]] double in_place_arrays(const VectorXd &x,
                                                          double s) {
  VectorXd a = x;
  a.array() += s;
  a.array() *= x.array();
  a.array() -= 0.5;
  a.array() /= 1.0 + x.array().square();
  Eigen::ArrayXd b = x.array() * s;
  b += 1.5;
  b *= a.array();
  b /= 2.0 + x.array().cos();
  b -= s * s;
  a.head(2).array() *= b.tail(2);
  a.tail(2).array() /= 1.0 + b.head(2).square();
  a.array() *= a.array();
  Eigen::Array3d c(0.5, -0.25, 2.0);
  c *= x.head<3>().array();
  c.matrix() += 0.1 * x.tail<3>();
  a.array() = a.array() + c.sum();
  return a.squaredNorm() + b.sum() + c.prod();
}

// Sides and corners, and blocks whose sizes are template arguments, as
// readers and as writers.
[[fluxion::grad]] [[fluxion::jvp]] double
sidesAndCorners(const Eigen::Matrix4d &M, const MatrixXd &D) {
  Eigen::Matrix4d W = M;
  W.block<2, 2>(1, 1) *= 2.0;
  W.topRows(1) += M.bottomRows<1>();
  W.rightCols(2) = M.leftCols<2>() * 0.5;
  double s = W.block<2, 2>(0, 0).sum() +
             M.topLeftCorner<2, 3>().squaredNorm() +
             M.bottomRightCorner(2, 2).sum() * M.middleCols(1, 2).sum() +
             D.middleRows<2>(1).squaredNorm() + D.topRightCorner(2, 1).sum();
  return s + W.squaredNorm();
}

} // namespace views

namespace {

using Eigen::Map;
using Eigen::MatrixXd;
using Eigen::Ref;
using Eigen::Vector3d;
using Eigen::VectorXd;

/// Central difference of F() in the value *p.
template <class Fn> double central(Fn F, double *p) {
  double h = 1e-6 * (1 + std::abs(*p)), old = *p;
  *p = old + h;
  double a = F();
  *p = old - h;
  double b = F();
  *p = old;
  return (a - b) / (2 * h);
}

TEST(EigenViews, SidesCornersAndFixedBlocks) {
  Eigen::Matrix4d M;
  M << 0.3, -1.2, 0.8, 0.1, 0.5, 1.1, -0.4, 0.7, 0.9, 0.2, -0.7, -0.3, 0.6,
      -0.5, 0.4, 1.2;
  MatrixXd D(4, 3);
  D << 0.2, -0.3, 0.5, 1.0, 0.4, -0.8, -0.6, 0.9, 0.1, 0.3, -1.1, 0.7;
  auto R = fluxion::check_gradient(views::sidesAndCorners,
                                   views::sidesAndCorners_grad, M, D);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(views::sidesAndCorners,
                              views::sidesAndCorners_jvp, M, D);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenViews, MapParameters) {
  double xd[3] = {0.3, -1.2, 0.8};
  double Ad[6] = {1.0, 0.5, -0.3, 2.0, 0.7, -1.1}; // 2x3, column-major
  Map<const VectorXd> x(xd, 3);
  Map<const MatrixXd> A(Ad, 2, 3);
  VectorXd dx = VectorXd::Zero(3);
  MatrixXd dA = MatrixXd::Zero(2, 3);
  double v = views::mapped_grad(x, A, &dx, &dA);
  auto F = [&] { return views::mapped(x, A); };
  EXPECT_DOUBLE_EQ(v, F());
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(dx(i), central(F, &xd[i]), 1e-6) << i;
  for (int k = 0; k < 6; ++k)
    EXPECT_NEAR(dA(k), central(F, &Ad[k]), 1e-6) << k;
  // Forward against reverse.
  VectorXd tx(3);
  tx << 0.2, -0.7, 1.1;
  MatrixXd tA(2, 3);
  tA << 0.3, 0.1, -0.4, 0.9, -0.2, 0.5;
  double Fwd = views::mapped_jvp(x, A, &tx, &tA);
  EXPECT_NEAR(Fwd, dx.dot(tx) + (dA.array() * tA.array()).sum(), 1e-12);
}

TEST(EigenViews, MapOutput) {
  double xd[3] = {0.3, -1.2, 0.8}, yd[3];
  Map<const Vector3d> x(xd);
  Map<Vector3d> y(yd);
  Vector3d tx(0.5, -0.1, 0.3), ty = Vector3d::Zero();
  views::mapped_out_jvp(x, y, &tx, &ty);
  // ty against differences along tx.
  for (int i = 0; i < 3; ++i) {
    double Step = 1e-6, Plus[3], Minus[3];
    double xp[3], xm[3];
    for (int k = 0; k < 3; ++k) {
      xp[k] = xd[k] + Step * tx(k);
      xm[k] = xd[k] - Step * tx(k);
    }
    views::mapped_out(Map<const Vector3d>(xp), Map<Vector3d>(Plus));
    views::mapped_out(Map<const Vector3d>(xm), Map<Vector3d>(Minus));
    EXPECT_NEAR(ty(i), (Plus[i] - Minus[i]) / (2 * Step), 1e-6) << i;
  }
  // The pullback of a seed, by the dot-product test.
  Vector3d seed(1.0, -2.0, 0.5), dx = Vector3d::Zero(), dy = seed;
  views::mapped_out_vjp(x, y, &dx, &dy);
  EXPECT_NEAR(dx.dot(tx), seed.dot(ty), 1e-12);
  EXPECT_EQ(dy, Vector3d::Zero()); // y was written, not read
}

TEST(EigenViews, RefParameters) {
  VectorXd x(4), y(4);
  x << 0.4, -0.3, 1.5, 0.2;
  double s = 1.7;
  // Reverse with seeds on the result and on y, against forward mode.
  VectorXd dx = VectorXd::Zero(4), dy(4);
  dy << 0.3, -1.0, 0.6, 2.0;
  VectorXd Seed = dy;
  double ds = 0;
  views::reffed_vjp(x, y, s, 1.5, &dx, &dy, &ds);
  VectorXd tx(4), ty = VectorXd::Zero(4);
  tx << 1.0, 0.2, -0.5, 0.7;
  double ts = -0.4;
  double Fwd = views::reffed_jvp(x, y, s, &tx, &ty, ts);
  EXPECT_NEAR(1.5 * Fwd + Seed.dot(ty), dx.dot(tx) + ds * ts, 1e-12);
  // The result's gradient in x by differences: 2 s x.
  VectorXd g = VectorXd::Zero(4), gy = VectorXd::Zero(4);
  double gs = 0;
  views::reffed_grad(x, y, s, &g, &gy, &gs);
  for (int i = 0; i < 4; ++i) {
    VectorXd Scratch(4);
    auto F = [&] { return views::reffed(x, Scratch, s); };
    EXPECT_NEAR(g(i), central(F, &x(i)), 1e-6) << i;
  }
  // A Ref binds to a column of a matrix too.
  MatrixXd M = MatrixXd::Random(4, 2);
  VectorXd d2 = VectorXd::Zero(4), dy2 = VectorXd::Zero(4);
  double ds2 = 0;
  VectorXd Out(4);
  views::reffed_grad(M.col(1), Out, 2.0, &d2, &dy2, &ds2);
  EXPECT_LT((d2 - 4.0 * M.col(1)).norm(), 1e-12);
}

TEST(EigenViews, ViewsAsDestinations) {
  MatrixXd W(3, 4);
  W << 0.2, -0.5, 0.7, 1.0, 0.3, 0.8, -0.4, 0.1, -0.6, 0.2, 0.9, -0.3;
  VectorXd x(4);
  x << 0.5, -1.0, 0.25, 0.8;
  MatrixXd Y(3, 2);
  VectorXd z(3);
  auto R = fluxion::check_vjp(views::scatter, views::scatter_vjp, W, x, Y, z);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(views::scatter, views::scatter_jvp, W, x, Y, z);
  EXPECT_TRUE(J.ok()) << J;
  // Closed form with seeds on Y(0, 0) = (W x)(0) + x(0) and on
  // z(1) = 2 exp(x(2)).
  MatrixXd dW = MatrixXd::Zero(3, 4), dY = MatrixXd::Zero(3, 2);
  VectorXd dx = VectorXd::Zero(4), dz = VectorXd::Zero(3);
  dY(0, 0) = 1;
  dz(1) = 1;
  views::scatter_vjp(W, x, Y, z, &dW, &dx, &dY, &dz);
  EXPECT_NEAR(dx(1), W(0, 1), 1e-15);
  EXPECT_NEAR(dx(2), W(0, 2) + 2 * std::exp(x(2)), 1e-14);
}

TEST(EigenViews, ArithmeticOnArraysInPlace) {
  VectorXd x(4);
  x << 0.5, -1.0, 0.25, 0.8;
  auto R = fluxion::check_gradient(views::in_place_arrays,
                                   views::in_place_arrays_grad, x, 0.7);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(views::in_place_arrays,
                              views::in_place_arrays_jvp, x, 0.7);
  EXPECT_TRUE(J.ok()) << J;
}

} // namespace
