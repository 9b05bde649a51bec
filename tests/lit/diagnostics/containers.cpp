// std::vector and std::array parameters and locals are differentiated as
// storage plus a size. Size changes the engine does not follow and
// containers inside classes are located errors in the user's words (no
// library internals), each with advice that works.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
#include <fluxion/fluxion.hpp>
#include <functional>
#include <numeric>
#include <vector>

// A function called from differentiated code that changes the size of its
// std::vector parameter: refused at the call (the annotated function itself
// may: tests/numeric/container_sizes_test.cpp). The advice compiles.
static void fill(std::vector<double> &y, double v) {
  y.clear();
  y.push_back(v);
}
static void fill_sized(std::vector<double> &y, double v) { y[0] = v; }
[[fluxion::grad]] double fills(const std::vector<double> &x) {
  std::vector<double> t(1);
  // CHECK: containers.cpp:[[@LINE+1]]:3: error: fluxion: calling 'fill', which changes the size of its std::vector parameter 'y', from differentiated code is not supported in a differentiated function; size the vector before the call and assign its elements in 'fill'
  fill(t, x[0]);
  fill_sized(t, x[1]);
  return t[0];
}

// Iterators and algorithms: tests/lit/diagnostics/iterators.cpp.

// Size changes other than resize, assign, clear, pop_back, push_back,
// insert and erase of one value or range, and assignments from a container
// variable or a braced list.
std::vector<double> twice(const std::vector<double> &x);
[[fluxion::grad]] double reshapes(const std::vector<double> &x) {
  std::vector<double> t(x.size());
  // CHECK: containers.cpp:[[@LINE+1]]:5: error: fluxion: this form of 'operator=' on 't' (a 'std::vector<double>') is not supported in a differentiated function; use resize(n), resize(n, v), assign(n, v), clear(), pop_back(), push_back(v), insert(p, v), insert(p, n, v), insert(p, b, e), insert(p, {a, b}), erase(p), erase(p, q), assign(b, e), swap(u), or assign another container variable or a braced list ('t = x;', 't = {a, b};')
  t = twice(x);
  // CHECK: containers.cpp:[[@LINE+1]]:5: error: fluxion: 'insert' into 't' from iterators of two containers or of itself is not supported in a differentiated function; give the range of another container ('t.insert(p, x.begin(), x.end())'), or copy the elements in a loop
  t.insert(t.begin(), t.begin(), t.end());
  return t[0];
}

// A container passed by value that the function writes is its copy.
// CHECK-NOT: while differentiating 'writes_copy'
[[fluxion::grad]] double writes_copy(std::vector<double> x) {
  x[0] = 2;
  return x[0];
}

// Containers held by containers or by objects are read and written by
// element; what would need a new one, or change its size, is refused.
struct Net {
  std::vector<double> w;
  double b;
};
static double total(std::vector<double> &v) { return v[0]; }
[[fluxion::grad]] double member(const Net &n, std::vector<std::vector<double>> &m) {
  // CHECK: containers.cpp:[[@LINE+1]]:7: error: fluxion: making or copying an object of class 'Net', which holds a container ('w') is not supported in a differentiated function; read and write the original through a reference ('const Net &' or 'Net &'), or pass the container as a parameter of its own
  Net c = n;
  // CHECK: containers.cpp:[[@LINE+1]]:8: error: fluxion: calling 'push_back' on a 'std::vector<double>' held by another container or by an object is not supported in a differentiated function; read and write its elements ('x[i]', size(), front(), back()); its size cannot change in differentiated code
  m[0].push_back(n.b);
  // CHECK: containers.cpp:[[@LINE+1]]:17: error: fluxion: an iterator of a container that is not a variable of the function (a member, an element of another container, a temporary) is not supported in a differentiated function; pass the container to the function as a parameter of its own, or index it
  auto it = n.w.begin();
  // CHECK: containers.cpp:[[@LINE+1]]:16: error: fluxion: passing a 'std::vector<double>' held by another container or by an object to a parameter that may write it is not supported in a differentiated function; take the parameter as a const reference, or write the elements where the container is held
  return total(m[1]) + n.w[0] + c.b + *it;
}

