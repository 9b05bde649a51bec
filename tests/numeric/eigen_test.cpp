// Eigen Matrix and Array variables in differentiated functions (contract
// v2: the adjoint of an Eigen parameter is an object of the same type and
// shape): fixed and dynamic sizes, column- and row-major storage, float and
// double; coefficient access (v(i), v[i], m(i, j), coeff, x()..w()),
// size/rows/cols, the reductions the engine lowers to loops (sum,
// squaredNorm, norm, dot, mean, prod, maxCoeff, minCoeff), fills of
// outputs, locals (sized, Zero/Ones/Constant, from coefficients, copies)
// range-based for, and Eigen objects passed on to callees. Every derivative is checked
// against finite differences (fluxion::check_*), reverse mode against
// forward mode by the dot-product test, and a few against closed forms.
#include <Eigen/Dense>

#include "eigen_inputs.hpp"

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace eig {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                                Eigen::RowMajor>;

// A quadratic form over a dynamic matrix, written with coefficients.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
quad(const MatrixXd &A, const VectorXd &x) {
  double s = 0;
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j)
      s += x(i) * A(i, j) * x[j];
  return s;
}

// The same on row-major storage, with coeff() reads.
[[fluxion::grad]] [[fluxion::jvp]] double quad_rm(const RowMatrix &A,
                                                  const VectorXd &x) {
  double s = 0;
  for (int i = 0; i < A.rows(); ++i)
    for (int j = 0; j < A.cols(); ++j)
      s += x.coeff(i) * A.coeff(i, j) * x(j) * (1 + 0.1 * j);
  return s;
}

// Reductions lowered to loops.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
reductions(const VectorXd &x, const VectorXd &y) {
  return x.sum() * 0.3 + x.squaredNorm() + std::sin(x.norm()) +
         x.dot(y) * y.mean() + 0.1 * y.prod() + x.maxCoeff() -
         2 * y.minCoeff();
}

[[fluxion::grad]] double peak(const VectorXd &x) {
  return x.maxCoeff() + 0.5 * x.minCoeff();
}

