//===- LowerExpr.cpp - Lowering of expressions to Fluxion IR ---------------===//
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/FunctionViews.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/Builtins.h"

using namespace clang;

namespace fluxion {
using ir::Block;
using ir::ExprKind;
using ir::ExprP;
using ir::StmtKind;
using ir::StmtP;
using ir::Var;
using ir::Function;
using ir::SwitchSection;
using ir::ref;
using ir::floatConst;
using ir::intConst;
using ir::boolConst;
using ir::binary;
using ir::unary;
using ir::index;
using ir::cond;
using ir::call;
using ir::assign;
using ir::eval;
using ir::ifStmt;
using ir::addrOf;
using ir::stopGrad;


/// True if the expression contains a call, or an assignment or increment
/// inside it: it needs statements of its own (lowered into Pre), so it
/// cannot be evaluated speculatively (the right operand of &&, both
/// branches of ?:).
static bool needsStatements(const clang::Stmt *S) {
  if (!S)
    return false;
  if (isa<CallExpr>(S))
    return true;
  if (const auto *UO = dyn_cast<UnaryOperator>(S);
      UO && UO->isIncrementDecrementOp())
    return true;
  if (const auto *BO = dyn_cast<BinaryOperator>(S);
      BO && (BO->isAssignmentOp() || BO->getOpcode() == BO_Comma))
    return true;
  for (const clang::Stmt *C : S->children())
    if (needsStatements(C))
      return true;
  return false;
}

/// Eigen::MatrixBase<D>, ArrayBase, DenseBase, EigenBase (a generic
/// function's parameter type).
static bool isEigenBaseClass(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  const auto *NS =
      RD ? dyn_cast<NamespaceDecl>(RD->getDeclContext()) : nullptr;
  return NS && NS->getName() == "Eigen" && RD->getIdentifier() &&
         llvm::is_contained({"MatrixBase", "ArrayBase", "DenseBase",
                             "EigenBase", "DenseCoeffsBase"},
                            RD->getName());
}

static bool isFluxionHelper(const FunctionDecl *FD, StringRef Name) {
  if (!FD || !FD->getIdentifier() || FD->getName() != Name)
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(FD->getDeclContext());
  return NS && NS->getName() == "fluxion" &&
         NS->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

ExprP FunctionLowering::materialize(ExprP E, Block &Pre, StringRef Name,
                                    SourceLocation Loc) {
  Var *T = F->makeVar(Var::Kind::Temp, Name, E->Ty.getUnqualifiedType());
  F->Locals.push_back(T);
  Pre.push_back(assign(ref(T), E, BO_Assign, Loc));
  return ref(T, Loc);
}

ExprP FunctionLowering::convertResult(ExprP E, QualType To, Block &Pre) {
  if (E->K == ExprKind::Call &&
      !Ctx.hasSameUnqualifiedType(E->Ty, To.getUnqualifiedType()))
    E = materialize(E, Pre, ("_" + E->Callee->getName()).str(), E->Loc);
  return ir::cast(To, E);
}

ExprP FunctionLowering::lowerLiteral(const clang::Expr *E) {
  if (const auto *FL = dyn_cast<FloatingLiteral>(E)) {
    auto C = std::make_shared<ir::Expr>();
    C->K = ExprKind::Const;
    C->Ty = FL->getType();
    C->FVal = FL->getValue();
    return C;
  }
  clang::Expr::EvalResult R;
  if (E->getType()->isIntegralOrEnumerationType() &&
      E->EvaluateAsInt(R, Ctx)) {
    auto C = std::make_shared<ir::Expr>();
    C->K = ExprKind::Const;
    C->Ty = E->getType();
    C->IVal = R.Val.getInt();
    return C;
  }
  return nullptr;
}

bool FunctionLowering::refuseStdFunction(const clang::Expr *E) {
  // A std::function made from a lambda or function: calls through it go
  // to a target known only at run time.
  const auto *RD = E->getType()->getAsCXXRecordDecl();
  if (!RD || !RD->isInStdNamespace() || !RD->getIdentifier() ||
      RD->getName() != "function" ||
      !isa<CXXConstructExpr, CXXBindTemporaryExpr, MaterializeTemporaryExpr>(
          E->IgnoreImplicitAsWritten()))
    return false;
  Diags.report(E->getExprLoc(), Diag::NotSupported)
      << "a std::function (its target is known only at run time)"
      << "take the callable as a template parameter ('template <class F> "
         "double g(F f, double x)'), or call the lambda directly";
  return true;
}

ExprP FunctionLowering::lowerExpr(const clang::Expr *E, Block &Pre) {
  // Clang has already reported errors in this expression: add nothing.
  if (E->containsErrors()) {
    HadClangErrors = true;
    return nullptr;
  }
  E = E->IgnoreParens();
  // A lambda used other than by calling it where it is defined
  // (LowerLambda.cpp): passed to a function, copied, stored.
  if (const auto *RD = E->getType()->getAsCXXRecordDecl();
      RD && RD->isLambda() && !isa<DeclRefExpr>(E->IgnoreImplicit())) {
    Diags.report(E->getExprLoc(), Diag::NotSupported)
        << "passing a lambda on"
        << "call it where it is defined, or make it a named function";
    return nullptr;
  }
  if (refuseStdFunction(E))
    return nullptr;
  // A copy of an iterator (passed by value) is the iterator: its uses say
  // what is followed (LowerIterators.cpp).
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E->IgnoreImplicit());
      CE && CE->getNumArgs() == 1 &&
      !containerIteratorElement(E->getType()).isNull())
    return lowerExpr(CE->getArg(0), Pre);
  if (E->isPRValue() && isDifferentiableRecord(E->getType()) &&
      isa<CXXConstructExpr, InitListExpr, CXXFunctionalCastExpr>(E))
    return lowerTemporaryObject(E, Pre);
  switch (E->getStmtClass()) {
  case clang::Stmt::FloatingLiteralClass:
  case clang::Stmt::IntegerLiteralClass:
  case clang::Stmt::CXXBoolLiteralExprClass:
  case clang::Stmt::CharacterLiteralClass:
  case clang::Stmt::UnaryExprOrTypeTraitExprClass:
    if (ExprP C = lowerLiteral(E))
      return C;
    break;
  case clang::Stmt::StringLiteralClass:
  case clang::Stmt::PredefinedExprClass: {
    // A string ("%g\n", __func__): data for a call that carries no
    // derivative.
    auto C = std::make_shared<ir::Expr>();
    C->K = ExprKind::Const;
    C->Ty = E->getType();
    C->Literal = E;
    // __func__ names the primal function, also inside its derivatives and
    // in fluxion-gen's output: its value, as a string.
    if (const auto *PE = dyn_cast<PredefinedExpr>(E))
      if (const StringLiteral *Name = PE->getFunctionName())
        C->Literal = Name;
    C->Loc = E->getExprLoc();
    return C;
  }
  case clang::Stmt::DeclRefExprClass:
    return lowerDeclRef(cast<DeclRefExpr>(E), Pre);
  case clang::Stmt::ImplicitCastExprClass:
  case clang::Stmt::CStyleCastExprClass:
  case clang::Stmt::CXXStaticCastExprClass:
  case clang::Stmt::CXXFunctionalCastExprClass:
    return lowerCast(cast<CastExpr>(E), Pre);
  case clang::Stmt::ArraySubscriptExprClass: {
    const auto *AS = cast<ArraySubscriptExpr>(E);
    ExprP Base = lowerExpr(AS->getBase(), Pre);
    ExprP Idx = Base ? lowerExpr(AS->getIdx(), Pre) : nullptr;
    if (!Idx)
      return nullptr;
    return index(Base, Idx, AS->getType());
  }
  case clang::Stmt::MemberExprClass:
    return lowerMember(cast<MemberExpr>(E), Pre);
  case clang::Stmt::UnaryOperatorClass:
    return lowerUnary(cast<UnaryOperator>(E), Pre);
  case clang::Stmt::BinaryOperatorClass:
    return lowerBinary(cast<BinaryOperator>(E), Pre);
  case clang::Stmt::CompoundAssignOperatorClass:
    return lowerBinary(cast<BinaryOperator>(E), Pre);
  case clang::Stmt::ConditionalOperatorClass:
    return lowerConditional(cast<ConditionalOperator>(E), Pre);
  case clang::Stmt::CXXRewrittenBinaryOperatorClass: {
    // C++20's `a != b` as `!(a == b)`: iterators compare positions.
    const auto *R = cast<CXXRewrittenBinaryOperator>(E);
    if (ExprP C; lowerIteratorComparison(R, Pre, C))
      return C;
    return lowerExpr(R->getSemanticForm(), Pre);
  }
  case clang::Stmt::CallExprClass:
  case clang::Stmt::CXXMemberCallExprClass:
  case clang::Stmt::CXXOperatorCallExprClass:
    return lowerCall(cast<CallExpr>(E), Pre);
  case clang::Stmt::CXXThisExprClass:
    // In a place call of a method (LowerPlaceCall.cpp): the call's object.
    if (ThisObject) {
      if (ThisArrow)
        return lowerExpr(ThisObject, Pre);
      ExprP Obj = lowerExpr(ThisObject, Pre);
      return Obj ? addressOf(Obj, E->getType()) : nullptr;
    }
    // Inside a method lowered as a function: `this` is its `self`.
    if (Self)
      return ref(Self, E->getExprLoc());
    break;
  case clang::Stmt::ExprWithCleanupsClass:
    return lowerExpr(cast<ExprWithCleanups>(E)->getSubExpr(), Pre);
  case clang::Stmt::MaterializeTemporaryExprClass:
    return lowerExpr(cast<MaterializeTemporaryExpr>(E)->getSubExpr(), Pre);
  case clang::Stmt::CXXDefaultArgExprClass:
    return lowerExpr(cast<CXXDefaultArgExpr>(E)->getExpr(), Pre);
  case clang::Stmt::ImplicitValueInitExprClass:
    return E->getType()->isRealFloatingType() ? floatConst(E->getType(), 0)
                                              : intConst(E->getType(), 0);
  case clang::Stmt::ConstantExprClass:
    return lowerExpr(cast<ConstantExpr>(E)->getSubExpr(), Pre);
  default:
    break;
  }
  // Integer constant expressions of any form (sizeof, enumerators,
  // constexpr arithmetic) are folded.
  if (ExprP C = lowerLiteral(E))
    return C;
  // stop_gradient cannot take a throw (it has no value): the check goes
  // into a function of its own, whose call does.
  if (isa<CXXThrowExpr>(E)) {
    Diags.report(E->getExprLoc(), Diag::NotSupported)
        << "a throw expression"
        << "move the check into a function that returns a value (`int "
           "checked(int n) { if (n <= 0) throw ...; return n; }`) and call "
           "it through fluxion::stop_gradient (`n = "
           "fluxion::stop_gradient(checked(n));`)";
    return nullptr;
  }
  if (!usesPoisoned(E))
    Diags.report(E->getExprLoc(), Diag::UnsupportedExpr)
        << describeConstruct(E);
  return nullptr;
}

