// Control flow: if/else-if/else, switch with fall-through and default, for,
// while and do loops, break/continue/early return in nested loops, loops
// whose trip count depends on the data, variables overwritten in loops.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <utility>

#include "numeric_check.hpp"

namespace cf {

// A piecewise function with an if / else-if / else chain.
[[fluxion::grad]] double piecewise(double x, double y) {
  double r;
  if (x < -1) {
    r = -x * x * y;
  } else if (x < 1) {
    r = x * y + y;
  } else {
    r = y * y * x;
  }
  return r;
}

// Horner evaluation: the accumulator is overwritten in every iteration.
[[fluxion::grad]] double horner(const double *c, int n, double x) {
  double p = 0;
  for (int i = n - 1; i >= 0; --i)
    p = p * x + c[i];
  return p;
}

// A loop whose trip count depends on x: halve x until it is small.
[[fluxion::grad]] double halve_until_small(double x, double y) {
  double s = 0;
  while (x > 1e-3) {
    s += x * y;
    x = x * 0.5;
  }
  return s + x;
}

// Newton's iteration for sqrt(a) in a do-while loop, stopped on a residual.
[[fluxion::grad]] double newton_sqrt(double a) {
  double y = a > 1 ? a : 1.0;
  int it = 0;
  double r;
  do {
    y = 0.5 * (y + a / y);
    r = y * y - a;
    ++it;
  } while (r * r > 1e-28 && it < 100);
  return y;
}

// Nested loops with continue, break and an early return.
[[fluxion::grad]] double scan(const double *a, int n, int m, double w) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      double v = a[i * m + j];
      if (v < 0)
        continue;
      if (v > 5)
        break;
      s += w * v * v;
      if (s > 40)
        return s * w;
    }
  }
  return s;
}

// An inner loop whose trip count depends on the data of the outer one.
[[fluxion::grad]] double grow(const double *x, int n, double w) {
  double total = 0;
  for (int i = 0; i < n; ++i) {
    double t = x[i];
    int k = 0;
    while (t < 10 && k < 50) {
      t = t * 1.5 + w;
      ++k;
    }
    total += t;
  }
  return total;
}

// Switch with fall-through and default, inside a loop.
[[fluxion::grad]] double switcher(const double *x, int n, double w) {
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    switch (i % 5) {
    case 0:
      acc += x[i] * x[i];
      [[fallthrough]];
    case 1:
      acc *= w;
      break;
    case 2:
      acc -= x[i];
      break;
    default:
      acc += acc * x[i];
    }
  }
  return acc;
}

// A plain while loop with continue, and a local overwritten across
// iterations.
[[fluxion::grad]] double while_continue(const double *x, int n) {
  int i = 0;
  double prev = 1, s = 0;
  while (i < n) {
    double v = x[i];
    ++i;
    if (v == 0)
      continue;
    s += prev * v;
    prev = v;
  }
  return s;
}

// An early return from inside a loop, found by a search.
[[fluxion::grad]] double first_above(const double *x, int n, double t) {
  for (int i = 0; i < n; ++i) {
    if (x[i] > t)
      return x[i] * x[i] - t;
  }
  return t * t;
}

// do-while loops whose conditions advance a counter or call a function,
// with a break in one of them.
inline double halve(double v) { return 0.5 * v; }
[[fluxion::grad]] double do_counted(double x, double w) {
  int it = 0;
  do {
    x = x * w + std::sin(x);
  } while (++it < 3);
  double y = x;
  do {
    y = y * y * 0.5 + w;
    if (y > 40)
      break;
  } while (halve(y) < 8 && it++ < 10);
  return x + y * w;
}

} // namespace cf

using nt::ld;

TEST(ControlFlow, IfElseIfElse) {
  auto F = [](const double *v) { return cf::piecewise(v[0], v[1]); };
  auto G = [](const double *v, double *d) {
    return cf::piecewise_grad(v[0], v[1], &d[0], &d[1]);
  };
  auto g = nt::check_gradient<double>(F, G, {-2.0, 1.5});
  NT_EXPECT_EXACT(double, g[0], -2 * -2.0 * 1.5);
  NT_EXPECT_EXACT(double, g[1], -4.0);
  g = nt::check_gradient<double>(F, G, {0.25, 1.5});
  NT_EXPECT_EXACT(double, g[0], 1.5);
  NT_EXPECT_EXACT(double, g[1], 1.25);
  g = nt::check_gradient<double>(F, G, {3.0, -0.5});
  NT_EXPECT_EXACT(double, g[0], 0.25);
  NT_EXPECT_EXACT(double, g[1], 2 * -0.5 * 3.0);
}