// Fixed sizes: .x() .. .z(), a 3x3 product by coefficients, a callee
// taking Vector3d by const reference.
double radial(const Vector3d &p, double k) {
  double r2 = p.x() * p.x() + p.y() * p.y();
  return 1 + k * r2;
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
project(const Matrix3d &R, const Vector3d &t, const Vector3d &X, double k) {
  Vector3d p;
  for (int i = 0; i < 3; ++i) {
    double s = t(i);
    for (int j = 0; j < 3; ++j)
      s += R(i, j) * X(j);
    p(i) = s;
  }
  double u = p.x() / p.z(), v = p.y() / p.z();
  Vector3d q(u, v, 1.0);
  return radial(q, k) * (u * u + v * v);
}

// An output written coefficient-wise after a fill; an Array; float.
[[fluxion::grad]] [[fluxion::jvp]] void layer(const MatrixXd &W,
                                              const VectorXd &x,
                                              VectorXd &y) {
  y.setZero();
  for (int i = 0; i < W.rows(); ++i) {
    for (int j = 0; j < W.cols(); ++j)
      y(i) += W(i, j) * x(j);
    y(i) = std::tanh(y(i));
  }
}

[[fluxion::grad]] double array_loss(const Eigen::ArrayXd &a,
                                    const Eigen::Array3d &b) {
  double s = 0;
  for (int i = 0; i < a.size(); ++i)
    s += a(i) * a(i) * b(i % 3);
  return s + b.sum();
}

[[fluxion::grad]] [[fluxion::jvp]] float norm_f(const Eigen::VectorXf &x,
                                                const Eigen::Vector3f &w) {
  return x.norm() * w.dot(w) + w(0) * x(0);
}

// Locals: a sized hidden layer, Zero / Constant / Ones, a copy, a fixed
// local filled later.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
hidden(const MatrixXd &W, const VectorXd &x) {
  VectorXd h(W.rows());
  for (int i = 0; i < W.rows(); ++i) {
    double a = 0;
    for (int j = 0; j < W.cols(); ++j)
      a += W(i, j) * x(j);
    h(i) = std::tanh(a);
  }
  VectorXd z = VectorXd::Zero(W.rows());
  VectorXd c = VectorXd::Constant(W.rows(), 0.5);
  VectorXd copy = h;
  Eigen::Vector2d o = Eigen::Vector2d::Ones();
  o(1) = x(0);
  for (int i = 0; i < h.size(); ++i)
    z(i) = copy(i) * copy(i) + c(i) * h(i);
  return z.sum() + o.prod() + h.squaredNorm();
}

// Comma initialisation (row by row, into column-major storage) and
// assignments between fixed-size objects.
[[fluxion::grad]] [[fluxion::jvp]] double comma(const VectorXd &x) {
  Eigen::Matrix2d M;
  M << x(0), 2 * x(1), x(2) * x(2), 1.0;
  Eigen::Matrix<double, 2, 3, Eigen::RowMajor> R;
  R << x(0), x(1), x(2), -x(0), 0.5, x(1) * x(0);
  Vector3d v;
  v << x(2), x(1), x(0);
  Vector3d w = v;
  w(0) = 3 * w(0);
  v = w;
  return M(0, 1) * 3 + M(1, 0) * M(0, 0) - M(1, 1) + R(1, 2) * R(0, 2) +
         v.dot(w) * R(1, 0);
}

// Range-based for over Eigen vectors: by value, by const reference, and by
// reference writing an output.
[[fluxion::grad]] [[fluxion::jvp]] double ranges(const VectorXd &x,
                                                 VectorXd &y) {
  double s = 0;
  for (double v : x)
    s += v * v;
  for (const double &v : x)
    s += std::sin(v);
  for (double &o : y)
    o = s * x(1);
  return s;
}

// A by-value parameter that is only read, and a vector passed on.
double weighted(const VectorXd &v, double w) {
  double s = 0;
  for (int i = 0; i < v.size(); ++i)
    s += w * v(i) * v(i);
  return s;
}

[[fluxion::grad]] [[fluxion::jvp]] double by_value(VectorXd v, double w) {
  return weighted(v, w) + v(0);
}

// Expressions written the Eigen way, temporaries implicit.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
least_squares(const MatrixXd &A, const VectorXd &x, const VectorXd &b) {
  return (A * x - b).squaredNorm() + 0.1 * x.norm();
}

// A two-layer perceptron: products, a bias, tanh on arrays, a local
// evaluated from an expression, a 1x1 product read as a number.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
mlp(const MatrixXd &W1, const VectorXd &b1, const MatrixXd &W2,
    const VectorXd &x, const VectorXd &t) {
  VectorXd h = (W1 * x + b1).array().tanh().matrix();
  VectorXd o = W2 * h;
  double reg = h.transpose() * h;
  return 0.5 * (o - t).squaredNorm() + 0.01 * reg +
         (W1.array() * W1.array()).sum() * 1e-3;
}

// An output through noalias(), compound assignments, scaling.
[[fluxion::grad]] [[fluxion::jvp]] void affine(const MatrixXd &W,
                                               const VectorXd &x,
                                               const VectorXd &c, double s,
                                               VectorXd &y) {
  y.noalias() = W.transpose() * x;
  y += s * c;
  y -= c / 4.0;
  y *= 0.5;
  y.noalias() += W.transpose() * (x.cwiseProduct(x));
}

// A matrix product into an output matrix, row-major on one side; trace,
// mean, maxCoeff and dot of expressions.
[[fluxion::grad]] [[fluxion::jvp]] void gram(const MatrixXd &A,
                                             const RowMatrix &B,
                                             MatrixXd &C) {
  C = A * B - 0.5 * B.transpose() * A.transpose();
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
reductions_of_expressions(const MatrixXd &A, const VectorXd &x) {
  return (A * A.transpose()).trace() + (A * x).mean() +
         (x.array().square() - x.array()).maxCoeff() +
         (2 * x).dot(x.cwiseProduct(x)) + (A.transpose() * A).sum() +
         x.array().exp().log().sum() + x.array().abs().sqrt().sum();
}

// Products of a column-major matrix accumulated column by column into the
// destination, with coefficient-wise operations applied after: `=`, `+=`,
// `-=`, a matrix-matrix product, a local; and the same through a
// row-major factor (dot products instead).
[[fluxion::grad]] [[fluxion::jvp]] void
columnwise(const MatrixXd &A, const MatrixXd &B, const RowMatrix &R,
           const VectorXd &x, MatrixXd &C, VectorXd &y) {
  C = 0.5 * (A * B).array().square().matrix() - B;
  y.noalias() = A * x;
  y.noalias() += A * x.cwiseProduct(x);
  y -= A * (2.0 * x);
  VectorXd t = (A * x).array().exp().matrix() + x;
  VectorXd u = (R * x).array().tanh().matrix();
  y += t.cwiseProduct(u);
}

// Fixed sizes, as in geometry code.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
geometry(const Vector3d &p, const Vector3d &q, const Matrix3d &R) {
  Vector3d d = R * (p - q);
  Vector3d e = R.transpose() * d + q;
  double c = d.dot(e) / (d.norm() * e.norm());
  return c + (p - q).squaredNorm() - (R * R.transpose()).trace();
}

// Bundle-adjustment style: a reprojection residual with the rotation from
// angle-axis written out, radial distortion, fixed-size locals; its
// Jacobian (two rows, twelve columns) is built from reverse rows, which
// read the fixed-size locals of the forward part.
[[fluxion::jacobian("cam", "X")]] void
reproject(const double cam[9], const double X[3], const double obs[2],
          double r[2]) {
  Vector3d w(cam[0], cam[1], cam[2]), t(cam[3], cam[4], cam[5]);
  Vector3d P(X[0], X[1], X[2]);
  double theta = w.norm();
  Vector3d k = w / theta;
  Vector3d kxp;
  kxp << k(1) * P(2) - k(2) * P(1), k(2) * P(0) - k(0) * P(2),
      k(0) * P(1) - k(1) * P(0);
  Vector3d p = std::cos(theta) * P + std::sin(theta) * kxp +
               (1 - std::cos(theta)) * k.dot(P) * k + t;
  double u = -p(0) / p(2), v = -p(1) / p(2);
  double r2 = u * u + v * v;
  double d = 1 + cam[7] * r2 + cam[8] * r2 * r2;
  r[0] = cam[6] * d * u - obs[0];
  r[1] = cam[6] * d * v - obs[1];
}

// Eigen objects as the parameters of f_jacobian, with fewer rows than
// columns (reverse rows): a Ceres-style residual with a Matrix3d input and
// a Vector2d output beside the returned value.
[[fluxion::jacobian]] double residual(const Eigen::Matrix3d &M, double s,
                                      Eigen::Vector2d &out) {
  out = s * M.col(0).head<2>() * M(2, 2) + M.row(1).tail<2>().transpose();
  return M.sum() * s + std::sin(M(0, 1));
}

// A variable assigned an expression that reads it coefficient by
// coefficient beside a product that does not: no aliasing (Eigen needs no
// temporary either).
[[fluxion::grad]] [[fluxion::jvp]] double
updatedInPlace(const Eigen::MatrixXd &A, const Eigen::VectorXd &y,
               const Eigen::Vector3d &d) {
  Eigen::Matrix3d H = Eigen::Matrix3d::Identity();
  for (int k = 0; k < 2; ++k)
    H = H + (k + 1.0) * d * d.transpose();
  Eigen::VectorXd x = y;
  x = x + A * y;
  x = 0.5 * (x - A * y.cwiseProduct(y)) / d(1);
  return H.sum() * x.squaredNorm() + H(0, 2);
}

// A variable scaled through its array or matrix face.
[[fluxion::grad]] [[fluxion::jvp]] double
scaledInPlace(const Eigen::VectorXd &x0, double s) {
  Eigen::VectorXd x = x0;
  x.array() /= 2.0;
  x.array() *= s;
  x.matrix() *= x0(0);
  Eigen::Matrix3d M = Eigen::Matrix3d::Identity() * s;
  M.array() *= x0(1);
  return x.squaredNorm() + M.sum();
}

// Rectifiers as Eigen users write them: cwiseMax / cwiseMin with a number,
// an array's max / min with a number and with another array.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
rectified(const Eigen::MatrixXd &W, const Eigen::VectorXd &x, double t) {
  Eigen::VectorXd z = W * x;
  Eigen::VectorXd h = z.cwiseMax(0.0);
  Eigen::ArrayXd a = z.array().max(t) + z.array().min(-t) +
                     z.array().max(x(0) * z.array());
  return h.squaredNorm() + a.square().sum() + z.cwiseMin(t).sum();
}

// fluxion::stop_gradient of Eigen objects: copied into locals, inside a
// product, reduced. Only the unstopped uses carry derivatives.
[[fluxion::grad]] [[fluxion::jvp]] double
stopped(const Eigen::VectorXd &x, const Eigen::Vector3d &p,
        const Eigen::MatrixXd &A) {
  Eigen::VectorXd c = fluxion::stop_gradient(x);
  Eigen::Vector3d q = fluxion::stop_gradient(p);
  return x.dot(c) + p.dot(q) + x.dot(fluxion::stop_gradient(A) * x) +
         fluxion::stop_gradient(x).sum() + fluxion::stop_gradient(p).norm();
}

} // namespace eig

namespace {

using eigen_inputs::matrix;
using eigen_inputs::vec;

using Eigen::MatrixXd;
using Eigen::VectorXd;

TEST(Eigen, DynamicMatrixCoefficients) {
  MatrixXd A = matrix(3, 3, 0.2);
  VectorXd x = vec(3, 0.5);
  auto R = fluxion::check_gradient(eig::quad, eig::quad_grad, A, x);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::quad, eig::quad_jvp, A, x);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(eig::quad, eig::quad_hvp, A, x);
  EXPECT_TRUE(H.ok()) << H;
  // Closed form: d/dA = x x^T, d/dx = (A + A^T) x.
  MatrixXd dA = MatrixXd::Zero(3, 3);
  VectorXd dx = VectorXd::Zero(3);
  eig::quad_grad(A, x, &dA, &dx);
  EXPECT_LT((dA - x * x.transpose()).norm(), 1e-14);
  EXPECT_LT((dx - (A + A.transpose()) * x).norm(), 1e-14);
}

TEST(Eigen, NonSquareAndRowMajor) {
  eig::RowMatrix A(2, 3);
  A << 0.3, -0.2, 0.5, 1.1, 0.4, -0.9;
  VectorXd x = vec(3, 0.1);
  // quad_rm reads x(i) for i < rows: rows 2, cols 3.
  auto R = fluxion::check_gradient(eig::quad_rm, eig::quad_rm_grad, A, x);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::quad_rm, eig::quad_rm_jvp, A, x);
  EXPECT_TRUE(J.ok()) << J;
  eig::RowMatrix dA = eig::RowMatrix::Zero(2, 3);
  VectorXd dx = VectorXd::Zero(3);
  eig::quad_rm_grad(A, x, &dA, &dx);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(dA(i, j), x(i) * x(j) * (1 + 0.1 * j), 1e-14);
}

