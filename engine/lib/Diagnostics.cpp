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
    return {L::Error, "fluxion: cannot differentiate through the conversion "
                      "from %0 to %1; wrap the expression in "
                      "fluxion::stop_gradient if no derivative should flow "
                      "through it"};
  case Diag::UnsupportedType:
    return {L::Error, "fluxion: %1 of type %0 is not supported in a "
                      "differentiated function (supported: numbers, arrays "
                      "and pointers of them, references, structs and classes "
                      "with floating-point members, std::vector and "
                      "std::array of those, Eigen matrices and arrays)"};
  case Diag::NoDerivative:
    return {L::Error, "fluxion: cannot differentiate call to %0: its body is "
                      "not visible and no custom derivative matches; define "
                      "'fluxion::custom::%1' or wrap the call in "
                      "fluxion::stop_gradient"};
  case Diag::IndirectCall:
    return {L::Error, "fluxion: cannot differentiate a call through a function "
                      "pointer; call the function by name"};
  case Diag::NotSupported:
    return {L::Error, "fluxion: %0 is not supported in a differentiated "
                      "function; %1"};
  case Diag::AliasedArguments:
    return {L::Error, "fluxion: cannot differentiate call to %0: it writes "
                      "through parameter '%1', and the same variable is "
                      "passed as '%2'; derivatives assume that memory a "
                      "function writes is reached through no other "
                      "parameter: pass a copy to one of them"};
  case Diag::NotDifferentiable:
    return {L::Error, "fluxion: cannot generate derivatives of %0: %1"};
  case Diag::UnknownParam:
    return {L::Error, "fluxion: '%0' is not a parameter of %1"};
  case Diag::UnknownParamSuggest:
    return {L::Error, "fluxion: '%0' is not a parameter of %1; did you mean "
                      "'%2'?"};
  case Diag::BadAttributeArg:
    return {L::Error, "fluxion: the arguments of '%0' must be string literals "
                      "naming parameters, e.g. [[%0(\"x\", \"w\")]]"};
  case Diag::TemplateNotSupported:
    return {L::Error, "fluxion: '%0' on a template is not supported yet; "
                      "annotate a non-template wrapper function"};
  case Diag::StaticLocal:
    return {L::Error, "fluxion: cannot differentiate through static local "
                      "variable %0 (derivative code is other functions, "
                      "which cannot reach it); make it a parameter, or a "
                      "variable at namespace scope"};
  case Diag::MissingBody:
    return {L::Error, "fluxion: cannot generate derivatives of %0: its body "
                      "is not defined in this translation unit"};
  case Diag::OverwrittenMemory:
    return {L::Error, "fluxion: cannot differentiate call to %0: it overwrites "
                      "memory of '%1' whose earlier values the derivative "
                      "still needs; pass a local copy to the call"};
  case Diag::CustomMismatch:
    return {L::Error, "fluxion: custom derivative '%0' does not match the "
                      "derivative convention for %1; expected '%2'"};
  case Diag::CustomReturnType:
    return {L::Error, "fluxion: custom derivative %0 returns %1, but the "
                      "convention asks for %2 (the value of the primal "
                      "function for _vjp and _fwd, its tangent for _jvp)"};
  case Diag::CustomUnused:
    return {L::Warning, "fluxion: custom derivative '%0' is never used: no "
                        "differentiated code calls a function '%1' whose "
                        "signature it matches"};
  case Diag::ResidualNoBackward:
    return {L::Error, "fluxion: custom forward part %0 has no matching "
                      "backward part; expected '%2' in namespace "
                      "fluxion::custom"};
  case Diag::MissingRuntime:
    return {L::Error, "fluxion: the runtime function 'fluxion::%0' is not "
                      "declared; #include <fluxion/fluxion.hpp>"};
  case Diag::UndifferentiatedOutput:
    return {L::Error, "fluxion: %1 stores values that depend on its "
                      "differentiated inputs through parameter %0, "
                      "which is not differentiated; add it to the names in "
                      "the annotation so that the derivative receives its "
                      "%select{adjoint|tangent}2 buffer"};
  case Diag::GlobalNotGrad:
    return {L::Error, "fluxion: global variable %0 can be named only in "
                      "fluxion::grad; '%1' differentiates parameters only"};
  case Diag::GlobalInCallee:
    return {L::Error, "fluxion: %0 reads global variable %1, which %2 is "
                      "differentiated with respect to; only %2's own reads "
                      "carry the derivative: read %1 in %2 and pass the "
                      "value to %0"};
  case Diag::CheckpointNoBody:
    return {L::Error, "fluxion: cannot checkpoint this call: %0 may write "
                      "through its pointer arguments and its body is not "
                      "visible, so its writes cannot be undone for "
                      "recomputation"};
  case Diag::RevolveNotLoop:
    return {L::Error, "fluxion: '#pragma fluxion revolve' must be followed "
                      "by a for loop"};
  case Diag::RevolveNotCounted:
    return {L::Error, "fluxion: binomial checkpointing needs a counted loop "
                      "'for (int i = a; i < b; ++i)' whose bound and counter "
                      "the body does not change and that has no break or "
                      "return: %0"};
  case Diag::RevolveUnknownExtent:
    return {L::Error, "fluxion: the loop writes through pointer '%0', whose "
                      "length is unknown; name it in the pragma: "
                      "'#pragma fluxion revolve(snapshots) state(%0, length)'"};
  case Diag::RevolveBadClause:
    return {L::Error, "fluxion: malformed '#pragma fluxion revolve': %0; "
                      "expected '#pragma fluxion revolve(snapshots) "
                      "[state(pointer, length)...]'"};
  case Diag::CallSiteNotFunction:
    return {L::Error, "fluxion: %0 needs the function itself, named in the "
                      "call (f or &f): which function a pointer variable "
                      "holds is not known when compiling"};
  case Diag::CallSiteBadName:
    return {L::Error, "fluxion: the parameter names given to %0 must be "
                      "string literals, e.g. %0(f, \"x\")"};
  case Diag::CallSiteMismatch:
    return {L::Error, "fluxion: the derivative made by %0 is called with "
                      "arguments of types (%1), which the generated '%2' "
                      "does not take: it takes (%3)"};
  case Diag::CallSiteAmbiguous:
    return {L::Error, "fluxion: this derivative object may hold '%0' or '%1', "
                      "whose parameters differ, and where it was made is not "
                      "visible here (it comes through a parameter); call it "
                      "through a variable initialised where it is made"};
  case Diag::CallSiteUnknown:
    return {L::Error, "fluxion: cannot check this call of a derivative made by "
                      "fluxion::grad (vjp, jvp, ...): no call in this file "
                      "makes one of its type; make it in this file, or call "
                      "the generated function by name"};
  case Diag::NoteCallSiteMade:
    return {L::Note, "the derivative is made here"};
  case Diag::InternalError:
    return {L::Error, "fluxion: internal error while generating code (%0); "
                      "please report this with the input"};
  case Diag::NoteDifferentiating:
    return {L::Note, "while differentiating %0"};
  case Diag::NoteCalledFrom:
    return {L::Note, "%0 is differentiated because it is called here"};
  case Diag::NoteCustomCandidate:
    return {L::Note, "candidate custom derivative %0"};
  case Diag::NoteCustomUsedFor:
    return {L::Note, "a derivative of %0 is needed here"};
  case Diag::NoteCustomSignature:
    return {L::Note, "the custom derivative to define in namespace "
                     "fluxion::custom: '%0'"};
  case Diag::NoteIncludeRuntime:
    return {L::Note, "Fluxion's derivatives of <cmath> and standard library "
                     "functions come with '#include <fluxion/fluxion.hpp>', "
                     "which this file does not include"};
  }
  return {L::Error, "fluxion: unknown error"};
}

unsigned DiagReporter::FluxionErrors = 0;

DiagnosticBuilder DiagReporter::report(SourceLocation Loc, Diag Kind) {
  DiagInfo I = info(Kind);
  if (I.Level == DiagnosticsEngine::Error ||
      (I.Level == DiagnosticsEngine::Warning &&
       Engine.getWarningsAsErrors()))
    ++FluxionErrors;
  // Custom IDs are keyed by their format string: one per text.
  unsigned ID = Engine.getDiagnosticIDs()->getCustomDiagID(
      static_cast<DiagnosticIDs::Level>(I.Level), I.Text);
  return Engine.Report(Loc, ID);
}

} // namespace fluxion
