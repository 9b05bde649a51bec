// `auto` locals holding Eigen expressions: `auto d = A * x - b;` is Eigen's
// expression object, evaluated where it is used, over its operands' values
// there (a scalar factor and a view's offsets are the ones of the
// declaration, as Eigen copies them). `auto e = (p - q).norm();` is a
// number. Each derivative is checked against finite differences
// (fluxion::check_*), reverse mode against forward mode by the dot-product
// test, and f_hvp where the function is twice differentiable.
#include <Eigen/Dense>

#include "eigen_inputs.hpp"

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace lazy {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

// Fixed size: a distance, a difference read by several reductions and by a
// coefficient, a cross product.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
geometry(const Vector3d &p, const Vector3d &q, double s) {
  auto e = (p - q).norm();
  auto d = p - s * q;
  auto c = d.cross(q);
  return e * d.squaredNorm() + d(1) * c.z() + d.dot(q) / (1 + e);
}

// Dynamic size, a product by Eigen's kernels inside the expression, used
// twice; a transposed product of it.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
residual(const MatrixXd &A, const VectorXd &x, const VectorXd &b) {
  auto r = A * x - b;
  auto w = 0.5 * r;
  double n = r.squaredNorm();
  return n + w.dot(b) + (A.transpose() * r).sum();
}

// The operands change between the declaration and the uses: each use reads
// them as they are then. The scalar factor is the declaration's.
[[fluxion::grad]] [[fluxion::jvp]] double
reread(const VectorXd &x, const VectorXd &b, double s) {
  VectorXd y = x;
  double k = s * s;
  auto d = k * y - b;
  auto a = y.array() * b.array();
  double r = d.sum() + a.exp().sum();
  y(0) = y(0) * y(1);
  k = 3 * k; // not seen by d
  r += d.squaredNorm();
  y = y.array().sin().matrix();
  r += d.dot(b) + a.square().sum() + k;
  return r;
}

// In a loop: the expression of each iteration reads the state it updates.
[[fluxion::grad]] [[fluxion::jvp]] double
recurrent(const MatrixXd &W, const VectorXd &h0, const VectorXd &c) {
  VectorXd h = h0, g(h0.size());
  double r = 0;
  for (int t = 0; t < 3; ++t) {
    auto z = W * h + (t + 1.0) * c;
    r += 0.1 * z.squaredNorm();
    g = z.array().tanh().matrix();
    h = g;
    r += z.sum(); // z over the new h
  }
  return r + h.sum();
}

// A view of a parameter that is only read: its offsets are the
// declaration's.
[[fluxion::grad]] [[fluxion::jvp]] double columns(const MatrixXd &X,
                                                  const VectorXd &v) {
  double r = 0;
  for (Index k = 0; k < X.cols(); ++k) {
    auto col = X.col(k);
    auto seg = v.segment(k, 2);
    r += col.dot(col) * seg.sum() + col.cwiseProduct(col).maxCoeff();
  }
  return r;
}

// Assigned to a variable and to a view of one.
[[fluxion::grad]] [[fluxion::jvp]] void assigned(const MatrixXd &A,
                                                 const VectorXd &x,
                                                 VectorXd &y) {
  auto e = (A * x).array().square().matrix() + x;
  y = e;
  y.head(2) += 2.0 * e.tail(2);
}

// Passed to a callee taking a Vector3d (evaluated into a new local at the
// call), read by index, through a reference and in a lambda.
double corner(const Vector3d &v) { return v(0) * v(1); }
[[fluxion::grad]] [[fluxion::jvp]] double passedOn(const Vector3d &p,
                                                   const Vector3d &q) {
  Vector3d m = p;
  auto d = m - q;
  const auto &e = d;
  auto f = [&]() { return d.squaredNorm(); };
  double r = corner(d) + d[2] * e(1) + f();
  m(1) = std::sin(m(0) * q(2));
  return r + corner(e) + f() * (m - q)(1);
}

} // namespace lazy

