//===- FluxionConsumer.cpp - The Sema hooks shared by plugin and tool ------===//
#include "FluxionConsumer.h"
#include "CallSites.h"
#include "PluginState.h"
#include "RepeatedDiagnostics.h"
#include "fluxion/engine/SourcePrinter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Sema/ExternalSemaSource.h"
#include "clang/Sema/Sema.h"
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
} // namespace

FluxionConsumer::FluxionConsumer(ConsumerOptions Opts)
    : Opts(std::move(Opts)) {}

FluxionConsumer::~FluxionConsumer() { ForgetSema(); }

void FluxionConsumer::InitializeSema(Sema &S) {
  Sema_ = &S;
  sayFluxionDiagnosticsOnce(S.getDiagnostics());
  Diff = std::make_unique<Differentiator>(S);
  Diff->OnDeclared = Opts.OnDeclared;
  Diff->OnDefined = [this](FunctionDecl *FD) {
    if (Opts.Dump)
      dump(FD);
    // Pass the new definition down the consumer chain (to CodeGen); the
    // chain includes this consumer, which ignores it.
    Forwarding = true;
    Sema_->getASTConsumer().HandleTopLevelDecl(DeclGroupRef(FD));
    Forwarding = false;
    if (Opts.OnGenerated)
      Opts.OnGenerated(FD);
  };
  Sites = std::make_unique<CallSites>(S, *Diff);
  Sites->OnBound = Opts.OnCallSite;
  Sites->Emit = [this](FunctionDecl *FD) {
    Forwarding = true;
    Sema_->getASTConsumer().HandleTopLevelDecl(DeclGroupRef(FD));
    Forwarding = false;
  };
  registerDifferentiator(S, Diff.get());
  S.addExternalSource(new UndefinedFilter(*Diff));
}

void FluxionConsumer::ForgetSema() {
  if (Sema_)
    unregisterDifferentiator(*Sema_);
  Sema_ = nullptr;
}

bool FluxionConsumer::HandleTopLevelDecl(DeclGroupRef DG) {
  if (Forwarding || !Diff)
    return true;
  for (Decl *D : DG) {
    visit(D);
    Sites->visit(D);
  }
  return true;
}

void FluxionConsumer::HandleTranslationUnit(ASTContext &) {
  if (!Diff)
    return;
  Diff->finish();
  Sites->finish();
  if (Opts.OnFinished)
    Opts.OnFinished(*Sema_, *Diff);
}

void FluxionConsumer::dump(FunctionDecl *FD) {
  // The same printing as fluxion-gen's, without #line directives: the
  // source lines are quoted in comments.
  SourcePrintOptions PrintOpts;
  PrintOpts.LineDirectives = false;
  SourcePrinter Printer(FD->getASTContext(), PrintOpts);
  std::string Code;
  llvm::raw_string_ostream OS(Code);
  Printer.printDefinition(FD, OS);
  llvm::errs() << formatLLVMStyle(Code) << "\n";
}

void FluxionConsumer::visit(Decl *D) {
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

} // namespace fluxion
