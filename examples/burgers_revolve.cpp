// Binomial checkpointing of a long explicit time integration: the Burgers
// model of burgers_model.hpp, whose loss f_grad differentiates with respect
// to the initial state.
//
// `#pragma fluxion revolve(snapshots) state(u, n)` makes the reverse sweep
// keep `snapshots` copies of the loop state (u and the step counter) instead
// of the tape of every step, and recompute the steps in between, following
// Griewank and Walther's binomial schedule (revolve). The same loop without
// the pragma records every step. This program runs both, checks that the
// gradients agree and prints the memory and time each took.
//
//   burgers_revolve [steps=100000] [cells=1000] [snapshots=64]
#include "burgers_model.hpp"

#include <fluxion/memory.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double seconds(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       Start)
      .count();
}

double mib(std::size_t Bytes) { return Bytes / (1024.0 * 1024.0); }

} // namespace

int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int n = argc > 2 ? std::atoi(argv[2]) : 1000;
  const int snapshots = argc > 3 ? std::atoi(argv[3]) : 64;
  if (steps < 1 || n < 3 || snapshots < 1) {
    std::fprintf(stderr, "usage: %s [steps>0] [cells>2] [snapshots>0]\n",
                 argv[0]);
    return 2;
  }
  const burgers::Setup setup(n);
  const double lambda = setup.lambda, mu = setup.mu, dt = setup.dt;
  const std::vector<double> &u0 = setup.u0, &target = setup.target;
  std::printf("Burgers: %d cells, %d steps (t_end = %.4g), %d snapshots\n", n,
              steps, steps * dt, snapshots);

  // Binomial checkpointing.
  std::vector<double> u = u0, gradRevolve(n, 0.0);
  fluxion::reset_memory_peaks();
  auto Start = std::chrono::steady_clock::now();
  double lossR = burgers::lossRevolve_grad(u.data(), target.data(), n, steps,
                                           snapshots, lambda, mu,
                                           gradRevolve.data());
  double timeR = seconds(Start);
  fluxion::MemoryStats memR = fluxion::memory_stats();
  fluxion::RevolveStats stats = fluxion::revolve_last_stats();

  // Every step on the tape.
  std::vector<double> gradTaped(n, 0.0);
  u = u0;
  fluxion::reset_memory_peaks();
  Start = std::chrono::steady_clock::now();
  double lossT = burgers::lossTaped_grad(u.data(), target.data(), n, steps,
                                         lambda, mu, gradTaped.data());
  double timeT = seconds(Start);
  fluxion::MemoryStats memT = fluxion::memory_stats();

  // The primal alone, for the cost ratios.
  u = u0;
  Start = std::chrono::steady_clock::now();
  double lossP = burgers::lossTaped(u.data(), target.data(), n, steps,
                                    lambda, mu);
  double timeP = seconds(Start);

  double maxDiff = 0, maxGrad = 0;
  for (int i = 0; i < n; ++i) {
    maxDiff = std::fmax(maxDiff, std::fabs(gradRevolve[i] - gradTaped[i]));
    maxGrad = std::fmax(maxGrad, std::fabs(gradTaped[i]));
  }
  double relDiff = maxDiff / maxGrad;
  double memRatio = double(memT.totalPeak()) / double(memR.totalPeak());

  std::printf("loss %.15g (primal %.15g, taped %.15g)\n", lossR, lossP,
              lossT);
  std::printf("max |gradient difference| / max |gradient| = %.3g\n",
              relDiff);
  std::printf("%-10s %12s %12s %12s %10s\n", "", "tape MiB", "snapshot MiB",
              "total MiB", "time s");
  std::printf("%-10s %12.2f %12.2f %12.2f %10.3f\n", "taped",
              mib(memT.tapeBytesPeak), mib(memT.snapshotBytesPeak),
              mib(memT.totalPeak()), timeT);
  std::printf("%-10s %12.2f %12.2f %12.2f %10.3f\n", "revolve",
              mib(memR.tapeBytesPeak), mib(memR.snapshotBytesPeak),
              mib(memR.totalPeak()), timeR);
  std::printf("memory: taped / revolve = %.1fx\n", memRatio);
  std::printf("steps run forward: %lld plain + %lld taped = %.2f x steps "
              "(the schedule's minimum: %lld)\n",
              stats.advances, stats.tapedSteps,
              double(stats.advances + stats.tapedSteps) / steps,
              fluxion::revolveMinForwardSteps(steps, snapshots));
  std::printf("time: primal %.3f s, gradient / primal: taped %.2f, revolve "
              "%.2f\n",
              timeP, timeT / timeP, timeR / timeP);

  bool ok = relDiff < 1e-10 && memRatio >= 20 && lossR == lossT;
  std::printf("%s\n", ok ? "OK: same gradient, at most 1/20 of the memory"
                         : "FAILED");
  return ok ? 0 : 1;
}
