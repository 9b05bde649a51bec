// Eigen's dense linear solves in differentiated functions:
// A.llt().solve(b), ldlt(), partialPivLu() (and lu()), householderQr() and
// triangularView<Mode>().solve(b),
// on variables and on expressions, with vector and fixed-size matrix
// right-hand sides, in float and double. Their derivatives are the rules of
// runtime/include/fluxion/eigen.hpp (a solve with the transpose on the same
// factorisation). Every derivative is checked against finite differences
// (fluxion::check_*), reverse mode against forward mode by the dot-product
// test, and the Gaussian one against its closed form.
#include <Eigen/Dense>

#include "eigen_inputs.hpp"

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace solve {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

// The quadratic term of a Gaussian's negative log-likelihood.
[[fluxion::grad]] [[fluxion::jvp]] double
mahalanobis(const MatrixXd &S, const VectorXd &x, const VectorXd &mu) {
  VectorXd r = x - mu;
  VectorXd z = S.ldlt().solve(r);
  return 0.5 * r.dot(z);
}

// The solve inside an expression, on an expression.
[[fluxion::grad]] [[fluxion::jvp]] double
inline_llt(const MatrixXd &S, const VectorXd &x, const VectorXd &mu) {
  return 0.5 * (x - mu).dot(S.llt().solve(x - mu)) + 0.1 * x.sum();
}

// A general square system of fixed size, into an output.
[[fluxion::grad]] [[fluxion::jvp]] void
lu_out(const Matrix3d &A, const Vector3d &b, Vector3d &y) {
  y = A.partialPivLu().solve(b);
}

// Least squares with a tall matrix.
[[fluxion::grad]] [[fluxion::jvp]] double least_squares(const MatrixXd &A,
                                                        const VectorXd &b) {
  VectorXd x = A.householderQr().solve(b);
  return x.squaredNorm() + std::sin(x(0));
}

// The normal equations: a matrix expression solved (a fixed-size local),
// then used again.
[[fluxion::grad]] [[fluxion::jvp]] double normal(const Matrix3d &J,
                                                 const Vector3d &r,
                                                 double lambda) {
  Vector3d g = J.transpose() * r;
  Vector3d step = (J.transpose() * J + lambda * Matrix3d::Ones())
                      .llt()
                      .solve(-g);
  return (J * step + r).squaredNorm();
}

// Several right-hand sides at once (a fixed-size matrix).
[[fluxion::grad]] [[fluxion::jvp]] double
multi_rhs(const Matrix3d &A, const Eigen::Matrix<double, 3, 2> &B) {
  Eigen::Matrix<double, 3, 2> X = A.lu().solve(B);
  return X.squaredNorm() + X(2, 1);
}

[[fluxion::grad]] [[fluxion::jvp]] float solve_f(const Eigen::Matrix2f &A,
                                                 const Eigen::Vector2f &b) {
  Eigen::Vector2f x = A.ldlt().solve(b);
  return x.dot(b) + x(1) * x(1);
}

// A Gaussian's negative log-likelihood, log-determinant included.
[[fluxion::grad]] [[fluxion::jvp]] double gauss_nll(const Matrix3d &S,
                                                    const Vector3d &x,
                                                    const Vector3d &mu) {
  Vector3d r = x - mu;
  return 0.5 * r.dot(S.ldlt().solve(r)) + 0.5 * std::log(S.determinant());
}

// Determinants of variables and expressions, of fixed and dynamic size.
[[fluxion::grad]] [[fluxion::jvp]] double dets(const Eigen::Matrix2d &A,
                                               const Matrix3d &B,
                                               const MatrixXd &C) {
  return A.determinant() * (B.transpose() * B).determinant() +
         C.determinant();
}

// Inverses of small fixed-size matrices, read like variables.
[[fluxion::grad]] [[fluxion::jvp]] double inverses(const Matrix3d &A,
                                                   const Vector3d &v) {
  Matrix3d Ai = A.inverse();
  Vector3d w = (A * A).inverse() * v;
  return v.dot(Ai * v) + w.squaredNorm() + Ai(0, 2);
}

// Solves with triangular views, as with a Cholesky factor L: a
// Gaussian's quadratic term through L^-1 (x - mu), every mode, vector and
// fixed-size matrix right-hand sides, a right-hand side that is an
// expression.
[[fluxion::grad]] [[fluxion::jvp]] double
triangular(const MatrixXd &L, const VectorXd &x, const VectorXd &mu) {
  VectorXd z = L.triangularView<Eigen::Lower>().solve(x - mu);
  VectorXd u = L.triangularView<Eigen::Upper>().solve(z);
  VectorXd w = L.triangularView<Eigen::UnitLower>().solve(x);
  VectorXd v = L.triangularView<Eigen::UnitUpper>().solve(mu);
  return z.squaredNorm() + u.sum() + w.dot(v);
}

[[fluxion::grad]] [[fluxion::jvp]] double
triangular_rhs(const Matrix3d &R, const Eigen::Matrix<double, 3, 2> &B) {
  Eigen::Matrix<double, 3, 2> X = R.triangularView<Eigen::Upper>().solve(B);
  return X.squaredNorm() + X(0, 1);
}

} // namespace solve