/// E without pointer conversions (constness added for a parameter).
static const ir::Expr &withoutPointerCasts(const ir::Expr &E) {
  if (E.K == ExprKind::Cast && E.Ty->isPointerType() &&
      (E.Ops[0]->Ty->isPointerType() || E.Ops[0]->Ty->isArrayType()))
    return withoutPointerCasts(*E.Ops[0]);
  return E;
}

/// A and B are provably the same address (&y and &y, whatever pointee
/// constness the parameters give them; p + 1 and p + 1).
static bool sameAddress(const ir::Expr &A, const ir::Expr &B) {
  const ir::Expr &X = withoutPointerCasts(A), &Y = withoutPointerCasts(B);
  if (X.K != Y.K)
    return false;
  switch (X.K) {
  case ExprKind::AddrOf:
    return ir::sameExpr(*X.Ops[0], *Y.Ops[0]);
  case ExprKind::VarRef:
    return X.V == Y.V;
  case ExprKind::Binary:
    return X.Ty->isPointerType() && X.BOp == Y.BOp &&
           sameAddress(*X.Ops[0], *Y.Ops[0]) &&
           ir::sameExpr(*X.Ops[1], *Y.Ops[1]);
  default:
    return ir::sameExpr(X, Y);
  }
}

bool FunctionLowering::checkAliasing(llvm::ArrayRef<const clang::Expr *> ArgExprs,
                                     const FunctionDecl *Callee,
                                     llvm::ArrayRef<ExprP> Args) {
  unsigned N = std::min<unsigned>(Args.size(), Callee->getNumParams());
  const FunctionDecl *Def = nullptr;
  bool HasBody = Callee->hasBody(Def);
  auto Writes = [&](unsigned I) {
    QualType T = Callee->getParamDecl(I)->getType();
    if (!(T->isPointerType() || T->isReferenceType()) ||
        T->getPointeeType().isConstQualified())
      return false;
    return !HasBody || paramMemoryUse(Def, I).Written;
  };
  for (unsigned I = 0; I < N; ++I) {
    if (!Args[I]->Ty->isPointerType() || !Writes(I))
      continue;
    for (unsigned J = 0; J < N; ++J) {
      if (J == I || !Args[J]->Ty->isPointerType() ||
          !sameAddress(*Args[I], *Args[J]))
        continue;
      Diags.report(ArgExprs[std::max(I, J)]->getExprLoc(),
                   Diag::AliasedArguments)
          << Callee << Callee->getParamDecl(I)->getName()
          << Callee->getParamDecl(J)->getName();
      return false;
    }
  }
  return true;
}

