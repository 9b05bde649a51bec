// TensorFlow's and JAX's custom-gradient semantics through the public
// contract: the log1pexp example (derived NaN, custom 1.0) in float, the
// residual form of a custom derivative (JAX's custom_vjp), stop_gradient's
// partial-derivative example, pass_through with std::round, and gradients
// with respect to global variables (TensorFlow's `variables`).
#include <fluxion/fluxion.hpp>

#include <gtest/gtest.h>

#include <cmath>

#include "numeric_check.hpp"

namespace customgrad {

double doubled(double x) { return 2 * x; }

float log1pexp_derived(float x) { return std::log(1 + std::exp(x)); }
float log1pexp(float x) { return std::log(1 + std::exp(x)); }
double softplus(double x) { return std::log1p(std::exp(x)); }

} // namespace customgrad

namespace fluxion::custom {
inline float log1pexp_vjp(float x, float seed, float *d_x) {
  *d_x += seed * (1 - 1 / (1 + std::exp(x)));
  return customgrad::log1pexp(x);
}

struct SoftplusResiduals {
  double e;
};
inline double softplus_fwd(double x, SoftplusResiduals &res) {
  res.e = std::exp(x);
  return std::log1p(res.e);
}
inline void softplus_bwd(double, const SoftplusResiduals &res, double seed,
                         double *d_x) {
  *d_x += seed * res.e / (1 + res.e);
}
} // namespace fluxion::custom

namespace customgrad {

[[fluxion::grad]] float grad_derived(float x) { return log1pexp_derived(x); }
[[fluxion::grad]] float grad_custom(float x) { return log1pexp(x); }

// The residual rule inside a loop (residuals on the tape) and alone.
[[fluxion::grad]] double softplus_sum(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += softplus(x[i]) * x[i];
  return s;
}
[[fluxion::grad]] double softplus_annotated(double x);

} // namespace customgrad

namespace fluxion::custom {
inline double softplus_annotated_fwd(double x, SoftplusResiduals &res) {
  return softplus_fwd(x, res);
}
inline void softplus_annotated_bwd(double x, const SoftplusResiduals &res,
                                   double seed, double *d_x) {
  softplus_bwd(x, res, seed, d_x);
}

// Both forms for one function, deliberately different (2x and 3x): first
// order uses the pair, which exists to keep what the forward part computed.
inline double doubled_fwd(double x, double &keep) {
  keep = x;
  return customgrad::doubled(x);
}
inline void doubled_bwd(double, const double &, double seed, double *d_x) {
  *d_x += 2 * seed;
}
inline double doubled_vjp(double x, double seed, double *d_x) {
  *d_x += 3 * seed;
  return customgrad::doubled(x);
}
} // namespace fluxion::custom

namespace customgrad {

[[fluxion::grad]] double uses_doubled(double x) { return doubled(x) + x; }

// A rule's result overwrites a variable the reverse sweep reads, in a loop:
// with a double residual (std::exp's rule keeps exp(x)), its old value and
// the residual share the tape of doubles, and must come back off it in the
// opposite order.
[[fluxion::grad]] double residual_chain(const double *x, int n) {
  double h = 0.3;
  for (int i = 0; i < n; ++i) {
    h = softplus(h * x[i] + 0.1);
    h = std::exp(0.5 * h * x[i]);
  }
  return h;
}

// Rules whose forward part returns its residual: the reverse sweep reads
// the residual back from the variable that holds the result. signed_sqrt's
// forward part returns -r for negative x, so it must keep its residual.
double cube_root(double x) { return std::cbrt(x); }
double signed_sqrt(double x) {
  return x < 0 ? -std::sqrt(-x) : std::sqrt(x);
}

} // namespace customgrad

