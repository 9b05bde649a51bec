// Combinations of the supported constructs that real code produces: name
// shadowing, calls in conditions, jumps in switches and do-loops, strided and
// data-indexed loops, pointer arithmetic in calls, callees that update
// caller memory, long loops and deep recursion (the tape), threads,
// overloads, globals. Reference: central finite differences, plus closed
// forms where they are short.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <thread>

#include "numeric_check.hpp"

namespace edge {

constexpr int N = 5;

// Same local name in sibling blocks, in a loop body, and shadowing.
[[fluxion::grad]] double shadowing(double x, double y) {
  double s = 0;
  {
    double t = x * x;
    s += t;
  }
  {
    double t = y;
    s *= t;
  }
  double t = x;
  for (int i = 0; i < 2; ++i) {
    double t = s * y;
    s = t + x;
  }
  return s + t;
}

// A parameter named like the vjp's seed parameter.
[[fluxion::grad]] double named_seed(double x, int seed) { return x * x * seed; }

// Compound assignments of a variable with itself.
[[fluxion::grad]] double self_compound(double x) {
  double r = x + 1;
  r *= r;
  r += r;
  r -= 0.5 * r;
  return r;
}

// The same callee several times in one expression, nested in itself.
double sq(double v) { return v * v; }
[[fluxion::grad]] double repeated_callee(double x, double y) {
  return sq(x) * sq(y) + sq(sq(x));
}

// A call in a loop condition and a call in a short-circuit condition.
[[fluxion::grad]] double call_in_condition(double x) {
  double s = 0;
  while (sq(x) > 0.01) {
    s += x;
    x = x * 0.5;
  }
  if (s > 0 && std::log(s) > 0.5)
    s = s * s;
  return s;
}

// continue in a do-while (jumps to the condition).
[[fluxion::grad]] double do_continue(const double *a, int n) {
  int i = 0;
  double s = 0;
  do {
    double v = a[i];
    ++i;
    if (v < 0)
      continue;
    s += v * v;
  } while (i < n);
  return s;
}

// while (true) left by break.
[[fluxion::grad]] double while_true(double x) {
  double s = x;
  int k = 0;
  while (true) {
    s = s * x;
    ++k;
    if (k >= 3)
      break;
  }
  return s;
}

// continue and return inside a switch in a loop; default first with
// fall-through; nested switch.
[[fluxion::grad]] double switch_jumps(const double *a, int n) {
  double s = 1;
  for (int i = 0; i < n; ++i) {
    switch (i % 4) {
    default:
      s += a[i];
      [[fallthrough]];
    case 0:
      s *= a[i];
      break;
    case 1:
      continue;
    case 2:
      switch (i % 3) {
      case 2:
        s -= a[i] * a[i];
        break;
      default:
        if (s > 100)
          return s;
        s += 2 * a[i] * s;
      }
    }
    s += 0.5;
  }
  return s;
}

// Strided loops, counting down and up.
[[fluxion::grad]] double strided(const double *a, int n) {
  double s = 0;
  for (int i = n - 1; i >= 0; i -= 2)
    s += a[i] * a[i];
  for (int j = 0; j < n; j += 3)
    s *= a[j];
  return s;
}

// An index computed from the data.
[[fluxion::grad]] double data_index(const double *table, double x) {
  int k = (int)(x * 3);
  return table[k] * x;
}

// Pointer arithmetic in call arguments, output pointer to an array element.
void add_product(const double *in, double *out) { *out += in[0] * in[1]; }
[[fluxion::grad]] double pointer_args(const double *a, int n) {
  double acc[1] = {0};
  for (int i = 0; i + 1 < n; ++i)
    add_product(a + i, &acc[0]);
  return acc[0];
}

// A callee that overwrites its by-value parameter in a loop.
double repeat_square(double v, int k) {
  while (k > 0) {
    v = v * v;
    --k;
  }
  return v;
}
[[fluxion::grad]] double by_value_overwrite(double x) {
  return repeat_square(x, 2) + x;
}

// A callee with an early return from nested loops, in a loop.
double first_big_product(const double *a, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (a[i] * a[j] > 2.0)
        return a[i] * a[j];
  return 0;
}
[[fluxion::grad]] double callee_early_return(const double *a, int n) {
  return first_big_product(a, n) * a[0];
}

// Callees updating caller memory: an accumulator through a pointer, an array
// updated in place by repeated calls.
void decay_add(double *acc, double v) { *acc = *acc * 0.9 + v * v; }
[[fluxion::grad]] double running_average(const double *a, int n) {
  double acc = a[0];
  for (int i = 1; i < n; ++i)
    decay_add(&acc, a[i]);
  return acc;
}
void affine_update(double *acc, const double *v, int n) {
  for (int i = 0; i < n; ++i)
    acc[i] = acc[i] * v[i] + 1;
}
[[fluxion::grad]] double repeated_update(const double *a) {
  double acc[N] = {1, 1, 1, 1, 1};
  for (int r = 0; r < 3; ++r)
    affine_update(acc, a, N);
  double s = 0;
  for (int i = 0; i < N; ++i)
    s += acc[i];
  return s;
}

// A callee modifying an array, with a by-value argument read from that same
// array: scale(t, t[0]) must use t[0] as it was before the call.
void scale2(double *v, double s) {
  v[0] *= s;
  v[1] *= s;
}
[[fluxion::grad]] double scale_by_own_element(const double *x) {
  double t[2] = {x[0], x[1]};
  scale2(t, t[0]); // t = {x0^2, x0 x1}
  return t[0] + t[1];
}

// The same with a scalar: mul(&y, y) squares y.
void mul_into(double *p, double v) { *p = *p * v; }
[[fluxion::grad]] double update_by_own_value(double x) {
  double y = x;
  mul_into(&y, y); // y = x^2
  return y;
}

// A recursive callee that returns its result through an output pointer.
void horner_out(const double *c, int n, double x, double *out) {
  if (n == 0) {
    *out = 0;
    return;
  }
  horner_out(c + 1, n - 1, x, out);
  *out = *out * x + c[0];
}
[[fluxion::grad]] double recursive_output(const double *c, int n, double x) {
  double r;
  horner_out(c, n, x, &r);
  return r;
}

// Adaptive Simpson quadrature: recursion whose depth depends on the data.
double integrand(double x, double w) { return std::sin(w * x) * x; }
double simpson(double a, double b, double w) {
  double m = 0.5 * (a + b);
  return (b - a) / 6 * (integrand(a, w) + 4 * integrand(m, w) + integrand(b, w));
}
double adaptive(double a, double b, double w, double whole, double eps,
                int depth) {
  double m = 0.5 * (a + b);
  double l = simpson(a, m, w), r = simpson(m, b, w);
  double err = l + r - whole;
  if (depth <= 0 || std::fabs(err) <= 15 * eps)
    return l + r + err / 15;
  return adaptive(a, m, w, l, eps / 2, depth - 1) +
         adaptive(m, b, w, r, eps / 2, depth - 1);
}
[[fluxion::grad]] double integral(double w, double b) {
  return adaptive(0, b, w, simpson(0, b, w), 1e-10, 30);
}

// Overloaded annotated functions.
[[fluxion::grad]] double overloaded(double x) { return x * x; }
[[fluxion::grad]] float overloaded(float x) { return 3 * x; }

// Globals: a constant coefficient table and a mutable (inactive) scale.
const double kCoef[4] = {1.0, -0.5, 0.25, 2.0};
double g_scale = 3.0;
[[fluxion::grad]] double uses_globals(double x) {
  double s = 0;
  for (int i = 0; i < 4; ++i)
    s = s * x + kCoef[i];
  return s * g_scale;
}

// A long loop with a branch per iteration: many tape chunks.
[[fluxion::grad]] double long_loop(double x, int n) {
  double s = 0, y = x;
  for (int i = 0; i < n; ++i) {
    if (i % 3 == 0 || y > 2)
      y = y * 0.9999 + 1e-4;
    else
      y = y * 1.00001;
    s += y * y;
  }
  return s / n;
}

// Deep recursion.
double deep(double x, int n) {
  if (n == 0)
    return x;
  return deep(x, n - 1) * 0.999 + 0.001 * x * x;
}
[[fluxion::grad]] double deep_recursion(double x) { return deep(x, 2000); }

// Mutual recursion through a forward declaration.
double odd_part(double x, int n);
double even_part(double x, int n) { return n == 0 ? 1.0 : x * odd_part(x, n - 1); }
double odd_part(double x, int n) {
  return n == 0 ? x : x * x * even_part(x, n - 1);
}
[[fluxion::grad]] double mutual_recursion(double x) { return even_part(x, 4); }

// stop_gradient of a call, of an array element, and inside a callee.
double half_detached(double x) { return fluxion::stop_gradient(x * x) + x; }
[[fluxion::grad]] double stop_variants(const double *a, double x) {
  return fluxion::stop_gradient(std::exp(x)) * x +
         fluxion::stop_gradient(a[0]) * a[1] + half_detached(x);
}

// An annotated function calling another annotated function.
[[fluxion::grad]] double inner_annotated(double x, double y) { return x * y * y; }
[[fluxion::grad]] double outer_annotated(double x) {
  return inner_annotated(x, x + 1) + inner_annotated(2.0, x);
}

// A loop whose counter is a double advanced by an active step.
[[fluxion::grad]] double time_loop(double rate, double x0, double k) {
  double dt = rate * 0.01, x = x0, t = 0;
  while (t < 1) {
    x = x + dt * (-k * x);
    t += dt;
  }
  return x;
}

// Swapping recurrence (a, b) <- (b, a + b x).
[[fluxion::grad]] double swap_recurrence(const double *a, int n) {
  double p = a[0], q = a[1];
  for (int i = 2; i < n; ++i) {
    double t = p + q * a[i];
    p = q;
    q = t;
  }
  return p * q;
}

// std::pow with a constant exponent at a negative base: the partial in the
// exponent is NaN there, and a zero tangent of the exponent must contribute
// nothing (f_jvp was NaN, and f_hvp of pow(x, 2) too).
[[fluxion::hessian]] [[fluxion::jvp]] double squares(double x, double y) {
  return std::pow(x - y, 2.0) + std::pow(x, 2) * y;
}

} // namespace edge

