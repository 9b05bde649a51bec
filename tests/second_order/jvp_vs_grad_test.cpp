// Forward mode against reverse mode: for random points x and tangents t,
// f_jvp(x, t) must equal dot(grad f(x), t), and both must match a central
// finite difference of the primal along t (the independent reference).
// The functions cover expressions, overwrites, all control flow, arrays and
// pointers, output arrays, calls to helpers with bodies, recursion, <cmath>,
// float and long double.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>
#include <vector>

namespace fr {

// --- 1. expressions -----------------------------------------------------
[[fluxion::grad]] [[fluxion::jvp]] double expr(double x, double y, double z) {
  return x * y / (1 + z * z) - 3 * x + y * y * y - (x - z) / (y * y + 2) + -z +
         (x > y ? x * z : y * z);
}

// --- 2. overwritten variables and parameters ----------------------------
[[fluxion::grad]] [[fluxion::jvp]] double overwrite(double x, double y) {
  double t = x;
  t = t * y;
  t += x;
  t *= t;
  x = x * 2 + y;
  y -= t * 0.1;
  double u = x;
  u /= (1 + y * y);
  u = u * u - x;
  return t + x + u * y;
}

// --- 3. if / else if / else and switch with fall-through and default ----
[[fluxion::grad]] [[fluxion::jvp]] double branches(double x, double y,
                                                   int mode) {
  double r;
  if (x > y)
    r = x * x - y;
  else if (x > 0)
    r = std::sin(x) * y;
  else
    r = x * y * y;
  switch (mode) {
  case 0:
    r *= x;
    break;
  case 1:
    r += y * y;
    // fall through
  case 2:
    r = r * r + x;
    break;
  default:
    r -= x * y;
  }
  return r;
}

// --- 4. for / while / do loops with break and continue -------------------
[[fluxion::grad]] [[fluxion::jvp]] double loops(const double *x, int n,
                                                double w) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    if (x[i] < -0.5)
      continue;
    s += w * x[i] * x[i];
    if (s > 40)
      break;
  }
  int k = 0;
  double p = 1;
  while (k < n) {
    p *= 1 + 0.1 * x[k];
    ++k;
    if (k == 3)
      continue;
    p += 0.01 * w;
  }
  int j = 0;
  do {
    s += p * x[j] / (1 + w * w);
    j += 2;
  } while (j < n);
  return s + p;
}

// --- 5. early return from inside a loop ---------------------------------
[[fluxion::grad]] [[fluxion::jvp]] double early(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += x[i] * x[i] * (i + 1);
    if (x[i] > 0.8)
      return s * x[i];
  }
  if (s < 1)
    return s * s;
  return std::sqrt(s);
}

// --- 6. pointers, fixed-size arrays, local arrays, nested loops ----------
[[fluxion::grad]] [[fluxion::jvp]] double quad(const double *A, const double *x,
                                               const double w[3], int n) {
  double buf[3];
  for (int k = 0; k < 3; ++k)
    buf[k] = w[k] * w[k];
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      s += x[i] * A[i * n + j] * x[j] * buf[(i + j) % 3];
  return s;
}

// --- 7. output arrays (void) --------------------------------------------
[[fluxion::grad]] [[fluxion::jvp]] void outs(const double *x, double *y, int n,
                                             double s) {
  y[0] = s * x[0];
  for (int i = 1; i < n; ++i)
    y[i] = y[i - 1] * std::cos(x[i]) + s * x[i] * x[i];
}

// --- 8. a result and an output array -------------------------------------
[[fluxion::grad]] [[fluxion::jvp]] double ret_out(const double *x, double *y,
                                                  int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  for (int i = 0; i < n; ++i)
    y[i] = x[i] / (1 + s);
  return std::log(1 + s);
}

// --- 9. calls to helpers with bodies --------------------------------------
static double h_mul(double a, double b) { return a * b + std::sin(a); }
static double h_two(double a, double b) {
  double t = h_mul(a, b);
  t *= h_mul(b, 0.5);
  return t;
}
static double h_sum(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += h_mul(x[i], x[i]);
  return s;
}
[[fluxion::grad]] [[fluxion::jvp]] double calls(const double *x, int n,
                                                double a) {
  double r = h_sum(x, n);
  r += h_two(a, x[0]);
  for (int i = 0; i < n; ++i)
    r += h_two(x[i], a);
  return r;
}

// --- 10. recursion --------------------------------------------------------
static double rpow(double x, int k) {
  if (k == 0)
    return 1;
  if (k % 2 == 0) {
    double h = rpow(x, k / 2);
    return h * h;
  }
  return x * rpow(x, k - 1);
}
[[fluxion::grad]] [[fluxion::jvp]] double nest(double x, int depth) {
  if (depth == 0)
    return x;
  return std::sin(nest(x, depth - 1)) + 0.5 * x;
}
[[fluxion::grad]] [[fluxion::jvp]] double recur(double x, double y) {
  return rpow(x, 7) - 2 * rpow(y, 4) * x + nest(x * y, 3);
}