TEST(Eigen, Reductions) {
  VectorXd x = vec(5, 0.3), y = vec(5, 1.7);
  auto R = fluxion::check_gradient(eig::reductions, eig::reductions_grad, x, y);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::reductions, eig::reductions_jvp, x, y);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(eig::reductions, eig::reductions_hvp, x, y);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Eigen, MaxCoeffSelectsOneCoefficient) {
  VectorXd x(5), dx(5);
  x << 0.1, 2.0, -0.5, 2.0, -0.5;
  dx.setZero();
  eig::peak_grad(x, &dx);
  // The first largest and the first smallest coefficient, as Eigen picks.
  VectorXd expect(5);
  expect << 0, 1, 0.5, 0, 0;
  EXPECT_EQ(dx, expect);
  auto R = fluxion::check_gradient(eig::peak, eig::peak_grad, vec(5, 0.4));
  EXPECT_TRUE(R.ok()) << R;
}

TEST(Eigen, FixedSizes) {
  Eigen::Matrix3d R;
  R << 0.9, -0.1, 0.2, 0.1, 0.95, -0.3, -0.2, 0.3, 0.9;
  Eigen::Vector3d t(0.1, -0.2, 3.0), X(0.4, 0.3, 1.5);
  auto G = fluxion::check_gradient(eig::project, eig::project_grad, R, t, X,
                                   0.05);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(eig::project, eig::project_jvp, R, t, X, 0.05);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(eig::project, eig::project_hvp, R, t, X, 0.05);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Eigen, OutputVectorAndDotProductTest) {
  MatrixXd W = matrix(2, 3, 0.4);
  VectorXd x = vec(3, 0.9), y(2);
  auto R = fluxion::check_vjp(eig::layer, eig::layer_vjp, W, x, y);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::layer, eig::layer_jvp, W, x, y);
  EXPECT_TRUE(J.ok()) << J;
  // <J t, s> forward equals <t, J^T s> backward.
  MatrixXd tW = matrix(2, 3, 2.1);
  VectorXd tx = vec(3, -0.4), ty = VectorXd::Zero(2);
  eig::layer_jvp(W, x, y, &tW, &tx, &ty);
  VectorXd s(2);
  s << 1.3, -0.4;
  MatrixXd dW = MatrixXd::Zero(2, 3);
  VectorXd dx = VectorXd::Zero(3), ds = s;
  eig::layer_vjp(W, x, y, &dW, &dx, &ds);
  double lhs = ty.dot(s);
  double rhs = (tW.array() * dW.array()).sum() + tx.dot(dx);
  EXPECT_NEAR(lhs, rhs, 1e-13);
  EXPECT_EQ(ds, VectorXd::Zero(2)) << "an output's seed is consumed";
}