namespace {

using eigen_inputs::spd;
using eigen_inputs::vec;

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

TEST(EigenSolve, GaussianQuadraticTerm) {
  MatrixXd S = spd(4, 0.3);
  VectorXd x = vec(4, 0.1), mu = vec(4, 1.7);
  auto R = fluxion::check_gradient(solve::mahalanobis, solve::mahalanobis_grad,
                                   S, x, mu);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(solve::mahalanobis, solve::mahalanobis_jvp, S, x,
                              mu);
  EXPECT_TRUE(J.ok()) << J;
  // Closed form: d/dx = S^-1 r. ldlt reads the lower triangle of S only:
  // an off-diagonal coefficient below it stands for both, and gets
  // -z_i z_j; the upper triangle gets nothing.
  MatrixXd dS = MatrixXd::Zero(4, 4);
  VectorXd dx = VectorXd::Zero(4), dmu = VectorXd::Zero(4);
  solve::mahalanobis_grad(S, x, mu, &dS, &dx, &dmu);
  VectorXd z = S.ldlt().solve(x - mu);
  EXPECT_LT((dx - z).norm(), 1e-12);
  EXPECT_LT((dmu + z).norm(), 1e-12);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i) {
      double Want = i < j ? 0 : i == j ? -0.5 * z(i) * z(j) : -z(i) * z(j);
      EXPECT_NEAR(dS(i, j), Want, 1e-12) << i << ", " << j;
    }
}

TEST(EigenSolve, ReverseAgainstForward) {
  // <grad, t> == jvp(t) for random directions: the dot-product test.
  MatrixXd S = spd(5, 1.1);
  VectorXd x = vec(5, 0.4), mu = vec(5, 2.2);
  MatrixXd dS = MatrixXd::Zero(5, 5);
  VectorXd dx = VectorXd::Zero(5), dmu = VectorXd::Zero(5);
  solve::inline_llt_grad(S, x, mu, &dS, &dx, &dmu);
  for (int Trial = 0; Trial < 3; ++Trial) {
    MatrixXd tS = MatrixXd::Random(5, 5);
    VectorXd tx = VectorXd::Random(5), tmu = VectorXd::Random(5);
    double Fwd = solve::inline_llt_jvp(S, x, mu, &tS, &tx, &tmu);
    double Rev = (dS.array() * tS.array()).sum() + dx.dot(tx) + dmu.dot(tmu);
    EXPECT_NEAR(Fwd, Rev, 1e-11 * (1 + std::abs(Rev)));
  }
  auto R = fluxion::check_gradient(solve::inline_llt, solve::inline_llt_grad,
                                   S, x, mu);
  EXPECT_TRUE(R.ok()) << R;
}

TEST(EigenSolve, PartialPivLuIntoAnOutput) {
  Matrix3d A;
  A << 2, 1, 0.3, -1, 3, 0.5, 0.2, 0.1, 1.5;
  Vector3d b(1, 2, 3), y;
  auto R = fluxion::check_vjp(solve::lu_out, solve::lu_out_vjp, A, b, y);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(solve::lu_out, solve::lu_out_jvp, A, b, y);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenSolve, HouseholderQrLeastSquares) {
  MatrixXd A(6, 3);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 3; ++j)
      A(i, j) = std::sin(0.4 + 1.1 * i * (j + 1)) + (i == j ? 2 : 0);
  VectorXd b = vec(6, 0.9);
  auto R = fluxion::check_gradient(solve::least_squares,
                                   solve::least_squares_grad, A, b);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(solve::least_squares, solve::least_squares_jvp,
                              A, b);
  EXPECT_TRUE(J.ok()) << J;
  // A square system through the same rule.
  MatrixXd Sq = spd(3, 0.5);
  Sq(0, 2) += 0.7; // not symmetric
  auto Q = fluxion::check_gradient(solve::least_squares,
                                   solve::least_squares_grad, Sq, vec(3, 0.2));
  EXPECT_TRUE(Q.ok()) << Q;
}

