#!/usr/bin/env python3
"""Turns the JSON output of fluxion_adbench_bench (one file per problem) and
the compile-time measurements into the ADBench section of bench/RESULTS.md.

    adbench_report.py RESULTS.md COMPILE_TIMES.json BENCH1.json [BENCH2.json ...]

The section lies between the markers <!-- adbench:begin --> and
<!-- adbench:end -->; the rest of RESULTS.md is left alone. Times are the
median CPU time of the repetitions; ratios are ratios of medians.
"""
import json
import math
import os
import platform
import re
import subprocess
import sys

BEGIN, END = "<!-- adbench:begin -->", "<!-- adbench:end -->"
SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}

# Targets of the ADBench comparison (issue 6).
TARGET_VS_HAND = 1.5
TARGET_VS_ADOLC = 5.0
TARGET_COMPILE = 0.25


def load(paths):
    med, counters, ctx = {}, {}, {}
    for p in paths:
        doc = json.load(open(p))
        ctx.update(doc.get("context", {}))
        for b in doc["benchmarks"]:
            if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
                continue
            name = b["run_name"]
            if name.endswith("/real_time"):
                name = name[: -len("/real_time")]
            med[name] = b["cpu_time"] * SCALE[b.get("time_unit", "ns")]
            counters[name] = {k: v for k, v in b.items()
                              if k in ("tape_MB", "bytes_per_step")}
    return med, counters, ctx


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(x, digits=2):
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}f}"


def fmt_time(s):
    if s is None:
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def configs(med, problem):
    seen = []
    for name in med:
        parts = name.split("/")
        if parts[0] == problem and parts[1] not in seen:
            seen.append(parts[1])
    return seen


def params_of(cfg):
    return {k: int(v) for k, v in re.findall(r"([a-zA-Z]+)(\d+)", cfg)}


def gmm_nparams(p):
    d, k = p["d"], p["K"]
    return k + k * d + k * d * (d + 1) // 2


def row_values(med, problem, cfg):
    g = lambda m: med.get(f"{problem}/{cfg}/{m}")
    return {m: g(m) for m in ("primal", "fluxion", "manual", "adolc",
                              "adolc_tape_reused", "fd")}


def derivative_table(med, counters, problem, label, extra_cols, reuse):
    L = []
    head = ["problem"] + [c[0] for c in extra_cols] + [
        "primal", f"Fluxion {label} / primal", "hand-written / primal",
        "ADOL-C / primal"]
    if reuse:
        head.append("ADOL-C, tape reused / primal")
    head += ["FD / primal", "**Fluxion / hand-written**", "**Fluxion / ADOL-C**"]
    if reuse:
        head.append("Fluxion tape (MB)")
    L.append("| " + " | ".join(head) + " |")
    L.append("| --- " * len(head) + "|")
    rows = []
    for cfg in configs(med, problem):
        v = row_values(med, problem, cfg)
        p = params_of(cfg)
        r = [f"`{cfg}`"] + [c[1](p) for c in extra_cols]
        r += [fmt_time(v["primal"]), fmt(ratio(v["fluxion"], v["primal"])),
              fmt(ratio(v["manual"], v["primal"])),
              fmt(ratio(v["adolc"], v["primal"]))]
        if reuse:
            r.append(fmt(ratio(v["adolc_tape_reused"], v["primal"])))
        vs_hand = ratio(v["fluxion"], v["manual"])
        vs_adolc = ratio(v["fluxion"], v["adolc"])
        r += [fmt(ratio(v["fd"], v["primal"])), f"**{fmt(vs_hand)}**",
              f"**{fmt(vs_adolc, 3)}**"]
        if reuse:
            r.append(fmt(counters.get(f"{problem}/{cfg}/fluxion", {}).get("tape_MB"), 1))
        L.append("| " + " | ".join(r) + " |")
        rows.append((cfg, vs_hand, vs_adolc))
    return L, rows


