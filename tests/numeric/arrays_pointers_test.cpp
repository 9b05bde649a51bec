// Arrays and pointers: const T* inputs, fixed-size array parameters, local
// arrays (1-D and 2-D) written and re-read, index arithmetic.
#include <fluxion/fluxion.hpp>

#include "numeric_check.hpp"

namespace arr {

// Weighted dot product of two input arrays.
[[fluxion::grad]] double wdot(const double *x, const double *y, double w,
                              int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += w * x[i] * y[i];
  return s;
}

// Fixed-size array parameters: |a x b|^2 + a . b.
[[fluxion::grad]] double cross_norm2(double a[3], double b[3]) {
  double c0 = a[1] * b[2] - a[2] * b[1];
  double c1 = a[2] * b[0] - a[0] * b[2];
  double c2 = a[0] * b[1] - a[1] * b[0];
  return c0 * c0 + c1 * c1 + c2 * c2 + a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// A local array written in one loop and re-read in another (an IIR filter),
// one element overwritten twice.
[[fluxion::grad]] double filtered_energy(const double *x, double w) {
  double tmp[8];
  tmp[0] = x[0];
  for (int i = 1; i < 8; ++i)
    tmp[i] = tmp[i - 1] * w + x[i];
  tmp[3] = tmp[3] * tmp[3];
  double e = 0;
  for (int i = 0; i < 8; ++i)
    e += tmp[i] * tmp[i];
  return e;
}

// A 2-D local array: M = x x^T + diag(d), then trace(M M).
[[fluxion::grad]] double trace_sq(const double *x, double d) {
  double m[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      m[i][j] = x[i] * x[j] + (i == j ? d : 0.0);
  double t = 0;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k)
      t += m[i][k] * m[k][i];
  return t;
}

// Index arithmetic on a flattened matrix: v^T A v.
[[fluxion::grad]] double quad_form(const double *A, const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      s += v[i] * A[i * n + j] * v[j];
  return s;
}

// Stencil with neighbouring indices and a local array initialised from a
// brace list.
[[fluxion::grad]] double stencil(const double *u, int n) {
  double coef[3] = {0.25, 0.5, 0.25};
  double s = 0;
  for (int i = 1; i + 1 < n; ++i) {
    double v = coef[0] * u[i - 1] + coef[1] * u[i] + coef[2] * u[i + 1];
    s += v * v;
  }
  return s;
}

// A local matrix product C = A B (2-D locals), then the sum of C's squares.
[[fluxion::grad]] double matmul_energy(double a[4], double b[4]) {
  double A[2][2] = {{a[0], a[1]}, {a[2], a[3]}};
  double B[2][2];
  B[0][0] = b[0];
  B[0][1] = b[1];
  B[1][0] = b[2];
  B[1][1] = b[3];
  double C[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      C[i][j] = 0;
      for (int k = 0; k < 2; ++k)
        C[i][j] += A[i][k] * B[k][j];
    }
  double e = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      e += C[i][j] * C[i][j];
  return e;
}

// Index arithmetic with integer division and modulo: (sum x)^2.
[[fluxion::grad]] double div_mod_index(const double *a, int n) {
  double s = 0;
  for (int k = 0; k < n * n; ++k)
    s += a[k / n] * a[k % n];
  return s;
}

} // namespace arr

using nt::ld;

TEST(ArraysPointers, ConstPointerInputs) {
  const int n = 5;
  nt::Rng rng(11);
  std::vector<double> in = rng.vec<double>(2 * n + 1, -2, 2);
  auto F = [&](const double *v) { return arr::wdot(v, v + n, v[2 * n], n); };
  auto G = [&](const double *v, double *d) {
    return arr::wdot_grad(v, v + n, v[2 * n], n, d, d + n, d + 2 * n);
  };
  auto g = nt::check_gradient<double>(F, G, in);
  ld w = in[2 * n], dot = 0;
  for (int i = 0; i < n; ++i) {
    NT_EXPECT_EXACT(double, g[i], w * in[n + i]);
    NT_EXPECT_EXACT(double, g[n + i], w * in[i]);
    dot += (ld)in[i] * in[n + i];
  }
  NT_EXPECT_EXACT(double, g[2 * n], dot);
}

TEST(ArraysPointers, FixedSizeArrayParams) {
  std::vector<double> in = {1.0, -0.5, 2.0, 0.25, 1.5, -1.0};
  auto F = [](const double *v) {
    double a[3] = {v[0], v[1], v[2]}, b[3] = {v[3], v[4], v[5]};
    return arr::cross_norm2(a, b);
  };
  auto G = [](const double *v, double *d) {
    double a[3] = {v[0], v[1], v[2]}, b[3] = {v[3], v[4], v[5]};
    return arr::cross_norm2_grad(a, b, d, d + 3);
  };
  auto g = nt::check_gradient<double>(F, G, in);
  // |a x b|^2 = |a|^2 |b|^2 - (a.b)^2, so d/da = 2|b|^2 a - 2(a.b) b + b.
  ld aa = 0, bb = 0, ab = 0;
  for (int i = 0; i < 3; ++i) {
    aa += (ld)in[i] * in[i];
    bb += (ld)in[3 + i] * in[3 + i];
    ab += (ld)in[i] * in[3 + i];
  }
  for (int i = 0; i < 3; ++i) {
    NT_EXPECT_EXACT(double, g[i], 2 * bb * in[i] - 2 * ab * in[3 + i] + in[3 + i]);
    NT_EXPECT_EXACT(double, g[3 + i], 2 * aa * in[3 + i] - 2 * ab * in[i] + in[i]);
  }
}

TEST(ArraysPointers, LocalArrayWrittenAndReread) {
  nt::Rng rng(12);
  for (int rep = 0; rep < 4; ++rep) {
    std::vector<double> in = rng.vec<double>(9, -1, 1);
    auto F = [](const double *v) { return arr::filtered_energy(v, v[8]); };
    auto G = [](const double *v, double *d) {
      return arr::filtered_energy_grad(v, v[8], d, d + 8);
    };
    nt::check_gradient<double>(F, G, in);
  }
  // Closed form with w = 0: tmp = x except tmp[3] = x3^2, e = sum + x3^4.
  std::vector<double> x = {0.5, -1.0, 2.0, 1.5, 0.25, -0.5, 1.0, 3.0};
  std::vector<double> d(8, 0);
  double dw = 0;
  arr::filtered_energy_grad(x.data(), 0.0, d.data(), &dw);
  for (int i = 0; i < 8; ++i)
    NT_EXPECT_EXACT(double, d[i], i == 3 ? 4 * std::pow(1.5L, 3) : 2 * (ld)x[i]);
  // de/dw at w = 0: only tmp[i] = x[i-1] w + x[i] depends on w to first order;
  // de/dw = sum_{i>=1, i!=3} 2 x_i x_{i-1} + 2 tmp3 * 2 x3 * x2.
  ld ref = 0;
  for (int i = 1; i < 8; ++i)
    if (i != 3)
      ref += 2 * (ld)x[i] * x[i - 1];
  ref += 2 * (ld)x[3] * x[3] * 2 * x[3] * x[2];
  NT_EXPECT_EXACT(double, dw, ref);
}

TEST(ArraysPointers, TwoDimensionalLocalArray) {
  std::vector<double> in = {0.5, -1.25, 2.0, 0.75}; // x[0..2], d
  auto F = [](const double *v) { return arr::trace_sq(v, v[3]); };
  auto G = [](const double *v, double *d) {
    return arr::trace_sq_grad(v, v[3], d, d + 3);
  };
  auto g = nt::check_gradient<double>(F, G, in);
  // trace((x x^T + d I)^2) = s^2 + 2 d s + 3 d^2 with s = |x|^2.
  ld s = 0, dd = in[3];
  for (int i = 0; i < 3; ++i)
    s += (ld)in[i] * in[i];
  for (int i = 0; i < 3; ++i)
    NT_EXPECT_EXACT(double, g[i], (2 * s + 2 * dd) * 2 * in[i]);
  NT_EXPECT_EXACT(double, g[3], 2 * s + 6 * dd);
}

TEST(ArraysPointers, IndexArithmetic) {
  const int n = 4;
  nt::Rng rng(13);
  std::vector<double> in = rng.vec<double>(n * n + n, -1.5, 1.5);
  auto F = [&](const double *v) { return arr::quad_form(v, v + n * n, n); };
  auto G = [&](const double *v, double *d) {
    return arr::quad_form_grad(v, v + n * n, n, d, d + n * n);
  };
  auto g = nt::check_gradient<double>(F, G, in);
  const double *A = in.data(), *v = in.data() + n * n;
  for (int i = 0; i < n; ++i) {
    ld r = 0;
    for (int j = 0; j < n; ++j) {
      NT_EXPECT_EXACT(double, g[i * n + j], (ld)v[i] * v[j]);
      r += ((ld)A[i * n + j] + A[j * n + i]) * v[j];
    }
    NT_EXPECT_EXACT(double, g[n * n + i], r);
  }
}

TEST(ArraysPointers, StencilWithBraceInitialisedLocal) {
  const int n = 7;
  nt::Rng rng(14);
  std::vector<double> in = rng.vec<double>(n, -2, 2);
  auto g = nt::check_gradient<double>(
      [&](const double *v) { return arr::stencil(v, n); },
      [&](const double *v, double *d) { return arr::stencil_grad(v, n, d); }, in);
  std::vector<ld> ref(n, 0);
  for (int i = 1; i + 1 < n; ++i) {
    ld v = 0.25L * in[i - 1] + 0.5L * in[i] + 0.25L * in[i + 1];
    ref[i - 1] += 2 * v * 0.25L;
    ref[i] += 2 * v * 0.5L;
    ref[i + 1] += 2 * v * 0.25L;
  }
  for (int i = 0; i < n; ++i)
    NT_EXPECT_EXACT(double, g[i], ref[i]);
}

TEST(ArraysPointers, LocalMatrixProduct) {
  std::vector<double> in = {1.0, 2.0, -0.5, 0.75, 0.3, -1.2, 2.1, 0.4};
  auto F = [](const double *v) {
    double a[4] = {v[0], v[1], v[2], v[3]}, b[4] = {v[4], v[5], v[6], v[7]};
    return arr::matmul_energy(a, b);
  };
  auto G = [](const double *v, double *d) {
    double a[4] = {v[0], v[1], v[2], v[3]}, b[4] = {v[4], v[5], v[6], v[7]};
    return arr::matmul_energy_grad(a, b, d, d + 4);
  };
  auto g = nt::check_gradient<double>(F, G, in);
  // e = ||AB||_F^2: dA = 2 C B^T, dB = 2 A^T C.
  ld A[2][2] = {{in[0], in[1]}, {in[2], in[3]}};
  ld B[2][2] = {{in[4], in[5]}, {in[6], in[7]}};
  ld C[2][2] = {};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k)
        C[i][j] += A[i][k] * B[k][j];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      ld dA = 0, dB = 0;
      for (int k = 0; k < 2; ++k) {
        dA += 2 * C[i][k] * B[j][k];
        dB += 2 * A[k][i] * C[k][j];
      }
      NT_EXPECT_EXACT(double, g[i * 2 + j], dA);
      NT_EXPECT_EXACT(double, g[4 + i * 2 + j], dB);
    }
}

TEST(ArraysPointers, DivModIndexArithmetic) {
  const int n = 4;
  std::vector<double> in = {0.5, 1.5, -1.0, 0.25};
  auto g = nt::check_gradient<double>(
      [&](const double *v) { return arr::div_mod_index(v, n); },
      [&](const double *v, double *d) { return arr::div_mod_index_grad(v, n, d); },
      in);
  for (int i = 0; i < n; ++i)
    NT_EXPECT_EXACT(double, g[i], 2 * (0.5 + 1.5 - 1.0 + 0.25));
}
