// Pointers that walk and side effects inside expressions, written the way C
// and C++ programmers write them: `*x++ * *y++` under `while (n--)`, a row
// pointer stepped by `row += n` against an end pointer, a parameter moved
// past a header (`x += 1`), a callee that walks its output, and `x[k++]`,
// `while (++j < k)`, `for (i = n; i-- > 0;)`, `a = b = c`, `(t = e) > 0`,
// `++i, --j` in a for increment. Every derivative is checked against
// finite differences (fluxion::check_*), and reverse against forward mode.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

namespace walk {

// Both parameters walk; n counts down.
[[fluxion::hessian]] [[fluxion::jvp]] double dot(const double *x,
                                                 const double *y, int n) {
  double s = 0;
  while (n--)
    s += *x++ * std::sin(*y++);
  return s * s;
}

// A local pointer against an end pointer, its distance from the start.
[[fluxion::hessian]] [[fluxion::jvp]] double weighted(const double *x, int n) {
  double s = 0;
  const double *end = x + n;
  for (const double *p = x; p != end; ++p)
    s += (p - x + 1) * *p * *p;
  return std::sqrt(s);
}

// A row pointer stepped by a row's length; rows read by index from it.
[[fluxion::hessian]] [[fluxion::jvp]] double rows(const double *A, int m,
                                                  int n) {
  double s = 0;
  for (const double *row = A; row < A + m * n; row += n) {
    double r = 0;
    for (int j = 0; j < n; ++j)
      r += row[j] * row[n - 1 - j];
    s += std::exp(0.1 * r);
  }
  return s;
}

// A parameter moved past a header element, then indexed.
[[fluxion::hessian]] [[fluxion::jvp]] double after_header(const double *x,
                                                          int n) {
  double scale = x[0];
  x += 1;
  double s = 0;
  for (int i = 0; i < n - 1; ++i)
    s += x[i] * x[i];
  return scale * s;
}

// A callee that walks its output and its input; y is in/out.
static void axpy(double a, const double *x, double *y, int n) {
  for (; n > 0; --n)
    *y++ += a * *x++;
}

[[fluxion::grad]] [[fluxion::jvp]] void update(double a, const double *x,
                                               double *y, int n) {
  axpy(a, x, y, n);
  double *p = y;
  for (int i = 0; i < n; ++i, ++p)
    *p = std::tanh(*p);
}

// Side effects inside expressions: the positive entries packed with
// y[k++], a while loop on ++j, a countdown i-- > 0 on an unsigned counter,
// a = b = c, an assignment in a condition, two counters in one increment.
[[fluxion::hessian]] [[fluxion::jvp]] double pack(const double *x, int n) {
  double y[8];
  int k = 0;
  for (int i = 0; i < n; ++i)
    if (x[i] > 0)
      y[k++] = x[i] * x[i];
  double s = 0;
  int j = 0;
  while (++j < k)
    s += y[j] * y[j - 1];
  for (std::size_t i = n; i-- > 0;)
    s += x[i] * double(i + 1);
  double a, b;
  a = b = x[0] * 2;
  s += a * b;
  double t;
  if ((t = x[1] * 3) > 0 && ++k > 0)
    s += t * t * k;
  for (int i = 0, m = n - 1; i < m; ++i, --m)
    s += x[i] * x[m];
  return s;
}

// A real postfix increment keeps its old value; a comma yields its right.
[[fluxion::hessian]] [[fluxion::jvp]] double counters(double x, double y) {
  double c = x;
  double old = c++;
  double z = (c *= y, c + old);
  return z * c;
}

// Fuzz seeds 113 and 350: a non-const array the function only reads but
// moves (b++, b -= 1) is an input of f_jacobian, not an output.
[[fluxion::jacobian]] double moved_input(double b[2], double x) {
  double s = *b++ * x;
  s += *b * *b;
  b -= 1;
  return s;
}

// Fuzz seed 370: a pointer set again to the same memory spelled anew
// (p = v.data() + 1) stays a walk.
[[fluxion::grad]] double reset(const std::vector<double> &v, double x) {
  const double *p = v.data();
  double s = *p * x;
  p = v.data() + 1;
  s += *p * *p;
  p = &v[0];
  return s + *p;
}

// A table of row pointers: a row read from it names memory that stays put.
[[fluxion::hessian]] [[fluxion::jvp]] double table(const double *const *A,
                                                   int m, int n) {
  double s = 0;
  for (int i = 0; i < m; ++i) {
    const double *r = A[i];
    for (const double *p = r; p != r + n; ++p)
      s += *p * r[0];
  }
  return s;
}

} // namespace walk

