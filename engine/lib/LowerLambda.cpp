//===- LowerLambda.cpp - Lambdas called where they are defined ------------===//
//
// A lambda defined and called inside a differentiated function is code of
// that function: each call is lowered in place, as its body with the
// parameters bound to the arguments. A variable captured by reference is
// the variable itself (in the lambda's body Clang already refers to the
// enclosing variable); one captured by copy is a local that takes its value
// where the lambda is created (an init-capture `[s = 2 * x]` likewise).
// The analyses and builders then see ordinary locals and assignments, and
// the generated code never mentions the lambda. A standard algorithm given
// a lambda calls it in place too (LowerAlgorithms.cpp, through
// inlineLambda). A lambda passed on otherwise (to a template callee, stored
// in a std::function) stays a located error.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/FunctionViews.h"
#include "EigenLowering.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/ScopeExit.h"

using namespace clang;

namespace fluxion {

using ir::Block;
using ir::ExprP;
using ir::Var;
using ir::ref;

namespace {

/// True if every use of P in Body only reads its value (no assignment,
/// increment, address or reference binding).
bool onlyReadsValue(const Stmt *Body, const VarDecl *P) {
  struct Counter : RecursiveASTVisitor<Counter> {
    const VarDecl *P;
    unsigned Uses = 0, Reads = 0;
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      Uses += E->getDecl() == P;
      return true;
    }
    bool VisitImplicitCastExpr(ImplicitCastExpr *E) {
      const auto *R = dyn_cast<DeclRefExpr>(E->getSubExpr()->IgnoreParens());
      Reads += E->getCastKind() == CK_LValueToRValue && R && R->getDecl() == P;
      return true;
    }
  } C;
  C.P = P;
  C.TraverseStmt(const_cast<Stmt *>(Body));
  return C.Uses == C.Reads;
}

/// True if S contains a return statement (not counting nested lambdas,
/// whose returns are their own).
bool containsReturn(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (isa<ReturnStmt>(S))
    return true;
  for (const Stmt *C : S->children())
    if (containsReturn(C))
      return true;
  return false;
}

/// The lambda expression an initialiser or a call's object is, if any.
const LambdaExpr *asLambda(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1)
    E = CE->getArg(0)->IgnoreImplicit()->IgnoreParens();
  return dyn_cast<LambdaExpr>(E);
}

} // namespace

const Expr *withoutCopies(const Expr *E) {
  while (true) {
    E = E->IgnoreImplicit()->IgnoreParens();
    const auto *CE = dyn_cast<CXXConstructExpr>(E);
    if (!CE || CE->getNumArgs() != 1 || isa<CXXTemporaryObjectExpr>(CE))
      return E;
    E = CE->getArg(0);
  }
}

bool FunctionLowering::isLambdaCall(const CallExpr *E) const {
  const auto *M = dyn_cast_or_null<CXXMethodDecl>(E->getDirectCallee());
  return M && M->getParent()->isLambda() && isa<CXXOperatorCallExpr>(E);
}