TEST(Eigen, ArraysAndFloat) {
  Eigen::ArrayXd a(4);
  a << 0.3, -0.7, 1.1, 0.2;
  Eigen::Array3d b(0.5, -0.25, 2.0);
  auto R = fluxion::check_gradient(eig::array_loss, eig::array_loss_grad, a, b);
  EXPECT_TRUE(R.ok()) << R;
  Eigen::VectorXf x(3);
  x << 0.5f, -1.0f, 0.25f;
  Eigen::Vector3f w(0.3f, 0.6f, -0.2f);
  auto F = fluxion::check_gradient(eig::norm_f, eig::norm_f_grad, x, w);
  EXPECT_TRUE(F.ok()) << F;
  auto J = fluxion::check_jvp(eig::norm_f, eig::norm_f_jvp, x, w);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Eigen, Locals) {
  MatrixXd W = matrix(3, 2, 1.1);
  VectorXd x = vec(2, 0.6);
  auto R = fluxion::check_gradient(eig::hidden, eig::hidden_grad, W, x);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::hidden, eig::hidden_jvp, W, x);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(eig::hidden, eig::hidden_hvp, W, x);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Eigen, CommaInitialisationAndCopies) {
  VectorXd x(3);
  x << 0.3, -0.8, 1.4;
  auto R = fluxion::check_gradient(eig::comma, eig::comma_grad, x);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::comma, eig::comma_jvp, x);
  EXPECT_TRUE(J.ok()) << J;
  // By rows: M(0, 1) is 2 x(1), so d/dx(1) has 3 * 2 from that term.
  VectorXd dx = VectorXd::Zero(3);
  eig::comma_grad(x, &dx);
  VectorXd y = x;
  y(1) += 1e-3; // the function is quadratic in x(1): a central difference is exact
  VectorXd z = x;
  z(1) -= 1e-3;
  EXPECT_NEAR(dx(1), (eig::comma(y) - eig::comma(z)) / 2e-3, 1e-9);
}