// --- 11. <cmath> -----------------------------------------------------------
[[fluxion::grad]] [[fluxion::jvp]] double maths(double x, double y) {
  double r = std::sin(x) * std::cos(y) + std::tan(0.3 * x) + std::exp(-y * y);
  r += std::log(1 + x * x) + std::sqrt(2 + y) + std::pow(x, 3.0) +
       std::pow(2 + y, x);
  r += std::tanh(x * y) + std::atan(y) + std::log1p(x * x) + std::expm1(y);
  r += std::cbrt(3 + x) + std::erf(y) + std::fabs(x - y) + std::sinh(y) +
       std::cosh(0.5 * x);
  r += std::atan2(y, 2 + x) + std::hypot(x, y);
  return r;
}

// --- 12. float and long double ------------------------------------------
[[fluxion::grad]] [[fluxion::jvp]] float ff(const float *x, int n, float a) {
  float s = 0;
  for (int i = 0; i < n; ++i)
    s += std::sin(a * x[i]) * x[i] + std::exp(0.1f * x[i]);
  return s;
}
[[fluxion::grad]] [[fluxion::jvp]] long double fl(long double x,
                                                  long double y) {
  long double r = x * x * y;
  for (int i = 0; i < 3; ++i)
    r = std::sin(r) + y * std::exp(x / 4);
  return r + std::log(y * y + 1);
}

} // namespace fr

