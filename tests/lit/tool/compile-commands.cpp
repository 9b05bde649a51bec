// -p picks the flags from compile_commands.json, like every LibTooling
// tool; the plugin flags a plugin build has there are dropped (fluxion-gen
// runs the same engine itself).
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: echo '[{"directory": "%/t.dir", "file": "%/s", "command": "clang++ -std=c++17 -DFROM_DATABASE -I%fluxion-include -fplugin=%/t.dir/missing/FluxionPlugin.so -fplugin-arg-fluxion-dump -c %/s -o x.o"}]' > %t.dir/compile_commands.json
// RUN: %fluxion-gen -p %t.dir %s --no-line -o %t.cpp
// RUN: %FileCheck %s < %t.cpp
#include <fluxion/fluxion.hpp>

#ifdef FROM_DATABASE
[[fluxion::grad]] double from_database(double x) { return x * x; }
#endif
// CHECK: double from_database_grad(double x, double *d_x)
