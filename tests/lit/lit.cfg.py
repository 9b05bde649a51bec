# -*- Python -*-
# lit configuration of Fluxion's compiler-output tests (diagnostics, shape of
# the generated code, compile-link-run through the driver).
#
# Run through CMake:   ctest -R fluxion_lit   (or: ninja check-fluxion-lit)
# Run by hand:         python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv tests/lit
# By hand, the paths come from <build>/tests/lit/lit.site.cfg.py, where
# <build> is ./build next to the sources unless given with
#   --param fluxion_site_config=/path/to/lit.site.cfg.py
# or the environment variable FLUXION_LIT_SITE_CONFIG.
import os
import shlex
import shutil
import subprocess
import sys

import lit.formats

config.name = "Fluxion"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

if not hasattr(config, "fluxion_plugin"):
    site = lit_config.params.get("fluxion_site_config") or os.environ.get(
        "FLUXION_LIT_SITE_CONFIG")
    if not site:
        site = os.path.join(config.test_source_root, "..", "..", "build",
                            "tests", "lit", "lit.site.cfg.py")
    site = os.path.abspath(site)
    if not os.path.isfile(site):
        lit_config.fatal(
            "no lit.site.cfg.py at %s: configure the project with CMake "
            "(it writes <build>/tests/lit/lit.site.cfg.py), or pass "
            "--param fluxion_site_config=<path>" % site)
    config.fluxion_loading_site = True
    lit_config.load_config(config, site)
    config.fluxion_loading_site = False

# Temporary files (%t) go to the build tree, never next to the sources.
config.test_exec_root = config.fluxion_lit_obj_root

# A fluxion-gen built with ASan and UBSan (FLUXION_SANITIZE=ON): a test
# fails on any sanitizer report of its programs, even one that a `not` RUN
# line or a pipe into FileCheck would hide (sanitizer_format.py).
if getattr(config, "fluxion_sanitize", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
    report_dir = os.path.join(config.fluxion_lit_obj_root, "sanitizer-reports")
    os.makedirs(report_dir, exist_ok=True)
    # A module of its own: lit's worker processes must be able to import it.
    sys.path.insert(0, config.test_source_root)
    from sanitizer_format import FailOnSanitizerReports
    config.test_format = FailOnSanitizerReports(report_dir)
    config.available_features.add("sanitize")
    lit_config.note("fluxion-gen is built with sanitizers: reports go to %s"
                    % report_dir)

for what, path in (("plugin", config.fluxion_plugin),
                   ("fluxion-gen", config.fluxion_gen),
                   ("clang++", config.fluxion_clangxx)):
    if not os.path.exists(path):
        lit_config.fatal("%s not found at %s (build the FluxionPlugin and "
                         "fluxion-gen targets first: ninja -C <build> "
                         "FluxionPlugin fluxion-gen)" % (what, path))
filecheck = os.path.join(config.llvm_tools_dir, "FileCheck")
if not os.path.exists(filecheck):
    lit_config.fatal("FileCheck not found at %s" % filecheck)

# Tools of the matching LLVM (FileCheck, not) come first on PATH.
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "")])
# Diagnostics must not depend on the terminal or the user's locale.
config.environment["LC_ALL"] = "C"
for var in ("CPLUS_INCLUDE_PATH", "CPATH", "CCC_OVERRIDE_OPTIONS"):
    config.environment.pop(var, None)

q = shlex.quote
clangxx = "%s -std=c++17 -fno-color-diagnostics -I%s" % (
    q(config.fluxion_clangxx), q(config.fluxion_include_dir))
# fluxion-gen, and g++ for its output. These come first: %fluxion is a
# prefix of their names.
config.substitutions.append(("%fluxion-gen", q(config.fluxion_gen)))
config.substitutions.append(("%fluxion-config", q(config.fluxion_config)))
config.substitutions.append(("%fluxion-include", q(config.fluxion_include_dir)))
# gdb, where it can run programs (containers may forbid ptrace).
def gdb_can_run():
    gdb = shutil.which("gdb")
    true = shutil.which("true")
    if not gdb or not true:
        return False
    try:
        out = subprocess.run([gdb, "-nx", "-batch", "-ex", "run", true],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return "exited normally" in out.stdout + out.stderr
if gdb_can_run():
    config.available_features.add("gdb")
# LLVM's libc++ (Debian's libc++-19-dev), which fluxion-gen's output must
# compile with as well as with libstdc++.
def libcxx_works():
    try:
        out = subprocess.run(
            [config.fluxion_clangxx, "-std=c++17", "-stdlib=libc++", "-x", "c++",
             "-", "-o", os.devnull],
            input="#include <vector>\nint main() { std::vector<int> v(1); "
                  "return v[0]; }\n",
            capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0
if libcxx_works():
    config.available_features.add("libcxx")
if config.fluxion_gxx:
    config.available_features.add("gxx")
    config.substitutions.append(("%gxx", "%s -std=c++17" % q(config.fluxion_gxx)))
if getattr(config, "fluxion_eigen_include", ""):
    config.available_features.add("eigen")
    config.substitutions.append(
        ("%eigen", "-isystem " + q(config.fluxion_eigen_include)))
config.substitutions.append(("%clangxx", clangxx))
config.substitutions.append(("%fluxion", "-fplugin=" + q(config.fluxion_plugin)))
config.substitutions.append(("%FileCheck", q(filecheck)))
config.substitutions.append(("%not", q(os.path.join(config.llvm_tools_dir, "not"))))
