#!/usr/bin/env python3
"""Writes the Formulations section of bench/RESULTS.md from
fluxion_formulations_bench's JSON (one file per problem), the first-call
lines of fluxion_formulations_first_call, and the compile-time and
refused-formulation measurements.

    report.py RESULTS.md FIRST_CALL.txt COMPILE.json REFUSED.json BENCH.json...

The section lies between <!-- formulations:begin --> and
<!-- formulations:end -->; the rest of RESULTS.md is left alone. Times are
medians of the repetitions (CPU time of the process: the machine is shared
with other work, whose load inflates wall time), ratios are ratios of
medians.
"""
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys

BEGIN, END = "<!-- formulations:begin -->", "<!-- formulations:end -->"
SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
TARGET = 1.3  # gradient / hand-written, warm and first call (issue 19)
PROBLEMS = [("burgers", "Time stepping: viscous Burgers, n = 1000 cells",
             "step"),
            ("gmm", "GMM objective (ADBench)", "point"),
            ("lstm", "LSTM loss (ADBench), b = 14", "step"),
            ("ba", "Bundle adjustment (ADBench), Jacobian per observation",
             "observation")]


FORMS = {"burgers": ["swap", "scratch", "inplace", "callee", "vector",
                     "vector_swap"],
         "gmm": ["helpers", "inline", "components", "eigen"],
         "lstm": ["helpers", "inline"], "ba": ["helpers", "inline"]}


def natural(text):
    """Sort key that orders the numbers in a name by value."""
    return [int(t) if t.isdigit() else t
            for t in re.split(r"(\d+)", text)]


def order(name):
    problem, size, form = name.split("/")[:3]
    forms = FORMS.get(problem, [])
    return ([p for p, _, _ in PROBLEMS].index(problem), natural(size),
            forms.index(form) if form in forms else len(forms), form)


def load(paths):
    med, bytes_, ctx = {}, {}, {"dates": []}
    for p in paths:
        doc = json.load(open(p))
        ctx["dates"].append(doc.get("context", {}).get("date", ""))
        for b in doc["benchmarks"]:
            if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
                continue
            name = b["run_name"].removesuffix("/real_time")
            # CPU time: on a machine shared with other builds, wall time
            # also counts the waits for a processor.
            med[name] = b["cpu_time"] * SCALE[b.get("time_unit", "ns")]
            # A method that reports no bytes (ADOL-C's BA Jacobian) comes
            # out of Google Benchmark's aggregates as 0.
            if b.get("bytes_per_unit"):
                bytes_[name] = b["bytes_per_unit"]
    return med, bytes_, ctx


def t(s):
    if s is None:
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms" if s < 0.1 else f"{s * 1e3:.0f} ms"
    return f"{s * 1e6:.0f} µs"


def r(x, bold=False):
    if x is None:
        return "—"
    s = f"{x:.2f}" if x < 100 else f"{x:.0f}"
    return f"**{s}**" if bold else s


def b(x):
    if x is None:
        return "—"
    if x >= 1e6:
        return f"{x / 1e6:.1f} M"
    if x >= 1e3:
        return f"{x / 1e3:.1f} k"
    return f"{x:.0f}"


def div(a, c):
    return a / c if a is not None and c else None


