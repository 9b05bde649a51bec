// The call-site form fluxion::grad(f) (vjp, jvp, hessian, ...): a function
// the form cannot know, names that are not literals or not parameters, and
// derivatives the function does not have are located errors at the form;
// calls of the derivative object whose arguments do not fit the generated
// function are located errors at the call (reported at the end of the
// file, once every call is known), with a note at the form.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
#include <fluxion/fluxion.hpp>

double f(double x, const double *w, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += w[i] * x;
  return s;
}
void out(const double *x, double *y) { y[0] = x[0] * x[1]; }
double g(double a, double b) { return a * b; }
double k(double a, float b) { return a * b; }

void through_a_pointer() {
  double (*p)(double, double) = g;
  // CHECK: call-site.cpp:[[@LINE+1]]:27: error: fluxion: fluxion::grad needs the function itself, named in the call (f or &f): which function a pointer variable holds is not known when compiling
  auto dp = fluxion::grad(p);
  (void)dp;
}

void names(const char *which) {
  // CHECK: call-site.cpp:[[@LINE+1]]:28: error: fluxion: the parameter names given to fluxion::vjp must be string literals, e.g. fluxion::vjp(f, "x")
  auto a = fluxion::vjp(g, which);
  // CHECK: call-site.cpp:[[@LINE+1]]:28: error: fluxion: 'c' is not a parameter of 'g'
  auto b = fluxion::vjp(g, "c");
  (void)a;
  (void)b;
}

void by_reference_capture() {
  double c = 2;
  // CHECK: call-site.cpp:[[@LINE+1]]:14: error: fluxion: a lambda given to fluxion::grad (vjp, jvp, ...) that captures 'c' by reference is not supported in a differentiated function; capture it by copy ([c])
  auto f = [&c](double x) { return c * x; };
  auto df = fluxion::grad(f);
  (void)df;
}

void missing_derivatives() {
  // CHECK: call-site.cpp:[[@LINE+1]]:12: error: fluxion: cannot generate derivatives of 'out': it does not return a scalar: use fluxion::vjp, whose seed weighs the result
  auto a = fluxion::grad(out);
  // CHECK: call-site.cpp:[[@LINE+1]]:12: error: fluxion: cannot generate derivatives of 'f': a dense Hessian needs every differentiated parameter to be a scalar or a fixed-size array; use fluxion::hvp
  auto b = fluxion::hessian(f);
  (void)a;
  (void)b;
}

void arguments_do_not_fit(double *w, float *fw) {
  auto df = fluxion::grad(f);
  double dx = 0;
  df(1.0, w, 3, &dx, fw);
  // CHECK: call-site.cpp:[[@LINE-1]]:3: error: fluxion: the derivative made by fluxion::grad is called with arguments of types (double, const double *, int, double *, float *), which the generated 'f_grad' does not take: it takes (double, const double *, int, double *, double *)
  // CHECK: call-site.cpp:[[@LINE-4]]:13: note: the derivative is made here
}

void too_few_arguments(double *w) {
  auto dfx = fluxion::grad(f, "x");
  dfx(1.0, w, 3);
  // CHECK: call-site.cpp:[[@LINE-1]]:3: error: fluxion: the derivative made by fluxion::grad is called with arguments of types (double, const double *, int), which the generated 'f_grad' does not take: it takes (double, const double *, int, double *)
  // CHECK: call-site.cpp:[[@LINE-3]]:14: note: the derivative is made here
}

// Objects of one type (one function, as many names) that may hold
// derivatives of different signatures: the template cannot tell them apart.
template <class D> void call_either(D d) {
  double da = 0;
  d(1.0, 2.0f, &da);
  // CHECK: call-site.cpp:[[@LINE-1]]:3: error: fluxion: this derivative object may hold 'k_grad' or 'k_grad', whose parameters differ, and where it was made is not visible here (it comes through a parameter); call it through a variable initialised where it is made
}
void ambiguous() {
  auto a = fluxion::grad(k, "a");
  auto b = fluxion::grad(k, "b");
  // CHECK: call-site.cpp:[[@LINE-2]]:12: note: the derivative is made here
  // CHECK: call-site.cpp:[[@LINE-2]]:12: note: the derivative is made here
  call_either(a);
  (void)b;
}
