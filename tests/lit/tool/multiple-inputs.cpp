// Several inputs in one run, each written to --output-dir under its own
// name; a failing input is reported, its output not written, the others
// are, and the exit status says that one failed.
// RUN: rm -rf %t.dir %t.fail
// RUN: %fluxion-gen %s %S/Inputs/plain.cpp --no-line --output-dir %t.dir -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s < %t.dir/multiple-inputs.cpp
// RUN: cmp %S/Inputs/plain.cpp %t.dir/plain.cpp
// RUN: not %fluxion-gen %S/Inputs/not-cxx.cpp %S/Inputs/plain.cpp --output-dir %t.fail -- -std=c++17 2>&1 | %FileCheck %s --check-prefix=FAIL
// RUN: cmp %S/Inputs/plain.cpp %t.fail/plain.cpp
// RUN: not test -e %t.fail/not-cxx.cpp
// -o names one output; several need a directory.
// RUN: not %fluxion-gen %s %S/Inputs/plain.cpp -o %t.one.cpp -- -std=c++17 2>&1 | %FileCheck %s --check-prefix=ONE
// RUN: not %fluxion-gen %s %S/Inputs/plain.cpp -- -std=c++17 2>&1 | %FileCheck %s --check-prefix=DIR
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double cube(double x) { return x * x * x; }
// CHECK: double cube_vjp(double x, double seed, double *d_x) {
// CHECK: double cube_grad(double x, double *d_x) { return cube_vjp(x, 1., d_x); }

// FAIL: not-cxx.cpp:{{[0-9]+}}:{{[0-9]+}}: error:
// ONE: error: -o takes one input; use --output-dir for several
// DIR: error: several inputs: give --output-dir
