// f_hessian and f_hvp: against closed-form second derivatives, against
// central differences of f_grad (checked first against closed-form
// gradients where they exist), against H.v, and the "adds into hv" rule.
// Also pointer-parameter functions with a runtime length, for which only
// f_hvp exists: compared with finite differences of the gradient along v.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>
#include <vector>

namespace hs {

// Scalars.
[[fluxion::hessian]] double two(double x, double y) {
  return x * x * y + std::sin(y) + std::exp(x * y);
}

// A fixed-size array.
[[fluxion::hessian]] double arr3(const double x[3]) {
  return x[0] * x[0] * x[1] + x[1] * x[2] * x[2] * x[2] +
         std::log(1 + x[0] * x[0]);
}

// A scalar, a fixed-size array and a pass-through integer; flattened order
// is (a, x[0], x[1]).
[[fluxion::hessian]] double mixed(double a, const double x[2], int k) {
  return a * (x[0] * x[0] + x[1] * x[1]) * k + std::sin(a * x[0]);
}

// Control flow, overwrites, a helper with a body, <cmath>.
static double hc_helper(double u, double v) { return u * std::cos(v) + u * u; }
[[fluxion::hessian]] double flow(const double x[4], int mode) {
  double s = 0;
  for (int i = 0; i < 4; ++i) {
    double t = x[i];
    if (t > 0)
      t = t * t * x[(i + 1) % 4];
    else
      t = std::exp(t) * x[(i + 2) % 4];
    s += hc_helper(t, x[(i + 3) % 4]);
    if (i == 2 && mode == 1)
      break;
  }
  switch (mode) {
  case 0:
    s = s * s / 10;
    break;
  default:
    s += std::tanh(x[0] * x[3]);
  }
  return s;
}

// float and long double.
[[fluxion::hessian]] float flt(float x, float y) {
  return x * x * x * y + std::cos(x * y);
}
[[fluxion::hessian]] long double ldb(long double x, long double y) {
  return x * x * x * y + std::cos(x * y);
}

// Runtime-length pointer parameters: only f_hvp (and f_grad) exist.
// Extended Rosenbrock (chained form).
[[fluxion::hessian]] double rosen(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; ++i) {
    double a = x[i + 1] - x[i] * x[i];
    double b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}

// A pointer, a scalar and control flow.
[[fluxion::hessian]] double ptr_mixed(const double *x, double s, int n) {
  double r = 0;
  for (int i = 0; i < n; ++i) {
    if (x[i] > 0.5)
      continue;
    r += std::sin(s * x[i]) * x[i] + std::exp(0.3 * x[i] * s);
  }
  return r * s + r * r / 8;
}

} // namespace hs

namespace {

using so::Rng;
using Vec = std::vector<double>;

// Dense Hessian from central differences of a gradient g(Vec) -> Vec.
template <class G> Vec fdHessian(G g, const Vec &x, double h = 1e-5) {
  std::size_t n = x.size();
  Vec H(n * n);
  for (std::size_t j = 0; j < n; ++j) {
    Vec col = so::fd_vec_dir(g, x, so::unit(n, j), h);
    for (std::size_t i = 0; i < n; ++i)
      H[i * n + j] = col[i];
  }
  return H;
}

void expectMatrixClose(const Vec &A, const Vec &B, double tol) {
  ASSERT_EQ(A.size(), B.size());
  for (std::size_t i = 0; i < A.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "entry " << i);
    SO_EXPECT_CLOSE(A[i], B[i], tol);
  }
}

