// Locals of a counted loop's body computed again in the reverse sweep
// instead of recorded (engine/lib/RecomputedLocals.cpp): neighbour indices
// adjusted by `if`s, values read from memory the iteration does not write
// afterwards, and values read from memory one later assignment overwrites
// (computed again right after that assignment's restore). Each function is
// checked against central finite differences and against its forward mode
// (dot-product test). The cases the analysis must refuse (memory written
// twice after the read, a local read before an `if` changes it) are here
// too: recomputing them at the top of the reverse iteration would give
// wrong derivatives.
#include <fluxion/fluxion.hpp>
#include <fluxion/memory.hpp>

#include <cmath>
#include <vector>

#include "numeric_check.hpp"

namespace recompute {

// Scratch array plus copy-back: integer neighbours fixed up by `if`s, and
// locals computed from u and used nonlinearly.
[[fluxion::grad("u", "tmp", "nu")]] [[fluxion::jvp("u", "tmp", "nu")]] double
scratch(double *u, double *tmp, int n, int steps, double nu) {
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      int left = i - 1, right = i + 1;
      if (left < 0)
        left += n;
      if (right == n)
        right = 0;
      else if (right > n)
        right = right - n;
      const double adv = u[i] * (u[right] - u[left]);
      const double diff = nu * (u[right] - 2 * u[i] + u[left]);
      tmp[i] = u[i] + 0.1 * (diff - adv) + 0.05 * adv * diff;
    }
    for (int i = 0; i < n; ++i)
      u[i] = tmp[i];
  }
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += u[i] * u[i];
  return loss;
}

// Two halves of one array: each step reads one and writes the other, so
// the locals read from the half being read are recomputed after the
// written element's restore.
[[fluxion::grad("u0", "buf")]] [[fluxion::jvp("u0", "buf")]] double
halves(const double *u0, double *buf, int n, int steps) {
  for (int i = 0; i < n; ++i)
    buf[i] = u0[i];
  for (int t = 0; t < steps; ++t) {
    const double *cur = buf + (t % 2) * n;
    double *next = buf + ((t + 1) % 2) * n;
    for (int i = 0; i < n; ++i) {
      const double ul = cur[(i + n - 1) % n];
      const double ur = cur[(i + 1) % n];
      const double ratio = ul * ur;
      next[i] = cur[i] - 0.2 * cur[i] * (ur - ul) + 0.1 * ratio;
    }
  }
  const double *last = buf + (steps % 2) * n;
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += last[i] * last[i] * last[i];
  return loss;
}

// In place: `old` is the element the iteration overwrites (its value is the
// one the restore gives back), `right` the next one, `left` carried from
// the previous iteration.
[[fluxion::grad("u")]] [[fluxion::jvp("u")]] double inplace(double *u, int n,
                                                           int steps) {
  for (int t = 0; t < steps; ++t) {
    const double first = u[0];
    double left = u[n - 1];
    for (int i = 0; i < n; ++i) {
      const double right = i + 1 < n ? u[i + 1] : first;
      const double old = u[i];
      u[i] = old - 0.3 * old * (right - left) + 0.1 * right * left;
      left = old;
    }
  }
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += std::sin(u[i]);
  return loss;
}

// Must be recorded: `a` reads w[(i+1)%n], which the iteration then writes
// twice; at the top of the reverse iteration the element holds the second
// write's value, and the second write itself reads `a`, so `a` cannot be
// computed again right after the first write's restore either. `k` is read
// before an `if` changes it. (Computing either again gives wrong
// derivatives, as does computing the in-place update's `old` at the top.)
[[fluxion::grad("x")]] [[fluxion::jvp("x")]] double refused(const double *x,
                                                           int n, int steps) {
  std::vector<double> w(n);
  for (int i = 0; i < n; ++i)
    w[i] = x[i];
  double y = 0;
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      const double a = w[(i + 1) % n];
      w[i] = w[i] * a + 0.1 * x[i];
      w[(i + 1) % n] = a * 0.5 + w[(i + 1) % n] * a;
      int k = i + 1;
      y += std::sin(x[k % n] * k);
      if (k == n)
        k = 0;
      y += x[k] * w[i] * a;
    }
  }
  return y;
}

} // namespace recompute

