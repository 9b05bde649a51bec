// What the forward sweep records, and that recording less keeps gradients
// right: local arrays that only callees read through const pointers of a
// known extent are saved once at the call (not at every write before it),
// and `for` counters with bounds the loop does not change are run backwards
// instead of being recorded. Each function here has a twin whose shape
// defeats the optimisation (the recording it falls back to is the
// reference), and both are checked against finite differences.
#include <fluxion/fluxion.hpp>
#include <fluxion/memory.hpp>

#include <cmath>

#include "numeric_check.hpp"

namespace rec {

constexpr int MaxD = 8;

// Reads v[0..n): the extent is known (the count is parameter 0).
static double sumsq(int n, const double *v) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return s;
}

// Reads v[0] too (extent max(n, 1)), like ADBench's logsumexp.
static double lse(int n, const double *v) {
  double mx = v[0];
  for (int i = 1; i < n; ++i)
    if (v[i] > mx)
      mx = v[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::exp(v[i] - mx);
  return std::log(s) + mx;
}

// Same value as sumsq, but the pointer is passed on: extent unknown.
static double sumsq_via(int n, const double *v) { return sumsq(n, v); }

// Same value as sumsq, but reads v[i + 1]: extent unknown.
static double sumsq_shifted(int n, const double *v) {
  double s = 0;
  for (int i = -1; i + 1 < n; ++i)
    s += v[i + 1] * v[i + 1];
  return s;
}

// y = L xc row by row (L unit lower triangular, strictly lower part in l),
// updated in place, then read by a callee: GMM's Q(x - mu). Only the callee
// reads y; xc is read by y's updates.
#define TRI_BODY(NORM)                                                         \
  double xc[MaxD];                                                             \
  double y[MaxD];                                                              \
  double terms[MaxD];                                                          \
  double total = 0;                                                            \
  for (int r = 0; r < rows; ++r) {                                             \
    for (int k = 0; k < m; ++k) {                                              \
      for (int i = 0; i < d; ++i) {                                            \
        xc[i] = x[r * d + i] - 0.1 * k;                                        \
        y[i] = xc[i] * (1 + 0.1 * k);                                          \
      }                                                                        \
      int cur = 0;                                                             \
      for (int i = 0; i < d; ++i)                                              \
        for (int j = i + 1; j < d; ++j) {                                      \
          y[j] += l[cur] * xc[i];                                              \
          ++cur;                                                               \
        }                                                                      \
      terms[k] = -0.5 * NORM(d, y);                                            \
    }                                                                          \
    total += lse(m, terms);                                                    \
  }                                                                            \
  return total;

[[fluxion::grad]] double tri_saved(int rows, int m, int d, const double *x,
                                   const double *l) {
  TRI_BODY(sumsq)
}
[[fluxion::grad]] double tri_via(int rows, int m, int d, const double *x,
                                 const double *l) {
  TRI_BODY(sumsq_via)
}
[[fluxion::grad]] double tri_shifted(int rows, int m, int d, const double *x,
                                     const double *l) {
  TRI_BODY(sumsq_shifted)
}

// The array is read by the callee and by a statement of our own: it must
// be recorded at its writes (and the saved range is not used).
[[fluxion::grad]] double read_twice(int n, const double *x) {
  double v[MaxD];
  double s = 0;
  for (int t = 0; t < 3; ++t) {
    for (int i = 0; i < n; ++i)
      v[i] = x[i] * (t + 1);
    for (int i = 1; i < n; ++i)
      v[i] += v[i - 1] * v[i];
    s += sumsq(n, v) * v[0];
  }
  return s;
}

// A range of an array at an offset, read by a callee inside a callee (the
// inner caller is a split pair: its forward saves, its backward restores).
static double block_norms(int n, int b, const double *x) {
  double w[2 * MaxD];
  double s = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < n * b; ++i)
      w[i] = x[i] * x[i] + pass;
    for (int k = 0; k < b; ++k)
      s += sumsq(n, w + k * n) + lse(n, w + k * n);
  }
  return s;
}

[[fluxion::grad]] double outer(int n, int b, const double *x) {
  double s = 0;
  for (int rep = 0; rep < 2; ++rep)
    s += block_norms(n, b, x) * (rep + 1);
  return s;
}

// A count of zero saves nothing; a negative one too.
[[fluxion::grad]] double empty_ranges(int n, const double *x) {
  double v[MaxD];
  double s = 0;
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < n; ++i)
      v[i] = x[i] + t;
    s += sumsq(0, v) + sumsq(-3, v) + sumsq(n, v);
  }
  return s;
}

