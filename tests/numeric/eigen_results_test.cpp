// Dynamic-size Eigen objects returned by callees and locals sized after an
// empty declaration, as people write them: `VectorXd h = layer(W, b, x);`,
// `act(W * x).sum()`, a callee returning an expression, a local or a
// by-value parameter it changed; `VectorXd y; y = A * x;`,
// `y.resize(n)`, `M.setZero(r, c)`, `y.noalias() = ...`; arrays with
// numbers (`a - s`, `1.0 / a`) and more coefficient-wise functions
// (`pow`, `cube`, `inverse`, `log1p`, `atan`, ...); `diagonal()`,
// `asDiagonal()` alone and in products, writes through `diagonal()`,
// `cast<T>()`, and matrices built
// from nested braced lists, comma initialisation of dynamic-size objects;
// annotated functions returning `VectorXd` and `MatrixXd`; in double, float
// and long double. Every derivative
// is checked against finite differences (fluxion::check_*), forward mode
// against reverse mode, and f_hvp where the function is twice
// differentiable.
#include <Eigen/Dense>

#include "eigen_inputs.hpp"

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace results {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::MatrixXf;
using Eigen::VectorXd;
using Eigen::VectorXf;

// An expression returned, its parameter bound to a temporary.
static VectorXd act(const VectorXd &z) { return z.array().tanh().matrix(); }

// A local returned.
static VectorXd layer(const MatrixXd &W, const VectorXd &b,
                      const VectorXd &x) {
  VectorXd z = W * x + b;
  for (Index i = 0; i < z.size(); ++i)
    z(i) = z(i) > 0 ? z(i) : 0.1 * z(i);
  return z;
}

// A by-value parameter changed and returned.
static VectorXd scaled(VectorXd v, double s) {
  v *= s;
  v(0) += s * s;
  return v;
}

static VectorXd softmax(const VectorXd &z) {
  VectorXd e = (z.array() - z.maxCoeff()).exp().matrix();
  return e / e.sum();
}

static MatrixXd outer(const VectorXd &a, const VectorXd &b) {
  return a * b.transpose();
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
net(const MatrixXd &W1, const VectorXd &b1, const MatrixXd &W2,
    const VectorXd &x) {
  VectorXd h = layer(W1, b1, x);
  VectorXd p = softmax(W2 * h);
  double r = act(W1 * x).sum() + scaled(h, 0.5).squaredNorm();
  MatrixXd O = outer(h, x);
  return -std::log(p(1)) + r + O.sum() + outer(x, h).trace();
}

// Locals declared empty, sized by their first assignment, resize or fill.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
sized_later(const MatrixXd &A, const VectorXd &x, double s) {
  VectorXd y;
  y = A * x;
  VectorXd z;
  z.noalias() = A.transpose() * y;
  VectorXd q;
  q.resize(x.size());
  for (Index i = 0; i < q.size(); ++i)
    q(i) = x(i) * z(i);
  MatrixXd M;
  M.setZero(A.rows(), 2);
  M.col(1) = y;
  M(0, 0) = s;
  VectorXd c;
  c.setConstant(3, s);
  MatrixXd G;
  G = A * A.transpose();
  return q.sum() + M.squaredNorm() + c.prod() + G(0, 1) * s;
}

// In float, with a callee template.
template <typename V> static V cube(const V &v) {
  return v.array().cube().matrix();
}

[[fluxion::grad]] [[fluxion::jvp]] float shrink(const MatrixXf &A,
                                               const VectorXf &x) {
  VectorXf y;
  y.resize(A.rows());
  y.noalias() = A * x;
  return cube(y).sum() + cube<VectorXf>(x).norm();
}

// Arrays with numbers, and coefficient-wise functions.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
arrays(const Eigen::ArrayXd &a, const VectorXd &v, double s) {
  Eigen::ArrayXd b = (a - s).square() + 1.0;
  Eigen::ArrayXd c = 2.0 / (1.0 + (-a).exp());
  Eigen::ArrayXd d = (a.square() + 1).pow(s);
  double r = (1 - c).sum() + b.inverse().sum() + (a + 2).log1p().sum() +
             a.cube().sum() + d.sum() + v.cwiseAbs2().sum();
  r += (v.array().atan() * v.array().sinh()).sum() +
       (0.5 * v.array()).tan().sum() + v.cwiseSqrt().sum() +
       (s - v.array().cosh()).cwiseInverse().sum() +
       (v.array() * 0.3).asin().sum() + (v.array() / 4 + 0.2).acos().sum() +
       v.array().expm1().sum() + (v.array() + 3).log10().sum();
  return r;
}

// Diagonals, casts and matrices from braced rows.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
diagonals(const MatrixXd &A, const VectorXd &w, const Eigen::Vector2d &x) {
  Eigen::Matrix2d M{{x(0), 1.0}, {2.0 * x(1), x(0) * x(1)}};
  MatrixXd B{{w(0), w(1)}, {A(0, 0), 3.0}, {1.0, w(2)}};
  VectorXd c{{x(1), w(0), 2.0}};
  Eigen::Matrix<double, 2, 2, Eigen::RowMajor> R{{x(0), x(1)}, {0.5, 1.0}};
  double r = w.transpose() * w.asDiagonal() * w;
  VectorXd y = w.asDiagonal() * A.col(1);
  MatrixXd C = A * w.asDiagonal();
  MatrixXd D = w.asDiagonal() * A;
  MatrixXd E = w.asDiagonal();
  r += y.sum() + C.squaredNorm() + D(1, 2) + E(2, 2) * E(0, 1) + E.sum();
  r += A.diagonal().squaredNorm() + (A * A.transpose()).diagonal().sum() +
       A.block(0, 0, 3, 2).diagonal().prod();
  r += double(A.cast<long double>().squaredNorm()) +
       (w.cast<long double>().array().exp()).cast<double>().sum();
  r += M(1, 0) * M(0, 1) + M.sum() * M(1, 1) + B(2, 1) * B(1, 0) + B.sum() +
       c.prod() + R(0, 1) * R(1, 0) + R.col(0).dot(x);
  return r;
}

// Writes through diagonal(), whole and through array().
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
damped(const MatrixXd &J, const VectorXd &r, double lambda) {
  MatrixXd H = J.transpose() * J;
  H.diagonal().array() += lambda;
  MatrixXd Q = MatrixXd::Zero(3, 3);
  Q.diagonal() = r.head(3).array().exp();
  Q.diagonal() *= 2;
  Q.diagonal() -= r.tail(3);
  Q.diagonal().array() -= 0.5 * lambda;
  VectorXd s = H.diagonal();
  return H.squaredNorm() + Q.sum() + s.prod() +
         (Q * r.head(3)).squaredNorm();
}

// Comma initialisation of dynamic-size objects, column- and row-major.
static MatrixXd rotate(const MatrixXd &A, double t) {
  MatrixXd R(2, 2);
  R << std::cos(t), -std::sin(t), std::sin(t), 2 * std::cos(t);
  return R * A;
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
commas(const MatrixXd &A, double t) {
  MatrixXd B = rotate(A, t);
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> C(2,
                                                                           3);
  C << t, 2 * t, 3, A(0, 0), A(1, 2), t * t;
  VectorXd v(3);
  v << t, A(1, 1), 1;
  return B.squaredNorm() + B(0, 1) * t + (C * v).sum() + C(1, 0) * C(0, 1);
}

// Annotated functions returning dynamic-size objects (contract v2): f_vjp
// takes a seed of the result's size, f_jvp returns the result's tangent.
[[fluxion::grad]] [[fluxion::jvp]] VectorXd
hidden(const MatrixXd &W, const VectorXd &b, const VectorXd &x) {
  return (W * x + b).array().tanh().matrix();
}

[[fluxion::grad]] [[fluxion::jvp]] MatrixXd weighted_gram(const MatrixXd &A,
                                                          double s) {
  MatrixXd G = A.transpose() * A;
  G *= s;
  G(0, 0) += s * s;
  return G;
}

// The same forms in long double.
using VectorXl = Eigen::Matrix<long double, Eigen::Dynamic, 1>;
using MatrixXl = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;

static VectorXl soft(const VectorXl &z) {
  return (1.0L / (1.0L + (-z.array()).exp())).matrix();
}

[[fluxion::grad]] [[fluxion::jvp]] long double
in_long_double(const MatrixXl &A, const VectorXl &x) {
  VectorXl y;
  y = A * x;
  MatrixXl H = A.transpose() * A;
  H.diagonal().array() += 0.5L;
  return soft(y).sum() + (x.asDiagonal() * H).sum() +
         (y.array() - 0.25L).cube().sum() + H.diagonal().prod();
}

// A generic helper taking any Eigen type as a template parameter (the
// advice for one taking Eigen::MatrixBase<D>), called with fixed and
// dynamic vectors.
template <class T> double spread(const T &a) {
  return a.squaredNorm() + a(0) * a(1);
}
[[fluxion::grad]] [[fluxion::jvp]] double
generic_helper(const Eigen::Vector3d &p, const Eigen::VectorXd &q) {
  return spread(p) * spread(q) + spread(Eigen::Vector3d(p - q.head<3>()));
}

} // namespace results

using namespace results;
using eigen_inputs::matrix;
using eigen_inputs::vec;

TEST(EigenResults, CalleesReturningDynamicObjects) {
  MatrixXd W1 = 0.5 * matrix(4, 3, 0.2), W2 = 0.4 * matrix(3, 4, 1.1);
  VectorXd b1 = 0.3 * vec(4, 0.4), x = vec(3, 2.0);
  auto G = fluxion::check_gradient(net, net_grad, W1, b1, W2, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(net, net_jvp, W1, b1, W2, x);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(net, net_hvp, W1, b1, W2, x);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenResults, LocalsSizedAfterAnEmptyDeclaration) {
  MatrixXd A = matrix(4, 3, 0.7);
  VectorXd x = vec(3, 0.3);
  auto G = fluxion::check_gradient(sized_later, sized_later_grad, A, x, 0.8);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(sized_later, sized_later_jvp, A, x, 0.8);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(sized_later, sized_later_hvp, A, x, 0.8);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenResults, FloatAndCalleeTemplates) {
  MatrixXf A = (0.5 * matrix(3, 4, 0.1)).cast<float>();
  VectorXf x = vec(4, 1.2).cast<float>();
  auto G = fluxion::check_gradient(shrink, shrink_grad, A, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(shrink, shrink_jvp, A, x);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenResults, ArraysWithNumbersAndFunctions) {
  Eigen::ArrayXd a = vec(4, 0.5).array();
  VectorXd v = (vec(3, 1.7).array().abs() + 0.1).matrix();
  auto G = fluxion::check_gradient(arrays, arrays_grad, a, v, 0.7);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(arrays, arrays_jvp, a, v, 0.7);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(arrays, arrays_hvp, a, v, 0.7);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenResults, DiagonalsCastsAndBracedMatrices) {
  MatrixXd A = matrix(3, 3, 0.9);
  VectorXd w = vec(3, 0.2);
  Eigen::Vector2d x(0.6, -0.4);
  auto G = fluxion::check_gradient(diagonals, diagonals_grad, A, w, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(diagonals, diagonals_jvp, A, w, x);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(diagonals, diagonals_hvp, A, w, x);
  EXPECT_TRUE(H.ok()) << H;
  // The braced rows are placed as Eigen places them.
  MatrixXd dA = MatrixXd::Zero(3, 3);
  VectorXd dw = VectorXd::Zero(3);
  Eigen::Vector2d dx = Eigen::Vector2d::Zero();
  EXPECT_DOUBLE_EQ(diagonals_grad(A, w, x, &dA, &dw, &dx), diagonals(A, w, x));
}

TEST(EigenResults, CommaInitialisationOfDynamicObjects) {
  MatrixXd A = matrix(2, 3, 0.4);
  auto G = fluxion::check_gradient(commas, commas_grad, A, 0.3);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(commas, commas_jvp, A, 0.3);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(commas, commas_hvp, A, 0.3);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenResults, AnnotatedFunctionsReturningDynamicObjects) {
  // <seed, f(p + e t)> by central differences against <seed, J t> (f_jvp)
  // and <J^T seed, t> (f_vjp).
  auto Expect = [](auto F, double Jt, double JTs) {
    double h = 1e-6, fd = (F(h) - F(-h)) / (2 * h);
    EXPECT_NEAR(Jt, fd, 1e-7 * (1 + std::fabs(fd)));
    EXPECT_NEAR(JTs, fd, 1e-7 * (1 + std::fabs(fd)));
  };
  MatrixXd W = 0.5 * matrix(4, 3, 0.2), tW = matrix(4, 3, 1.7);
  VectorXd b = vec(4, 0.1), tb = vec(4, 2.2), x = vec(3, 0.6),
           tx = vec(3, -0.3), seed = vec(4, 0.9);
  MatrixXd dW = MatrixXd::Zero(4, 3);
  VectorXd db = VectorXd::Zero(4), dx = VectorXd::Zero(3);
  VectorXd h = hidden_vjp(W, b, x, seed, &dW, &db, &dx);
  EXPECT_TRUE(h.isApprox(hidden(W, b, x)));
  VectorXd th = hidden_jvp(W, b, x, &tW, &tb, &tx);
  ASSERT_EQ(th.size(), 4);
  Expect(
      [&](double e) {
        return seed.dot(hidden(W + e * tW, b + e * tb, x + e * tx));
      },
      seed.dot(th),
      dW.cwiseProduct(tW).sum() + db.dot(tb) + dx.dot(tx));

  MatrixXd A = matrix(3, 2, 0.5), tA = matrix(3, 2, -1.1);
  MatrixXd S = matrix(2, 2, 2.5);
  MatrixXd dA = MatrixXd::Zero(3, 2);
  double ds = 0;
  MatrixXd G = weighted_gram_vjp(A, 0.7, S, &dA, &ds);
  EXPECT_TRUE(G.isApprox(weighted_gram(A, 0.7)));
  MatrixXd tG = weighted_gram_jvp(A, 0.7, &tA, 0.4);
  ASSERT_EQ(tG.rows(), 2);
  ASSERT_EQ(tG.cols(), 2);
  Expect(
      [&](double e) {
        return weighted_gram(A + e * tA, 0.7 + e * 0.4).cwiseProduct(S).sum();
      },
      tG.cwiseProduct(S).sum(), dA.cwiseProduct(tA).sum() + ds * 0.4);
}

TEST(EigenResults, WritesThroughTheDiagonal) {
  MatrixXd J = matrix(4, 3, 0.3);
  VectorXd r = 0.5 * vec(5, 1.4);
  auto G = fluxion::check_gradient(damped, damped_grad, J, r, 0.2);
  EXPECT_TRUE(G.ok()) << G;
  auto T = fluxion::check_jvp(damped, damped_jvp, J, r, 0.2);
  EXPECT_TRUE(T.ok()) << T;
  auto H = fluxion::check_hvp(damped, damped_hvp, J, r, 0.2);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenResults, LongDouble) {
  MatrixXl A = matrix(3, 2, 0.8).cast<long double>();
  VectorXl x = vec(2, 0.4).cast<long double>();
  auto G = fluxion::check_gradient(in_long_double, in_long_double_grad, A, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(in_long_double, in_long_double_jvp, A, x);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenResults, GenericHelperOverEigenTypes) {
  Eigen::Vector3d p(0.3, -0.8, 1.1);
  Eigen::VectorXd q(4);
  q << 0.5, -1.0, 0.25, 2.0;
  auto R = fluxion::check_gradient(results::generic_helper,
                                   results::generic_helper_grad, p, q);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(results::generic_helper,
                              results::generic_helper_jvp, p, q);
  EXPECT_TRUE(J.ok()) << J;
}
