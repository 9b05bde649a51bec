// Straight-line expressions: arithmetic, unary minus, compound assignment,
// ?:, comparisons, casts, const locals and overwritten variables.
#include <fluxion/fluxion.hpp>

#include "numeric_check.hpp"

namespace expr {

// Polynomial and rational terms with every binary operator and unary minus.
[[fluxion::grad]] double poly(double x, double y) {
  return 3 * x * x * y - 2 * y / x + -x + (x - y) * (x + y) - -y;
}

// Compound assignments on a local.
[[fluxion::grad]] double compound(double x, double y) {
  double r = x;
  r += y;
  r *= x;
  r -= 2 * y;
  r /= 1 + x * x;
  return r;
}

// A conditional expression selecting between two active values.
[[fluxion::grad]] double select(double x, double y) {
  return x > y ? x * x * y : y * y * y - x;
}

// A conditional inside an expression, with comparisons of every kind.
[[fluxion::grad]] double clamp_mix(double x, double lo, double hi) {
  double c = x < lo ? lo : (x >= hi ? hi : x);
  double s = (x <= 0.5) == (lo != hi) ? 2.0 : 3.0;
  return s * c * c + x;
}

// Casts: widening and back keeps the derivative, truncation to int has none.
[[fluxion::grad]] double casts(double x, double y) {
  long double wide = static_cast<long double>(x) * y;
  int whole = (int)x;
  double back = (double)wide;
  return back + whole * y + double(whole) * x;
}

// Const locals that reuse each other.
[[fluxion::grad]] double const_locals(double x, double y) {
  const double a = x * y;
  const double b = a + x;
  const double c = b / (1 + y * y);
  return a * b - c;
}

// A variable (and a parameter) overwritten several times in straight code.
[[fluxion::grad]] double overwrite(double x, double y) {
  double t = x * y;
  t = t * t + x;
  t = t / y;
  x = x * t;
  t = t - x * 0.25;
  y = y * y;
  return x + t * y;
}

// Increments and decrements are not floating operations here, but a double
// can be incremented too (derivative 1).
[[fluxion::grad]] double incr(double x) {
  double a = x;
  ++a;
  a++;
  --a;
  return a * a;
}

// Branchless selection through bool-to-double conversions.
[[fluxion::grad]] double branchless_max_sq(double x, double y) {
  double r = (x > y) * x + (x <= y) * y;
  return r * r;
}

} // namespace expr

using nt::ld;

