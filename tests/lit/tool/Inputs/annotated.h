// An annotated function and its callee in a header: fluxion-gen writes what
// they generate into the main file, after the #include that brings them in.
#ifndef ANNOTATED_H
#define ANNOTATED_H
#include <fluxion/fluxion.hpp>

namespace lib {
inline double scale(double v) { return 3 * v; }
[[fluxion::grad]] double scaled_sq(double x) { return scale(x) * x; }
} // namespace lib
#endif
