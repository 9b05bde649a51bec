// ADBench with Fluxion: GMM objective gradient, bundle-adjustment Jacobian,
// LSTM loss gradient, and a long time-stepping loop (Burgers) for tape
// memory. Every problem is differentiated by Fluxion, by hand, by ADOL-C
// (when built with it) and, on small sizes, by central differences.
//
//   fluxion_adbench_bench [--quick] [--problem=gmm,ba,lstm,burgers]
//                         [Google Benchmark flags]
//
// --problem selects problems (default: all). bench/adbench.sh runs one
// problem per process: ADOL-C's location store only grows, and a small tape
// recorded after a large one pays for the large store at every sweep.
//
// Before anything is timed, the derivatives of every method are compared at
// every benchmarked size (checks.cpp); a mismatch stops the program with
// exit status 2 and no timings. bench/adbench.sh runs this program and turns
// its JSON output into the tables of bench/RESULTS.md.
//
// Sizes: GMM d in {2, 10, 20, 64}, K in {5, 25, 100}, n = 1000 (n = 100 with
// --quick); bundle adjustment ba1, ba3, ba8 of ADBench (ba1 with --quick);
// LSTM l in {2, 4}, c in {1024, 4096}, b = 14 (l = 2, c = 1024 with
// --quick); Burgers n = 256 cells, 1000 and 10000 steps (1000 with --quick).
// Defaults: 5 repetitions of at least 0.2 s each, medians reported (the
// flags --benchmark_repetitions and --benchmark_min_time override them).
#include "checks.hpp"

#include <fluxion/fluxion.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <memory>
#include <vector>

using namespace adbench;