using nt::ld;
using edge::N;

namespace {

template <class F, class G>
std::vector<ld> check_array(F f, G g, std::vector<double> a) {
  return nt::check_gradient<double>(f, g, a);
}

const std::vector<double> kA = {0.7, -1.2, 1.5, 0.4, 1.1};

} // namespace

TEST(EdgeCases, Shadowing) {
  for (auto [x, y] : {std::pair{0.7, 1.3}, {-0.4, 0.9}})
    nt::check_gradient<double>(
        [](const double *v) { return edge::shadowing(v[0], v[1]); },
        [](const double *v, double *d) {
          return edge::shadowing_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
}

TEST(EdgeCases, ParameterNamedSeed) {
  double d = 0;
  edge::named_seed_grad(1.5, 3, &d);
  NT_EXPECT_EXACT(double, d, 9.0);
  d = 0;
  NT_EXPECT_EXACT(double, edge::named_seed_vjp(1.5, 3, 2.0, &d), 6.75);
  NT_EXPECT_EXACT(double, d, 18.0);
}

TEST(EdgeCases, SelfCompoundAssignment) {
  ld g = nt::check_gradient1<double>(edge::self_compound, edge::self_compound_grad, 0.5);
  NT_EXPECT_EXACT(double, g, 2 * 1.5); // (x+1)^2
}

TEST(EdgeCases, RepeatedAndNestedCallee) {
  auto g = nt::check_gradient<double>(
      [](const double *v) { return edge::repeated_callee(v[0], v[1]); },
      [](const double *v, double *d) {
        return edge::repeated_callee_grad(v[0], v[1], &d[0], &d[1]);
      },
      {0.5, 1.5});
  NT_EXPECT_EXACT(double, g[0], 2 * 0.5 * 2.25 + 4 * 0.125);
  NT_EXPECT_EXACT(double, g[1], 0.25 * 2 * 1.5);
}

TEST(EdgeCases, CallsInConditions) {
  for (double x : {1.3, 0.35, -0.9})
    nt::check_gradient1<double>(edge::call_in_condition,
                                edge::call_in_condition_grad, x);
}

TEST(EdgeCases, DoWhileContinue) {
  const int n = 5;
  std::vector<double> a = {1.0, -2.0, 1.5, 0.5, 2.0};
  auto g = nt::check_gradient<double>(
      [&](const double *v) { return edge::do_continue(v, n); },
      [&](const double *v, double *d) { return edge::do_continue_grad(v, n, d); }, a);
  std::vector<ld> ref = {2, 0, 3, 1, 4};
  for (int i = 0; i < n; ++i)
    NT_EXPECT_EXACT(double, g[i], ref[i]);
}

TEST(EdgeCases, WhileTrueBreak) {
  ld g = nt::check_gradient1<double>(edge::while_true, edge::while_true_grad, 1.5);
  NT_EXPECT_EXACT(double, g, 4 * std::pow(1.5L, 3));
}

TEST(EdgeCases, JumpsInsideSwitch) {
  nt::Rng rng(201);
  for (int rep = 0; rep < 10; ++rep) {
    const int n = 11;
    std::vector<double> a = rng.vec<double>(n, -1.5, 1.5);
    nt::check_gradient<double>(
        [&](const double *v) { return edge::switch_jumps(v, n); },
        [&](const double *v, double *d) { return edge::switch_jumps_grad(v, n, d); },
        a);
  }
}

TEST(EdgeCases, StridedLoops) {
  const int n = 5;
  auto g = check_array([&](const double *v) { return edge::strided(v, n); },
                       [&](const double *v, double *d) { return edge::strided_grad(v, n, d); },
                       kA);
  // s = (a4^2 + a2^2 + a0^2) a0 a3
  ld S = (ld)kA[4] * kA[4] + (ld)kA[2] * kA[2] + (ld)kA[0] * kA[0];
  NT_EXPECT_EXACT(double, g[1], 0.0);
  NT_EXPECT_EXACT(double, g[3], S * kA[0]);
}

TEST(EdgeCases, DataDependentIndex) {
  std::vector<double> in = kA;
  in.push_back(0.9); // x -> k = 2
  auto g = nt::check_gradient<double>(
      [](const double *v) { return edge::data_index(v, v[N]); },
      [](const double *v, double *d) { return edge::data_index_grad(v, v[N], d, d + N); },
      in);
  NT_EXPECT_EXACT(double, g[2], 0.9);
  NT_EXPECT_EXACT(double, g[N], kA[2]);
}

TEST(EdgeCases, PointerArithmeticArguments) {
  auto g = check_array([](const double *v) { return edge::pointer_args(v, N); },
                       [](const double *v, double *d) { return edge::pointer_args_grad(v, N, d); },
                       kA);
  for (int i = 0; i < N; ++i)
    NT_EXPECT_EXACT(double, g[i], (i > 0 ? kA[i - 1] : 0.0) + (i + 1 < N ? kA[i + 1] : 0.0));
}

TEST(EdgeCases, CalleeOverwritesByValueParameter) {
  ld g = nt::check_gradient1<double>(edge::by_value_overwrite,
                                     edge::by_value_overwrite_grad, 1.2);
  NT_EXPECT_EXACT(double, g, 4 * std::pow(1.2L, 3) + 1);
}

TEST(EdgeCases, CalleeEarlyReturnFromNestedLoops) {
  // The first product above 2 is a2 * a2: f = a2^2 a0.
  auto g = check_array([](const double *v) { return edge::callee_early_return(v, N); },
              [](const double *v, double *d) { return edge::callee_early_return_grad(v, N, d); },
              kA);
  NT_EXPECT_EXACT(double, g[0], (ld)kA[2] * kA[2]);
  NT_EXPECT_EXACT(double, g[2], 2 * (ld)kA[2] * kA[0]);
}

TEST(EdgeCases, CalleeUpdatesCallerScalar) {
  auto g = check_array([](const double *v) { return edge::running_average(v, N); },
                       [](const double *v, double *d) { return edge::running_average_grad(v, N, d); },
                       kA);
  NT_EXPECT_EXACT(double, g[0], std::pow(0.9L, 4));
  NT_EXPECT_EXACT(double, g[1], 2 * (ld)kA[1] * std::pow(0.9L, 3));
}

TEST(EdgeCases, CalleeUpdatesCallerArrayRepeatedly) {
  auto g = check_array([](const double *v) { return edge::repeated_update(v); },
                       [](const double *v, double *d) { return edge::repeated_update_grad(v, d); },
                       kA);
  // acc = a^3 + a^2 + a + 1 elementwise.
  for (int i = 0; i < N; ++i)
    NT_EXPECT_EXACT(double, g[i], 3 * (ld)kA[i] * kA[i] + 2 * (ld)kA[i] + 1);
}

TEST(EdgeCases, ArgumentReadFromArrayTheCallModifies) {
  std::vector<double> x = {1.5, 2.0};
  auto g = nt::check_gradient<double>(
      [](const double *v) { return edge::scale_by_own_element(v); },
      [](const double *v, double *d) { return edge::scale_by_own_element_grad(v, d); },
      x);
  NT_EXPECT_EXACT(double, g[0], 2 * 1.5 + 2.0);
  NT_EXPECT_EXACT(double, g[1], 1.5);
}

TEST(EdgeCases, ArgumentReadFromScalarTheCallModifies) {
  ld g = nt::check_gradient1<double>(edge::update_by_own_value,
                                     edge::update_by_own_value_grad, 1.5);
  NT_EXPECT_EXACT(double, g, 3.0);
}

TEST(EdgeCases, RecursiveCalleeWithOutputPointer) {
  const int n = 4;
  std::vector<double> in = {0.5, -1.0, 2.0, 0.25, 1.3}; // c[0..3], x
  auto g = nt::check_gradient<double>(
      [&](const double *v) { return edge::recursive_output(v, n, v[n]); },
      [&](const double *v, double *d) {
        return edge::recursive_output_grad(v, n, v[n], d, d + n);
      },
      in);
  for (int k = 0; k < n; ++k)
    NT_EXPECT_EXACT(double, g[k], std::pow((ld)in[n], (ld)k));
}

TEST(EdgeCases, AdaptiveQuadratureRecursion) {
  for (auto [w, b] : {std::pair{2.0, 1.5}, {0.5, 3.0}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return edge::integral(v[0], v[1]); },
        [](const double *v, double *d) { return edge::integral_grad(v[0], v[1], &d[0], &d[1]); },
        {w, b}, {}, 1e-6L, 1e-8L);
    // d/db of int_0^b sin(w x) x dx = sin(w b) b (up to the quadrature error).
    NT_EXPECT_CLOSE(g[1], std::sin((ld)w * b) * b, 1e-6L, 1e-8L);
  }
}

TEST(EdgeCases, OverloadedAnnotatedFunctions) {
  double d = 0;
  edge::overloaded_grad(1.5, &d);
  float f = 0;
  edge::overloaded_grad(1.5f, &f);
  NT_EXPECT_EXACT(double, d, 3.0);
  NT_EXPECT_EXACT(float, f, 3.0f);
}

TEST(EdgeCases, Globals) {
  ld g = nt::check_gradient1<double>(edge::uses_globals, edge::uses_globals_grad, 0.7);
  NT_EXPECT_EXACT(double, g, 3 * (3 * 0.49L - 2 * 0.5L * 0.7L + 0.25L));
}

TEST(EdgeCases, LongLoopManyTapeChunks) {
  for (int n : {1, 1000, 200000}) {
    SCOPED_TRACE(n);
    auto F = [n](const double *v) { return edge::long_loop(v[0], n); };
    auto G = [n](const double *v, double *d) { return edge::long_loop_grad(v[0], n, d); };
    nt::check_gradient<double>(F, G, {0.5}, {}, 1e-6L, 1e-7L);
  }
}

TEST(EdgeCases, ThreadsDifferentiateConcurrently) {
  const int T = 8;
  std::vector<double> got(T), ref(T);
  std::vector<std::thread> threads;
  for (int t = 0; t < T; ++t)
    threads.emplace_back([&, t] {
      double acc = 0;
      for (int r = 0; r < 100; ++r) {
        double d = 0;
        edge::long_loop_grad(0.5 + 0.1 * t, 5000, &d);
        acc += d;
      }
      got[t] = acc / 100;
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < T; ++t) {
    ld fd = nt::central_diff<double>([](double x) { return edge::long_loop(x, 5000); },
                                     0.5 + 0.1 * t);
    NT_EXPECT_CLOSE(got[t], fd, 1e-6L, 1e-8L) << "thread " << t;
  }
}

TEST(EdgeCases, DeepRecursion) {
  nt::check_gradient1<double>(edge::deep_recursion, edge::deep_recursion_grad, 0.8);
}

TEST(EdgeCases, MutualRecursion) {
  // even_part(x, 4) = x^6
  ld g = nt::check_gradient1<double>(edge::mutual_recursion,
                                     edge::mutual_recursion_grad, 1.3);
  NT_EXPECT_EXACT(double, g, 6 * std::pow(1.3L, 5));
}

TEST(EdgeCases, StopGradientVariants) {
  double a[2] = {2.0, 3.0}, da[2] = {0, 0}, dx = 0;
  edge::stop_variants_grad(a, 0.5, da, &dx);
  NT_EXPECT_EXACT(double, da[0], 0.0);
  NT_EXPECT_EXACT(double, da[1], 2.0);
  NT_EXPECT_EXACT(double, dx, std::exp(0.5L) + 1);
}

TEST(EdgeCases, AnnotatedCallsAnnotated) {
  ld g = nt::check_gradient1<double>(edge::outer_annotated,
                                     edge::outer_annotated_grad, 0.7);
  // x (x+1)^2 + 2 x^2
  NT_EXPECT_EXACT(double, g, 1.7L * 1.7L + 2 * 0.7L * 1.7L + 4 * 0.7L);
}

TEST(EdgeCases, ActiveLoopCounter) {
  nt::check_gradient<double>(
      [](const double *v) { return edge::time_loop(v[0], v[1], v[2]); },
      [](const double *v, double *d) {
        return edge::time_loop_grad(v[0], v[1], v[2], &d[0], &d[1], &d[2]);
      },
      {0.7, -1.2, 1.5});
}

TEST(EdgeCases, SwapRecurrence) {
  check_array([](const double *v) { return edge::swap_recurrence(v, N); },
              [](const double *v, double *d) { return edge::swap_recurrence_grad(v, N, d); },
              kA);
}

TEST(EdgeCases, PowAtANegativeBase) {
  double x = -0.6, y = 0.9;
  // d/dx = 2 (x - y) + 2 x y, d/dy = -2 (x - y) + x^2.
  EXPECT_DOUBLE_EQ(edge::squares_jvp(x, y, 1.0, 0.0), 2 * (x - y) + 2 * x * y);
  EXPECT_DOUBLE_EQ(edge::squares_jvp(x, y, 0.0, 1.0), -2 * (x - y) + x * x);
  double hx = 0, hy = 0;
  edge::squares_hvp(x, y, 1.0, 0.0, &hx, &hy);
  EXPECT_DOUBLE_EQ(hx, 2 + 2 * y);
  EXPECT_DOUBLE_EQ(hy, -2 + 2 * x);
}