namespace {

constexpr double X[6] = {0.7, -1.3, 0.4, 1.1, -0.2, 0.9};
constexpr double Y[6] = {0.3, 0.8, -0.6, 1.2, 0.5, -1.0};

TEST(WalkingPointers, BothParametersWalk) {
  double x[5], y[5];
  std::copy(X, X + 5, x);
  std::copy(Y, Y + 5, y);
  auto span = [](double *p) { return fluxion::span(p, 5); };
  EXPECT_TRUE(fluxion::check_gradient(walk::dot, walk::dot_grad, span(x),
                                      span(y), 5).ok());
  EXPECT_TRUE(fluxion::check_jvp(walk::dot, walk::dot_jvp, span(x), span(y),
                                 5).ok());
  EXPECT_TRUE(fluxion::check_hvp(walk::dot, walk::dot_hvp, span(x), span(y),
                                 5).ok());
}

TEST(WalkingPointers, EndPointerAndDistance) {
  double x[6];
  std::copy(X, X + 6, x);
  auto r = fluxion::check_gradient(walk::weighted, walk::weighted_grad,
                                   fluxion::span(x, 6), 6);
  EXPECT_TRUE(r.ok()) << r;
  // The distance p - x weighs each square: ds/dx_i = (i + 1) x_i / f.
  double d[6] = {};
  double f = walk::weighted_grad(x, 6, d);
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(d[i], (i + 1) * x[i] / f, 1e-14);
  EXPECT_TRUE(fluxion::check_jvp(walk::weighted, walk::weighted_jvp,
                                 fluxion::span(x, 6), 6).ok());
  EXPECT_TRUE(fluxion::check_hvp(walk::weighted, walk::weighted_hvp,
                                 fluxion::span(x, 6), 6).ok());
}

TEST(WalkingPointers, RowPointer) {
  double A[6];
  std::copy(X, X + 6, A);
  for (int n : {2, 3}) {
    int m = 6 / n;
    auto r = fluxion::check_gradient(walk::rows, walk::rows_grad,
                                     fluxion::span(A, 6), m, n);
    EXPECT_TRUE(r.ok()) << r;
    EXPECT_TRUE(fluxion::check_jvp(walk::rows, walk::rows_jvp,
                                   fluxion::span(A, 6), m, n).ok());
    EXPECT_TRUE(fluxion::check_hvp(walk::rows, walk::rows_hvp,
                                   fluxion::span(A, 6), m, n).ok());
  }
}

TEST(WalkingPointers, ParameterMovedPastHeader) {
  double x[5];
  std::copy(X, X + 5, x);
  double d[5] = {};
  walk::after_header_grad(x, 5, d);
  // scale * sum_{i>=1} x_i^2: the header's derivative is the sum.
  double s = 0;
  for (int i = 1; i < 5; ++i)
    s += x[i] * x[i];
  EXPECT_NEAR(d[0], s, 1e-14);
  for (int i = 1; i < 5; ++i)
    EXPECT_NEAR(d[i], 2 * x[0] * x[i], 1e-14);
  EXPECT_TRUE(fluxion::check_jvp(walk::after_header, walk::after_header_jvp,
                                 fluxion::span(x, 5), 5).ok());
  EXPECT_TRUE(fluxion::check_hvp(walk::after_header, walk::after_header_hvp,
                                 fluxion::span(x, 5), 5).ok());
}

TEST(WalkingPointers, CalleeWalksItsOutput) {
  double x[4], y[4];
  std::copy(X, X + 4, x);
  std::copy(Y, Y + 4, y);
  auto r = fluxion::check_vjp(walk::update, walk::update_vjp, 0.7,
                              fluxion::span(x, 4), fluxion::span(y, 4), 4);
  EXPECT_TRUE(r.ok()) << r;
  EXPECT_TRUE(fluxion::check_jvp(walk::update, walk::update_jvp, 0.7,
                                 fluxion::span(x, 4), fluxion::span(y, 4), 4)
                  .ok());
}

TEST(SideEffectsInExpressions, PackCountdownChainedAssignments) {
  for (const double *src : {X, Y}) {
    double x[6];
    std::copy(src, src + 6, x);
    auto r = fluxion::check_gradient(walk::pack, walk::pack_grad,
                                     fluxion::span(x, 6), 6);
    EXPECT_TRUE(r.ok()) << r;
    EXPECT_TRUE(fluxion::check_jvp(walk::pack, walk::pack_jvp,
                                   fluxion::span(x, 6), 6).ok());
    EXPECT_TRUE(fluxion::check_hvp(walk::pack, walk::pack_hvp,
                                   fluxion::span(x, 6), 6).ok());
  }
  // By hand for x = {1, -2, 3, 4}: y = {1, 9, 16} (k = 3), so in x[2] the
  // products y1 y0 + y2 y1 give 2 x2 (y0 + y2), the countdown 3, the pair
  // x1 x2 gives x1.
  double x[4] = {1, -2, 3, 4}, d[4] = {};
  EXPECT_DOUBLE_EQ(walk::pack_grad(x, 4, d), walk::pack(x, 4));
  EXPECT_NEAR(d[2], 2 * 3 * (1 + 16) + 3 - 2, 1e-12);
}

TEST(SideEffectsInExpressions, RealPostfixAndComma) {
  auto r = fluxion::check_gradient(walk::counters, walk::counters_grad, 0.8,
                                   -1.7);
  EXPECT_TRUE(r.ok()) << r;
  EXPECT_TRUE(fluxion::check_jvp(walk::counters, walk::counters_jvp, 0.8,
                                 -1.7).ok());
  EXPECT_TRUE(fluxion::check_hvp(walk::counters, walk::counters_hvp, 0.8,
                                 -1.7).ok());
}

TEST(WalkingPointers, MovedArrayIsAnInputOfTheJacobian) {
  double b[2] = {0.5, -1.25}, J[3] = {};
  walk::moved_input_jacobian(b, 0.75, J);
  EXPECT_DOUBLE_EQ(J[0], 0.75);  // d/db0 = x
  EXPECT_DOUBLE_EQ(J[1], -2.5);  // d/db1 = 2 b1
  EXPECT_DOUBLE_EQ(J[2], 0.5);   // d/dx = b0
}

TEST(WalkingPointers, SetAgainToTheSameMemory) {
  std::vector<double> v = {0.5, -1.25}, d(2);
  double x = 0.75, dx = 0;
  walk::reset_grad(v, x, &d, &dx);
  EXPECT_DOUBLE_EQ(d[0], x + 1);
  EXPECT_DOUBLE_EQ(d[1], 2 * v[1]);
  EXPECT_DOUBLE_EQ(dx, v[0]);
}

TEST(WalkingPointers, RowsOfATable) {
  double A[6];
  std::copy(X, X + 6, A);
  const double *rows[2] = {A, A + 3};
  double dA[6] = {};
  double *drows[2] = {dA, dA + 3};
  walk::table_grad(rows, 2, 3, drows);
  // s = sum_i r_i0 * sum_j r_ij: d/dr_i0 = sum_j r_ij + r_i0, else r_i0.
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      double want = A[3 * i];
      if (j == 0)
        want += A[3 * i] + A[3 * i + 1] + A[3 * i + 2];
      EXPECT_NEAR(dA[3 * i + j], want, 1e-14);
    }
  double tA[6] = {0.3, -0.2, 0.5, 0.1, 0.7, -0.4};
  const double *trows[2] = {tA, tA + 3};
  double dot = 0;
  for (int k = 0; k < 6; ++k)
    dot += tA[k] * dA[k];
  EXPECT_NEAR(walk::table_jvp(rows, 2, 3, trows), dot, 1e-14);
}

} // namespace
