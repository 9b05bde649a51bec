//===- LaneFunctions.cpp - Declaring and defining lanes versions ----------===//
//
// g_bwd_lanesM (LaneExpansion.h) is declared when f_jacobian or another
// lanes version first calls it, and defined once g_bwd's own reverse sweep
// exists: it is that sweep, expanded.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/Emitter.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace fluxion {

namespace {
/// Finds what keeps a body's reverse sweep from running several seeds at
/// once; calls Callee for each function with a body it calls.
class LaneObstacleFinder : public RecursiveASTVisitor<LaneObstacleFinder> {
public:
  LaneObstacleFinder(ASTContext &Ctx,
                     llvm::function_ref<bool(const FunctionDecl *)> Callee)
      : Ctx(Ctx), Callee(Callee) {}

  bool VisitVarDecl(VarDecl *VD) {
    QualType T = VD->getType().getCanonicalType();
    if (T->isPointerType() && T->getPointeeType()->isArrayType())
      Found = true; // a pointer to rows: no stride per lane
    else if (T->isPointerType() && !isa<ParmVarDecl>(VD) &&
             T->getPointeeType()->isRealFloatingType())
      Found = true; // its adjoint would be a pointer local
    else if (const ArrayType *AT = Ctx.getAsArrayType(T);
             AT && AT->getElementType()->isArrayType())
      Found = true;
    else if (QualType E = Ctx.getBaseElementType(T);
             E->isRecordType() && !isa<ParmVarDecl>(VD) &&
             !isClassWithoutReals(E) && !fixedContainerOfReals(T) &&
             (!isDifferentiableRecord(E) || pointsToReals(E) ||
              !containerElement(E).isNull()))
      Found = true; // a container, or an object whose adjoint has pointers
    return !Found;
  }
  bool VisitCallExpr(CallExpr *E) {
    const FunctionDecl *FD = E->getDirectCallee();
    if (!FD || !Callee(FD))
      Found = true;
    // A container's lanes are plain arrays: a function taking the
    // container itself could not take them.
    if (FD && !isa<CXXMemberCallExpr, CXXOperatorCallExpr>(E))
      for (const ParmVarDecl *P : FD->parameters())
        if (!containerElement(P->getType()).isNull())
          Found = true;
    return !Found;
  }
  /// A local std::array or fixed-size Eigen Matrix/Array of reals (not a
  /// view): its adjoint's lanes are N numbers each.
  static bool fixedContainerOfReals(QualType T) {
    QualType E = containerElement(T);
    std::optional<EigenShape> S = eigenShape(T);
    return !E.isNull() && E->isRealFloatingType() && !T->isReferenceType() &&
           containerFixedSize(T) && (!S || !S->View);
  }
  bool Found = false;

private:
  ASTContext &Ctx;
  llvm::function_ref<bool(const FunctionDecl *)> Callee;
};
} // namespace

bool Differentiator::lanesPossible(const FunctionDecl *FD) {
  FD = FD->getCanonicalDecl();
  auto It = LanesImpossible.find(FD);
  if (It != LanesImpossible.end())
    return !It->second;
  LanesImpossible[FD] = false; // recursion: assume possible while visiting
  const FunctionDecl *Def = nullptr;
  bool Possible = true;
  if (FD->hasBody(Def)) {
    auto CalleeOK = [&](const FunctionDecl *Callee) {
      // Eigen's operations on fixed-size objects become loops over
      // coefficients (LowerEigen*.cpp), not calls.
      if (isInEigen(Callee))
        return true;
      const FunctionDecl *Body = nullptr;
      if (Callee->hasBody(Body))
        return lanesPossible(Callee);
      // <cmath> and the runtime: their rules are called once per lane. A
      // user function without a body here may get one later in the file.
      return Ctx.getSourceManager().isInSystemHeader(Callee->getLocation()) ||
             isRuntimeDecl(Callee);
    };
    LaneObstacleFinder Finder(Ctx, CalleeOK);
    Finder.TraverseStmt(Def->getBody());
    Possible = !Finder.Found;
  } else {
    Possible = false;
  }
  LanesImpossible[FD] = !Possible;
  return Possible;
}

FunctionDecl *Differentiator::lanesOf(FunctionDecl *Bwd, unsigned M,
                                      llvm::SmallVectorImpl<LaneArg> &Kinds) {
  auto PairIt = PairOf.find(Bwd);
  if (PairIt == PairOf.end() || PairIt->second->Bwd != Bwd)
    return nullptr;
  SplitEntry &Pair = *PairIt->second;
  FunctionDecl *Callee = Pair.Callee;
  // g_bwd(params..., [seed], d_ of each active parameter) (reverseParams).
  Kinds.clear();
  Kinds.append(Callee->getNumParams(), LaneArg::Primal);
  if (hasSeed(Callee))
    Kinds.push_back(LaneArg::Seed);
  for (bool A : Pair.Active)
    if (A)
      Kinds.push_back(LaneArg::Adjoint);
  auto Key = std::make_pair(static_cast<const Decl *>(Bwd), M);
  auto It = LaneEntries.find(Key);
  if (It != LaneEntries.end())
    return It->second->Fn;
  std::vector<std::pair<std::string, QualType>> Params;
  unsigned I = 0;
  for (ParmVarDecl *P : Bwd->parameters()) {
    std::string Name = P->getName().empty() ? "_p" : P->getNameAsString();
    switch (Kinds[I++]) {
    case LaneArg::Primal:
      Params.push_back({Name, P->getType()});
      break;
    case LaneArg::Seed:
      Params.push_back({Name, Ctx.getPointerType(P->getType())});
      break;
    case LaneArg::Adjoint:
      Params.push_back({Name, P->getType()});
      Params.push_back({"ld_" + Name, Ctx.LongTy});
      break;
    }
  }
  auto E = std::make_unique<LaneEntry>();
  E->Pair = &Pair;
  E->M = M;
  E->Loc = LanesLoc;
  E->Fn = declare(Callee,
                  (Bwd->getName() + "_lanes" + llvm::Twine(M)).str(),
                  Ctx.VoidTy, Params, true, false);
  LaneOrder.push_back(E.get());
  return LaneEntries.emplace(Key, std::move(E)).first->second->Fn;
}

FunctionDecl *Differentiator::laneAccessor(QualType Ptr) {
  return runtimeFunction("lane", {Ptr, Ctx.LongTy, Ctx.LongTy}, LanesLoc);
}

void Differentiator::defineLanes(LaneEntry &E) {
  E.Defined = true;
  auto It = Stored.find(E.Pair->Bwd);
  if (It == Stored.end())
    return; // the pair failed, and said why
  LaneInput In;
  In.F = It->second.IR.get();
  In.Params = It->second.Params;
  In.Locals = In.F->Locals;
  In.Body = &It->second.Body;
  LaneOutput Out;
  std::string Why;
  SourceLocation Saved = LanesLoc;
  LanesLoc = E.Loc;
  bool OK = expandLanes(In, E.M, Ctx, *this, Out, Why);
  LanesLoc = Saved;
  if (!OK) {
    Diags.report(E.Loc, Diag::InternalError)
        << ("cannot run the reverse sweep of '" +
            E.Pair->Callee->getNameAsString() + "' for " +
            std::to_string(E.M) + " rows at once: " + Why);
    return;
  }
  EmitRequest R;
  R.Target = E.Fn;
  R.Params = std::move(Out.Params);
  R.Locals = std::move(Out.Locals);
  R.Body = std::move(Out.Body);
  emitAndPublish(R);
}

} // namespace fluxion
