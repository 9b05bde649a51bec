// Fluxion runtime: derivative rules of Eigen's dense linear solves,
// inverses and determinants.
//
// Inside differentiated code `A.llt().solve(b)` (also ldlt, partialPivLu and
// householderQr) is lowered to a call of fluxion::llt_solve(A, b, x) on
// variables, with x a new local holding the solution; `A.inverse()` and
// `A.determinant()` to fluxion::inverse(A, x) and fluxion::determinant(A).
// Their derivatives are
// the rules below, written with Eigen: the reverse sweep of x = A^-1 b is a
// solve with the transpose on the factorisation the rule has just made,
//   g = A^-T x_bar,   b_bar += g,   A_bar -= g x^T,
// and the forward one is x_dot = A^-1 (b_dot - A_dot x). Nothing
// differentiates the factorisation's loops.
//
// What is differentiated is what Eigen computes:
// - llt and ldlt read only the lower triangle of A (A is taken to be
//   self-adjoint). A coefficient A(i, j) with i > j stands for both (i, j)
//   and (j, i), so it receives both halves of the adjoint, and the upper
//   triangle receives nothing.
// - householderQr solves in the least-squares sense when A has more rows
//   than columns. With A = QR, r = b - A x and g = (A^T A)^-1 x_bar
//   = R^-1 R^-T x_bar: b_bar += A g and A_bar += r g^T - A g x^T. For a
//   square A, r = 0 and A g = A^-T x_bar, the rule of the other solves.
//
// Included by <fluxion/fluxion.hpp> after Eigen, or on its own.
#ifndef FLUXION_EIGEN_HPP
#define FLUXION_EIGEN_HPP

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/QR>

namespace fluxion {

namespace eigen_detail {
template <class M> using Plain = typename M::PlainObject;

/// The dense matrix Eigen's llt/ldlt read: the lower triangle of A
/// mirrored.
template <class M> Plain<M> lowerSelfAdjoint(const M &A) {
  return A.template selfadjointView<Eigen::Lower>();
}

/// Adds to dA the adjoint of the self-adjoint matrix built from A's lower
/// triangle whose adjoint is G: G(i, j) + G(j, i) below the diagonal,
/// G(i, i) on it.
template <class M, class G> void addLowerAdjoint(M &dA, const G &Gm) {
  for (Eigen::Index j = 0; j < dA.cols(); ++j) {
    dA(j, j) += Gm(j, j);
    for (Eigen::Index i = j + 1; i < dA.rows(); ++i)
      dA(i, j) += Gm(i, j) + Gm(j, i);
  }
}

/// A symmetric positive (semi-)definite solve's rules; Dec is LLT or LDLT.
template <template <class, int> class Dec> struct SelfAdjointSolve {
  template <class M, class B, class X>
  static void vjp(const M &A, const B &b, X &x, M *d_A, B *d_b, X *d_x) {
    Dec<Plain<M>, Eigen::Lower> dec(A);
    x = dec.solve(b);
    Plain<X> g = dec.solve(*d_x); // A is self-adjoint: A^-T = A^-1
    *d_b += g;
    addLowerAdjoint(*d_A, -(g * x.transpose()));
    d_x->setZero(); // x was written, not read
  }
  template <class M, class B, class X>
  static void jvp(const M &A, const B &b, X &x, const M *t_A, const B *t_b,
                  X *t_x) {
    Dec<Plain<M>, Eigen::Lower> dec(A);
    x = dec.solve(b);
    *t_x = dec.solve(*t_b - lowerSelfAdjoint(*t_A) * x);
  }
};
/// (A^T A)^-1 Y through the R of A = QR.
template <class Qr, class Y> auto normalSolve(const Qr &qr, const Y &y) {
  Eigen::Index n = qr.matrixQR().cols();
  auto R = qr.matrixQR().topLeftCorner(n, n);
  Plain<Y> z = R.transpose().template triangularView<Eigen::Lower>().solve(y);
  R.template triangularView<Eigen::Upper>().solveInPlace(z);
  return z;
}
} // namespace eigen_detail

// The functions the lowering calls. x must have the solution's size.
template <class M, class B, class X>
void llt_solve(const M &A, const B &b, X &x) {
  x = A.llt().solve(b);
}
template <class M, class B, class X>
void ldlt_solve(const M &A, const B &b, X &x) {
  x = A.ldlt().solve(b);
}
template <class M, class B, class X>
void lu_solve(const M &A, const B &b, X &x) {
  x = A.partialPivLu().solve(b);
}
template <class M, class B, class X>
void qr_solve(const M &A, const B &b, X &x) {
  x = A.householderQr().solve(b);
}
template <class M, class X> void inverse(const M &A, X &x) { x = A.inverse(); }
template <class M> typename M::Scalar determinant(const M &A) {
  return A.determinant();
}

namespace eigen_detail {
/// The derivative of det(A) with respect to A: the cofactor matrix,
/// written out up to 3x3 (exact for a singular A too), det(A) A^-T above.
template <class M> Plain<M> cofactors(const M &A) {
  Plain<M> C(A.rows(), A.cols());
  Eigen::Index n = A.rows();
  if (n == 1) {
    C(0, 0) = 1;
  } else if (n == 2) {
    C << A(1, 1), -A(1, 0), -A(0, 1), A(0, 0);
  } else if (n == 3) {
    for (Eigen::Index i = 0; i < 3; ++i)
      for (Eigen::Index j = 0; j < 3; ++j)
        C(i, j) = A((i + 1) % 3, (j + 1) % 3) * A((i + 2) % 3, (j + 2) % 3) -
                  A((i + 1) % 3, (j + 2) % 3) * A((i + 2) % 3, (j + 1) % 3);
  } else {
    Eigen::PartialPivLU<Plain<M>> lu(A);
    C = lu.determinant() * lu.inverse().transpose();
  }
  return C;
}
} // namespace eigen_detail

} // namespace fluxion

