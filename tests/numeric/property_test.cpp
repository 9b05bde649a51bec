// Randomised property test: for representative functions of the kind users
// write, at 200 random points each, the generated gradient matches central
// finite differences (and is added into the d_ buffers, and f_grad returns
// f's value).
#include <fluxion/fluxion.hpp>

#include <cmath>

#include "numeric_check.hpp"

namespace prop {

// Logistic-regression loss (mean negative log-likelihood, L2 penalty).
[[fluxion::grad("w")]] double logreg_loss(const double *w, const double *X,
                                          const double *y, int n, int d,
                                          double lambda) {
  double loss = 0;
  for (int i = 0; i < n; ++i) {
    double z = 0;
    for (int j = 0; j < d; ++j)
      z += X[i * d + j] * w[j];
    // log(1 + exp(-y z)), computed stably.
    double m = -y[i] * z;
    loss += m > 0 ? m + std::log1p(std::exp(-m)) : std::log1p(std::exp(m));
  }
  double reg = 0;
  for (int j = 0; j < d; ++j)
    reg += w[j] * w[j];
  return loss / n + 0.5 * lambda * reg;
}

// The n-dimensional Rosenbrock function.
[[fluxion::grad]] double rosenbrock(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; ++i) {
    double a = x[i + 1] - x[i] * x[i];
    double b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}

// Gaussian negative log-likelihood in (mu, log sigma).
[[fluxion::grad]] double gauss_nll(const double *data, int n, double mu,
                                   double log_sigma) {
  double sigma = std::exp(log_sigma);
  double nll = 0;
  for (int i = 0; i < n; ++i) {
    double z = (data[i] - mu) / sigma;
    nll += 0.5 * z * z + log_sigma + 0.91893853320467274;
  }
  return nll;
}

// Softmax cross-entropy with a max-shifted log-sum-exp.
[[fluxion::grad]] double softmax_xent(const double *logits, int k, int label) {
  double mx = logits[0];
  for (int i = 1; i < k; ++i)
    if (logits[i] > mx)
      mx = logits[i];
  double s = 0;
  for (int i = 0; i < k; ++i)
    s += std::exp(logits[i] - mx);
  return std::log(s) + mx - logits[label];
}

// A tiny multilayer perceptron 3 -> 4 (tanh) -> 1 with fixed-size weights.
[[fluxion::grad]] double mlp(double x[3], double W1[12], double b1[4],
                             double W2[4], double b2) {
  double h[4];
  for (int i = 0; i < 4; ++i) {
    double a = b1[i];
    for (int j = 0; j < 3; ++j)
      a += W1[i * 3 + j] * x[j];
    h[i] = std::tanh(a);
  }
  double out = b2;
  for (int i = 0; i < 4; ++i)
    out += W2[i] * h[i];
  return out * out;
}

// Explicit Euler integration of a damped oscillator; the loss is the final
// displacement squared plus the energy dissipated on the way.
[[fluxion::grad]] double oscillator(double k, double c, double x0, double v0,
                                    int steps) {
  double x = x0, v = v0, dt = 0.01, work = 0;
  for (int s = 0; s < steps; ++s) {
    double a = -k * x - c * v;
    work += c * v * v * dt;
    x = x + dt * v;
    v = v + dt * a;
  }
  return x * x + work;
}

// Huber loss of residuals of a line fit.
[[fluxion::grad("a", "b")]] double huber_fit(const double *t, const double *y,
                                             int n, double a, double b,
                                             double delta) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double r = a * t[i] + b - y[i];
    double ar = std::fabs(r);
    if (ar <= delta)
      s += 0.5 * r * r;
    else
      s += delta * (ar - 0.5 * delta);
  }
  return s;
}

// Piecewise-linear interpolation: the segment index comes from the data.
[[fluxion::grad]] double interp(const double *knots, int n, double t) {
  double pos = t * (n - 1);
  int i = (int)pos;
  if (i < 0)
    i = 0;
  if (i > n - 2)
    i = n - 2;
  double f = pos - i;
  return (1 - f) * knots[i] + f * knots[i + 1];
}

