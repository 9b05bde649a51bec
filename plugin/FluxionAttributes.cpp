//===- FluxionAttributes.cpp - The [[fluxion::...]] attribute spellings -----===//
//
// Registers the attribute spellings with Clang and lowers each use to an
// AnnotateAttr (which survives redeclarations and template instantiation),
// then lets the engine declare the derivative functions at once so that code
// after the annotated declaration can call them by name.
//
//===----------------------------------------------------------------------===//
#include "PluginState.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/ParsedAttrInfo.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace fluxion {
namespace {

struct GradAttrInfo : public ParsedAttrInfo {
  GradAttrInfo() {
    static constexpr Spelling S[] = {{ParsedAttr::AS_CXX11, "fluxion::grad"},
                                     {ParsedAttr::AS_GNU, "fluxion_grad"}};
    Spellings = S;
    OptArgs = 15;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isa<FunctionDecl>(D))
      return true;
    S.Diag(Attr.getLoc(), diag::warn_attribute_wrong_decl_type_str)
        << Attr << Attr.isRegularKeywordAttribute() << "functions";
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    auto *FD = cast<FunctionDecl>(D);
    Annotation A;
    A.Loc = Attr.getLoc();
    llvm::SmallVector<Expr *, 4> Args;
    for (unsigned I = 0; I < Attr.getNumArgs(); ++I) {
      auto *SL = Attr.isArgExpr(I) ? dyn_cast<StringLiteral>(
                                         Attr.getArgAsExpr(I)->IgnoreParenCasts())
                                   : nullptr;
      if (!SL) {
        DiagReporter(S.getDiagnostics())
                .report(Attr.isArgExpr(I) ? Attr.getArgAsExpr(I)->getExprLoc()
                                          : Attr.getLoc(),
                        Diag::BadAttributeArg)
            << A.Spelling;
        return AttributeNotApplied;
      }
      A.Params.push_back(SL->getString().str());
      Args.push_back(SL);
    }
    D->addAttr(AnnotateAttr::Create(S.getASTContext(), "fluxion::grad",
                                    Args.data(), Args.size(), Attr.getRange()));
    if (Differentiator *Diff = differentiatorFor(S))
      Diff->annotate(FD, A);
    return AttributeApplied;
  }
};

} // namespace
} // namespace fluxion

static clang::ParsedAttrInfoRegistry::Add<fluxion::GradAttrInfo>
    RegisterGrad("fluxion-grad", "reverse-mode derivatives (f_grad, f_vjp)");