namespace fluxion::custom {
inline double cube_root_fwd(double x, double &y) {
  y = std::cbrt(x);
  return y;
}
inline void cube_root_bwd(double, const double &y, double seed, double *d_x) {
  *d_x += seed / (3 * y * y);
}
inline double signed_sqrt_fwd(double x, double &r) {
  r = std::sqrt(std::fabs(x));
  if (x < 0)
    return -r;
  return r;
}
inline void signed_sqrt_bwd(double, const double &r, double seed,
                            double *d_x) {
  *d_x += seed / (2 * r);
}
} // namespace fluxion::custom

namespace customgrad {

[[fluxion::grad]] double root_chain(const double *x, int n) {
  double s = 0, v = 0.5;
  for (int i = 0; i < n; ++i) {
    v = cube_root(v * x[i] + 2.0);
    s += v * v;
    double w = signed_sqrt(x[i] - v);
    s += w * x[i];
  }
  return s;
}

// Defined after its rules: the rules replace the body.
double softplus_annotated(double x) { return std::log1p(std::exp(x)); }

// TensorFlow's stop_gradient example: a + b with b = 2a.
[[fluxion::grad]] double a_plus_b(double a) {
  double b = 2 * a;
  return a + b;
}
[[fluxion::grad]] double a_plus_stopped_b(double a) {
  double b = fluxion::stop_gradient(2 * a);
  return a + b;
}
double twice(double a) { return 2 * a; }
// A stopped value inside a loop and through a call behaves the same.
[[fluxion::grad]] double stopped_in_loop(double a, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a + fluxion::stop_gradient(twice(a));
  return s;
}

// Straight-through rounding (quantisation).
double round_to_quarter(double v) { return std::round(v * 4) / 4; }
[[fluxion::grad]] double quantized_square(double x) {
  double q = fluxion::pass_through(round_to_quarter, x);
  return q * q;
}

// Globals as differentiation inputs.
double weights[3] = {1.0, -2.0, 0.5};
double bias = 0.25;
[[fluxion::grad("x", "weights", "bias")]] double predict(const double *x) {
  double s = bias;
  for (int i = 0; i < 3; ++i)
    s += weights[i] * x[i];
  return s * s;
}

TEST(CustomGradient, TensorFlowLog1pexpExample) {
  float derived = 0, custom = 0;
  grad_derived_grad(100.f, &derived);
  grad_custom_grad(100.f, &custom);
  EXPECT_TRUE(std::isnan(derived));
  EXPECT_EQ(custom, 1.0f);
  // Away from overflow both agree.
  float d1 = 0, d2 = 0;
  grad_derived_grad(0.5f, &d1);
  grad_custom_grad(0.5f, &d2);
  EXPECT_NEAR(d1, d2, 1e-6);
}

TEST(CustomGradient, ResidualFormInLoopAndAnnotated) {
  double x[4] = {0.5, -1.0, 2.0, 3.5}, dx[4] = {0, 0, 0, 0};
  softplus_sum_grad(x, 4, dx);
  for (int i = 0; i < 4; ++i) {
    double e = std::exp(x[i]);
    EXPECT_NEAR(dx[i], e / (1 + e) * x[i] + std::log1p(e), 1e-12);
  }
  double d = 0;
  double v = softplus_annotated_vjp(1.5, 2.0, &d);
  EXPECT_DOUBLE_EQ(v, std::log1p(std::exp(1.5)));
  EXPECT_NEAR(d, 2.0 * std::exp(1.5) / (1 + std::exp(1.5)), 1e-12);
}

TEST(CustomGradient, ResidualRuleOverwritingARecordedVariable) {
  nt::check_gradient<double>(
      [](const double *v) { return residual_chain(v, 4); },
      [](const double *v, double *d) { return residual_chain_grad(v, 4, d); },
      {0.5, -1.0, 2.0, 0.7});
}

TEST(CustomGradient, ResidualThatIsTheResult) {
  // x[i] - v is negative for the first two elements: signed_sqrt's result
  // is then -r, not its residual.
  nt::check_gradient<double>(
      [](const double *v) { return root_chain(v, 4); },
      [](const double *v, double *d) { return root_chain_grad(v, 4, d); },
      {0.5, -1.0, 2.0, 3.5});
}

TEST(CustomGradient, ResidualPairBeforeVjpRuleInFirstOrder) {
  double d = 0;
  EXPECT_EQ(uses_doubled_grad(1.5, &d), 4.5);
  EXPECT_EQ(d, 3.0); // 2 from the pair, 1 from + x
}

TEST(CustomGradient, StopGradientPartialDerivative) {
  double d = 0;
  a_plus_b_grad(1.5, &d);
  EXPECT_EQ(d, 3.0);
  d = 0;
  a_plus_stopped_b_grad(1.5, &d);
  EXPECT_EQ(d, 1.0);
  d = 0;
  EXPECT_EQ(stopped_in_loop_grad(1.5, 4, &d), 4 * 4.5);
  EXPECT_EQ(d, 4.0);
}

TEST(CustomGradient, PassThroughRounding) {
  for (double x : {0.3, 0.62, -1.13}) {
    double d = 0;
    quantized_square_grad(x, &d);
    EXPECT_DOUBLE_EQ(d, 2 * round_to_quarter(x));
  }
}

TEST(CustomGradient, GlobalsAsInputs) {
  double x[3] = {0.5, 0.25, -1.0}, dx[3] = {0, 0, 0}, dw[3] = {0, 0, 0};
  double db = 0;
  double s = bias;
  for (int i = 0; i < 3; ++i)
    s += weights[i] * x[i];
  EXPECT_DOUBLE_EQ(predict_grad(x, dx, dw, &db), s * s);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(dw[i], 2 * s * x[i], 1e-14);
    EXPECT_NEAR(dx[i], 2 * s * weights[i], 1e-14);
    // Against a central difference in the global itself.
    double h = 1e-6, keep = weights[i];
    weights[i] = keep + h;
    double up = predict(x);
    weights[i] = keep - h;
    double down = predict(x);
    weights[i] = keep;
    EXPECT_NEAR(dw[i], (up - down) / (2 * h), 1e-7);
  }
  EXPECT_NEAR(db, 2 * s, 1e-14);
}