ExprP FunctionLowering::addressOf(ExprP LV, QualType PtrTy) {
  // An element of a container held by an object (&L.w[i], &c.t(k)) is
  // taken where it is.
  if (LV->K != ExprKind::Index || LV->Ops[0]->Ty->isRecordType())
    return addrOf(LV, PtrTy);
  // &p[i] is p + i, &p[0] is p, &a[i] is a + i.
  ExprP Base = LV->Ops[0];
  if (!Base->Ty->isPointerType())
    Base = ir::cast(Ctx.getArrayDecayedType(Base->Ty), Base);
  if (LV->Ops[1]->isZero())
    return Ctx.hasSameType(Base->Ty, PtrTy) ? Base : ir::cast(PtrTy, Base);
  return binary(BO_Add, Base, LV->Ops[1], PtrTy);
}

ExprP FunctionLowering::lowerReferenceArg(const clang::Expr *A,
                                          QualType ParamTy, Block &Pre) {
  QualType Pointee = ParamTy.getNonReferenceType();
  bool Object = Pointee->isRecordType();
  if (Object ? !recordProblem(Pointee).empty() && !isClassWithoutReals(Pointee)
             : !Pointee->isArithmeticType() && !Pointee->isEnumeralType()) {
    if (Pointee->isArrayType()) { // T (&a)[N]: said with its advice
      checkType(ParamTy, A->getExprLoc(), "parameter");
      return nullptr;
    }
    Diags.report(A->getExprLoc(), Diag::UnsupportedType) << ParamTy
                                                          << "parameter";
    return nullptr;
  }
  QualType PtrTy = Ctx.getPointerType(Pointee);
  const clang::Expr *Inner = A->IgnoreParens();
  if (Object && !isa<DeclRefExpr, MemberExpr, ArraySubscriptExpr,
                     UnaryOperator>(Inner->IgnoreImpCasts())) {
    // An object made for the call (f(a + b), f(Vec3(1, 2, 3))): a new
    // temporary holds it.
    ExprP T = lowerTemporaryObject(A, Pre);
    return T ? addressOf(T, PtrTy) : nullptr;
  }
  if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(Inner)) {
    // A value bound to `const T&`: the callee reads a temporary.
    ExprP V = lowerExpr(MT->getSubExpr(), Pre);
    if (!V)
      return nullptr;
    V = convertResult(V, Pointee.getUnqualifiedType(), Pre);
    ExprP T = materialize(V, Pre, "_ref", A->getExprLoc());
    return addressOf(T, PtrTy);
  }
  ExprP LV = lowerExpr(Inner, Pre);
  if (!LV)
    return nullptr;
  if (LV->isLValue())
    return addressOf(LV, PtrTy);
  // An lvalue the IR holds as a value (c ? a : b): a const T& only reads
  // it, so a copy does; a T& would write to one of them.
  if (Pointee.isConstQualified()) {
    ExprP T = materialize(ir::cast(Pointee.getUnqualifiedType(), LV), Pre,
                          "_ref", A->getExprLoc());
    return addressOf(T, PtrTy);
  }
  Diags.report(A->getExprLoc(), Diag::NotSupported)
      << "a conditional passed to a non-const reference"
      << "pass a variable or an array element";
  return nullptr;
}

bool FunctionLowering::usesPoisoned(const clang::Stmt *S) const {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      return Poisoned.count(VD);
  for (const clang::Stmt *C : S->children())
    if (usesPoisoned(C))
      return true;
  return false;
}

bool FunctionLowering::effectGlobal(const Var *V) const {
  return Effects && V && V->K == Var::Kind::Global && V->Origin &&
         isCounterGlobal(V->Origin) && Effects->Written.count(V->Origin);
}

ExprP FunctionLowering::lowerLValue(const clang::Expr *E, Block &Pre) {
  // (c ? a : b) = v: lowering may give the selected value a local of its
  // own (an element of a container), which is a place, but not a or b.
  bool Chosen = isa<AbstractConditionalOperator>(E->IgnoreParenImpCasts());
  ExprP LV = Chosen ? nullptr : lowerExpr(E, Pre);
  if (!Chosen && !LV)
    return nullptr;
  if (Chosen || !LV->isLValue()) {
    // (c ? a : b) = v, or a function returning such a place: the IR holds
    // it as a value.
    Diags.report(E->getExprLoc(), Diag::NotSupported)
        << "assigning to a place chosen at run time (a conditional "
           "'c ? a : b', or a function returning one)"
        << "write the assignment in each branch of an 'if'";
    return nullptr;
  }
  Var *Root = LV->rootVar();
  if (Root && Root->K == Var::Kind::Global &&
      !(effectGlobal(Root) && LV->K == ir::ExprKind::VarRef) &&
      !(Root->Origin && NamedGlobals.count(Root->Origin))) {
    // Counters and flags (integers, bools, enums) may be written; a global
    // holding real numbers would need its old values and adjoints.
    std::string Name = Root->Origin ? Root->Origin->getNameAsString()
                                    : Root->Name;
    Diags.report(E->getExprLoc(), Diag::NotSupported)
        << ("writing the global variable '" + Name + "'")
        << (isCounterGlobal(Root->Origin)
                ? std::string("write the variable itself, not an element or "
                              "a member of it")
                : std::string("keep the value in a local variable, or pass "
                              "the memory as an output parameter"));
    return nullptr;
  }
  return LV;
}

/// A data member of an object: `s.m` is a member of the lvalue s, `p->m` a
/// member of p[0]. Member functions and static members are not data.
ExprP FunctionLowering::lowerMember(const MemberExpr *E, Block &Pre) {
  auto *Field = dyn_cast<FieldDecl>(E->getMemberDecl());
  if (!Field || Field->isBitField()) {
    if (!Field)
      Diags.report(E->getMemberLoc(), Diag::NotSupported)
          << "a static data member" << "pass its value as a parameter";
    else
      Diags.report(E->getMemberLoc(), Diag::NotSupported)
          << "a bit-field" << "declare the member without a width";
    return nullptr;
  }
  QualType Object = E->getBase()->getType();
  if (E->isArrow())
    Object = Object->getPointeeType();
  // A lambda's closure holds constants (the call-site form on a lambda
  // reads its captures from it).
  const CXXRecordDecl *ObjectClass = Object->getAsCXXRecordDecl();
  bool Closure = ObjectClass && ObjectClass->isLambda();
  if (isDifferentiableType(Field->getType()) && !Closure &&
      !isDifferentiableRecord(Object)) {
    Diags.report(E->getMemberLoc(), Diag::NotSupported)
        << ("reading member '" + Field->getNameAsString() + "' of " +
            Object.getUnqualifiedType().getAsString())
        << (recordProblem(Object) +
            ", which derivatives cannot follow yet; pass the real numbers "
            "to the function as a pointer or array parameter of their own");
    return nullptr;
  }
  // `v` in a place call's method body (`return v[i];`): a member of the
  // call's object.
  bool OfObject =
      ThisObject && isa<CXXThisExpr>(E->getBase()->IgnoreParenImpCasts());
  ExprP Base = lowerExpr(OfObject ? ThisObject : E->getBase(), Pre);
  if (!Base)
    return nullptr;
  if (OfObject ? ThisArrow : E->isArrow())
    Base = index(Base, intConst(Ctx.IntTy, 0), Object);
  if (!Base->isLValue()) {
    Diags.report(E->getExprLoc(), Diag::UnsupportedExpr)
        << "member of a temporary object";
    return nullptr;
  }
  ExprP M = member(Base, Field);
  std::const_pointer_cast<ir::Expr>(M)->Loc = E->getMemberLoc();
  return M;
}

