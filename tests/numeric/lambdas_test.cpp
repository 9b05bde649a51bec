// Lambdas defined and called inside differentiated code: capture by
// reference (the captured variable receives its adjoint), by copy (the
// value where the lambda is created, even if the variable changes later),
// init-captures, generic lambdas, lambdas written and called in place,
// lambdas in callees and in loops, a lambda writing through a reference
// parameter and one calling another. Each is checked against finite
// differences (fluxion::check_gradient, check_jvp) and, for the Hessian,
// against differences of the gradient.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace lam {

[[fluxion::grad]] [[fluxion::jvp]] double by_reference(double x, double y) {
  auto f = [&](double t) { return t * y + std::sin(t); };
  return f(x) + f(x * y);
}

// The copy of k is taken where the lambda is created.
[[fluxion::grad]] [[fluxion::jvp]] double by_copy(const double *x, int n,
                                                  double k) {
  double acc = 0;
  auto add = [&acc, k](double v) { acc += k * v * v; };
  for (int i = 0; i < n; ++i)
    add(x[i]);
  k = k * k + 3;
  add(x[0]); // still the old k
  return acc + k;
}

[[fluxion::grad]] double generic_and_init_capture(const double *x, double s) {
  auto sq = [](auto v) { return v * v; };
  auto scaled = [w = 2 * s](double v) {
    double e = std::exp(-v);
    return w * e;
  };
  float f = float(x[1]);
  return sq(x[0]) + sq(f) + scaled(x[1]) + [&] { return x[0] * s; }();
}

// A lambda calling another, defined in a loop over a captured index.
[[fluxion::grad]] [[fluxion::jvp]] double nested_in_loop(const double *w,
                                                         const double *x,
                                                         int n) {
  double s = 0;
  auto act = [](double z) { return z / (1 + std::fabs(z)); };
  for (int i = 0; i < n; ++i) {
    auto term = [&, i](double scale) { return act(w[i] * x[i]) * scale; };
    s += term(1.0) + term(x[i]);
  }
  return s;
}

// A lambda writing through a reference parameter, called on a local.
[[fluxion::grad]] double reference_parameter(double x, double y) {
  auto accumulate = [](double &acc, double v) { acc += v * v; };
  double a = x;
  accumulate(a, y);
  accumulate(a, x * y);
  return a * std::cos(x);
}

// A callee using a lambda, called from the annotated function.
double softplus_sum(const double *z, int n) {
  auto softplus = [](double t) { return std::log1p(std::exp(t)); };
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += softplus(z[i]);
  return s;
}
[[fluxion::grad]] [[fluxion::hessian]] double in_callee(const double *z) {
  return softplus_sum(z, 3) * z[0];
}

// A mutable copy keeps its changes from one call to the next, and is not
// the variable: assigning k afterwards changes neither.
[[fluxion::grad]] double mutable_copy(double x, double k) {
  auto next = [k]() mutable {
    k = k * 1.5 + 1;
    return k;
  };
  double a = next();
  double b = next();
  k = 10;
  return a * x + b * x * x + k;
}

// A reference captured by copy copies what it refers to then.
[[fluxion::grad]] double reference_by_copy(double *a, double x) {
  double &r = a[0];
  auto f = [r](double t) { return r * t; };
  a[0] = a[0] * 3 + x;
  return f(x) + r;
}

// A non-const array a lambda only reads is an input of f_jacobian (one
// column per element), not an output.
[[fluxion::jacobian]] double read_in_lambda(double b[3], double x) {
  auto at = [&](int i) { return b[i] * x; };
  return at(0) + at(2) * at(2);
}

// A lambda returning std::fabs of an int: its result type is a library
// typedef that fluxion-gen's output must spell as double (fuzz seed 210;
// this file also runs through fluxion-gen + g++).
[[fluxion::grad]] double library_typed(double x, int n) {
  auto lam = [&](double a) { return std::fabs(n) + 0 * a; };
  if (lam(x) > 1.25f)
    return x * x;
  return x;
}

// Pointer parameters of a lambda: the argument variable again (they once
// were local copies without an adjoint pointer).
[[fluxion::grad]] [[fluxion::jvp]] double pointer_parameters(const double *v,
                                                              double *w,
                                                              double s) {
  auto dot = [](const double *a, double *b, double k) {
    double t = 0;
    for (int i = 0; i < 3; ++i)
      t += k * a[i] * b[i];
    return t;
  };
  return dot(v, w, s) + dot(w, w, 1.0);
}

