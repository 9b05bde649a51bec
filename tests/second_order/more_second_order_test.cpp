// More second-order and forward-mode checks: the second derivative of every
// unary <cmath> function with a derivative rule (against a second central
// difference of the primal), Hessians of binary <cmath> functions (against
// central differences of f_grad, which is checked against differences of f),
// f_hvp through helpers, recursion, while(true)/break, early return and
// switch fall-through, float and long double f_hvp on pointers, f_jvp of an
// in-place update, stop_gradient in f_jvp/f_hessian, local arrays, and a
// Jacobian with pass-through parameters between differentiable ones.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>
#include <vector>

namespace {
using Vec = std::vector<double>;
}
namespace pr {
// One-argument <cmath> functions, each with a Hessian (a 1x1 matrix).
// clang-format off
#define M1(fn)                                                                 \
  [[fluxion::hessian]] [[fluxion::jvp]] double m_##fn(double x) {              \
    return std::fn(x);                                                         \
  }
M1(sin)
M1(cos)
M1(tan)
M1(exp)
M1(log)
M1(sqrt)
M1(tanh)
M1(atan)
M1(asin)
M1(acos)
M1(sinh)
M1(cosh)
M1(log1p)
M1(expm1)
M1(cbrt)
M1(erf)
M1(erfc)
M1(log2)
M1(log10)
M1(exp2)
M1(asinh)
M1(acosh)
M1(atanh)
M1(fabs)
#undef M1
// clang-format on

// Two-argument <cmath> functions.
[[fluxion::hessian]] [[fluxion::jvp]] double m_pow(double x, double y) {
  return std::pow(x, y);
}
[[fluxion::hessian]] [[fluxion::jvp]] double m_atan2(double x, double y) {
  return std::atan2(x, y);
}
[[fluxion::hessian]] [[fluxion::jvp]] double m_hypot(double x, double y) {
  return std::hypot(x, y);
}

// std::fmin / std::fmax: see nonfloat_callee_test.cpp (not built by default).
[[fluxion::hessian]] [[fluxion::jvp]] double m_fma(double x, double y) {
  return std::fma(x, y, x * x);
}
static double rp(double x, int k) { return k == 0 ? 1.0 : x * rp(x, k - 1); }
static double lp(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    if (x[i] < -0.9)
      break;
    s += x[i] * x[i] * x[i];
  }
  return s;
}
static void wr(double a, double *o) { *o = a * a * a; }
[[fluxion::hessian]] double h_flow(const double *x, int n, int mode) {
  double s = rp(x[0], 4) + lp(x, n);
  double o;
  wr(x[1], &o);
  s += o * x[2];
  int i = 0;
  while (true) {
    if (i >= n)
      break;
    s += std::sin(x[i]) * x[(i + 1) % n];
    ++i;
    if (i > 5)
      return s * s;
  }
  switch (mode) {
  case 0:
    s *= x[0];
  case 1:
    s += x[1] * x[1] * x[1];
    break;
  default:
    s = std::exp(0.1 * s);
  }
  return s;
}
[[fluxion::hessian]] float hf(const float *x, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i] * std::sin(x[i]);
  return s;
}
[[fluxion::hessian]] long double hl(const long double *x, int n) {
  long double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i] * std::sin(x[i]);
  return s;
}
[[fluxion::grad]] [[fluxion::jvp]] void inplace(double *x, int n, double w) {
  for (int i = 0; i < n; ++i)
    x[i] = w * x[i] * x[i];
}
[[fluxion::grad]] [[fluxion::jvp]] double sg(double x, double y) {
  return x * fluxion::stop_gradient(x * y) + y;
}
[[fluxion::hessian]] double sg2(double x, double y) {
  return x * x * fluxion::stop_gradient(x * y) + y * y * x;
}
[[fluxion::jvp]] [[fluxion::grad]] double localarr(const double *x, int n) {
  double b[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; ++i) {
    b[i % 4] = b[i % 4] * x[i] + x[i];
  }
  return b[0] * b[1] + b[2] * b[3];
}
[[fluxion::jacobian]] void jint(const double x[3], int k, double y[2],
                                double s) {
  y[0] = x[0] * x[1] * k + s;
  y[1] = std::sin(x[2]) * s;
}
// A local array handed to a callee: its adjoint array is an output of the
// callee's pullback, whose tangent f_hessian must carry too.
static double weigh(double s, const double *w) {
  for (int i = 0; i < 3; ++i)
    s = s * w[i] + std::sin(s * w[3 - i]);
  return s;
}
[[fluxion::hessian]] [[fluxion::grad]] double localToCallee(double x,
                                                           double y) {
  double w[4] = {x, y, x * y, 1.5};
  return weigh(x + y, w) * y;
}
// A local array updated in a counted loop and read only by a const-pointer
// callee: the gradient saves its range at the call (first order only);
// f_hessian records it at its writes, and both must agree.
static double sumsq3(int n, const double *v) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return s;
}
#define UPDATED_THEN_READ_BODY                                                 \
  double xc[3] = {x, y, x * y};                                                \
  double q[3];                                                                 \
  double s = 0;                                                                \
  for (int t = 0; t < 2; ++t) {                                                \
    for (int i = 0; i < 3; ++i)                                                \
      q[i] = xc[i] * (t + 1);                                                  \
    for (int i = 0; i < 3; ++i)                                                \
      for (int j = i + 1; j < 3; ++j)                                          \
        q[j] += std::sin(xc[i]) * 0.5;                                         \
    s += sumsq3(3, q);                                                         \
  }                                                                            \
  return s;
