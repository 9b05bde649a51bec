// Matrix products of dynamic size, run by Eigen's kernels in both sweeps
// (fluxion::eigen_product and its rules in fluxion/eigen.hpp): every form
// of operand (a variable, its transpose, row-major storage, a column, row,
// block or segment of one, an expression evaluated first, a scalar
// multiple), every destination (a local, an output, a row-major or row
// vector, a view, `=`, `+=`, `-=`, noalias()), products reduced, read as a
// number, nested, inside loops (their locals sized once before the loops,
// or coefficient loops when their extents change in the loop), in callees,
// under f_hvp (which takes coefficient loops) and f_jacobian. Each
// derivative is checked against finite differences (fluxion::check_*),
// forward mode against reverse mode by the dot-product test, and the
// primal values against Eigen's own evaluation.
#include <Eigen/Dense>

#include "eigen_inputs.hpp"

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace prod {

using Eigen::Index;
using Eigen::Map;
using Eigen::MatrixXd;
using Eigen::MatrixXf;
using Eigen::Ref;
using Eigen::RowVectorXd;
using Eigen::VectorXd;
using Eigen::VectorXf;
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                                Eigen::RowMajor>;

// A (4x3), B (3x5), R (5x3, row-major), x (3), y (4): the forms of
// operands and destinations.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
forms(const MatrixXd &A, const MatrixXd &B, const RowMatrix &R,
      const VectorXd &x, const VectorXd &y) {
  MatrixXd C = A * B;                          // a local
  C.noalias() += 0.5 * A * R.transpose();      // a scalar multiple, +=
  C -= (A * B).array().tanh().matrix();        // coefficient-wise above
  VectorXd u = A * x;                          // matrix-vector
  u.noalias() -= 0.25 * (A * B) * R * x;       // nested
  RowVectorXd r = y.transpose() * A;           // a row vector
  double q = y.transpose() * A * x;            // 1x1
  MatrixXd G = R.transpose() * R;              // row-major, transposed
  RowMatrix D = A * B;                         // a row-major destination
  D += A * R.transpose();
  VectorXd e = (A - 0.1 * A) * x.cwiseProduct(x); // an expression operand
  double s = (A * B).sum() + (B.transpose() * A.transpose()).squaredNorm() +
             x.dot(A.transpose() * y) + (A * A.transpose()).trace();
  return std::sin(q) + C.squaredNorm() + u.array().square().sum() +
         r.squaredNorm() * G(1, 2) + (D.array() * C.array()).sum() +
         e.prod() + 0.01 * s * s;
}

// Views as factors, in place: a column, a block, a row of a column-major
// and of a row-major matrix, a segment, a head; and as destinations.
[[fluxion::grad]] [[fluxion::jvp]] double
views_as_factors(const MatrixXd &W, const MatrixXd &X, const VectorXd &v,
                 const RowMatrix &M, MatrixXd &Y) {
  VectorXd a = W * X.col(2);
  MatrixXd b = W.block(1, 1, 2, 3) * X.block(0, 1, 3, 2);
  RowVectorXd c = X.row(1) * M;
  RowVectorXd d = M.row(2) * X.transpose();
  VectorXd e = W * v.segment(1, 6);
  RowVectorXd f = v.head(5).transpose() * M;
  Y.col(1) = W * X.col(0);
  Y.row(2) -= (M * X.row(3).transpose()).transpose().head(2);
  return a.squaredNorm() + b.prod() + c.dot(f) + d.sum() * e.sum();
}

// Products in loops: a perceptron over the columns of a batch (its
// products' locals sized once, before the loop), an accumulation,
// a recurrence whose vector each product overwrites, and products whose
// extents change with the loop counter (coefficient loops).
[[fluxion::grad]] [[fluxion::jvp]] double
in_loops(const MatrixXd &W1, const VectorXd &b1, const MatrixXd &W2,
         const MatrixXd &X, const MatrixXd &A) {
  VectorXd h(W1.rows()), o(W2.rows()), acc = VectorXd::Zero(W1.rows());
  double total = 0;
  for (Index s = 0; s < X.cols(); ++s) {
    h = (W1 * X.col(s) + b1).array().tanh().matrix();
    o.noalias() = W2 * h;
    acc.noalias() += W1 * X.col(s);
    total += (o - X.col(s).head(W2.rows())).squaredNorm();
  }
  VectorXd z = X.col(0), w(A.rows());
  for (int t = 0; t < 3; ++t) {
    w = A * z;
    z = w.array().sin().matrix() + 0.5 * z;
    total += w.squaredNorm();
  }
  for (Index i = 1; i < A.rows(); ++i)
    total += (A.block(0, 0, i, i) * z.head(i)).sum();
  return total + acc.squaredNorm() + z.sum();
}

// A callee whose products its caller's f_hvp differentiates twice.
double layer(const MatrixXd &W, const VectorXd &x, const VectorXd &b) {
  VectorXd h = (W * x + b).array().tanh().matrix();
  return (W.transpose() * h).squaredNorm();
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
calls_layer(const MatrixXd &W, const VectorXd &b, const MatrixXd &X) {
  double s = 0;
  VectorXd x(X.rows());
  for (Index k = 0; k < X.cols(); ++k) {
    x = X.col(k);
    s += layer(W, x, b);
  }
  return s;
}

// Outputs written by products: `=`, `+=` and `-=` into a vector and a
// row-major matrix.
[[fluxion::grad]] [[fluxion::jvp]] void outputs(const MatrixXd &W,
                                                const VectorXd &x,
                                                const MatrixXd &B,
                                                VectorXd &y, RowMatrix &Z) {
  y.noalias() = W * x;
  y.noalias() += W * x.cwiseProduct(x);
  y -= 0.5 * W * x;
  Z = W.transpose() * W * B;
  Z.noalias() -= B * B.transpose() * B;
}

// Map and Ref parameters as factors; float.
[[fluxion::grad]] [[fluxion::jvp]] double viewed(Map<const MatrixXd> A,
                                                 const Ref<const VectorXd> &x) {
  return (A * x).squaredNorm() + (A.transpose() * A * x).sum();
}

[[fluxion::grad]] [[fluxion::jvp]] float in_float(const MatrixXf &A,
                                                  const VectorXf &x) {
  VectorXf y = A * x;
  return (A.transpose() * y).squaredNorm();
}

// Rows of a Jacobian through products of dynamic-size locals.
[[fluxion::jacobian]] void bilinear(const double p[6], double out[3]) {
  MatrixXd A(3, 2);
  for (int k = 0; k < 6; ++k)
    A(k) = p[k];
  VectorXd v(2);
  v << p[0] * p[5], std::cos(p[2]);
  VectorXd w = A * v;
  MatrixXd G = A.transpose() * A;
  for (int i = 0; i < 3; ++i)
    out[i] = w(i) * G(i % 2, 1);
}

} // namespace prod

namespace {

using eigen_inputs::matrix;
using eigen_inputs::vec;

using Eigen::MatrixXd;
using Eigen::VectorXd;

prod::RowMatrix rowMatrix(int r, int c, double s) {
  return prod::RowMatrix(matrix(r, c, s));
}

// The runtime's product and its rules on their own, for every
// combination of transposes and modes, at extents that take plain loops
// and at extents that take Eigen's kernels (matrix, matrix-vector,
// vector-matrix and outer products): the value against Eigen's, the
// tangent against Eigen's, the adjoints by the dot-product test.
TEST(EigenProducts, RuntimeRules) {
  struct Shape {
    int M, N, K;
  };
  for (Shape S : {Shape{3, 2, 4}, Shape{17, 13, 11}, Shape{23, 1, 19},
                  Shape{1, 21, 18}, Shape{24, 22, 1}})
    for (int Bits = 0; Bits < 4; ++Bits)
      for (int Mode = -1; Mode <= 1; ++Mode) {
        bool AT = Bits & 1, BT = Bits & 2;
        // op(A) is M x K, op(B) K x N; the stored A and B are their
        // transposes where AT, BT; A sits in a taller matrix (ld 2 more).
        int AR = AT ? S.K : S.M, AC = AT ? S.M : S.K;
        int BR = BT ? S.N : S.K, BC = BT ? S.K : S.N;
        MatrixXd Abig = matrix(AR + 2, AC, 0.3 + Bits), B = matrix(BR, BC, 1.1);
        MatrixXd C0 = matrix(S.M, S.N, 2.0), C = C0;
        MatrixXd OpB = BT ? MatrixXd(B.transpose()) : B;
        fluxion::eigen_product<double>(Abig.data() + 1, AR, AC, AR + 2, AT,
                                       B.data(), BR, BC, BR, BT, C.data(),
                                       S.M, Mode);
        // A's rows start at 1 in Abig.
        MatrixXd Aread = Abig.block(1, 0, AR, AC);
        MatrixXd OpAr = AT ? MatrixXd(Aread.transpose()) : Aread;
        MatrixXd Want = Mode == 0 ? MatrixXd(OpAr * OpB)
                        : Mode > 0 ? MatrixXd(C0 + OpAr * OpB)
                                   : MatrixXd(C0 - OpAr * OpB);
        EXPECT_LT((C - Want).norm(), 1e-12 * (1 + Want.norm()))
            << S.M << "x" << S.N << "x" << S.K << " " << Bits << " " << Mode;
        // Tangents and adjoints over the same storage.
        MatrixXd tAbig = matrix(AR + 2, AC, -0.7), tB = matrix(BR, BC, 0.45);
        MatrixXd tC = matrix(S.M, S.N, 3.3), tC0 = tC;
        fluxion::custom::eigen_product_jvp<double>(
            Abig.data() + 1, AR, AC, AR + 2, AT, B.data(), BR, BC, BR, BT,
            C.data(), S.M, Mode, tAbig.data() + 1, tB.data(), tC.data());
        MatrixXd tAread = tAbig.block(1, 0, AR, AC);
        MatrixXd tOpA = AT ? MatrixXd(tAread.transpose()) : tAread;
        MatrixXd tOpB = BT ? MatrixXd(tB.transpose()) : tB;
        MatrixXd dProd = tOpA * OpB + OpAr * tOpB;
        MatrixXd tWant = Mode == 0 ? dProd
                         : Mode > 0 ? MatrixXd(tC0 + dProd)
                                    : MatrixXd(tC0 - dProd);
        EXPECT_LT((tC - tWant).norm(), 1e-12 * (1 + tWant.norm()));
        MatrixXd dAbig = MatrixXd::Zero(AR + 2, AC), dB = MatrixXd::Zero(BR, BC);
        MatrixXd Seed = matrix(S.M, S.N, -1.9), dC = Seed;
        fluxion::custom::eigen_product_vjp<double>(
            Abig.data() + 1, AR, AC, AR + 2, AT, B.data(), BR, BC, BR, BT,
            nullptr, S.M, Mode, dAbig.data() + 1, dB.data(), dC.data());
        double Sign = Mode < 0 ? -1 : 1;
        double Lhs = Sign * (Seed.array() * dProd.array()).sum();
        double Rhs = (dAbig.block(1, 0, AR, AC).array() * tAread.array()).sum() +
                     (dB.array() * tB.array()).sum();
        EXPECT_NEAR(Lhs, Rhs, 1e-11 * (1 + std::abs(Lhs)));
        EXPECT_EQ(dAbig.row(0).norm() + dAbig.row(AR + 1).norm(), 0)
            << "rows outside A's block";
        if (Mode == 0)
          EXPECT_EQ(dC.norm(), 0) << "C's adjoint is spent";
        else
          EXPECT_EQ(dC, Seed) << "C's adjoint passes through";
      }
}

TEST(EigenProducts, Forms) {
  // Small extents (plain loops in the runtime) and larger ones (Eigen's
  // kernels).
  for (int Scale : {1, 3}) {
    int M = 4 * Scale, K = 3 * Scale, N = 5 * Scale;
    MatrixXd A = (0.5 / Scale) * matrix(M, K, 0.2),
             B = (0.5 / Scale) * matrix(K, N, 1.1);
    prod::RowMatrix R = rowMatrix(N, K, 0.7) / Scale;
    VectorXd x = vec(K, 0.4), y = vec(M, 1.9) / Scale;
    auto G = fluxion::check_gradient(prod::forms, prod::forms_grad, A, B, R,
                                     x, y);
    EXPECT_TRUE(G.ok()) << G;
    auto J = fluxion::check_jvp(prod::forms, prod::forms_jvp, A, B, R, x, y);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(prod::forms, prod::forms_hvp, A, B, R, x, y);
    EXPECT_TRUE(H.ok()) << H;
    // Forward against reverse.
    MatrixXd dA = MatrixXd::Zero(M, K), dB = MatrixXd::Zero(K, N);
    prod::RowMatrix dR = prod::RowMatrix::Zero(N, K);
    VectorXd dx = VectorXd::Zero(K), dy = VectorXd::Zero(M);
    double V = prod::forms_grad(A, B, R, x, y, &dA, &dB, &dR, &dx, &dy);
    EXPECT_NEAR(V, prod::forms(A, B, R, x, y), 1e-12 * (1 + std::abs(V)));
    MatrixXd tA = matrix(M, K, 2.3), tB = matrix(K, N, -0.6);
    prod::RowMatrix tR = rowMatrix(N, K, 0.1);
    VectorXd tx = vec(K, 0.9), ty = vec(M, -1.4);
    double T = prod::forms_jvp(A, B, R, x, y, &tA, &tB, &tR, &tx, &ty);
    double Dot = (dA.array() * tA.array()).sum() +
                 (dB.array() * tB.array()).sum() +
                 (dR.array() * tR.array()).sum() + dx.dot(tx) + dy.dot(ty);
    EXPECT_NEAR(T, Dot, 1e-10 * (1 + std::abs(Dot)));
  }
}

TEST(EigenProducts, ViewsAsFactors) {
  MatrixXd W = matrix(4, 6, 0.3), X = matrix(6, 5, 1.2), Y = matrix(4, 2, 0);
  VectorXd v = vec(7, 0.8);
  prod::RowMatrix M = rowMatrix(5, 5, 2.1);
  auto V = fluxion::check_vjp(prod::views_as_factors,
                              prod::views_as_factors_vjp, W, X, v, M, Y);
  EXPECT_TRUE(V.ok()) << V;
  auto J = fluxion::check_jvp(prod::views_as_factors,
                              prod::views_as_factors_jvp, W, X, v, M, Y);
  EXPECT_TRUE(J.ok()) << J;
  // The outputs against Eigen's own evaluation.
  MatrixXd Y0 = matrix(4, 2, 0), Y1 = Y0;
  prod::views_as_factors(W, X, v, M, Y1);
  Y0.col(1) = W * X.col(0);
  Y0.row(2) -= (M * X.row(3).transpose()).transpose().head(2);
  EXPECT_LT((Y1 - Y0).norm(), 1e-13);
}

TEST(EigenProducts, InLoops) {
  MatrixXd W1 = 0.4 * matrix(5, 4, 0.1), W2 = 0.4 * matrix(3, 5, 0.9),
           X = matrix(4, 6, 1.7), A = 0.3 * matrix(4, 4, 2.5);
  VectorXd b1 = vec(5, 0.6);
  auto G = fluxion::check_gradient(prod::in_loops, prod::in_loops_grad, W1,
                                   b1, W2, X, A);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(prod::in_loops, prod::in_loops_jvp, W1, b1, W2,
                              X, A);
  EXPECT_TRUE(J.ok()) << J;
  MatrixXd dW1 = MatrixXd::Zero(5, 4), dW2 = MatrixXd::Zero(3, 5),
           dX = MatrixXd::Zero(4, 6), dA = MatrixXd::Zero(4, 4);
  VectorXd db1 = VectorXd::Zero(5);
  prod::in_loops_grad(W1, b1, W2, X, A, &dW1, &db1, &dW2, &dX, &dA);
  MatrixXd tW1 = matrix(5, 4, 3.1), tW2 = matrix(3, 5, -2.2),
           tX = matrix(4, 6, 0.35), tA = matrix(4, 4, 1.45);
  VectorXd tb1 = vec(5, -0.3);
  double T = prod::in_loops_jvp(W1, b1, W2, X, A, &tW1, &tb1, &tW2, &tX, &tA);
  double Dot = (dW1.array() * tW1.array()).sum() + db1.dot(tb1) +
               (dW2.array() * tW2.array()).sum() +
               (dX.array() * tX.array()).sum() +
               (dA.array() * tA.array()).sum();
  EXPECT_NEAR(T, Dot, 1e-10 * (1 + std::abs(Dot)));
}

TEST(EigenProducts, CalleeUnderSecondOrder) {
  MatrixXd W = 0.5 * matrix(4, 3, 0.4), X = matrix(3, 3, 1.0);
  VectorXd b = vec(4, 2.0);
  auto G = fluxion::check_gradient(prod::calls_layer, prod::calls_layer_grad,
                                   W, b, X);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(prod::calls_layer, prod::calls_layer_jvp, W, b,
                              X);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(prod::calls_layer, prod::calls_layer_hvp, W, b,
                              X);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenProducts, Outputs) {
  MatrixXd W = matrix(3, 4, 0.2), B = matrix(4, 2, 0.8);
  VectorXd x = vec(4, 1.3), y(3);
  prod::RowMatrix Z(4, 2);
  auto V = fluxion::check_vjp(prod::outputs, prod::outputs_vjp, W, x, B, y, Z);
  EXPECT_TRUE(V.ok()) << V;
  auto J = fluxion::check_jvp(prod::outputs, prod::outputs_jvp, W, x, B, y, Z);
  EXPECT_TRUE(J.ok()) << J;
  prod::outputs(W, x, B, y, Z);
  VectorXd Ey = W * x + W * x.cwiseProduct(x) - 0.5 * W * x;
  MatrixXd EZ = W.transpose() * W * B - B * B.transpose() * B;
  EXPECT_LT((y - Ey).norm(), 1e-13);
  EXPECT_LT((MatrixXd(Z) - EZ).norm(), 1e-12);
  // Seeds on the outputs, pulled back, against forward mode.
  MatrixXd dW = MatrixXd::Zero(3, 4), dB = MatrixXd::Zero(4, 2);
  VectorXd dx = VectorXd::Zero(4), dy = vec(3, 0.5);
  prod::RowMatrix dZ = rowMatrix(4, 2, 1.5);
  VectorXd Sy = dy;
  prod::RowMatrix SZ = dZ;
  prod::outputs_vjp(W, x, B, y, Z, &dW, &dx, &dB, &dy, &dZ);
  MatrixXd tW = matrix(3, 4, -1.0), tB = matrix(4, 2, 0.45);
  VectorXd tx = vec(4, 2.2), ty = VectorXd::Zero(3);
  prod::RowMatrix tZ = prod::RowMatrix::Zero(4, 2);
  prod::outputs_jvp(W, x, B, y, Z, &tW, &tx, &tB, &ty, &tZ);
  double Lhs = Sy.dot(ty) + (SZ.array() * tZ.array()).sum();
  double Rhs = (dW.array() * tW.array()).sum() + dx.dot(tx) +
               (dB.array() * tB.array()).sum();
  EXPECT_NEAR(Lhs, Rhs, 1e-10 * (1 + std::abs(Rhs)));
}

TEST(EigenProducts, MapRefAndFloat) {
  MatrixXd Am = matrix(3, 4, 0.6);
  VectorXd x = vec(4, 0.1);
  Eigen::Map<const MatrixXd> A(Am.data(), 3, 4);
  MatrixXd dA = MatrixXd::Zero(3, 4);
  VectorXd dx = VectorXd::Zero(4);
  prod::viewed_grad(A, x, &dA, &dx);
  // Closed form: d/dx = 2 A^T A x + A^T A 1, d/dA = 2 A x x^T + A (1 x^T +
  // x 1^T).
  VectorXd One = VectorXd::Ones(4);
  VectorXd Ex = 2 * Am.transpose() * Am * x + Am.transpose() * Am * One;
  MatrixXd EA = 2 * Am * x * x.transpose() +
                Am * (One * x.transpose() + x * One.transpose());
  EXPECT_LT((dx - Ex).norm(), 1e-12);
  EXPECT_LT((dA - EA).norm(), 1e-12);
  MatrixXd tA = matrix(3, 4, 1.7);
  VectorXd tx = vec(4, -0.8);
  double T = prod::viewed_jvp(A, x, &tA, &tx);
  EXPECT_NEAR(T, (dA.array() * tA.array()).sum() + dx.dot(tx), 1e-11);

  Eigen::MatrixXf Af = matrix(3, 2, 0.3).cast<float>();
  Eigen::VectorXf xf = vec(2, 0.9).cast<float>();
  auto F = fluxion::check_gradient(prod::in_float, prod::in_float_grad, Af,
                                   xf);
  EXPECT_TRUE(F.ok()) << F;
}

TEST(EigenProducts, JacobianRows) {
  double p[6] = {0.3, -0.7, 1.1, 0.4, 0.9, -0.2}, out[3];
  auto J = fluxion::check_jacobian(prod::bilinear, prod::bilinear_jacobian, p,
                                   out);
  EXPECT_TRUE(J.ok()) << J;
}

} // namespace
