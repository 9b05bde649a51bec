// Reverse loops that run forward: where the iterations of a counted loop's
// reverse sweep commute (disjoint elements, accumulations, values fresh in
// each iteration), the reverse sweep counts up like the primal. Each
// function that qualifies is checked against finite differences, and so is
// each near miss, whose reverse must keep running backwards: a scalar that
// outlives the iteration, an accumulator the loop also reads, an element
// read at one index and accumulated at another.
#include <fluxion/fluxion.hpp>

#include <cmath>

#include "numeric_check.hpp"

namespace lo {

constexpr int MaxN = 16;

// --- loops whose reverse runs forward ------------------------------------

// d_x[i] += 2 * d_s * x[i]: one element per iteration, a read-only seed.
[[fluxion::grad("x")]] double squares(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}

// Neighbours: d_x[i] and d_x[i + 1] are only accumulated into; d_y[i] is
// read and reset at the iteration's own index. sin's rule is a call.
[[fluxion::grad("x")]] double neighbours(const double *x, int n) {
  double y[MaxN];
  for (int i = 0; i < n - 1; ++i)
    y[i] = x[i] * x[i + 1];
  double s = 0;
  for (int i = 0; i < n - 1; ++i)
    s += std::sin(y[i]) * x[i];
  return s;
}

// Locals declared in the body are fresh in each iteration; so are their
// adjoints.
[[fluxion::grad("x")]] double body_locals(const double *x, int n, double a) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double t = a * x[i] + 1;
    double u = t * t;
    s += u * x[i] + std::exp(-t);
  }
  return s;
}

// A shifted index (i + 1), a counter starting at 2, an inclusive bound.
[[fluxion::grad("x")]] double shifted(const double *x, int n) {
  double y[MaxN] = {};
  for (int i = 0; i < n - 1; ++i)
    y[i + 1] = 3 * x[i] - x[i + 1];
  double s = 0;
  for (int i = 2; i <= n - 1; ++i)
    s += y[i] * y[i - 1] + x[i - 2];
  return s;
}

// --- near misses: the reverse keeps running backwards --------------------

// `last` outlives each iteration: only the last one reaches the result.
[[fluxion::grad("x")]] double last_square(const double *x, int n) {
  double last = 0;
  for (int i = 0; i < n; ++i)
    last = x[i] * x[i];
  return last + x[0];
}

// A running sum that the loop also reads: its adjoint grows backwards.
[[fluxion::grad("x")]] double running_sum(const double *x, int n) {
  double s = 0, acc = 0;
  for (int i = 0; i < n; ++i) {
    s += x[i];
    acc += s * s;
  }
  return acc;
}

// b[i] reads b[i - 1], updated in place: d_b[i] is read, d_b[i - 1]
// accumulated, in another iteration. (Nothing is recorded: the reverse
// reads no b.)
[[fluxion::grad("x")]] double in_place(const double *x, int n) {
  double b[MaxN];
  for (int i = 0; i < n; ++i)
    b[i] = x[i] * x[i];
  for (int i = 1; i < n; ++i)
    b[i] += 0.5 * b[i - 1];
  return b[n - 1];
}

// A helper with a body: its sweeps record on the tape, in order (the
// caller's own reverse pops nothing).
static double helper(double v) {
  double r = 1;
  for (int k = 0; k < 3; ++k)
    r = r * v + std::sin(r);
  return r;
}
[[fluxion::grad("x")]] double calls_helper(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += helper(x[i]) + x[(i + 1) % n];
  return s;
}

} // namespace lo

namespace {

std::vector<double> inputs(int n, unsigned seed) {
  nt::Rng rng(seed);
  return rng.vec<double>(n, -1.2, 1.2);
}

template <class F, class G> void checkAll(F f, G g) {
  for (int n : {1, 2, 3, 7, lo::MaxN}) {
    SCOPED_TRACE(n);
    std::vector<double> x = inputs(n, 300 + n);
    nt::check_gradient<double>([&](const double *v) { return f(v, n); },
                               [&](const double *v, double *d) {
                                 return g(v, n, d);
                               },
                               x);
  }
}

} // namespace

TEST(LoopOrder, CommutingIterationsRunForward) {
  checkAll(lo::squares, lo::squares_grad);
  checkAll(lo::neighbours, lo::neighbours_grad);
  checkAll([](const double *x, int n) { return lo::body_locals(x, n, 0.7); },
           [](const double *x, int n, double *d) {
             return lo::body_locals_grad(x, n, 0.7, d);
           });
  checkAll(lo::shifted, lo::shifted_grad);
}

TEST(LoopOrder, DependentIterationsStayReversed) {
  checkAll(lo::last_square, lo::last_square_grad);
  checkAll(lo::running_sum, lo::running_sum_grad);
  checkAll(lo::in_place, lo::in_place_grad);
  checkAll(lo::calls_helper, lo::calls_helper_grad);
}

// The closed forms of two near misses, exactly where a forward run would
// differ most: all of last_square's derivative is in x[n-1] (and x[0]).
TEST(LoopOrder, OnlyTheLastIterationReachesTheResult) {
  const int n = 5;
  std::vector<double> x = inputs(n, 11), d(n, 0.0);
  lo::last_square_grad(x.data(), n, d.data());
  for (int i = 0; i < n; ++i) {
    double expected = (i == n - 1 ? 2 * x[i] : 0) + (i == 0 ? 1 : 0);
    NT_EXPECT_CLOSE(d[i], expected, 1e-15, 1e-15);
  }
}
