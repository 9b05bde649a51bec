// Records hoisted out of loops: an accumulation `a[k] += ...` in a counted
// loop whose body's reverse sweep never reads `a` is recorded once before
// the loop, not at every iteration (engine/lib/HoistedRecords.cpp); and
// adjoint sums into one element over a reverse loop go through a local
// (engine/lib/LocalAccumulators.cpp). Each
// function is checked against central finite differences and against its
// forward mode (dot-product test); where the point is recording less, the
// tape is compared with a twin whose loop body reads the accumulator, which
// keeps the per-iteration records.
#include <fluxion/fluxion.hpp>
#include <fluxion/memory.hpp>

#include <cmath>
#include <tuple>
#include <vector>

#include "numeric_check.hpp"

namespace hoist {

// A recurrent network in one function: gate[g] accumulates over j, then
// goes through tanh, and the hidden state is overwritten at every step.
#define RNN_BODY(EXTRA)                                                        \
  std::vector<double> h(n, 0.0), gate(n);                                      \
  double loss = 0.0;                                                           \
  for (int t = 0; t < T; ++t) {                                                \
    const double *x = xs + t * n;                                              \
    for (int g = 0; g < n; ++g) {                                              \
      gate[g] = 0.1 * g;                                                       \
      for (int j = 0; j < n; ++j)                                              \
        gate[g] += W[g * n + j] * x[j] + U[g * n + j] * h[j] EXTRA;            \
    }                                                                          \
    for (int g = 0; g < n; ++g) {                                              \
      h[g] = std::tanh(gate[g]);                                               \
      loss += h[g] * h[g] * (g + 1);                                           \
    }                                                                          \
  }                                                                            \
  return loss;

[[fluxion::grad("W", "U")]] [[fluxion::jvp("W", "U")]] double
rnn(const double *W, const double *U, const double *xs, int T, int n) {
  RNN_BODY()
}
// The same, except that the body reads gate[g] (nothing to hoist).
[[fluxion::grad("W", "U")]] double rnn_reads(const double *W, const double *U,
                                             const double *xs, int T, int n) {
  RNN_BODY(+0.0 * gate[g] * gate[g])
}

// A scalar read before, inside (by the enclosing loop) and after an inner
// accumulation; an inclusive bound; two accumulators in one loop (restored
// in the opposite order of their records).
[[fluxion::grad]] [[fluxion::jvp]] double scalars(int n, const double *x) {
  double s = x[0] * x[0], b = 1.0, y = 0;
  for (int t = 0; t < 3; ++t) {
    y += s * s + std::sin(b);
    for (int i = 0; i <= n - 1; ++i) {
      s += x[i] * (t + 1);
      b -= x[i] * x[i] * 0.5;
    }
    y += std::sin(s) * b;
  }
  return y + s * b;
}

// Accumulators indexed by the enclosing loop's counter and read before and
// after their loop; an inner loop that runs no iteration when m == 0 (its
// index, m - 1, is then out of range and must not be evaluated); a write to
// the same array at another index (not hoisted); an index the loop moves
// (not hoisted).
[[fluxion::grad]] [[fluxion::jvp]] double mixed(int n, int m,
                                                const double *x) {
  std::vector<double> acc(n, 0.0), other(n + 1, 0.0), last(m, 0.0);
  double y = 0;
  for (int k = 0; k < n; ++k) {
    acc[k] = x[k] * x[k];
    y += std::sin(acc[k]);
    for (int j = 0; j < m; ++j) {
      acc[k] += x[(k + j) % n] * (j + 1) * 0.3;
      last[m - 1] += x[k] * x[(k + j) % n];
    }
    y += std::exp(0.1 * acc[k]);
    if (m > 0)
      y += last[m - 1] * last[m - 1] * 0.01;
  }
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < m; ++j) {
      other[k] += x[j % n] * 0.5;
      other[k + 1] -= x[k] * 0.25;
    }
    y += other[k] * other[k + 1];
  }
  int idx = 0;
  double slots[4] = {0, 0, 0, 0};
  for (int j = 0; j < m; ++j) {
    slots[idx] += x[j % n];
    idx = (idx + 1) % 4;
  }
  return y + slots[0] * slots[1] + std::cos(slots[2]) + slots[3];
}

// Ranges: a triangular update (GMM's Q x: the inner loop's start moves
// with the outer counter), a growing one (its end moves), inclusive bounds,
// offset indices, a copy back from a scratch array, a sliding window (both
// bounds move: recorded per write), a conditional write (per write), and an
// element indexed by the outer counter inside an inner loop that may not
// run (recorded around the inner loop only).
[[fluxion::grad("x", "q")]] [[fluxion::jvp("x", "q")]] double
ranges(int d, int reps, const double *x, const double *q) {
  double v[8], w[10], u[8], tmp[8];
  double s = 0;
  for (int i = 0; i < d; ++i)
    u[i] = x[i];
  for (int r = 0; r < reps; ++r) {
    for (int j = 0; j < d; ++j)
      v[j] = u[j] * (r + 1) + q[j];
    for (int j = 0; j < d; ++j)
      for (int l = j + 1; l < d; ++l)
        v[l] += q[l] * u[j];
    for (int j = 0; j <= d + 1; ++j)
      w[j] = 0.5 * j;
    for (int j = 0; j < d; ++j)
      for (int l = 0; l <= j; ++l)
        w[l + 2] -= q[j] * v[l] * 0.25;
    for (int j = 1; j < d; ++j)
      for (int l = j - 1; l < j + 1; ++l)
        v[l] += 0.1 * w[l];
    for (int j = 0; j < d; ++j)
      for (int l = 0; l < d; ++l)
        if (l % 2 == 0)
          w[l] += 0.05 * v[j];
    for (int j = 0; j < d; ++j)
      for (int l = j + 1; l < d; ++l)
        v[j] += 0.01 * q[l];
    for (int j = 0; j < d; ++j)
      s += std::sin(v[j]) * w[j + 1] + w[j] * w[j];
    for (int i = 0; i < d; ++i) {
      int ip = (i + 1) % d;
      tmp[i] = u[i] + 0.1 * (u[ip] - u[i]) * u[i];
    }
    for (int i = 0; i < d; ++i)
      u[i] = tmp[i];
  }
  for (int i = 0; i < d; ++i)
    s += u[i] * u[i];
  return s;
}

// A scalar accumulated over a loop nest whose bodies never read it: one
// record around the outer loop.
[[fluxion::grad]] [[fluxion::jvp]] double nest(int n, const double *x) {
  double acc = x[0];
  double y = std::sin(acc);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      acc += x[i] * x[j] * 0.1;
  return y * std::cos(acc) + acc * acc;
}

