//===- Checkpointing.cpp - [[fluxion::checkpoint]] callees -----------------===//
//
// A checkpointed callee g is not recorded in the forward sweep: the caller
// runs g_logged, the primal code of g that saves the old value of every
// location outside g's frame before overwriting it (fluxion::checkpoint_save
// into the runtime's undo log). When the reverse sweep reaches the call it
// undoes those writes, which puts memory back in its state at the call,
// recomputes g's recorded forward sweep (g_fwd) and runs g_bwd at once.
// The tape then holds only what the caller records for the call (its
// inputs), not g's intermediate values: TensorFlow's recompute_grad, JAX's
// checkpoint.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/Emitter.h"
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/Passes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace fluxion {
using ir::Block;
using ir::Expr;
using ir::ExprKind;
using ir::ExprP;
using ir::StmtKind;
using ir::StmtP;
using ir::Var;

bool Differentiator::isCheckpointed(const FunctionDecl *FD) {
  for (const FunctionDecl *R : FD->redecls())
    for (const auto *A : R->specific_attrs<AnnotateAttr>())
      if (A->getAnnotation() == "fluxion::checkpoint")
        return true;
  return false;
}

namespace {
/// Finds a call for which Check answers true (a checkpointed callee, a
/// residual-form rule, a binomial loop).
class CallFinder : public RecursiveASTVisitor<CallFinder> {
public:
  explicit CallFinder(
      llvm::function_ref<bool(const FunctionDecl *)> Check)
      : Check(Check) {}
  bool VisitCallExpr(CallExpr *E) {
    if (const FunctionDecl *FD = E->getDirectCallee())
      Found |= Check(FD);
    return !Found;
  }
  // Operands that are never evaluated call nothing, and instantiating what
  // they name may be an error (std::declval, in a library's noexcept(...)).
  bool TraverseCXXNoexceptExpr(CXXNoexceptExpr *) { return true; }
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) {
    return true;
  }
  bool TraverseDecltypeTypeLoc(DecltypeTypeLoc) { return true; }
  bool TraverseCXXTypeidExpr(CXXTypeidExpr *E) {
    return E->isPotentiallyEvaluated() ? RecursiveASTVisitor::TraverseCXXTypeidExpr(E)
                                       : true;
  }
  bool Found = false;

private:
  llvm::function_ref<bool(const FunctionDecl *)> Check;
};
} // namespace

/// True if FD's body calls, directly or through callees with bodies, a
/// function for which Calls answers true; memoised in Cache.
static bool callsTransitively(
    Sema &S, const FunctionDecl *FD, llvm::DenseMap<const Decl *, bool> &Cache,
    llvm::function_ref<bool(const FunctionDecl *)> Calls) {
  FD = FD->getCanonicalDecl();
  auto It = Cache.find(FD);
  if (It != Cache.end())
    return It->second;
  Cache[FD] = false; // recursion: assume not while visiting
  // A template instance is defined at the end of the translation unit
  // unless something needs it sooner: an answer cached from its missing
  // body would be wrong for good (a powN<2> calling tanh shared its
  // first-order sweeps, residual rules and all, with f_hvp).
  if (!FD->hasBody() && FD->isImplicitlyInstantiable())
    S.InstantiateFunctionDefinition(FD->getLocation(),
                                    const_cast<FunctionDecl *>(FD),
                                    /*Recursive=*/false,
                                    /*DefinitionRequired=*/false);
  const FunctionDecl *Def = nullptr;
  bool Result = false;
  if (FD->hasBody(Def)) {
    auto Check = [&](const FunctionDecl *Callee) {
      return Calls(Callee) || callsTransitively(S, Callee, Cache, Calls);
    };
    CallFinder Finder(Check);
    Finder.TraverseStmt(Def->getBody());
    Result = Finder.Found;
  }
  Cache[FD] = Result;
  return Result;
}

bool Differentiator::hasFirstOrderOnlyParts(const FunctionDecl *FD) {
  NamespaceDecl *Custom = customNamespace();
  return callsTransitively(S, FD, FirstOrderOnly, [&](const FunctionDecl *Callee) {
    if (isCheckpointed(Callee) || isRevolveMarker(Callee))
      return true;
    // An Eigen matrix product: a rule call in first order, loops in second
    // (LowerEigenProduct.cpp).
    if (Callee->getOverloadedOperator() == OO_Star && isInEigen(Callee) &&
        llvm::none_of(Callee->parameters(), [](const ParmVarDecl *P) {
          return P->getType().getNonReferenceType()->isArithmeticType();
        }))
      return true;
    if (!Custom || !Callee->getIdentifier())
      return false;
    LookupResult R(S, &Ctx.Idents.get((Callee->getName() + "_fwd").str()),
                   SourceLocation(), Sema::LookupOrdinaryName);
    S.LookupQualifiedName(R, Custom);
    return !R.empty();
  });
}