// Counted loops: inclusive bounds, dependent bounds, loops that run zero
// times, a counter wider than its bound, and loops that are not counted (the
// counter moves inside the body, the bound changes in the loop, a break).
[[fluxion::grad]] double counted(int n, const double *x) {
  double s = 0;
  for (int i = 1; i <= n; ++i)
    s += x[i - 1] * i;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      s += x[i] * x[j];
  for (int i = n; i < 2; ++i) // zero trips when n >= 2
    s *= x[0];
  for (long i = 0; i < n; ++i)
    s += std::sin(x[i] * s);
  return s;
}

[[fluxion::grad]] double not_counted(int n, const double *x) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += x[i] * s + x[i];
    if (s > 100)
      ++i; // the counter moves inside the body
  }
  int m = n;
  for (int i = 0; i < m; ++i) {
    s = s * 0.5 + x[i];
    if (i == 1)
      m = m - 1; // the bound changes inside the loop
  }
  for (int i = 0; i < n; ++i) {
    if (x[i] > 2)
      break;
    s += std::cos(x[i]) * s;
  }
  for (int i = 0; i < n; ++i) {
    if (i == 1)
      continue;
    s = s * x[i] + 1;
  }
  return s;
}

// Declarations recomputed in the reverse sweep from the counter (periodic
// neighbours, a weight), next to ones that must be recorded: one reads a
// value the loop changes, one is assigned twice.
[[fluxion::grad]] double stencil(int n, int steps, const double *x,
                                 double a) {
  double u[MaxD], un[MaxD];
  for (int i = 0; i < n; ++i)
    u[i] = x[i];
  double drift = 0.1;
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      int im = i == 0 ? n - 1 : i - 1;
      int ip = i == n - 1 ? 0 : i + 1;
      double w = 0.25 * a + 0.01 * i;  // recomputed (a, i)
      double shift = drift * u[i];     // recorded: drift changes below
      double twice = u[ip];            // recorded: assigned again
      twice = twice * 2;
      un[i] = u[i] + w * (u[ip] - 2 * u[i] + u[im]) - shift * u[im] * 0.1 +
              0.01 * twice * u[i];
      drift = drift + 0.001;
    }
    for (int i = 0; i < n; ++i)
      u[i] = un[i];
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += u[i] * u[i] * (i + 1);
  return s;
}

// A callee that updates its caller's local array in place through a pointer
// whose accesses stay in [0, d) (ADBench's qtimesx): its pair saves that
// range on entry and gives it back at the end of its reverse sweep, instead
// of recording each of the d(d+1)/2 updates. Twin: the same callee reading
// out[j + 0] through an index that is not a counter, which falls back to
// recording every write.
static void lower_times(int d, const double *l, const double *x,
                        double *out) {
  for (int i = 0; i < d; ++i)
    out[i] = x[i];
  int cur = 0;
  for (int i = 0; i < d; ++i)
    for (int j = i + 1; j < d; ++j) {
      out[j] += l[cur] * x[i] * out[i];
      ++cur;
    }
}
static void lower_times_rec(int d, const double *l, const double *x,
                            double *out) {
  for (int i = 0; i < d; ++i)
    out[i] = x[i];
  int cur = 0;
  for (int i = 0; i < d; ++i)
    for (int j = i + 1; j < d; ++j) {
      out[j + 0] += l[cur] * x[i] * out[i];
      ++cur;
    }
}
#define LOWER_BODY(CALLEE)                                                     \
  double xc[MaxD], y[MaxD];                                                    \
  double s = 0;                                                                \
  for (int r = 0; r < rows; ++r) {                                             \
    for (int i = 0; i < d; ++i)                                                \
      xc[i] = x[r * d + i] + 0.1 * r;                                          \
    CALLEE(d, l, xc, y);                                                       \
    s += sumsq(d, y) + y[0] * xc[0];                                           \
  }                                                                            \
  return s;
[[fluxion::grad("x", "l")]] double lower_saved(int rows, int d,
                                               const double *x,
                                               const double *l) {
  LOWER_BODY(lower_times)
}
[[fluxion::grad("x", "l")]] double lower_recorded(int rows, int d,
                                                  const double *x,
                                                  const double *l) {
  LOWER_BODY(lower_times_rec)
}

