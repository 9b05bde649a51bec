//===- FluxionConsumer.h - The Sema hooks shared by plugin and tool -*- C++ -*-===//
//
// A SemaConsumer that owns the compilation's Differentiator: it sees each
// top-level declaration as soon as it is complete (and defines the
// derivatives of the annotated ones), hands every generated function down
// the consumer chain (to CodeGen in the plugin), and finishes pending work
// at the end of the translation unit. The plugin and fluxion-gen both run it.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_PLUGIN_FLUXIONCONSUMER_H
#define FLUXION_PLUGIN_FLUXIONCONSUMER_H

#include "fluxion/engine/Differentiator.h"

#include "clang/Sema/SemaConsumer.h"

#include <functional>
#include <memory>

namespace clang {
class CallExpr;
} // namespace clang

namespace fluxion {

class CallSites;

struct ConsumerOptions {
  /// Print every generated function to stderr.
  bool Dump = false;
  /// Called with each generated function once its body is set, after it
  /// has been handed down the consumer chain.
  std::function<void(clang::FunctionDecl *)> OnGenerated;
  /// Called with each function the engine declares and the function it is
  /// declared next to.
  std::function<void(clang::FunctionDecl *, clang::FunctionDecl *)> OnDeclared;
  /// Called at the end of the translation unit, once every derivative is
  /// defined, before the rest of the consumer chain sees its end.
  std::function<void(clang::Sema &, const Differentiator &)> OnFinished;
  /// Called with each call-site form (fluxion::grad(f), ...) and the
  /// generated function whose address it now passes.
  std::function<void(const clang::CallExpr *, clang::FunctionDecl *,
                     const clang::Decl *)>
      OnCallSite;
};

class FluxionConsumer : public clang::SemaConsumer {
public:
  explicit FluxionConsumer(ConsumerOptions Opts);
  ~FluxionConsumer() override;

  void InitializeSema(clang::Sema &S) override;
  void ForgetSema() override;
  bool HandleTopLevelDecl(clang::DeclGroupRef DG) override;
  void HandleTranslationUnit(clang::ASTContext &) override;

  /// The engine of this compilation (null before InitializeSema).
  Differentiator *differentiator() { return Diff.get(); }

private:
  void visit(clang::Decl *D);
  void dump(clang::FunctionDecl *FD);

  ConsumerOptions Opts;
  clang::Sema *Sema_ = nullptr;
  std::unique_ptr<Differentiator> Diff;
  std::unique_ptr<CallSites> Sites;
  bool Forwarding = false;
};

} // namespace fluxion

#endif