Vec matVec(const Vec &H, const Vec &v) {
  std::size_t n = v.size();
  Vec r(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      r[i] += H[i * n + j] * v[j];
  return r;
}

// --- closed-form Hessians ---------------------------------------------------

Vec twoH(double x, double y) {
  double e = std::exp(x * y);
  double xy = 2 * x + e + x * y * e;
  return {2 * y + y * y * e, xy, xy, -std::sin(y) + x * x * e};
}
Vec arr3H(const double *x) {
  double q = 1 + x[0] * x[0];
  double h00 = 2 * x[1] + 2 * (1 - x[0] * x[0]) / (q * q);
  double h01 = 2 * x[0], h12 = 3 * x[2] * x[2], h22 = 6 * x[1] * x[2];
  return {h00, h01, 0, h01, 0, h12, 0, h12, h22};
}
Vec mixedH(double a, const double *x, int k) {
  double s = std::sin(a * x[0]), c = std::cos(a * x[0]);
  double haa = -x[0] * x[0] * s;
  double ha0 = 2 * k * x[0] + c - a * x[0] * s;
  double ha1 = 2 * k * x[1];
  double h00 = 2 * k * a - a * a * s, h11 = 2.0 * k * a;
  return {haa, ha0, ha1, ha0, h00, 0, ha1, 0, h11};
}

TEST(Hessian, ScalarsAgainstClosedForm) {
  Rng rng(101);
  for (int t = 0; t < 20; ++t) {
    double x = rng.uniform(-1.5, 1.5), y = rng.uniform(-1.5, 1.5);
    Vec H(4, -7.0); // f_hessian writes every entry
    hs::two_hessian(x, y, H.data());
    expectMatrixClose(H, twoH(x, y), 1e-12);
  }
}

TEST(Hessian, FixedArrayAgainstClosedForm) {
  Rng rng(102);
  for (int t = 0; t < 20; ++t) {
    Vec x = rng.vec(3, -1.5, 1.5), H(9, -7.0);
    hs::arr3_hessian(x.data(), H.data());
    expectMatrixClose(H, arr3H(x.data()), 1e-12);
  }
}

TEST(Hessian, MixedScalarArrayIntAgainstClosedForm) {
  Rng rng(103);
  for (int k = 1; k <= 3; ++k)
    for (int t = 0; t < 10; ++t) {
      double a = rng.uniform(-1.5, 1.5);
      Vec x = rng.vec(2, -1.5, 1.5), H(9, -7.0);
      hs::mixed_hessian(a, x.data(), k, H.data());
      expectMatrixClose(H, mixedH(a, x.data(), k), 1e-12);
    }
}

TEST(Hessian, GradientsAgainstClosedForm) {
  // Validates the gradients that the finite-difference references use.
  Rng rng(104);
  for (int t = 0; t < 10; ++t) {
    double x = rng.uniform(-1.5, 1.5), y = rng.uniform(-1.5, 1.5);
    double gx = 0, gy = 0;
    hs::two_grad(x, y, &gx, &gy);
    double e = std::exp(x * y);
    SO_EXPECT_CLOSE(gx, 2 * x * y + y * e, 1e-13);
    SO_EXPECT_CLOSE(gy, x * x + std::cos(y) + x * e, 1e-13);
  }
}

TEST(Hessian, ControlFlowAgainstFiniteDifferencesOfGradient) {
  Rng rng(105);
  for (int mode = 0; mode < 2; ++mode)
    for (int t = 0; t < 15; ++t) {
      SCOPED_TRACE(::testing::Message() << "mode " << mode << " trial " << t);
      Vec x = rng.vec(4, -1.2, 1.2), H(16, -7.0);
      hs::flow_hessian(x.data(), mode, H.data());
      auto g = [mode](const Vec &p) {
        Vec d(4, 0.0);
        hs::flow_grad(p.data(), mode, d.data());
        return d;
      };
      expectMatrixClose(H, fdHessian(g, x), 1e-6);
      for (int i = 0; i < 4; ++i) // symmetric
        for (int j = 0; j < i; ++j)
          SO_EXPECT_CLOSE(H[i * 4 + j], H[j * 4 + i], 1e-12);
      // The gradient itself against central differences of f.
      Vec gr = g(x);
      for (int j = 0; j < 4; ++j)
        SO_EXPECT_CLOSE(gr[j],
                        so::fd_dir([mode](const Vec &p) {
                          return hs::flow(p.data(), mode);
                        }, x, so::unit(4, j)),
                        1e-6);
    }
}

TEST(Hessian, FloatAndLongDouble) {
  Rng rng(106);
  for (int t = 0; t < 20; ++t) {
    double x = rng.uniform(-1.5, 1.5), y = rng.uniform(-1.5, 1.5);
    // f = x^3 y + cos(xy)
    double c = std::cos(x * y), s = std::sin(x * y);
    double hxx = 6 * x * y - y * y * c;
    double hxy = 3 * x * x - s - x * y * c;
    double hyy = -x * x * c;
    float Hf[4];
    hs::flt_hessian(float(x), float(y), Hf);
    SO_EXPECT_CLOSE(Hf[0], hxx, 1e-4);
    SO_EXPECT_CLOSE(Hf[1], hxy, 1e-4);
    SO_EXPECT_CLOSE(Hf[2], hxy, 1e-4);
    SO_EXPECT_CLOSE(Hf[3], hyy, 1e-4);
    long double Hl[4];
    long double X = x, Y = y;
    hs::ldb_hessian(X, Y, Hl);
    long double C = std::cos(X * Y), S = std::sin(X * Y);
    SO_EXPECT_CLOSE(Hl[0], 6 * X * Y - Y * Y * C, 1e-16L);
    SO_EXPECT_CLOSE(Hl[1], 3 * X * X - S - X * Y * C, 1e-16L);
    SO_EXPECT_CLOSE(Hl[2], 3 * X * X - S - X * Y * C, 1e-16L);
    SO_EXPECT_CLOSE(Hl[3], -X * X * C, 1e-16L);
  }
}

// --- f_hvp ------------------------------------------------------------------

TEST(Hvp, ScalarsMatchClosedFormTimesV) {
  Rng rng(111);
  for (int t = 0; t < 20; ++t) {
    double x = rng.uniform(-1.5, 1.5), y = rng.uniform(-1.5, 1.5);
    Vec v = rng.vec(2, -1, 1);
    double hx = 0, hy = 0;
    hs::two_hvp(x, y, v[0], v[1], &hx, &hy);
    Vec ref = matVec(twoH(x, y), v);
    SO_EXPECT_CLOSE(hx, ref[0], 1e-12);
    SO_EXPECT_CLOSE(hy, ref[1], 1e-12);
  }
}

TEST(Hvp, MatchesDenseHessianTimesV) {
  Rng rng(112);
  for (int t = 0; t < 20; ++t) {
    Vec x = rng.vec(3, -1.5, 1.5), v = rng.vec(3, -1, 1), H(9), hv(3, 0.0);
    hs::arr3_hessian(x.data(), H.data());
    hs::arr3_hvp(x.data(), v.data(), hv.data());
    expectMatrixClose(hv, matVec(H, v), 1e-12);
    expectMatrixClose(hv, matVec(arr3H(x.data()), v), 1e-12);

    double a = rng.uniform(-1, 1);
    Vec y = rng.vec(2, -1, 1), w = rng.vec(3, -1, 1), Hm(9);
    double hva = 0;
    Vec hvy(2, 0.0);
    hs::mixed_hessian(a, y.data(), 2, Hm.data());
    hs::mixed_hvp(a, y.data(), 2, w[0], w.data() + 1, &hva, hvy.data());
    Vec ref = matVec(Hm, w);
    SO_EXPECT_CLOSE(hva, ref[0], 1e-12);
    SO_EXPECT_CLOSE(hvy[0], ref[1], 1e-12);
    SO_EXPECT_CLOSE(hvy[1], ref[2], 1e-12);

    for (int mode = 0; mode < 2; ++mode) {
      Vec z = rng.vec(4, -1.2, 1.2), u = rng.vec(4, -1, 1), Hf(16),
          hvz(4, 0.0);
      hs::flow_hessian(z.data(), mode, Hf.data());
      hs::flow_hvp(z.data(), mode, u.data(), hvz.data());
      expectMatrixClose(hvz, matVec(Hf, u), 1e-11);
    }
  }
}

TEST(Hvp, AddsIntoHv) {
  Rng rng(113);
  Vec x = rng.vec(3, -1, 1), v = rng.vec(3, -1, 1);
  Vec hv0 = {1.5, -2.25, 3.0}, hv = hv0;
  hs::arr3_hvp(x.data(), v.data(), hv.data());
  Vec ref = matVec(arr3H(x.data()), v);
  for (int i = 0; i < 3; ++i)
    SO_EXPECT_CLOSE(hv[i], hv0[i] + ref[i], 1e-12);
  // Twice: aggregates.
  hs::arr3_hvp(x.data(), v.data(), hv.data());
  for (int i = 0; i < 3; ++i)
    SO_EXPECT_CLOSE(hv[i], hv0[i] + 2 * ref[i], 1e-12);

  double hx = 10, hy = -10;
  hs::two_hvp(0.3, 0.7, 1.0, 0.0, &hx, &hy);
  Vec H2 = twoH(0.3, 0.7);
  SO_EXPECT_CLOSE(hx, 10 + H2[0], 1e-12);
  SO_EXPECT_CLOSE(hy, -10 + H2[2], 1e-12);

  Vec r = {0.5, -0.3, 1.1, 0.9}, rv = {1, 2, 3, 4}, rh = {1, 1, 1, 1};
  hs::rosen_hvp(r.data(), 4, rv.data(), rh.data());
  Vec rh2(4, 0.0);
  hs::rosen_hvp(r.data(), 4, rv.data(), rh2.data());
  for (int i = 0; i < 4; ++i)
    SO_EXPECT_CLOSE(rh[i], 1 + rh2[i], 1e-12);
}

// Closed-form Hessian-vector product of the chained Rosenbrock function.
Vec rosenHv(const Vec &x, const Vec &v) {
  std::size_t n = x.size();
  Vec r(n, 0.0);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    // term 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2
    double hii = 1200 * x[i] * x[i] - 400 * x[i + 1] + 2;
    double hij = -400 * x[i];
    double hjj = 200;
    r[i] += hii * v[i] + hij * v[i + 1];
    r[i + 1] += hij * v[i] + hjj * v[i + 1];
  }
  return r;
}