// A local std::vector of objects of reals is sized where it is declared or
// filled by push_back; its size changes, a swap and a declaration inside a
// loop are refused with the spelling that works.
struct Body {
  double m;
};
[[fluxion::grad]] double bodies(const std::vector<Body> &bs) {
  std::vector<Body> copy(bs.size());
  // CHECK: containers.cpp:[[@LINE+1]]:8: error: fluxion: calling 'resize' on 'copy', a std::vector of objects ('Body'), to change its size or all of it is not supported in a differentiated function; size it where it is declared ('std::vector<Body> v(n);') or fill it by push_back, and assign its elements' members
  copy.resize(2);
  std::vector<Body> other(2);
  // CHECK: containers.cpp:[[@LINE+1]]:3: error: fluxion: swapping two std::vectors of objects ('Body') is not supported in a differentiated function; exchange the elements' members in a loop ('double x = t[i].x; t[i].x = u[i].x; u[i].x = x;')
  std::swap(copy, other);
  double s = 0;
  for (int i = 0; i < 2; ++i) {
    // CHECK: containers.cpp:[[@LINE+1]]:23: error: fluxion: a local 'std::vector<Body>' ('each') declared inside a loop is not supported in a differentiated function; declare it before the loop and assign its elements in the loop
    std::vector<Body> each(1);
    s += each[0].m;
  }
  return bs[0].m + copy[0].m + s;
}

// f_hvp through a callee whose local vector changes size: refused at the call;
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
  // CHECK: containers.cpp:[[@LINE+1]]:10: error: fluxion: a second derivative (f_hvp, f_hessian) through 'squares', which changes the size of its local std::vector 'r' is not supported in a differentiated function; size the vector where it is declared ('std::vector<double> t(n);') and assign its elements, or differentiate once
  return squares(x) + squares_sized(x);
}

// A function returning a std::vector by value is inlined, its returned
// local (or a new one holding its braced list) becoming the caller's
// variable.
static std::vector<double> pair(double a, double b) { return {a, b}; }
// CHECK-NOT: while differentiating 'paired'
[[fluxion::grad]] double paired(double x) {
  std::vector<double> p = pair(x, 2 * x);
  return p[0] * p[1];
}

// A local container whose elements hold containers of their own: each
// element's adjoint would need a size of its own. Refused at the
// declaration; the advice (one flat std::vector, or a parameter) compiles:
// tests/numeric/nested_containers_test.cpp.
[[fluxion::grad]] double rows_of_products(const std::vector<double> &x) {
  // CHECK: containers.cpp:[[@LINE+1]]:36: error: fluxion: a local 'std::vector<std::vector<double>>' ('rows') whose elements hold containers of their own is not supported in a differentiated function; keep all the numbers in one std::vector (element (i, j) at [i * m + j]), or take the container as a parameter ('const std::vector<std::vector<double>> &')
  std::vector<std::vector<double>> rows;
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<double> r;
    for (std::size_t j = 0; j <= i; ++j)
      r.push_back(x[j] * x[i]);
    rows.push_back(r);
  }
  double s = 0;
  for (const auto &r : rows)
    for (double v : r)
      s += v * v;
  return s;
}

// emplace_back with a constructor's arguments: the advice builds the
// object in the call, which push_back takes.
struct Pt {
  double x, y;
  Pt(double a, double b) : x(a), y(b) {}
};
[[fluxion::grad]] double emplaced(double k) {
  std::vector<Pt> v;
  // CHECK: containers.cpp:[[@LINE+1]]:5: error: fluxion: emplace_back with the arguments of a constructor of 'Pt' is not supported in a differentiated function; build the object in the call ('v.push_back(Pt(...))')
  v.emplace_back(k, 2 * k);
  v.push_back(Pt(k, k * k));
  return v[0].x * v[1].y;
}

// A container of a class that itself holds a container: the message names
// the member, and a plain array member works instead.
struct Holder {
  std::vector<double> p;
  double m;
};
// CHECK: containers.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'potential': parameter 'bs' of type 'const std::vector<Holder> &' cannot be differentiated yet (its elements are 'Holder', a class holding a container (member 'p'), and containers of such classes are not followed yet, where a class with a plain array member ('double p[2]') is)
[[fluxion::grad]] double potential(const std::vector<Holder> &bs) {
  return bs[0].m * bs[1].p[0];
}
