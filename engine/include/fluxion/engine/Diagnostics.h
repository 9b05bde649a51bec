//===- Diagnostics.h - The diagnostics Fluxion reports ----------*- C++ -*-===//
//
// Every error the engine reports is listed here once, with its text, so that
// messages stay consistent and the lit tests can find them. Messages name the
// offending construct and say what the user can do about it.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_DIAGNOSTICS_H
#define FLUXION_ENGINE_DIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"

namespace fluxion {

enum class Diag {
  UnsupportedStmt,      ///< %0: statement kind
  UnsupportedExpr,      ///< %0: expression kind
  UnsupportedCast,      ///< %0, %1: the types converted from and to
  UnsupportedType,      ///< %0: type, %1: what has it
  NoDerivative,         ///< %0: callee name
  IndirectCall,         ///< call through a pointer
  NotSupported,         ///< %0: the construct, %1: what to do instead
  AliasedArguments,     ///< %0: callee; %1, %2: parameters given one address
  NotDifferentiable,    ///< %0: function; %1: why
  UnknownParam,         ///< %0: name, %1: function
  UnknownParamSuggest,  ///< %0: name, %1: function, %2: closest parameter
  BadAttributeArg,      ///< %0: attribute
  TemplateNotSupported, ///< %0: attribute
  StaticLocal,          ///< %0: variable
  MissingBody,          ///< %0: function
  OverwrittenMemory,    ///< %0: callee, %1: variable
  CustomMismatch,       ///< %0: rule name, %1: callee, %2: expected signature
  CustomReturnType,     ///< %0: rule, %1: its return type, %2: expected
  CustomUnused,         ///< warning: %0: rule, %1: primal name
  ResidualNoBackward,   ///< %0: forward rule, %1: backward name, %2: expected
  MissingRuntime,       ///< %0: runtime function
  UndifferentiatedOutput, ///< %0: parameter, %1: function, %2: 0 reverse, 1 forward
  GlobalNotGrad,        ///< %0: global variable, %1: attribute
  GlobalInCallee,       ///< %0: callee, %1: global, %2: annotated function
  CheckpointNoBody,     ///< %0: callee that writes memory but has no body
  RevolveNotLoop,       ///< the pragma is not followed by a for loop
  RevolveNotCounted,    ///< %0: why
  RevolveUnknownExtent, ///< %0: pointer variable
  RevolveBadClause,     ///< %0: detail
  InternalError,        ///< %0: detail
  CallSiteNotFunction,  ///< %0: the form (fluxion::grad)
  CallSiteBadName,      ///< %0: the form
  CallSiteMismatch,     ///< %0: form, %1: passed types, %2: generated, %3: its types
  CallSiteUnknown,      ///< a derivative object made in no visible form
  CallSiteAmbiguous,    ///< %0, %1: generated functions of different types
  NoteDifferentiating,  ///< note: %0: function
  NoteCalledFrom,       ///< note: %0: function
  NoteCustomCandidate,  ///< note: %0: candidate rule
  NoteCustomUsedFor,    ///< note: %0: call that needs it
  NoteCustomSignature,  ///< note: %0: the custom rule's full signature
  NoteIncludeRuntime,   ///< note: the runtime's rules are not included
  NoteCallSiteMade,     ///< note: where the derivative object is made
};

/// Reports Fluxion diagnostics through Clang's DiagnosticsEngine.
class DiagReporter {
public:
  explicit DiagReporter(clang::DiagnosticsEngine &D) : Engine(D) {}
  /// Fix-its are streamed into the result (`<< FixItHint::...`): Clang
  /// prints them, applies them with -fixit, and lists them with
  /// -fdiagnostics-parseable-fixits.
  clang::DiagnosticBuilder report(clang::SourceLocation Loc, Diag Kind);
  clang::DiagnosticsEngine &engine() { return Engine; }
  bool hasErrors() const { return Engine.hasErrorOccurred(); }
  /// True if Clang itself (not Fluxion) reported errors: the code is not
  /// valid C++, and differentiating it would only add noise.
  bool clangReportedErrors() const {
    return Engine.getNumErrors() > FluxionErrors;
  }

private:
  clang::DiagnosticsEngine &Engine;
  /// Errors reported through any DiagReporter (one compilation per process).
  static unsigned FluxionErrors;
};

} // namespace fluxion

#endif
