// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x) {
  // CHECK: try-catch.cpp:[[@LINE+1]]:3: error: fluxion: cannot differentiate through this 'try' statement; restructure the code or move it into a function with a custom derivative (fluxion::custom::..._vjp)
  try {
    return x * x;
  } catch (...) {
    return 0;
  }
}
// CHECK: try-catch.cpp:[[@LINE-8]]:26: note: while differentiating 'f'
// CHECK-NOT: error:
// CHECK: 1 error generated.
