//===- FluxionPlugin.cpp - Clang plugin entry point -------------------------===//
//
// Runs before the main action as a SemaConsumer: it sees each top-level
// declaration as soon as it is complete (and defines the derivatives of the
// annotated ones), hands every generated function to code generation, and
// finishes pending work at the end of the translation unit.
//
//===----------------------------------------------------------------------===//
#include "PluginState.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Sema/ExternalSemaSource.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaConsumer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace clang;

namespace fluxion {

static std::mutex RegistryMutex;
static llvm::DenseMap<Sema *, Differentiator *> &registry() {
  static llvm::DenseMap<Sema *, Differentiator *> Map;
  return Map;
}

Differentiator *differentiatorFor(Sema &S) {
  std::lock_guard<std::mutex> Lock(RegistryMutex);
  return registry().lookup(&S);
}
void registerDifferentiator(Sema &S, Differentiator *D) {
  std::lock_guard<std::mutex> Lock(RegistryMutex);
  registry()[&S] = D;
}
void unregisterDifferentiator(Sema &S) {
  std::lock_guard<std::mutex> Lock(RegistryMutex);
  registry().erase(&S);
}

namespace {

/// Generated functions may be defined only at the end of the translation
/// unit (after Sema's check for used-but-undefined internal functions):
/// keep them out of that check.
class UndefinedFilter : public ExternalSemaSource {
public:
  explicit UndefinedFilter(const Differentiator &D) : Diff(D) {}
  void ReadUndefinedButUsed(
      llvm::MapVector<NamedDecl *, SourceLocation> &Undefined) override {
    Undefined.remove_if(
        [&](const auto &Entry) { return Diff.isGenerated(Entry.first); });
  }

private:
  const Differentiator &Diff;
};

class FluxionConsumer : public SemaConsumer {
public:
  explicit FluxionConsumer(bool Dump) : Dump(Dump) {}

  void InitializeSema(Sema &S) override {
    Sema_ = &S;
    Diff = std::make_unique<Differentiator>(S);
    if (Dump)
      Diff->Dump = &llvm::errs();
    Diff->OnDefined = [this](FunctionDecl *FD) {
      // Pass the new definition down the consumer chain (to CodeGen); the
      // chain includes this consumer, which ignores it.
      Forwarding = true;
      Sema_->getASTConsumer().HandleTopLevelDecl(DeclGroupRef(FD));
      Forwarding = false;
    };
    registerDifferentiator(S, Diff.get());
    S.addExternalSource(new UndefinedFilter(*Diff));
  }

  void ForgetSema() override {
    if (Sema_)
      unregisterDifferentiator(*Sema_);
    Sema_ = nullptr;
  }

  bool HandleTopLevelDecl(DeclGroupRef DG) override {
    if (Forwarding || !Diff)
      return true;
    for (Decl *D : DG)
      visit(D);
    return true;
  }

  void HandleTranslationUnit(ASTContext &) override {
    if (Diff)
      Diff->finish();
  }

private:
  void visit(Decl *D) {
    if (auto *FD = dyn_cast<FunctionDecl>(D)) {
      Diff->defineFor(FD);
      return;
    }
    // Namespaces arrive whole, at their closing brace.
    if (auto *DC = dyn_cast<DeclContext>(D))
      if (isa<NamespaceDecl, LinkageSpecDecl, ExportDecl>(D))
        for (Decl *Child : DC->decls())
          visit(Child);
  }

  bool Dump;
  Sema *Sema_ = nullptr;
  std::unique_ptr<Differentiator> Diff;
  bool Forwarding = false;
};

class FluxionAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 llvm::StringRef) override {
    return std::make_unique<FluxionConsumer>(Dump);
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