namespace {

using so::Rng;
using Vec = std::vector<double>;

// Checks f_jvp against dot(grad, t) (tight) and a central difference (loose)
// for `trials` random (x, t).
template <class P, class G, class J>
void checkFwdRev(P primal, G grad, J jvp, std::size_t n, double lo, double hi,
                 unsigned seed, double tolFR = 1e-11, double tolFD = 1e-6,
                 int trials = 20) {
  Rng rng(seed);
  for (int k = 0; k < trials; ++k) {
    Vec x = rng.vec(n, lo, hi), t = rng.vec(n, -1, 1);
    Vec g = grad(x);
    ASSERT_EQ(g.size(), n);
    double fwd = jvp(x, t);
    double rev = so::dot(g.data(), t.data(), n);
    double fd = so::fd_dir(primal, x, t);
    SCOPED_TRACE(::testing::Message() << "trial " << k);
    SO_EXPECT_CLOSE(fwd, rev, tolFR);
    SO_EXPECT_CLOSE(fwd, fd, tolFD);
  }
}

TEST(ForwardVsReverse, Expressions) {
  checkFwdRev(
      [](const Vec &v) { return fr::expr(v[0], v[1], v[2]); },
      [](const Vec &v) {
        Vec g(3, 0.0);
        fr::expr_grad(v[0], v[1], v[2], &g[0], &g[1], &g[2]);
        return g;
      },
      [](const Vec &v, const Vec &t) {
        return fr::expr_jvp(v[0], v[1], v[2], t[0], t[1], t[2]);
      },
      3, -2, 2, 1);
}

TEST(ForwardVsReverse, Overwrites) {
  checkFwdRev(
      [](const Vec &v) { return fr::overwrite(v[0], v[1]); },
      [](const Vec &v) {
        Vec g(2, 0.0);
        fr::overwrite_grad(v[0], v[1], &g[0], &g[1]);
        return g;
      },
      [](const Vec &v, const Vec &t) {
        return fr::overwrite_jvp(v[0], v[1], t[0], t[1]);
      },
      2, -1.5, 1.5, 2);
}

TEST(ForwardVsReverse, IfAndSwitchEveryCase) {
  for (int mode = 0; mode < 4; ++mode) {
    SCOPED_TRACE(::testing::Message() << "mode " << mode);
    checkFwdRev(
        [mode](const Vec &v) { return fr::branches(v[0], v[1], mode); },
        [mode](const Vec &v) {
          Vec g(2, 0.0);
          fr::branches_grad(v[0], v[1], mode, &g[0], &g[1]);
          return g;
        },
        [mode](const Vec &v, const Vec &t) {
          return fr::branches_jvp(v[0], v[1], mode, t[0], t[1]);
        },
        2, -2, 2, 10 + mode, 1e-11, 1e-6, 40);
  }
}

TEST(ForwardVsReverse, LoopsBreakContinue) {
  const int n = 7;
  // Wide range: some elements are skipped, large ones trigger the break.
  checkFwdRev(
      [](const Vec &v) { return fr::loops(v.data(), n, v[n]); },
      [](const Vec &v) {
        Vec g(n + 1, 0.0);
        fr::loops_grad(v.data(), n, v[n], g.data(), &g[n]);
        return g;
      },
      [](const Vec &v, const Vec &t) {
        return fr::loops_jvp(v.data(), n, v[n], t.data(), t[n]);
      },
      n + 1, -1, 3, 20, 1e-11, 1e-6, 40);
}

TEST(ForwardVsReverse, EarlyReturn) {
  const int n = 6;
  checkFwdRev(
      [](const Vec &v) { return fr::early(v.data(), n); },
      [](const Vec &v) {
        Vec g(n, 0.0);
        fr::early_grad(v.data(), n, g.data());
        return g;
      },
      [](const Vec &v, const Vec &t) {
        return fr::early_jvp(v.data(), n, t.data());
      },
      n, -1, 1, 21, 1e-11, 1e-6, 40);
}

TEST(ForwardVsReverse, PointersAndFixedArrays) {
  const int n = 4; // A: 16, x: 4, w: 3
  const std::size_t N = n * n + n + 3;
  checkFwdRev(
      [](const Vec &v) {
        return fr::quad(v.data(), v.data() + n * n, v.data() + n * n + n, n);
      },
      [](const Vec &v) {
        Vec g(N, 0.0);
        fr::quad_grad(v.data(), v.data() + n * n, v.data() + n * n + n, n,
                      g.data(), g.data() + n * n, g.data() + n * n + n);
        return g;
      },
      [](const Vec &v, const Vec &t) {
        return fr::quad_jvp(v.data(), v.data() + n * n, v.data() + n * n + n,
                            n, t.data(), t.data() + n * n,
                            t.data() + n * n + n);
      },
      N, -1, 1, 22);
}

TEST(ForwardVsReverse, CallsToHelpers) {
  const int n = 5;
  checkFwdRev(
      [](const Vec &v) { return fr::calls(v.data(), n, v[n]); },
      [](const Vec &v) {
        Vec g(n + 1, 0.0);
        fr::calls_grad(v.data(), n, v[n], g.data(), &g[n]);
        return g;
      },
      [](const Vec &v, const Vec &t) {
        return fr::calls_jvp(v.data(), n, v[n], t.data(), t[n]);
      },
      n + 1, -1.5, 1.5, 23);
}

TEST(ForwardVsReverse, Recursion) {
  checkFwdRev(
      [](const Vec &v) { return fr::recur(v[0], v[1]); },
      [](const Vec &v) {
        Vec g(2, 0.0);
        fr::recur_grad(v[0], v[1], &g[0], &g[1]);
        return g;
      },
      [](const Vec &v, const Vec &t) {
        return fr::recur_jvp(v[0], v[1], t[0], t[1]);
      },
      2, -1.2, 1.2, 24);
  // The annotated recursive function on its own: d/dx of nest(x, d).
  for (int d = 0; d < 4; ++d) {
    checkFwdRev([d](const Vec &v) { return fr::nest(v[0], d); },
                [d](const Vec &v) {
                  Vec g(1, 0.0);
                  fr::nest_grad(v[0], d, &g[0]);
                  return g;
                },
                [d](const Vec &v, const Vec &t) {
                  return fr::nest_jvp(v[0], d, t[0]);
                },
                1, -2, 2, 30 + d);
  }
}

TEST(ForwardVsReverse, Cmath) {
  checkFwdRev(
      [](const Vec &v) { return fr::maths(v[0], v[1]); },
      [](const Vec &v) {
        Vec g(2, 0.0);
        fr::maths_grad(v[0], v[1], &g[0], &g[1]);
        return g;
      },
      [](const Vec &v, const Vec &t) {
        return fr::maths_jvp(v[0], v[1], t[0], t[1]);
      },
      2, 0.1, 1.5, 25);
}

TEST(ForwardVsReverse, Float) {
  const int n = 5;
  Rng rng(26);
  for (int k = 0; k < 20; ++k) {
    float x[n], t[n], g[n] = {};
    for (int i = 0; i < n; ++i) {
      x[i] = float(rng.uniform(-1, 1));
      t[i] = float(rng.uniform(-1, 1));
    }
    float a = float(rng.uniform(0.5, 2)), ta = float(rng.uniform(-1, 1)),
          ga = 0;
    fr::ff_grad(x, n, a, g, &ga);
    float fwd = fr::ff_jvp(x, n, a, t, ta);
    float rev = so::dot(g, t, n) + ga * ta;
    SO_EXPECT_CLOSE(fwd, rev, 1e-5);
    // Reference: central difference in double of the same float function.
    double h = 1e-3, fd;
    {
      float xp[n], xm[n];
      for (int i = 0; i < n; ++i) {
        xp[i] = float(x[i] + h * t[i]);
        xm[i] = float(x[i] - h * t[i]);
      }
      fd = (double(fr::ff(xp, n, float(a + h * ta))) -
            double(fr::ff(xm, n, float(a - h * ta)))) /
           (2 * h);
    }
    SO_EXPECT_CLOSE(fwd, fd, 2e-2);
  }
}

TEST(ForwardVsReverse, LongDouble) {
  Rng rng(27);
  for (int k = 0; k < 20; ++k) {
    long double x = rng.uniform(-1, 1), y = rng.uniform(0.2, 1.5);
    long double tx = rng.uniform(-1, 1), ty = rng.uniform(-1, 1);
    long double gx = 0, gy = 0;
    fr::fl_grad(x, y, &gx, &gy);
    long double fwd = fr::fl_jvp(x, y, tx, ty);
    SO_EXPECT_CLOSE(fwd, gx * tx + gy * ty, 1e-15L);
    long double h = 1e-7L;
    long double fd =
        (fr::fl(x + h * tx, y + h * ty) - fr::fl(x - h * tx, y - h * ty)) /
        (2 * h);
    SO_EXPECT_CLOSE(fwd, fd, 1e-8L);
  }
}

// Output arrays: t_y[i] from f_jvp must equal (row i of the Jacobian) . t,
// where row i comes from f_vjp with the seed e_i on output i.
TEST(ForwardVsReverse, OutputArraysAgainstVjpRows) {
  const int n = 5;
  Rng rng(29);
  for (int k = 0; k < 10; ++k) {
    Vec x = rng.vec(n, -1, 1), tx = rng.vec(n, -1, 1);
    double s = rng.uniform(-1, 1), ts = rng.uniform(-1, 1);
    Vec y(n), ty(n, 0.0);
    fr::outs_jvp(x.data(), y.data(), n, s, tx.data(), ty.data(), ts);
    Vec yref(n);
    fr::outs(x.data(), yref.data(), n, s);
    for (int i = 0; i < n; ++i)
      SO_EXPECT_CLOSE(y[i], yref[i], 1e-14); // jvp also computes the primal
    for (int i = 0; i < n; ++i) {
      Vec dx(n, 0.0), dy(n, 0.0), yy(n);
      double ds = 0;
      dy[i] = 1;
      fr::outs_vjp(x.data(), yy.data(), n, s, dx.data(), dy.data(), &ds);
      double row_t = so::dot(dx.data(), tx.data(), n) + ds * ts;
      SO_EXPECT_CLOSE(ty[i], row_t, 1e-12);
      // Independent reference: central difference of output i.
      double h = 1e-6;
      Vec xp(n), xm(n), yp(n), ym(n);
      for (int j = 0; j < n; ++j) {
        xp[j] = x[j] + h * tx[j];
        xm[j] = x[j] - h * tx[j];
      }
      fr::outs(xp.data(), yp.data(), n, s + h * ts);
      fr::outs(xm.data(), ym.data(), n, s - h * ts);
      SO_EXPECT_CLOSE(ty[i], (yp[i] - ym[i]) / (2 * h), 1e-7);
    }
  }
}

TEST(ForwardVsReverse, ResultAndOutputArray) {
  const int n = 4;
  Rng rng(30);
  for (int k = 0; k < 10; ++k) {
    Vec x = rng.vec(n, -1, 1), tx = rng.vec(n, -1, 1);
    Vec y(n), ty(n, 0.0);
    double dret = fr::ret_out_jvp(x.data(), y.data(), n, tx.data(), ty.data());
    // Row 0: the result (seed 1, output seeds 0).
    {
      Vec dx(n, 0.0), dy(n, 0.0), yy(n);
      fr::ret_out_vjp(x.data(), yy.data(), n, 1.0, dx.data(), dy.data());
      SO_EXPECT_CLOSE(dret, so::dot(dx.data(), tx.data(), n), 1e-12);
    }
    // Rows 1..n: the outputs (seed 0 on the result).
    for (int i = 0; i < n; ++i) {
      Vec dx(n, 0.0), dy(n, 0.0), yy(n);
      dy[i] = 1;
      fr::ret_out_vjp(x.data(), yy.data(), n, 0.0, dx.data(), dy.data());
      SO_EXPECT_CLOSE(ty[i], so::dot(dx.data(), tx.data(), n), 1e-12);
    }
    // Analytic: s = |x|^2, ds = 2 x.t; d log(1+s) = ds/(1+s);
    // d y_i = t_i/(1+s) - x_i ds/(1+s)^2.
    double s = so::dot(x.data(), x.data(), n);
    double ds = 2 * so::dot(x.data(), tx.data(), n);
    SO_EXPECT_CLOSE(dret, ds / (1 + s), 1e-12);
    for (int i = 0; i < n; ++i)
      SO_EXPECT_CLOSE(ty[i], tx[i] / (1 + s) - x[i] * ds / ((1 + s) * (1 + s)),
                      1e-12);
  }
}

} // namespace