[[fluxion::hessian]] [[fluxion::grad]] double updatedThenRead(double x,
                                                             double y) {
  UPDATED_THEN_READ_BODY
}
// The same inside a callee: f_hessian differentiates the callee's pair,
// whose saved ranges carry their tangents.
static double updatedThenReadHelper(double x, double y) {
  UPDATED_THEN_READ_BODY
}
[[fluxion::grad]] double callsUpdatedThenRead(double x, double y) {
  return updatedThenReadHelper(x, y) * x;
}
[[fluxion::hessian]] double callsUpdatedThenReadH(double x, double y) {
  return updatedThenReadHelper(x, y) * x;
}
} // namespace pr
/// The 2x2 Hessian of f(x, y) from hess, against central differences of
/// the gradient from grad, at two points.
void expectHessianIsFDOfGradient(void (*hess)(double, double, double *),
                                 double (*grad)(double, double, double *,
                                                double *)) {
  for (Vec x : {Vec{0.6, -0.4}, Vec{-0.3, 0.8}}) {
    double H[4];
    hess(x[0], x[1], H);
    for (int j = 0; j < 2; ++j) {
      auto g = [j, grad](const Vec &v) {
        double d[2] = {0, 0};
        grad(v[0], v[1], &d[0], &d[1]);
        return d[j];
      };
      for (int i = 0; i < 2; ++i)
        EXPECT_TRUE(so::close(H[j * 2 + i], so::fd_dir(g, x, so::unit(2, i)),
                              1e-6))
            << "H[" << j << "][" << i << "]";
    }
  }
}
TEST(SecondDerivatives, RangeSavedInACalleeCarriesTangents) {
  expectHessianIsFDOfGradient(pr::callsUpdatedThenReadH_hessian,
                              pr::callsUpdatedThenRead_grad);
}
TEST(SecondDerivatives, RangeSavedAtCallInFirstOrderOnly) {
  expectHessianIsFDOfGradient(pr::updatedThenRead_hessian,
                              pr::updatedThenRead_grad);
}
TEST(SecondDerivatives, LocalArrayPassedToACallee) {
  expectHessianIsFDOfGradient(pr::localToCallee_hessian,
                              pr::localToCallee_grad);
}
TEST(SecondDerivatives, UnaryCmathAgainstSecondDifference) {
  struct {
    const char *n;
    double (*f)(double);
    void (*h)(double, double *);
    double lo, hi;
  } T[] = {
// clang-format off
#define E(fn, lo, hi) {#fn, pr::m_##fn, pr::m_##fn##_hessian, lo, hi},
      E(sin, -2, 2)
      E(cos, -2, 2)
      E(tan, -1, 1)
      E(exp, -2, 2)
      E(log, 0.2, 3)
      E(sqrt, 0.2, 3)
      E(tanh, -2, 2)
      E(atan, -2, 2)
      E(asin, -.8, .8)
      E(acos, -.8, .8)
      E(sinh, -2, 2)
      E(cosh, -2, 2)
      E(log1p, -.5, 2)
      E(expm1, -2, 2)
      E(cbrt, 0.2, 3)
      E(erf, -2, 2)
      E(erfc, -2, 2)
      E(log2, 0.2, 3)
      E(log10, 0.2, 3)
      E(exp2, -2, 2)
      E(asinh, -2, 2)
      E(acosh, 1.2, 3)
      E(atanh, -.8, .8)
      E(fabs, 0.2, 2)
#undef E
  };
  // clang-format on
  so::Rng r(1);
  for (auto &t : T)
    for (int k = 0; k < 5; ++k) {
      double x = r.uniform(t.lo, t.hi), H;
      t.h(x, &H);
      double h = 1e-4;
      double fd = (t.f(x + h) - 2 * t.f(x) + t.f(x - h)) / (h * h);
      EXPECT_TRUE(so::close(H, fd, 1e-5)) << t.n << " x=" << x;
    }
}
TEST(SecondDerivatives, BinaryCmathAgainstFDOfGradient) {
  struct {
    const char *n;
    double (*f)(double, double);
    void (*h)(double, double, double *);
    double (*g)(double, double, double *, double *);
  } T[] = {
#define E2(fn) {#fn, pr::m_##fn, pr::m_##fn##_hessian, pr::m_##fn##_grad},
      E2(pow) E2(atan2) E2(hypot) E2(fma)
#undef E2
  };
  so::Rng r(2);
  for (auto &t : T)
    for (int k = 0; k < 5; ++k) {
      Vec x = {r.uniform(0.3, 2), r.uniform(0.3, 2)};
      double H[4];
      t.h(x[0], x[1], H);
      auto g = [&](const Vec &p) {
        Vec d(2, 0.0);
        t.g(p[0], p[1], &d[0], &d[1]);
        return d;
      };
      for (int j = 0; j < 2; ++j) {
        Vec c = so::fd_vec_dir(g, x, so::unit(2, j));
        for (int i = 0; i < 2; ++i)
          EXPECT_TRUE(so::close(H[i * 2 + j], c[i], 1e-6))
              << t.n << " " << i << j;
      }
      double gx = 0, gy = 0;
      t.g(x[0], x[1], &gx, &gy);
      double h = 1e-6;
      EXPECT_TRUE(so::close(
          gx, (t.f(x[0] + h, x[1]) - t.f(x[0] - h, x[1])) / (2 * h), 1e-7))
          << t.n;
      EXPECT_TRUE(so::close(
          gy, (t.f(x[0], x[1] + h) - t.f(x[0], x[1] - h)) / (2 * h), 1e-7))
          << t.n;
    }
}
TEST(SecondDerivatives, HvpThroughHelpersRecursionAndControlFlow) {
  so::Rng r(3);
  for (int mode = 0; mode < 3; ++mode)
    for (int n : {3, 5, 8}) {
      Vec x = r.vec(n, -1, 1), v = r.vec(n, -1, 1), hv(n, 0.0);
      pr::h_flow_hvp(x.data(), n, mode, v.data(), hv.data());
      auto g = [&](const Vec &p) {
        Vec d(n, 0.0);
        pr::h_flow_grad(p.data(), n, mode, d.data());
        return d;
      };
      Vec ref = so::fd_vec_dir(g, x, v);
      for (int i = 0; i < n; ++i)
        EXPECT_TRUE(so::close(hv[i], ref[i], 1e-6))
            << mode << " " << n << " " << i;
      Vec gr = g(x);
      for (int j = 0; j < n; ++j)
        EXPECT_TRUE(so::close(
            gr[j],
            so::fd_dir(
                [&](const Vec &p) { return pr::h_flow(p.data(), n, mode); }, x,
                so::unit(n, j)),
            1e-6))
            << "grad " << mode << n << j;
    }
}
TEST(SecondDerivatives, FloatAndLongDoubleHvpOnPointers) {
  float x[3] = {0.3f, -0.7f, 1.1f}, v[3] = {1, 2, -1}, hv[3] = {};
  pr::hf_hvp(x, 3, v, hv);
  long double X[3] = {0.3L, -0.7L, 1.1L}, V[3] = {1, 2, -1}, HV[3] = {};
  pr::hl_hvp(X, 3, V, HV);
  for (int i = 0; i < 3; ++i) {
    long double a = X[i];
    long double f2 =
        2 * std::sin(a) + 4 * a * std::cos(a) - a * a * std::sin(a);
    EXPECT_TRUE(so::close(HV[i], f2 * V[i], 1e-16L));
    EXPECT_TRUE(so::close(hv[i], f2 * V[i], 1e-5));
  }
}
TEST(ForwardMode, InPlaceUpdateTangentInAndOut) {
  double x[3] = {0.5, -1, 2}, t[3] = {1, 0.5, -1};
  double x0[3] = {0.5, -1, 2};
  pr::inplace_jvp(x, 3, 1.5, t, 0.25);
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(x[i], 1.5 * x0[i] * x0[i]);
    double tin[3] = {1, 0.5, -1};
    EXPECT_TRUE(
        so::close(t[i], 2 * 1.5 * x0[i] * tin[i] + 0.25 * x0[i] * x0[i], 1e-14))
        << i << " " << t[i];
  }
}
TEST(ForwardMode, StopGradientInJvpAndHessian) {
  EXPECT_TRUE(so::close(pr::sg_jvp(0.5, 2.0, 1.0, 0.0), 0.5 * 2.0, 1e-15));
  EXPECT_TRUE(so::close(pr::sg_jvp(0.5, 2.0, 0.0, 1.0), 1.0, 1e-15));
  double H[4];
  pr::sg2_hessian(0.5, 2.0, H); // f = x^2 c + y^2 x ; c = xy const
  EXPECT_TRUE(so::close(H[0], 2 * 1.0, 1e-15));
  EXPECT_TRUE(so::close(H[1], 2 * 2.0, 1e-15));
  EXPECT_TRUE(so::close(H[3], 2 * 0.5, 1e-15));
}
TEST(ForwardMode, LocalArrayAgainstGradientAndFD) {
  so::Rng r(5);
  Vec x = r.vec(9, -1, 1), t = r.vec(9, -1, 1), g(9, 0.0);
  pr::localarr_grad(x.data(), 9, g.data());
  EXPECT_TRUE(so::close(pr::localarr_jvp(x.data(), 9, t.data()),
                        so::dot(g.data(), t.data(), 9), 1e-13));
  EXPECT_TRUE(so::close(
      pr::localarr_jvp(x.data(), 9, t.data()),
      so::fd_dir([](const Vec &p) { return pr::localarr(p.data(), 9); }, x, t),
      1e-7));
}
TEST(Jacobian2, PassThroughIntBetweenInputsClosedForm) {
  double x[3] = {0.3, 0.7, 1.1}, y[2], J[8];
  pr::jint_jacobian(x, 3, y, 0.5, J);
  double ref[8] = {0.7 * 3,      0.3 * 3, 0, 1, 0, 0, std::cos(1.1) * 0.5,
                   std::sin(1.1)};
  for (int i = 0; i < 8; ++i)
    EXPECT_TRUE(so::close(J[i], ref[i], 1e-14)) << i;
}
