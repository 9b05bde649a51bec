// Binomial checkpointing against the plain tape, on the Burgers model of
// examples/burgers_model.hpp with 100 cells, for 10^4 to 10^6 time steps:
//   primal/<steps>                   the loss alone
//   taped/<steps>                    f_grad with every step recorded
//   revolve/<steps>/<snapshots>      f_grad under '#pragma fluxion revolve'
// Counters (per run, the same in every repetition):
//   peak_MiB        tapes + undo log + snapshots at their peaks
//                   (fluxion::memory_stats)
//   forward_steps   steps run forward per time step (1 for the plain tape;
//                   1 + the schedule's recomputation under revolve)
// Run by bench/revolve.sh, which writes the medians to bench/RESULTS-revolve.md.
#include "../examples/burgers_model.hpp"

#include <fluxion/memory.hpp>

#include <benchmark/benchmark.h>

#include <vector>

namespace {

constexpr int Cells = 100;

const burgers::Setup &setup() {
  static const burgers::Setup S(Cells);
  return S;
}

void reportMemory(benchmark::State &State) {
  fluxion::MemoryStats M = fluxion::memory_stats();
  State.counters["peak_MiB"] = M.totalPeak() / (1024.0 * 1024.0);
  State.counters["tape_MiB"] = M.tapeBytesPeak / (1024.0 * 1024.0);
  State.counters["snapshot_MiB"] = M.snapshotBytesPeak / (1024.0 * 1024.0);
}

void primal(benchmark::State &State) {
  const int Steps = static_cast<int>(State.range(0));
  const burgers::Setup &S = setup();
  std::vector<double> U(Cells);
  for (auto _ : State) {
    U = S.u0;
    benchmark::DoNotOptimize(burgers::lossTaped(
        U.data(), S.target.data(), Cells, Steps, S.lambda, S.mu));
  }
}

void taped(benchmark::State &State) {
  const int Steps = static_cast<int>(State.range(0));
  const burgers::Setup &S = setup();
  std::vector<double> U(Cells), DU(Cells);
  fluxion::reset_memory_peaks();
  for (auto _ : State) {
    U = S.u0;
    std::fill(DU.begin(), DU.end(), 0.0);
    benchmark::DoNotOptimize(burgers::lossTaped_grad(
        U.data(), S.target.data(), Cells, Steps, S.lambda, S.mu, DU.data()));
    benchmark::ClobberMemory();
  }
  reportMemory(State);
  State.counters["forward_steps"] = 1.0;
}

void revolve(benchmark::State &State) {
  const int Steps = static_cast<int>(State.range(0));
  const int Snapshots = static_cast<int>(State.range(1));
  const burgers::Setup &S = setup();
  std::vector<double> U(Cells), DU(Cells);
  fluxion::reset_memory_peaks();
  for (auto _ : State) {
    U = S.u0;
    std::fill(DU.begin(), DU.end(), 0.0);
    benchmark::DoNotOptimize(burgers::lossRevolve_grad(
        U.data(), S.target.data(), Cells, Steps, Snapshots, S.lambda, S.mu,
        DU.data()));
    benchmark::ClobberMemory();
  }
  reportMemory(State);
  fluxion::RevolveStats R = fluxion::revolve_last_stats();
  State.counters["forward_steps"] =
      double(R.advances + R.tapedSteps) / double(Steps);
}

constexpr long StepCounts[] = {10000, 100000, 1000000};
constexpr long SnapshotCounts[] = {10, 30, 100};

void stepArgs(benchmark::internal::Benchmark *B) {
  for (long Steps : StepCounts)
    B->Args({Steps});
}
void revolveArgs(benchmark::internal::Benchmark *B) {
  for (long Steps : StepCounts)
    for (long Snapshots : SnapshotCounts)
      B->Args({Steps, Snapshots});
}

BENCHMARK(primal)
    ->Apply(stepArgs)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(taped)
    ->Apply(stepArgs)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(revolve)
    ->Apply(revolveArgs)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

} // namespace

BENCHMARK_MAIN();