bool FunctionLowering::lowerCaptures(const LambdaExpr *L, LambdaCopies &Copies,
                                     Block &Out) {
  for (const LambdaCapture &C : L->captures()) {
    if (!C.capturesVariable())
      continue; // `this` is the enclosing function's
    const auto *V = dyn_cast<VarDecl>(C.getCapturedVar());
    if (!V) {
      Diags.report(C.getLocation(), Diag::NotSupported)
          << "a lambda capturing a structured binding"
          << "capture the variable it names";
      return false;
    }
    bool Init = L->isInitCapture(&C);
    if (!Init && C.getCaptureKind() == LCK_ByRef)
      continue; // the variable itself
    QualType T = V->getType();
    if (T->isReferenceType() && Init) {
      Diags.report(C.getLocation(), Diag::NotSupported)
          << "a lambda's reference init-capture"
          << "capture the variable by reference ([&v])";
      return false;
    }
    // A constant captured by copy never differs from the original (a
    // reference captured by copy copies what it refers to, which may
    // change: it is copied like any variable).
    if (!Init && !T->isReferenceType() && T.isConstQualified() &&
        T->isArithmeticType())
      continue;
    T = T.getNonReferenceType();
    if (!T->isArithmeticType()) {
      Diags.report(C.getLocation(), Diag::NotSupported)
          << ("a lambda's copy of '" + V->getNameAsString() + "'")
          << "capture it by reference ([&" + V->getNameAsString() + "])";
      return false;
    }
    Var *Copy = F->makeVar(Var::Kind::Local, V->getName(), assignableType(T),
                           const_cast<VarDecl *>(V));
    F->Locals.push_back(Copy);
    const Expr *Value = V->getInit();
    DeclRefExpr *Original = nullptr;
    if (!Init) {
      Original = DeclRefExpr::Create(
          Ctx, NestedNameSpecifierLoc(), SourceLocation(),
          const_cast<VarDecl *>(V), /*RefersToEnclosingVariableOrCapture=*/false,
          C.getLocation(), T, VK_LValue);
      Value = ImplicitCastExpr::Create(Ctx, T.getUnqualifiedType(),
                                       CK_LValueToRValue, Original, nullptr,
                                       VK_PRValue, FPOptionsOverride());
    }
    if (!lowerVarInit(Copy, Value, Out))
      return false;
    Copies.push_back({V, Copy});
  }
  return true;
}

bool FunctionLowering::lowerClosureCaptures(const DeclRefExpr *Self,
                                            LambdaCopies &Copies, Block &Out) {
  const CXXRecordDecl *Closure =
      Self->getType().getNonReferenceType()->getAsCXXRecordDecl();
  llvm::DenseMap<const ValueDecl *, FieldDecl *> Fields;
  FieldDecl *ThisField = nullptr;
  Closure->getCaptureFields(Fields, ThisField);
  if (ThisField) {
    Diags.report(Closure->getLocation(), Diag::NotSupported)
        << "a lambda capturing 'this', given to fluxion::grad (vjp, jvp, ...),"
        << "annotate a member function instead";
    return false;
  }
  for (const LambdaCapture &C : Closure->captures()) {
    if (!C.capturesVariable())
      continue;
    const auto *V = dyn_cast<VarDecl>(C.getCapturedVar());
    FieldDecl *Field = V ? Fields.lookup(V) : nullptr;
    QualType T = V ? V->getType().getNonReferenceType() : QualType();
    if (!Field || !T->isArithmeticType()) {
      Diags.report(C.getLocation(), Diag::NotSupported)
          << "a lambda given to fluxion::grad (vjp, jvp, ...) that captures "
             "something other than a number"
          << "pass it as a parameter of the lambda";
      return false;
    }
    if (Field->getType()->isReferenceType()) {
      Diags.report(C.getLocation(), Diag::NotSupported)
          << ("a lambda given to fluxion::grad (vjp, jvp, ...) that captures "
              "'" + V->getNameAsString() + "' by reference")
          << "capture it by copy ([" + V->getNameAsString() + "])";
      return false;
    }
    // self.<field>, a value: what the lambda captured (by copy or by
    // reference) is a constant of the derivative.
    Expr *Member = MemberExpr::CreateImplicit(
        Ctx, const_cast<DeclRefExpr *>(Self), /*IsArrow=*/false, Field,
        Field->getType().getNonReferenceType().withConst(), VK_LValue,
        OK_Ordinary);
    Expr *Value = ImplicitCastExpr::Create(Ctx, T.getUnqualifiedType(),
                                           CK_LValueToRValue, Member, nullptr,
                                           VK_PRValue, FPOptionsOverride());
    Var *Copy = F->makeVar(Var::Kind::Local, V->getName(), assignableType(T),
                           const_cast<VarDecl *>(V));
    F->Locals.push_back(Copy);
    if (!lowerVarInit(Copy, Value, Out))
      return false;
    Copies.push_back({V, Copy});
  }
  return true;
}

