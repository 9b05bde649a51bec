// Calls: callees with bodies (differentiated on demand), recursion, callees
// writing outputs through pointers, custom derivatives (for a function with a
// body and for one without), stop_gradient, declaration before definition,
// static functions.
#include <fluxion/fluxion.hpp>

#include <cmath>

#include "numeric_check.hpp"

namespace calls {

// Defined in opaque_impl.cpp: no body is visible here.
double opaque_logistic(double x, double a);
double opaque_cubes(const double *x, int n);

// Gradient clipping through a custom derivative: the primal is the identity,
// the derivative clamps the incoming seed to [-1, 1].
double clip_grad(double x) { return x; }

// A function with a body whose derivative is overridden by a rule.
double log1pexp(double x) { return std::log(1 + std::exp(x)); }

// Annotated below, with a custom derivative of its own.
double softplus(double x);

// x^n by a loop; its rule has an int parameter (no d_ for it).
double int_power(double x, int n) {
  double r = 1;
  for (int i = 0; i < n; ++i)
    r *= x;
  return r;
}

// A void function with two outputs; its rule takes the outputs' seeds in
// d_s and d_c.
void sin_cos(double x, double *s, double *c) {
  *s = std::sin(x);
  *c = std::cos(x);
}

} // namespace calls

// Custom derivatives, declared before the functions that use them.
namespace fluxion::custom {

inline double clip_grad_vjp(double x, double seed, double *d_x) {
  *d_x += seed > 1 ? 1 : (seed < -1 ? -1 : seed);
  return calls::clip_grad(x);
}

inline double log1pexp_vjp(double x, double seed, double *d_x) {
  *d_x += seed * (1 - 1 / (1 + std::exp(x)));
  return calls::log1pexp(x);
}

inline double softplus_vjp(double x, double seed, double *d_x) {
  *d_x += seed * (1 - 1 / (1 + std::exp(x)));
  return calls::softplus(x);
}

inline double opaque_logistic_vjp(double x, double a, double seed, double *d_x,
                                  double *d_a) {
  double s = calls::opaque_logistic(x, a);
  *d_x += seed * s * (1 - s) * a;
  *d_a += seed * s * (1 - s) * x;
  return s;
}

inline double opaque_cubes_vjp(const double *x, int n, double seed,
                               double *d_x) {
  for (int i = 0; i < n; ++i)
    d_x[i] += seed * 3 * x[i] * x[i];
  return calls::opaque_cubes(x, n);
}

inline double int_power_vjp(double x, int n, double seed, double *d_x) {
  *d_x += seed * n * calls::int_power(x, n - 1);
  return calls::int_power(x, n);
}

inline void sin_cos_vjp(double x, double *s, double *c, double *d_x,
                        double *d_s, double *d_c) {
  *d_x += *d_s * std::cos(x) - *d_c * std::sin(x);
  calls::sin_cos(x, s, c);
}

} // namespace fluxion::custom

