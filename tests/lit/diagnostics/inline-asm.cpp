// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x) {
  // CHECK: inline-asm.cpp:[[@LINE+1]]:3: error: fluxion: cannot differentiate through this 'asm' statement; restructure the code or move it into a function with a custom derivative (fluxion::custom::..._vjp)
  asm volatile("" ::: "memory");
  return x * x;
}
// CHECK: inline-asm.cpp:[[@LINE-5]]:26: note: while differentiating 'f'
// CHECK-NOT: error:
// CHECK: 1 error generated.
