// Static member functions whose derivatives fluxion-gen cannot declare in
// their class: a class defined in a header (fluxion-gen writes the input
// file only), a class template instance, a class defined inside a function.
// Each is a located error naming the functions and the reason; fluxion-gen
// exits with a failure and writes nothing. The plugin accepts the file.
// RUN: rm -f %t.cpp
// RUN: not %fluxion-gen %s -o %t.cpp -- -std=c++17 -I%fluxion-include 2>&1 | %FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.cpp
// RUN: %clangxx %fluxion -fsyntax-only %s
#include <fluxion/fluxion.hpp>

#include "Inputs/member-header.h"
// CHECK-DAG: member-header.h:3:17: error: fluxion-gen cannot write 'sq_fwd' and 'sq_bwd' as source: they would be members of 'InHeader', which is defined in '{{.*}}member-header.h'; fluxion-gen writes the input file only, so the class must be defined there

template <class T> struct Box {
  static T sq(T v) { return v * v; }
};
// CHECK-DAG: members-errors.cpp:[[#@LINE-2]]:12: error: fluxion-gen cannot write 'sq_fwd' and 'sq_bwd' as source: they would be members of 'Box<double>', a class template or a class inside one; fluxion-gen does not write members of class templates yet

double local(double y) {
  struct Local {
    static double sq(double v) { return v * v; }
  };
  return Local::sq(y);
}
// CHECK-DAG: members-errors.cpp:[[#@LINE-4]]:19: error: fluxion-gen cannot write 'sq_fwd' and 'sq_bwd' as source: they would be members of 'Local', a class defined inside a function, whose members cannot be defined outside it

[[fluxion::grad]] double f(double x) {
  return InHeader::sq(x) + Box<double>::sq(x) + local(x);
}
// CHECK: 3 errors generated.