TEST(Eigen, RangeFor) {
  VectorXd x = vec(4, 0.3), y(3);
  auto R = fluxion::check_vjp(eig::ranges, eig::ranges_vjp, x, y);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::ranges, eig::ranges_jvp, x, y);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Eigen, LeastSquares) {
  MatrixXd A = matrix(4, 3, 0.1);
  VectorXd x = vec(3, 0.2), b = vec(4, 1.3);
  auto R = fluxion::check_gradient(eig::least_squares, eig::least_squares_grad,
                                   A, x, b);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::least_squares, eig::least_squares_jvp, A,
                              x, b);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(eig::least_squares, eig::least_squares_hvp, A,
                              x, b);
  EXPECT_TRUE(H.ok()) << H;
  // Closed form: d/dx = 2 A^T (A x - b) + 0.1 x / |x|, d/db = -2 (A x - b).
  MatrixXd dA = MatrixXd::Zero(4, 3);
  VectorXd dx = VectorXd::Zero(3), db = VectorXd::Zero(4);
  eig::least_squares_grad(A, x, b, &dA, &dx, &db);
  VectorXd r = A * x - b;
  EXPECT_LT((dx - (2 * A.transpose() * r + 0.1 * x / x.norm())).norm(), 1e-13);
  EXPECT_LT((db + 2 * r).norm(), 1e-13);
  EXPECT_LT((dA - 2 * r * x.transpose()).norm(), 1e-13);
}

