// Regression tests for derivatives that were once silently wrong or ended in
// an internal error, each checked against central finite differences of the
// primal (and forward mode against reverse mode where both exist).
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <algorithm>
#include <cmath>

namespace reg {

// Central difference of a scalar function of one variable, in long double.
template <class F> long double fd(F f, long double x, long double h = 1e-4L) {
  return (f(x + h) - f(x - h)) / (2 * h);
}

// --- A call whose result is converted between floating types ------------
float idf(float x) { return x * x; }
[[fluxion::grad]] [[fluxion::jvp]] double toDouble(float x) { return idf(x); }
[[fluxion::grad]] [[fluxion::jvp]] float toFloat(double x) {
  return std::sin(x);
}
[[fluxion::grad]] [[fluxion::jvp]] double floatSin(float x) {
  return std::sin(x);
}
[[fluxion::grad]] [[fluxion::jvp]] double mixedPow(float x, double y) {
  return std::pow(x, y);
}
[[fluxion::grad]] [[fluxion::jvp]] float unqualified(float x) {
  float r = sin(x); // ::sin(double): the argument and result convert
  return r;
}
[[fluxion::grad]] [[fluxion::jvp]] double initAndUpdate(double x) {
  double r = idf(x); // float result into a double, double argument to float
  r += idf(x);
  long double l = idf(x);
  r = r + static_cast<double>(l);
  return r;
}

TEST(Regressions, ConvertedCallResults) {
  for (float x : {-1.3f, 0.4f, 1.5f}) {
    float dx = 0;
    toDouble_grad(x, &dx);
    EXPECT_NEAR(dx, 2 * x, 1e-5);
    EXPECT_NEAR(toDouble_jvp(x, 1.0f), 2 * x, 1e-5);
    double dd = 0;
    toFloat_grad(x, &dd);
    EXPECT_NEAR(dd, std::cos(double(x)), 1e-6);
    EXPECT_NEAR(toFloat_jvp(x, 1.0), std::cos(double(x)), 1e-6);
    dx = 0;
    floatSin_grad(x, &dx);
    EXPECT_NEAR(dx, std::cos(x), 1e-6);
    EXPECT_NEAR(floatSin_jvp(x, 1.0f), std::cos(x), 1e-6);
    dx = 0;
    unqualified_grad(x, &dx);
    EXPECT_NEAR(dx, std::cos(x), 1e-6);
    EXPECT_NEAR(unqualified_jvp(x, 1.0f), std::cos(x), 1e-6);
    double d = 0;
    initAndUpdate_grad(x, &d);
    EXPECT_NEAR(d, 6 * double(float(x)), 1e-4);
    EXPECT_NEAR(initAndUpdate_jvp(x, 1.0), 6 * double(float(x)), 1e-4);
  }
  float dx = 0;
  double dy = 0;
  mixedPow_grad(1.5f, 2.5, &dx, &dy);
  EXPECT_NEAR(dx, 2.5 * std::pow(1.5, 1.5), 1e-5);
  EXPECT_NEAR(dy, std::log(1.5) * std::pow(1.5, 2.5), 1e-6);
  EXPECT_NEAR(mixedPow_jvp(1.5f, 2.5, 1.0f, 1.0), dx + dy, 1e-5);
}

// --- fmax / fmin must not read the unselected argument's derivative ------
[[fluxion::grad]] [[fluxion::jvp]] double floorSqrt(double x) {
  return std::fmax(std::sqrt(x), 1e-3) + fmin(-std::sqrt(x), -1e-3);
}
[[fluxion::grad]] [[fluxion::jvp]] double floorLog(double x) {
  return std::fmax(std::log(x), -5.0) + std::fmax(std::pow(x, 0.5), 0.25);
}

TEST(Regressions, UnselectedArgumentHasNoDerivative) {
  double d = 0;
  floorSqrt_grad(0.0, &d);
  EXPECT_EQ(d, 0.0);
  EXPECT_EQ(floorSqrt_jvp(0.0, 1.0), 0.0);
  d = 0;
  floorLog_grad(0.0, &d);
  EXPECT_EQ(d, 0.0);
  EXPECT_EQ(floorLog_jvp(0.0, 1.0), 0.0);
  // Away from the kink, the selected branch's derivative.
  for (double x : {0.3, 2.0}) {
    d = 0;
    floorSqrt_grad(x, &d);
    long double ref = fd([](long double v) {
      return (long double)floorSqrt(double(v));
    }, x);
    EXPECT_NEAR(d, double(ref), 1e-6);
    EXPECT_NEAR(floorSqrt_jvp(x, 1.0), d, 1e-12);
  }
}

// --- A custom _jvp of a void function with an output array --------------
void outer(const double *x, double *y) {
  y[0] = x[0] * x[1];
  y[1] = std::sin(x[0]);
}
int OuterJvpCalls = 0;
} // namespace reg