namespace {

// ADOL-C is skipped where its tape would be too large to be practical here
// (several GB): GMM with n K d (d + 1) / 2 above this (d = 64, K = 100).
constexpr double GmmAdolcMaxWork = 6e7;
// Central differences are timed where they cost little (2 primal
// evaluations per parameter).
constexpr std::size_t GmmFdMaxParams = 400;

void add(const std::string &name, std::function<void(benchmark::State &)> fn) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

// Tape bytes of one Fluxion call (not timed).
template <class F> double fluxion_tape_mb(F &&call) {
  fluxion::reset_memory_peaks();
  call();
  return fluxion::memory_stats().totalPeak() / 1e6;
}

// ---------------------------------------------------------------- GMM ----

void register_gmm(const std::string &name, const GmmInput &in) {
  const int d = in.d, k = in.k, n = in.n;
  const std::size_t np = in.params().size();
  add(name + "/primal", [&in, d, k, n](benchmark::State &st) {
    for (auto _ : st) {
      double v = gmm_objective(d, k, n, in.alphas.data(), in.means.data(),
                               in.icf.data(), in.x.data(), in.gamma, in.m);
      benchmark::DoNotOptimize(v);
    }
  });
  add(name + "/fluxion", [&in, d, k, n, np](benchmark::State &st) {
    std::vector<double> a(k), m(k * d), q(np - k - k * d);
    auto call = [&] {
      std::fill(a.begin(), a.end(), 0.0);
      std::fill(m.begin(), m.end(), 0.0);
      std::fill(q.begin(), q.end(), 0.0);
      double v = gmm_objective_grad(d, k, n, in.alphas.data(), in.means.data(),
                                    in.icf.data(), in.x.data(), in.gamma, in.m,
                                    a.data(), m.data(), q.data());
      benchmark::DoNotOptimize(v);
    };
    for (auto _ : st) {
      call();
      benchmark::ClobberMemory();
    }
    st.counters["tape_MB"] = fluxion_tape_mb(call);
  });
  add(name + "/fluxion_vector", [&in, d, k, n](benchmark::State &st) {
    std::vector<double> a(in.alphas.size()), m(in.means.size()),
        q(in.icf.size());
    auto call = [&] {
      std::fill(a.begin(), a.end(), 0.0);
      std::fill(m.begin(), m.end(), 0.0);
      std::fill(q.begin(), q.end(), 0.0);
      double v = gmm_objective_vector_grad(d, k, n, in.alphas, in.means,
                                           in.icf, in.x, in.gamma, in.m, &a,
                                           &m, &q);
      benchmark::DoNotOptimize(v);
    };
    for (auto _ : st) {
      call();
      benchmark::ClobberMemory();
    }
    st.counters["tape_MB"] = fluxion_tape_mb(call);
  });
  add(name + "/fluxion_struct", [&in, d, k, n, np](benchmark::State &st) {
    // Components built once, as a program holding its model in structs
    // would; each call zeroes the gradient and the weights' adjoints.
    std::vector<double> g(np);
    auto comps = gmm_components(d, k, in.alphas.data(), in.means.data(),
                                in.icf.data());
    auto dcomps = gmm_components(d, k, g.data(), g.data() + k,
                                 g.data() + k + k * d);
    GmmData data{d, n, in.x.data()};
    GmmWishart prior{in.gamma, in.m};
    auto call = [&] {
      std::fill(g.begin(), g.end(), 0.0);
      for (auto &c : dcomps)
        c.alpha = 0;
      double v = gmm_objective_struct_grad(data, comps.data(), k, prior,
                                           dcomps.data());
      benchmark::DoNotOptimize(v);
    };
    for (auto _ : st) {
      call();
      benchmark::ClobberMemory();
    }
    st.counters["tape_MB"] = fluxion_tape_mb(call);
  });
  add(name + "/manual", [&in, d, k, n, np](benchmark::State &st) {
    std::vector<double> a(k), m(k * d), q(np - k - k * d);
    for (auto _ : st) {
      std::fill(a.begin(), a.end(), 0.0);
      std::fill(m.begin(), m.end(), 0.0);
      std::fill(q.begin(), q.end(), 0.0);
      double v = gmm_manual_grad(d, k, n, in.alphas.data(), in.means.data(),
                                 in.icf.data(), in.x.data(), in.gamma, in.m,
                                 a.data(), m.data(), q.data());
      benchmark::DoNotOptimize(v);
      benchmark::ClobberMemory();
    }
  });
#ifdef FLUXION_ADBENCH_ADOLC
  if (double(n) * k * d * (d + 1) / 2 <= GmmAdolcMaxWork) {
    add(name + "/adolc", [&in, np](benchmark::State &st) {
      std::vector<double> g(np);
      for (auto _ : st) {
        double v = gmm_adolc_tape_and_gradient(in, GmmTag, g.data());
        benchmark::DoNotOptimize(v);
        benchmark::ClobberMemory();
      }
      st.counters["tape_MB"] = adolc_tape_bytes(GmmTag) / 1e6;
    });
    add(name + "/adolc_tape_reused", [&in, np](benchmark::State &st) {
      std::vector<double> g(np), p = in.params();
      gmm_adolc_tape_and_gradient(in, GmmTag, g.data());
      for (auto _ : st) {
        gmm_adolc_gradient(GmmTag, p, g.data());
        benchmark::ClobberMemory();
      }
    });
  }
#endif
  if (np <= GmmFdMaxParams)
    add(name + "/fd", [&in](benchmark::State &st) {
      std::vector<double> p = in.params();
      for (auto _ : st) {
        std::vector<double> g = gmm_fd_gradient(in, p);
        benchmark::DoNotOptimize(g.data());
        benchmark::ClobberMemory();
      }
    });
}

// ------------------------------------------------- bundle adjustment ----

void register_ba(const std::string &name, const BaInput &in, bool fd) {
  const int p = in.p;
  add(name + "/primal", [&in, p](benchmark::State &st) {
    std::vector<double> e(2 * p), w(p);
    for (auto _ : st) {
      ba_objective(in, e.data(), w.data());
      benchmark::ClobberMemory();
    }
  });
  add(name + "/fluxion", [&in, p](benchmark::State &st) {
    std::vector<double> e(2 * p), w(p);
    BaJacobian J;
    J.resize(p);
    for (auto _ : st) {
      ba_fluxion_jacobian(in, e.data(), w.data(), J);
      benchmark::ClobberMemory();
    }
  });
  // The model in structs, built once, as a program holding it so would.
  auto model = std::make_shared<BaModel>(ba_make_model(in));
  add(name + "/fluxion_struct", [model, p](benchmark::State &st) {
    std::vector<double> e(2 * p), w(p);
    BaJacobian J;
    J.resize(p);
    for (auto _ : st) {
      ba_fluxion_struct_jacobian(*model, e.data(), w.data(), J);
      benchmark::ClobberMemory();
    }
  });
#ifdef FLUXION_ADBENCH_EIGEN
  add(name + "/fluxion_eigen", [&in, p](benchmark::State &st) {
    std::vector<double> e(2 * p), w(p);
    BaJacobian J;
    J.resize(p);
    for (auto _ : st) {
      ba_fluxion_eigen_jacobian(in, e.data(), w.data(), J);
      benchmark::ClobberMemory();
    }
  });
#endif
  add(name + "/manual", [&in, p](benchmark::State &st) {
    std::vector<double> e(2 * p), w(p);
    BaJacobian J;
    J.resize(p);
    for (auto _ : st) {
      ba_manual_jacobian(in, e.data(), w.data(), J);
      benchmark::ClobberMemory();
    }
  });
#ifdef FLUXION_ADBENCH_ADOLC
  add(name + "/adolc", [&in, p](benchmark::State &st) {
    std::vector<double> e(2 * p), w(p);
    BaJacobian J;
    J.resize(p);
    for (auto _ : st) {
      ba_adolc_jacobian(in, e.data(), w.data(), J);
      benchmark::ClobberMemory();
    }
  });
#endif
  if (fd)
    add(name + "/fd", [&in, p](benchmark::State &st) {
      BaJacobian J;
      J.resize(p);
      for (auto _ : st) {
        for (int i = 0; i < p; ++i) {
          ba_fd_block(in, i, &J.reproj[2 * BaBlockCols * i]);
          double h = 1e-6 * std::max(1.0, std::abs(in.w[i]));
          J.weight[i] = ((1 - (in.w[i] + h) * (in.w[i] + h)) -
                         (1 - (in.w[i] - h) * (in.w[i] - h))) /
                        (2 * h);
        }
        benchmark::ClobberMemory();
      }
    });
}

// --------------------------------------------------------------- LSTM ----

void register_lstm(const std::string &name, const LstmInput &in, bool fd) {
  const std::size_t nm = in.main_params.size(), ne = in.extra_params.size();
  add(name + "/primal", [&in](benchmark::State &st) {
    for (auto _ : st) {
      double v = lstm_objective(in.l, in.c, in.b, in.main_params.data(),
                                in.extra_params.data(), in.state.data(),
                                in.sequence.data());
      benchmark::DoNotOptimize(v);
    }
  });
  add(name + "/fluxion", [&in, nm, ne](benchmark::State &st) {
    std::vector<double> dm(nm), de(ne);
    auto call = [&] {
      std::fill(dm.begin(), dm.end(), 0.0);
      std::fill(de.begin(), de.end(), 0.0);
      double v = lstm_objective_grad(in.l, in.c, in.b, in.main_params.data(),
                                     in.extra_params.data(), in.state.data(),
                                     in.sequence.data(), dm.data(), de.data());
      benchmark::DoNotOptimize(v);
    };
    for (auto _ : st) {
      call();
      benchmark::ClobberMemory();
    }
    st.counters["tape_MB"] = fluxion_tape_mb(call);
  });
  add(name + "/fluxion_vector", [&in, nm, ne](benchmark::State &st) {
    std::vector<double> dm(nm), de(ne);
    auto call = [&] {
      std::fill(dm.begin(), dm.end(), 0.0);
      std::fill(de.begin(), de.end(), 0.0);
      double v = lstm_objective_vector_grad(in.l, in.c, in.b, in.main_params,
                                            in.extra_params, in.state,
                                            in.sequence, &dm, &de);
      benchmark::DoNotOptimize(v);
    };
    for (auto _ : st) {
      call();
      benchmark::ClobberMemory();
    }
    st.counters["tape_MB"] = fluxion_tape_mb(call);
  });
  add(name + "/manual", [&in, nm, ne](benchmark::State &st) {
    std::vector<double> dm(nm), de(ne);
    for (auto _ : st) {
      std::fill(dm.begin(), dm.end(), 0.0);
      std::fill(de.begin(), de.end(), 0.0);
      double v = lstm_manual_grad(in.l, in.c, in.b, in.main_params.data(),
                                  in.extra_params.data(), in.state.data(),
                                  in.sequence.data(), dm.data(), de.data());
      benchmark::DoNotOptimize(v);
      benchmark::ClobberMemory();
    }
  });
#ifdef FLUXION_ADBENCH_ADOLC
  add(name + "/adolc", [&in, nm, ne](benchmark::State &st) {
    std::vector<double> g(nm + ne);
    for (auto _ : st) {
      double v = lstm_adolc_tape_and_gradient(in, LstmTag, g.data());
      benchmark::DoNotOptimize(v);
      benchmark::ClobberMemory();
    }
    st.counters["tape_MB"] = adolc_tape_bytes(LstmTag) / 1e6;
  });
  add(name + "/adolc_tape_reused", [&in, nm, ne](benchmark::State &st) {
    std::vector<double> g(nm + ne), p = in.params();
    lstm_adolc_tape_and_gradient(in, LstmTag, g.data());
    for (auto _ : st) {
      lstm_adolc_gradient(LstmTag, p, g.data());
      benchmark::ClobberMemory();
    }
  });
#endif
  if (fd)
    add(name + "/fd", [&in](benchmark::State &st) {
      std::vector<double> p = in.params();
      for (auto _ : st) {
        std::vector<double> g = lstm_fd_gradient(in, p);
        benchmark::DoNotOptimize(g.data());
        benchmark::ClobberMemory();
      }
    });
}

// ------------------------------------------------------------ Burgers ----

void register_burgers(const std::string &name, const BurgersInput &in,
                      bool fd) {
  const int n = in.n;
  add(name + "/primal", [&in](benchmark::State &st) {
    for (auto _ : st) {
      double v =
          burgers_loss(in.u0.data(), in.n, in.steps, in.nu, in.dt, in.dx);
      benchmark::DoNotOptimize(v);
    }
  });
  add(name + "/fluxion", [&in, n](benchmark::State &st) {
    std::vector<double> g(n + 1);
    auto call = [&] {
      std::fill(g.begin(), g.end(), 0.0);
      double v = burgers_loss_grad(in.u0.data(), n, in.steps, in.nu, in.dt,
                                   in.dx, g.data(), &g[n]);
      benchmark::DoNotOptimize(v);
    };
    for (auto _ : st) {
      call();
      benchmark::ClobberMemory();
    }
    double mb = fluxion_tape_mb(call);
    st.counters["tape_MB"] = mb;
    st.counters["bytes_per_step"] = mb * 1e6 / in.steps;
  });
  add(name + "/manual", [&in, n](benchmark::State &st) {
    std::vector<double> g(n + 1);
    std::size_t stored = 0;
    for (auto _ : st) {
      std::fill(g.begin(), g.end(), 0.0);
      double v = burgers_manual_grad(in.u0.data(), n, in.steps, in.nu, in.dt,
                                     in.dx, g.data(), &g[n], &stored);
      benchmark::DoNotOptimize(v);
      benchmark::ClobberMemory();
    }
    st.counters["tape_MB"] = stored / 1e6;
    st.counters["bytes_per_step"] = double(stored) / in.steps;
  });
#ifdef FLUXION_ADBENCH_ADOLC
  add(name + "/adolc", [&in, n](benchmark::State &st) {
    std::vector<double> g(n + 1);
    std::size_t bytes = 0;
    for (auto _ : st) {
      double v =
          burgers_adolc_tape_and_gradient(in, BurgersTag, g.data(), &bytes);
      benchmark::DoNotOptimize(v);
      benchmark::ClobberMemory();
    }
    st.counters["tape_MB"] = bytes / 1e6;
    st.counters["bytes_per_step"] = double(bytes) / in.steps;
  });
#endif
  if (fd)
    add(name + "/fd", [&in](benchmark::State &st) {
      std::vector<double> p(in.u0);
      p.push_back(in.nu);
      for (auto _ : st) {
        std::vector<double> g = burgers_fd_gradient(in, p);
        benchmark::DoNotOptimize(g.data());
        benchmark::ClobberMemory();
      }
    });
}

bool has_flag(int argc, char **argv, const char *prefix) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0)
      return true;
  return false;
}

} // namespace

