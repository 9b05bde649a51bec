// References (contract v2, "C++ types"): const T& parameters are inputs
// with a T* adjoint, like a by-value scalar; non-const T& parameters are
// in/out, like a non-const pointer (in f_vjp the adjoint holds the output's
// seed on entry); callees take and write references; a value bound to a
// const T& is a temporary. Every derivative is checked against finite
// differences of the primal and, across modes, by the dot-product test.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <type_traits>

#include "numeric_check.hpp"

namespace refs {

// Callees written the way C++ code is: values by const reference, results
// through non-const references, a swap.
double sq(const double &v) { return v * v; }
void swap_values(double &a, double &b) {
  double t = a;
  a = b;
  b = t;
}
void scale_by(double &v, const double &k) { v *= k; }
void accumulate(const double &w, const double &x, double &acc) {
  acc += w * std::tanh(x);
}
float cube_f(const float &x) { return x * x * x; }

// Annotated functions with reference parameters.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
model(const double &x, const double &y) {
  double a = x, b = y;
  swap_values(a, b); // a = y, b = x
  scale_by(a, x);    // a = x y
  return sq(a) * b + sq(x + 1.0) + std::sin(a);
}

// x^3 y + x^2 + y: a const float& and a by-value double mixed.
[[fluxion::grad]] [[fluxion::jvp]] double mixed(const float &x, double y) {
  return cube_f(x) * y + sq(x) + y;
}

// An in/out reference: y <- y x + sin(y), then doubled.
[[fluxion::grad]] [[fluxion::jvp]] void update(const double &x, double &y) {
  y = y * x + std::sin(y);
  scale_by(y, 2.0);
}

// Array elements passed by reference in a loop, and a result that is also
// returned.
[[fluxion::grad]] [[fluxion::jvp]] double weighted(const double *w,
                                                   const double *x, int n,
                                                   double &acc) {
  for (int i = 0; i < n; ++i)
    accumulate(w[i], x[i], acc);
  return acc * acc;
}

// Only y is differentiated.
[[fluxion::grad("y")]] double only_y(const double &x, const double &y) {
  return x * y * y;
}

// A dense Jacobian with a const reference input.
[[fluxion::jacobian]] void polar(const double &r, const double &t,
                                 double out[2]) {
  out[0] = r * std::cos(t);
  out[1] = r * std::sin(t);
}

// long double through references.
[[fluxion::grad]] long double lmodel(const long double &x, long double &y) {
  y = y * x;
  return y * x;
}

// A callee with references and a custom derivative: the rule takes the
// references too.
double softclip(const double &x, const double &c) { return c * std::tanh(x / c); }

} // namespace refs

namespace fluxion::custom {
inline double softclip_vjp(const double &x, const double &c, double seed,
                           double *d_x, double *d_c) {
  double t = std::tanh(x / c);
  *d_x += seed * (1 - t * t);
  *d_c += seed * (t - (1 - t * t) * x / c);
  return refs::softclip(x, c);
}
inline double softclip_jvp(const double &x, const double &c, double t_x,
                           double t_c) {
  double t = std::tanh(x / c);
  return (1 - t * t) * t_x + (t - (1 - t * t) * x / c) * t_c;
}
} // namespace fluxion::custom

namespace refs {
[[fluxion::grad]] [[fluxion::jvp]] double uses_softclip(const double &x,
                                                        double c) {
  return softclip(x * x, c) + softclip(x, 2.0);
}
} // namespace refs

using nt::ld;

TEST(References, GeneratedSignatures) {
  // const T& keeps its spelling; its adjoint is a T*, its tangent a T.
  EXPECT_TRUE((std::is_same_v<decltype(&refs::model_grad),
                              double (*)(const double &, const double &,
                                         double *, double *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&refs::model_jvp),
                              double (*)(const double &, const double &,
                                         double, double)>));
  EXPECT_TRUE((std::is_same_v<decltype(&refs::update_vjp),
                              void (*)(const double &, double &, double *,
                                       double *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&refs::update_jvp),
                              void (*)(const double &, double &, double,
                                       double *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&refs::mixed_grad),
                              double (*)(const float &, double, float *,
                                         double *)>));
}

