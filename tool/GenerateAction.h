//===- GenerateAction.h - fluxion-gen's frontend action --------*- C++ -*-===//
//
// Parses one translation unit with the plugin's glue (attributes, Sema
// hooks, engine) and no code generation, follows where the engine declares
// and defines each function, and prints the result as source.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_TOOL_GENERATEACTION_H
#define FLUXION_TOOL_GENERATEACTION_H

#include "fluxion/engine/SourcePrinter.h"

#include "clang/Tooling/Tooling.h"

#include <string>

namespace fluxion {

/// What fluxion-gen made of one translation unit.
struct GeneratedOutput {
  /// The input with the generated functions inserted.
  std::string Source;
  /// The declarations other translation units can call.
  std::string Declarations;
  /// False if the translation unit had errors: nothing was generated.
  bool Complete = false;
  /// True if Source differs from the input (functions were generated or
  /// annotations commented out).
  bool Generated = false;
};

class GenerateActionFactory : public clang::tooling::FrontendActionFactory {
public:
  GenerateActionFactory(SourcePrintOptions Opts, GeneratedOutput &Output)
      : Opts(Opts), Output(Output) {}

  std::unique_ptr<clang::FrontendAction> create() override;

private:
  SourcePrintOptions Opts;
  GeneratedOutput &Output;
};

} // namespace fluxion

#endif