// Accumulators read back only after their loop are not recorded inside it;
// one read by its enclosing loop's body (whose earlier iterations are
// reversed later) is.
// Elements filled by a call in a loop (exp's residual rule) and read only
// by later code: their old values are not recorded. The twin reads an
// element before it is overwritten, so it records.
[[fluxion::grad]] double filled(int n, const double *x) {
  double e[MaxD];
  for (int i = 0; i < n; ++i)
    e[i] = std::exp(x[i]);
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += e[i] * e[(i + 1) % n];
  return s;
}
[[fluxion::grad]] double refilled(int n, const double *x) {
  double e[MaxD];
  for (int i = 0; i < n; ++i)
    e[i] = x[i];
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += e[i] * e[(i + 1) % n];
    e[i] = std::exp(x[i] * e[i]);
  }
  for (int i = 0; i < n; ++i)
    s += e[i] * x[i];
  return s;
}

[[fluxion::grad]] double accumulators(int n, const double *x) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::exp(x[i]);
  double r = std::log(s);
  for (int t = 1; t <= 3; ++t) {
    double q = 0;
    for (int i = 0; i < n; ++i)
      q += x[i] * x[i] * t;
    r += q * q * 0.1 + std::sin(q);
    q = q * r;
    r += 0.01 * q;
  }
  return r;
}

} // namespace rec

