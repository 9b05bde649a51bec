#!/usr/bin/env python3
"""Compiles each formulation of bench/formulations/refused/ with the plugin
(the compile command of gmm_eigen.cpp, or of another corpus file when Eigen
is not found, with the file swapped) and records whether the plugin
accepts it and, if not, its error lines. A formulation a user would
naturally write that the plugin refuses is a finding; when one starts to
compile, the report says so.

    refused.py BUILD_DIR OUT.json
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compile_times import clean_command  # noqa: E402


def main():
    build, out = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    db = json.load(open(os.path.join(build, "compile_commands.json")))
    template = None
    for name in ("gmm_eigen.cpp", "burgers_swap.cpp"):
        template = next((e for e in db
                         if e["file"].endswith("/formulations/" + name)), None)
        if template:
            break
    argv = clean_command(template)
    src = template["file"]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob(os.path.join(here, "refused", "*.cpp"))):
            cmd = [path if a == src or a.endswith("/" + os.path.basename(src))
                   else a for a in argv] + ["-o", os.path.join(tmp, "out.o")]
            p = subprocess.run(cmd, cwd=template["directory"],
                               capture_output=True, text=True)
            errors = [line.split(os.path.basename(path) + ":", 1)[-1]
                      for line in p.stderr.splitlines() if " error: " in line]
            results.append({"file": os.path.relpath(path, os.path.join(here, "..", "..")),
                            "accepted": p.returncode == 0, "errors": errors})
            print(f"  {os.path.basename(path)}: "
                  f"{'accepted' if p.returncode == 0 else f'{len(errors)} errors'}")
    json.dump(results, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
