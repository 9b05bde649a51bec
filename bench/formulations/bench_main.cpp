// The formulations corpus, timed: for each problem, size and formulation,
// the formulation's primal, its generated gradient (or Jacobian), its
// hand-written adjoint and ADOL-C where built and practical.
//
//   fluxion_formulations_bench [--problem=burgers,gmm,lstm,ba]
//                              [Google Benchmark flags]
//
// Every method's derivatives are compared at every benchmarked size first
// (registry.cpp: cross_check); a mismatch stops the program with exit
// status 2 and no timings. Each derivative benchmark carries the bytes the
// method kept for its reverse sweep (`bytes`) and the same per time step,
// point or observation (`bytes_per_unit`). Defaults: 7 repetitions of at
// least 0.2 s each, in random order across benchmarks, aggregates only
// (bench/formulations/run.sh reports the medians).
#include "registry.hpp"
#include "memory_policy.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace formulations;

namespace {

/// A method that does not say what it keeps leaves this in *bytes.
constexpr std::size_t NotMeasured = ~std::size_t(0);

bool has_flag(const std::vector<char *> &args, const char *prefix) {
  for (char *a : args)
    if (std::strncmp(a, prefix, std::strlen(prefix)) == 0)
      return true;
  return false;
}

void register_instance(const Instance &inst) {
  const std::string base = inst.problem + "/" + inst.size + "/";
  for (const Formulation &F : inst.formulations) {
    if (F.primal) {
      const std::vector<double> *params = &inst.params;
      auto primal = F.primal;
      benchmark::RegisterBenchmark((base + F.name + "/primal").c_str(),
                                   [primal, params](benchmark::State &st) {
                                     for (auto _ : st) {
                                       double v = primal(*params);
                                       benchmark::DoNotOptimize(v);
                                     }
                                   })
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
    for (const Method &M : F.methods) {
      auto run = M.run;
      const std::size_t outputs = inst.outputs;
      const double units = inst.units;
      benchmark::RegisterBenchmark((base + F.name + "/" + M.name).c_str(),
                                   [run, outputs, units](benchmark::State &st) {
                                     std::vector<double> out(outputs);
                                     for (auto _ : st) {
                                       std::fill(out.begin(), out.end(), 0.0);
                                       double v = run(out.data(), nullptr);
                                       benchmark::DoNotOptimize(v);
                                       benchmark::ClobberMemory();
                                     }
                                     std::fill(out.begin(), out.end(), 0.0);
                                     std::size_t bytes = 0;
                                     run(out.data(), &bytes);
                                     st.counters["bytes"] = double(bytes);
                                     st.counters["bytes_per_unit"] =
                                         double(bytes) / units;
                                   })
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  keep_freed_memory();
  std::string problems = "burgers,gmm,lstm,ba";
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--problem=", 10) == 0)
      problems = argv[i] + 10;
    else
      args.push_back(argv[i]);
  }
  static char reps[] = "--benchmark_repetitions=7";
  // Repetitions of all benchmarks in random order: on a shared machine a
  // drift in load then hits every method alike.
  static char interleave[] = "--benchmark_enable_random_interleaving=true";
  static char aggr[] = "--benchmark_report_aggregates_only=true";
  static char mint[] = "--benchmark_min_time=0.2";
  if (!has_flag(args, "--benchmark_repetitions"))
    args.push_back(reps);
  if (!has_flag(args, "--benchmark_report_aggregates_only"))
    args.push_back(aggr);
  if (!has_flag(args, "--benchmark_min_time"))
    args.push_back(mint);
  if (!has_flag(args, "--benchmark_enable_random_interleaving"))
    args.push_back(interleave);
  int nargs = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&nargs, args.data());
  if (benchmark::ReportUnrecognizedArguments(nargs, args.data()))
    return 1;

  std::vector<Instance> all;
  std::string rest = problems + ",";
  for (std::size_t at; (at = rest.find(',')) != std::string::npos;
       rest.erase(0, at + 1)) {
    const std::string problem = rest.substr(0, at);
    if (problem.empty())
      continue;
    std::vector<Instance> some = instances(problem, false);
    if (some.empty()) {
      std::fprintf(stderr, "unknown problem '%s'\n", problem.c_str());
      return 1;
    }
    for (Instance &I : some)
      all.push_back(std::move(I));
  }

  std::printf("Cross-checking the derivatives at the benchmark sizes\n");
  bool ok = true;
  for (const Instance &I : all)
    ok &= cross_check(I);
  if (!ok) {
    std::fprintf(stderr, "formulations: derivatives disagree (FAIL lines "
                         "above); aborting before any timing\n");
    return 2;
  }
  std::printf("All derivatives agree.\n\n");
  std::fflush(stdout);

  for (const Instance &I : all)
    register_instance(I);
  benchmark::AddCustomContext("formulations_problems", problems);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