ExprP FunctionLowering::lowerDeclRef(const DeclRefExpr *E, Block &Pre) {
  const ValueDecl *D = E->getDecl();
  if (const auto *VD = dyn_cast<VarDecl>(D)) {
    if (Poisoned.count(VD))
      return nullptr;
    if (EigenLocals.count(VD)) {
      Diags.report(E->getLocation(), Diag::NotSupported)
          << ("using '" + VD->getNameAsString() +
              "', an 'auto' holding an Eigen expression, other than in an "
              "Eigen expression")
          << ("declare it with the type it evaluates to ('Eigen::VectorXd " +
              VD->getNameAsString() +
              " = ...;', 'Eigen::Vector3d', 'Eigen::MatrixXd'), which holds "
              "values");
      return nullptr;
    }
    if (Lambdas.count(VD)) {
      Diags.report(E->getLocation(), Diag::NotSupported)
          << ("passing the lambda '" + VD->getNameAsString() + "' on")
          << "call it where it is defined, or make it a named function";
      return nullptr;
    }
    // A local reference or pointer that always designates the same place
    // (LowerAlias.cpp) is that place: its initialiser, again.
    if (const clang::Expr *Init = Aliases.lookup(VD))
      return lowerExpr(Init, Pre);
    if (auto W = Walkers.find(VD); W != Walkers.end())
      return walkerPointer(VD, ref(W->second.Pos, E->getLocation()), Pre);
    UnsizedLocals.erase(VD); // used: a later resize is no first sizing
    if (Iterators.count(VD)) {
      Diags.report(E->getLocation(), Diag::NotSupported)
          << ("passing iterator '" + VD->getNameAsString() + "' on")
          << "pass the element ('*" + VD->getNameAsString() +
                 "') or its index ('" + VD->getNameAsString() +
                 " - x.begin()')";
      return nullptr;
    }
    if (VD->getType()->isReferenceType() && !isa<ParmVarDecl>(VD) &&
        !Vars.count(VD)) {
      Diags.report(E->getLocation(), Diag::UnsupportedType)
          << VD->getType() << "variable";
      return nullptr;
    }
    Var *V = varFor(VD, E->getLocation());
    if (!V)
      return nullptr;
    if (V->ByRef)
      return index(ref(V, E->getLocation()), intConst(Ctx.IntTy, 0),
                   V->Type->getPointeeType());
    return ref(V, E->getLocation());
  }
  if (isa<EnumConstantDecl>(D))
    return lowerLiteral(E);
  // A structured binding (`auto &[x, y] = p;`) names a member or an
  // element of its hidden variable, or, for a std::pair or std::array
  // (the tuple protocol), what std::get<I> of it gives: that, again.
  if (const auto *BD = dyn_cast<BindingDecl>(D)) {
    if (const VarDecl *Holding = BD->getHoldingVar();
        Holding && Holding->getInit())
      return lowerExpr(Holding->getInit(), Pre);
    if (const clang::Expr *B = BD->getBinding())
      return lowerExpr(B, Pre);
  }
  if (auto *FD = dyn_cast<FunctionDecl>(D)) {
    // A function passed as a value (fluxion::pass_through(quantize, x)).
    auto R = std::make_shared<ir::Expr>();
    R->K = ExprKind::FuncRef;
    R->Ty = E->getType();
    R->Callee = const_cast<FunctionDecl *>(FD);
    R->Loc = E->getLocation();
    return R;
  }
  Diags.report(E->getLocation(), Diag::NotSupported)
      << ("using '" + D->getNameAsString() + "' here")
      << "copy its value into a local variable first, and use the local";
  return nullptr;
}

ExprP FunctionLowering::lowerCast(const CastExpr *E, Block &Pre) {
  switch (E->getCastKind()) {
  case CK_ArrayToPointerDecay: {
    // Kept as a conversion to the pointer type, so that an array passed to
    // a call looks like the pointer the callee receives.
    ExprP Sub = lowerExpr(E->getSubExpr(), Pre);
    return Sub ? ir::cast(E->getType(), Sub) : nullptr;
  }
  case CK_FunctionToPointerDecay: {
    ExprP Sub = lowerExpr(E->getSubExpr(), Pre);
    if (!Sub)
      return nullptr;
    auto R = std::make_shared<ir::Expr>(*Sub);
    R->Ty = E->getType();
    return R;
  }
  case CK_LValueToRValue: {
    noteRead(E->getSubExpr());
    ExprP V = lowerExpr(E->getSubExpr(), Pre);
    // A counter or flag that differentiated code may change: read into a
    // local, so that a reverse sweep needing the value has the one read
    // here (globals are never recorded or restored).
    if (V && V->K == ir::ExprKind::VarRef && effectGlobal(V->V))
      return materialize(V, Pre, "_" + V->V->Name, E->getExprLoc());
    if (Effects && V && V->K == ir::ExprKind::VarRef &&
        V->V->K == Var::Kind::Global && isCounterGlobal(V->V->Origin))
      Effects->ReadDirectly.try_emplace(V->V->Origin, BodyOwner);
    return V;
  }
  case CK_NoOp:
  case CK_UncheckedDerivedToBase:
  case CK_DerivedToBase:
    // An object is also its base: a base's members are the object's.
    return lowerExpr(E->getSubExpr(), Pre);
  case CK_IntegralToFloating:
  case CK_FloatingCast:
  case CK_FloatingToIntegral:
  case CK_IntegralCast:
  case CK_IntegralToBoolean:
  case CK_FloatingToBoolean:
  case CK_BooleanToSignedIntegral: {
    ExprP Sub = lowerExpr(E->getSubExpr(), Pre);
    if (!Sub)
      return nullptr;
    return ir::cast(E->getType(), Sub);
  }
  case CK_NullToPointer:
    return intConst(E->getType(), 0);
  case CK_PointerToBoolean: {
    // if (p), and assert(cond && "message"), whose string is never null.
    ExprP Sub = lowerExpr(E->getSubExpr(), Pre);
    if (!Sub)
      return nullptr;
    if (Sub->K == ExprKind::Cast && Sub->Ops[0]->Literal)
      return boolConst(Ctx, true);
    return binary(BO_NE, Sub, intConst(Sub->Ty, 0), E->getType());
  }
  case CK_UserDefinedConversion:
    // The call of the conversion function is the value (`s += x.transpose()
    // * A * x;`, a 1x1 Eigen product read as a number).
    if (isa<CXXMemberCallExpr>(E->getSubExpr()->IgnoreParens()))
      return lowerExpr(E->getSubExpr(), Pre);
    [[fallthrough]];
  default:
    Diags.report(E->getExprLoc(), Diag::UnsupportedCast)
        << E->getSubExpr()->getType() << E->getType();
    return nullptr;
  }
}