TEST(References, ConstReferenceInputsAndCallees) {
  for (auto p : {std::pair{1.5, 2.0}, {-0.75, 0.5}, {0.3, -1.25}}) {
    double x = p.first, y = p.second;
    auto g = nt::check_gradient<double>(
        [](const double *v) { return refs::model(v[0], v[1]); },
        [](const double *v, double *d) {
          return refs::model_grad(v[0], v[1], d, d + 1);
        },
        {x, y});
    // model = x^3 y^2 + (x+1)^2 + sin(x y) in closed form.
    NT_EXPECT_EXACT(double, g[0],
                    3 * x * x * y * y + 2 * (x + 1) + y * std::cos(x * y));
    NT_EXPECT_EXACT(double, g[1], 2 * x * x * x * y + x * std::cos(x * y));
    // Forward mode agrees (dot-product test with a scalar output).
    double tx = 0.3, ty = -0.7;
    NT_EXPECT_CLOSE(refs::model_jvp(x, y, tx, ty), tx * g[0] + ty * g[1],
                    1e-12L, 1e-12L);
  }
}

TEST(References, TemporariesAndConversionsBindToConstReferences) {
  // In float: the finite differences step x in its own type.
  auto g = nt::check_gradient<float>(
      [](const float *v) { return refs::mixed(v[0], v[1]); },
      [](const float *v, float *d) {
        double dy = 0;
        double r = refs::mixed_grad(v[0], v[1], d, &dy);
        d[1] += static_cast<float>(dy);
        return r;
      },
      {0.75f, -1.5f});
  NT_EXPECT_CLOSE(g[0], 3 * 0.75 * 0.75 * -1.5 + 2 * 0.75, 1e-6L, 1e-6L);
  float tx = 0.5f;
  NT_EXPECT_CLOSE(refs::mixed_jvp(0.75f, -1.5, tx, 0.25),
                  tx * g[0] + 0.25 * g[1], 1e-5L, 1e-5L);
}

TEST(References, InOutReferenceTakesItsSeed) {
  for (double x : {0.5, -1.25}) {
    for (double y0 : {2.0, -0.3}) {
      // y_out = 2 (y x + sin y): d/dx = 2 y, d/dy = 2 (x + cos y).
      double y = y0, dx = 0, dy = 0.75; // seed of y_out
      refs::update_vjp(x, y, &dx, &dy);
      NT_EXPECT_EXACT(double, dx, 0.75 * 2 * y0);
      NT_EXPECT_EXACT(double, dy, 0.75 * 2 * (x + std::cos(y0)));
      // f_vjp against finite differences of the primal.
      auto F = [&](double xv, double yv) {
        refs::update(xv, yv);
        return yv;
      };
      NT_EXPECT_CLOSE(dx / 0.75, nt::central_diff<double>([&](double v) { return F(v, y0); }, x),
                      2e-6L, 2e-8L);
      NT_EXPECT_CLOSE(dy / 0.75, nt::central_diff<double>([&](double v) { return F(x, v); }, y0),
                      2e-6L, 2e-8L);
      // f_jvp: the output tangent, in t_y (which holds y's tangent on entry).
      double y2 = y0, ty = -0.4;
      refs::update_jvp(x, y2, 0.3, &ty);
      EXPECT_DOUBLE_EQ(y2, 2 * (y0 * x + std::sin(y0)));
      NT_EXPECT_EXACT(double, ty, 0.3 * 2 * y0 + -0.4 * 2 * (x + std::cos(y0)));
    }
  }
}

TEST(References, ArrayElementsByReferenceInALoop) {
  const int n = 4;
  std::vector<double> in = {0.5, -1.0, 0.25, 2.0,   // w
                            0.3, 0.7, -0.2, -1.1,   // x
                            0.4};                   // acc
  auto F = [&](const double *v) {
    double acc = v[2 * n];
    return refs::weighted(v, v + n, n, acc);
  };
  auto G = [&](const double *v, double *d) {
    // acc is in/out: its final value gets seed 0, its entry value's
    // adjoint is added to d.
    double acc = v[2 * n], dacc = 0;
    double r = refs::weighted_grad(v, v + n, n, acc, d, d + n, &dacc);
    d[2 * n] += dacc;
    return r;
  };
  auto g = nt::check_gradient<double>(F, G, in);
  // Dot-product test: <jvp(v), 1> == <v, grad>.
  std::vector<double> t(2 * n + 1);
  for (int i = 0; i < 2 * n + 1; ++i)
    t[i] = 0.1 * (i + 1) * (i % 2 ? -1 : 1);
  double acc = in[2 * n], tacc = t[2 * n];
  double jv = refs::weighted_jvp(in.data(), in.data() + n, n, acc, t.data(),
                                 t.data() + n, &tacc);
  ld dot = 0;
  for (int i = 0; i < 2 * n + 1; ++i)
    dot += t[i] * g[i];
  NT_EXPECT_CLOSE(jv, dot, 1e-12L, 1e-12L);
}

