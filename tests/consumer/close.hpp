// Next to main.cpp, included with quotes: the output of fluxion-gen, written
// in the build tree, must still find it.
#pragma once

#include <cmath>

inline bool near_equal(double a, double b) {
  return std::fabs(a - b) <= 1e-12 * (1 + std::fabs(b));
}