bool FunctionLowering::lowerLambdaDecl(const VarDecl *VD, Block &Out) {
  const LambdaExpr *L = asLambda(VD->getInit());
  if (!L) {
    Diags.report(VD->getLocation(), Diag::NotSupported)
        << ("lambda variable '" + VD->getNameAsString() +
            "' initialised from another lambda variable")
        << "define the lambda where it is used";
    Poisoned.insert(VD);
    return false;
  }
  LambdaCopies Copies;
  if (!lowerCaptures(L, Copies, Out)) {
    Poisoned.insert(VD);
    return false;
  }
  Lambdas[VD] = {L, std::move(Copies)};
  return true;
}

ExprP FunctionLowering::lowerLambdaCall(const CallExpr *E, Block &Pre) {
  const auto *Op = cast<CXXMethodDecl>(E->getDirectCallee());
  LambdaCopies Fresh;
  const LambdaCopies *Copies =
      closureCopies(E->getArg(0), Fresh, Pre, E->getExprLoc());
  if (!Copies)
    return nullptr;
  llvm::SmallVector<const Expr *, 4> Args(E->arguments().begin() + 1,
                                          E->arguments().end());
  return inlineLambda(Op, *Copies, Args, Pre, E->getExprLoc());
}

const FunctionLowering::LambdaCopies *
FunctionLowering::closureCopies(const Expr *Closure, LambdaCopies &Fresh,
                                Block &Pre, SourceLocation Loc) {
  const Expr *Object = Closure->IgnoreImplicit()->IgnoreParens();
  if (const LambdaExpr *L = asLambda(Object)) {
    // Written and called in place: its copies are taken now.
    if (!lowerCaptures(L, Fresh, Pre))
      return nullptr;
    return &Fresh;
  }
  if (const auto *DR = dyn_cast<DeclRefExpr>(Object)) {
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (VD && Poisoned.count(VD))
      return nullptr;
    auto It = VD ? Lambdas.find(VD) : Lambdas.end();
    if (It != Lambdas.end())
      return &It->second.Copies;
    if (isa_and_nonnull<ParmVarDecl>(VD) &&
        VD->getType()->isReferenceType() &&
        VD->getType().getNonReferenceType().isConstQualified()) {
      // A closure passed in (the call-site form's function for a lambda):
      // its captures are constants, read from the closure.
      if (!lowerClosureCaptures(DR, Fresh, Pre))
        return nullptr;
      return &Fresh;
    }
  }
  Diags.report(Loc, Diag::NotSupported)
      << "a call of a lambda that was passed in or copied"
      << "call the lambda where it is defined, or make it a named function";
  return nullptr;
}

ExprP FunctionLowering::inlineLambda(const CXXMethodDecl *Op,
                                     const LambdaCopies &Copies,
                                     llvm::ArrayRef<const Expr *> Args,
                                     Block &Pre, SourceLocation Loc) {
  return inlineBody(Op, Copies, Args, Pre, Loc, "lambda");
}

bool FunctionLowering::lowerCallTakingLambda(const CallExpr *E, Block &Pre,
                                             ExprP &Out) {
  Out = nullptr;
  const FunctionDecl *Callee = E->getDirectCallee();
  if (!Callee || isa<CXXMethodDecl>(Callee) || Callee->isInStdNamespace() ||
      llvm::none_of(Callee->parameters(), [](const ParmVarDecl *P) {
        const auto *RD = P->getType().getNonReferenceType()->getAsCXXRecordDecl();
        return RD && RD->isLambda();
      }))
    return false;
  // A template's instance (apply<lambda>) gets its body when first used.
  if (!Callee->hasBody() && Instantiate)
    Instantiate(const_cast<FunctionDecl *>(Callee), E->getExprLoc());
  llvm::SmallVector<const Expr *, 4> Args(E->arguments().begin(),
                                          E->arguments().end());
  Out = inlineBody(Callee, {}, Args, Pre, E->getExprLoc(),
                   "function taking a lambda");
  return true;
}