namespace {

using eigen_inputs::matrix;
using eigen_inputs::vec;

using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

// <grad f, t> (reverse mode) against f_jvp(t) (forward mode).
void expectDotProduct(double Forward, double Reverse) {
  EXPECT_NEAR(Forward, Reverse, 1e-10 * (1 + std::abs(Reverse)));
}

TEST(EigenAuto, FixedSize) {
  Vector3d p(0.3, -1.2, 0.8), q(1.1, 0.4, -0.6);
  auto G = fluxion::check_gradient(lazy::geometry, lazy::geometry_grad, p, q,
                                   0.7);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(lazy::geometry, lazy::geometry_jvp, p, q, 0.7);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(lazy::geometry, lazy::geometry_hvp, p, q, 0.7);
  EXPECT_TRUE(H.ok()) << H;
  Vector3d dp = Vector3d::Zero(), dq = Vector3d::Zero();
  double ds = 0;
  lazy::geometry_grad(p, q, 0.7, &dp, &dq, &ds);
  Vector3d tp(0.2, 0.5, -0.3), tq(-0.4, 0.1, 0.9);
  double ts = 0.6;
  double T = lazy::geometry_jvp(p, q, 0.7, &tp, &tq, ts);
  expectDotProduct(T, dp.dot(tp) + dq.dot(tq) + ds * ts);
}

TEST(EigenAuto, DynamicWithProducts) {
  // 30 x 20: the products take Eigen's kernels.
  for (int n : {3, 20}) {
    MatrixXd A = matrix(n + 10, n, 0.3);
    VectorXd x = vec(n, 0.5), b = vec(n + 10, -0.2);
    auto G =
        fluxion::check_gradient(lazy::residual, lazy::residual_grad, A, x, b);
    EXPECT_TRUE(G.ok()) << G;
    auto J = fluxion::check_jvp(lazy::residual, lazy::residual_jvp, A, x, b);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(lazy::residual, lazy::residual_hvp, A, x, b);
    EXPECT_TRUE(H.ok()) << H;
    MatrixXd dA = MatrixXd::Zero(n + 10, n);
    VectorXd dx = VectorXd::Zero(n), db = VectorXd::Zero(n + 10);
    lazy::residual_grad(A, x, b, &dA, &dx, &db);
    MatrixXd tA = matrix(n + 10, n, 1.7);
    VectorXd tx = vec(n, 2.1), tb = vec(n + 10, 0.8);
    double T = lazy::residual_jvp(A, x, b, &tA, &tx, &tb);
    expectDotProduct(T, (dA.array() * tA.array()).sum() + dx.dot(tx) +
                                  db.dot(tb));
  }
}

TEST(EigenAuto, OperandsChangedBeforeUse) {
  VectorXd x = vec(4, 0.2), b = vec(4, 1.3);
  // The value Eigen computes, with the changes between the uses.
  double Expected = 0;
  {
    VectorXd y = x;
    double k = 0.9 * 0.9;
    auto d = k * y - b;
    auto a = y.array() * b.array();
    double r = d.sum() + a.exp().sum();
    y(0) = y(0) * y(1);
    k = 3 * k;
    r += d.squaredNorm();
    y = y.array().sin().matrix();
    r += d.dot(b) + a.square().sum() + k;
    Expected = r;
  }
  EXPECT_NEAR(lazy::reread(x, b, 0.9), Expected, 1e-12);
  VectorXd dx = VectorXd::Zero(4), db = VectorXd::Zero(4);
  double ds = 0;
  EXPECT_NEAR(lazy::reread_grad(x, b, 0.9, &dx, &db, &ds), Expected, 1e-12);
  auto G = fluxion::check_gradient(lazy::reread, lazy::reread_grad, x, b, 0.9);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(lazy::reread, lazy::reread_jvp, x, b, 0.9);
  EXPECT_TRUE(J.ok()) << J;
  VectorXd tx = vec(4, -0.7), tb = vec(4, 0.4);
  double ts = -0.3;
  double T = lazy::reread_jvp(x, b, 0.9, &tx, &tb, ts);
  expectDotProduct(T, dx.dot(tx) + db.dot(tb) + ds * ts);
}

TEST(EigenAuto, InALoop) {
  for (int n : {3, 24}) {
    MatrixXd W = 0.5 * matrix(n, n, 0.1) / std::sqrt(double(n));
    VectorXd h0 = vec(n, 0.6), c = 0.2 * vec(n, -1.0);
    auto G = fluxion::check_gradient(lazy::recurrent, lazy::recurrent_grad, W,
                                     h0, c);
    EXPECT_TRUE(G.ok()) << G;
    auto J = fluxion::check_jvp(lazy::recurrent, lazy::recurrent_jvp, W, h0,
                                c);
    EXPECT_TRUE(J.ok()) << J;
    MatrixXd dW = MatrixXd::Zero(n, n);
    VectorXd dh = VectorXd::Zero(n), dc = VectorXd::Zero(n);
    lazy::recurrent_grad(W, h0, c, &dW, &dh, &dc);
    MatrixXd tW = matrix(n, n, 0.9);
    VectorXd th = vec(n, 1.4), tc = vec(n, -2.2);
    double T = lazy::recurrent_jvp(W, h0, c, &tW, &th, &tc);
    expectDotProduct(T, (dW.array() * tW.array()).sum() + dh.dot(th) +
                                  dc.dot(tc));
  }
}

TEST(EigenAuto, PassedOnIndexedAliasedAndCaptured) {
  Vector3d p(0.4, -0.9, 1.3), q(-0.2, 0.6, 0.5);
  auto G = fluxion::check_gradient(lazy::passedOn, lazy::passedOn_grad, p, q);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(lazy::passedOn, lazy::passedOn_jvp, p, q);
  EXPECT_TRUE(J.ok()) << J;
  // The value Eigen computes.
  Vector3d m = p;
  auto d = m - q;
  double r = d(0) * d(1) + d[2] * d(1) + d.squaredNorm();
  m(1) = std::sin(m(0) * q(2));
  r += d(0) * d(1) + d.squaredNorm() * (m - q)(1);
  EXPECT_NEAR(lazy::passedOn(p, q), r, 1e-12);
  Vector3d dp = Vector3d::Zero(), dq = Vector3d::Zero();
  lazy::passedOn_grad(p, q, &dp, &dq);
  Vector3d tp(0.3, 0.1, -0.7), tq(0.5, -0.2, 0.4);
  double T = lazy::passedOn_jvp(p, q, &tp, &tq);
  expectDotProduct(T, dp.dot(tp) + dq.dot(tq));
}

TEST(EigenAuto, ViewsOfParameters) {
  MatrixXd X = matrix(3, 4, 0.8);
  VectorXd v = vec(5, 0.3);
  auto G = fluxion::check_gradient(lazy::columns, lazy::columns_grad, X, v);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(lazy::columns, lazy::columns_jvp, X, v);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenAuto, AssignedToVariablesAndViews) {
  MatrixXd A = matrix(4, 4, 0.5);
  VectorXd x = vec(4, 0.1), y(4);
  auto R = fluxion::check_vjp(lazy::assigned, lazy::assigned_vjp, A, x, y);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(lazy::assigned, lazy::assigned_jvp, A, x, y);
  EXPECT_TRUE(J.ok()) << J;
}

} // namespace
