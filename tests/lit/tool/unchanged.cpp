// A file without annotations is copied byte for byte, whatever the options,
// even without a final newline and with CRLF line ends.
// RUN: %fluxion-gen %s -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: cmp %s %t.cpp
// RUN: %fluxion-gen %s --no-line -o %t.noline.cpp -- -std=c++17 -I%fluxion-include
// RUN: cmp %s %t.noline.cpp
// RUN: %fluxion-gen %S/Inputs/crlf-no-final-newline.cpp -o %t.crlf.cpp -- -std=c++17
// RUN: cmp %S/Inputs/crlf-no-final-newline.cpp %t.crlf.cpp
// With only a header requested, the header declares nothing.
// RUN: %fluxion-gen %s --declarations %t.hpp -- -std=c++17 -I%fluxion-include > %t.stdout
// RUN: count 0 < %t.stdout
// RUN: %FileCheck %s --check-prefix=HEADER < %t.hpp
#include <fluxion/fluxion.hpp>

#include <cmath>

// Uses the runtime but asks for no derivative.
double plain(double x) { return std::sin(x) * fluxion::stop_gradient(x); }

// HEADER:      #ifndef FLUXION_GENERATED_UNCHANGED_CPP_TMP_HPP
// HEADER-NEXT: #define FLUXION_GENERATED_UNCHANGED_CPP_TMP_HPP
// HEADER-EMPTY:
// HEADER-NEXT: #endif // FLUXION_GENERATED_UNCHANGED_CPP_TMP_HPP
