// The call-site form: fluxion::grad(f), vjp, jvp, hvp, hessian and jacobian
// on functions nobody annotated (free, static members, template instances),
// with and without parameter names, made at namespace scope, in templates
// and in lambdas, and sharing the generated function with an annotation.
// Every derivative is checked against finite differences, and reverse mode
// against forward mode by the dot-product test.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace cs {
double energy(double x, const double *w, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += w[i] * std::sin(x * w[i]);
  return s;
}

// y = A(x) x, written into an output array.
void model(const double *x, double *y, double k) {
  y[0] = k * x[0] * x[1];
  y[1] = std::exp(k * x[0]) - x[1];
  y[2] = x[0] / (1 + x[1] * x[1]);
}

double two(double a, double b) { return a * a * b + std::log(1 + b * b); }

struct Physics {
  static double spring(double x, double k) { return 0.5 * k * x * x * x; }
};

template <class T> T cube(T x, T y) { return x * x * x * y; }
template <class T> [[fluxion::grad]] T sq(T x) { return x * x; }

void mapping(double x, const double y[2], double out[2]) {
  out[0] = x * y[0] * y[1];
  out[1] = std::sin(x) + y[1] * y[1];
}

[[fluxion::grad]] double annotated(double x, double y) { return x * std::cos(y); }
} // namespace cs

// Made at namespace scope, before any function uses it.
const auto energy_grad_x = fluxion::grad(cs::energy, "x");

