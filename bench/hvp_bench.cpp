// Cost of the generated derivatives relative to the primal, for functions of
// n = 10^4 inputs behind a runtime-length pointer:
//   primal, f_grad (reverse), f_jvp (forward), f_hvp (forward over reverse).
// Every benchmark runs 10 repetitions and reports aggregates only; the
// summary printed at the end (and bench/run.sh's RESULTS.md) uses medians:
//   f_jvp / primal   (forward mode: a small constant)
//   f_grad / primal  (reverse mode: a small constant plus the tape)
//   f_hvp / f_grad   (Hessian-vector product: a small constant times a gradient)
#include <fluxion/fluxion.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int N = 10000;

// Extended (chained) Rosenbrock function.
[[fluxion::hessian]] [[fluxion::jvp]] double rosen(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; ++i) {
    double a = x[i + 1] - x[i] * x[i];
    double b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}

// A sum of transcendental terms coupling neighbours.
[[fluxion::hessian]] [[fluxion::jvp]] double sinexp(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; ++i)
    s += std::sin(x[i]) * std::exp(0.1 * x[i + 1]) + 0.5 * x[i] * x[i + 1];
  return s;
}

struct Data {
  std::vector<double> x, t, d;
  Data() : x(N), t(N), d(N, 0.0) {
    std::mt19937 gen(42);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < N; ++i) {
      x[i] = u(gen);
      t[i] = u(gen);
    }
  }
};
Data &data() {
  static Data D;
  return D;
}

// f_grad and f_hvp add into their outputs; the buffers are not re-zeroed
// between iterations (the accumulated values stay finite and the timed work
// is the derivative itself).
template <double (*F)(const double *, int)> void BM_primal(benchmark::State &s) {
  Data &D = data();
  for (auto _ : s) {
    benchmark::DoNotOptimize(D.x.data());
    double v = F(D.x.data(), N);
    benchmark::DoNotOptimize(v);
    benchmark::ClobberMemory();
  }
}

#define FLUXION_BENCHES(fn)                                                    \
  void BM_##fn##_grad(benchmark::State &s) {                                   \
    Data &D = data();                                                          \
    for (auto _ : s) {                                                         \
      double v = fn##_grad(D.x.data(), N, D.d.data());                         \
      benchmark::DoNotOptimize(v);                                             \
      benchmark::ClobberMemory();                                              \
    }                                                                          \
  }                                                                            \
  void BM_##fn##_jvp(benchmark::State &s) {                                    \
    Data &D = data();                                                          \
    for (auto _ : s) {                                                         \
      benchmark::DoNotOptimize(D.x.data());                                    \
      double v = fn##_jvp(D.x.data(), N, D.t.data());                          \
      benchmark::DoNotOptimize(v);                                             \
      benchmark::ClobberMemory();                                              \
    }                                                                          \
  }                                                                            \
  void BM_##fn##_hvp(benchmark::State &s) {                                    \
    Data &D = data();                                                          \
    for (auto _ : s) {                                                         \
      fn##_hvp(D.x.data(), N, D.t.data(), D.d.data());                         \
      benchmark::ClobberMemory();                                              \
    }                                                                          \
  }

FLUXION_BENCHES(rosen)
FLUXION_BENCHES(sinexp)

#define FLUXION_REGISTER(fn)                                                   \
  BENCHMARK(BM_primal<fn>)->Name(#fn "/primal")->Repetitions(10)->ReportAggregatesOnly(true); \
  BENCHMARK(BM_##fn##_grad)->Name(#fn "/grad")->Repetitions(10)->ReportAggregatesOnly(true); \
  BENCHMARK(BM_##fn##_jvp)->Name(#fn "/jvp")->Repetitions(10)->ReportAggregatesOnly(true);   \
  BENCHMARK(BM_##fn##_hvp)->Name(#fn "/hvp")->Repetitions(10)->ReportAggregatesOnly(true);

FLUXION_REGISTER(rosen)
FLUXION_REGISTER(sinexp)

// Console output as usual, plus the median CPU time of every benchmark.
class MedianCollector : public benchmark::ConsoleReporter {
public:
  std::map<std::string, double> Median; // "fn/kind" -> ns
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &r : runs)
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median")
        Median[r.run_name.function_name] =
            r.GetAdjustedCPUTime() *
            benchmark::GetTimeUnitMultiplier(benchmark::kNanosecond) /
            benchmark::GetTimeUnitMultiplier(r.time_unit);
    ConsoleReporter::ReportRuns(runs);
  }
};

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  MedianCollector rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();

  std::printf("\nSummary (median CPU time, n = %d):\n", N);
  std::printf("%-8s %12s %12s %12s %12s %10s %10s %10s\n", "function",
              "primal ns", "jvp ns", "grad ns", "hvp ns", "jvp/prim",
              "grad/prim", "hvp/grad");
  for (const char *fn : {"rosen", "sinexp"}) {
    auto get = [&](const char *k) {
      auto it = rep.Median.find(std::string(fn) + "/" + k);
      return it == rep.Median.end() ? NAN : it->second;
    };
    double p = get("primal"), j = get("jvp"), g = get("grad"), h = get("hvp");
    if (std::isnan(p) && std::isnan(g))
      continue; // filtered out
    std::printf("%-8s %12.0f %12.0f %12.0f %12.0f %10.2f %10.2f %10.2f\n", fn,
                p, j, g, h, j / p, g / p, h / g);
  }
  return 0;
}
