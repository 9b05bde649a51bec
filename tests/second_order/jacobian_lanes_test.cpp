// f_jacobian in reverse mode runs every row in one reverse sweep (lanes,
// engine/include/fluxion/engine/LaneExpansion.h) when it has at most 8 rows
// and its call tree allows it; otherwise one reverse sweep per row. Both
// against rows from f_vjp with unit seeds and against central differences,
// through callees that return a seed, callees whose result is dropped,
// residual rules (sin, cos, sqrt), a user _vjp rule, loops and branches.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>
#include <vector>

namespace jl {

inline double softplus(double x) { return std::log1p(std::exp(x)); }

} // namespace jl

namespace fluxion::custom {
// Called once per lane from a lanes reverse sweep.
inline double softplus_vjp(double x, double seed, double *d_x) {
  *d_x += seed / (1 + std::exp(-x));
  return jl::softplus(x);
}
} // namespace fluxion::custom

namespace jl {

// Returns a value whose adjoint arrives as one seed per lane.
static double energy(const double *v, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i) {
    if (v[i] > 0)
      e += std::sin(v[i]) * v[i];
    else
      e += std::cos(v[i]) + v[i] * v[i];
  }
  return e;
}

// Writes through a pointer; its result is dropped by the caller (zero
// seeds in every lane).
static double spread(const double *v, double s, double *out, int n) {
  double total = 0;
  for (int i = 0; i < n; ++i) {
    out[i] = s * v[i] + std::sqrt(1 + v[i] * v[i]);
    total += out[i];
  }
  return total;
}

// 3 rows (result, y[0], y[1]) x 7 columns (x, s, w): one lanes sweep.
[[fluxion::jacobian]] double chain(const double x[5], double s, double w,
                                   double y[2]) {
  double tmp[5];
  spread(x, s, tmp, 5);
  y[0] = energy(tmp, 5) * w;
  y[1] = softplus(tmp[2] * w) + tmp[4];
  return energy(x, 3) + s * y[1];
}

// 9 rows x 10 columns: more rows than lanes, one sweep per row.
[[fluxion::jacobian]] void nine(const double x[10], double y[9]) {
  for (int i = 0; i < 9; ++i)
    y[i] = std::sin(x[i] * (i + 1)) * x[i + 1] + x[9] * x[i];
}

// float inputs, double rows: the adjoints of a pass through a buffer.
[[fluxion::jacobian]] void mixed(const float a[2], double s, double y[2]) {
  y[0] = a[0] * s * s;
  y[1] = std::exp(a[1] * s) + a[0];
}

// float inputs, double rows, more rows than lanes (replayed rows) and
// more rows than columns (columns from f_jvp).
[[fluxion::jacobian]] void floatNine(const float a[10], double y[9]) {
  for (int i = 0; i < 9; ++i)
    y[i] = a[i] * a[i + 1] * (i + 1);
}
[[fluxion::jacobian]] void floatTall(const float a[2], double y[3]) {
  y[0] = a[0] * a[1];
  y[1] = a[0] * 0.5;
  y[2] = a[1] * a[1];
}

} // namespace jl

namespace {

using so::Rng;
using Vec = std::vector<double>;

// Central differences of F(in, out) over the inputs, rows of out.
template <class F>
Vec jacobianFD(F f, Vec x, std::size_t Rows, double h = 1e-6) {
  Vec J(Rows * x.size());
  for (std::size_t j = 0; j < x.size(); ++j) {
    Vec xp = x, xm = x;
    xp[j] += h;
    xm[j] -= h;
    Vec fp = f(xp), fm = f(xm);
    for (std::size_t i = 0; i < Rows; ++i)
      J[i * x.size() + j] = (fp[i] - fm[i]) / (2 * h);
  }
  return J;
}

void expectMatrixClose(const Vec &A, const Vec &B, double tol) {
  ASSERT_EQ(A.size(), B.size());
  for (std::size_t i = 0; i < A.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "entry " << i);
    SO_EXPECT_CLOSE(A[i], B[i], tol);
  }
}