// A global the annotation names, also written by the function (a state
// updated in place): the derivative is with respect to its value on entry,
// and the reverse sweep gives it back.
double state = 1.5;
double history[3] = {0.5, -1.0, 2.0};
[[fluxion::grad("x", "state", "history")]] double decay(double x) {
  double r = state * x;
  state = state * std::sin(x) + history[1];
  r += state * state;
  for (int i = 0; i < 3; ++i) {
    history[i] = history[i] * state + x;
    r += history[i] * history[i];
  }
  state = 2 * state;
  return r + state;
}

TEST(CustomGradient, NamedGlobalsWritten) {
  const double s0 = 1.5, h0[3] = {0.5, -1.0, 2.0};
  auto reset = [&] {
    state = s0;
    for (int i = 0; i < 3; ++i)
      history[i] = h0[i];
  };
  for (double x : {0.7, -0.4, 1.9}) {
    reset();
    double dx = 0, ds = 0, dh[3] = {0, 0, 0};
    double v = decay_grad(x, &dx, &ds, dh);
    // Given back by the reverse sweep.
    EXPECT_EQ(state, s0);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(history[i], h0[i]);
    reset();
    EXPECT_DOUBLE_EQ(v, decay(x));
    // Central differences in x and in each global's entry value.
    const double h = 1e-6;
    auto at = [&](double *p, double base, double xv) {
      reset();
      if (p)
        *p = base;
      double r = decay(xv);
      reset();
      return r;
    };
    EXPECT_NEAR(dx, (at(nullptr, 0, x + h) - at(nullptr, 0, x - h)) / (2 * h),
                1e-6);
    EXPECT_NEAR(ds, (at(&state, s0 + h, x) - at(&state, s0 - h, x)) / (2 * h),
                1e-6);
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(dh[i],
                  (at(&history[i], h0[i] + h, x) -
                   at(&history[i], h0[i] - h, x)) / (2 * h),
                  1e-6);
  }
}

} // namespace customgrad