bool Differentiator::usesCheckpointing(const FunctionDecl *FD) {
  return callsTransitively(S, FD, UsesCheckpoints, [&](const FunctionDecl *Callee) {
    return isCheckpointed(Callee) || isRevolveMarker(Callee);
  });
}

namespace {
/// Finds, in the bodies reachable from a function, a read of one of a set
/// of globals.
class GlobalReadFinder : public RecursiveASTVisitor<GlobalReadFinder> {
public:
  GlobalReadFinder(llvm::ArrayRef<VarDecl *> Globals) : Globals(Globals) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *VD = dyn_cast<VarDecl>(E->getDecl()))
      if (llvm::is_contained(Globals, VD->getCanonicalDecl()) ||
          llvm::is_contained(Globals, VD))
        Found = VD;
    return !Found;
  }
  bool VisitCallExpr(CallExpr *E) {
    const FunctionDecl *Def = nullptr;
    if (const FunctionDecl *FD = E->getDirectCallee())
      if (FD->hasBody(Def) && Seen.insert(Def).second)
        TraverseStmt(Def->getBody());
    return !Found;
  }
  llvm::ArrayRef<VarDecl *> Globals;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Seen;
  VarDecl *Found = nullptr;
};

/// The calls directly in a function body.
class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  bool VisitCallExpr(CallExpr *E) {
    Calls.push_back(E);
    return true;
  }
  std::vector<CallExpr *> Calls;
};
} // namespace

bool Differentiator::checkGlobalsInCallees(FunctionDecl *Def,
                                           const UserEntry &E) {
  if (E.Globals.empty())
    return true;
  CallCollector Calls;
  Calls.TraverseStmt(Def->getBody());
  for (CallExpr *C : Calls.Calls) {
    const FunctionDecl *Callee = C->getDirectCallee();
    const FunctionDecl *Body = nullptr;
    if (!Callee || !Callee->hasBody(Body))
      continue;
    GlobalReadFinder Finder(E.Globals);
    Finder.Seen.insert(Body);
    Finder.TraverseStmt(Body->getBody());
    if (Finder.Found) {
      Diags.report(C->getBeginLoc(), Diag::GlobalInCallee)
          << Callee << Finder.Found << Def;
      return false;
    }
  }
  return true;
}

bool Differentiator::isRevolveMarker(const FunctionDecl *FD) {
  const auto *NS = dyn_cast<NamespaceDecl>(FD->getDeclContext());
  return FD->getIdentifier() && FD->getName() == "revolve_loop" && NS &&
         NS->getName() == "detail";
}

FunctionDecl *Differentiator::loggedVersion(FunctionDecl *Callee,
                                            SourceLocation Loc) {
  const Decl *Key = Callee->getCanonicalDecl();
  auto It = Logged.find(Key);
  if (It == Logged.end()) {
    if (!canGenerate(Callee, Loc, "_vjp"))
      return nullptr;
    auto E = std::make_unique<LoggedEntry>();
    E->Callee = Callee;
    std::vector<std::pair<std::string, QualType>> Params;
    for (ParmVarDecl *P : Callee->parameters())
      Params.push_back({P->getName().empty() ? std::string("_p")
                                             : P->getNameAsString(),
                        P->getType()});
    E->Logged = declare(Callee, Callee->getNameAsString() + "_logged",
                        Callee->getReturnType(), Params, true, false);
    LoggedOrder.push_back(E.get());
    It = Logged.emplace(Key, std::move(E)).first;
  }
  auto Use = std::make_pair(Loc, Current);
  if (!llvm::is_contained(It->second->Uses, Use))
    It->second->Uses.push_back(Use);
  return It->second->Logged;
}

/// True if writes through LV reach memory outside the function's frame.
static bool writesOutside(const Expr &LV) {
  Var *Root = LV.rootVar();
  if (!Root)
    return false;
  if (Root->K == Var::Kind::Global)
    return true;
  return Root->K == Var::Kind::Param && Root->isPointer() &&
         (LV.K == ExprKind::Index || LV.K == ExprKind::Member);
}