// Chebyshev polynomials by recursion, summed with coefficients.
double cheb(double x, int n) {
  if (n == 0)
    return 1;
  if (n == 1)
    return x;
  return 2 * x * cheb(x, n - 1) - cheb(x, n - 2);
}
[[fluxion::grad]] double cheb_series(const double *c, int n, double x) {
  double s = 0;
  for (int k = 0; k < n; ++k)
    s += c[k] * cheb(x, k);
  return s;
}

// Determinant of a 4x4 matrix by Gaussian elimination with partial pivoting
// on a local 2-D array.
[[fluxion::grad]] double det4(const double *A) {
  double m[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      m[i][j] = A[i * 4 + j];
  double det = 1;
  for (int col = 0; col < 4; ++col) {
    int piv = col;
    for (int r = col + 1; r < 4; ++r)
      if (std::fabs(m[r][col]) > std::fabs(m[piv][col]))
        piv = r;
    if (piv != col) {
      for (int j = 0; j < 4; ++j) {
        double tmp = m[col][j];
        m[col][j] = m[piv][j];
        m[piv][j] = tmp;
      }
      det = -det;
    }
    det *= m[col][col];
    for (int r = col + 1; r < 4; ++r) {
      double fac = m[r][col] / m[col][col];
      for (int j = col; j < 4; ++j)
        m[r][j] -= fac * m[col][j];
    }
  }
  return det;
}

} // namespace prop

using nt::ld;

namespace {
constexpr int kPoints = 200;
}

TEST(Property, LogisticRegression) {
  const int n = 6, d = 3;
  nt::Rng rng(101);
  std::vector<double> X = rng.vec<double>(n * d, -2, 2), y(n);
  for (auto &v : y)
    v = rng.uniform(0, 1) < 0.5 ? -1.0 : 1.0;
  for (int p = 0; p < kPoints; ++p) {
    std::vector<double> w = rng.vec<double>(d, -3, 3);
    nt::check_gradient<double>(
        [&](const double *v) {
          return prop::logreg_loss(v, X.data(), y.data(), n, d, 0.1);
        },
        [&](const double *v, double *dw) {
          return prop::logreg_loss_grad(v, X.data(), y.data(), n, d, 0.1, dw);
        },
        w);
  }
}

TEST(Property, Rosenbrock) {
  const int n = 5;
  nt::Rng rng(102);
  for (int p = 0; p < kPoints; ++p) {
    std::vector<double> x = rng.vec<double>(n, -2, 2);
    auto g = nt::check_gradient<double>(
        [&](const double *v) { return prop::rosenbrock(v, n); },
        [&](const double *v, double *dx) { return prop::rosenbrock_grad(v, n, dx); },
        x);
    // Closed form.
    for (int i = 0; i < n; ++i) {
      ld r = 0;
      if (i + 1 < n)
        r += -400 * (ld)x[i] * (x[i + 1] - (ld)x[i] * x[i]) - 2 * (1 - (ld)x[i]);
      if (i > 0)
        r += 200 * (x[i] - (ld)x[i - 1] * x[i - 1]);
      NT_EXPECT_CLOSE(g[i], r, 1e-12L, 1e-11L);
    }
  }
}

TEST(Property, GaussianNll) {
  const int n = 8;
  nt::Rng rng(103);
  std::vector<double> data = rng.vec<double>(n, -1, 3);
  for (int p = 0; p < kPoints; ++p) {
    std::vector<double> in = {static_cast<double>(rng.uniform(-2, 4)),
                              static_cast<double>(rng.uniform(-1, 1.5))};
    auto g = nt::check_gradient<double>(
        [&](const double *v) { return prop::gauss_nll(data.data(), n, v[0], v[1]); },
        [&](const double *v, double *d) {
          std::vector<double> ddata(n, 0); // the data gets a d_ too
          return prop::gauss_nll_grad(data.data(), n, v[0], v[1], ddata.data(),
                                      &d[0], &d[1]);
        },
        in);
    ld s2 = std::exp(2 * (ld)in[1]), sr = 0, sr2 = 0;
    for (double x : data) {
      sr += x - (ld)in[0];
      sr2 += (x - (ld)in[0]) * (x - (ld)in[0]);
    }
    NT_EXPECT_CLOSE(g[0], -sr / s2, 1e-12L, 1e-13L);
    NT_EXPECT_CLOSE(g[1], n - sr2 / s2, 1e-12L, 1e-13L);
  }
}