TEST(References, RestrictedAnnotation) {
  double dy = 0;
  EXPECT_DOUBLE_EQ(refs::only_y_grad(2.0, 3.0, &dy), 18.0);
  EXPECT_DOUBLE_EQ(dy, 12.0);
}

TEST(References, HessianOfConstReferenceInputs) {
  for (auto p : {std::pair{0.7, 1.3}, {-0.4, 0.9}}) {
    double x = p.first, y = p.second;
    double H[4];
    refs::model_hessian(x, y, H);
    // Against finite differences of the gradient.
    for (int j = 0; j < 2; ++j) {
      auto Gj = [&](int i, double xv, double yv) {
        double d[2] = {0, 0};
        refs::model_grad(xv, yv, d, d + 1);
        return d[i];
      };
      for (int i = 0; i < 2; ++i) {
        ld fd = j == 0 ? nt::central_diff<double>([&](double v) { return Gj(i, v, y); }, x)
                       : nt::central_diff<double>([&](double v) { return Gj(i, x, v); }, y);
        NT_EXPECT_CLOSE(H[i * 2 + j], fd, 1e-6L, 1e-7L);
      }
    }
    // f_hvp, with the direction's const T& entries taken by value.
    double hx = 0, hy = 0;
    refs::model_hvp(x, y, 0.5, -1.0, &hx, &hy);
    NT_EXPECT_CLOSE(hx, 0.5 * H[0] - H[1], 1e-12L, 1e-12L);
    NT_EXPECT_CLOSE(hy, 0.5 * H[2] - H[3], 1e-12L, 1e-12L);
  }
}

TEST(References, JacobianOfConstReferenceInputs) {
  double out[2], J[4];
  refs::polar_jacobian(2.0, 0.6, out, J);
  NT_EXPECT_EXACT(double, J[0], std::cos(0.6));
  NT_EXPECT_EXACT(double, J[1], -2.0 * std::sin(0.6));
  NT_EXPECT_EXACT(double, J[2], std::sin(0.6));
  NT_EXPECT_EXACT(double, J[3], 2.0 * std::cos(0.6));
  // Elsewhere, against central differences: const T& parameters are
  // columns, the written array's elements are rows.
  for (double t : {-2.5, 0.0, 1.3}) {
    double o[2] = {0, 0};
    auto R = fluxion::check_jacobian(refs::polar, refs::polar_jacobian,
                                     0.75 - t, t, o);
    EXPECT_TRUE(R.ok()) << R;
    EXPECT_EQ(R.entries().size(), 4u) << R;
  }
}

TEST(References, LongDouble) {
  long double x = 1.25L, y = -0.5L, dx = 0, dy = 0;
  // result = y x^2 with y updated in place to y x; seed 1 on the result,
  // 0 on y's final value.
  long double r = refs::lmodel_grad(x, y, &dx, &dy);
  EXPECT_EQ(r, -0.5L * 1.25L * 1.25L);
  NT_EXPECT_EXACT(long double, dx, 2 * -0.5L * 1.25L);
  NT_EXPECT_EXACT(long double, dy, 1.25L * 1.25L);
}

TEST(References, CustomRuleTakesReferences) {
  for (double x : {0.4, -1.3}) {
    double c = 1.5;
    auto g = nt::check_gradient<double>(
        [](const double *v) { return refs::uses_softclip(v[0], v[1]); },
        [](const double *v, double *d) {
          return refs::uses_softclip_grad(v[0], v[1], d, d + 1);
        },
        {x, c});
    NT_EXPECT_CLOSE(refs::uses_softclip_jvp(x, c, 0.25, -0.5),
                    0.25 * g[0] - 0.5 * g[1], 1e-12L, 1e-12L);
  }
}

// A conditional lvalue bound to a const T& (fuzzer seed 251): read as a
// copy.
namespace refs {
[[fluxion::grad]] double picks(double a, double b) {
  return sq(a > b ? a : b) + sq(a < b ? a : b) * 0.5;
}
} // namespace refs

TEST(References, ConditionalBoundToConstReference) {
  for (auto p : {std::pair{1.5, -0.5}, {-0.25, 2.0}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return refs::picks(v[0], v[1]); },
        [](const double *v, double *d) {
          return refs::picks_grad(v[0], v[1], d, d + 1);
        },
        {p.first, p.second});
    double hi = std::max(p.first, p.second), lo = std::min(p.first, p.second);
    NT_EXPECT_EXACT(double, g[0], p.first == hi ? 2 * hi : lo);
  }
}