TEST(Eigen, TwoLayerPerceptron) {
  MatrixXd W1 = matrix(4, 3, 0.3), W2 = matrix(2, 4, 1.9);
  VectorXd b1 = vec(4, 0.7), x = vec(3, 2.2), t = vec(2, -0.5);
  auto R = fluxion::check_gradient(eig::mlp, eig::mlp_grad, W1, b1, W2, x, t);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::mlp, eig::mlp_jvp, W1, b1, W2, x, t);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(eig::mlp, eig::mlp_hvp, W1, b1, W2, x, t);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Eigen, NoaliasAndCompoundAssignments) {
  MatrixXd W = matrix(3, 2, 0.8);
  VectorXd x = vec(3, 0.1), c = vec(2, 0.4), y(2);
  auto R = fluxion::check_vjp(eig::affine, eig::affine_vjp, W, x, c, 1.5, y);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::affine, eig::affine_jvp, W, x, c, 1.5, y);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Eigen, MatrixProductsIntoAnOutput) {
  MatrixXd A = matrix(3, 2, 0.5), C(3, 3);
  eig::RowMatrix B(2, 3);
  B << 0.3, -0.2, 0.5, 1.1, 0.4, -0.9;
  auto R = fluxion::check_vjp(eig::gram, eig::gram_vjp, A, B, C);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::gram, eig::gram_jvp, A, B, C);
  EXPECT_TRUE(J.ok()) << J;
  // The primal value matches Eigen's own evaluation.
  eig::gram(A, B, C);
  MatrixXd Expect = A * B - 0.5 * B.transpose() * A.transpose();
  EXPECT_LT((C - Expect).norm(), 1e-14);
}

TEST(Eigen, ColumnwiseProducts) {
  MatrixXd A = matrix(3, 3, 0.25), B = matrix(3, 2, 1.5), C(3, 2);
  eig::RowMatrix R(3, 3);
  R << 0.3, -0.2, 0.5, 1.1, 0.4, -0.9, 0.2, 0.6, -0.1;
  VectorXd x = vec(3, 0.4), y(3);
  auto V = fluxion::check_vjp(eig::columnwise, eig::columnwise_vjp, A, B, R,
                              x, C, y);
  EXPECT_TRUE(V.ok()) << V;
  auto J = fluxion::check_jvp(eig::columnwise, eig::columnwise_jvp, A, B, R,
                              x, C, y);
  EXPECT_TRUE(J.ok()) << J;
  // The primal values match Eigen's own evaluation.
  eig::columnwise(A, B, R, x, C, y);
  MatrixXd EC = 0.5 * (A * B).array().square().matrix() - B;
  VectorXd Ey = A * x + A * x.cwiseProduct(x) - A * (2.0 * x);
  Ey += ((A * x).array().exp().matrix() + x)
            .cwiseProduct((R * x).array().tanh().matrix());
  EXPECT_LT((C - EC).norm(), 1e-13);
  EXPECT_LT((y - Ey).norm(), 1e-13);
}

