// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x) {
  double y = x;
  if (x > 0)
    // The construct is named as the user wrote it, not by Clang's AST class.
    // CHECK: goto.cpp:[[@LINE+1]]:5: error: fluxion: cannot differentiate through this 'goto' statement; restructure the code or move it into a function with a custom derivative (fluxion::custom::..._vjp)
    goto done;
  y = y * x;
  // One error for one goto: its label is not a second problem.
  // CHECK-NOT: error:
done:
  return y;
}
// CHECK: note: while differentiating 'f'
// CHECK-NOT: error:
// CHECK: 1 error generated.