bool Differentiator::logWrites(Block &B, ir::Function &F) {
  bool OK = true;
  Block Out;
  for (StmtP &St : B) {
    switch (St->K) {
    case StmtKind::If:
    case StmtKind::Loop:
    case StmtKind::Block:
      OK &= logWrites(St->Then, F);
      OK &= logWrites(St->Else, F);
      break;
    default:
      break;
    }
    if (St->K == StmtKind::Assign && writesOutside(*St->LHS)) {
      // A counter or flag would be put back with the rest of the memory
      // the call wrote, undoing the effect.
      if (Var *Root = St->LHS->rootVar();
          Root->K == Var::Kind::Global && Root->Origin &&
          isCounterGlobal(Root->Origin)) {
        Diags.report(St->Loc, Diag::NotSupported)
            << ("writing the global '" + Root->Origin->getNameAsString() +
                "' in a checkpointed function (its writes are undone when "
                "it is recomputed)")
            << "count or flag in its caller";
        OK = false;
        continue;
      }
      QualType Ptr = Ctx.getPointerType(St->LHS->Ty);
      FunctionDecl *Save =
          runtimeFunction("checkpoint_save", {Ptr}, St->Loc);
      if (!Save)
        return false;
      Out.push_back(ir::eval(
          ir::call(Save, {ir::addrOf(St->LHS, Ptr)}, Ctx.VoidTy), St->Loc));
    }
    // Calls that write outside memory through their pointer arguments run
    // logged as well.
    if ((St->K == StmtKind::Assign || St->K == StmtKind::Eval) && St->RHS &&
        St->RHS->K == ExprKind::Call && St->RHS->Callee) {
      const Expr &C = *St->RHS;
      bool Writes = false;
      for (const ExprP &A : C.Ops) {
        if (!A->Ty->isPointerType() ||
            A->Ty->getPointeeType().isConstQualified())
          continue;
        Var *Root = A->rootVar();
        Writes |= Root && (Root->K == Var::Kind::Global ||
                           (Root->K == Var::Kind::Param && Root->isPointer()));
      }
      if (Writes) {
        FunctionDecl *Callee = C.Callee;
        const FunctionDecl *Def = nullptr;
        if (!Callee->hasBody(Def) && !Stored.count(Callee)) {
          if (Callee->getBuiltinID() ||
              Ctx.getSourceManager().isInSystemHeader(Callee->getLocation()) ||
              !Callee->isDefined()) {
            Diags.report(C.Loc, Diag::CheckpointNoBody) << Callee;
            OK = false;
            Out.push_back(std::move(St));
            continue;
          }
        }
        FunctionDecl *L = loggedVersion(Callee, C.Loc);
        if (!L)
          return false;
        auto Copy = std::make_unique<ir::Stmt>(St->K, St->Loc);
        Copy->LHS = St->LHS;
        Copy->RHS = ir::call(L, C.Ops, C.Ty, C.Loc);
        Copy->Op = St->Op;
        Copy->IsInit = St->IsInit;
        Out.push_back(std::move(Copy));
        continue;
      }
    }
    Out.push_back(std::move(St));
  }
  B = std::move(Out);
  return OK;
}

void Differentiator::defineLogged(LoggedEntry &E, FunctionDecl *Def) {
  E.Defined = true;
  if (Def->isInvalidDecl() || Diags.clangReportedErrors())
    return;
  FunctionDecl *Saved = Current;
  Current = Def;
  FunctionLowering Lowering(Ctx, Diags);
  connectLowering(Lowering, *this);
  std::unique_ptr<ir::Function> F = Lowering.lower(Def);
  bool OK = F != nullptr;
  if (OK) {
    eliminateJumps(*F, Ctx);
    OK = logWrites(F->Body, *F);
  }
  Current = Saved;
  if (!OK) {
    explain(Def);
    return;
  }
  EmitRequest R;
  R.Target = E.Logged;
  R.Params = F->Params;
  R.Locals = F->Locals;
  R.Body = std::move(F->Body);
  auto Ret = std::make_unique<ir::Stmt>(StmtKind::Return);
  if (F->ReturnVar)
    Ret->RHS = ir::ref(F->ReturnVar);
  R.Body.push_back(std::move(Ret));
  emitAndPublish(R);
}

} // namespace fluxion