TEST(EigenSolve, MatrixExpressionSolved) {
  Matrix3d J;
  J << 1, 0.2, -0.3, 0.4, 1.5, 0.1, -0.2, 0.3, 0.8;
  Vector3d r(0.3, -0.5, 0.9);
  auto R = fluxion::check_gradient(solve::normal, solve::normal_grad, J, r,
                                   0.1);
  EXPECT_TRUE(R.ok()) << R;
  auto F = fluxion::check_jvp(solve::normal, solve::normal_jvp, J, r, 0.1);
  EXPECT_TRUE(F.ok()) << F;
}

TEST(EigenSolve, SeveralRightHandSides) {
  Matrix3d A;
  A << 1.5, 0.2, -0.3, 0.4, 2.5, 0.1, -0.2, 0.3, 1.8;
  Eigen::Matrix<double, 3, 2> B;
  B << 1, 2, -1, 0.5, 0.3, -0.7;
  auto R = fluxion::check_gradient(solve::multi_rhs, solve::multi_rhs_grad, A,
                                   B);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(solve::multi_rhs, solve::multi_rhs_jvp, A, B);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenSolve, TriangularViews) {
  // A well-conditioned triangle (diagonal away from zero) with the other
  // triangle full too: it must receive no derivative.
  MatrixXd L = eigen_inputs::matrix(4, 4, 0.3);
  L.diagonal().array() += 3;
  VectorXd x = vec(4, 0.2), mu = vec(4, 1.4);
  auto R = fluxion::check_gradient(solve::triangular, solve::triangular_grad,
                                   L, x, mu);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(solve::triangular, solve::triangular_jvp, L, x,
                              mu);
  EXPECT_TRUE(J.ok()) << J;
  Matrix3d U;
  U << 2, 0.3, -0.5, 0.7, 1.8, 0.2, -0.4, 0.6, 2.2;
  Eigen::Matrix<double, 3, 2> B;
  B << 1, 2, -1, 0.5, 0.3, -0.7;
  auto Q = fluxion::check_gradient(solve::triangular_rhs,
                                   solve::triangular_rhs_grad, U, B);
  EXPECT_TRUE(Q.ok()) << Q;
  auto T = fluxion::check_jvp(solve::triangular_rhs, solve::triangular_rhs_jvp,
                              U, B);
  EXPECT_TRUE(T.ok()) << T;
}

TEST(EigenSolve, Float) {
  Eigen::Matrix2f A;
  A << 3, 0.5f, 0.5f, 2;
  Eigen::Vector2f b(1, -2);
  auto R = fluxion::check_gradient(solve::solve_f, solve::solve_f_grad, A, b);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(solve::solve_f, solve::solve_f_jvp, A, b);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenSolve, GaussianWithLogDeterminant) {
  Matrix3d S = spd(3, 0.8);
  Vector3d x(0.2, -0.4, 1.0), mu(0.5, 0.1, -0.3);
  auto R = fluxion::check_gradient(solve::gauss_nll, solve::gauss_nll_grad, S,
                                   x, mu);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(solve::gauss_nll, solve::gauss_nll_jvp, S, x,
                              mu);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenSolve, Determinants) {
  Eigen::Matrix2d A;
  A << 1.5, 0.3, -0.4, 2;
  Matrix3d B;
  B << 1, 0.2, -0.3, 0.4, 1.5, 0.1, -0.2, 0.3, 0.8;
  MatrixXd C = spd(5, 0.2);
  C(0, 4) += 0.5;
  auto R = fluxion::check_gradient(solve::dets, solve::dets_grad, A, B, C);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(solve::dets, solve::dets_jvp, A, B, C);
  EXPECT_TRUE(J.ok()) << J;
  // At a singular 3x3 matrix the cofactors are still the derivative.
  Matrix3d Sing;
  Sing << 1, 2, 3, 4, 5, 6, 7, 8, 9;
  Eigen::Matrix2d dA = Eigen::Matrix2d::Zero();
  Matrix3d dB = Matrix3d::Zero();
  MatrixXd dC = MatrixXd::Zero(5, 5);
  solve::dets_grad(Eigen::Matrix2d::Identity(), Sing, C, &dA, &dB, &dC);
  EXPECT_TRUE(dB.allFinite());
}

TEST(EigenSolve, Inverses) {
  Matrix3d A;
  A << 2, 0.2, -0.3, 0.4, 1.5, 0.1, -0.2, 0.3, 1.8;
  Vector3d v(0.3, -1.2, 0.7);
  auto R = fluxion::check_gradient(solve::inverses, solve::inverses_grad, A,
                                   v);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(solve::inverses, solve::inverses_jvp, A, v);
  EXPECT_TRUE(J.ok()) << J;
}

} // namespace