namespace calls {

// A callee that overwrites two local arrays of its caller, called in a
// loop: the caller saves both before each call and restores them, in the
// opposite order, after the call's adjoint.
static void mix(const double *w, double *a, double *b, int n) {
  for (int i = 0; i < n; ++i) {
    double t = a[i];
    a[i] = t * w[i] + b[i];
    b[i] = b[i] * t - w[i];
  }
}
[[fluxion::grad]] double two_arrays(const double *w) {
  double a[3], b[3];
  for (int i = 0; i < 3; ++i) {
    a[i] = 1 + i * w[i];
    b[i] = w[i] * w[i] - 1;
  }
  double s = 0;
  for (int t = 1; t <= 3; ++t) {
    mix(w, a, b, 3);
    s += a[0] * b[1] + a[2] * a[2] * t + b[2];
  }
  return s;
}

// A callee with a body and an int parameter.
double scaled_sq(double x, double w, int k) { return k * w * x * x; }

// Calls the same callee with different active arguments, once with a
// constant argument.
[[fluxion::grad]] double two_calls(double x, double y) {
  double a = scaled_sq(x, y, 2);
  double b = scaled_sq(y, 3.0, 1);
  return a + b * x;
}

namespace inner {
double cube(double x) { return x * x * x; }
double inv(double x) { return 1 / x; }
} // namespace inner

// Nested calls across namespaces: inv(cube(x) + y).
[[fluxion::grad]] double nested_calls(double x, double y) {
  return inner::inv(inner::cube(x) + y) * y;
}

// Recursion: x^n by repeated squaring.
double rpow(double x, int n) {
  if (n == 0)
    return 1;
  double h = rpow(x, n / 2);
  return n % 2 ? h * h * x : h * h;
}
[[fluxion::grad]] double poly_rec(double x, double c) {
  return c * rpow(x, 5) + rpow(x, 2);
}

// Recursion over an array: a continued fraction x0 + 1/(x1 + 1/(x2 + ...)).
double cfrac(const double *x, int n) {
  if (n == 1)
    return x[0];
  return x[0] + 1 / cfrac(x + 1, n - 1);
}
[[fluxion::grad]] double cfrac_root(const double *x, int n) {
  return cfrac(x, n);
}

// A callee that writes an output array through a pointer.
void smooth(const double *in, double *out, int n, double a) {
  out[0] = in[0];
  for (int i = 1; i < n; ++i)
    out[i] = a * in[i] + (1 - a) * out[i - 1];
}
[[fluxion::grad]] double smoothed_energy(const double *x, int n, double a) {
  double buf[16];
  smooth(x, buf, n, a);
  double e = 0;
  for (int i = 0; i < n; ++i)
    e += buf[i] * buf[i];
  return e;
}

// A callee with two scalar outputs through pointers.
void split_poly(double t, double *even, double *odd) {
  *even = 1 + t * t / 2;
  *odd = t + t * t * t / 6;
}
[[fluxion::grad]] double use_split(double t, double w) {
  double e, o;
  split_poly(t, &e, &o);
  return e * w + o * o;
}

[[fluxion::grad]] double uses_clip(double x, double y) {
  return 5 * clip_grad(x * y) + clip_grad(0.5 * x);
}

[[fluxion::grad]] double uses_log1pexp(double x) { return 2 * log1pexp(x); }

// The annotated function itself has a custom derivative.
[[fluxion::grad]] double softplus(double x) { return std::log(1 + std::exp(x)); }

// Calls of functions without visible bodies.
[[fluxion::grad]] double uses_opaque(double x, double a) {
  return opaque_logistic(x, a) * x;
}
[[fluxion::grad]] double uses_opaque_array(const double *x, int n, double w) {
  return w * opaque_cubes(x, n);
}

// Rules with an int parameter and for a void function with outputs.
[[fluxion::grad]] double uses_int_power(double x) { return 2 * int_power(x, 3); }
[[fluxion::grad]] double uses_sin_cos(double x) {
  double s, c;
  sin_cos(2 * x, &s, &c);
  return s * c + s;
}

// stop_gradient: b = 2a contributes, b = stop_gradient(2a) does not.
[[fluxion::grad]] double no_stop(double a) {
  double b = 2 * a;
  return a + b;
}
[[fluxion::grad]] double with_stop(double a) {
  double b = fluxion::stop_gradient(2 * a);
  return a + b;
}
// A normalisation with a detached denominator (a common use).
[[fluxion::grad]] double detached_norm(const double *x, int n, int i) {
  double s = 0;
  for (int k = 0; k < n; ++k)
    s += x[k] * x[k];
  return x[i] / fluxion::stop_gradient(s);
}

// Declared (and annotated) first, defined later.
[[fluxion::grad]] double declared_first(double x, double y);

// Static.
[[fluxion::grad]] static double static_fn(double x) { return x * x * x - x; }

double declared_first(double x, double y) { return x / y + y * scaled_sq(x, 1.0, 1); }

} // namespace calls


using nt::ld;