// Adjoint sums over a loop into one element: d_w[i] over j (a std::vector
// parameter), a `-=` one, one whose element the loop also reads at another
// index (kept in memory), and loops that run no iteration.
[[fluxion::grad]] [[fluxion::jvp]] double
sums(const std::vector<double> &w, int m, double b) {
  const int n = int(w.size());
  double y = 0;
  for (int i = 0; i < n; ++i) {
    double t = 0;
    for (int j = i + 1; j < m; ++j)
      t += w[i] * std::sin(b * j) - 0.5 * w[i] * b;
    y += t * t;
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      y += w[i] * w[j] * 0.1;
  return y;
}

// An unsigned counter whose loop may not run (a > b): its range record is
// guarded by comparing the bounds, not by an unsigned count that wraps.
[[fluxion::grad]] double unsigned_range(std::size_t a, std::size_t b,
                                        const double *x) {
  double v[4] = {0, 0, 0, 0};
  double s = 0;
  for (int r = 0; r < 2; ++r) {
    for (std::size_t i = a; i < b; ++i)
      v[i] = x[i] * (r + 1) + v[i] * 0.5;
    for (std::size_t i = 0; i < 4; ++i)
      s += std::sin(v[i]) * x[i];
  }
  return s;
}

// Accumulators set to a constant and summed into (engine/lib/
// UnreadValues.cpp): the constant is read by no reverse sweep, so the
// loop's record of it is dropped. `row_norms` is Q v row by row (an Eigen
// product lowered to dot products); `row_norms_read` reads the constant
// before the loop, which keeps the record; `branches` writes the
// accumulator in one branch and updates it in the other, where its old
// value is needed.
#define ROWS_BODY(READ)                                                        \
  double s = 0, dot = 0;                                                       \
  for (int r = 0; r < n; ++r) {                                                \
    dot = 0.5;                                                                 \
    READ;                                                                      \
    for (int k = 0; k < n; ++k)                                                \
      dot += q[r * n + k] * v[k];                                              \
    dot -= v[r];                                                               \
    s += dot * dot;                                                            \
  }                                                                            \
  return s;

[[fluxion::grad]] [[fluxion::jvp]] double row_norms(int n, const double *q,
                                                    const double *v) {
  ROWS_BODY((void)0)
}
[[fluxion::grad]] [[fluxion::jvp]] double
row_norms_read(int n, const double *q, const double *v) {
  ROWS_BODY(s += dot * v[r])
}

[[fluxion::grad]] [[fluxion::jvp]] double branches(int n, const double *v) {
  double acc = v[0] * v[1], t = 0, u = 0;
  for (int r = 0; r < n; ++r) {
    t += acc * v[r];
    if (v[r] > 0)
      acc = 0.25;
    else
      acc += v[r] * v[r];
    for (int k = 0; k < n; ++k)
      acc += v[k] * (r + 1);
    u += std::sin(acc) * t;
  }
  return u + t;
}

} // namespace hoist