ExprP FunctionLowering::lowerUnary(const UnaryOperator *E, Block &Pre) {
  switch (E->getOpcode()) {
  case UO_Plus:
  case UO_Extension: // __extension__ (in glibc's assert)
    return lowerExpr(E->getSubExpr(), Pre);
  case UO_Minus:
  case UO_LNot:
  case UO_Not: {
    ExprP Sub = lowerExpr(E->getSubExpr(), Pre);
    if (!Sub)
      return nullptr;
    return unary(E->getOpcode(), Sub, E->getType());
  }
  case UO_Deref: {
    ExprP Ptr = lowerExpr(E->getSubExpr(), Pre);
    if (!Ptr)
      return nullptr;
    return index(Ptr, intConst(Ctx.IntTy, 0), E->getType());
  }
  case UO_AddrOf: {
    ExprP LV = lowerExpr(E->getSubExpr()->IgnoreParens(), Pre);
    if (!LV)
      return nullptr;
    if (!LV->isLValue()) {
      Diags.report(E->getExprLoc(), Diag::UnsupportedExpr) << "address-of";
      return nullptr;
    }
    return addressOf(LV, E->getType());
  }
  case UO_PreInc:
  case UO_PreDec:
  case UO_PostInc:
  case UO_PostDec:
    // `x[k++]`, `while (++i < n)`: the update is a statement that runs
    // before the expression, which reads the value the operator yields.
    return lowerIncrement(E, Pre);
  default:
    if (!usesPoisoned(E))
      Diags.report(E->getExprLoc(), Diag::UnsupportedExpr)
          << describeConstruct(E);
    return nullptr;
  }
}

ExprP FunctionLowering::lowerBinary(const BinaryOperator *E, Block &Pre) {
  BinaryOperatorKind Op = E->getOpcode();
  // `a = b = c`, `(t = x[i]) > m`, `(++k, x[k])`: the assignment (or the
  // left operand) is a statement that runs first; the expression reads
  // the assigned place (the right operand).
  if (Op == BO_Comma)
    return lowerExprStmt(E->getLHS(), Pre) ? lowerExpr(E->getRHS(), Pre)
                                           : nullptr;
  if (E->isAssignmentOp()) {
    if (!lowerAssignment(E, Pre))
      return nullptr;
    if (const VarDecl *W = walkerRef(E->getLHS()))
      return walkerPointer(W, ref(Walkers.lookup(W).Pos), Pre);
    assert(!Pre.empty() && Pre.back()->K == StmtKind::Assign &&
           "an assignment ends with its store");
    return Pre.back()->LHS;
  }
  if (Op == BO_PtrMemD || Op == BO_PtrMemI || Op == BO_Cmp) {
    Diags.report(E->getOperatorLoc(), Diag::UnsupportedExpr)
        << BinaryOperator::getOpcodeStr(Op);
    return nullptr;
  }
  if (E->isLogicalOp() && needsStatements(E->getRHS()))
    return lowerShortCircuit(E, Pre);
  if (ExprP C = lowerWalkingComparison(E, Pre))
    return C;
  ExprP L = lowerExpr(E->getLHS(), Pre);
  ExprP R = L ? lowerExpr(E->getRHS(), Pre) : nullptr;
  if (!R)
    return nullptr;
  return binary(Op, L, R, E->getType(), E->getOperatorLoc());
}

ExprP FunctionLowering::lowerShortCircuit(const BinaryOperator *E,
                                          Block &Pre) {
  // a && b  with calls in b:  t = a; if (t) { t = b; }
  // a || b  with calls in b:  t = a; if (!t) { t = b; }
  ExprP L = lowerExpr(E->getLHS(), Pre);
  if (!L)
    return nullptr;
  ExprP T = materialize(ir::cast(Ctx.BoolTy, L), Pre, "_cond",
                        E->getOperatorLoc());
  Block RHSBlock;
  ExprP R = lowerExpr(E->getRHS(), RHSBlock);
  if (!R)
    return nullptr;
  RHSBlock.push_back(assign(T, ir::cast(Ctx.BoolTy, R)));
  ExprP Test = E->getOpcode() == BO_LAnd ? T : unary(UO_LNot, T, Ctx.BoolTy);
  Pre.push_back(ifStmt(Test, std::move(RHSBlock)));
  return T;
}

ExprP FunctionLowering::lowerConditional(const ConditionalOperator *E,
                                         Block &Pre) {
  ExprP C = lowerExpr(E->getCond(), Pre);
  if (!C)
    return nullptr;
  QualType Ty = E->getType();
  if (!needsStatements(E->getTrueExpr()) && !needsStatements(E->getFalseExpr())) {
    ExprP A = lowerExpr(E->getTrueExpr(), Pre);
    ExprP B = A ? lowerExpr(E->getFalseExpr(), Pre) : nullptr;
    if (!B)
      return nullptr;
    return cond(C, ir::cast(Ty, A), ir::cast(Ty, B), Ty);
  }
  // Branches with calls must not both run: lower to an if statement.
  Var *T = F->makeVar(Var::Kind::Temp, "_sel", Ty.getUnqualifiedType());
  F->Locals.push_back(T);
  Block Then, Else;
  ExprP A = lowerExpr(E->getTrueExpr(), Then);
  ExprP B = A ? lowerExpr(E->getFalseExpr(), Else) : nullptr;
  if (!B)
    return nullptr;
  Then.push_back(assign(ref(T), ir::cast(Ty, A)));
  Else.push_back(assign(ref(T), ir::cast(Ty, B)));
  Pre.push_back(ifStmt(C, std::move(Then), std::move(Else),
                       E->getQuestionLoc()));
  return ref(T);
}

/// The runtime's namespace fluxion::custom (derivative rules, markers), if
/// the translation unit has it.
static DeclContext *customNamespace(ASTContext &Ctx) {
  auto Find = [&](DeclContext *DC, StringRef Name) -> DeclContext * {
    for (NamedDecl *D : DC->lookup(&Ctx.Idents.get(Name)))
      if (auto *NS = dyn_cast<NamespaceDecl>(D))
        return NS;
    return nullptr;
  };
  DeclContext *Fluxion = Find(Ctx.getTranslationUnitDecl(), "fluxion");
  return Fluxion ? Find(Fluxion, "custom") : nullptr;
}

/// True for std::NAME when the runtime declares the marker
/// fluxion::custom::NAME_position (algorithm.hpp): the call returns a
/// position in the range that starts at its first argument.
bool FunctionLowering::returnsPositionInFirstRange(const FunctionDecl *Callee) {
  if (!Callee->getIdentifier() || !Callee->isInStdNamespace() ||
      !Callee->getReturnType()->isPointerType())
    return false;
  return hasPositionMarker(Callee->getName());
}

bool FunctionLowering::hasPositionMarker(StringRef Name) {
  DeclContext *Custom = customNamespace(Ctx);
  if (!Custom)
    return false;
  std::string Marker = (Name + "_position").str();
  return !Custom->lookup(&Ctx.Idents.get(Marker)).empty();
}

/// True when namespace fluxion::custom declares a derivative rule for calls
/// of a function named Stem (Stem_vjp, Stem_jvp or Stem_fwd). Only the name
/// is looked up: whether a rule fits a call is overload resolution's
/// business (CustomRules.cpp), which reports a rule that does not.
static bool hasRuleNamed(ASTContext &Ctx, StringRef Stem) {
  DeclContext *Custom = customNamespace(Ctx);
  if (!Custom)
    return false;
  for (const char *Suffix : {"_vjp", "_jvp", "_fwd"})
    if (!Custom->lookup(&Ctx.Idents.get((Stem + Suffix).str())).empty())
      return true;
  return false;
}

/// A builtin that only makes a constant (__builtin_inf, __builtin_huge_val,
/// __builtin_nan: what INFINITY, HUGE_VAL and NAN expand to): a real result
/// from no number, so it carries no derivative.
/// Every return in S is `return *this;` (and there is one).
static bool returnsOnlyThis(const Stmt *S, bool &Found) {
  if (!S)
    return true;
  if (const auto *R = dyn_cast<ReturnStmt>(S)) {
    const auto *U = dyn_cast_or_null<UnaryOperator>(
        R->getRetValue() ? R->getRetValue()->IgnoreParenImpCasts() : nullptr);
    Found = true;
    return U && U->getOpcode() == UO_Deref &&
           isa<CXXThisExpr>(U->getSubExpr()->IgnoreParenImpCasts());
  }
  if (isa<LambdaExpr>(S))
    return true;
  for (const Stmt *C : S->children())
    if (!returnsOnlyThis(C, Found))
      return false;
  return true;
}

/// A method that returns its object (`Vec2 &operator+=(...) { ...; return
/// *this; }`): its call is its object, after the call's effect.
static bool returnsItsObject(const FunctionDecl *Method) {
  const FunctionDecl *Def = nullptr;
  if (!isa<CXXMethodDecl>(Method) || !Method->hasBody(Def))
    return false;
  bool Found = false;
  return returnsOnlyThis(Def->getBody(), Found) && Found;
}

static bool isConstantBuiltin(const FunctionDecl *FD) {
  const auto *Proto = FD->getType()->getAs<FunctionProtoType>();
  if (!Proto || Proto->isVariadic() ||
      !FD->getReturnType()->isRealFloatingType())
    return false;
  for (QualType P : Proto->getParamTypes())
    if (!P->isPointerType() || !P->getPointeeType().isConstQualified() ||
        !P->getPointeeType()->isCharType()) // __builtin_nan("")
      return false;
  return true;
}

/// Glvalues the lowering converts to a value or binds to a `const T&`
/// parameter (the nested std::max(std::max(a, b), c)), noted as it meets
/// them: a call returning a reference there may be lowered as if it
/// returned by value; a reference kept (`const double &r = std::max(a, b)`)
/// would see later writes to a or b, which a copy does not. (Clang's parent
/// map cannot tell: it is built once, before later functions exist.)
void FunctionLowering::noteRead(const clang::Expr *E) {
  E = E->IgnoreParens();
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    noteRead(CO->getTrueExpr());
    noteRead(CO->getFalseExpr());
    return;
  }
  OnlyRead.insert(E);
}

void FunctionLowering::noteConvertedToValue(const clang::Expr *E) {
  // Through the conversions of the value (float to double, ...).
  E = E->IgnoreParens();
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
    E = EWC->getSubExpr()->IgnoreParens();
  while (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
    if (ICE->getCastKind() == CK_LValueToRValue) {
      noteRead(ICE->getSubExpr());
      return;
    }
    E = ICE->getSubExpr()->IgnoreParens();
  }
}

bool FunctionLowering::resultOnlyRead(const clang::Expr *E) {
  return OnlyRead.count(E);
}

/// Lowers the arguments of a call to Callee after the Args already there
/// (a view's self and result); ArgExprs are the clang expressions of all of
/// them.
bool FunctionLowering::lowerArguments(
    const FunctionDecl *Callee, llvm::ArrayRef<const clang::Expr *> ArgExprs,
    llvm::SmallVectorImpl<ExprP> &Args, Block &Pre, SourceLocation Loc) {
  for (unsigned I = Args.size(); I < ArgExprs.size(); ++I) {
    const clang::Expr *A = ArgExprs[I];
    ExprP L;
    QualType PT = I < Callee->getNumParams()
                      ? Callee->getParamDecl(I)->getType()
                      : QualType();
    if (!PT.isNull() && isEigenBaseClass(PT)) {
      // Its coefficients are reached through Eigen's internals (data(),
      // derived()), which derivative code does not follow.
      // As written: MatrixBase<D> in a template, not its instance.
      const FunctionDecl *Written = Callee->getTemplateInstantiationPattern();
      QualType Shown = Written && I < Written->getNumParams()
                           ? Written->getParamDecl(I)->getType()
                           : PT;
      std::string Param = Shown.getNonReferenceType().getUnqualifiedType()
                              .getAsString(Ctx.getPrintingPolicy());
      Diags.report(A->getExprLoc(), Diag::NotSupported)
          << ("passing an Eigen object to '" + Callee->getNameAsString() +
              "', whose parameter is an Eigen base class ('" + Param + "')")
          << "take the parameter as the type it is given ('const "
             "Eigen::Vector3d &', 'const Eigen::VectorXd &') or as a "
             "template parameter ('template <class T> ... (const T &a)')";
      return false;
    }
    if (!PT.isNull() && !containerElement(PT).isNull()) {
      L = lowerContainerArg(A, PT, Pre);
    } else if (!PT.isNull() && PT->isReferenceType()) {
      if (PT->isLValueReferenceType() && PT->getPointeeType().isConstQualified())
        noteRead(A);
      L = lowerReferenceArg(A, PT, Pre);
    } else if (!PT.isNull() && isEmptyFunctionObject(PT)) {
      // A function object with no data, by value: the argument if it is a
      // variable, else an object of the class made here.
      QualType T = PT.getNonReferenceType().getUnqualifiedType();
      const clang::Expr *Src = A->IgnoreImplicit()->IgnoreParens();
      if (const auto *CE = dyn_cast<CXXConstructExpr>(Src);
          CE && CE->getNumArgs() == 1)
        Src = CE->getArg(0)->IgnoreImplicit()->IgnoreParens();
      ExprP Obj = isa<DeclRefExpr>(Src) ? lowerExpr(Src, Pre)
                                        : lowerTemporaryObject(Src, Pre);
      L = Obj ? addressOf(Obj, Ctx.getPointerType(T)) : nullptr;
    } else if (!PT.isNull() && isDifferentiableRecord(PT)) {
      // An object passed by value is read in place (the callee does not
      // write it: its own lowering checks): the copy's source, by address.
      const clang::Expr *Src = A->IgnoreImplicit();
      if (const auto *CE = dyn_cast<CXXConstructExpr>(Src))
        if (CE->getNumArgs() == 1 && actsTrivially(CE->getConstructor()))
          Src = CE->getArg(0);
      L = lowerReferenceArg(
          Src, Ctx.getLValueReferenceType(PT.getUnqualifiedType().withConst()),
          Pre);
    } else {
      L = lowerExpr(A, Pre);
    }
    if (!L)
      return false;
    // Keep the parameter's constness on a pointer argument: the analyses
    // ask the argument whether the callee may write through it.
    if (I < Callee->getNumParams() && L->Ty->isPointerType()) {
      QualType P = Callee->getParamDecl(I)->getType();
      if (P->isPointerType() && P->getPointeeType().isConstQualified() &&
          !L->Ty->getPointeeType().isConstQualified())
        L = ir::cast(P.getUnqualifiedType(), L);
    }
    Args.push_back(L);
  }
  if (!checkAliasing(ArgExprs, Callee, Args))
    return false;
  // A value argument that reads memory the same call may write (f(t, t[0]),
  // g(&y, y)) is saved first: derivatives of the call need it as it was.
  llvm::SmallPtrSet<const Var *, 4> Written;
  for (const ExprP &A : Args)
    if (A->Ty->isPointerType() && !A->Ty->getPointeeType().isConstQualified())
      if (const Var *Root = A->rootVar())
        Written.insert(Root);
  for (ExprP &A : Args) {
    if (A->Ty->isPointerType() || Written.empty())
      continue;
    bool Reads = false;
    ir::forEachExpr(*A, [&](const ir::Expr &X) {
      Reads |= X.K == ExprKind::VarRef && Written.count(X.V);
    });
    if (Reads)
      A = materialize(A, Pre, "_arg", Loc);
  }
  return true;
}