TEST(Property, SoftmaxCrossEntropy) {
  const int k = 5;
  nt::Rng rng(104);
  for (int p = 0; p < kPoints; ++p) {
    std::vector<double> z = rng.vec<double>(k, -4, 4);
    int label = rng.integer(0, k - 1);
    auto g = nt::check_gradient<double>(
        [&](const double *v) { return prop::softmax_xent(v, k, label); },
        [&](const double *v, double *d) {
          return prop::softmax_xent_grad(v, k, label, d);
        },
        z);
    ld s = 0;
    for (double v : z)
      s += std::exp((ld)v);
    for (int i = 0; i < k; ++i)
      NT_EXPECT_CLOSE(g[i], std::exp((ld)z[i]) / s - (i == label), 1e-12L, 1e-14L);
  }
}

TEST(Property, Mlp) {
  nt::Rng rng(105);
  for (int p = 0; p < kPoints; ++p) {
    // Flattened: x[3], W1[12], b1[4], W2[4], b2.
    std::vector<double> in = rng.vec<double>(24, -1, 1);
    nt::check_gradient<double>(
        [](const double *v) {
          double x[3], W1[12], b1[4], W2[4];
          std::copy(v, v + 3, x);
          std::copy(v + 3, v + 15, W1);
          std::copy(v + 15, v + 19, b1);
          std::copy(v + 19, v + 23, W2);
          return prop::mlp(x, W1, b1, W2, v[23]);
        },
        [](const double *v, double *d) {
          double x[3], W1[12], b1[4], W2[4];
          std::copy(v, v + 3, x);
          std::copy(v + 3, v + 15, W1);
          std::copy(v + 15, v + 19, b1);
          std::copy(v + 19, v + 23, W2);
          return prop::mlp_grad(x, W1, b1, W2, v[23], d, d + 3, d + 15, d + 19,
                                d + 23);
        },
        in);
  }
}

TEST(Property, EulerOscillator) {
  nt::Rng rng(106);
  for (int p = 0; p < kPoints; ++p) {
    std::vector<double> in = {static_cast<double>(rng.uniform(0.5, 20)),
                              static_cast<double>(rng.uniform(0, 2)),
                              static_cast<double>(rng.uniform(-1, 1)),
                              static_cast<double>(rng.uniform(-1, 1))};
    int steps = rng.integer(0, 300);
    nt::check_gradient<double>(
        [&](const double *v) { return prop::oscillator(v[0], v[1], v[2], v[3], steps); },
        [&](const double *v, double *d) {
          return prop::oscillator_grad(v[0], v[1], v[2], v[3], steps, &d[0],
                                       &d[1], &d[2], &d[3]);
        },
        in);
  }
  // Closed form with no steps: x0^2.
  double dk = 0, dc = 0, dx = 0, dv = 0;
  prop::oscillator_grad(1, 1, 0.75, 0.5, 0, &dk, &dc, &dx, &dv);
  NT_EXPECT_EXACT(double, dx, 1.5);
  NT_EXPECT_EXACT(double, dk + dc + dv, 0.0);
}

