// A file that calls <cmath> functions without including the runtime gets,
// beside the error, the one line that fixes it (the runtime's rules come
// with <fluxion/fluxion.hpp>); with the include, the same file compiles.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: %clangxx %fluxion -fsyntax-only -include fluxion/fluxion.hpp %s
#include <cmath>

[[fluxion::grad]] double f(double x) {
  // CHECK: no-runtime-include.cpp:[[@LINE+3]]:10: error: fluxion: cannot differentiate call to 'tanh'
  // CHECK: note: the custom derivative to define in namespace fluxion::custom
  // CHECK: note: Fluxion's derivatives of <cmath> and standard library functions come with '#include <fluxion/fluxion.hpp>', which this file does not include
  return std::tanh(x) * x;
}
