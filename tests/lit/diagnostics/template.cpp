// Annotated function templates get derivative templates; an instance the
// program uses that cannot be differentiated is a located error at the
// annotation, with a note at the use that needs it. Forms not supported yet
// are refused where they are annotated.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
#include <fluxion/fluxion.hpp>

template <class T>
// CHECK: template.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'cube': the return type of an annotated function template must be written out (e.g. 'T'), not deduced from 'auto'
[[fluxion::grad]] auto cube(T x) {
  return x * x * x;
}

struct Model {
  template <class T>
  // CHECK: template.cpp:[[@LINE+1]]:5: error: fluxion: cannot generate derivatives of 'loss': {{\[\[}}fluxion::grad]] on a member function template is not supported yet; annotate a free function template that takes the object as a parameter
  [[fluxion::grad]] T loss(T x) const { return x * w; }
  double w = 2;
};

template <class T>
// CHECK: template.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'sq<int>': it has no floating-point parameter to differentiate with respect to
[[fluxion::grad]] T sq(T x) {
  return x * x;
}

double use_sq(double v) {
  int d = 0;
  // CHECK: template.cpp:[[@LINE+1]]:3: note: a derivative of 'sq<int>' is needed here
  sq_grad(3, &d);
  double dv = 0;
  sq_grad(v, &dv); // fine: double
  return dv;
}

// CHECK: 3 errors generated.
