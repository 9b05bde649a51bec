// Dynamic-size Eigen locals declared inside loops, as Eigen users write
// them (`VectorXd d = X.col(i) - mu;` in the loop over samples,
// `MatrixXd Q = MatrixXd::Zero(d, d);` in the loop over components), and
// triangular and self-adjoint views (`Q.triangularView<Lower>() * v`,
// `x.transpose() * S.selfadjointView<Upper>() * x`), in every mode Eigen
// has for them; dot products of a row with a column. Every derivative is
// checked against finite differences (fluxion::check_*), forward mode
// against reverse mode, and f_hvp.
#include <Eigen/Dense>

#include "eigen_inputs.hpp"

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace loops {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::Matrix3d;
using Eigen::Vector3d;
using Eigen::VectorXd;

// A Gaussian-mixture-like term: a matrix per component, a difference per
// sample, both declared where they are used.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
mixture(const MatrixXd &icf, const MatrixXd &means, const MatrixXd &X) {
  const int d = static_cast<int>(means.rows());
  double r = 0;
  for (int c = 0; c < means.cols(); ++c) {
    MatrixXd Q = MatrixXd::Zero(d, d);
    Q.diagonal() = icf.col(c).head(d).array().exp();
    int li = d;
    for (int j = 0; j < d; ++j)
      for (int l = j + 1; l < d; ++l)
        Q(l, j) = icf(li++, c);
    for (Index i = 0; i < X.cols(); ++i) {
      VectorXd diff = X.col(i) - means.col(c);
      VectorXd y = Q.triangularView<Eigen::Lower>() * diff;
      r += std::log1p(y.squaredNorm()) + 0.1 * diff.sum();
    }
  }
  return r;
}

// Sized by a parameter, a size of a parameter, or a list; zeros again at
// each iteration; a product into a local of the loop; nested loops; locals
// declared empty in the loop and sized after.
// A callee returning a dynamic-size vector, called in a loop over the
// columns of a batch: its result is sized once, before the loop.
VectorXd layer(const MatrixXd &W, const VectorXd &x) {
  return (W * x).array().tanh().matrix();
}
[[fluxion::grad]] [[fluxion::jvp]] double batch_loss(const MatrixXd &W,
                                                     const MatrixXd &X) {
  double L = 0;
  for (int s = 0; s < X.cols(); ++s) {
    VectorXd h = layer(W, X.col(s));
    L += h.squaredNorm() * (s + 1);
  }
  return L;
}

// Locals of a loop initialised from blocks sized by a parameter's size or
// by an integer fixed before the loop.
[[fluxion::grad]] [[fluxion::jvp]] double blocks_in_loops(const MatrixXd &D,
                                                          const VectorXd &x) {
  const int r = int(D.rows());
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    VectorXd z = D.block(0, 2 * i, D.rows(), 2) * x.segment(2 * i, 2);
    VectorXd w = D.block(0, 2 * i, r, 2) * x.segment(2 * i, 2);
    s += z.squaredNorm() + w.sum() * z(0);
  }
  return s;
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
sized_in_loops(const MatrixXd &W, const VectorXd &x, int n) {
  double s = 0;
  for (int k = 0; k < 3; ++k) {
    VectorXd t(n); // zeros (Fluxion's reading; Eigen leaves them unset)
    t.setZero();
    for (int j = 0; j < n; ++j)
      t(j) += W(j, k) * x(j) * (k + 1);
    VectorXd h = W.transpose() * t;
    VectorXd u = VectorXd::Ones(n);
    VectorXd v = VectorXd::Constant(x.size(), 0.5 * k);
    VectorXd c = x;
    MatrixXd P = MatrixXd::Zero(n, W.cols());
    for (int i = 0; i < 2; ++i) {
      VectorXd z{{t(0), t(1) * c(2)}};
      P.col(k) += z(i) * t;
      s += z.squaredNorm();
    }
    u = u.cwiseProduct(t) + v.cwiseProduct(c);
    s += u.dot(t) + h.array().tanh().sum() + P.sum();
    // Declared empty, sized by the first assignment, resize or fill.
    VectorXd e;
    e = W.transpose() * x;
    VectorXd f;
    f.noalias() = W * e;
    VectorXd g;
    g.setConstant(n, 0.25 * k);
    MatrixXd M;
    M.resize(2, 2); // Eigen leaves the coefficients unset
    M.fill(0.5);
    M(0, 1) = e(0) * f(1);
    s += e.squaredNorm() + f.array().sin().sum() + g.dot(x) + M.sum();
  }
  return s;
}

// Inside a range-based for, and a loop in it.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
ranged(const MatrixXd &A, const VectorXd &x) {
  const double weights[3] = {0.5, 1.0, 1.5};
  double s = 0;
  for (double w : weights) {
    VectorXd y = w * (A * x);
    for (Index i = 0; i < A.cols(); ++i) {
      VectorXd z = y.array().sin() * A.col(i).array();
      s += z.sum() * w;
    }
  }
  return s;
}

// Every triangular mode, on both sides of a product, and self-adjoint
// views of either half.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
views(const MatrixXd &A, const VectorXd &x, const VectorXd &y) {
  double s = x.dot(A.triangularView<Eigen::Upper>() * y);
  s += (A.triangularView<Eigen::StrictlyLower>() * y).array().sin().sum();
  s += (A.triangularView<Eigen::UnitLower>() * y).squaredNorm();
  s += (A.triangularView<Eigen::UnitUpper>() * x).sum();
  s += (A.triangularView<Eigen::StrictlyUpper>() * x).squaredNorm();
  s += (y.transpose() * A.triangularView<Eigen::Lower>()).sum();
  s += (x.transpose() * A.triangularView<Eigen::StrictlyUpper>()).norm();
  s += (A.triangularView<Eigen::Lower>().transpose() * y).sum();
  s += x.transpose() * A.selfadjointView<Eigen::Lower>() * x;
  // A row vector dotted with a column (read as vectors, whatever their
  // orientation).
  s += (y.transpose() * A.triangularView<Eigen::Lower>()).dot(x);
  s += x.transpose().dot(y) + y.dot(x.transpose() * A);
  s += y.dot(A.selfadjointView<Eigen::Upper>() * x);
  MatrixXd L = A.triangularView<Eigen::Lower>();
  MatrixXd U = A.triangularView<Eigen::Upper>() * A;
  return s + L.sum() + U.trace() + (L * x).sum();
}

// Fixed sizes: coefficient loops throughout.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
small_views(const Matrix3d &A, const Vector3d &x) {
  Vector3d a = A.triangularView<Eigen::Lower>() * x;
  Vector3d b = A.selfadjointView<Eigen::Upper>() * a;
  Matrix3d U = A.triangularView<Eigen::StrictlyUpper>();
  return a.dot(b) + U.squaredNorm() + (x.transpose() * A).dot(a);
}

// The same constructs in float and long double: a local declared in the
// loop, a triangular product and a triangular solve.
using Eigen::MatrixXf;
using Eigen::VectorXf;
using MatrixXl = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
using VectorXl = Eigen::Matrix<long double, Eigen::Dynamic, 1>;

[[fluxion::grad]] [[fluxion::jvp]] float in_float(const MatrixXf &L,
                                                  const MatrixXf &X) {
  // A solve in a loop is a located error: before it.
  VectorXf z = L.triangularView<Eigen::Lower>().solve(X.col(0));
  float s = z.squaredNorm();
  for (Index i = 0; i < X.cols(); ++i) {
    VectorXf d = X.col(i) - z;
    s += (L.triangularView<Eigen::Upper>() * d).sum() * d(0);
  }
  return s;
}

[[fluxion::grad]] [[fluxion::jvp]] long double
in_long_double(const MatrixXl &L, const MatrixXl &X) {
  VectorXl z = L.triangularView<Eigen::UnitLower>().solve(X.col(1));
  long double s = z.squaredNorm();
  for (Index i = 0; i < X.cols(); ++i) {
    VectorXl d = X.col(i) - z;
    s += d.transpose() * L.selfadjointView<Eigen::Lower>() * d;
  }
  return s;
}

TEST(EigenLoops, FloatAndLongDouble) {
  MatrixXd L = eigen_inputs::matrix(3, 3, 0.4);
  L.diagonal().array() += 3;
  MatrixXd X = eigen_inputs::matrix(3, 2, 1.2);
  MatrixXf Lf = L.cast<float>(), Xf = X.cast<float>();
  auto G = fluxion::check_gradient(in_float, in_float_grad, Lf, Xf);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(in_float, in_float_jvp, Lf, Xf);
  EXPECT_TRUE(J.ok()) << J;
  MatrixXl Ll = L.cast<long double>(), Xl = X.cast<long double>();
  auto Gl = fluxion::check_gradient(in_long_double, in_long_double_grad, Ll,
                                    Xl);
  EXPECT_TRUE(Gl.ok()) << Gl;
  auto Jl = fluxion::check_jvp(in_long_double, in_long_double_jvp, Ll, Xl);
  EXPECT_TRUE(Jl.ok()) << Jl;
}

TEST(EigenLoops, LocalsDeclaredInLoops) {
  const int d = 3, k = 2;
  MatrixXd icf = 0.3 * eigen_inputs::matrix(d * (d + 1) / 2, k, 0.2);
  MatrixXd means = eigen_inputs::matrix(d, k, 1.1);
  MatrixXd X = eigen_inputs::matrix(d, 4, 2.3);
  auto G = fluxion::check_gradient(mixture, mixture_grad, icf, means, X);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(mixture, mixture_jvp, icf, means, X);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(mixture, mixture_hvp, icf, means, X);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenLoops, SizesKnownBeforeTheLoop) {
  MatrixXd W = eigen_inputs::matrix(4, 3, 0.4);
  VectorXd x = eigen_inputs::vec(4, 0.9);
  auto G = fluxion::check_gradient(sized_in_loops, sized_in_loops_grad, W, x,
                                   4);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(sized_in_loops, sized_in_loops_jvp, W, x, 4);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(sized_in_loops, sized_in_loops_hvp, W, x, 4);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenLoops, CalleeResultsInALoop) {
  MatrixXd W = eigen_inputs::matrix(3, 4, 0.2);
  MatrixXd X = eigen_inputs::matrix(4, 3, 0.5);
  auto G = fluxion::check_gradient(batch_loss, batch_loss_grad, W, X);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(batch_loss, batch_loss_jvp, W, X);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenLoops, BlocksSizedBeforeTheLoop) {
  MatrixXd D = eigen_inputs::matrix(4, 6, 0.3);
  VectorXd x = eigen_inputs::vec(6, 0.7);
  auto G = fluxion::check_gradient(blocks_in_loops, blocks_in_loops_grad, D, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(blocks_in_loops, blocks_in_loops_jvp, D, x);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenLoops, InsideARangeBasedFor) {
  MatrixXd A = eigen_inputs::matrix(3, 4, 0.2);
  VectorXd x = eigen_inputs::vec(4, 0.6);
  auto G = fluxion::check_gradient(ranged, ranged_grad, A, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(ranged, ranged_jvp, A, x);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(ranged, ranged_hvp, A, x);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenLoops, TriangularAndSelfAdjointViews) {
  MatrixXd A = eigen_inputs::matrix(4, 4, 0.6);
  VectorXd x = eigen_inputs::vec(4, 0.1), y = eigen_inputs::vec(4, 1.7);
  auto G = fluxion::check_gradient(views, views_grad, A, x, y);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(views, views_jvp, A, x, y);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(views, views_hvp, A, x, y);
  EXPECT_TRUE(H.ok()) << H;
  // The value is Eigen's own.
  MatrixXd dA = MatrixXd::Zero(4, 4);
  VectorXd dx = VectorXd::Zero(4), dy = VectorXd::Zero(4);
  EXPECT_DOUBLE_EQ(views_grad(A, x, y, &dA, &dx, &dy), views(A, x, y));
}

TEST(EigenLoops, FixedSizeViews) {
  Matrix3d A = eigen_inputs::matrix(3, 3, 0.8);
  Vector3d x = eigen_inputs::vec(3, 0.5);
  auto G = fluxion::check_gradient(small_views, small_views_grad, A, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(small_views, small_views_jvp, A, x);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(small_views, small_views_hvp, A, x);
  EXPECT_TRUE(H.ok()) << H;
}

} // namespace loops