namespace {

using nt::ld;

std::vector<double> inputs(int count, std::uint64_t seed, double lo = -0.8,
                           double hi = 0.8) {
  nt::Rng rng(seed);
  return rng.vec<double>(count, lo, hi);
}

/// <grad, t> from f_grad equals f_jvp along t.
template <class Grad, class Jvp>
void expectDotProduct(Grad grad, Jvp jvp, std::size_t n, std::uint64_t seed) {
  std::vector<double> t = inputs(int(n), seed), d(n, 0.0);
  grad(d.data());
  double viaGrad = 0;
  for (std::size_t i = 0; i < n; ++i)
    viaGrad += d[i] * t[i];
  EXPECT_NEAR(jvp(t.data()), viaGrad, 1e-11 * (1 + std::fabs(viaGrad)));
}

TEST(HoistedRecords, RecurrentNetwork) {
  for (auto Size : {std::pair{1, 1}, {3, 2}, {4, 5}}) {
    const int T = Size.first, n = Size.second;
    std::vector<double> in = inputs(2 * n * n + T * n, 10 + n);
    const double *xs = in.data() + 2 * n * n;
    auto f = [&](const double *v) { return hoist::rnn(v, v + n * n, xs, T, n); };
    auto g = [&](const double *v, double *d) {
      return hoist::rnn_grad(v, v + n * n, xs, T, n, d, d + n * n);
    };
    std::vector<std::size_t> cols;
    for (int i = 0; i < 2 * n * n; ++i)
      cols.push_back(i);
    std::vector<ld> grad = nt::check_gradient<double>(f, g, in, cols);
    std::vector<double> twin(2 * n * n, 0.0);
    hoist::rnn_reads_grad(in.data(), in.data() + n * n, xs, T, n, twin.data(),
                          twin.data() + n * n);
    for (int i = 0; i < 2 * n * n; ++i)
      NT_EXPECT_EXACT(double, twin[i], grad[i]);
    expectDotProduct(
        [&](double *d) {
          hoist::rnn_grad(in.data(), in.data() + n * n, xs, T, n, d,
                          d + n * n);
        },
        [&](const double *t) {
          return hoist::rnn_jvp(in.data(), in.data() + n * n, xs, T, n, t,
                                t + n * n);
        },
        2 * n * n, 20 + n);
  }
}

TEST(HoistedRecords, RecordOncePerLoopNotPerIteration) {
  // n gate values per step instead of n^2: the hoisted tape is several
  // times smaller than the twin's.
  const int T = 20, n = 16;
  std::vector<double> in = inputs(2 * n * n + T * n, 3);
  const double *xs = in.data() + 2 * n * n;
  std::vector<double> d(2 * n * n);
  auto peak = [&](auto grad) {
    fluxion::reset_memory_peaks();
    grad(in.data(), in.data() + n * n, xs, T, n, d.data(), d.data() + n * n);
    return fluxion::memory_stats().tapeBytesPeak;
  };
  std::size_t hoisted = peak(hoist::rnn_grad);
  std::size_t perWrite = peak(hoist::rnn_reads_grad);
  EXPECT_GT(hoisted, 0u);
  EXPECT_LT(hoisted * 4, perWrite) << hoisted << " vs " << perWrite;
}

TEST(HoistedRecords, ScalarAccumulators) {
  for (int n : {1, 2, 6}) {
    std::vector<double> in = inputs(n, 30 + n);
    nt::check_gradient<double>(
        [&](const double *v) { return hoist::scalars(n, v); },
        [&](const double *v, double *d) {
          return hoist::scalars_grad(n, v, d);
        },
        in);
    expectDotProduct(
        [&](double *d) { hoist::scalars_grad(n, in.data(), d); },
        [&](const double *t) { return hoist::scalars_jvp(n, in.data(), t); },
        n, 40 + n);
  }
}

TEST(HoistedRecords, ZeroTripLoopsAndLoopsThatCannotHoist) {
  for (auto Size : {std::pair{1, 0}, {2, 1}, {3, 5}, {5, 9}}) {
    const int n = Size.first, m = Size.second;
    std::vector<double> in = inputs(n, 50 + n + m);
    nt::check_gradient<double>(
        [&](const double *v) { return hoist::mixed(n, m, v); },
        [&](const double *v, double *d) {
          return hoist::mixed_grad(n, m, v, d);
        },
        in);
    expectDotProduct(
        [&](double *d) { hoist::mixed_grad(n, m, in.data(), d); },
        [&](const double *t) { return hoist::mixed_jvp(n, m, in.data(), t); },
        n, 60 + n);
  }
}

} // namespace

namespace {

TEST(HoistedRecords, Ranges) {
  for (int d : {1, 2, 3, 8}) {
    for (int reps : {0, 1, 3}) {
      std::vector<double> in = inputs(2 * d, 70 + d + reps);
      nt::check_gradient<double>(
          [&](const double *v) { return hoist::ranges(d, reps, v, v + d); },
          [&](const double *v, double *g) {
            return hoist::ranges_grad(d, reps, v, v + d, g, g + d);
          },
          in);
      expectDotProduct(
          [&](double *g) {
            hoist::ranges_grad(d, reps, in.data(), in.data() + d, g, g + d);
          },
          [&](const double *t) {
            return hoist::ranges_jvp(d, reps, in.data(), in.data() + d, t,
                                     t + d);
          },
          2 * d, 80 + d);
    }
  }
}

TEST(HoistedRecords, ScalarOverALoopNest) {
  for (int n : {0, 1, 4}) {
    std::vector<double> in = inputs(std::max(n, 1), 90 + n);
    nt::check_gradient<double>(
        [&](const double *v) { return hoist::nest(n, v); },
        [&](const double *v, double *g) { return hoist::nest_grad(n, v, g); },
        in);
    expectDotProduct(
        [&](double *g) { hoist::nest_grad(n, in.data(), g); },
        [&](const double *t) { return hoist::nest_jvp(n, in.data(), t); },
        std::max(n, 1), 95 + n);
  }
}

} // namespace

