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
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/ParsedAttrInfo.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;

namespace fluxion {
namespace {

/// The earlier declaration that FD redeclares, its definition if that
/// comes before FD: a function from a header the user does not own,
/// annotated by a redeclaration (`[[fluxion::grad]] double lib::f(double);`).
/// FD is not linked to its previous declarations yet when its attributes
/// are handled.
static FunctionDecl *earlierDeclaration(Sema &S, FunctionDecl *FD) {
  if (!FD->getDeclName() || FD->getDescribedFunctionTemplate())
    return nullptr;
  LookupResult Prev(S, FD->getDeclName(), FD->getLocation(),
                    Sema::LookupOrdinaryName);
  S.LookupQualifiedName(Prev, FD->getDeclContext());
  for (NamedDecl *ND : Prev) {
    auto *P = dyn_cast<FunctionDecl>(ND->getUnderlyingDecl());
    if (!P || P == FD ||
        !S.getASTContext().hasSameType(P->getType(), FD->getType()))
      continue;
    const FunctionDecl *Def = nullptr;
    return P->isDefined(Def) ? const_cast<FunctionDecl *>(Def) : P;
  }
  return nullptr;
}

/// Fluxion's attributes all apply to functions only.
class FunctionAttrInfo : public ParsedAttrInfo {
public:
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isa<FunctionDecl>(D))
      return true;
    S.Diag(Attr.getLoc(), diag::warn_attribute_wrong_decl_type_str)
        << Attr << Attr.isRegularKeywordAttribute() << "functions";
    return false;
  }
};

/// One [[fluxion::NAME]] annotation. Clang 19 parses the arguments of a C++11
/// attribute only if its unscoped name is a known spelling, hence the extra
/// unscoped spelling (unscoped uses are rejected in handleDeclAttribute).
class FluxionAttrInfo : public FunctionAttrInfo {
public:
  FluxionAttrInfo(Annotation::Kind K, llvm::ArrayRef<Spelling> S,
                  const char *Name)
      : K(K), Name(Name) {
    Spellings = S;
    OptArgs = 15;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    auto *FD = cast<FunctionDecl>(D);
    if (Attr.getSyntax() == AttributeCommonInfo::AS_CXX11 &&
        (!Attr.getScopeName() || Attr.getScopeName()->getName() != "fluxion")) {
      S.Diag(Attr.getLoc(), diag::warn_unknown_attribute_ignored)
          << Attr << Attr.getRange();
      return AttributeNotApplied;
    }
    // A redeclaration that leaves its parameters unnamed (as one written
    // for a library function usually does) takes the earlier declaration's
    // names, so that the annotation can name them and the generated d_ and
    // t_ parameters are named after them.
    FunctionDecl *Earlier = earlierDeclaration(S, FD);
    if (Earlier)
      for (unsigned I = 0; I < FD->getNumParams(); ++I)
        if (FD->getParamDecl(I)->getName().empty())
          FD->getParamDecl(I)->setDeclName(
              Earlier->getParamDecl(I)->getDeclName());
    Annotation A;
    A.K = K;
    A.Spelling = Name;
    A.Loc = Attr.getLoc();
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
      A.ParamLocs.push_back(SL->getBeginLoc());
    }
    // The parameter list is kept in the annotation's text, e.g.
    // "fluxion::grad(x,w)", so that it needs no expressions CodeGen would
    // have to evaluate.
    std::string Text = A.Spelling;
    if (!A.Params.empty())
      Text += "(" + llvm::join(A.Params, ",") + ")";
    D->addAttr(AnnotateAttr::CreateImplicit(S.getASTContext(), Text, nullptr,
                                            0, Attr.getRange()));
    // Clang drops an attribute that a redeclaration adds after the
    // definition, warning that it "must precede definition"; the
    // annotation is not ignored (the derivatives are generated), and
    // fluxion-gen needs it on the redeclaration to comment it out. The
    // definition carries it too, which keeps it there.
    if (Earlier && Earlier->isThisDeclarationADefinition())
      Earlier->addAttr(AnnotateAttr::CreateImplicit(S.getASTContext(), Text,
                                                nullptr, 0, Attr.getRange()));
    if (Differentiator *Diff = differentiatorFor(S))
      Diff->annotate(FD, A);
    return AttributeApplied;
  }