TEST(Hvp, RuntimeLengthPointerRosenbrock) {
  Rng rng(114);
  for (int n : {2, 3, 10, 57}) {
    for (int t = 0; t < 5; ++t) {
      Vec x = rng.vec(n, -1.5, 1.5), v = rng.vec(n, -1, 1), hv(n, 0.0);
      hs::rosen_hvp(x.data(), n, v.data(), hv.data());
      expectMatrixClose(hv, rosenHv(x, v), 1e-12);
      auto g = [n](const Vec &p) {
        Vec d(n, 0.0);
        hs::rosen_grad(p.data(), n, d.data());
        return d;
      };
      expectMatrixClose(hv, so::fd_vec_dir(g, x, v), 1e-7);
    }
  }
}

TEST(Hvp, RuntimeLengthPointerWithScalarAndControlFlow) {
  Rng rng(115);
  for (int n : {1, 4, 9}) {
    for (int t = 0; t < 8; ++t) {
      // packed = (x[0..n), s)
      Vec p = rng.vec(n + 1, -1, 1), v = rng.vec(n + 1, -1, 1);
      Vec hvx(n, 0.0);
      double hvs = 0;
      hs::ptr_mixed_hvp(p.data(), p[n], n, v.data(), v[n], hvx.data(), &hvs);
      auto g = [n](const Vec &q) {
        Vec d(n + 1, 0.0);
        hs::ptr_mixed_grad(q.data(), q[n], n, d.data(), &d[n]);
        return d;
      };
      Vec ref = so::fd_vec_dir(g, p, v);
      for (int i = 0; i < n; ++i)
        SO_EXPECT_CLOSE(hvx[i], ref[i], 1e-7);
      SO_EXPECT_CLOSE(hvs, ref[n], 1e-7);
      // And the gradient against central differences of f.
      Vec gr = g(p);
      for (int j = 0; j <= n; ++j)
        SO_EXPECT_CLOSE(gr[j],
                        so::fd_dir([n](const Vec &q) {
                          return hs::ptr_mixed(q.data(), q[n], n);
                        }, p, so::unit(n + 1, j)),
                        1e-7);
    }
  }
}

} // namespace
