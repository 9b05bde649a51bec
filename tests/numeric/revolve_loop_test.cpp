// Binomial checkpointing ('#pragma fluxion revolve') through the public
// contract: for many step and snapshot counts the gradient equals that of the
// same loop recorded on the tape, the schedule runs the minimal number of
// forward steps, and the loop state may be pointer memory of runtime length,
// local arrays and scalars carried across steps. Loops inside callees and
// inside other loops work the same.
#include <fluxion/fluxion.hpp>
#include <fluxion/memory.hpp>

#include "numeric_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace rv {

inline void step(double *u, int n, double c) {
  double left = u[0];
  for (int i = 1; i + 1 < n; ++i) {
    double old = u[i];
    u[i] = old + c * (u[i + 1] - 2 * old + left) - 0.05 * old * old * old;
    left = old;
  }
}

[[fluxion::grad("u", "c")]] double evolve(double *u, int n, int steps,
                                          int snapshots, double c) {
#pragma fluxion revolve(snapshots) state(u, n)
  for (int t = 0; t < steps; ++t)
    step(u, n, c);
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += u[i] * u[i] * (1 + 0.1 * i);
  return s;
}
[[fluxion::grad("u", "c")]] double evolveTaped(double *u, int n, int steps,
                                               double c) {
  for (int t = 0; t < steps; ++t)
    step(u, n, c);
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += u[i] * u[i] * (1 + 0.1 * i);
  return s;
}

// Scalars carried from step to step (a clock, a running integral) and a
// local array are loop state too; the body also declares its own locals.
[[fluxion::grad]] double oscillator(double x0, double v0, double k,
                                    int steps) {
  double x = x0, v = v0, energy = 0, time = 0;
  double hist[3] = {x0, 0, 0};
#pragma fluxion revolve(3)
  for (int t = 0; t < steps; ++t) {
    double a = -k * std::sin(x) - 0.01 * v;
    v = v + 0.05 * a;
    x = x + 0.05 * v;
    time = time + 0.05;
    energy += 0.05 * (v * v + x * x) * std::cos(0.1 * time);
    hist[t % 3] = hist[(t + 2) % 3] * 0.5 + x;
  }
  return energy + x * v + hist[0] * hist[1] + hist[2];
}
[[fluxion::grad]] double oscillatorTaped(double x0, double v0, double k,
                                         int steps) {
  double x = x0, v = v0, energy = 0, time = 0;
  double hist[3] = {x0, 0, 0};
  for (int t = 0; t < steps; ++t) {
    double a = -k * std::sin(x) - 0.01 * v;
    v = v + 0.05 * a;
    x = x + 0.05 * v;
    time = time + 0.05;
    energy += 0.05 * (v * v + x * x) * std::cos(0.1 * time);
    hist[t % 3] = hist[(t + 2) % 3] * 0.5 + x;
  }
  return energy + x * v + hist[0] * hist[1] + hist[2];
}

// A checkpointed loop inside a callee (its split pair drives the schedule
// across its forward and backward functions), called in a loop.
inline double relax(double *u, int n, int steps, double c) {
#pragma fluxion revolve(2) state(u, n)
  for (int t = 0; t < steps; ++t)
    step(u, n, c);
  return u[n / 2];
}
[[fluxion::grad("u", "c")]] double epochs(double *u, int n, double c) {
  double s = 0;
  for (int e = 0; e < 3; ++e) {
    s += relax(u, n, 7 + e, c) * (e + 1);
#pragma fluxion revolve(2) state(u, n)
    for (int t = 0; t < 5; ++t)
      step(u, n, 0.5 * c);
  }
  return s + u[1] * u[n - 2];
}
[[fluxion::grad("u", "c")]] double epochsTaped(double *u, int n, double c) {
  double s = 0;
  for (int e = 0; e < 3; ++e) {
    for (int t = 0; t < 7 + e; ++t)
      step(u, n, c);
    s += u[n / 2] * (e + 1);
    for (int t = 0; t < 5; ++t)
      step(u, n, 0.5 * c);
  }
  return s + u[1] * u[n - 2];
}