TEST(Expressions, PolynomialMatchesFdAndClosedForm) {
  for (auto [x, y] : {std::pair{1.5, -0.75}, {-2.0, 3.0}, {0.3, 0.9}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return expr::poly(v[0], v[1]); },
        [](const double *v, double *d) {
          return expr::poly_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    ld X = x, Y = y;
    NT_EXPECT_EXACT(double, g[0], 6 * X * Y + 2 * Y / (X * X) - 1 + 2 * X);
    NT_EXPECT_EXACT(double, g[1], 3 * X * X - 2 / X - 2 * Y + 1);
  }
}

TEST(Expressions, CompoundAssignment) {
  for (auto [x, y] : {std::pair{0.7, 1.3}, {-1.1, 0.4}, {2.5, -3.0}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return expr::compound(v[0], v[1]); },
        [](const double *v, double *d) {
          return expr::compound_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    // r = ((x + y) x - 2y) / (1 + x^2)
    ld X = x, Y = y, N = (X + Y) * X - 2 * Y, D = 1 + X * X;
    NT_EXPECT_EXACT(double, g[0], ((2 * X + Y) * D - N * 2 * X) / (D * D));
    NT_EXPECT_EXACT(double, g[1], (X - 2) / D);
  }
}

TEST(Expressions, ConditionalBothBranches) {
  // x > y: f = x^2 y
  auto g = nt::check_gradient<double>(
      [](const double *v) { return expr::select(v[0], v[1]); },
      [](const double *v, double *d) {
        return expr::select_grad(v[0], v[1], &d[0], &d[1]);
      },
      {2.0, 1.5});
  NT_EXPECT_EXACT(double, g[0], 2 * 2.0 * 1.5);
  NT_EXPECT_EXACT(double, g[1], 4.0);
  // x <= y: f = y^3 - x
  g = nt::check_gradient<double>(
      [](const double *v) { return expr::select(v[0], v[1]); },
      [](const double *v, double *d) {
        return expr::select_grad(v[0], v[1], &d[0], &d[1]);
      },
      {-1.0, 0.5});
  NT_EXPECT_EXACT(double, g[0], -1.0);
  NT_EXPECT_EXACT(double, g[1], 3 * 0.25);
}

TEST(Expressions, ClampWithComparisons) {
  auto F = [](const double *v) { return expr::clamp_mix(v[0], v[1], v[2]); };
  auto G = [](const double *v, double *d) {
    return expr::clamp_mix_grad(v[0], v[1], v[2], &d[0], &d[1], &d[2]);
  };
  // Below, inside and above the interval [lo, hi].
  auto g = nt::check_gradient<double>(F, G, {-1.0, -0.5, 1.0}); // c = lo
  NT_EXPECT_EXACT(double, g[0], 1.0);
  NT_EXPECT_EXACT(double, g[1], 2 * 2.0 * -0.5);
  NT_EXPECT_EXACT(double, g[2], 0.0);
  g = nt::check_gradient<double>(F, G, {0.75, -0.5, 1.0}); // c = x, s = 3
  NT_EXPECT_EXACT(double, g[0], 2 * 3.0 * 0.75 + 1);
  NT_EXPECT_EXACT(double, g[1], 0.0);
  g = nt::check_gradient<double>(F, G, {1.5, -0.5, 1.0}); // c = hi
  NT_EXPECT_EXACT(double, g[0], 1.0);
  NT_EXPECT_EXACT(double, g[2], 2 * 3.0 * 1.0);
}

TEST(Expressions, Casts) {
  for (auto [x, y] : {std::pair{2.5, 1.25}, {-3.7, 0.5}, {0.25, -2.0}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return expr::casts(v[0], v[1]); },
        [](const double *v, double *d) {
          return expr::casts_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    ld w = (int)x;
    NT_EXPECT_EXACT(double, g[0], y + w);
    NT_EXPECT_EXACT(double, g[1], x + w);
  }
}

TEST(Expressions, ConstLocals) {
  for (auto [x, y] : {std::pair{1.2, -0.7}, {-0.4, 2.2}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return expr::const_locals(v[0], v[1]); },
        [](const double *v, double *d) {
          return expr::const_locals_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    // f = xy (xy + x) - (xy + x) / (1 + y^2)
    ld X = x, Y = y, q = 1 + Y * Y;
    NT_EXPECT_EXACT(double, g[0], 2 * X * Y * Y + 2 * X * Y - (Y + 1) / q);
    NT_EXPECT_EXACT(double, g[1],
                    2 * X * X * Y + X * X -
                        (X * q - (X * Y + X) * 2 * Y) / (q * q));
  }
}

TEST(Expressions, OverwrittenScalars) {
  for (auto [x, y] : {std::pair{0.8, 1.7}, {-1.3, 0.6}, {2.0, -1.5}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return expr::overwrite(v[0], v[1]); },
        [](const double *v, double *d) {
          return expr::overwrite_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    // t1 = (xy)^2 + x, t2 = t1 / y, x1 = x t2, t3 = t2 - x1/4,
    // f = x1 + t3 y^2 = x t2 + (t2 - x t2 / 4) y^2 = t2 (x + y^2 - x y^2/4)
    // with t2 = x^2 y + x / y.
    ld X = x, Y = y;
    ld t2 = X * X * Y + X / Y, k = X + Y * Y - X * Y * Y / 4;
    ld dt2x = 2 * X * Y + 1 / Y, dt2y = X * X - X / (Y * Y);
    ld dkx = 1 - Y * Y / 4, dky = 2 * Y - X * Y / 2;
    NT_EXPECT_EXACT(double, g[0], dt2x * k + t2 * dkx);
    NT_EXPECT_EXACT(double, g[1], dt2y * k + t2 * dky);
  }
}

TEST(Expressions, IncrementOfDouble) {
  ld g = nt::check_gradient1<double>(
      [](double x) { return expr::incr(x); },
      [](double x, double *d) { return expr::incr_grad(x, d); }, 1.25);
  NT_EXPECT_EXACT(double, g, 2 * (1.25 + 1));
}

TEST(Expressions, VjpScalesBySeedAndReturnsValue) {
  double dx = 0, dy = 0;
  double v = expr::poly_vjp(1.5, -0.75, 2.5, &dx, &dy);
  NT_EXPECT_EXACT(double, v, expr::poly(1.5, -0.75));
  double gx = 0, gy = 0;
  expr::poly_grad(1.5, -0.75, &gx, &gy);
  NT_EXPECT_EXACT(double, dx, 2.5L * gx);
  NT_EXPECT_EXACT(double, dy, 2.5L * gy);
  // A zero seed adds nothing.
  double zx = 0.5, zy = -0.5;
  expr::poly_vjp(1.5, -0.75, 0.0, &zx, &zy);
  EXPECT_EQ(zx, 0.5);
  EXPECT_EQ(zy, -0.5);
}

TEST(Expressions, BoolArithmetic) {
  auto F = [](const double *v) { return expr::branchless_max_sq(v[0], v[1]); };
  auto G = [](const double *v, double *d) {
    return expr::branchless_max_sq_grad(v[0], v[1], &d[0], &d[1]);
  };
  auto g = nt::check_gradient<double>(F, G, {1.5, 0.5});
  NT_EXPECT_EXACT(double, g[0], 3.0);
  NT_EXPECT_EXACT(double, g[1], 0.0);
  g = nt::check_gradient<double>(F, G, {-1.5, 0.5});
  NT_EXPECT_EXACT(double, g[0], 0.0);
  NT_EXPECT_EXACT(double, g[1], 1.0);
}