namespace {

TEST(CallSite, GradOfAnUnannotatedFunction) {
  double w[3] = {0.5, -1.25, 2.0};
  auto df = fluxion::grad(cs::energy);
  auto R = fluxion::check_gradient(cs::energy, df, 0.3, fluxion::span(w, 3), 3);
  EXPECT_TRUE(R.ok()) << R;
  // The same numbers as the derivative made at namespace scope for x only.
  double dx = 0, dw[3] = {0, 0, 0}, dx_only = 0;
  double y = df(0.3, w, 3, &dx, dw);
  double y_only = energy_grad_x(0.3, w, 3, &dx_only);
  EXPECT_EQ(y, cs::energy(0.3, w, 3));
  EXPECT_EQ(y_only, y);
  EXPECT_DOUBLE_EQ(dx_only, dx);
}

TEST(CallSite, NamesRestrictTheAdjoints) {
  auto d_b = fluxion::grad(cs::two, "b");
  auto d_ab = fluxion::grad(cs::two, "a", "b");
  double db = 0, da2 = 0, db2 = 0;
  d_b(1.5, -0.5, &db);
  d_ab(1.5, -0.5, &da2, &db2);
  EXPECT_DOUBLE_EQ(db, db2);
  EXPECT_NEAR(db, 1.5 * 1.5 + 2 * -0.5 / (1 + 0.25), 1e-14);
  EXPECT_NEAR(da2, 2 * 1.5 * -0.5, 1e-14);
}

TEST(CallSite, VjpAndJvpAgreeByTheDotProductTest) {
  auto vjp = fluxion::vjp(cs::model);
  auto jvp = fluxion::jvp(cs::model);
  double x[2] = {0.4, -0.7}, y[3];
  double ybar[3] = {0.3, -1.1, 0.8}, xbar[2] = {0, 0};
  double dk = 0;
  // The adjoint of y holds the seed on entry.
  double seed[3] = {ybar[0], ybar[1], ybar[2]};
  vjp(x, y, 1.3, xbar, seed, &dk);
  double tx[2] = {0.9, 0.2}, ty[3] = {0, 0, 0};
  jvp(x, y, 1.3, tx, ty, 0.6);
  double lhs = 0, rhs = tx[0] * xbar[0] + tx[1] * xbar[1] + 0.6 * dk;
  for (int i = 0; i < 3; ++i)
    lhs += ty[i] * ybar[i];
  EXPECT_NEAR(lhs, rhs, 1e-13 * (1 + std::fabs(lhs)));
  auto R = fluxion::check_jvp(cs::model, jvp, fluxion::span(x, 2),
                              fluxion::span(y, 3), 1.3);
  EXPECT_TRUE(R.ok()) << R;
}

TEST(CallSite, ArgumentsConvertAsInADirectCall) {
  auto vjp = fluxion::vjp(cs::two);
  auto jvp = fluxion::jvp(cs::two);
  double da = 0, db = 0;
  // An int seed, and an int tangent.
  double y = vjp(1.5, -0.5, 2, &da, &db);
  EXPECT_EQ(y, cs::two(1.5, -0.5));
  double t = jvp(1.5, -0.5, 1, 0);
  EXPECT_NEAR(da, 2 * t, 1e-14);
}

TEST(CallSite, SecondOrderAndJacobian) {
  auto hessian = fluxion::hessian(cs::two);
  auto hvp = fluxion::hvp(cs::two);
  double H[4];
  hessian(1.5, -0.5, H);
  EXPECT_NEAR(H[0], 2 * -0.5, 1e-13);
  EXPECT_NEAR(H[1], 2 * 1.5, 1e-13);
  EXPECT_NEAR(H[2], H[1], 1e-13);
  double hv_a = 0, hv_b = 0;
  hvp(1.5, -0.5, 0.25, -2.0, &hv_a, &hv_b);
  EXPECT_NEAR(hv_a, H[0] * 0.25 + H[1] * -2.0, 1e-12);
  EXPECT_NEAR(hv_b, H[2] * 0.25 + H[3] * -2.0, 1e-12);
  auto R = fluxion::check_hvp(cs::two, hvp, 1.5, -0.5);
  EXPECT_TRUE(R.ok()) << R;

  double y[2] = {0.7, -1.2}, out[2] = {0, 0};
  auto jac = fluxion::jacobian(cs::mapping);
  auto J = fluxion::check_jacobian(cs::mapping, jac, 0.4, y, out);
  EXPECT_TRUE(J.ok()) << J;
  EXPECT_EQ(J.entries().size(), 6u) << J; // 2 outputs, 3 inputs
}

TEST(CallSite, StaticMembersAndTemplateInstances) {
  auto spring = fluxion::grad(&cs::Physics::spring, "x");
  double dx = 0;
  spring(0.8, 2.5, &dx);
  EXPECT_NEAR(dx, 1.5 * 2.5 * 0.8 * 0.8, 1e-14);
  auto cube_f = fluxion::grad(cs::cube<float>);
  auto cube_d = fluxion::grad(cs::cube<double>);
  float fx = 0, fy = 0;
  double dX = 0, dY = 0;
  cube_f(1.5f, 2.0f, &fx, &fy);
  cube_d(1.5, 2.0, &dX, &dY);
  EXPECT_FLOAT_EQ(fx, 3 * 1.5f * 1.5f * 2.0f);
  EXPECT_DOUBLE_EQ(dX, 3 * 1.5 * 1.5 * 2.0);
  EXPECT_DOUBLE_EQ(dY, 1.5 * 1.5 * 1.5);
  // An instance of an annotated template: the template's derivative.
  auto sq = fluxion::grad(cs::sq<double>);
  double ds = 0;
  sq(3.0, &ds);
  EXPECT_DOUBLE_EQ(ds, 6.0);
  EXPECT_EQ(reinterpret_cast<fluxion::detail::generated_fn>(sq.address()),
            reinterpret_cast<fluxion::detail::generated_fn>(
                static_cast<double (*)(double, double *)>(&cs::sq_grad<double>)));
}

TEST(CallSite, OneGeneratedFunctionWithTheAnnotation) {
  auto d = fluxion::grad(cs::annotated);
  EXPECT_EQ(reinterpret_cast<fluxion::detail::generated_fn>(d.address()),
            reinterpret_cast<fluxion::detail::generated_fn>(&cs::annotated_grad));
  double dx = 0, dy = 0;
  d(0.5, 0.25, &dx, &dy);
  EXPECT_DOUBLE_EQ(dx, std::cos(0.25));
}

// A derivative object passed to a template and captured by a lambda.
template <class D> double descend(D step, double x, double y, int n) {
  for (int i = 0; i < n; ++i) {
    double dx = 0, dy = 0;
    step(x, y, &dx, &dy);
    x -= 0.1 * dx;
  }
  return x;
}

TEST(CallSite, InTemplatesAndLambdas) {
  const auto d = fluxion::grad(cs::two);
  double x = descend(d, 2.0, 0.5, 20);
  // d/da (a^2 b) = 2ab: x shrinks by (1 - 0.1) each step.
  EXPECT_NEAR(x, 2.0 * std::pow(0.9, 20), 1e-12);
  auto by_lambda = [d](double a) {
    double da = 0, db = 0;
    d(a, 0.5, &da, &db);
    return da;
  };
  EXPECT_DOUBLE_EQ(by_lambda(3.0), 3.0);
}

} // namespace