bool FunctionLowering::lowerStdGet(const CallExpr *E, Block &Pre,
                                   ExprP &Out) {
  Out = nullptr;
  // std::get<I>(x) of a std::pair or std::array (what a structured binding
  // of one reads): its member or element I, where it is.
  const FunctionDecl *FD = E->getDirectCallee();
  if (!FD || !FD->isInStdNamespace() || !FD->getIdentifier() ||
      FD->getName() != "get" || E->getNumArgs() != 1)
    return false;
  const TemplateArgumentList *TA = FD->getTemplateSpecializationArgs();
  if (!TA || TA->size() == 0 ||
      TA->get(0).getKind() != TemplateArgument::Integral)
    return false;
  uint64_t I = TA->get(0).getAsIntegral().getZExtValue();
  const clang::Expr *Arg = E->getArg(0);
  QualType T = Arg->getType().getNonReferenceType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->isInStdNamespace() || !RD->getIdentifier())
    return false;
  if (RD->getName() == "pair") {
    auto Fields = RD->getDefinition()->fields();
    auto It = Fields.begin();
    for (uint64_t K = 0; K < I && It != Fields.end(); ++K)
      ++It;
    if (It == Fields.end())
      return false;
    ExprP X = lowerExpr(Arg, Pre);
    if (X)
      Out = ir::member(X, *It);
    return true;
  }
  if (RD->getName() == "array" && containerFixedSize(T) &&
      !containerElement(T).isNull()) {
    ExprP X = lowerExpr(Arg, Pre);
    if (X)
      Out = index(X, intConst(Ctx.getSizeType(), int64_t(I)),
                  containerElement(T));
    return true;
  }
  return false;
}