namespace {

using nt::ld;

std::vector<double> inputs(int count, std::uint64_t seed, double lo = -0.8,
                           double hi = 0.8) {
  nt::Rng rng(seed);
  return rng.vec<double>(count, lo, hi);
}

TEST(Recording, RangeSavedAtCallMatchesRecordingAtWrites) {
  for (int d : {1, 2, 5, rec::MaxD}) {
    const int rows = 3, m = 4, nl = d * (d - 1) / 2;
    std::vector<double> in = inputs(rows * d + nl, 100 + d);
    auto f = [&](const double *v) {
      return rec::tri_saved(rows, m, d, v, v + rows * d);
    };
    auto g = [&](const double *v, double *dv) {
      return rec::tri_saved_grad(rows, m, d, v, v + rows * d, dv,
                                 dv + rows * d);
    };
    std::vector<ld> saved = nt::check_gradient<double>(f, g, in);
    // The twins record at every write; same derivatives.
    std::vector<double> dvia(in.size()), dshift(in.size());
    rec::tri_via_grad(rows, m, d, in.data(), in.data() + rows * d, dvia.data(),
                      dvia.data() + rows * d);
    rec::tri_shifted_grad(rows, m, d, in.data(), in.data() + rows * d,
                          dshift.data(), dshift.data() + rows * d);
    for (size_t i = 0; i < in.size(); ++i) {
      NT_EXPECT_EXACT(double, dvia[i], saved[i]);
      NT_EXPECT_EXACT(double, dshift[i], saved[i]);
    }
  }
}

TEST(Recording, RangeSavedAtCallRecordsLess) {
  // One saved range of d values per row and term, against the twin's
  // records of y at its writes: the tape of tri_saved is smaller.
  const int rows = 50, m = 4, d = rec::MaxD, nl = d * (d - 1) / 2;
  std::vector<double> in = inputs(rows * d + nl, 7);
  std::vector<double> dv(in.size());
  auto peak = [&](auto grad) {
    fluxion::reset_memory_peaks();
    grad(rows, m, d, in.data(), in.data() + rows * d, dv.data(),
         dv.data() + rows * d);
    return fluxion::memory_stats().tapeBytesPeak;
  };
  std::size_t saved = peak(rec::tri_saved_grad);
  std::size_t recorded = peak(rec::tri_via_grad);
  EXPECT_GT(saved, 0u);
  // The twin's updates of y are recorded once per loop nest as the range
  // they cover (HoistedRecords.cpp), not d(d-1)/2 times, so its tape is
  // not much larger; the saved range still spares those records.
  EXPECT_LT(saved, recorded) << saved << " vs " << recorded << " bytes";
}

TEST(Recording, ArrayReadByOwnStatementsIsRecorded) {
  for (int n : {1, 3, rec::MaxD}) {
    std::vector<double> in = inputs(n, 200 + n);
    nt::check_gradient<double>(
        [&](const double *v) { return rec::read_twice(n, v); },
        [&](const double *v, double *d) {
          return rec::read_twice_grad(n, v, d);
        },
        in);
  }
}

TEST(Recording, RangesAtOffsetsInsideACallee) {
  for (auto nb : {std::pair{1, 1}, {3, 2}, {rec::MaxD, 2}}) {
    const int n = nb.first, b = nb.second;
    std::vector<double> in = inputs(n * b, 300 + n);
    nt::check_gradient<double>(
        [&](const double *v) { return rec::outer(n, b, v); },
        [&](const double *v, double *d) { return rec::outer_grad(n, b, v, d); },
        in);
  }
}

TEST(Recording, EmptyAndNegativeCountsSaveNothing) {
  std::vector<double> in = inputs(4, 400);
  nt::check_gradient<double>(
      [&](const double *v) { return rec::empty_ranges(4, v); },
      [&](const double *v, double *d) {
        return rec::empty_ranges_grad(4, v, d);
      },
      in);
}

TEST(Recording, CountedLoopsRunBackwards) {
  for (int n : {0, 1, 2, 5}) {
    std::vector<double> in = inputs(std::max(n, 1), 500 + n);
    nt::check_gradient<double>(
        [&](const double *v) { return rec::counted(n, v); },
        [&](const double *v, double *d) { return rec::counted_grad(n, v, d); },
        in);
  }
}

TEST(Recording, DeclarationsRecomputedFromTheCounter) {
  for (int n : {1, 2, 5}) {
    std::vector<double> in = inputs(n + 1, 700 + n);
    nt::check_gradient<double>(
        [&](const double *v) { return rec::stencil(n, 3, v, v[n]); },
        [&](const double *v, double *d) {
          return rec::stencil_grad(n, 3, v, v[n], d, d + n);
        },
        in);
  }
}

TEST(Recording, CalleeRestoresARangeInsteadOfEachWrite) {
  for (int d : {1, 3, rec::MaxD}) {
    const int rows = 4, nl = d * (d - 1) / 2;
    std::vector<double> in = inputs(rows * d + nl, 800 + d);
    auto f = [&](const double *v) {
      return rec::lower_saved(rows, d, v, v + rows * d);
    };
    auto g = [&](const double *v, double *dv) {
      return rec::lower_saved_grad(rows, d, v, v + rows * d, dv,
                                   dv + rows * d);
    };
    std::vector<ld> saved = nt::check_gradient<double>(f, g, in);
    std::vector<double> drec(in.size());
    rec::lower_recorded_grad(rows, d, in.data(), in.data() + rows * d,
                             drec.data(), drec.data() + rows * d);
    for (size_t i = 0; i < in.size(); ++i)
      NT_EXPECT_EXACT(double, drec[i], saved[i]);
  }
}

TEST(Recording, AccumulatorsReadAfterTheirLoop) {
  for (int n : {1, 2, 5}) {
    std::vector<double> in = inputs(n, 900 + n);
    nt::check_gradient<double>(
        [&](const double *v) { return rec::accumulators(n, v); },
        [&](const double *v, double *d) {
          return rec::accumulators_grad(n, v, d);
        },
        in);
  }
}

TEST(Recording, ElementsFilledByACallAreNotRecorded) {
  for (int n : {1, 2, 5, rec::MaxD}) {
    std::vector<double> in = inputs(n, 950 + n);
    nt::check_gradient<double>(
        [&](const double *v) { return rec::filled(n, v); },
        [&](const double *v, double *d) { return rec::filled_grad(n, v, d); },
        in);
    nt::check_gradient<double>(
        [&](const double *v) { return rec::refilled(n, v); },
        [&](const double *v, double *d) {
          return rec::refilled_grad(n, v, d);
        },
        in);
  }
  // filled keeps one residual per element, refilled its old values too.
  const int n = rec::MaxD;
  std::vector<double> in = inputs(n, 7), dv(n);
  auto peak = [&](auto grad) {
    fluxion::reset_memory_peaks();
    grad(n, in.data(), dv.data());
    return fluxion::memory_stats().tapeBytesPeak;
  };
  EXPECT_EQ(peak(rec::filled_grad), n * sizeof(double));
  EXPECT_GT(peak(rec::refilled_grad), n * sizeof(double));
}

TEST(Recording, LoopsThatAreNotCountedStillRecord) {
  for (int n : {1, 3, 6}) {
    for (double hi : {0.9, 3.0}) {
      std::vector<double> in = inputs(n, 600 + n, 0.1, hi);
      nt::check_gradient<double>(
          [&](const double *v) { return rec::not_counted(n, v); },
          [&](const double *v, double *d) {
            return rec::not_counted_grad(n, v, d);
          },
          in);
    }
  }
}

} // namespace
