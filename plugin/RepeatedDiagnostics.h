//===- RepeatedDiagnostics.h - Say each Fluxion error once ------*- C++ -*-===//
//
// A function with several annotations ([[fluxion::grad]] [[fluxion::jvp]])
// or several instantiations is lowered once per derivative, and a construct
// it refuses is refused by each: the same error at the same place, with the
// same notes, once per derivative. The filter installed here lets the first
// through and drops exact repeats of Fluxion's own diagnostics with their
// notes; Clang's diagnostics pass untouched.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_PLUGIN_REPEATEDDIAGNOSTICS_H
#define FLUXION_PLUGIN_REPEATEDDIAGNOSTICS_H

namespace clang {
class DiagnosticsEngine;
} // namespace clang

namespace fluxion {

/// Puts the filter in front of D's client (once per engine).
void sayFluxionDiagnosticsOnce(clang::DiagnosticsEngine &D);

} // namespace fluxion

#endif