// Lambdas passed to templates: the template is inlined with the lambda, so
// that captured variables receive their adjoints; a generic lambda, two
// lambdas composed, a function object, a const std::vector& parameter.
template <class F> double twice(F f, double x) { return f(x) + f(2 * x); }
template <class F> double sum_over(const std::vector<double> &v, F &&g) {
  double s = 0;
  for (double e : v)
    s += g(e);
  return s;
}
template <class F, class G> double compose(F f, G g, double x) {
  return f(g(x));
}
template <class F> void update(F f, double &acc, double x) { acc += f(x); }
struct Scale {
  double k;
  double operator()(double v) const { return k * v * v; }
};

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
passed_to_templates(const std::vector<double> &v, double k) {
  auto sq = [&](double t) { return k * t * t; };
  double s = twice(sq, v[0]);
  s += twice([k](double t) { return std::sin(k * t); }, v[1]);
  s += sum_over(v, [&](double e) { return std::exp(-e * k); });
  s += compose([](auto t) { return t * t; },
               [&](double t) { return std::cos(t) * k; }, v[2]);
  s += twice(Scale{k}, v[0]);
  double acc = 0;
  for (double e : v)
    update([&](double t) { return t * s; }, acc, e);
  return s + acc;
}

// A lambda that copies what it captures, called on the result of calls of
// itself and of another: the inner calls are lowered while the outer one
// holds the copies (they once pointed into storage the inner calls freed).
[[fluxion::grad]] [[fluxion::jvp]] double
called_on_its_own_result(double x, double y) {
  double k = 1.5 * y, c = 0.25;
  auto f = [=](double a) { return k * std::sin(a) + c; };
  auto g = [k, c](double a) {
    auto h = [c](double b) { return b * b + c; };
    return h(a) * k;
  };
  return f(f(x) + g(f(y))) + g(g(x));
}

// Function objects: stateless ones passed by value to a template callee,
// made in place, held in a local, called from a lambda; one with a member.
struct Square {
  double operator()(double v) const { return v * v; }
};
struct Softplus {
  double operator()(double v) const { return std::log1p(std::exp(v)); }
};
struct Scaling {
  double k;
  double operator()(double v) const { return k * v; }
};
template <class F> double apply_twice(F f, double v) { return f(f(v)); }
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
functors(double x, double w) {
  Square sq;
  double a = apply_twice(Square{}, x) + apply_twice(sq, w);
  double b = Softplus()(x * w) + sq(x - w);
  auto through = [&](double v) { return Softplus{}(v) * w; };
  return a * 0.1 + b + through(x) + apply_twice(Scaling{w}, x);
}

} // namespace lam