// Checkpointed loops nested in one another: the inner loop of the outer
// loop's last step is reversed before the outer schedule turns.
[[fluxion::grad("u")]] double nested(double *u, int n, int outer, int inner) {
#pragma fluxion revolve(2) state(u, n)
  for (int e = 0; e < outer; ++e) {
#pragma fluxion revolve(2) state(u, n)
    for (int t = 0; t < inner; ++t)
      step(u, n, 0.1 + 0.01 * e);
  }
  return u[2] * u[3];
}
[[fluxion::grad("u")]] double nestedTaped(double *u, int n, int outer,
                                          int inner) {
  for (int e = 0; e < outer; ++e)
    for (int t = 0; t < inner; ++t)
      step(u, n, 0.1 + 0.01 * e);
  return u[2] * u[3];
}

} // namespace rv

namespace {

std::vector<double> initial(int n) {
  std::vector<double> u(n);
  for (int i = 0; i < n; ++i)
    u[i] = std::sin(0.7 * i) + 0.2;
  return u;
}

// d_u on entry seeds the final state (zero); on exit it holds d/du0.
struct Gradient {
  double value;
  std::vector<double> du;
  double dc;
};

Gradient revolveGradient(int n, int steps, int snapshots, double c) {
  Gradient g{0, std::vector<double>(n, 0.0), 0};
  std::vector<double> u = initial(n);
  g.value = rv::evolve_grad(u.data(), n, steps, snapshots, c, g.du.data(),
                            &g.dc);
  return g;
}

Gradient tapedGradient(int n, int steps, double c) {
  Gradient g{0, std::vector<double>(n, 0.0), 0};
  std::vector<double> u = initial(n);
  g.value = rv::evolveTaped_grad(u.data(), n, steps, c, g.du.data(), &g.dc);
  return g;
}

void expectSame(const Gradient &a, const Gradient &b) {
  EXPECT_EQ(a.value, b.value);
  for (std::size_t i = 0; i < a.du.size(); ++i)
    NT_EXPECT_CLOSE(a.du[i], b.du[i], 1e-13, 1e-15) << "d_u[" << i << "]";
  NT_EXPECT_CLOSE(a.dc, b.dc, 1e-13, 1e-15);
}

TEST(Revolve, SameGradientAsTheTapeForManyStepAndSnapshotCounts) {
  const int n = 9;
  const double c = 0.2;
  for (int steps : {0, 1, 2, 3, 5, 8, 13, 40, 101}) {
    Gradient taped = tapedGradient(n, steps, c);
    for (int snapshots : {1, 2, 3, 4, 7, 50, 200}) {
      SCOPED_TRACE(::testing::Message() << "steps " << steps << ", snapshots "
                                        << snapshots);
      expectSame(revolveGradient(n, steps, snapshots, c), taped);
      fluxion::RevolveStats stats = fluxion::revolve_last_stats();
      EXPECT_EQ(stats.steps, steps);
      EXPECT_EQ(stats.tapedSteps, steps);
      EXPECT_EQ(stats.advances,
                fluxion::revolveMinForwardSteps(steps, snapshots));
      EXPECT_EQ(fluxion::checkpoint_mark(), 0u);
    }
  }
}

TEST(Revolve, AgainstFiniteDifferences) {
  const int n = 7, steps = 30, snapshots = 4;
  std::vector<double> x = initial(n);
  x.push_back(0.2); // c
  auto f = [&](const double *v) {
    std::vector<double> u(v, v + n);
    return rv::evolve(u.data(), n, steps, snapshots, v[n]);
  };
  auto g = [&](const double *v, double *d) {
    std::vector<double> u(v, v + n), du(n, 0.0);
    double dc = 0;
    double value =
        rv::evolve_grad(u.data(), n, steps, snapshots, v[n], du.data(), &dc);
    for (int i = 0; i < n; ++i)
      d[i] += du[i];
    d[n] += dc;
    return value;
  };
  nt::check_gradient<double>(f, g, x);
}

TEST(Revolve, SnapshotsHoldTheStateNotTheTape) {
  const int n = 64, steps = 500, snapshots = 5;
  fluxion::reset_memory_peaks();
  revolveGradient(n, steps, snapshots, 0.2);
  fluxion::MemoryStats rv = fluxion::memory_stats();
  fluxion::reset_memory_peaks();
  tapedGradient(n, steps, 0.2);
  fluxion::MemoryStats taped = fluxion::memory_stats();
  // Each snapshot holds u and the counter.
  EXPECT_LE(rv.snapshotBytesPeak,
            std::size_t(snapshots) * (n * sizeof(double) + 64));
  EXPECT_GT(rv.snapshotBytesPeak, 0u);
  EXPECT_GE(taped.totalPeak(), 20 * rv.totalPeak())
      << "taped " << taped.totalPeak() << ", revolve " << rv.totalPeak();
}

TEST(Revolve, ScalarsAndLocalArraysCarriedAcrossSteps) {
  for (int steps : {0, 1, 4, 17, 60}) {
    SCOPED_TRACE(::testing::Message() << "steps " << steps);
    double a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    double va = rv::oscillator_grad(0.4, -0.3, 1.7, steps, &a[0], &a[1], &a[2]);
    double vb =
        rv::oscillatorTaped_grad(0.4, -0.3, 1.7, steps, &b[0], &b[1], &b[2]);
    EXPECT_EQ(va, vb);
    for (int i = 0; i < 3; ++i)
      NT_EXPECT_CLOSE(a[i], b[i], 1e-13, 1e-15) << "parameter " << i;
  }
  auto f = [](const double *v) { return rv::oscillator(v[0], v[1], v[2], 25); };
  auto g = [](const double *v, double *d) {
    return rv::oscillator_grad(v[0], v[1], v[2], 25, &d[0], &d[1], &d[2]);
  };
  nt::check_gradient<double>(f, g, {0.4, -0.3, 1.7});
}

TEST(Revolve, NestedLoops) {
  const int n = 6;
  for (int outer : {0, 1, 2, 6})
    for (int inner : {0, 1, 5}) {
      SCOPED_TRACE(::testing::Message() << outer << " x " << inner);
      std::vector<double> u = initial(n), du(n, 0.0);
      std::vector<double> w = initial(n), dw(n, 0.0);
      double v = rv::nested_grad(u.data(), n, outer, inner, du.data());
      double vt = rv::nestedTaped_grad(w.data(), n, outer, inner, dw.data());
      EXPECT_EQ(v, vt);
      for (int i = 0; i < n; ++i)
        NT_EXPECT_CLOSE(du[i], dw[i], 1e-13, 1e-15) << "d_u[" << i << "]";
    }
}

TEST(Revolve, InsideCalleesAndOuterLoops) {
  const int n = 8;
  std::vector<double> u = initial(n), du(n, 0.0);
  std::vector<double> w = initial(n), dw(n, 0.0);
  double dc = 0, dcTaped = 0;
  double v = rv::epochs_grad(u.data(), n, 0.15, du.data(), &dc);
  double vt = rv::epochsTaped_grad(w.data(), n, 0.15, dw.data(), &dcTaped);
  EXPECT_EQ(v, vt);
  for (int i = 0; i < n; ++i)
    NT_EXPECT_CLOSE(du[i], dw[i], 1e-13, 1e-15) << "d_u[" << i << "]";
  NT_EXPECT_CLOSE(dc, dcTaped, 1e-13, 1e-15);
  EXPECT_EQ(fluxion::checkpoint_mark(), 0u);
}

} // namespace
