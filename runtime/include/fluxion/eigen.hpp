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

#include <type_traits>

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
/// A solve with a triangular view of A (Mode: Lower, Upper, UnitLower or
/// UnitUpper). The solve reads the coefficients of one triangle (without
/// the diagonal when it is a unit one): only those receive an adjoint or
/// carry a tangent.
template <unsigned Mode> struct TriangularSolve {
  static constexpr unsigned Read =
      (Mode & Eigen::UnitDiag)
          ? ((Mode & Eigen::Lower) ? Eigen::StrictlyLower
                                   : Eigen::StrictlyUpper)
          : Mode;
  template <class M, class B, class X>
  static void solve(const M &A, const B &b, X &x) {
    x = A.template triangularView<Mode>().solve(b);
  }
  template <class M, class B, class X>
  static void vjp(const M &A, const B &b, X &x, M *d_A, B *d_b, X *d_x) {
    const auto T = A.template triangularView<Mode>();
    x = T.solve(b);
    Plain<X> g = T.transpose().solve(*d_x);
    *d_b += g;
    Plain<M> G = g * x.transpose();
    d_A->template triangularView<Read>() -= G;
    d_x->setZero(); // x was written, not read
  }
  template <class M, class B, class X>
  static void jvp(const M &A, const B &b, X &x, const M *t_A, const B *t_b,
                  X *t_x) {
    const auto T = A.template triangularView<Mode>();
    x = T.solve(b);
    Plain<X> r = *t_b;
    r.noalias() -= t_A->template triangularView<Read>() * x;
    *t_x = T.solve(r);
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
// A.triangularView<Lower>().solve(b), and Upper, UnitLower, UnitUpper.
template <class M, class B, class X>
void lower_solve(const M &A, const B &b, X &x) {
  eigen_detail::TriangularSolve<Eigen::Lower>::solve(A, b, x);
}
template <class M, class B, class X>
void upper_solve(const M &A, const B &b, X &x) {
  eigen_detail::TriangularSolve<Eigen::Upper>::solve(A, b, x);
}
template <class M, class B, class X>
void unit_lower_solve(const M &A, const B &b, X &x) {
  eigen_detail::TriangularSolve<Eigen::UnitLower>::solve(A, b, x);
}
template <class M, class B, class X>
void unit_upper_solve(const M &A, const B &b, X &x) {
  eigen_detail::TriangularSolve<Eigen::UnitUpper>::solve(A, b, x);
}
template <class M, class X> void inverse(const M &A, X &x) { x = A.inverse(); }
template <class M> typename M::Scalar determinant(const M &A) {
  return A.determinant();
}

namespace eigen_detail {
/// An operand of eigen_product: Rows x Cols coefficients stored column by
/// column, Ld apart (a matrix, a block of one, a vector, a row of a
/// column-major matrix with Ld its rows).
template <class T>
using Strided =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>, 0,
               Eigen::OuterStride<>>;
template <class T>
using StridedOut = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>,
                              0, Eigen::OuterStride<>>;

template <class C, class X, class Y>
void assignProduct(C &&c, const X &x, const Y &y, int Mode) {
  if (Mode == 0)
    c.noalias() = x * y;
  else if (Mode > 0)
    c.noalias() += x * y;
  else
    c.noalias() -= x * y;
}

/// C = X * Y (Mode 0), C += X * Y (1) or C -= X * Y (-1), by Eigen's
/// kernels; no operand aliases C. The extents are known at run time only:
/// an outer product, a matrix-vector or vector-matrix product is given to
/// Eigen as one, so that it takes its kernel for that shape.
template <class C, class X, class Y>
void accumulate(C &&c, const X &x, const Y &y, int Mode) {
  if (x.cols() == 1 && c.size() > 1)
    assignProduct(c, x.col(0), y.row(0), Mode);
  else if (c.cols() == 1)
    assignProduct(c.col(0), x, y.col(0), Mode);
  else if (c.rows() == 1)
    assignProduct(c.row(0), x.row(0), y, Mode);
  else
    assignProduct(c, x, y, Mode);
}

/// op(X): X, or its transpose when Tr.
template <bool Tr, class X> decltype(auto) op(const X &x) {
  if constexpr (Tr)
    return x.transpose();
  else
    return (x);
}

/// Products with M + N + K below this take plain loops (smallProduct):
/// Eigen's kernels spend more setting up than they save there (Eigen's own
/// EIGEN_GEMM_TO_COEFFBASED_THRESHOLD).
constexpr Eigen::Index SmallProduct = 20;

/// C (M x N, Ldc apart) op= op(A) op(B) for small extents, as plain loops:
/// each column of op(A) added to C's, or, where op(A) is a transpose, the K
/// terms of each coefficient read contiguously.
template <bool AT, bool BT, class T>
inline void smallProduct(const T *A, Eigen::Index Lda, const T *B,
                         Eigen::Index Ldb, T *C, Eigen::Index Ldc,
                         Eigen::Index M, Eigen::Index N, Eigen::Index K,
                         int Mode) {
  const T Sign = Mode < 0 ? T(-1) : T(1);
  for (Eigen::Index j = 0; j < N; ++j) {
    T *c = C + j * Ldc;
    if (Mode == 0)
      for (Eigen::Index i = 0; i < M; ++i)
        c[i] = T(0);
    // op(B)(k, j)
    auto b = [&](Eigen::Index k) {
      return BT ? B[j + k * Ldb] : B[k + j * Ldb];
    };
    if constexpr (!AT) {
      for (Eigen::Index k = 0; k < K; ++k) {
        const T *a = A + k * Lda;
        const T bk = Sign * b(k);
        for (Eigen::Index i = 0; i < M; ++i)
          c[i] += a[i] * bk;
      }
    } else {
      for (Eigen::Index i = 0; i < M; ++i) {
        const T *a = A + i * Lda;
        T Sum = T(0);
        for (Eigen::Index k = 0; k < K; ++k)
          Sum += a[k] * b(k);
        c[i] += Sign * Sum;
      }
    }
  }
}

/// The same by Eigen's kernels, out of line.
template <bool AT, bool BT, class T>
[[gnu::noinline]] void
kernelProduct(const T *A, Eigen::Index a_rows, Eigen::Index a_cols,
              Eigen::Index a_ld, const T *B, Eigen::Index b_rows,
              Eigen::Index b_cols, Eigen::Index b_ld, T *C, Eigen::Index c_ld,
              int Mode) {
  Strided<T> a(A, a_rows, a_cols, Eigen::OuterStride<>(a_ld));
  Strided<T> b(B, b_rows, b_cols, Eigen::OuterStride<>(b_ld));
  StridedOut<T> c(C, AT ? a_cols : a_rows, BT ? b_rows : b_cols,
                  Eigen::OuterStride<>(c_ld));
  accumulate(c, op<AT>(a), op<BT>(b), Mode);
}

/// eigen_product with the transposes known.
template <bool AT, bool BT, class T>
inline void product(const T *A, Eigen::Index a_rows, Eigen::Index a_cols,
                    Eigen::Index a_ld, const T *B, Eigen::Index b_rows,
                    Eigen::Index b_cols, Eigen::Index b_ld, T *C,
                    Eigen::Index c_ld, int Mode) {
  Eigen::Index M = AT ? a_cols : a_rows, K = AT ? a_rows : a_cols,
               N = BT ? b_rows : b_cols;
  // An outer product (K = 1) is a column update per column: plain loops,
  // which the compiler vectorises, do better than Eigen's generic kernel
  // whose extents are known at run time only.
  if (M + N + K < SmallProduct || (K == 1 && !AT))
    smallProduct<AT, BT>(A, a_ld, B, b_ld, C, c_ld, M, N, K, Mode);
  else
    kernelProduct<AT, BT>(A, a_rows, a_cols, a_ld, B, b_rows, b_cols, b_ld,
                          C, c_ld, Mode);
}

/// Calls F(AT, BT) with the run-time transposes as std::bool_constant.
template <class Fn> inline void withTransposes(bool AT, bool BT, Fn &&F) {
  using Y = std::true_type;
  using N = std::false_type;
  if (!AT && !BT)
    F(N(), N());
  else if (!AT)
    F(N(), Y());
  else if (!BT)
    F(Y(), N());
  else
    F(Y(), Y());
}
} // namespace eigen_detail

/// C op= op(A) op(B), the matrix product inside differentiated code: A is
/// a_rows x a_cols, stored column by column a_ld apart, and op(A) is its
/// transpose when a_t (a row-major matrix is the transpose of a
/// column-major one); the same for B; C is stored column by column c_ld
/// apart. Mode: 0 for =, 1 for +=, -1 for -=. Its derivatives
/// (fluxion::custom::eigen_product_vjp, _jvp) are products again.
template <class T>
inline void eigen_product(const T *A, Eigen::Index a_rows,
                          Eigen::Index a_cols, Eigen::Index a_ld, bool a_t,
                          const T *B, Eigen::Index b_rows, Eigen::Index b_cols,
                          Eigen::Index b_ld, bool b_t, T *C, Eigen::Index c_ld,
                          int mode) {
  eigen_detail::withTransposes(a_t, b_t, [&](auto AT, auto BT) {
    eigen_detail::product<decltype(AT)::value, decltype(BT)::value>(
        A, a_rows, a_cols, a_ld, B, b_rows, b_cols, b_ld, C, c_ld, mode);
  });
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

// The adjoint of x = T^-1 b is a solve with T^T; T's tangent enters as
// T^-1 (t_b - t_T x).
#define FLUXION_TRIANGULAR_SOLVE_RULES(NAME, MODE)                            \
  template <class M, class B, class X>                                         \
  void NAME##_vjp(const M &A, const B &b, X &x, M *d_A, B *d_b, X *d_x) {      \
    eigen_detail::TriangularSolve<MODE>::vjp(A, b, x, d_A, d_b, d_x);          \
  }                                                                            \
  template <class M, class B, class X>                                         \
  void NAME##_jvp(const M &A, const B &b, X &x, const M *t_A, const B *t_b,    \
                  X *t_x) {                                                    \
    eigen_detail::TriangularSolve<MODE>::jvp(A, b, x, t_A, t_b, t_x);          \
  }
FLUXION_TRIANGULAR_SOLVE_RULES(lower_solve, Eigen::Lower)
FLUXION_TRIANGULAR_SOLVE_RULES(upper_solve, Eigen::Upper)
FLUXION_TRIANGULAR_SOLVE_RULES(unit_lower_solve, Eigen::UnitLower)
FLUXION_TRIANGULAR_SOLVE_RULES(unit_upper_solve, Eigen::UnitUpper)
#undef FLUXION_TRIANGULAR_SOLVE_RULES

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

// C op= s op(A) op(B) with s = -1 for -=, else 1. Reverse:
//   op(A)_bar += s C_bar op(B)^T,  op(B)_bar += s op(A)^T C_bar,
// and C_bar is spent when C was overwritten (mode 0). A null adjoint is an
// operand without one.
template <class T>
inline void eigen_product_vjp(const T *A, Eigen::Index a_rows,
                              Eigen::Index a_cols, Eigen::Index a_ld, bool a_t,
                              const T *B, Eigen::Index b_rows,
                              Eigen::Index b_cols, Eigen::Index b_ld, bool b_t,
                              T * /*C, not read*/, Eigen::Index c_ld, int mode,
                              T *d_A, T *d_B, T *d_C) {
  using eigen_detail::product;
  if (!d_C)
    return;
  Eigen::Index m = a_t ? a_cols : a_rows, n = b_t ? b_rows : b_cols;
  int add = mode < 0 ? -1 : 1;
  eigen_detail::withTransposes(a_t, b_t, [&](auto AT_, auto BT_) {
    constexpr bool AT = decltype(AT_)::value, BT = decltype(BT_)::value;
    // A_bar is op(A)_bar, or its transpose s op(B) C_bar^T when AT.
    if (d_A && !AT)
      product<false, !BT>(d_C, m, n, c_ld, B, b_rows, b_cols, b_ld, d_A, a_ld,
                          add);
    else if (d_A)
      product<BT, true>(B, b_rows, b_cols, b_ld, d_C, m, n, c_ld, d_A, a_ld,
                        add);
    // B_bar is op(B)_bar, or its transpose s C_bar^T op(A) when BT.
    if (d_B && !BT)
      product<!AT, false>(A, a_rows, a_cols, a_ld, d_C, m, n, c_ld, d_B, b_ld,
                          add);
    else if (d_B)
      product<true, AT>(d_C, m, n, c_ld, A, a_rows, a_cols, a_ld, d_B, b_ld,
                        add);
  });
  if (mode == 0) // C was written, not read
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < m; ++i)
        d_C[i + j * c_ld] = T(0);
}
// Forward: op(C)_dot op= op(A)_dot op(B) + op(A) op(B)_dot, before C is
// computed; a null tangent is an operand without one.
template <class T>
inline void eigen_product_jvp(const T *A, Eigen::Index a_rows, Eigen::Index a_cols,
                       Eigen::Index a_ld, bool a_t, const T *B,
                       Eigen::Index b_rows, Eigen::Index b_cols,
                       Eigen::Index b_ld, bool b_t, T *C, Eigen::Index c_ld,
                       int mode, const T *t_A, const T *t_B, T *t_C) {
  (void)C;
  if (!t_C)
    return;
  if (mode == 0 && !t_A && !t_B) {
    eigen_detail::StridedOut<T>(t_C, a_t ? a_cols : a_rows,
                                b_t ? b_rows : b_cols,
                                Eigen::OuterStride<>(c_ld))
        .setZero();
    return;
  }
  if (t_A) {
    fluxion::eigen_product(t_A, a_rows, a_cols, a_ld, a_t, B, b_rows, b_cols,
                           b_ld, b_t, t_C, c_ld, mode);
    if (mode == 0)
      mode = 1; // the second term adds to the first
  }
  if (t_B)
    fluxion::eigen_product(A, a_rows, a_cols, a_ld, a_t, t_B, b_rows, b_cols,
                           b_ld, b_t, t_C, c_ld, mode);
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
