// Command-line handling: --help, -o - (standard output), conflicting
// options, a missing input.
// RUN: %fluxion-gen --help | %FileCheck %s --check-prefix=HELP
// HELP: USAGE: fluxion-gen [options] <source0> [... <sourceN>]
// HELP-DAG: --declarations=<file>
// HELP-DAG: --no-line
// HELP-DAG: --output-dir=<dir>
// HELP-DAG: -o <file>
// HELP-DAG: -p <string>
//
// RUN: %fluxion-gen %s -o - --no-line -- -std=c++17 -I%fluxion-include | %FileCheck %s --check-prefix=STDOUT
// STDOUT: double twice_grad(double x, double *d_x) {
//
// RUN: not %fluxion-gen %s -o %t.cpp --output-dir %t.dir -- -std=c++17 2>&1 | %FileCheck %s --check-prefix=BOTH
// BOTH: error: -o and --output-dir cannot be used together
//
// RUN: not %fluxion-gen %t.missing.cpp -o %t.cpp -- -std=c++17 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: error: {{.*}}missing.cpp{{.*}}
//
// RUN: not %fluxion-gen %s -o %t.nodir/sub/out.cpp -- -std=c++17 -I%fluxion-include 2>&1 | %FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: error: cannot write '{{.*}}out.cpp'
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double twice(double x) { return 2 * x; }