namespace {

TEST(Lambdas, CalledOnItsOwnResult) {
  for (double x : {0.3, -1.2})
    for (double y : {0.7, 1.1}) {
      auto R = fluxion::check_gradient(lam::called_on_its_own_result,
                                       lam::called_on_its_own_result_grad, x,
                                       y);
      EXPECT_TRUE(R.ok()) << R;
      auto J = fluxion::check_jvp(lam::called_on_its_own_result,
                                  lam::called_on_its_own_result_jvp, x, y);
      EXPECT_TRUE(J.ok()) << J;
    }
}

TEST(Lambdas, PassedToTemplates) {
  const std::vector<double> v = {0.3, -0.7, 1.1};
  auto R = fluxion::check_gradient(lam::passed_to_templates,
                                   lam::passed_to_templates_grad, v, 0.9);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(lam::passed_to_templates,
                              lam::passed_to_templates_jvp, v, 0.9);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(lam::passed_to_templates,
                              lam::passed_to_templates_hvp, v, 0.9);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Lambdas, ResultOfALibraryType) {
  double dx = 0;
  EXPECT_DOUBLE_EQ(lam::library_typed_grad(0.75, 2, &dx), 0.5625);
  EXPECT_DOUBLE_EQ(dx, 1.5);
  dx = 0;
  EXPECT_DOUBLE_EQ(lam::library_typed_grad(0.75, 1, &dx), 0.75);
  EXPECT_DOUBLE_EQ(dx, 1.0);
}

TEST(Lambdas, CaptureByReference) {
  auto R = fluxion::check_gradient(lam::by_reference, lam::by_reference_grad,
                                   0.7, -1.3);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(lam::by_reference, lam::by_reference_jvp, 0.7,
                              -1.3);
  EXPECT_TRUE(J.ok()) << J;
  // d/dy of x y + sin x + x y^2 + sin(x y): x + 2 x y + x cos(x y).
  double dx = 0, dy = 0;
  lam::by_reference_grad(0.7, -1.3, &dx, &dy);
  EXPECT_NEAR(dy, 0.7 + 2 * 0.7 * -1.3 + 0.7 * std::cos(0.7 * -1.3), 1e-13);
}

TEST(Lambdas, CaptureByCopyKeepsTheValueAtCreation) {
  double x[3] = {0.5, -1.25, 2.0};
  auto R = fluxion::check_gradient(lam::by_copy, lam::by_copy_grad,
                                   fluxion::span(x, 3), 3, 1.5);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(lam::by_copy, lam::by_copy_jvp,
                              fluxion::span(x, 3), 3, 1.5);
  EXPECT_TRUE(J.ok()) << J;
  // f = k (sum x^2 + x0^2) + k^2 + 3: df/dk = sum x^2 + x0^2 + 2k.
  double dx[3] = {}, dk = 0;
  double v = lam::by_copy_grad(x, 3, 1.5, dx, &dk);
  EXPECT_DOUBLE_EQ(v, 1.5 * (0.25 + 1.5625 + 4 + 0.25) + 1.5 * 1.5 + 3);
  EXPECT_NEAR(dk, 0.25 + 1.5625 + 4 + 0.25 + 3, 1e-13);
}

TEST(Lambdas, GenericInitCaptureAndCalledInPlace) {
  double x[2] = {0.3, -0.6};
  auto R = fluxion::check_gradient(lam::generic_and_init_capture,
                                   lam::generic_and_init_capture_grad,
                                   fluxion::span(x, 2), 0.8);
  EXPECT_TRUE(R.ok()) << R;
}

TEST(Lambdas, NestedAndInLoops) {
  double w[4] = {0.5, -1.0, 1.5, 0.25}, x[4] = {1.0, 0.5, -0.75, 2.0};
  auto R = fluxion::check_gradient(lam::nested_in_loop,
                                   lam::nested_in_loop_grad,
                                   fluxion::span(w, 4), fluxion::span(x, 4), 4);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(lam::nested_in_loop, lam::nested_in_loop_jvp,
                              fluxion::span(w, 4), fluxion::span(x, 4), 4);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Lambdas, MutableCopy) {
  auto R = fluxion::check_gradient(lam::mutable_copy, lam::mutable_copy_grad,
                                   0.75, 2.0);
  EXPECT_TRUE(R.ok()) << R;
  // a = 1.5k + 1, b = 2.25k + 2.5: df/dk = 1.5x + 2.25x^2 (k = 10 after).
  double dx = 0, dk = 0;
  lam::mutable_copy_grad(0.75, 2.0, &dx, &dk);
  EXPECT_NEAR(dk, 1.5 * 0.75 + 2.25 * 0.75 * 0.75, 1e-14);
}

TEST(Lambdas, ReferenceCapturedByCopy) {
  double a[1] = {2.0}, da[1] = {0}, dx = 0;
  double v = lam::reference_by_copy_grad(a, 0.5, da, &dx);
  // f = a0 x + 3 a0 + x at a0 = 2, x = 0.5.
  EXPECT_DOUBLE_EQ(v, 2.0 * 0.5 + 3 * 2.0 + 0.5);
  EXPECT_DOUBLE_EQ(dx, 2.0 + 1.0);
  EXPECT_DOUBLE_EQ(da[0], 0.5 + 3.0);
}

TEST(Lambdas, ArrayOnlyReadInALambdaIsAJacobianInput) {
  double b[3] = {0.5, -1.0, 1.5}, x = 0.75;
  double J[8];
  for (double &v : J)
    v = 99;
  lam::read_in_lambda_jacobian(b, x, J);
  // f = b0 x + b2^2 x^2: one row, columns b0 b1 b2 x.
  EXPECT_DOUBLE_EQ(J[0], x);
  EXPECT_DOUBLE_EQ(J[1], 0);
  EXPECT_DOUBLE_EQ(J[2], 2 * b[2] * x * x);
  EXPECT_DOUBLE_EQ(J[3], b[0] + 2 * b[2] * b[2] * x);
  for (int i = 4; i < 8; ++i)
    EXPECT_EQ(J[i], 99) << "written past the 1 x 4 Jacobian at " << i;
}

TEST(Lambdas, ReferenceParameter) {
  auto R = fluxion::check_gradient(lam::reference_parameter,
                                   lam::reference_parameter_grad, 0.9, -0.4);
  EXPECT_TRUE(R.ok()) << R;
}

TEST(Lambdas, PointerParameters) {
  double v[3] = {0.5, -1.25, 2.0}, w[3] = {1.5, 0.25, -0.75};
  auto R = fluxion::check_gradient(lam::pointer_parameters,
                                   lam::pointer_parameters_grad,
                                   fluxion::span(v, 3), fluxion::span(w, 3),
                                   0.7);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(lam::pointer_parameters,
                              lam::pointer_parameters_jvp, fluxion::span(v, 3),
                              fluxion::span(w, 3), 0.7);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Lambdas, InACalleeWithHessian) {
  double z[3] = {0.2, -0.7, 1.1};
  auto R = fluxion::check_gradient(lam::in_callee, lam::in_callee_grad,
                                   fluxion::span(z, 3));
  EXPECT_TRUE(R.ok()) << R;
  auto H = fluxion::check_hvp(lam::in_callee, lam::in_callee_hvp,
                              fluxion::span(z, 3));
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Lambdas, FunctionObjects) {
  for (auto [x, w] : {std::pair{0.4, -1.2}, std::pair{1.3, 0.7}}) {
    auto R = fluxion::check_gradient(lam::functors, lam::functors_grad, x, w);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(lam::functors, lam::functors_jvp, x, w);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(lam::functors, lam::functors_hvp, x, w);
    EXPECT_TRUE(H.ok()) << H;
  }
}

} // namespace
