// The model term of the consumer test: run.sh edits this header between two
// builds (x * x becomes x * x * x), so a stale fluxion-gen output would give
// the old derivative.
#pragma once

inline double model_term(double x) { return CONSUMER_SCALE * x * x; }
inline double model_term_derivative(double x) { return CONSUMER_SCALE * 2 * x; }
