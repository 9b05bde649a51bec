// std::vector and std::array parameters and locals are differentiated as
// storage plus a size. What would change a container's size, local
// containers in loops, and containers
// inside classes are located errors in the user's words (no
// library internals), each with advice that works.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
#include <fluxion/fluxion.hpp>
#include <functional>
#include <numeric>
#include <vector>

[[fluxion::grad]] double grows(std::vector<double> &x) {
  // CHECK: containers.cpp:[[@LINE+1]]:5: error: fluxion: calling 'push_back' on 'x' (a 'std::vector<double>': a call that changes its size or all of it) is not supported in a differentiated function; size the container where it is declared ('std::vector<double> t(n);') and assign its elements ('t[i] = ...')
  x.push_back(1.0);
  return x[0];
}

// Iterators and algorithms: tests/lit/diagnostics/iterators.cpp.

[[fluxion::grad]] double in_loop(const std::vector<double> &x) {
  double s = 0;
  for (int r = 0; r < 3; ++r) {
    // CHECK: containers.cpp:[[@LINE+1]]:25: error: fluxion: a local 'std::vector<double>' ('t') declared inside a loop is not supported in a differentiated function; declare it before the loop and assign its elements in the loop
    std::vector<double> t(x.size());
    t[0] = x[0];
    s += t[0];
  }
  return s;
}

[[fluxion::grad]] double assigned(const std::vector<double> &x) {
  std::vector<double> t(x.size());
  // CHECK: containers.cpp:[[@LINE+1]]:5: error: fluxion: calling 'operator=' on 't' (a 'std::vector<double>': a call that changes its size or all of it) is not supported in a differentiated function; size the container where it is declared ('std::vector<double> t(n);') and assign its elements ('t[i] = ...')
  t = x;
  return t[0];
}

// CHECK: containers.cpp:[[@LINE+1]]:58: error: fluxion: writing to parameter 'x', a container passed by value is not supported in a differentiated function; take it as 'const std::vector<double> &' and write the results to a container parameter of their own ('std::vector<double> &')
[[fluxion::grad]] double writes_copy(std::vector<double> x) {
  x[0] = 2;
  return x[0];
}

struct Net {
  std::vector<double> w;
};
// CHECK: containers.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'member': parameter 'n' of type 'const Net &' cannot be differentiated yet (member 'w' is a 'std::vector<double>': containers inside classes are not followed yet); pass each container of real numbers as a parameter of its own ('const std::vector<double> &w')
[[fluxion::grad]] double member(const Net &n) { return n.w[0]; }

// CHECK: containers.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'nested': parameter 'm' of type 'const std::vector<std::vector<double>{{ ?}}> &' cannot be differentiated yet (its elements are 'std::vector<double>': containers of containers or of classes are not followed yet); pass each container of real numbers as a parameter of its own ('const std::vector<double> &w')
[[fluxion::grad]] double nested(const std::vector<std::vector<double>> &m) {
  return m[0][0];
}

// Containers of objects of reals are parameters' storage; a local one is
// refused with the spelling that works.
struct Body {
  double m;
};
[[fluxion::grad]] double bodies(const std::vector<Body> &bs) {
  // CHECK: containers.cpp:[[@LINE+1]]:21: error: fluxion: a local 'std::vector<Body>' ('copy') is not supported in a differentiated function; take it as a parameter, or use a local array of 'Body'
  std::vector<Body> copy(bs.size());
  return bs[0].m + copy.size();
}

// f_hvp through a callee that grows a local vector: refused at the call;
// following the advice (size it, assign its elements) compiles.
static double squares(const std::vector<double> &x) {
  std::vector<double> r;
  for (double v : x)
    r.push_back(v * v);
  return r[0] + r.back();
}
static double squares_sized(const std::vector<double> &x) {
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    r[i] = x[i] * x[i];
  return r[0] + r.back();
}
[[fluxion::hessian]] double second(const std::vector<double> &x) {
  // CHECK: containers.cpp:[[@LINE+1]]:10: error: fluxion: a second derivative (f_hvp, f_hessian) through 'squares', which grows a local std::vector with push_back is not supported in a differentiated function; size the vector where it is declared ('std::vector<double> t(n);') and assign its elements, or differentiate once
  return squares(x) + squares_sized(x);
}
