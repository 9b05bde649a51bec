// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// What is refused is named as the user wrote it, never by Clang's names for
// expressions and conversions.

// CHECK-NOT: BinaryConditionalOperator
// CHECK-NOT: PointerToBoolean
// CHECK-NOT: ToVoid
[[fluxion::grad]] double elvis(double x) {
  // CHECK: user-words.cpp:[[@LINE+1]]:10: error: fluxion: cannot differentiate expression of kind '?: without a middle operand'
  return x ?: 1.0;
}

[[fluxion::grad]] double bits(double x) {
  // CHECK: user-words.cpp:[[@LINE+1]]:12: error: fluxion: cannot differentiate through the conversion from 'double *' to 'long'
  long b = (long)&x;
  return x * b;
}
// CHECK-NOT: error:
// CHECK: 2 errors generated.