TEST(Property, HuberFit) {
  const int n = 10;
  nt::Rng rng(107);
  std::vector<double> t = rng.vec<double>(n, 0, 1), y(n);
  for (int i = 0; i < n; ++i)
    y[i] = 2 * t[i] - 1 + static_cast<double>(rng.uniform(-0.5, 0.5)) +
           (i % 4 == 0 ? 3.0 : 0.0); // outliers
  for (int p = 0; p < kPoints; ++p) {
    double a = rng.uniform(-1, 5), b = rng.uniform(-3, 2);
    auto g = nt::check_gradient<double>(
        [&](const double *v) { return prop::huber_fit(t.data(), y.data(), n, v[0], v[1], 0.8); },
        [&](const double *v, double *d) {
          return prop::huber_fit_grad(t.data(), y.data(), n, v[0], v[1], 0.8,
                                      &d[0], &d[1]);
        },
        {a, b});
    ld ga = 0, gb = 0;
    for (int i = 0; i < n; ++i) {
      ld r = (ld)a * t[i] + b - y[i];
      ld psi = std::fabs(r) <= 0.8L ? r : 0.8L * (r > 0 ? 1 : -1);
      ga += psi * t[i];
      gb += psi;
    }
    NT_EXPECT_CLOSE(g[0], ga, 1e-12L, 1e-13L);
    NT_EXPECT_CLOSE(g[1], gb, 1e-12L, 1e-13L);
  }
}

TEST(Property, PiecewiseLinearInterpolation) {
  const int n = 7;
  nt::Rng rng(108);
  for (int p = 0; p < kPoints; ++p) {
    std::vector<double> in = rng.vec<double>(n, -2, 2);
    in.push_back(rng.uniform(0.001, 0.999)); // t
    // Keep t away from the knots, where interp has kinks.
    double pos = in[n] * (n - 1);
    if (std::fabs(pos - std::round(pos)) < 1e-3)
      in[n] += 2e-3;
    auto g = nt::check_gradient<double>(
        [&](const double *v) { return prop::interp(v, n, v[n]); },
        [&](const double *v, double *d) { return prop::interp_grad(v, n, v[n], d, d + n); },
        in);
    int i = std::min((int)(in[n] * (n - 1)), n - 2);
    NT_EXPECT_CLOSE(g[n], (in[i + 1] - (ld)in[i]) * (n - 1), 1e-12L, 1e-13L);
  }
}

TEST(Property, RecursiveChebyshev) {
  const int n = 6;
  nt::Rng rng(109);
  for (int p = 0; p < kPoints; ++p) {
    std::vector<double> in = rng.vec<double>(n, -1, 1);
    in.push_back(rng.uniform(-0.99, 0.99));
    auto g = nt::check_gradient<double>(
        [&](const double *v) { return prop::cheb_series(v, n, v[n]); },
        [&](const double *v, double *d) {
          return prop::cheb_series_grad(v, n, v[n], d, d + n);
        },
        in);
    // T_k(cos t) = cos(k t), T_k'(x) = k sin(k t) / sin t.
    ld th = std::acos((ld)in[n]), dx = 0;
    for (int k = 0; k < n; ++k) {
      NT_EXPECT_CLOSE(g[k], std::cos(k * th), 1e-12L, 1e-13L);
      dx += in[k] * k * std::sin(k * th) / std::sin(th);
    }
    NT_EXPECT_CLOSE(g[n], dx, 1e-10L, 1e-12L);
  }
}

TEST(Property, DeterminantWithPivoting) {
  nt::Rng rng(110);
  for (int p = 0; p < kPoints; ++p) {
    std::vector<double> A = rng.vec<double>(16, -2, 2);
    auto g = nt::check_gradient<double>(
        [](const double *v) { return prop::det4(v); },
        [](const double *v, double *d) { return prop::det4_grad(v, d); }, A);
    // Jacobi's formula: d det / d A_ij = cofactor C_ij; check the row
    // expansion sum_j A_ij C_ij = det for every row.
    ld det = prop::det4(A.data());
    for (int i = 0; i < 4; ++i) {
      ld s = 0;
      for (int j = 0; j < 4; ++j)
        s += A[i * 4 + j] * g[i * 4 + j];
      NT_EXPECT_CLOSE(s, det, 1e-10L, 1e-12L);
    }
  }
}