ExprP FunctionLowering::inlineBody(const FunctionDecl *Fn,
                                   const LambdaCopies &Copies,
                                   llvm::ArrayRef<const Expr *> Args,
                                   Block &Pre, SourceLocation Loc,
                                   StringRef What) {
  const FunctionDecl *Def = nullptr;
  const auto *Body =
      Fn->hasBody(Def) ? dyn_cast<CompoundStmt>(Def->getBody()) : nullptr;
  if (!Body || LambdaDepth > 16) {
    Diags.report(Loc, Diag::NotSupported)
        << ("a " + What.str() +
            " whose body is not visible here, or that calls itself")
        << "make it a named function";
    return nullptr;
  }
  Fn = Def;
  // Copies may point into Lambdas, which lowering the body grows (a lambda
  // defined there, a closure parameter): keep them apart.
  const LambdaCopies OwnCopies = Copies;
  // A return can only end the body: the call is the body in place, and the
  // result the last statement's value.
  auto Stmts = Body->body();
  const auto *Last =
      Body->body_empty() ? nullptr : dyn_cast<ReturnStmt>(Body->body_back());
  for (const Stmt *S : Stmts)
    if (S != Last && containsReturn(S)) {
      Diags.report(S->getBeginLoc(), Diag::NotSupported)
          << ("a 'return' before the end of a " + What.str())
          << "compute the result into a variable and return it at the end";
      return nullptr;
    }
  // The parameters, bound to the arguments in the caller's scope.
  auto SavedVars = Vars;
  auto SavedAliases = Aliases;
  auto SavedLambdas = Lambdas;
  auto Restore = llvm::make_scope_exit([&] {
    Vars = std::move(SavedVars);
    Aliases = std::move(SavedAliases);
    Lambdas = std::move(SavedLambdas);
  });
  for (unsigned I = 0; I < Fn->getNumParams(); ++I) {
    const ParmVarDecl *P = Fn->getParamDecl(I);
    const Expr *Arg = Args[I];
    QualType T = P->getType();
    // A closure: calls of it in the body are the lambda in place, with the
    // copies the argument's lambda took (where it was written or defined).
    if (const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
        RD && RD->isLambda()) {
      const Expr *Closure = withoutCopies(Arg);
      LambdaCopies Fresh;
      const LambdaCopies *Taken = closureCopies(Closure, Fresh, Pre, Loc);
      if (!Taken)
        return nullptr;
      // Taken may point into Lambdas, which the insertion can move.
      LambdaCopies TakenCopies = *Taken;
      Lambdas[P] = {asLambda(Closure), std::move(TakenCopies)};
      continue;
    }
    if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified()) {
      // `T &acc`: the argument's place, when it is a variable (or an
      // element an algorithm's loop hands over, LowerAlgorithms.cpp).
      if (!isa<DeclRefExpr>(Arg->IgnoreParenImpCasts()) &&
          !StablePlaces.count(Arg)) {
        Diags.report(Arg->getExprLoc(), Diag::NotSupported)
            << ("passing an element or member to a " + What.str() +
                "'s non-const reference parameter")
            << "pass a variable, or make the parameter a value and assign "
               "the result";
        return nullptr;
      }
      Aliases[P] = Arg;
      continue;
    }
    // `double *v`: the argument again, when it is a pointer variable the
    // lambda does not change (a local copy of a pointer would need a
    // shadow pointer of its own).
    if (T->isPointerType() && isDifferentiableType(T)) {
      if (!isa<DeclRefExpr>(Arg->IgnoreParenImpCasts()) ||
          !onlyReadsValue(Body, P)) {
        Diags.report(Arg->getBeginLoc(), Diag::NotSupported)
            << ("a " + What.str() +
                "'s pointer parameter given something other than a pointer "
                "or array variable, or changed in its body")
            << "pass a variable and leave the parameter unchanged";
        return nullptr;
      }
      Aliases[P] = Arg;
      continue;
    }
    // `const std::vector<double> &v` (any const reference to an object):
    // the argument variable itself (or the element an algorithm hands
    // over), which the body only reads.
    if (T->isReferenceType() && !T.getNonReferenceType()->isScalarType() &&
        (isa<DeclRefExpr>(Arg->IgnoreParenImpCasts()) ||
         StablePlaces.count(Arg))) {
      noteRead(Arg);
      Aliases[P] = Arg;
      continue;
    }
    if (T->isReferenceType()) // a const T&: only read
      noteRead(Arg);
    T = T.getNonReferenceType().getUnqualifiedType();
    // A container or Eigen object taken by value, or by const& bound to a
    // temporary (`act(W * x)`): a local of the caller initialised from the
    // argument, as C++ makes it.
    if (!containerElement(T).isNull()) {
      if (!lowerContainerLocal(P, Pre, Arg))
        return nullptr;
      continue;
    }
    if (!checkType(T, P->getLocation(), (What + " parameter").str()))
      return nullptr;
    Var *V = F->makeVar(Var::Kind::Local, P->getName(), assignableType(T),
                        const_cast<ParmVarDecl *>(P));
    F->Locals.push_back(V);
    size_t First = Pre.size();
    if (!lowerVarInit(V, Arg, Pre))
      return nullptr;
    for (size_t J = First; J < Pre.size(); ++J)
      if (Pre[J]->K == ir::StmtKind::Assign && Pre[J]->LHS->rootVar() == V)
        Pre[J]->IsInit = true;
    Vars[P] = V;
  }
  for (const auto &[Captured, Copy] : OwnCopies) {
    Vars[Captured] = Copy;
    Aliases.erase(Captured);
  }
  QualType RetTy = Fn->getReturnType();
  // A std::vector or a dynamic-size Eigen object returned by value: the
  // local the body returns is the result itself (the copy C++ elides),
  // handed to the caller as it is.
  bool ContainerResult =
      !containerElement(RetTy).isNull() && !RetTy->isReferenceType() &&
      (!eigenShape(RetTy) || !containerFixedSize(RetTy));
  Var *Result = nullptr;
  if (!RetTy->isVoidType() && !ContainerResult) {
    if (!checkType(RetTy, Loc, (What + " result").str()))
      return nullptr;
    Result = F->makeVar(Var::Kind::Local,
                        isa<CXXMethodDecl>(Fn) || !Fn->getIdentifier()
                            ? "_lambda"
                            : ("_" + Fn->getName()).str(),
                        assignableType(RetTy));
    F->Locals.push_back(Result);
  }
  ++LambdaDepth;
  Scopes.push_back({Body, 0});
  auto PopScope = llvm::make_scope_exit([&] {
    Scopes.pop_back();
    --LambdaDepth;
  });
  for (auto It = Stmts.begin(); It != Stmts.end(); ++It) {
    Scopes.back().second = It - Stmts.begin();
    if (*It != Last) {
      if (!lowerStmt(*It, Pre))
        return nullptr;
      continue;
    }
    if (ContainerResult)
      return returnedContainer(Fn, Last, Pre, Loc);
    if (!Result || !Last->getRetValue())
      continue;
    if (!lowerInitInto(ref(Result), RetTy, Last->getRetValue(), Pre))
      return nullptr;
  }
  if (ContainerResult)
    return returnedContainer(Fn, Last, Pre, Loc);
  if (!Result)
    return ir::intConst(Ctx.IntTy, 0); // a void call: its statements are all
  return ref(Result, Loc);
}