namespace fluxion::custom {
void outer_jvp(const double *x, double *y, const double *t_x, double *t_y) {
  ++reg::OuterJvpCalls;
  t_y[0] = t_x[0] * x[1] + x[0] * t_x[1];
  t_y[1] = std::cos(x[0]) * t_x[0];
  (void)y;
}
} // namespace fluxion::custom

namespace reg {
[[fluxion::grad]] [[fluxion::jvp]] double useOuter(const double *x) {
  double y[2];
  outer(x, y);
  return y[0] + 3 * y[1];
}

TEST(Regressions, CustomJvpOfVoidFunction) {
  double x[2] = {0.5, 2.0}, t[2] = {0.7, -0.2}, d[2] = {0, 0};
  OuterJvpCalls = 0;
  double j = useOuter_jvp(x, t);
  EXPECT_EQ(OuterJvpCalls, 1);
  useOuter_grad(x, d);
  EXPECT_NEAR(j, d[0] * t[0] + d[1] * t[1], 1e-12);
  EXPECT_NEAR(d[0], x[1] + 3 * std::cos(x[0]), 1e-12);
}

// --- f_jacobian: a non-const array that is only read is an input --------
[[fluxion::jacobian]] void readOnlyIn(double a[2], double y[3]) {
  y[0] = a[0] * a[1];
  y[1] = std::sin(a[0]);
  y[2] = a[1];
}
[[fluxion::jacobian]] double readOnlyInScalar(double a[2], double b) {
  return a[0] * b + a[1] * a[1];
}
static void readTwice(double *dst, double *src) {
  dst[0] = src[0] + src[1];
  dst[1] = src[0] * src[1];
}
[[fluxion::jacobian]] void throughCallee(double a[2], double y[2]) {
  readTwice(y, a);
}

TEST(Regressions, JacobianOfUnwrittenArrays) {
  double a[2] = {0.5, 2.0}, y[3], J[6];
  readOnlyIn_jacobian(a, y, J);
  double want[6] = {a[1], a[0], std::cos(a[0]), 0, 0, 1};
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(J[i], want[i], 1e-12) << i;
  EXPECT_EQ(a[0], 0.5);
  double H[3];
  readOnlyInScalar_jacobian(a, 3.0, H);
  EXPECT_NEAR(H[0], 3.0, 1e-12);
  EXPECT_NEAR(H[1], 4.0, 1e-12);
  EXPECT_NEAR(H[2], 0.5, 1e-12);
  double K[4], z[2];
  throughCallee_jacobian(a, z, K);
  double wantK[4] = {1, 1, a[1], a[0]};
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(K[i], wantK[i], 1e-12) << i;
}

// --- Valid code that used to end in an internal error --------------------
[[fluxion::grad]] double constTable(double x) {
  const double w[2] = {1.0, 2.0};
  const double v[2][2] = {{1.0, 2.0}, {3.0, 4.0}};
  return w[0] * x + w[1] + v[1][0] * x * x;
}
[[fluxion::grad]] double trace2(const double *const *A, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += A[i][i] * A[i][i];
  return s;
}
template <int N> double scale(double x) { return N * x * x; }
template <class T> T sq(T x) { return x * x; }
[[fluxion::grad]] [[fluxion::jvp]] double instances(double x) {
  return scale<2>(x) + scale<3>(x) + sq<float>(x) + sq<double>(x);
}

TEST(Regressions, FormerInternalErrors) {
  double d = 0;
  constTable_grad(1.5, &d);
  EXPECT_NEAR(d, 1.0 + 2 * 3.0 * 1.5, 1e-12);
  double r0[2] = {1, 2}, r1[2] = {3, 4};
  const double *A[2] = {r0, r1};
  double d0[2] = {0, 0}, d1[2] = {0, 0};
  double *dA[2] = {d0, d1};
  trace2_grad(A, 2, dA);
  EXPECT_EQ(d0[0], 2.0);
  EXPECT_EQ(d0[1], 0.0);
  EXPECT_EQ(d1[0], 0.0);
  EXPECT_EQ(d1[1], 8.0);
  d = 0;
  instances_grad(1.5, &d);
  EXPECT_NEAR(d, (2 * 2 + 2 * 3 + 2 + 2) * 1.5, 1e-6);
  EXPECT_NEAR(instances_jvp(1.5, 1.0), d, 1e-6);
}

// --- A custom rule of an annotated function with named parameters -------
double ruleFull(double x, double y);
double ruleNamed(double x, double y);
} // namespace reg