def burgers_table(med, counters):
    L = []
    head = ["problem", "primal", "Fluxion / primal", "hand-written / primal",
            "ADOL-C / primal", "FD / primal", "**Fluxion / hand-written**",
            "**Fluxion / ADOL-C**", "bytes per step: Fluxion", "hand-written",
            "ADOL-C", "peak MB: Fluxion", "hand-written", "ADOL-C"]
    L.append("| " + " | ".join(head) + " |")
    L.append("| --- " * len(head) + "|")
    rows = []
    for cfg in configs(med, "burgers"):
        v = row_values(med, "burgers", cfg)
        c = lambda m, k: counters.get(f"burgers/{cfg}/{m}", {}).get(k)
        vs_hand = ratio(v["fluxion"], v["manual"])
        vs_adolc = ratio(v["fluxion"], v["adolc"])
        r = [f"`{cfg}`", fmt_time(v["primal"]),
             fmt(ratio(v["fluxion"], v["primal"])),
             fmt(ratio(v["manual"], v["primal"])),
             fmt(ratio(v["adolc"], v["primal"])),
             fmt(ratio(v["fd"], v["primal"])), f"**{fmt(vs_hand)}**",
             f"**{fmt(vs_adolc, 3)}**"]
        r += [fmt(c(m, "bytes_per_step"), 0) for m in ("fluxion", "manual", "adolc")]
        r += [fmt(c(m, "tape_MB"), 1) for m in ("fluxion", "manual", "adolc")]
        L.append("| " + " | ".join(r) + " |")
        rows.append((cfg, vs_hand, vs_adolc))
    return L, rows


def verdict(ok):
    return "met" if ok else "**missed**"


def summary(name, rows, targets=True):
    hand = [h for _, h, _ in rows if h is not None]
    adolc = [a for _, _, a in rows if a is not None]
    if not hand:
        return []
    gm = math.exp(sum(math.log(h) for h in hand) / len(hand))
    cells = [name, f"{fmt(min(hand))} – {fmt(max(hand))} (geo. mean {fmt(gm)})"]
    cells += ([f"≤ {TARGET_VS_HAND}", verdict(max(hand) <= TARGET_VS_HAND)]
              if targets else ["—", ""])
    if adolc:
        speedups = [1 / a for a in adolc]
        cells.append(f"{fmt(min(speedups), 1)}× – {fmt(max(speedups), 1)}×")
        cells += ([f"≥ {TARGET_VS_ADOLC:.0f}×",
                   verdict(min(speedups) >= TARGET_VS_ADOLC)]
                  if targets else ["—", ""])
    else:
        cells += ["—", "—", ""]
    return ["| " + " | ".join(cells) + " |"]