ExprP FunctionLowering::returnedContainer(const FunctionDecl *Fn,
                                          const ReturnStmt *Ret, Block &Pre,
                                          SourceLocation Loc) {
  // `return r;`: r's storage, through the move or copy the return spells.
  const Expr *E = Ret && Ret->getRetValue()
                      ? Ret->getRetValue()->IgnoreImplicit()
                      : nullptr;
  if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(E);
      CE && CE->getNumArgs() == 1 &&
      (CE->getConstructor()->isCopyConstructor() ||
       CE->getConstructor()->isMoveConstructor()))
    E = CE->getArg(0)->IgnoreImplicit();
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  Var *V = VD && VD->isLocalVarDecl() ? Vars.lookup(VD) : nullptr;
  QualType RetTy = Fn->getReturnType();
  // An Eigen expression returned (`return (W * x).array().tanh();`): a new
  // local holding its value, which Eigen's conversion to the result makes.
  if ((!V || !isContainerStorageVar(V)) && E && eigenShape(RetTy)) {
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1)
      E = CE->getArg(0);
    std::unique_ptr<EigenTerm> Value = lowerEigenTerm(E, Pre);
    if (!Value)
      return nullptr;
    std::string Name = "_" + viewIdentifier(Fn);
    return eigenTemporary(
        Name, RetTy.getUnqualifiedType(), Value,
        ir::mul(Value->Rows, Value->Cols, Ctx.getPointerDiffType()),
        "the result of '" + Fn->getNameAsString() + "'", Pre, Loc);
  }
  if (V && isContainerStorageVar(V))
    return ref(V, Loc);
  // Another value (`return {2 * a[0], a[1]};`, `return x;` of a
  // parameter): a new local of the result type initialised from it, as
  // `R r = value; return r;` would be.
  if (!Ret || !Ret->getRetValue()) {
    Diags.report(Loc, Diag::NotSupported)
        << ("'" + Fn->getNameAsString() + "' without a value to return")
        << "end it with 'return r;'";
    return nullptr;
  }
  QualType T = RetTy.getUnqualifiedType();
  SourceLocation At = Ret->getBeginLoc();
  auto *Result = VarDecl::Create(
      Ctx, const_cast<FunctionDecl *>(Fn), At, At,
      &Ctx.Idents.get("_" + viewIdentifier(Fn)), T,
      Ctx.getTrivialTypeSourceInfo(T, At), SC_None);
  if (!lowerContainerLocal(Result, Pre, Ret->getRetValue()))
    return nullptr;
  return ref(Vars.lookup(Result), Loc);
}

const CallExpr *FunctionLowering::containerResultCall(const Expr *Init,
                                                      QualType T) const {
  const auto *Call =
      Init ? dyn_cast<CallExpr>(Init->IgnoreImplicit()->IgnoreParens())
           : nullptr;
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isa<CXXMemberCallExpr, CXXOperatorCallExpr>(Call) ||
      (isa<CXXMethodDecl>(Callee) && !cast<CXXMethodDecl>(Callee)->isStatic()))
    return nullptr;
  // A fixed-size Eigen object returned by value is the Eigen lowering's
  // (its callee result is a temporary the call writes).
  QualType R = Callee->getReturnType();
  if (eigenShape(T.getNonReferenceType()) &&
      containerFixedSize(T.getNonReferenceType()))
    return nullptr;
  if (R->isReferenceType() ||
      !Ctx.hasSameUnqualifiedType(R, T.getNonReferenceType()))
    return nullptr;
  // A library function (a std algorithm's result) is not inlined here, nor
  // fluxion::stop_gradient, whose body would pass derivatives on.
  if (Callee->isInStdNamespace() || isStopGradient(Callee) ||
      Ctx.getSourceManager().isInSystemHeader(Callee->getLocation()))
    return nullptr;
  return Call;
}

} // namespace fluxion