namespace {

using nt::ld;

std::vector<double> inputs(int count, std::uint64_t seed, double lo = -0.8,
                           double hi = 0.8) {
  nt::Rng rng(seed);
  return rng.vec<double>(count, lo, hi);
}

/// <grad, t> from the gradient equals the forward mode along t.
template <class Grad, class Jvp>
void expectDotProduct(Grad grad, Jvp jvp, std::size_t n, std::uint64_t seed) {
  std::vector<double> t = inputs(int(n), seed), d(n, 0.0);
  grad(d.data());
  double viaGrad = 0;
  for (std::size_t i = 0; i < n; ++i)
    viaGrad += d[i] * t[i];
  EXPECT_NEAR(jvp(t.data()), viaGrad, 1e-11 * (1 + std::fabs(viaGrad)));
}

/// For functions that update their arrays in place, whose adjoints hold
/// the seeds of the arrays' final values on entry (zero here): the value,
/// and the gradient from zeroed adjoints against central differences.
template <class F, class G>
void checkInPlace(F f, G g, const std::vector<double> &x) {
  SCOPED_TRACE(nt::where(x));
  std::vector<double> d(x.size(), 0.0);
  double value = f(x.data());
  EXPECT_NEAR(g(x.data(), d.data()), value, 1e-12 * (1 + std::fabs(value)));
  std::vector<ld> fd = nt::fd_gradient<double>(f, x);
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_TRUE(nt::close(d[i], fd[i], nt::Tol<double>::fd_rtol,
                          nt::Tol<double>::fd_atol * (1 + std::fabs(value))))
        << "d/dx[" << i << "] against central finite differences";
}

TEST(RecomputedLocals, ScratchArrayWithAdjustedIndices) {
  for (auto Size : {std::pair{1, 1}, {2, 3}, {5, 4}, {7, 0}}) {
    const int n = Size.first, steps = Size.second;
    // u, tmp (overwritten before it is read), nu.
    std::vector<double> in = inputs(2 * n + 1, 100 + n + steps);
    auto f = [&](const double *v) {
      std::vector<double> u(v, v + n), tmp(v + n, v + 2 * n);
      return recompute::scratch(u.data(), tmp.data(), n, steps, v[2 * n]);
    };
    auto g = [&](const double *v, double *d) {
      std::vector<double> u(v, v + n), tmp(v + n, v + 2 * n);
      return recompute::scratch_grad(u.data(), tmp.data(), n, steps, v[2 * n],
                                     d, d + n, d + 2 * n);
    };
    checkInPlace(f, g, in);
    expectDotProduct(
        [&](double *d) { g(in.data(), d); },
        [&](const double *t) {
          std::vector<double> u(in.begin(), in.begin() + n),
              tmp(in.begin() + n, in.begin() + 2 * n);
          std::vector<double> tt(t, t + 2 * n); // written: tangents out
          return recompute::scratch_jvp(u.data(), tmp.data(), n, steps,
                                        in[2 * n], tt.data(), tt.data() + n,
                                        t[2 * n]);
        },
        2 * n + 1, 110 + n);
  }
}

TEST(RecomputedLocals, ScratchRecordsOnlyTheState) {
  // One copy of u per step (the copy-back's range); the indices, flags and
  // locals of the stencil are computed again.
  const int n = 64, steps = 10;
  std::vector<double> u = inputs(n, 7), tmp(n, 0.0), d(2 * n, 0.0);
  double dnu = 0;
  fluxion::reset_memory_peaks();
  recompute::scratch_grad(u.data(), tmp.data(), n, steps, 0.3, d.data(),
                          d.data() + n, &dnu);
  std::size_t peak = fluxion::memory_stats().tapeBytesPeak;
  EXPECT_GE(peak, std::size_t(steps) * n * sizeof(double));
  EXPECT_LE(peak, std::size_t(steps) * n * sizeof(double) + 256) << peak;
}

TEST(RecomputedLocals, HalvesOfOneArray) {
  for (auto Size : {std::pair{1, 1}, {3, 2}, {6, 5}}) {
    const int n = Size.first, steps = Size.second;
    std::vector<double> in = inputs(3 * n, 200 + n + steps);
    auto f = [&](const double *v) {
      std::vector<double> buf(v + n, v + 3 * n);
      return recompute::halves(v, buf.data(), n, steps);
    };
    auto g = [&](const double *v, double *d) {
      std::vector<double> buf(v + n, v + 3 * n);
      return recompute::halves_grad(v, buf.data(), n, steps, d, d + n);
    };
    checkInPlace(f, g, in);
    expectDotProduct(
        [&](double *d) { g(in.data(), d); },
        [&](const double *t) {
          std::vector<double> buf(in.begin() + n, in.end());
          std::vector<double> tt(t + n, t + 3 * n);
          return recompute::halves_jvp(in.data(), buf.data(), n, steps, t,
                                       tt.data());
        },
        3 * n, 210 + n);
  }
  // One element of state per cell and step.
  const int n = 32, steps = 8;
  std::vector<double> u0 = inputs(n, 9), buf(2 * n, 0.0), d(3 * n, 0.0);
  fluxion::reset_memory_peaks();
  recompute::halves_grad(u0.data(), buf.data(), n, steps, d.data(),
                         d.data() + n);
  std::size_t peak = fluxion::memory_stats().tapeBytesPeak;
  EXPECT_LE(peak, std::size_t(steps + 1) * n * sizeof(double) + 256) << peak;
}

TEST(RecomputedLocals, InPlaceUpdate) {
  for (auto Size : {std::pair{1, 1}, {2, 2}, {5, 3}}) {
    const int n = Size.first, steps = Size.second;
    std::vector<double> in = inputs(n, 300 + n + steps);
    auto f = [&](const double *v) {
      std::vector<double> u(v, v + n);
      return recompute::inplace(u.data(), n, steps);
    };
    auto g = [&](const double *v, double *d) {
      std::vector<double> u(v, v + n);
      return recompute::inplace_grad(u.data(), n, steps, d);
    };
    checkInPlace(f, g, in);
    expectDotProduct(
        [&](double *d) { g(in.data(), d); },
        [&](const double *t) {
          std::vector<double> u(in);
          std::vector<double> tt(t, t + n);
          return recompute::inplace_jvp(u.data(), n, steps, tt.data());
        },
        n, 310 + n);
  }
}

TEST(RecomputedLocals, ReadsOverwrittenTwiceAreRecorded) {
  for (auto Size : {std::pair{1, 1}, {2, 3}, {4, 2}}) {
    const int n = Size.first, steps = Size.second;
    std::vector<double> in = inputs(n, 400 + n + steps);
    nt::check_gradient<double>(
        [&](const double *v) { return recompute::refused(v, n, steps); },
        [&](const double *v, double *d) {
          return recompute::refused_grad(v, n, steps, d);
        },
        in);
    expectDotProduct(
        [&](double *d) { recompute::refused_grad(in.data(), n, steps, d); },
        [&](const double *t) {
          return recompute::refused_jvp(in.data(), n, steps, t);
        },
        n, 410 + n);
  }
}

} // namespace