def main():
    out, compile_json, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    med, counters, ctx = load(paths)
    compile_times = json.load(open(compile_json)) if os.path.exists(compile_json) else []

    cpu = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    cxx = os.environ.get("CXX", "clang++-19")
    try:
        cxx_version = subprocess.run([cxx, "--version"], capture_output=True,
                                     text=True).stdout.splitlines()[0]
    except Exception:
        cxx_version = cxx
    try:
        adolc_version = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "libadolc-dev"],
            capture_output=True, text=True).stdout.strip() or "?"
    except Exception:
        adolc_version = "?"

    L = [BEGIN, "## ADBench: GMM, bundle adjustment, LSTM, and a long loop\n"]
    L.append("Written by `bench/adbench.sh` from `fluxion_adbench_bench` "
             "(`bench/adbench/`). Problems as defined by Srajer, Kukelova and "
             "Fitzgibbon (2018), with deterministic inputs at ADBench's sizes. "
             "Every method's derivatives were compared at every size before "
             "anything was timed (relative tolerance 1e-10 between the AD "
             "methods, 1e-5 against central differences).\n")
    L.append(f"- date of the run: {ctx.get('date', '?')}; "
             f"mode: {ctx.get('adbench_mode', '?')}")
    L.append(f"- machine: {cpu}, nproc = {os.cpu_count()}, {platform.system()} {platform.release()}; "
             f"load average when the run started: {os.environ.get('ADBENCH_LOAD', '?')}")
    L.append(f"- compiler: {cxx_version}; every benchmark source at `-O3` "
             f"(plugin-compiled and hand-written alike), CMAKE_BUILD_TYPE=Release")
    L.append(f"- ADOL-C {adolc_version} (Debian `libadolc-dev`), default buffer sizes "
             f"(larger tapes spill to files); Google Benchmark library build type: "
             f"{ctx.get('library_build_type', '?')} (the harness only)")
    L.append(f"- {os.environ.get('ADBENCH_REPS', '5')} repetitions of at least 0.2 s each; "
             "**median CPU time**, ratios of medians")
    L.append("- columns: *primal* is the objective alone; *Fluxion* the generated "
             "`f_grad` (GMM, LSTM, Burgers) or `f_jacobian` per observation (BA); "
             "*hand-written* the adjoint in `*_manual.cpp`; *ADOL-C* records the tape "
             "and reverses it at once (what a gradient at new parameters costs when "
             "the control flow may depend on them); *ADOL-C, tape reused* runs ADOL-C's "
             "`gradient` driver on a tape recorded beforehand; *FD* central differences "
             "(2 primal evaluations per input; small sizes only). "
             "Fluxion / ADOL-C below 0.2 means Fluxion is more than 5× faster.\n")

    gmm_cols = [("params", lambda p: str(gmm_nparams(p)))]
    gl, grows = derivative_table(med, counters, "gmm", "`f_grad`", gmm_cols, True)
    L.append("### GMM objective, gradient with respect to alphas, means and icf\n")
    L += gl
    L.append("\nADOL-C is not run at d = 64, K = 100 (its tape would take several GB); "
             "FD only where there are at most 400 parameters.\n")

    bl, brows = derivative_table(med, counters, "ba", "`f_jacobian`", [], False)
    L.append("### Bundle adjustment, sparse Jacobian (2 × 15 block per observation, "
             "weight residuals)\n")
    L += bl
    L.append("\nn cameras, m points, p observations (ADBench's ba1, ba3, ba8); "
             "FD on ba1 only. ADOL-C tapes the residual function of one "
             "observation once per Jacobian (one tape per branch of the Rodrigues "
             "formula) and evaluates it for every observation (zero-order forward, "
             "then a reverse sweep with both residuals as seeds).\n")

    ll, lrows = derivative_table(med, counters, "lstm", "`f_grad`", [], True)
    L.append("### LSTM loss, gradient with respect to the main and extra parameters\n")
    L += ll
    L.append("\nl layers, c characters, b = 14; FD on l = 2, c = 1024 only.\n")

    ul, urows = burgers_table(med, counters)
    L.append("### Long loop: viscous Burgers, 256 cells, explicit steps (tape memory)\n")
    L += ul
    L.append("\nBytes per step: what each method stores for its reverse sweep, "
             "divided by the number of steps (Fluxion: peak of its tapes, "
             "`fluxion::memory_stats()`; hand-written: the stored trajectory; "
             "ADOL-C: operations, locations, constants and kept forward values of "
             "its tape). Peak MB: the same totals.\n")

    L.append("### Targets\n")
    L.append("| problem | Fluxion / hand-written | target | | ADOL-C / Fluxion (speed-up) | target | |")
    L.append("| --- | --- | --- | --- | --- | --- | --- |")
    L += summary("GMM gradient", grows)
    L += summary("BA Jacobian", brows)
    L += summary("LSTM gradient", lrows)
    L += summary("Burgers gradient (no target)", urows, targets=False)
    L.append("")

    if compile_times:
        L.append("### Compile time of the plugin-compiled sources\n")
        L.append("Wall time of compiling each file (`-c`, its build flags, "
                 "median of 3), with the plugin (generating the derivatives) and "
                 "without it (the annotations are then ignored; same file). "
                 "*Front end*: the same with `-fsyntax-only` (parsing, Sema and "
                 "the plugin's own work, no code generation); the rest of the "
                 "overhead is the optimiser and back end compiling the generated "
                 "functions.\n")
        L.append("*Hand-written adjoint, back end*: the reference for what "
                 "compiling an adjoint costs at all. It is the compile of the "
                 "problem's `*_manual.cpp` minus its front end (optimiser and back "
                 "end only; that file also generates the inputs, so this is an "
                 "upper bound), shown as a share of the plain compile of the "
                 "plugin-compiled file: the overhead that adding the hand-written "
                 "adjoint to that file would cost.\n")
        L.append("| file | without plugin | with plugin | overhead | target ≤ 25% "
                 "| front end without | front end with "
                 "| hand-written adjoint, back end |")
        L.append("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
        for c in compile_times:
            over = c["with"] / c["without"] - 1
            manual = "—"
            if "manual_back" in c:
                manual = (f"{c['manual_back']:.2f} s "
                          f"({c['manual_back'] / c['without'] * 100:.0f}%)")
            L.append(f"| `{c['file']}` | {c['without']:.2f} s | {c['with']:.2f} s | "
                     f"{over * 100:.0f}% | {verdict(over <= TARGET_COMPILE)} | "
                     f"{c.get('front_without', float('nan')):.2f} s | "
                     f"{c.get('front_with', float('nan')):.2f} s | {manual} |")
        L.append("")
    L.append(END)
    section = "\n".join(L) + "\n"

    text = open(out).read() if os.path.exists(out) else ""
    if BEGIN in text and END in text:
        a = text.index(BEGIN)
        b = text.index(END) + len(END)
        text = text[:a] + section.rstrip("\n") + text[b:]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section
    open(out, "w").write(text)
    print(section)


if __name__ == "__main__":
    main()