namespace fluxion::custom {

template <class M, class B, class X>
void llt_solve_vjp(const M &A, const B &b, X &x, M *d_A, B *d_b, X *d_x) {
  eigen_detail::SelfAdjointSolve<Eigen::LLT>::vjp(A, b, x, d_A, d_b,
                                                            d_x);
}
template <class M, class B, class X>
void llt_solve_jvp(const M &A, const B &b, X &x, const M *t_A, const B *t_b,
                   X *t_x) {
  eigen_detail::SelfAdjointSolve<Eigen::LLT>::jvp(A, b, x, t_A, t_b,
                                                            t_x);
}
template <class M, class B, class X>
void ldlt_solve_vjp(const M &A, const B &b, X &x, M *d_A, B *d_b, X *d_x) {
  eigen_detail::SelfAdjointSolve<Eigen::LDLT>::vjp(A, b, x, d_A, d_b,
                                                             d_x);
}
template <class M, class B, class X>
void ldlt_solve_jvp(const M &A, const B &b, X &x, const M *t_A, const B *t_b,
                    X *t_x) {
  eigen_detail::SelfAdjointSolve<Eigen::LDLT>::jvp(A, b, x, t_A, t_b,
                                                             t_x);
}

template <class M, class B, class X>
void lu_solve_vjp(const M &A, const B &b, X &x, M *d_A, B *d_b, X *d_x) {
  Eigen::PartialPivLU<eigen_detail::Plain<M>> lu(A);
  x = lu.solve(b);
  eigen_detail::Plain<X> g = lu.transpose().solve(*d_x);
  *d_b += g;
  d_A->noalias() -= g * x.transpose();
  d_x->setZero();
}
template <class M, class B, class X>
void lu_solve_jvp(const M &A, const B &b, X &x, const M *t_A, const B *t_b,
                  X *t_x) {
  Eigen::PartialPivLU<eigen_detail::Plain<M>> lu(A);
  x = lu.solve(b);
  *t_x = lu.solve(*t_b - *t_A * x);
}

template <class M, class B, class X>
void qr_solve_vjp(const M &A, const B &b, X &x, M *d_A, B *d_b, X *d_x) {
  Eigen::HouseholderQR<eigen_detail::Plain<M>> qr(A);
  x = qr.solve(b);
  eigen_detail::Plain<X> g = eigen_detail::normalSolve(qr, *d_x);
  eigen_detail::Plain<B> Ag = A * g;
  *d_b += Ag;
  *d_A += (b - A * x) * g.transpose() - Ag * x.transpose();
  d_x->setZero();
}
template <class M, class B, class X>
void qr_solve_jvp(const M &A, const B &b, X &x, const M *t_A, const B *t_b,
                  X *t_x) {
  Eigen::HouseholderQR<eigen_detail::Plain<M>> qr(A);
  x = qr.solve(b);
  *t_x = eigen_detail::normalSolve(
      qr, t_A->transpose() * (b - A * x) + A.transpose() * (*t_b - *t_A * x));
}

// X = A^-1: A_bar -= X^T X_bar X^T; X_dot = -X A_dot X.
template <class M, class X>
void inverse_vjp(const M &A, X &x, M *d_A, X *d_x) {
  x = A.inverse();
  d_A->noalias() -= x.transpose() * *d_x * x.transpose();
  d_x->setZero();
}
template <class M, class X>
void inverse_jvp(const M &A, X &x, const M *t_A, X *t_x) {
  x = A.inverse();
  *t_x = -(x * *t_A * x);
}

// d det(A) / dA = the cofactor matrix of A.
template <class M>
typename M::Scalar determinant_vjp(const M &A, typename M::Scalar seed,
                                   M *d_A) {
  *d_A += seed * eigen_detail::cofactors(A);
  return A.determinant();
}
template <class M>
typename M::Scalar determinant_jvp(const M &A, const M *t_A) {
  return (eigen_detail::cofactors(A).array() * t_A->array()).sum();
}

} // namespace fluxion::custom

#endif // FLUXION_EIGEN_HPP
