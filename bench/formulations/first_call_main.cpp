// The first derivative call in a process against warm calls, for one
// formulation and method of the corpus:
//
//   fluxion_formulations_first_call <problem> <size> <formulation> <method>
//
// (names as fluxion_formulations_bench prints them, e.g. `burgers
// n1000_steps1000 scratch fluxion`). Prints one line,
// `<problem> <size> <formulation> <method> first_s=<s> warm_s=<s>
// first_cpu_s=<s> warm_cpu_s=<s>`: wall-clock and CPU time (of the process,
// page faults included) of the first call and the medians of the 9 calls
// after it. On a machine shared with other work the CPU times are the
// steadier figures. Inputs and outputs are allocated
// and touched before the first call, which is the first derivative the
// process computes. bench/formulations/run.sh runs it in fresh processes.
// Derivatives are cross-checked by fluxion_formulations_check, not here.
#include "registry.hpp"
#include "memory_policy.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

using namespace formulations;

int main(int argc, char **argv) {
  keep_freed_memory();
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <problem> <size> <formulation> <method>\n",
                 argv[0]);
    return 1;
  }
  const std::string problem = argv[1], size = argv[2], form = argv[3],
                    method = argv[4];
  std::vector<Instance> all = instances(problem, false);
  const Method *M = nullptr;
  std::size_t outputs = 0;
  for (const Instance &I : all)
    if (I.size == size)
      for (const Formulation &F : I.formulations)
        if (F.name == form) {
          M = F.find(method);
          outputs = I.outputs;
        }
  if (!M) {
    std::fprintf(stderr, "no method %s of %s %s %s\n", method.c_str(),
                 problem.c_str(), size.c_str(), form.c_str());
    return 1;
  }
  std::vector<double> out(outputs, 0.0);
  auto cpu = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
  };
  // One call: {wall, cpu} seconds.
  auto seconds = [&] {
    std::fill(out.begin(), out.end(), 0.0);
    const double c0 = cpu();
    auto t0 = std::chrono::steady_clock::now();
    volatile double v = M->run(out.data(), nullptr);
    (void)v;
    auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu();
    return std::pair<double, double>(
        std::chrono::duration<double>(t1 - t0).count(), c1 - c0);
  };
  const auto first = seconds();
  std::vector<double> warm, warmCpu;
  for (int i = 0; i < 9; ++i) {
    const auto s = seconds();
    warm.push_back(s.first);
    warmCpu.push_back(s.second);
  }
  std::nth_element(warm.begin(), warm.begin() + 4, warm.end());
  std::nth_element(warmCpu.begin(), warmCpu.begin() + 4, warmCpu.end());
  std::printf("%s %s %s %s first_s=%.6f warm_s=%.6f first_cpu_s=%.6f "
              "warm_cpu_s=%.6f\n",
              problem.c_str(), size.c_str(), form.c_str(), method.c_str(),
              first.first, warm[4], first.second, warmCpu[4]);
  return 0;
}