TEST(ControlFlow, HornerLoopOverwrite) {
  const int n = 5;
  std::vector<double> in = {1.0, -2.0, 0.5, 3.0, -1.5, 0.8}; // c[0..4], x
  auto F = [&](const double *v) { return cf::horner(v, n, v[n]); };
  auto G = [&](const double *v, double *d) {
    return cf::horner_grad(v, n, v[n], d, d + n);
  };
  auto g = nt::check_gradient<double>(F, G, in);
  ld x = in[n], dp = 0;
  for (int i = 0; i < n; ++i)
    NT_EXPECT_EXACT(double, g[i], std::pow(x, (ld)i));
  for (int i = 1; i < n; ++i)
    dp += i * in[i] * std::pow(x, (ld)(i - 1));
  NT_EXPECT_EXACT(double, g[n], dp);
}

TEST(ControlFlow, DataDependentTripCount) {
  for (double x : {1.0, 3.7, 0.01, 123.0, 0.0005}) {
    double y = -1.3;
    auto g = nt::check_gradient<double>(
        [](const double *v) { return cf::halve_until_small(v[0], v[1]); },
        [](const double *v, double *d) {
          return cf::halve_until_small_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    // s = sum_{k<K} x 2^-k y, returned s + x 2^-K, K the trip count.
    int K = 0;
    for (double t = x; t > 1e-3; t *= 0.5)
      ++K;
    ld geo = 0;
    for (int k = 0; k < K; ++k)
      geo += std::ldexp(1.0L, -k);
    NT_EXPECT_EXACT(double, g[0], y * geo + std::ldexp(1.0L, -K));
    NT_EXPECT_EXACT(double, g[1], x * geo);
  }
}

TEST(ControlFlow, DoWhileNewton) {
  for (double a : {0.3, 2.0, 9.0, 150.0}) {
    ld g = nt::check_gradient1<double>(
        [](double v) { return cf::newton_sqrt(v); },
        [](double v, double *d) { return cf::newton_sqrt_grad(v, d); }, a);
    // The derivative of the converged iteration is that of sqrt.
    NT_EXPECT_CLOSE(g, 0.5L / std::sqrt((ld)a), 1e-9L, 0.0L);
  }
}

TEST(ControlFlow, DoWhileWithStatementsInTheCondition) {
  for (auto [x, w] : {std::pair{0.3, 1.1}, std::pair{-0.6, 0.9},
                      std::pair{1.2, 1.4}}) {
    auto F = [](const double *v) { return cf::do_counted(v[0], v[1]); };
    auto G = [](const double *v, double *d) {
      return cf::do_counted_grad(v[0], v[1], &d[0], &d[1]);
    };
    nt::check_gradient<double>(F, G, {x, w});
  }
}

TEST(ControlFlow, NestedBreakContinueEarlyReturn) {
  const int n = 3, m = 4;
  // Row 0: negative skipped, 2 and 1 counted, 7 breaks.
  // Row 1: 3 counted, -1 skipped, 4 counted (s = 3 + 1 + 9 + 16 = 29 with w=1)
  // Row 2: 2.5 counted; then 3 would push s over 40 with w = 1.
  std::vector<double> a = {-1.0, 2.0, 1.0, 7.0, //
                           3.0,  -1., 4.0, 0.5, //
                           2.5,  3.0, 1.0, 1.0};
  for (double w : {1.0, 0.5, 1.1}) {
    std::vector<double> in = a;
    in.push_back(w);
    auto F = [&](const double *v) { return cf::scan(v, n, m, v[n * m]); };
    auto G = [&](const double *v, double *d) {
      return cf::scan_grad(v, n, m, v[n * m], d, d + n * m);
    };
    auto g = nt::check_gradient<double>(F, G, in);
    // Reference by hand: replay the control flow on plain doubles.
    std::vector<ld> ref(n * m + 1, 0);
    ld s = 0;
    bool returned = false;
    for (int i = 0; i < n && !returned; ++i)
      for (int j = 0; j < m; ++j) {
        ld v = a[i * m + j];
        if (v < 0)
          continue;
        if (v > 5)
          break;
        s += w * v * v;
        ref[i * m + j] += 2 * w * v;
        ref[n * m] += v * v;
        if (s > 40) {
          // f = s * w: df = w ds + s dw
          for (auto &r : ref)
            r *= w;
          ref[n * m] += s;
          returned = true;
          break;
        }
      }
    for (int k = 0; k <= n * m; ++k)
      NT_EXPECT_EXACT(double, g[k], ref[k]) << "k = " << k << ", w = " << w;
  }
}

TEST(ControlFlow, NestedDataDependentLoops) {
  const int n = 4;
  std::vector<double> in = {0.5, 3.0, 12.0, 9.9, 0.7}; // x[0..3], w
  auto F = [&](const double *v) { return cf::grow(v, n, v[n]); };
  auto G = [&](const double *v, double *d) {
    return cf::grow_grad(v, n, v[n], d, d + n);
  };
  auto g = nt::check_gradient<double>(F, G, in);
  // t_K = 1.5^K x + w (1.5^K - 1) / 0.5 for K iterations.
  ld dw = 0;
  for (int i = 0; i < n; ++i) {
    int K = 0;
    for (double t = in[i]; t < 10 && K < 50; t = t * 1.5 + in[n])
      ++K;
    ld p = std::pow(1.5L, (ld)K);
    NT_EXPECT_EXACT(double, g[i], p);
    dw += (p - 1) / 0.5L;
  }
  NT_EXPECT_EXACT(double, g[n], dw);
}

TEST(ControlFlow, SwitchFallThroughDefaultInLoop) {
  const int n = 12;
  nt::Rng rng(7);
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<double> in = rng.vec<double>(n + 1, -1.5, 1.5);
    auto F = [&](const double *v) { return cf::switcher(v, n, v[n]); };
    auto G = [&](const double *v, double *d) {
      return cf::switcher_grad(v, n, v[n], d, d + n);
    };
    nt::check_gradient<double>(F, G, in);
  }
  // Closed form for n = 5: acc after the loop
  //   i=0: acc = x0^2 * w; i=1: acc *= w; i=2: acc -= x2;
  //   i=3: acc *= (1 + x3); i=4: acc *= (1 + x4)
  std::vector<double> x = {0.5, 9.0, -0.25, 0.75, -0.5};
  double w = 1.25;
  std::vector<double> d(5, 0);
  double dw = 0;
  cf::switcher_grad(x.data(), 5, w, d.data(), &dw);
  ld A = (ld)x[0] * x[0] * w * w - x[2], P = (1 + (ld)x[3]) * (1 + (ld)x[4]);
  NT_EXPECT_EXACT(double, d[0], 2 * (ld)x[0] * w * w * P);
  NT_EXPECT_EXACT(double, d[1], 0.0L);
  NT_EXPECT_EXACT(double, d[2], -P);
  NT_EXPECT_EXACT(double, d[3], A * (1 + (ld)x[4]));
  NT_EXPECT_EXACT(double, d[4], A * (1 + (ld)x[3]));
  NT_EXPECT_EXACT(double, dw, 2 * (ld)x[0] * x[0] * w * P);
}

TEST(ControlFlow, WhileWithContinue) {
  const int n = 6;
  auto F = [&](const double *v) { return cf::while_continue(v, n); };
  auto G = [&](const double *v, double *d) {
    return cf::while_continue_grad(v, n, d);
  };
  // No zero: nothing skipped, s = x0 + x0 x1 + x1 x2 + ... + x4 x5.
  std::vector<double> in = {0.5, 1.25, -2.0, 1.5, -0.75, 3.0};
  auto g = nt::check_gradient<double>(F, G, in);
  for (int i = 0; i < n; ++i) {
    ld ref = (i == 0 ? 1 : in[i - 1]) + (i + 1 < n ? in[i + 1] : 0);
    NT_EXPECT_EXACT(double, g[i], ref);
  }
  // Zeros are skipped by continue (FD is discontinuous there, so the closed
  // form is the reference): s = 1*x0 + x0 x2 + x2 x3 + x3 x5.
  in = {0.5, 0.0, -2.0, 1.5, 0.0, 3.0};
  std::vector<double> d(n, 0);
  double v = cf::while_continue_grad(in.data(), n, d.data());
  NT_EXPECT_EXACT(double, v, cf::while_continue(in.data(), n));
  NT_EXPECT_EXACT(double, d[0], 1 + in[2]);
  NT_EXPECT_EXACT(double, d[1], 0.0);
  NT_EXPECT_EXACT(double, d[2], in[0] + in[3]);
  NT_EXPECT_EXACT(double, d[3], in[2] + in[5]);
  NT_EXPECT_EXACT(double, d[4], 0.0);
  NT_EXPECT_EXACT(double, d[5], in[3]);
}

TEST(ControlFlow, EarlyReturnFromLoop) {
  const int n = 4;
  std::vector<double> in = {0.1, -2.0, 1.7, 3.0, 1.0}; // x[0..3], t
  auto F = [&](const double *v) { return cf::first_above(v, n, v[n]); };
  auto G = [&](const double *v, double *d) {
    return cf::first_above_grad(v, n, v[n], d, d + n);
  };
  auto g = nt::check_gradient<double>(F, G, in);
  NT_EXPECT_EXACT(double, g[2], 2 * 1.7);
  NT_EXPECT_EXACT(double, g[3], 0.0);
  NT_EXPECT_EXACT(double, g[n], -1.0);
  // No element above t: the return after the loop.
  in[n] = 5.0;
  g = nt::check_gradient<double>(F, G, in);
  for (int i = 0; i < n; ++i)
    NT_EXPECT_EXACT(double, g[i], 0.0);
  NT_EXPECT_EXACT(double, g[n], 10.0);
}