private:
  Annotation::Kind K;
  const char *Name;
};

struct GradAttrInfo : FluxionAttrInfo {
  static constexpr Spelling S[] = {{ParsedAttr::AS_CXX11, "fluxion::grad"},
                                   {ParsedAttr::AS_CXX11, "grad"},
                                   {ParsedAttr::AS_GNU, "fluxion_grad"}};
  GradAttrInfo() : FluxionAttrInfo(Annotation::Kind::Grad, S, "fluxion::grad") {}
};

struct JvpAttrInfo : FluxionAttrInfo {
  static constexpr Spelling S[] = {{ParsedAttr::AS_CXX11, "fluxion::jvp"},
                                   {ParsedAttr::AS_CXX11, "jvp"},
                                   {ParsedAttr::AS_GNU, "fluxion_jvp"}};
  JvpAttrInfo() : FluxionAttrInfo(Annotation::Kind::Jvp, S, "fluxion::jvp") {}
};

struct HessianAttrInfo : FluxionAttrInfo {
  static constexpr Spelling S[] = {{ParsedAttr::AS_CXX11, "fluxion::hessian"},
                                   {ParsedAttr::AS_CXX11, "hessian"},
                                   {ParsedAttr::AS_GNU, "fluxion_hessian"}};
  HessianAttrInfo()
      : FluxionAttrInfo(Annotation::Kind::Hessian, S, "fluxion::hessian") {}
};

struct JacobianAttrInfo : FluxionAttrInfo {
  static constexpr Spelling S[] = {{ParsedAttr::AS_CXX11, "fluxion::jacobian"},
                                   {ParsedAttr::AS_CXX11, "jacobian"},
                                   {ParsedAttr::AS_GNU, "fluxion_jacobian"}};
  JacobianAttrInfo()
      : FluxionAttrInfo(Annotation::Kind::Jacobian, S, "fluxion::jacobian") {}
};

/// [[fluxion::checkpoint]] on a function: calls to it inside differentiated
/// code are recomputed in the reverse sweep instead of recorded.
class CheckpointAttrInfo : public FunctionAttrInfo {
public:
  static constexpr Spelling S[] = {{ParsedAttr::AS_CXX11, "fluxion::checkpoint"},
                                   {ParsedAttr::AS_GNU, "fluxion_checkpoint"}};
  CheckpointAttrInfo() { Spellings = S; }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    D->addAttr(AnnotateAttr::CreateImplicit(S.getASTContext(),
                                            "fluxion::checkpoint", nullptr, 0,
                                            Attr.getRange()));
    return AttributeApplied;
  }
};

} // namespace
} // namespace fluxion

static clang::ParsedAttrInfoRegistry::Add<fluxion::GradAttrInfo>
    RegisterGrad("fluxion-grad", "reverse-mode derivatives (f_grad, f_vjp)");
static clang::ParsedAttrInfoRegistry::Add<fluxion::JvpAttrInfo>
    RegisterJvp("fluxion-jvp", "forward-mode derivatives (f_jvp)");
static clang::ParsedAttrInfoRegistry::Add<fluxion::JacobianAttrInfo>
    RegisterJacobian("fluxion-jacobian", "dense Jacobians (f_jacobian)");
static clang::ParsedAttrInfoRegistry::Add<fluxion::HessianAttrInfo>
    RegisterHessian("fluxion-hessian",
                    "second-order derivatives (f_hvp, f_hessian)");
static clang::ParsedAttrInfoRegistry::Add<fluxion::CheckpointAttrInfo>
    RegisterCheckpoint("fluxion-checkpoint",
                       "recompute a callee in the reverse sweep");