// chain as a function of (x[0..4], s, w) -> (result, y[0], y[1]).
Vec chainValues(const Vec &p) {
  double y[2];
  double r = jl::chain(p.data(), p[5], p[6], y);
  return {r, y[0], y[1]};
}

TEST(JacobianLanes, CallTreeAgainstVjpRowsAndFD) {
  Rng rng(701);
  for (int t = 0; t < 20; ++t) {
    Vec p = rng.vec(7, -1.5, 1.5);
    Vec J(21, -7.0);
    double y[2] = {-3, -4};
    jl::chain_jacobian(p.data(), p[5], p[6], y, J.data());
    // The outputs end as f computes them.
    Vec v = chainValues(p);
    EXPECT_DOUBLE_EQ(y[0], v[1]);
    EXPECT_DOUBLE_EQ(y[1], v[2]);
    for (int row = 0; row < 3; ++row) {
      SCOPED_TRACE(::testing::Message() << "row " << row);
      Vec dx(5, 0.0);
      double ds = 0, dw = 0, yy[2];
      double dy[2] = {double(row == 1), double(row == 2)};
      jl::chain_vjp(p.data(), p[5], p[6], yy, row == 0 ? 1.0 : 0.0, dx.data(),
                    &ds, &dw, dy);
      for (int j = 0; j < 5; ++j)
        SO_EXPECT_CLOSE(J[row * 7 + j], dx[j], 1e-13);
      SO_EXPECT_CLOSE(J[row * 7 + 5], ds, 1e-13);
      SO_EXPECT_CLOSE(J[row * 7 + 6], dw, 1e-13);
    }
    expectMatrixClose(J, jacobianFD(chainValues, p, 3), 1e-6);
  }
}

TEST(JacobianLanes, MoreRowsThanLanesAgainstFD) {
  Rng rng(702);
  auto values = [](const Vec &x) {
    Vec y(9);
    jl::nine(x.data(), y.data());
    return y;
  };
  for (int t = 0; t < 10; ++t) {
    Vec x = rng.vec(10, -1, 1), J(90, -7.0), y(9, -1.0);
    jl::nine_jacobian(x.data(), y.data(), J.data());
    expectMatrixClose(y, values(x), 0);
    expectMatrixClose(J, jacobianFD(values, x, 9), 1e-6);
  }
}

TEST(JacobianLanes, FloatInputsThroughBuffers) {
  Rng rng(703);
  auto values = [](const Vec &p) {
    float a[2] = {float(p[0]), float(p[1])};
    double y[2];
    jl::mixed(a, p[2], y);
    return Vec{y[0], y[1]};
  };
  for (int t = 0; t < 10; ++t) {
    float a[2] = {float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))};
    double s = rng.uniform(-1, 1);
    Vec J(6, -7.0);
    double y[2];
    jl::mixed_jacobian(a, s, y, J.data());
    Vec p = {a[0], a[1], s};
    Vec ref = {s * s, 0, 2 * a[0] * s,
               1, s * std::exp(a[1] * s), a[1] * std::exp(a[1] * s)};
    // Single-precision products: compare at float accuracy.
    expectMatrixClose(J, ref, 1e-6);
    expectMatrixClose(J, jacobianFD(values, p, 2, 1e-3), 1e-3);
  }
}

TEST(JacobianLanes, FloatInputsReplayedRowsAndForwardColumns) {
  Rng rng(704);
  for (int t = 0; t < 5; ++t) {
    float a[10];
    for (float &e : a)
      e = float(rng.uniform(-1, 1));
    Vec J(90, -7.0), y(9);
    jl::floatNine_jacobian(a, y.data(), J.data());
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 10; ++j) {
        double ref = j == i ? double(a[i + 1]) * (i + 1)
                     : j == i + 1 ? double(a[i]) * (i + 1)
                                  : 0.0;
        SO_EXPECT_CLOSE(J[i * 10 + j], ref, 1e-6);
      }
    Vec K(6, -7.0), z(3);
    jl::floatTall_jacobian(a, z.data(), K.data());
    Vec ref = {a[1], a[0], 0.5, 0, 0, 2.0 * a[1]};
    expectMatrixClose(K, ref, 1e-6);
  }
}

} // namespace
