// Local Eigen matrices of dynamic size (contract v2 asks Eigen objects as
// locals): sized MatrixXd m(r, c), made from expressions (a Gauss-Newton
// matrix J^T J + lambda I, Zero, a copy), filled by coefficients, solved
// with, and read by the reverse rows of an f_jacobian (handed over from the
// forward part with their rows and columns). Each derivative is checked
// against finite differences (fluxion::check_*), and f_hvp too where the
// function is twice differentiable.
#include <Eigen/Dense>

#include "eigen_inputs.hpp"

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace locals {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

[[fluxion::grad]] [[fluxion::jvp]] double normal(const MatrixXd &J,
                                                 const VectorXd &r,
                                                 double lambda) {
  MatrixXd H =
      J.transpose() * J + lambda * MatrixXd::Identity(J.cols(), J.cols());
  VectorXd g = J.transpose() * r;
  MatrixXd K(J.rows(), J.rows());
  for (Index i = 0; i < J.rows(); ++i)
    for (Index j = 0; j < J.rows(); ++j)
      K(i, j) = std::exp(-(J.row(i) - J.row(j)).squaredNorm());
  MatrixXd Z = MatrixXd::Zero(2, 3);
  Z(1, 2) = r(0);
  MatrixXd C = H;
  C(0, 0) += Z.sum();
  return g.dot(H * g) + K.sum() + C.trace() + H.ldlt().solve(g).sum();
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
gram(const MatrixXd &A, const VectorXd &x) {
  MatrixXd G = A * A.transpose();
  MatrixXd T = G.transpose() - 0.5 * G;
  return 0.5 * (T * A * x).squaredNorm() + G(0, 1) * x(0);
}

[[fluxion::jacobian]] void squared(const double x[4], double y[2]) {
  MatrixXd M(2, 2);
  M(0, 0) = x[0];
  M(0, 1) = x[1];
  M(1, 0) = x[2];
  M(1, 1) = x[3];
  MatrixXd P = M * M;
  y[0] = P(0, 1) * P(1, 0);
  y[1] = P.sum() * std::sin(M(1, 1));
}

// A callee with a dynamic local that carries no derivative (filled with
// constants): f_hvp's dual of the callee's pair saves its coefficients with
// their tangents, which must be sized too (found by the fuzzer, seed 5034:
// a crash).
double damped(double v) {
  Eigen::VectorXf a(3);
  for (int i = 0; i < 3; ++i)
    a[i] = static_cast<float>(i);
  return v + v / (1.0f + a.mean() * a.mean());
}
[[fluxion::grad]] [[fluxion::hessian]] double throughDamped(double x,
                                                             double y) {
  return damped(x * y) * x + std::sin(y);
}
} // namespace locals

namespace {

using eigen_inputs::matrix;

using Eigen::MatrixXd;
using Eigen::VectorXd;

TEST(EigenLocals, DynamicMatrices) {
  MatrixXd J = matrix(4, 3, 0.4);
  VectorXd r(4);
  r << 0.3, -0.8, 0.5, 1.1;
  auto G = fluxion::check_gradient(locals::normal, locals::normal_grad, J, r,
                                   0.3);
  EXPECT_TRUE(G.ok()) << G;
  auto F = fluxion::check_jvp(locals::normal, locals::normal_jvp, J, r, 0.3);
  EXPECT_TRUE(F.ok()) << F;
}

TEST(EigenLocals, SecondOrder) {
  MatrixXd A = matrix(3, 2, 1.1);
  VectorXd x(2);
  x << 0.7, -0.4;
  auto G = fluxion::check_gradient(locals::gram, locals::gram_grad, A, x);
  EXPECT_TRUE(G.ok()) << G;
  auto F = fluxion::check_jvp(locals::gram, locals::gram_jvp, A, x);
  EXPECT_TRUE(F.ok()) << F;
  auto H = fluxion::check_hvp(locals::gram, locals::gram_hvp, A, x);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenLocals, InactiveDynamicLocalInACalleeUnderHvp) {
  auto H = fluxion::check_hvp(locals::throughDamped, locals::throughDamped_hvp,
                              0.7, -1.2);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenLocals, HandedOverToJacobianRows) {
  double x[4] = {1, 2, -0.5, 0.3}, y[2];
  auto J = fluxion::check_jacobian(locals::squared, locals::squared_jacobian,
                                   x, y);
  EXPECT_TRUE(J.ok()) << J;
}

} // namespace