ExprP FunctionLowering::lowerCall(const CallExpr *E, Block &Pre,
                                  bool TopLevel, bool Discarded) {
  if (isa<CUDAKernelCallExpr, UserDefinedLiteral>(E)) {
    if (!usesPoisoned(E))
      Diags.report(E->getExprLoc(), Diag::UnsupportedExpr)
          << describeConstruct(E);
    return nullptr;
  }
  // A method of a local whose declaration was refused (and said why).
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
      MC && usesPoisoned(MC->getImplicitObjectArgument()))
    return nullptr;
  if (ExprP G; lowerStdGet(E, Pre, G))
    return G;
  if (isLambdaCall(E))
    return lowerLambdaCall(E, Pre);
  if (ExprP C; lowerCallTakingLambda(E, Pre, C))
    return C;
  if (ExprP C; lowerIteratorOp(E, Pre, C))
    return C;
  if (ExprP C; lowerAlgorithm(E, Pre, C, Discarded))
    return !C || TopLevel || C->K != ExprKind::Call
               ? C
               : materialize(C, Pre, ("_" + C->Callee->getName()).str(),
                             E->getExprLoc());
  if (ExprP C; lowerContainerCall(E, Pre, C))
    return C;
  if (ExprP C; lowerEigenCommaInit(E, Pre, C))
    return C;
  if (ExprP C; lowerEigenExpressionCall(E, Pre, C))
    return C;
  if (refuseEigenOperation(E))
    return nullptr;
  MemberCall MC = memberCall(E);
  if (isa<CXXMemberCallExpr>(E) && !MC.Method) {
    Diags.report(E->getExprLoc(), Diag::IndirectCall);
    return nullptr;
  }
  if (MC.Dynamic) {
    Diags.report(E->getExprLoc(), Diag::NotSupported)
        << ("a dynamic virtual call to '" + MC.Method->getNameAsString() +
            "', whose target is known only at run time")
        << ("call the override you mean (obj." +
            MC.Method->getParent()->getNameAsString() +
            "::" + MC.Method->getNameAsString() +
            "(...)), or declare the class or the method 'final'");
    return nullptr;
  }
  const FunctionDecl *Target =
      MC.Method ? MC.Method : E->getDirectCallee();
  if (!Target) {
    Diags.report(E->getExprLoc(), Diag::IndirectCall);
    return nullptr;
  }
  // A function returning a reference to a place built from its arguments
  // is that place (LowerPlaceCall.cpp); the library's (std::max, whose
  // rules are data) are not lowered this way.
  if (!Target->isInStdNamespace() &&
      !(Target->getIdentifier() && hasRuleNamed(Ctx, Target->getName())))
    if (ExprP P; lowerPlaceCall(E, Target, Pre, P))
      return P;
  // The IR arguments, as clang expressions: for a view (FunctionViews.h),
  // a method's object (its address is `self`) and the call itself (where
  // an object result goes), then the call's arguments.
  llvm::SmallVector<const clang::Expr *, 8> ArgExprs;
  FunctionDecl *Callee = const_cast<FunctionDecl *>(Target);
  const FunctionView *View = nullptr;
  // std::move(x), std::forward<T>(x), std::as_const(x) designate x.
  if (E->getNumArgs() == 1) {
    switch (Target->getBuiltinID(/*ConsiderWrapperFunctions=*/true)) {
    case Builtin::BImove:
    case Builtin::BIforward:
    case Builtin::BImove_if_noexcept:
    case Builtin::BIas_const:
      return lowerExpr(E->getArg(0), Pre);
    default:
      break;
    }
  }
  // A free function returning a reference to a number that has a custom
  // rule (std::max, std::min, std::clamp and their rules in the runtime's
  // minmax.hpp) is used by value where its result is only read: through a
  // view returning the number (FunctionViews.cpp), so that the rule gets
  // the seed of a function returning a number. Without a rule, returning
  // a reference stays refused below.
  bool ByValue = false;
  if (!needsView(Target) && Target->getIdentifier() &&
      Target->getReturnType()->isReferenceType() &&
      Target->getReturnType()->getPointeeType()->isArithmeticType() &&
      hasRuleNamed(Ctx, Target->getName()) && resultOnlyRead(E)) {
    Callee = viewOf(Target);
    View = asView(Callee);
    ByValue = true;
  } else if (needsView(Target)) {
    Callee = viewOf(Target);
    View = asView(Callee);
    if (View->Self)
      ArgExprs.push_back(MC.Object);
    if (View->Result)
      ArgExprs.push_back(E);
  }
  for (unsigned I = MC.FirstArg; I < E->getNumArgs(); ++I)
    ArgExprs.push_back(E->getArg(I));
  if (isFluxionHelper(Callee, "stop_gradient") && E->getNumArgs() == 1) {
    ExprP Arg = lowerExpr(E->getArg(0), Pre);
    if (!Arg)
      return nullptr;
    return stopGrad(Arg, E->getType(), E->getExprLoc());
  }
  // A builtin spelling of a library function (__builtin_sqrt) has that
  // function's rules (CustomRules.cpp finds sqrt's); a builtin constant
  // (INFINITY, HUGE_VAL) is a call with no derivative. Others are refused.
  if (Callee->getBuiltinID() && Callee->getName().starts_with("__builtin_")) {
    StringRef Stem = Callee->getName().drop_front(StringRef("__builtin_").size());
    if (!isConstantBuiltin(Callee) && !hasRuleNamed(Ctx, Stem)) {
      Diags.report(E->getExprLoc(), Diag::NoDerivative)
          << Callee << (Stem + "_vjp").str();
      return nullptr;
    }
  }
  // A method returning a reference to its object (operator+= and other
  // chainable setters) may be called for its effect; its view returns void.
  // Used (`(a += u) *= t`, `(a += u).x`) when it returns its object: the
  // call for its effect, then the object.
  bool Chained = View && View->Self && View->DropsReference && !Discarded &&
                 returnsItsObject(Target);
  bool ForEffect =
      View && View->Self && View->DropsReference && (Discarded || Chained);
  if (E->getCallReturnType(Ctx)->isReferenceType() && !ForEffect &&
      !ByValue) {
    Diags.report(E->getExprLoc(), Diag::NotDifferentiable)
        << Target
        << "it returns a reference from a body other than 'return "
           "place;'; return the value, or access the element directly";
    return nullptr;
  }
  bool Position = returnsPositionInFirstRange(Callee) && E->getNumArgs() > 0;
  if (Position && TopLevel) {
    // Kept as a pointer (a local pointer variable): not supported.
    Diags.report(E->getExprLoc(), Diag::UnsupportedExpr)
        << ("storing the position '" + Callee->getName() +
            "' returns; use it directly (*std::" + Callee->getName() +
            "(...)) or keep its index (std::" + Callee->getName() +
            "(...) - first)")
               .str();
    return nullptr;
  }
  // An object result goes to a new temporary, an lvalue like a variable.
  ExprP ResultObject;
  bool EigenResult = false;
  if (View && View->Result) {
    QualType RT = Target->getReturnType().getUnqualifiedType();
    if (eigenShape(RT) && containerFixedSize(RT)) {
      // A fixed-size Eigen object: a new local (its storage), passed to
      // the view's `T &result`.
      EigenResult = true;
      ResultObject = eigenTemporary(
          "_" + viewIdentifier(Target), RT, nullptr, nullptr,
          "calling '" + Target->getNameAsString() + "'", Pre, E->getExprLoc());
      if (!ResultObject)
        return nullptr;
    } else if (returnsFixedContainer(RT)) {
      // A std::array: the same, a new local container.
      EigenResult = true;
      std::string Name = "_" + viewIdentifier(Target);
      SourceLocation Loc = E->getExprLoc();
      auto *VD = VarDecl::Create(Ctx, F->Primal, Loc, Loc,
                                 &Ctx.Idents.get(Name), RT,
                                 Ctx.getTrivialTypeSourceInfo(RT, Loc),
                                 SC_None);
      Var *T = F->makeVar(
          Var::Kind::Local, Name,
          Ctx.getPointerType(containerElement(RT).getUnqualifiedType()), VD);
      F->Locals.push_back(T);
      ResultObject = ref(T, Loc);
    } else {
      Var *T = F->makeVar(Var::Kind::Local, "_" + viewIdentifier(Target), RT);
      F->Locals.push_back(T);
      ResultObject = ref(T, E->getExprLoc());
    }
  }
  llvm::SmallVector<ExprP, 4> Args;
  if (View && View->Self) {
    // The object: `self` is its address (p->m(): p itself).
    QualType PT = Callee->getParamDecl(0)->getType();
    ExprP L = MC.Arrow ? lowerExpr(MC.Object, Pre)
                       : lowerReferenceArg(
                             MC.Object,
                             Ctx.getLValueReferenceType(PT->getPointeeType()),
                             Pre);
    if (!L)
      return nullptr;
    Args.push_back(L);
  }
  if (View && View->Result)
    Args.push_back(EigenResult
                       ? ResultObject
                       : addressOf(ResultObject,
                                   Callee->getParamDecl(View->Self)->getType()));
  if (!lowerArguments(Callee, ArgExprs, Args, Pre, E->getExprLoc()))
    return nullptr;
  bool NoValue = ForEffect || (View && View->Result);
  QualType ValueTy = ByValue ? Callee->getReturnType() : E->getType();
  ExprP C = call(Callee, Args, NoValue ? Ctx.VoidTy : ValueTy,
               E->getExprLoc());
  if (Position) {
    // first + k, with k = algorithm(first, ...) - first an integer that
    // carries no derivative: *std::max_element(x, x + n) reads x[k].
    ExprP SG = stopGrad(C, E->getType(), E->getExprLoc());
    QualType Diff = Ctx.getPointerDiffType();
    ExprP K = materialize(binary(BO_Sub, SG, Args[0], Diff), Pre, "_pos",
                          E->getExprLoc());
    return binary(BO_Add, Args[0], K, E->getType());
  }
  if (ResultObject) {
    Pre.push_back(eval(C, E->getBeginLoc()));
    return ResultObject;
  }
  if (Chained) {
    Pre.push_back(eval(C, E->getBeginLoc()));
    return index(Args[0], intConst(Ctx.IntTy, 0),
                 Args[0]->Ty->getPointeeType());
  }
  if (TopLevel || E->getType()->isVoidType())
    return C;
  return materialize(C, Pre, "_" + viewIdentifier(Target), E->getExprLoc());
}

} // namespace fluxion
