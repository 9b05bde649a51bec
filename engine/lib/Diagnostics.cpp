//===- Diagnostics.cpp - Texts of Fluxion's diagnostics --------------------===//
#include "fluxion/engine/Diagnostics.h"

using namespace clang;

namespace fluxion {

namespace {
struct DiagInfo {
  DiagnosticsEngine::Level Level;
  const char *Text;
};
} // namespace

static DiagInfo info(Diag Kind) {
  using L = DiagnosticsEngine::Level;
  switch (Kind) {
  case Diag::UnsupportedStmt:
    return {L::Error, "fluxion: cannot differentiate through this '%0' statement; "
                      "restructure the code or move it into a function with a "
                      "custom derivative (fluxion::custom::..._vjp)"};
  case Diag::UnsupportedExpr:
    return {L::Error, "fluxion: cannot differentiate expression of kind '%0'; "
                      "wrap it in fluxion::stop_gradient if no derivative "
                      "should flow through it"};
  case Diag::UnsupportedCast:
    return {L::Error, "fluxion: cannot differentiate through a conversion of "
                      "kind '%0'"};
  case Diag::UnsupportedType:
    return {L::Error, "fluxion: %1 of type %0 is not supported in a "
                      "differentiated function (supported: floating and "
                      "integer scalars, fixed-size arrays of them, pointer "
                      "parameters)"};
  case Diag::IncrementInExpr:
    return {L::Error, "fluxion: assignments and increments inside a larger "
                      "expression are not supported; write them as separate "
                      "statements"};
  case Diag::NoDerivative:
    return {L::Error, "fluxion: cannot differentiate call to %0: its body is "
                      "not visible and no custom derivative matches; define "
                      "'fluxion::custom::%1' or wrap the call in "
                      "fluxion::stop_gradient"};
  case Diag::IndirectCall:
    return {L::Error, "fluxion: cannot differentiate a call through a function "
                      "pointer; call the function by name"};
  case Diag::ReferenceParam:
    return {L::Error, "fluxion: cannot differentiate call to %0: passing "
                      "arguments by reference is not supported; pass a pointer"};
  case Diag::NotDifferentiable:
    return {L::Error, "fluxion: cannot generate derivatives of %0: %1"};
  case Diag::UnknownParam:
    return {L::Error, "fluxion: '%0' is not a parameter of %1"};
  case Diag::BadAttributeArg:
    return {L::Error, "fluxion: the arguments of '%0' must be string literals "
                      "naming parameters, e.g. [[%0(\"x\", \"w\")]]"};
  case Diag::TemplateNotSupported:
    return {L::Error, "fluxion: '%0' on a template is not supported yet; "
                      "annotate a non-template wrapper function"};
  case Diag::StaticLocal:
    return {L::Error, "fluxion: cannot differentiate through static local "
                      "variable %0; make it a parameter"};
  case Diag::MissingBody:
    return {L::Error, "fluxion: cannot generate derivatives of %0: its body "
                      "is not defined in this translation unit"};
  case Diag::OverwrittenMemory:
    return {L::Error, "fluxion: cannot differentiate call to %0: it overwrites "
                      "memory of '%1' whose earlier values the derivative "
                      "still needs; pass a local copy to the call"};
  case Diag::InternalError:
    return {L::Error, "fluxion: internal error while generating code (%0); "
                      "please report this with the input"};
  case Diag::NoteDifferentiating:
    return {L::Note, "while differentiating %0"};
  case Diag::NoteCalledFrom:
    return {L::Note, "%0 is differentiated because it is called here"};
  }
  return {L::Error, "fluxion: unknown error"};
}

unsigned DiagReporter::FluxionErrors = 0;

DiagnosticBuilder DiagReporter::report(SourceLocation Loc, Diag Kind) {
  DiagInfo I = info(Kind);
  if (I.Level == DiagnosticsEngine::Error)
    ++FluxionErrors;
  // Custom IDs are keyed by their format string: one per text.
  unsigned ID = Engine.getDiagnosticIDs()->getCustomDiagID(
      static_cast<DiagnosticIDs::Level>(I.Level), I.Text);
  return Engine.Report(Loc, ID);
}

} // namespace fluxion
