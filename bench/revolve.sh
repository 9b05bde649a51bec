#!/usr/bin/env bash
# Binomial checkpointing against the plain tape (bench/revolve_bench.cpp):
# configures a Release tree with the benchmarks (build-bench), builds and
# runs fluxion_revolve_bench, and writes the medians to
# bench/RESULTS-revolve.md.
#   bench/revolve.sh [extra benchmark flags, e.g. --benchmark_filter=/10000/]
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/build-target.sh"
out="$root/bench/RESULTS-revolve.md"
json="$build/revolve_bench.json"

fluxion_bench_build fluxion_revolve_bench

"$build/bin/fluxion_revolve_bench" --benchmark_out="$json" \
  --benchmark_out_format=json "$@"

cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: *//')"
cxx="$("${CXX:-clang++-19}" --version | head -n1)"
python3 - "$json" "$out" "$(nproc)" "$cpu" "$cxx" <<'PY'
import json, sys, datetime
path, out, nproc, cpu, cxx = sys.argv[1:6]
doc = json.load(open(path))
scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
med = {}
for b in doc["benchmarks"]:
    if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
        continue
    parts = b["run_name"].split("/")
    name, args = parts[0], tuple(int(p) for p in parts[1:] if p.isdigit())
    med[(name,) + args] = dict(b, ms=b["real_time"] * scale[b.get("time_unit", "ns")])
steps = sorted({k[1] for k in med})
L = ["# Binomial checkpointing against the plain tape\n",
     "Written by `bench/revolve.sh` from `fluxion_revolve_bench` (`bench/revolve_bench.cpp`):",
     "the gradient of the Burgers model of `examples/burgers_model.hpp` (100 cells,",
     "explicit steps updated in place) with respect to the initial state, every",
     "step recorded (`taped`) or under `#pragma fluxion revolve(s)`. Times are the",
     "**median wall time** of 5 repetitions; memory is `fluxion::memory_stats()`'s",
     "peak (tapes + snapshots). Forward steps per step: every step run forward,",
     "plain or recorded, divided by the number of time steps; 1 for the taped run,",
     "1 + the recomputation ratio under revolve.\n",
     f"- date: {datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M UTC')}",
     f"- machine: {cpu}, nproc = {nproc}",
     f"- compiler: {cxx}, `-O2` with the Fluxion plugin\n",
     "| steps | run | snapshots | time (ms) | time / primal | peak memory (MiB) | memory taped / run | forward steps per step |",
     "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
for n in steps:
    p = med.get(("primal", n))
    t = med.get(("taped", n))
    if p:
        L.append(f"| {n} | primal | | {p['ms']:.1f} | 1.00 | | | 1 |")
    rows = [("taped", None, t)] + [("revolve", s, med[k]) for k in sorted(med) if k[0] == "revolve" and k[1] == n for s in [k[2]]]
    for name, s, r in rows:
        if not r:
            continue
        ratio = f"{r['ms'] / p['ms']:.2f}" if p else ""
        mem = f"{t['peak_MiB'] / r['peak_MiB']:.0f}" if t else ""
        L.append(f"| {n} | {name} | {s if s else ''} | {r['ms']:.1f} | {ratio} | {r['peak_MiB']:.3f} | {mem} | {r['forward_steps']:.2f} |")
L.append("")
L.append("The minimal number of forward steps for l steps and s snapshots is")
L.append("t*l - C(s+t, t-1) (Griewank and Walther, ACM TOMS 2000) with t the repetition")
L.append("number, the least t with C(s+t, t) >= l; the runtime's schedule attains it")
L.append("(tests/unit/revolve_test.cpp, tests/numeric/revolve_loop_test.cpp).")
open(out, "w").write("\n".join(L) + "\n")
print(open(out).read())
PY