def main():
    out, first_path, compile_path, refused_path = sys.argv[1:5]
    med, bytes_, ctx = load(sys.argv[5:])

    # Rows: problem -> size -> formulation -> method, in the corpus's order
    # (the benchmarks ran in random order).
    tree = {}
    for name in sorted(med, key=order):
        problem, size, form, method = name.split("/")
        tree.setdefault(problem, {}).setdefault(size, {}).setdefault(form, {})[method] = name

    first = {}
    for line in open(first_path):
        parts = line.split()
        if len(parts) < 8:
            continue
        key = tuple(parts[:4])
        fig = dict(p.split("=") for p in parts[4:])
        first.setdefault(key, ([], [], [], []))
        for i, f in enumerate(("first_cpu_s", "warm_cpu_s", "first_s", "warm_s")):
            first[key][i].append(float(fig[f]))
    # (first cpu, warm cpu, runs, first wall, warm wall)
    fmed = {k: (statistics.median(v[0]), statistics.median(v[1]), len(v[0]),
                statistics.median(v[2]), statistics.median(v[3]))
            for k, v in first.items()}

    compile_ = {c["name"]: c for c in json.load(open(compile_path))}
    refused = json.load(open(refused_path))

    worst = {}  # (problem, form) -> dict of worst figures
    def note(problem, form, key, value):
        if value is None:
            return
        w = worst.setdefault((problem, form), {})
        w[key] = max(w.get(key, value), value)

    lines = []
    for problem, title, unit in PROBLEMS:
        if problem not in tree:
            continue
        lines.append(f"### {title}\n")
        lines.append(f"| size | formulation | primal | Fluxion | hand-written | ADOL-C | "
                     f"**Fluxion / hand-written** | Fluxion / primal | hand-written / primal | "
                     f"bytes per {unit}: Fluxion | hand-written | ADOL-C | **Fluxion / hand-written bytes** |")
        lines.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for size, forms in tree[problem].items():
            for form, methods in forms.items():
                g = lambda m: med.get(methods.get(m, ""))
                by = lambda m: bytes_.get(methods.get(m, ""))
                ratio = div(g("fluxion"), g("manual"))
                bratio = div(by("fluxion"), by("manual")) if by("manual") else None
                note(problem, form, "warm", ratio)
                if by("fluxion") is not None and by("manual") is not None:
                    note(problem, form, "bytes_ratio", bratio)
                lines.append(
                    f"| `{size}` | {form} | {t(g('primal'))} | {t(g('fluxion'))} | "
                    f"{t(g('manual'))} | {t(g('adolc'))} | {r(ratio, True)} | "
                    f"{r(div(g('fluxion'), g('primal')))} | {r(div(g('manual'), g('primal')))} | "
                    f"{b(by('fluxion'))} | {b(by('manual'))} | {b(by('adolc'))} | "
                    f"{r(bratio, True)} |")
        lines.append("")

    # First calls.
    fl = ["| problem, size | formulation | Fluxion first | Fluxion warm | first / warm | "
          "hand-written first | hand-written warm | first / warm | "
          "**Fluxion / hand-written, first** | Fluxion / hand-written, warm | "
          "wall time: Fluxion / hand-written, first |",
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    runs = 0
    for key in sorted({k[:3] for k in fmed}, key=lambda k: order("/".join(k))):
        fx = fmed.get(key + ("fluxion",))
        mn = fmed.get(key + ("manual",))
        if not fx or not mn:
            continue
        runs = max(runs, fx[2])
        note(key[0], key[2], "first", div(fx[0], mn[0]))
        note(key[0], key[2], "first_over_warm", div(fx[0], fx[1]))
        fl.append(f"| {key[0]} `{key[1]}` | {key[2]} | {t(fx[0])} | {t(fx[1])} | "
                  f"{r(div(fx[0], fx[1]))} | {t(mn[0])} | {t(mn[1])} | {r(div(mn[0], mn[1]))} | "
                  f"{r(div(fx[0], mn[0]), True)} | {r(div(fx[1], mn[1]))} | "
                  f"{r(div(fx[3], mn[3]))} |")

    # Compile times.
    cl = ["| formulation | without plugin | with plugin | **plugin adds** | "
          "hand-written compile | its front end | **its back end** | added / back end |",
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, c in compile_.items():
        added = c["with"] - c["without"]
        back = c["manual"] - c["manual_front"]
        problem, form = name.split("/")
        note(problem, form, "compile", div(added, back))
        cl.append(f"| {problem} {form} (`{os.path.basename(c['fluxion_file'])}` vs "
                  f"`{os.path.basename(c['manual_file'])}`) | {c['without']:.2f} s | "
                  f"{c['with']:.2f} s | **{added:.2f} s** | {c['manual']:.2f} s | "
                  f"{c['manual_front']:.2f} s | **{back:.2f} s** | {r(div(added, back))} |")

    # Targets.
    tl = ["| problem | formulation | worst Fluxion / hand-written, warm | first call | "
          "bytes per unit, Fluxion / hand-written | compile: added / hand-written back end | missed |",
          "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for (problem, form), w in sorted(worst.items(),
                                     key=lambda i: order(f"{i[0][0]}/-/{i[0][1]}")):
        missed = []
        if w.get("warm", 0) > TARGET:
            missed.append("warm")
        if w.get("first", 0) > TARGET:
            missed.append("first call")
        if w.get("bytes_ratio", 0) > 1.01:  # 1%: a few constant bytes
            missed.append("bytes")
        if w.get("compile", 0) > 1:
            missed.append("compile time")
        br = w.get("bytes_ratio")
        tl.append(f"| {problem} | {form} | {r(w.get('warm'))} | {r(w.get('first'))} | "
                  f"{r(br)} | "
                  f"{r(w.get('compile'))} | {', '.join(missed) or 'none'} |")

    rl = []
    for item in refused:
        if item["accepted"]:
            rl.append(f"- `{item['file']}`: **accepted now** (it was refused when the corpus was written).")
            continue
        rl.append(f"- `{item['file']}`:")
        for e in item["errors"]:
            rl.append(f"  - `{e}`")

    cpu = "unknown CPU"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    cxx = subprocess.run([os.environ.get("CXX", "clang++-19"), "--version"],
                         capture_output=True, text=True).stdout.splitlines()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    dates = sorted(d for d in ctx["dates"] if d)
    if dates:  # when the benchmark processes started
        now = (f"benchmarks started {dates[0]} to {dates[-1]}; "
               f"section written {now}")
    section = f"""{BEGIN}
## Formulations: the same problems written differently

Written by `bench/formulations/run.sh` from `fluxion_formulations_bench`,
`fluxion_formulations_first_call` and the compile-time scripts
(`bench/formulations/`). Each problem is written several ways a C++
programmer might write it, each formulation with a hand-written adjoint
written for that formulation (and ADOL-C where practical, recording and
reversing at every call). Before anything is timed, every method's
derivative was compared with the formulation's hand-written adjoint
(relative 1e-10), every hand-written adjoint with the first
formulation's (1e-8), and each with central differences of its own
formulation on the small instances of `fluxion_formulations_check`
(ctest) and on BA's first 50 observations.

- date: {now}
- machine: {cpu}, nproc = {os.cpu_count()}, Linux {platform.release()}: a **shared 2-core box** (other builds ran at the same time; load average when the run started: {os.environ.get('FORMULATIONS_LOAD', 'n/a')})
- compiler: {cxx[0] if cxx else 'n/a'}; every source at `-O3` (plugin-compiled and hand-written alike), CMAKE_BUILD_TYPE=Release
- glibc's malloc keeps freed memory in the process (`memory_policy.hpp`: no mmap for large blocks, no trimming), so that a hand-written adjoint allocating its trajectory at every call reuses its pages as Fluxion's tape reuses its chunks
- Google Benchmark: 7 repetitions of at least 0.2 s, all benchmarks' repetitions in random order, **median CPU time** (the process's: wall time on this shared machine also counts waits for a processor); all methods of one problem in one process
- *bytes per unit*: what each method keeps for its reverse sweep, divided by the time steps, points or (BA) per observation's `f_jacobian` call: Fluxion's tape peak (`fluxion::memory_stats().totalPeak()`), the hand-written adjoint's stored arrays (scratch reused for every point or observation counts once), ADOL-C's tape (operations, locations, constants, kept values)
- first calls: the first derivative call in a fresh process against the median of the 9 calls after it, CPU time of the process (page faults included), medians over {runs} processes per row; the last column is the same ratio in wall-clock time

{chr(10).join(lines)}
#### First call in a process

{chr(10).join(fl)}

#### Compile time

Median of 5 interleaved compiles (`-c`, the build's flags). *Plugin adds*:
the plugin-compiled file with the plugin minus without it. *Its back
end*: the hand-written adjoint's file minus its front end
(`-fsyntax-only`): what optimising and generating code for the adjoint
costs. Files of `bench/adbench` also hold other code (inputs, the primal
objective), so their figures bound the adjoint's from above.

{chr(10).join(cl)}

#### Targets (issue 19): ≤ {TARGET}× the hand-written adjoint warm and first call, no more bytes, compile time added ≤ the hand-written adjoint's back end

{chr(10).join(tl)}

#### Formulations the plugin refuses

Natural spellings of the formulations above that the plugin refuses today
(`bench/formulations/refused/`, compiled by `run.sh`; the first errors of
each file; the timed formulations write those parts another way, as their
sources say):

{chr(10).join(rl)}
{END}"""
    text = open(out).read() if os.path.exists(out) else ""
    if BEGIN in text:
        text = text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    open(out, "w").write(text)
    print(section)


if __name__ == "__main__":
    main()