namespace fluxion::custom {
// The full convention (a derivative for every parameter) ...
double ruleFull_vjp(double x, double y, double seed, double *d_x,
                    double *d_y) {
  *d_x += seed * y * y;
  *d_y += seed * 2 * x * y * 100;
  return reg::ruleFull(x, y);
}
double ruleFull_jvp(double x, double y, double t_x, double t_y) {
  return y * y * t_x + 200 * x * y * t_y;
}
// ... or the generated function's own signature (named parameters only).
double ruleNamed_vjp(double x, double y, double seed, double *d_y) {
  *d_y += seed * 2 * x * y * 100;
  return reg::ruleNamed(x, y);
}
} // namespace fluxion::custom

namespace reg {
[[fluxion::grad("y")]] [[fluxion::jvp("y")]] double ruleFull(double x,
                                                             double y) {
  return x * y * y;
}
[[fluxion::grad("y")]] double ruleNamed(double x, double y) {
  return x * y * y;
}

TEST(Regressions, CustomRuleOfRestrictedAnnotation) {
  double d = 0;
  EXPECT_EQ(ruleFull_grad(2, 3, &d), 18.0);
  EXPECT_EQ(d, 1200.0); // the rule's (scaled) derivative, not the body's
  EXPECT_EQ(ruleFull_jvp(2, 3, 1.0), 1200.0);
  d = 0;
  ruleNamed_grad(2, 3, &d);
  EXPECT_EQ(d, 1200.0);
}

// --- Positions returned by <algorithm>, pointer arithmetic ----------------
[[fluxion::grad]] double logSumExp(const double *x, int n) {
  const double m = *std::max_element(x, x + n);
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::exp(x[i] - m);
  return m + std::log(s) + 0.5 * *std::min_element(x, x + n) +
         double(std::max_element(x, x + n) - x);
}
[[fluxion::grad]] double shifted(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; ++i)
    s += *(x + i) * (x + 1)[i];
  return s;
}

TEST(Regressions, AlgorithmPositionsAndPointerArithmetic) {
  double x[4] = {1, 2, 0.5, -1}, d[4] = {0, 0, 0, 0};
  logSumExp_grad(x, 4, d);
  double s = 0;
  for (double v : x)
    s += std::exp(v - 2);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(d[i], std::exp(x[i] - 2) / s + (i == 3 ? 0.5 : 0), 1e-12)
        << i;
  double e[4] = {0, 0, 0, 0};
  shifted_grad(x, 4, e);
  double want[4] = {x[1], x[0] + x[2], x[1] + x[3], x[2]};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(e[i], want[i]) << i;
}

} // namespace reg

namespace reg {
// --- f_hessian of a function whose parameters have different types -------
float mixedInner(float x, float y) { return x * y + x; }
[[fluxion::hessian]] long double mixedHessian(long double x0, float x1,
                                              const double a[2]) {
  return mixedInner(x0, x1) * x0 + a[0] * a[1] * x1;
}

TEST(Regressions, HessianOfMixedTypes) {
  double a[2] = {1.5, -2.0};
  long double H[16];
  mixedHessian_hessian(0.5L, 2.0f, a, H);
  // f = x0^2 (x1 + 1) + a0 a1 x1
  long double want[16] = {2 * 3.0L, 2 * 0.5L, 0, 0,  //
                          2 * 0.5L, 0, a[1], a[0],    //
                          0, a[1], 0, 2.0L,           //
                          0, a[0], 2.0L, 0};
  for (int i = 0; i < 16; ++i)
    EXPECT_NEAR(double(H[i]), double(want[i]), 1e-5) << i;
}
} // namespace reg

namespace reg {
// --- Second order through a rule whose seed is zero at the point ----------
[[fluxion::hessian]] double fmaxScaled(double x, double a) {
  return x * a / (1 + std::fmax(-1.0, a) * std::fmax(-1.0, a));
}

TEST(Regressions, HessianThroughZeroSeed) {
  double H[4];
  fmaxScaled_hessian(0.0, -0.5, H);
  // d2/dx da of x a / (1 + a^2) at a = -0.5: (1 - a^2) / (1 + a^2)^2
  double cross = (1 - 0.25) / (1.25 * 1.25);
  EXPECT_NEAR(H[0], 0.0, 1e-12);
  EXPECT_NEAR(H[1], cross, 1e-12);
  EXPECT_NEAR(H[2], cross, 1e-12);
  EXPECT_NEAR(H[3], 0.0, 1e-12);
}
} // namespace reg

