#!/usr/bin/env bash
# The first gradient call in a process against a warm call, Fluxion and
# hand-written alike: builds fluxion_first_call in the benchmark tree, runs
# every (problem, method) in fresh processes, and writes the first-call
# section of bench/RESULTS.md (medians over the runs).
#   bench/first_call.sh [RUNS]       (default 5 runs; about a minute)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/build-target.sh"
out="$root/bench/RESULTS.md"
runs="${1:-5}"

fluxion_bench_build fluxion_first_call

lines="$build/first-call.txt"
: > "$lines"
for run in $(seq "$runs"); do
  for config in "gmm fluxion" "gmm manual" "gmm_vector fluxion" \
                "gmm_inline fluxion" \
                "lstm fluxion" "lstm manual" "burgers fluxion" \
                "burgers manual"; do
    # shellcheck disable=SC2086
    "$build/bin/fluxion_first_call" $config >> "$lines"
  done
done

cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: *//')"
python3 - "$lines" "$out" "$runs" "$(nproc)" "$cpu" "$(uname -r)" \
  "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo n/a)" <<'PY'
import datetime, statistics, sys
lines, out, runs, nproc, cpu, kernel, thp = sys.argv[1:8]
times = {}
for line in open(lines):
    problem, method, first, warm = line.split()
    t = times.setdefault((problem, method), ([], []))
    t[0].append(float(first.split("=")[1]))
    t[1].append(float(warm.split("=")[1]))
med = {k: (statistics.median(f), statistics.median(w)) for k, (f, w) in times.items()}
names = {"gmm": "GMM d = 64, K = 25, n = 1000",
         "gmm_vector": "GMM, `std::vector` parameters (same size)",
         "gmm_inline": "GMM, one function with inline loops (same size)",
         "lstm": "LSTM l = 4, c = 4096, b = 14",
         "burgers": "Burgers n = 256, 10^4 steps"}
def ms(s): return f"{s * 1e3:.1f} ms"
rows = []
for problem in ["gmm", "gmm_vector", "gmm_inline", "lstm", "burgers"]:
    f, w = med[(problem, "fluxion")]
    manual = "gmm" if problem.startswith("gmm") else problem
    mf, mw = med[(manual, "manual")]
    rows.append(f"| {names[problem]} | {ms(f)} | {ms(w)} | **{f / w:.2f}** | "
                f"{ms(mf)} | {ms(mw)} | {mf / mw:.2f} | **{f / mf:.2f}** | {w / mw:.2f} |")
section = f"""<!-- first-call:begin -->
## First call in a process

Written by `bench/first_call.sh` from `fluxion_first_call`
(`bench/adbench/first_call_main.cpp`): each gradient is called once in a
fresh process (*first*), then 9 more times (*warm*, the median of those).
A program that takes one gradient per process pays the first call: its
tape memory is new to the process, where a warm call reuses it. Medians
over {runs} processes per row; the hand-written adjoint of the `std::vector`
and inline GMM formulations is the pointer one (`gmm_manual.cpp`).

- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}
- machine: {cpu}, nproc = {nproc}, Linux {kernel}; transparent huge pages: `{thp}`
- every source at `-O3`; wall-clock time of the call alone

| problem | Fluxion first | Fluxion warm | **first / warm** | hand-written first | hand-written warm | first / warm | **Fluxion / hand-written, first** | Fluxion / hand-written, warm |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
""" + "\n".join(rows) + """

Target (issue 19): a first call costs at most 1.5× a warm one.
<!-- first-call:end -->"""
text = open(out).read()
begin, end = "<!-- first-call:begin -->", "<!-- first-call:end -->"
if begin in text:
    text = text[:text.index(begin)] + section + text[text.index(end) + len(end):]
else:
    text = text.rstrip("\n") + "\n\n" + section + "\n"
open(out, "w").write(text)
print(section)
PY