int main(int argc, char **argv) {
  // Our own flag, then defaults for Google Benchmark's.
  bool quick = false;
  std::string problems = "gmm,ba,lstm,burgers";
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strncmp(argv[i], "--problem=", 10) == 0)
      problems = argv[i] + 10;
    else
      args.push_back(argv[i]);
  }
  auto wanted = [&](const char *p) {
    return ("," + problems + ",").find("," + std::string(p) + ",") !=
           std::string::npos;
  };
  static char reps[] = "--benchmark_repetitions=5";
  static char aggr[] = "--benchmark_report_aggregates_only=true";
  static char mint[] = "--benchmark_min_time=0.2";
  int n0 = static_cast<int>(args.size());
  if (!has_flag(n0, args.data(), "--benchmark_repetitions"))
    args.push_back(reps);
  if (!has_flag(n0, args.data(), "--benchmark_report_aggregates_only"))
    args.push_back(aggr);
  if (!has_flag(n0, args.data(), "--benchmark_min_time"))
    args.push_back(mint);
  int nargs = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&nargs, args.data());
  if (benchmark::ReportUnrecognizedArguments(nargs, args.data()))
    return 1;

  // Inputs (deterministic, fixed seeds), kept alive for the benchmarks.
  std::deque<GmmInput> gmms;
  std::deque<BaInput> bas;
  std::deque<LstmInput> lstms;
  std::deque<BurgersInput> burgers;
  std::vector<std::string> gmmNames, baNames, lstmNames, burgersNames;

  const int gmmN = quick ? 100 : 1000;
  for (int d : {2, 10, 20, 64})
    for (int k : {5, 25, 100}) {
      if (!wanted("gmm"))
        continue;
      gmms.push_back(gmm_make_input(d, k, gmmN, 1000 + 100 * d + k));
      gmmNames.push_back("gmm/d" + std::to_string(d) + "_K" +
                         std::to_string(k) + "_n" + std::to_string(gmmN));
    }
  struct BaSize {
    const char *name;
    int n, m, p;
  };
  // ADBench's ba1, ba3 and ba8 (from the Bundle Adjustment in the Large
  // problems): cameras, points, observations.
  std::vector<BaSize> baSizes = {{"ba1", 49, 7776, 31843},
                                 {"ba3", 161, 48126, 182072},
                                 {"ba8", 88, 64298, 383937}};
  if (quick)
    baSizes.resize(1);
  if (!wanted("ba"))
    baSizes.clear();
  for (const BaSize &S : baSizes) {
    bas.push_back(ba_make_input(S.n, S.m, S.p, 2000 + S.n));
    baNames.push_back(std::string("ba/") + S.name + "_n" + std::to_string(S.n) +
                      "_m" + std::to_string(S.m) + "_p" + std::to_string(S.p));
  }
  for (int l : {2, 4})
    for (int c : {1024, 4096}) {
      if (!wanted("lstm") || (quick && (l != 2 || c != 1024)))
        continue;
      lstms.push_back(lstm_make_input(l, c, 14, 3000 + 10 * l + c));
      lstmNames.push_back("lstm/l" + std::to_string(l) + "_c" +
                          std::to_string(c) + "_b14");
    }
  for (int steps : {1000, 10000}) {
    if (!wanted("burgers") || (quick && steps != 1000))
      continue;
    burgers.push_back(burgers_make_input(256, steps, 4000 + steps));
    burgersNames.push_back("burgers/n256_steps" + std::to_string(steps));
  }

  // Every method's derivatives must agree before anything is timed.
  std::printf("Cross-checking the derivatives at the benchmark sizes\n");
  bool ok = true;
  for (std::size_t i = 0; i < gmms.size(); ++i)
    ok &= check_gmm(gmmNames[i], gmms[i],
                    gmms[i].params().size() <= GmmFdMaxParams);
  for (std::size_t i = 0; i < bas.size(); ++i)
    ok &= check_ba(baNames[i], bas[i], 200);
  for (std::size_t i = 0; i < lstms.size(); ++i)
    ok &= check_lstm(lstmNames[i], lstms[i], i == 0);
  for (std::size_t i = 0; i < burgers.size(); ++i)
    ok &= check_burgers(burgersNames[i], burgers[i], burgers[i].steps <= 1000);
  if (!ok) {
    std::fprintf(stderr, "ADBench: derivatives disagree (FAIL lines above); "
                         "aborting before any timing\n");
    return 2;
  }
  std::printf("All derivatives agree.\n\n");
  std::fflush(stdout);

  for (std::size_t i = 0; i < gmms.size(); ++i)
    register_gmm(gmmNames[i], gmms[i]);
  for (std::size_t i = 0; i < bas.size(); ++i)
    register_ba(baNames[i], bas[i], i == 0);
  for (std::size_t i = 0; i < lstms.size(); ++i)
    register_lstm(lstmNames[i], lstms[i], i == 0);
  for (std::size_t i = 0; i < burgers.size(); ++i)
    register_burgers(burgersNames[i], burgers[i], burgers[i].steps <= 1000);

  benchmark::AddCustomContext("adbench_mode", quick ? "quick" : "full");
  benchmark::AddCustomContext("adbench_problems", problems);
#ifdef FLUXION_ADBENCH_ADOLC
  benchmark::AddCustomContext("adbench_adolc", "yes");
#else
  benchmark::AddCustomContext("adbench_adolc", "no");
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