namespace reg {
// --- Jacobian rows in lanes when J's type is not the result's ------------
[[fluxion::jacobian]] float narrowResult(double x0, float x1, long double z[3],
                                         const long double a[3]) {
  for (int i = 0; i < 3; ++i)
    z[i] = x1 * a[i];
  return x0 * x1;
}

TEST(Regressions, JacobianLanesOfMixedTypes) {
  long double z[3], a[3] = {1, 2, 3}, J[4 * 5];
  narrowResult_jacobian(0.5, 2.0f, z, a, J);
  long double want[20] = {2, 0.5, 0, 0, 0, //
                          0, 1, 2, 0, 0,   //
                          0, 2, 0, 2, 0,   //
                          0, 3, 0, 0, 2};
  for (int i = 0; i < 20; ++i)
    EXPECT_NEAR(double(J[i]), double(want[i]), 1e-6) << i;
}
} // namespace reg

// --- Compound assignment computed in a wider type (fuzzer seed 5476) -----
// `v -= e` with e long double rounds (long double)v - e once; the derivative
// code once rounded e to float first, so f_grad's value (and the function
// it differentiated) differed from f's.
namespace reg {
[[fluxion::grad]] [[fluxion::jvp]] float wideCompound(float x, double y) {
  float v = x;
  v -= std::cos(static_cast<long double>(y));
  v += 1e-8 * y;
  v *= 1.0000001 + y * 1e-9;
  return v * x;
}
} // namespace reg

TEST(Regressions, CompoundAssignmentInAWiderType) {
  for (float x : {1.1f, -0.7f, 3.25f}) {
    for (double y : {0.3, -2.0}) {
      float dx = 0;
      double dy = 0;
      float value = reg::wideCompound_grad(x, y, &dx, &dy);
      EXPECT_EQ(value, reg::wideCompound(x, y)); // bit for bit
      float tx = 0.5f;
      EXPECT_NEAR(reg::wideCompound_jvp(x, y, tx, 0.25), tx * dx + 0.25 * dy,
                  1e-4 * (1 + std::fabs(dx) + std::fabs(dy)));
      long double fdy = reg::fd(
          [&](long double v) {
            return static_cast<long double>(
                reg::wideCompound(x, static_cast<double>(v)));
          },
          y, 1e-2L);
      EXPECT_NEAR(dy, fdy, 1e-3 * (1 + std::fabs(fdy)));
    }
  }
}

// --- pow's second derivative at a zero exponent (fuzzer seed 8250) ---------
// d/dx pow(x, y) = y x^(y-1) is 0 at y == 0, but its derivative in y there
// is 1/x: a rule that selected 0 on y == 0 alone hid it from f_hessian.
namespace reg {
[[fluxion::grad]] [[fluxion::hessian]] [[fluxion::hvp]] double
powAtZeroExponent(double a, double b) {
  return std::pow(b * b + 0.125, a * b);
}
} // namespace reg

TEST(Regressions, PowHessianAtZeroExponent) {
  for (double b : {-0.71875, 0.5, 1.25}) {
    double H[4];
    reg::powAtZeroExponent_hessian(0.0, b, H);
    const double B = b * b + 0.125;
    EXPECT_NEAR(H[0], std::pow(std::log(B) * b, 2), 1e-12);
    EXPECT_NEAR(H[1], std::log(B) + 2 * b * b / B, 1e-12);
    EXPECT_NEAR(H[2], H[1], 1e-12);
    // Against finite differences of the gradient, and f_hvp along e_a.
    auto dB = [&](double bb) {
      double da = 0, db = 0;
      reg::powAtZeroExponent_grad(0.0, bb, &da, &db);
      return da;
    };
    const double h = 1e-6;
    EXPECT_NEAR(H[1], (dB(b + h) - dB(b - h)) / (2 * h), 1e-6);
    double hv[2] = {0, 0};
    reg::powAtZeroExponent_hvp(0.0, b, 1.0, 0.0, &hv[0], &hv[1]);
    EXPECT_NEAR(hv[1], H[2], 1e-12);
  }
}

// --- A chain of conversions passes its seed on unrounded (seed 8937) -------
// (double)(float)x has derivative 1; rounding the seed to float on the way
// made k * (double)(float)x - k * x + x differentiate to 0.5, not 1, once k
// needed more digits than float has.
namespace reg {
[[fluxion::grad]] [[fluxion::jvp]] double throughFloat(double x) {
  const double k = 1e10 + 0.5;
  return k * static_cast<double>(static_cast<float>(x)) - k * x + x;
}
} // namespace reg

TEST(Regressions, ConversionChainKeepsItsPrecision) {
  for (double x : {0.875, -1.1, 3.0}) {
    double dx = 0;
    reg::throughFloat_grad(x, &dx);
    EXPECT_NEAR(dx, 1.0, 1e-5);
    EXPECT_NEAR(reg::throughFloat_jvp(x, 1.1), 1.1, 1e-5);
  }
}