TEST(Calls, SameCalleeTwiceWithConstantArgument) {
  for (auto [x, y] : {std::pair{0.5, 1.5}, {-1.25, 0.75}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return calls::two_calls(v[0], v[1]); },
        [](const double *v, double *d) {
          return calls::two_calls_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    // f = 2 y x^2 + 3 y^2 x
    NT_EXPECT_EXACT(double, g[0], 4 * x * y + 3 * y * y);
    NT_EXPECT_EXACT(double, g[1], 2 * x * x + 6 * x * y);
  }
}

TEST(Calls, NestedCallsAcrossNamespaces) {
  for (auto [x, y] : {std::pair{1.2, 0.5}, {-0.7, 2.0}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return calls::nested_calls(v[0], v[1]); },
        [](const double *v, double *d) {
          return calls::nested_calls_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    ld u = (ld)x * x * x + y;
    NT_EXPECT_EXACT(double, g[0], -y * 3 * (ld)x * x / (u * u));
    NT_EXPECT_EXACT(double, g[1], 1 / u - y / (u * u));
  }
}

TEST(Calls, Recursion) {
  for (auto [x, c] : {std::pair{1.1, 0.5}, {-0.8, 2.0}, {2.0, -1.0}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return calls::poly_rec(v[0], v[1]); },
        [](const double *v, double *d) {
          return calls::poly_rec_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, c});
    NT_EXPECT_EXACT(double, g[0], 5 * c * std::pow((ld)x, 4) + 2 * x);
    NT_EXPECT_EXACT(double, g[1], std::pow((ld)x, 5));
  }
}

TEST(Calls, RecursionOverArray) {
  const int n = 5;
  std::vector<double> x = {1.5, 2.0, 0.5, 3.0, 1.25};
  auto g = nt::check_gradient<double>(
      [&](const double *v) { return calls::cfrac_root(v, n); },
      [&](const double *v, double *d) { return calls::cfrac_root_grad(v, n, d); },
      x);
  // Closed form: with t_k = cfrac(x + k), dt_k/dx_k = 1 and
  // dt_k/dt_{k+1} = -1/t_{k+1}^2.
  std::vector<ld> t(n);
  t[n - 1] = x[n - 1];
  for (int k = n - 2; k >= 0; --k)
    t[k] = x[k] + 1 / t[k + 1];
  ld chain = 1;
  for (int k = 0; k < n; ++k) {
    NT_EXPECT_EXACT(double, g[k], chain);
    if (k + 1 < n)
      chain *= -1 / (t[k + 1] * t[k + 1]);
  }
}

TEST(Calls, CalleeOverwritesTwoLocalArraysInALoop) {
  auto f = [](const double *v) { return calls::two_arrays(v); };
  auto g = [](const double *v, double *d) {
    return calls::two_arrays_grad(v, d);
  };
  nt::check_gradient<double>(f, g, {0.5, 0.9, -0.7});
  nt::check_gradient<double>(f, g, {-0.6, 0.3, 0.8});
}

TEST(Calls, CalleeWritesOutputArray) {
  const int n = 6;
  nt::Rng rng(31);
  std::vector<double> in = rng.vec<double>(n + 1, -1, 1);
  in[n] = 0.3; // a
  auto g = nt::check_gradient<double>(
      [&](const double *v) { return calls::smoothed_energy(v, n, v[n]); },
      [&](const double *v, double *d) {
        return calls::smoothed_energy_grad(v, n, v[n], d, d + n);
      },
      in);
  // With a = 1 the filter is the identity: d/dx = 2x.
  std::vector<double> d(n, 0);
  double da = 0;
  calls::smoothed_energy_grad(in.data(), n, 1.0, d.data(), &da);
  for (int i = 0; i < n; ++i)
    NT_EXPECT_EXACT(double, d[i], 2 * in[i]);
  // de/da at a = 1: dout_i/da = x_i - out_{i-1} = x_i - x_{i-1} (i >= 1).
  ld ref = 0;
  for (int i = 1; i < n; ++i)
    ref += 2 * (ld)in[i] * (in[i] - in[i - 1]);
  NT_EXPECT_EXACT(double, da, ref);
}

TEST(Calls, CalleeWithScalarOutputs) {
  for (auto [t, w] : {std::pair{0.5, 2.0}, {-1.5, -0.25}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return calls::use_split(v[0], v[1]); },
        [](const double *v, double *d) {
          return calls::use_split_grad(v[0], v[1], &d[0], &d[1]);
        },
        {t, w});
    ld T = t, o = T + T * T * T / 6;
    NT_EXPECT_EXACT(double, g[0], T * w + 2 * o * (1 + T * T / 2));
    NT_EXPECT_EXACT(double, g[1], 1 + T * T / 2);
  }
}

TEST(Calls, CustomDerivativeReplacesBody) {
  // d/dx [5 clip(xy) + clip(x/2)] with clipped seeds: the outer seeds are 5
  // (clipped to 1) and 1 (kept), so d/dx = 1*y + 0.5, d/dy = 1*x.
  double dx = 0, dy = 0;
  double v = calls::uses_clip_grad(2.0, 3.0, &dx, &dy);
  NT_EXPECT_EXACT(double, v, 5 * 6.0 + 1.0);
  NT_EXPECT_EXACT(double, dx, 3.0 + 0.5);
  NT_EXPECT_EXACT(double, dy, 2.0);
  // Again: the rule adds.
  calls::uses_clip_grad(2.0, 3.0, &dx, &dy);
  NT_EXPECT_EXACT(double, dx, 2 * 3.5);
  NT_EXPECT_EXACT(double, dy, 4.0);
}

TEST(Calls, CustomDerivativeIsNumericallyStable) {
  // The derived derivative of log(1 + exp(x)) is NaN at x = 800 (inf/inf);
  // the rule gives 1 (TensorFlow's custom_gradient example, in double).
  double d = 0;
  calls::uses_log1pexp_grad(800.0, &d);
  NT_EXPECT_EXACT(double, d, 2.0);
  // And matches FD where the body is well-behaved.
  for (double x : {-3.0, 0.0, 2.5}) {
    ld g = nt::check_gradient1<double>(
        [](double v) { return calls::uses_log1pexp(v); },
        [](double v, double *dd) { return calls::uses_log1pexp_grad(v, dd); },
        x);
    NT_EXPECT_EXACT(double, g, 2 / (1 + std::exp(-(ld)x)));
  }
}

