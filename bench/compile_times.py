#!/usr/bin/env python3
"""Measures how long each plugin-compiled benchmark source takes to compile,
with the Fluxion plugin and without it, using the build's own compile
commands (compile_commands.json). Writes a JSON list of
{"file", "with", "without", "front_with", "front_without"} (seconds,
median of REPEATS runs; front_*: the same with -fsyntax-only, i.e. parsing,
Sema and the plugin's own work, without code generation), and for FILE's
hand-written adjoint FILE_manual.cpp, when the build compiles one,
"manual_back": its compile minus its front end (optimiser and back end).

    compile_times.py BUILD_DIR OUT.json FILE...   (FILE relative to the source root)
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

REPEATS = 3


def timed(argv):
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def clean_command(entry):
    """The entry's command, without its output and dependency-file options:
    the object goes to a scratch file and the build tree stays untouched."""
    argv = entry.get("arguments") or shlex.split(entry["command"])
    clean, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-MD", "-MMD"):
            continue
        clean.append(a)
    return clean


def main():
    build, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    db = json.load(open(os.path.join(build, "compile_commands.json")))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "out.o")
        for f in files:
            entry = next((e for e in db if e["file"].endswith("/" + f)), None)
            if entry is None:
                print(f"compile_times: no compile command for {f}", file=sys.stderr)
                continue
            clean = clean_command(entry)
            with_plugin = clean + ["-Wno-unknown-attributes", "-o", obj]
            without = [a for a in with_plugin if not a.startswith("-fplugin")]
            if without == with_plugin:
                print(f"compile_times: {f} is not compiled with the plugin",
                      file=sys.stderr)
                continue
            cwd = entry["directory"]
            os.chdir(cwd)
            front = lambda cmd: [a for a in cmd if a not in ("-c", "-o", obj)] + [
                "-fsyntax-only"]
            w, wo, fw, fwo = [], [], [], []
            for _ in range(REPEATS):  # interleaved, so that load drifts hit both
                wo.append(timed(without))
                w.append(timed(with_plugin))
                fwo.append(timed(front(without)))
                fw.append(timed(front(with_plugin)))
            med = statistics.median
            result = {"file": f, "with": med(w), "without": med(wo),
                      "front_with": med(fw), "front_without": med(fwo)}
            print(f"  {f}: {med(wo):.2f} s without the plugin, {med(w):.2f} s "
                  f"with it (front end only: {med(fwo):.2f} s, {med(fw):.2f} s)")
            # The reference: what the hand-written adjoint of the same
            # problem costs the optimiser and back end (its file's compile
            # minus its front end; the file also generates the inputs).
            manual = f[:-len(".cpp")] + "_manual.cpp"
            mentry = next((e for e in db if e["file"].endswith("/" + manual)), None)
            if mentry is not None:
                margv = clean_command(mentry)
                full = margv + ["-o", obj]
                mf, mfront = [], []
                os.chdir(mentry["directory"])
                for _ in range(REPEATS):
                    mf.append(timed(full))
                    mfront.append(timed(front(full)))
                result["manual_file"] = manual
                result["manual_back"] = med(mf) - med(mfront)
                print(f"  {manual}: back end {result['manual_back']:.2f} s")
            results.append(result)
    json.dump(results, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
