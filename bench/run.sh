#!/usr/bin/env bash
# Configures a Release tree with the benchmarks (build-bench), builds and runs
# them, and writes the median cost ratios to bench/RESULTS.md:
#   - fluxion_hvp_bench: f_jvp, f_grad, f_hvp against the primal;
#   - the ADBench suite (bench/adbench.sh): GMM, bundle adjustment, LSTM and
#     a long loop, Fluxion against hand-written adjoints, ADOL-C and finite
#     differences, plus the plugin's compile-time overhead.
#   bench/run.sh [--quick] [extra flags for fluxion_hvp_bench,
#                           e.g. --benchmark_filter=rosen]
# --quick is passed to bench/adbench.sh (smaller sizes). The whole run takes
# about six minutes on two cores (about three with --quick).
set -euo pipefail

quick=()
if [[ "${1:-}" == "--quick" ]]; then
  quick=(--quick)
  shift
fi

source "$(dirname "${BASH_SOURCE[0]}")/build-target.sh"
out="$root/bench/RESULTS.md"
json="$build/hvp_bench.json"

fluxion_bench_build fluxion_hvp_bench

"$build/bin/fluxion_hvp_bench" --benchmark_out="$json" \
  --benchmark_out_format=json "$@"

cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: *//')"
cxx="$("${CXX:-clang++-19}" --version | head -n1)"
python3 - "$json" "$out" "$(nproc)" "$cpu" "$cxx" <<'PY'
import json, sys, datetime
path, out, nproc, cpu, cxx = sys.argv[1:6]
doc = json.load(open(path))
med = {}
for b in doc["benchmarks"]:
    if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median":
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        med[b["run_name"].split("/repeats:")[0]] = b["cpu_time"] * scale
fns = sorted({k.split("/")[0] for k in med}, key=lambda f: ["rosen", "sinexp"].index(f) if f in ("rosen", "sinexp") else 99)
desc = {"rosen": "extended Rosenbrock, sum 100(x[i+1]-x[i]^2)^2 + (1-x[i])^2",
        "sinexp": "sum sin(x[i]) exp(0.1 x[i+1]) + 0.5 x[i] x[i+1]"}
L = ["<!-- hvp:begin -->"]
L.append("## Cost of generated derivatives (f_jvp, f_grad, f_hvp)\n")
L.append("Written by `bench/run.sh` from `fluxion_hvp_bench` (`bench/hvp_bench.cpp`):")
L.append("functions of n = 10^4 inputs behind a runtime-length pointer, 10 repetitions")
L.append("per benchmark, **median CPU time** of the repetitions. Ratios are of medians.\n")
L.append(f"- date: {datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M UTC')}")
L.append(f"- machine: {cpu}, nproc = {nproc}")
ctx = doc.get("context", {})
if "mhz_per_cpu" in ctx:
    L.append(f"- CPU clock reported by Google Benchmark: {ctx['mhz_per_cpu']} MHz; CPU scaling: {ctx.get('cpu_scaling_enabled')}")
L.append(f"- compiler: {cxx}, `-O2` with the Fluxion plugin, CMAKE_BUILD_TYPE=Release")
L.append(f"- Google Benchmark library build type: {ctx.get('library_build_type', '?')} (as the distribution package reports it; only the timing harness, not the timed code)\n")
L.append("| function | primal (ns) | f_jvp (ns) | f_grad (ns) | f_hvp (ns) | f_jvp / primal | f_grad / primal | f_hvp / f_grad |")
L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for f in fns:
    g = lambda k: med.get(f"{f}/{k}", float("nan"))
    p, j, gr, h = g("primal"), g("jvp"), g("grad"), g("hvp")
    L.append(f"| `{f}` | {p:.0f} | {j:.0f} | {gr:.0f} | {h:.0f} | {j/p:.2f} | {gr/p:.2f} | {h/gr:.2f} |")
L.append("")
for f in fns:
    if f in desc:
        L.append(f"- `{f}`: {desc[f]}")
L.append("")
L.append("Expected orders (docs/modes.md): f_jvp ~ c * primal with c around 1.5-3,")
L.append("f_grad ~ c * primal plus the tape, f_hvp ~ c * f_grad with c around 2.")
L.append("<!-- hvp:end -->")
section = "\n".join(L)
begin, end = "<!-- hvp:begin -->", "<!-- hvp:end -->"
import os
text = open(out).read() if os.path.exists(out) else ""
if begin in text and end in text:
    text = text[:text.index(begin)] + section + text[text.index(end) + len(end):]
else:
    text = ("# Benchmark results\n\nWritten by `bench/run.sh`; each section "
            "says which program it comes from.\n\n" + section + "\n")
open(out, "w").write(text)
print(section)
PY

"$root/bench/adbench.sh" "${quick[@]}"