namespace {

TEST(LocalAccumulators, SumsIntoOneElement) {
  for (int n : {1, 3, 5}) {
    for (int m : {0, 2, 6}) {
      std::vector<double> in = inputs(n + 1, 100 + n + m);
      auto f = [&](const double *v) {
        return hoist::sums(std::vector<double>(v, v + n), m, v[n]);
      };
      auto g = [&](const double *v, double *d) {
        std::vector<double> dw(n, 0.0);
        double r = hoist::sums_grad(std::vector<double>(v, v + n), m, v[n],
                                    &dw, d + n);
        for (int i = 0; i < n; ++i)
          d[i] += dw[i];
        return r;
      };
      nt::check_gradient<double>(f, g, in);
      expectDotProduct(
          [&](double *d) { g(in.data(), d); },
          [&](const double *t) {
            std::vector<double> w(in.begin(), in.begin() + n), tw(t, t + n);
            return hoist::sums_jvp(w, m, in[n], &tw, t[n]);
          },
          n + 1, 110 + n);
    }
  }
}

} // namespace

namespace {

TEST(HoistedRecords, UnsignedCountersThatMayNotRun) {
  for (auto Bounds : {std::pair<std::size_t, std::size_t>{0, 4}, {1, 3},
                      {3, 1}, {2, 2}}) {
    std::vector<double> in = inputs(4, 120 + Bounds.first);
    nt::check_gradient<double>(
        [&](const double *v) {
          return hoist::unsigned_range(Bounds.first, Bounds.second, v);
        },
        [&](const double *v, double *d) {
          return hoist::unsigned_range_grad(Bounds.first, Bounds.second, v,
                                            d);
        },
        in);
  }
}

TEST(UnreadValues, ConstantAccumulatorsAreNotRecordedAgain) {
  for (int n : {1, 3, 7}) {
    std::vector<double> in = inputs(n * n + n, 80 + n);
    const double *q = in.data();
    for (auto [f, g, j] :
         {std::tuple{&hoist::row_norms, &hoist::row_norms_grad,
                     &hoist::row_norms_jvp},
          std::tuple{&hoist::row_norms_read, &hoist::row_norms_read_grad,
                     &hoist::row_norms_read_jvp}}) {
      nt::check_gradient<double>(
          [&](const double *x) { return f(n, x, x + n * n); },
          [&](const double *x, double *d) {
            return g(n, x, x + n * n, d, d + n * n);
          },
          in);
      expectDotProduct(
          [&](double *d) { g(n, q, q + n * n, d, d + n * n); },
          [&](const double *t) { return j(n, q, q + n * n, t, t + n * n); },
          n * n + n, 90 + n);
    }
  }
  // One record per row (the value before `dot = 0.5`), where the twin that
  // reads the constant keeps a second one.
  const int n = 16;
  std::vector<double> in = inputs(n * n + n, 5), d(n * n + n);
  auto peak = [&](auto grad) {
    fluxion::reset_memory_peaks();
    grad(n, in.data(), in.data() + n * n, d.data(), d.data() + n * n);
    return fluxion::memory_stats().tapeBytesPeak;
  };
  std::size_t unread = peak(hoist::row_norms_grad);
  std::size_t read = peak(hoist::row_norms_read_grad);
  EXPECT_LE(unread, n * sizeof(double)) << unread << " vs " << read;
  EXPECT_GE(read, 2 * n * sizeof(double)) << unread << " vs " << read;
}

TEST(UnreadValues, BranchesKeepWhatTheOtherBranchNeeds) {
  for (int n : {2, 4, 9}) {
    std::vector<double> in = inputs(n, 100 + n);
    nt::check_gradient<double>(
        [&](const double *v) { return hoist::branches(n, v); },
        [&](const double *v, double *d) {
          return hoist::branches_grad(n, v, d);
        },
        in);
    expectDotProduct(
        [&](double *d) { hoist::branches_grad(n, in.data(), d); },
        [&](const double *t) { return hoist::branches_jvp(n, in.data(), t); },
        n, 110 + n);
  }
}

} // namespace