TEST(Calls, AnnotatedFunctionWithCustomDerivative) {
  double d = 0;
  calls::softplus_grad(800.0, &d);
  NT_EXPECT_EXACT(double, d, 1.0);
  double dv = 0;
  double v = calls::softplus_vjp(1.0, 3.0, &dv);
  NT_EXPECT_EXACT(double, v, std::log1p(std::exp(1.0L)));
  NT_EXPECT_EXACT(double, dv, 3 / (1 + std::exp(-1.0L)));
}

TEST(Calls, CustomDerivativeForFunctionWithoutBody) {
  for (auto [x, a] : {std::pair{0.5, 2.0}, {-1.0, 0.7}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return calls::uses_opaque(v[0], v[1]); },
        [](const double *v, double *d) {
          return calls::uses_opaque_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, a});
    ld s = 1 / (1 + std::exp(-(ld)a * x));
    NT_EXPECT_EXACT(double, g[0], s + x * s * (1 - s) * a);
    NT_EXPECT_EXACT(double, g[1], x * s * (1 - s) * x);
  }
  const int n = 4;
  std::vector<double> in = {0.5, -1.0, 1.5, 2.0, 0.75};
  auto g = nt::check_gradient<double>(
      [&](const double *v) { return calls::uses_opaque_array(v, n, v[n]); },
      [&](const double *v, double *d) {
        return calls::uses_opaque_array_grad(v, n, v[n], d, d + n);
      },
      in);
  for (int i = 0; i < n; ++i)
    NT_EXPECT_EXACT(double, g[i], 3 * in[n] * (ld)in[i] * in[i]);
}

TEST(Calls, CustomRuleWithIntParameter) {
  for (double x : {-1.25, 0.5, 1.5}) {
    ld g = nt::check_gradient1<double>(calls::uses_int_power,
                                       calls::uses_int_power_grad, x);
    NT_EXPECT_EXACT(double, g, 6 * (ld)x * x);
  }
}

TEST(Calls, CustomRuleForVoidFunctionWithOutputs) {
  for (double x : {-0.8, 0.4, 1.1}) {
    ld g = nt::check_gradient1<double>(calls::uses_sin_cos,
                                       calls::uses_sin_cos_grad, x);
    // sin(2x) cos(2x) + sin(2x) = sin(4x)/2 + sin(2x)
    NT_EXPECT_EXACT(double, g, 2 * std::cos(4 * (ld)x) + 2 * std::cos(2 * (ld)x));
  }
}

TEST(Calls, StopGradient) {
  double d = 0;
  NT_EXPECT_EXACT(double, calls::no_stop_grad(1.5, &d), 4.5);
  NT_EXPECT_EXACT(double, d, 3.0);
  d = 0;
  NT_EXPECT_EXACT(double, calls::with_stop_grad(1.5, &d), 4.5);
  NT_EXPECT_EXACT(double, d, 1.0);
  calls::with_stop_grad(1.5, &d);
  NT_EXPECT_EXACT(double, d, 2.0);
  // FD sees the full derivative, 3; the stopped one is 1 by definition.
  ld fd = nt::central_diff<double>([](double a) { return calls::with_stop(a); }, 1.5);
  NT_EXPECT_CLOSE(fd, 3.0L, 1e-8L, 0.0L);

  const int n = 3;
  std::vector<double> x = {1.0, 2.0, -2.0};
  std::vector<double> dx(n, 0);
  calls::detached_norm_grad(x.data(), n, 1, dx.data());
  NT_EXPECT_EXACT(double, dx[0], 0.0);
  NT_EXPECT_EXACT(double, dx[1], 1 / 9.0L);
  NT_EXPECT_EXACT(double, dx[2], 0.0);
}

TEST(Calls, DeclaredFirstDefinedLater) {
  for (auto [x, y] : {std::pair{0.5, 2.0}, {-1.5, -0.5}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return calls::declared_first(v[0], v[1]); },
        [](const double *v, double *d) {
          return calls::declared_first_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    NT_EXPECT_EXACT(double, g[0], 1 / (ld)y + 2 * y * x);
    NT_EXPECT_EXACT(double, g[1], -x / ((ld)y * y) + (ld)x * x);
  }
}

TEST(Calls, StaticFunction) {
  for (double x : {-2.0, 0.3, 1.7}) {
    ld g = nt::check_gradient1<double>(
        [](double v) { return calls::static_fn(v); },
        [](double v, double *d) { return calls::static_fn_grad(v, d); }, x);
    NT_EXPECT_EXACT(double, g, 3 * (ld)x * x - 1);
  }
}
