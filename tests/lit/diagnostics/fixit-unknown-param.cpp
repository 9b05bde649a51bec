// An unknown name in an annotation's parameter list that is close to a
// parameter the annotation may name suggests it, with a fix-it replacing
// the string; a name close to nothing (or only to a parameter that carries
// no derivative) gets no suggestion. Applying the fix-its makes the part
// that has them (FIXED) compile.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: not %clangxx %fluxion -fsyntax-only -fdiagnostics-parseable-fixits %s 2>&1 | %FileCheck %s --check-prefix=FIXIT
// RUN: cp %s %t.cpp
// RUN: not %clangxx %fluxion -fsyntax-only -Xclang -fixit -DFIXED %t.cpp
// RUN: %clangxx %fluxion -fsyntax-only -DFIXED %t.cpp
#include <fluxion/fluxion.hpp>

// CHECK: fixit-unknown-param.cpp:[[@LINE+2]]:17: error: fluxion: 'xx' is not a parameter of 'typo'; did you mean 'x'?
// FIXIT: fix-it:"{{.*}}fixit-unknown-param.cpp":{[[@LINE+1]]:17-[[@LINE+1]]:21}:"\"x\""
[[fluxion::grad("xx")]] double typo(double x, double w) {
  return x * w;
}

// Case differs; the second name is the wrong one.
// CHECK: fixit-unknown-param.cpp:[[@LINE+2]]:26: error: fluxion: 'Weights' is not a parameter of 'loss'; did you mean 'weights'?
// FIXIT: fix-it:"{{.*}}fixit-unknown-param.cpp":{[[@LINE+1]]:26-[[@LINE+1]]:35}:"\"weights\""
[[fluxion::grad("input", "Weights")]] double loss(const double *input,
                                                  const double *weights,
                                                  int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += input[i] * weights[i];
  return s;
}

// Of x, v and n, only the differentiable ones are offered.
// CHECK: fixit-unknown-param.cpp:[[@LINE+2]]:16: error: fluxion: 'vv' is not a parameter of 'speed'; did you mean 'v'?
// FIXIT: fix-it:"{{.*}}fixit-unknown-param.cpp":{[[@LINE+1]]:16-[[@LINE+1]]:20}:"\"v\""
[[fluxion::jvp("vv")]] double speed(double x, double v, int n) {
  return n * x * v;
}

#ifndef FIXED
// Nothing close: no suggestion, no fix-it ('nn' is close only to the int).
// CHECK: fixit-unknown-param.cpp:[[@LINE+1]]:17: error: fluxion: 'nn' is not a parameter of 'far'{{$}}
[[fluxion::grad("nn")]] double far(double x, int n) {
  return x * n;
}
// CHECK: fixit-unknown-param.cpp:[[@LINE+1]]:17: error: fluxion: 'y' is not a parameter of 'other'{{$}}
[[fluxion::grad("y")]] double other(double x) {
  return x * x;
}
#endif
// CHECK-NOT: error:
// CHECK: 5 errors generated.
// No other fix-it (none for 'nn' and 'y').
// FIXIT-NOT: fix-it:
