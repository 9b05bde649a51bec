#!/usr/bin/env python3
"""Compile times of the formulations corpus, from the build's own compile
commands (compile_commands.json; bench/compile_times.py's helpers).

For each formulation: the plugin-compiled source with the plugin and
without it (the annotations then ignored), and its hand-written adjoint's
source in full and front end only (-fsyntax-only). Writes a JSON list of
{"fluxion_file", "manual_file", "with", "without", "manual", "manual_front"}
(seconds, medians of REPEATS interleaved runs). The plugin's added compile
time is with - without; the hand-written adjoint's optimiser and back-end
cost is manual - manual_front.

    compile_times.py BUILD_DIR OUT.json
"""
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compile_times import clean_command, timed  # noqa: E402

REPEATS = 5

# (formulation, plugin-compiled source, hand-written adjoint's source)
PAIRS = [
    ("burgers/swap", "bench/formulations/burgers_swap.cpp",
     "bench/formulations/burgers_swap_manual.cpp"),
    ("burgers/scratch", "bench/formulations/burgers_scratch.cpp",
     "bench/formulations/burgers_scratch_manual.cpp"),
    ("burgers/inplace", "bench/formulations/burgers_inplace.cpp",
     "bench/formulations/burgers_inplace_manual.cpp"),
    ("burgers/callee", "bench/formulations/burgers_callee.cpp",
     "bench/formulations/burgers_callee_manual.cpp"),
    ("burgers/vector", "bench/formulations/burgers_vector.cpp",
     "bench/formulations/burgers_vector_manual.cpp"),
    ("burgers/vector_swap", "bench/formulations/burgers_vector_swap.cpp",
     "bench/formulations/burgers_vector_swap_manual.cpp"),
    ("gmm/helpers", "bench/adbench/gmm.cpp", "bench/adbench/gmm_manual.cpp"),
    ("gmm/inline", "bench/adbench/gmm_inline.cpp",
     "bench/formulations/gmm_inline_manual.cpp"),
    ("gmm/components", "bench/formulations/gmm_components.cpp",
     "bench/formulations/gmm_components_manual.cpp"),
    ("gmm/eigen", "bench/formulations/gmm_eigen.cpp",
     "bench/formulations/gmm_eigen_manual.cpp"),
    ("lstm/helpers", "bench/adbench/lstm.cpp", "bench/adbench/lstm_manual.cpp"),
    ("lstm/inline", "bench/formulations/lstm_inline.cpp",
     "bench/formulations/lstm_inline_manual.cpp"),
    ("ba/helpers", "bench/adbench/ba.cpp", "bench/adbench/ba_manual.cpp"),
    ("ba/inline", "bench/formulations/ba_inline.cpp",
     "bench/adbench/ba_manual.cpp"),
]


def entry_for(db, f):
    return next((e for e in db if e["file"].endswith("/" + f)), None)


def main():
    build, out = sys.argv[1], sys.argv[2]
    db = json.load(open(os.path.join(build, "compile_commands.json")))
    results = []
    med = statistics.median
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "out.o")
        for name, fsrc, msrc in PAIRS:
            fe, me = entry_for(db, fsrc), entry_for(db, msrc)
            if fe is None or me is None:
                print(f"compile_times: no compile command for {name}",
                      file=sys.stderr)
                continue
            with_plugin = clean_command(fe) + ["-Wno-unknown-attributes",
                                               "-o", obj]
            without = [a for a in with_plugin if not a.startswith("-fplugin")]
            manual = clean_command(me) + ["-o", obj]
            manual_front = [a for a in manual if a not in ("-c", "-o", obj)]
            manual_front.append("-fsyntax-only")
            w, wo, m, mf = [], [], [], []
            for _ in range(REPEATS):  # interleaved: load drifts hit all four
                os.chdir(fe["directory"])
                wo.append(timed(without))
                w.append(timed(with_plugin))
                os.chdir(me["directory"])
                m.append(timed(manual))
                mf.append(timed(manual_front))
            r = {"name": name, "fluxion_file": fsrc, "manual_file": msrc,
                 "with": med(w), "without": med(wo), "manual": med(m),
                 "manual_front": med(mf)}
            print(f"  {name}: plugin adds {r['with'] - r['without']:.3f} s "
                  f"({r['without']:.2f} -> {r['with']:.2f}); hand-written "
                  f"back end {r['manual'] - r['manual_front']:.3f} s")
            results.append(r)
    json.dump(results, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
