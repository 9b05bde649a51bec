// Range-based for over an array of known size is the counted index loop
// (numeric tests); over anything else, or over an array the loop could move,
// it is a located error that says what to write instead.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
#include <fluxion/fluxion.hpp>

#include <initializer_list>
#include <vector>

std::vector<double> weights;

[[fluxion::grad]] double over_vector(double y) {
  double s = 0;
  // CHECK: range-for.cpp:[[@LINE+1]]:19: error: fluxion: a range-based for over 'weights', a container that is not a variable of the function is not supported in a differentiated function; pass the container to the function as a parameter of its own
  for (double w : weights)
    s += w * y;
  return s;
}
// CHECK: note: while differentiating 'over_vector'

[[fluxion::grad]] double over_braced_list(double a, double b) {
  double s = 0;
  // CHECK: range-for.cpp:[[@LINE+1]]:19: error: fluxion: a range-based for over a braced list is not supported in a differentiated function; put the values in a local array ('double v[] = {...};') and loop over that
  for (double v : {a, b, a * b})
    s += v * v;
  return s;
}
// CHECK: note: while differentiating 'over_braced_list'

// The row the loop ranges over would change under it.
[[fluxion::grad]] double moving_row(double x) {
  double m[2][2] = {{x, 1}, {2, x}};
  int i = 0;
  double s = 0;
  // CHECK: range-for.cpp:[[@LINE+1]]:19: error: fluxion: a range-based for over 'm[i]' ('i', which chooses the place, changes while it is in use) is not supported in a differentiated function; write an index loop ('for (int i = 0; i < n; ++i)') and index the array at each use
  for (double v : m[i]) {
    s += v;
    i = 1;
  }
  return s;
}
// CHECK: note: while differentiating 'moving_row'

// A row chosen by a value read from memory.
[[fluxion::grad]] double row_from_memory(double x, const int *which) {
  double m[2][2] = {{x, 1}, {2, x}};
  double s = 0;
  // CHECK: range-for.cpp:[[@LINE+1]]:19: error: fluxion: a range-based for over 'm[which[0]]' (it is chosen by a value read from memory) is not supported in a differentiated function
  for (double v : m[which[0]])
    s += v * x;
  return s;
}
// CHECK: note: while differentiating 'row_from_memory'

// Rows copied by value decay to pointers.
[[fluxion::grad]] double rows_by_value(double x) {
  double m[2][2] = {{x, 1}, {2, x}};
  double s = 0;
  // CHECK: range-for.cpp:[[@LINE+1]]:13: error: fluxion: loop variable 'row' of type 'double *' is not supported in a differentiated function; loop over the rows by reference ('auto &row')
  for (auto row : m)
    s += row[0];
  return s;
}
// CHECK: note: while differentiating 'rows_by_value'

struct P2 {
  double x, y;
};
[[fluxion::grad]] double structured_binding(double x) {
  P2 ps[2] = {{x, 1}, {2, x}};
  double s = 0;
  // CHECK: range-for.cpp:[[@LINE+1]]:13: error: fluxion: a structured binding as the variable of a range-based for is not supported in a differentiated function; name the element ('const auto &e') and use its members
  for (auto [a, b] : ps)
    s += a * b;
  return s;
}
// CHECK: note: while differentiating 'structured_binding'
// CHECK: 6 errors generated.