TEST(Eigen, ReductionsOfExpressions) {
  MatrixXd A = matrix(3, 2, 1.4);
  VectorXd x = vec(2, 0.9);
  auto R = fluxion::check_gradient(eig::reductions_of_expressions,
                                   eig::reductions_of_expressions_grad, A, x);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::reductions_of_expressions,
                              eig::reductions_of_expressions_jvp, A, x);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(eig::reductions_of_expressions,
                              eig::reductions_of_expressions_hvp, A, x);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Eigen, FixedSizeGeometry) {
  Eigen::Vector3d p(0.3, -0.4, 1.2), q(-0.7, 0.2, 0.5);
  Eigen::Matrix3d R;
  R << 0.9, -0.1, 0.2, 0.1, 0.95, -0.3, -0.2, 0.3, 0.9;
  auto G = fluxion::check_gradient(eig::geometry, eig::geometry_grad, p, q, R);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(eig::geometry, eig::geometry_jvp, p, q, R);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(eig::geometry, eig::geometry_hvp, p, q, R);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Eigen, ReprojectionJacobian) {
  double cam[9] = {0.1, -0.2, 0.3, 0.5, -0.1, 4.0, 500.0, 1e-3, 1e-6};
  double X[3] = {0.3, 0.2, 1.1}, obs[2] = {10, 20}, r[2];
  auto J = fluxion::check_jacobian(eig::reproject, eig::reproject_jacobian,
                                   cam, X, fluxion::constant(obs), r);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Eigen, JacobianOverEigenObjects) {
  Eigen::Matrix3d M;
  M << 0.3, -1.2, 0.8, 0.5, 1.1, -0.4, 0.9, 0.2, -0.7;
  Eigen::Vector2d out;
  auto J = fluxion::check_jacobian(eig::residual, eig::residual_jacobian, M,
                                   1.3, out);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Eigen, InPlaceBesideProducts) {
  Eigen::MatrixXd A(3, 3);
  A << 0.3, -1.2, 0.8, 0.5, 1.1, -0.4, 0.9, 0.2, -0.7;
  Eigen::VectorXd y(3);
  y << 0.4, -0.6, 1.1;
  Eigen::Vector3d d(0.7, 1.3, -0.2);
  auto R = fluxion::check_gradient(eig::updatedInPlace,
                                   eig::updatedInPlace_grad, A, y, d);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::updatedInPlace, eig::updatedInPlace_jvp, A,
                              y, d);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Eigen, ScaledThroughArrayOrMatrix) {
  Eigen::VectorXd x(4);
  x << 0.4, -0.6, 1.1, 0.3;
  auto R = fluxion::check_gradient(eig::scaledInPlace, eig::scaledInPlace_grad,
                                   x, 0.7);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::scaledInPlace, eig::scaledInPlace_jvp, x,
                              0.7);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Eigen, ByValueAndCallee) {
  auto R = fluxion::check_gradient(eig::by_value, eig::by_value_grad,
                                   vec(4, 0.2), 0.7);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(eig::by_value, eig::by_value_jvp, vec(4, 0.2),
                              0.7);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Eigen, StopGradientOfObjects) {
  // Closed forms (finite differences would see through stop_gradient):
  // d/dx = x + (A + A^T) x, d/dp = p, d/dA = 0.
  MatrixXd A = matrix(3, 3, 0.2);
  VectorXd x = vec(3, 0.5);
  Eigen::Vector3d p(0.3, -0.8, 1.1);
  VectorXd dx = VectorXd::Zero(3);
  Eigen::Vector3d dp = Eigen::Vector3d::Zero();
  MatrixXd dA = MatrixXd::Zero(3, 3);
  double f = eig::stopped_grad(x, p, A, &dx, &dp, &dA);
  EXPECT_NEAR(f, eig::stopped(x, p, A), 1e-12);
  VectorXd ex = x + (A + A.transpose()) * x;
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(dx(i), ex(i), 1e-12) << i;
    EXPECT_NEAR(dp(i), p(i), 1e-12) << i;
  }
  EXPECT_EQ(dA.norm(), 0.0);
  // Forward mode agrees: the tangent along (tx, tp, tA) is <grad, t>.
  VectorXd tx = vec(3, -0.3);
  Eigen::Vector3d tp(0.5, 0.1, -0.7);
  MatrixXd tA = matrix(3, 3, 0.9);
  double t = eig::stopped_jvp(x, p, A, &tx, &tp, &tA);
  EXPECT_NEAR(t, dx.dot(tx) + dp.dot(tp), 1e-12);
}

TEST(Eigen, RectifiersWithNumbers) {
  MatrixXd W = matrix(4, 3, 0.7);
  VectorXd x = vec(3, 0.35);
  for (double t : {0.05, 0.3}) {
    auto R = fluxion::check_gradient(eig::rectified, eig::rectified_grad, W, x, t);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(eig::rectified, eig::rectified_jvp, W, x, t);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(eig::rectified, eig::rectified_hvp, W, x, t);
    EXPECT_TRUE(H.ok()) << H;
  }
}

} // namespace
