//===- FluxionPlugin.cpp - Clang plugin entry point -------------------------===//
//
// Runs FluxionConsumer before the main action, so that the functions it
// generates reach code generation with the rest of the translation unit.
//
//===----------------------------------------------------------------------===//
#include "FluxionConsumer.h"
#include "SingleCallInlining.h"

#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace fluxion {

namespace {

class FluxionAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 llvm::StringRef) override {
    ConsumerOptions Opts;
    Opts.Dump = Dump;
    // Code generation reads attributes when it emits the bodies of internal
    // functions, at the end of the translation unit: inlining hints set in
    // OnFinished still count. Not at -O0, where nothing else is inlined.
    auto Generated = std::make_shared<std::vector<FunctionDecl *>>();
    Opts.OnGenerated = [Generated](FunctionDecl *FD) {
      Generated->push_back(FD);
    };
    Opts.OnFinished = [Generated](Sema &S, const Differentiator &Diff) {
      if (!S.getLangOpts().Optimize)
        return;
      inlineSingleCallSweeps(
          *Generated,
          [&Diff](const FunctionDecl *FD) { return !Diff.isEntryPoint(FD); },
          S.getASTContext());
    };
    return std::make_unique<FluxionConsumer>(std::move(Opts));
  }

  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    for (const std::string &A : Args) {
      if (A == "dump") {
        Dump = true;
        continue;
      }
      DiagnosticsEngine &D = CI.getDiagnostics();
      D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                 "fluxion: unknown plugin argument '%0' "
                                 "(known: dump)"))
          << A;
      return false;
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

private:
  bool Dump = false;
};

} // namespace
} // namespace fluxion

static FrontendPluginRegistry::Add<fluxion::FluxionAction>
    RegisterAction("fluxion", "Fluxion automatic differentiation");
