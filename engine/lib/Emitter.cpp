//===- Emitter.cpp - Fluxion IR to Clang AST -------------------------------===//
#include "fluxion/engine/Emitter.h"
#include "fluxion/engine/FunctionViews.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/Template.h"
#include "clang/Sema/TemplateDeduction.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace clang;

namespace fluxion {
using ir::Block;
using ir::ExprKind;
using ir::ExprP;
using ir::StmtKind;
using ir::StmtP;
using ir::Var;


Expr *Emitter::bad(StringRef What) {
  if (!Failed)
    Diags.report(Loc, Diag::InternalError) << What;
  Failed = true;
  return nullptr;
}

static NestedNameSpecifier *qualifierFor(ASTContext &Ctx, DeclContext *DC) {
  DC = DC->getRedeclContext();
  auto *NS = dyn_cast<NamespaceDecl>(DC);
  if (!NS)
    return nullptr;
  NestedNameSpecifier *Prefix = qualifierFor(Ctx, NS->getParent());
  // Inline (std::__1) and anonymous namespaces are not spelled.
  if (NS->isInline() || NS->isAnonymousNamespace())
    return Prefix;
  return NestedNameSpecifier::Create(Ctx, Prefix, NS);
}

/// Where generated code names FD from: its own namespace, except for a
/// library's internal namespace inside std whose functions std declares
/// too (libc++'s std::__math::hypot is std::hypot).
static DeclContext *spelledContext(FunctionDecl *FD) {
  DeclContext *DC = FD->getDeclContext()->getRedeclContext();
  auto *NS = dyn_cast<NamespaceDecl>(DC);
  if (!NS || !NS->getIdentifier() || !NS->getName().starts_with("__") ||
      !FD->getDeclName().isIdentifier())
    return DC;
  // The enclosing namespaces up to std (libc++'s inline std::__1 too).
  DeclContext *Found = nullptr;
  for (DeclContext *P = DC->getParent(); P; P = P->getParent()) {
    if (!Found && !P->lookup(FD->getDeclName()).empty())
      Found = P;
    if (P->isStdNamespace())
      return Found ? Found : DC;
  }
  return DC;
}

Expr *Emitter::functionRef(FunctionDecl *FD, SourceLocation L) {
  ASTContext &Ctx = S.getASTContext();
  CXXScopeSpec SS;
  if (NestedNameSpecifier *NNS = qualifierFor(Ctx, spelledContext(FD)))
    SS.MakeTrivial(Ctx, NNS, SourceRange(L, L));
  DeclarationNameInfo Name(FD->getDeclName(), L);
  return S.BuildDeclRefExpr(FD, FD->getType(), VK_LValue, Name, &SS);
}

/// T as generated code may spell it: a number type that a library names
/// through its internals (`__gnu_cxx::__enable_if<__is_integer<int>::__value,
/// double>::__type`, the result of std::fabs(int); libc++'s difference of
/// iterators, `decltype(__x.base() - __y.base())`) is the plain type; the
/// user's own typedefs stay. A class's member typedef naming a number or
/// an Eigen object (Eigen's `RealScalar`, the type of `auto n = v.norm();`;
/// the `type` of `auto c = a.cross(b);`) is not in scope where the
/// generated code is: the type it names.
static QualType spellable(ASTContext &Ctx, QualType T) {
  QualType C = T.getCanonicalType();
  if (T.getTypePtr() == C.getTypePtr())
    return T;
  const SourceManager &SM = Ctx.getSourceManager();
  for (QualType S = T;;) {
    const auto *TT = dyn_cast<TypedefType>(S.getTypePtr());
    bool Member = TT && TT->getDecl()->getDeclContext()->isRecord() &&
                  (C->isBuiltinType() || isInEigen(TT->getDecl()));
    if (Member ||
        (C->isBuiltinType() &&
         (isa<DecltypeType, TypeOfExprType>(S.getTypePtr()) ||
          (TT && SM.isInSystemHeader(TT->getDecl()->getLocation())))))
      return Ctx.getQualifiedType(C, T.getLocalQualifiers());
    QualType Next = S.getSingleStepDesugaredType(Ctx);
    if (Next == S)
      return T;
    S = Next;
  }
}

Expr *Emitter::convert(Expr *E, QualType Ty) {
  if (!E)
    return nullptr;
  ASTContext &Ctx = S.getASTContext();
  if (Ty.isNull() || Ty->isVoidType() ||
      Ctx.hasSameUnqualifiedType(E->getType(), Ty))
    return E;
  auto Scalar = [](QualType T) {
    return T->isArithmeticType() || T->isEnumeralType();
  };
  if (!Scalar(Ty) || !Scalar(E->getType()))
    return E;
  ExprResult R = S.BuildCStyleCastExpr(
      Loc,
      Ctx.getTrivialTypeSourceInfo(spellable(Ctx, Ty.getUnqualifiedType()),
                                   Loc),
      Loc, E);
  return R.isInvalid() ? bad("conversion") : R.get();
}

Expr *Emitter::thisExpr() {
  const auto *M = dyn_cast<CXXMethodDecl>(Target);
  if (!M || M->isStatic())
    return bad("'this' outside a member function");
  return S.BuildCXXThisExpr(Loc, M->getThisType(), /*IsImplicit=*/false);
}

Expr *Emitter::varRef(Var *V) {
  if (V == ThisVar && V)
    return thisExpr();
  ValueDecl *D = nullptr;
  if (V->K == Var::Kind::Global) {
    D = V->Origin;
  } else {
    auto It = Decls.find(V);
    if (It != Decls.end())
      D = It->second;
  }
  if (!D)
    return bad("reference to an undeclared variable '" + V->Name + "'");
  QualType T = D->getType().getNonReferenceType();
  Expr *Ref = S.BuildDeclRefExpr(D, T, VK_LValue, Loc);
  if (isContainerStorage(V, D)) {
    if (VarDecl *Data = DataPtrs.lookup(V))
      return S.BuildDeclRefExpr(Data, Data->getType().getNonReferenceType(),
                                VK_LValue, Loc);
    return containerCall(Ref, "data", {});
  }
  if (!V->ByRef)
    return Ref;
  // The IR reads a reference through its address.
  ExprResult R = S.BuildUnaryOp(nullptr, Loc, UO_AddrOf, Ref);
  return R.isInvalid() ? bad("address of a reference") : R.get();
}

bool Emitter::isContainerStorage(const Var *V, const ValueDecl *D) {
  if (!V->Type->isPointerType())
    return false;
  QualType T = D->getType().getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  return !containerElement(T).isNull();
}

bool Emitter::stableStorage(const Var *V) const {
  auto It = Decls.find(V);
  if (It == Decls.end() || DataPtrs.count(V) ||
      !isContainerStorage(V, It->second))
    return false;
  QualType T = It->second->getType().getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  // Eigen objects are left to Eigen; a std::array's data() is its address.
  if (eigenShape(T))
    return false;
  if (const auto *R = T->getAsCXXRecordDecl())
    if (R->getName() == "array")
      return false;
  return true;
}

VarDecl *Emitter::hoistedLocal(const Var *V, StringRef Suffix, QualType T,
                              Expr *Init) {
  ASTContext &Ctx = S.getASTContext();
  std::string Name = V->Name + "_" + Suffix.str();
  for (unsigned I = 1; Names.count(Name); ++I)
    Name = V->Name + "_" + Suffix.str() + "_" + std::to_string(I);
  Names.insert(Name);
  auto *VD = VarDecl::Create(Ctx, Target, Loc, Loc, &Ctx.Idents.get(Name), T,
                             Ctx.getTrivialTypeSourceInfo(T, Loc), SC_None);
  S.AddInitializerToDecl(VD, Init, /*DirectInit=*/false);
  return VD->isInvalidDecl() ? nullptr : VD;
}

bool Emitter::hoistData(Var *V, llvm::SmallVectorImpl<Stmt *> &Out) {
  ASTContext &Ctx = S.getASTContext();
  auto It = Decls.find(V);
  auto Ref = [&] {
    return S.BuildDeclRefExpr(It->second,
                              It->second->getType().getNonReferenceType(),
                              VK_LValue, Loc);
  };
  bool ByPointer = Ref()->getType()->isPointerType();
  // An adjoint passed by pointer may be null (a callee's pullback given no
  // adjoint of an argument): d_x ? d_x->data() : nullptr, and its size is
  // read where it is used.
  auto OrNull = [&](Expr *E, Expr *Null) -> Expr * {
    if (!ByPointer || !E)
      return E;
    ExprResult Cond = S.ActOnConditionalOp(Loc, Loc, Ref(), E, Null);
    return Cond.isInvalid() ? nullptr : Cond.get();
  };
  Expr *Data = OrNull(containerCall(Ref(), "data", {}),
                      S.ActOnCXXNullPtrLiteral(Loc).get());
  VarDecl *DataVD =
      Data ? hoistedLocal(V, "data",
                          Ctx.getConstType(Data->getType().getNonReferenceType()),
                          Data)
           : nullptr;
  if (!DataVD)
    return bad("data pointer"), false;
  DataPtrs[V] = DataVD;
  DataScope.push_back(V);
  Out.push_back(new (Ctx) DeclStmt(DeclGroupRef(DataVD), Loc, Loc));
  if (ByPointer || !SizeRead.count(V))
    return true;
  Expr *N = containerCall(Ref(), "size", {});
  VarDecl *SizeVD =
      N ? hoistedLocal(V, "size", Ctx.getConstType(Ctx.getSizeType()),
                       convert(N, Ctx.getSizeType()))
        : nullptr;
  if (!SizeVD)
    return bad("container size"), false;
  Sizes[V] = SizeVD;
  Out.push_back(new (Ctx) DeclStmt(DeclGroupRef(SizeVD), Loc, Loc));
  return true;
}

Expr *Emitter::container(const Var *V) {
  auto It = Decls.find(V);
  if (It == Decls.end() || !isContainerStorage(V, It->second))
    return nullptr;
  ValueDecl *D = It->second;
  Expr *Ref = S.BuildDeclRefExpr(D, D->getType().getNonReferenceType(),
                                 VK_LValue, Loc);
  if (!Ref->getType()->isPointerType())
    return Ref;
  ExprResult R = S.BuildUnaryOp(nullptr, Loc, UO_Deref, Ref);
  return R.isInvalid() ? bad("container") : R.get();
}

Expr *Emitter::containerCall(Expr *Object, StringRef Method,
                             ArrayRef<Expr *> Args) {
  // d_x->data() for a pointer to a container, x.data() for one.
  bool Arrow = Object->getType()->isPointerType();
  if (auto *UO = dyn_cast<UnaryOperator>(Object->IgnoreParens());
      UO && UO->getOpcode() == UO_Deref) {
    Object = UO->getSubExpr();
    Arrow = true;
  }
  CXXScopeSpec SS;
  DeclarationNameInfo Name(&S.getASTContext().Idents.get(Method), Loc);
  ExprResult M = S.BuildMemberReferenceExpr(
      Object, Object->getType(), Loc, Arrow, SS, SourceLocation(), nullptr,
      Name, nullptr, nullptr);
  if (M.isInvalid())
    return bad("container member " + Method.str());
  ExprResult C = S.BuildCallExpr(
      nullptr, M.get(), Loc,
      MultiExprArg(const_cast<Expr **>(Args.data()), Args.size()), Loc);
  return C.isInvalid() ? bad("container call " + Method.str()) : C.get();
}

Expr *Emitter::derefOf(Expr *Ptr) {
  // *&x is x (a reference parameter read through its address).
  if (auto *UO = dyn_cast<UnaryOperator>(Ptr->IgnoreParens()))
    if (UO->getOpcode() == UO_AddrOf)
      return UO->getSubExpr();
  // *(x + k), not *x + k, when printed.
  if (isa<BinaryOperator, ConditionalOperator>(Ptr->IgnoreImpCasts()))
    Ptr = new (S.getASTContext()) ParenExpr(Loc, Loc, Ptr);
  ExprResult R = S.BuildUnaryOp(nullptr, Loc, UO_Deref, Ptr);
  return R.isInvalid() ? bad("dereference") : R.get();
}

Expr *Emitter::constant(const ir::Expr &E) {
  if (E.Literal) // a string: no declarations in it, the node is reused
    return const_cast<Expr *>(E.Literal);
  ASTContext &Ctx = S.getASTContext();
  QualType Ty = E.Ty.getUnqualifiedType();
  if (Ty->isRealFloatingType()) {
    llvm::APFloat V = E.FVal;
    bool LosesInfo;
    V.convert(Ctx.getFloatTypeSemantics(Ty), llvm::APFloat::rmNearestTiesToEven,
              &LosesInfo);
    bool Negative = V.isNegative();
    if (Negative)
      V.changeSign();
    Expr *Lit = FloatingLiteral::Create(Ctx, V, /*isexact=*/true, Ty, Loc);
    if (!Negative)
      return Lit;
    return S.BuildUnaryOp(nullptr, Loc, UO_Minus, Lit).get();
  }
  if (Ty->isPointerType())
    return S.ActOnCXXNullPtrLiteral(Loc).get();
  if (Ty->isBooleanType())
    return new (Ctx) CXXBoolLiteralExpr(E.IVal != 0, Ctx.BoolTy, Loc);
  QualType IntTy = Ty;
  if (const auto *ET = Ty->getAs<EnumType>())
    IntTy = ET->getDecl()->getIntegerType();
  if (!IntTy->isIntegerType())
    return bad("constant of type " + Ty.getAsString());
  // Literals are spelled as int / long when they fit, then converted.
  llvm::APSInt V = E.IVal;
  QualType LitTy = Ctx.IntTy;
  if (IntTy->isUnsignedIntegerType() && Ctx.getTypeSize(IntTy) > 32)
    LitTy = Ctx.UnsignedLongTy;
  else if (!V.isSignedIntN(32) || Ctx.getTypeSize(IntTy) > 32)
    LitTy = V.isSignedIntN(32) ? Ctx.IntTy : Ctx.LongTy;
  bool Neg = V.isSigned() && V.isNegative();
  llvm::APInt Mag = Neg ? -V : V;
  Expr *Lit = IntegerLiteral::Create(
      Ctx, Mag.zextOrTrunc(Ctx.getTypeSize(LitTy)), LitTy, Loc);
  if (Neg)
    Lit = S.BuildUnaryOp(nullptr, Loc, UO_Minus, Lit).get();
  return convert(Lit, Ty);
}

Expr *Emitter::tapeCall(Var *Tape, StringRef Method, ArrayRef<Expr *> Args) {
  Expr *Base = varRef(Tape);
  if (!Base)
    return nullptr;
  ASTContext &Ctx = S.getASTContext();
  CXXScopeSpec SS;
  DeclarationNameInfo Name(&Ctx.Idents.get(Method), Loc);
  ExprResult M = S.BuildMemberReferenceExpr(Base, Base->getType(), Loc,
                                            /*IsArrow=*/false, SS,
                                            SourceLocation(), nullptr, Name,
                                            nullptr, nullptr);
  if (M.isInvalid())
    return bad("tape member " + Method.str());
  ExprResult C = S.BuildCallExpr(nullptr, M.get(), Loc,
                                 MultiExprArg(const_cast<Expr **>(Args.data()),
                                              Args.size()),
                                 Loc);
  return C.isInvalid() ? bad("tape call") : C.get();
}

Expr *Emitter::callOf(const ir::Expr &E) {
  llvm::SmallVector<Expr *, 8> Args;
  for (unsigned I = 0; I < E.Ops.size(); ++I) {
    const ir::Expr &A = *E.Ops[I];
    // A container's storage passed where the callee takes the container
    // (or a pointer to one: an adjoint) is the container.
    const ir::Expr &Base = A.K == ExprKind::Cast && A.Ty->isPointerType()
                               ? *A.Ops[0]
                               : A; // constness added for the callee
    if (Base.K == ExprKind::VarRef && I < E.Callee->getNumParams()) {
      QualType P = E.Callee->getParamDecl(I)->getType().getNonReferenceType();
      bool Pointer = P->isPointerType();
      if (!containerElement(Pointer ? P->getPointeeType() : P).isNull())
        if (Expr *C = container(Base.V)) {
          if (Pointer) {
            ExprResult R = S.BuildUnaryOp(nullptr, Loc, UO_AddrOf, C);
            C = R.isInvalid() ? bad("address of a container") : R.get();
            if (auto *UO = dyn_cast_or_null<UnaryOperator>(C))
              if (auto *In = dyn_cast<UnaryOperator>(UO->getSubExpr()))
                if (In->getOpcode() == UO_Deref) // &*d_x is d_x
                  C = In->getSubExpr();
          }
          if (!C)
            return nullptr;
          Args.push_back(C);
          continue;
        }
    }
    Expr *AE = expr(A);
    if (!AE)
      return nullptr;
    // The IR passes the address of what a reference parameter binds to
    // (and of a tangent that a const T& parameter's derivative takes by
    // value).
    if (I < E.Callee->getNumParams() && A.Ty->isPointerType()) {
      QualType P = E.Callee->getParamDecl(I)->getType().getNonReferenceType();
      if ((P->isArithmeticType() && !P->isBooleanType()) ||
          P->isEnumeralType() || P->isRecordType())
        AE = derefOf(AE);
    }
    if (!AE)
      return nullptr;
    // A T&& parameter (std::make_pair's) is given a local of the
    // generated code: moved, as the user's temporary was.
    if (I < E.Callee->getNumParams() && AE->isLValue()) {
      QualType P = E.Callee->getParamDecl(I)->getType();
      if (P->isRValueReferenceType()) {
        ExprResult Moved = S.BuildCXXNamedCast(
            Loc, tok::kw_static_cast,
            S.getASTContext().getTrivialTypeSourceInfo(P, Loc), AE,
            SourceRange(Loc, Loc), SourceRange(Loc, Loc));
        if (Moved.isInvalid())
          return bad("call to '" + E.Callee->getNameAsString() + "'");
        AE = Moved.get();
      }
    }
    Args.push_back(AE);
  }
  const FunctionView *View = asView(E.Callee);
  if (auto *M = dyn_cast<CXXMethodDecl>(E.Callee); M && !M->isStatic()) {
    // Another generated member of the same object (f_grad calls f_vjp).
    Expr *This = thisExpr();
    if (!This)
      return nullptr;
    Expr *Fn = MemberExpr::CreateImplicit(S.getASTContext(), This,
                                          /*IsArrow=*/true, M,
                                          S.getASTContext().BoundMemberTy,
                                          VK_PRValue, OK_Ordinary);
    ExprResult C = S.BuildCallExpr(nullptr, Fn, Loc, Args, Loc);
    if (C.isInvalid())
      return bad("call to '" + E.Callee->getNameAsString() + "'");
    return C.get();
  }
  if (!View) {
    ExprResult C = S.BuildCallExpr(nullptr, functionRef(E.Callee, Loc), Loc,
                                   Args, Loc);
    if (C.isInvalid())
      return bad("call to '" + E.Callee->getNameAsString() + "'");
    return C.get();
  }
  // A view is written in the original spelling: self->m(args...),
  // *result = f(args...), *self = S(args...).
  ASTContext &Ctx = S.getASTContext();
  auto *Of = const_cast<FunctionDecl *>(View->Of);
  Expr *Self = View->Self ? Args[0] : nullptr;
  Expr *Result = View->Result ? Args[View->Self ? 1 : 0] : nullptr;
  Args.erase(Args.begin(), Args.begin() + View->firstParam());
  ExprResult C;
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Of)) {
    QualType Class = Ctx.getRecordType(Ctor->getParent());
    C = S.BuildCXXTypeConstructExpr(Ctx.getTrivialTypeSourceInfo(Class, Loc),
                                    Loc, Args, Loc,
                                    /*ListInitialization=*/false);
    Result = Self;
  } else {
    // The member is named directly (it was resolved in the user's code: no
    // lookup, no access check from the generated function's scope).
    // (&x)->m(...) is x.m(...).
    bool Arrow = true;
    if (auto *UO = dyn_cast_or_null<UnaryOperator>(
            Self ? Self->IgnoreParens() : nullptr);
        UO && UO->getOpcode() == UO_AddrOf) {
      Self = UO->getSubExpr();
      Arrow = false;
    } else if (Self && isa<BinaryOperator, ConditionalOperator>(
                           Self->IgnoreImpCasts())) {
      Self = new (Ctx) ParenExpr(Loc, Loc, Self); // (p + i)->m(...)
    }
    Expr *Fn = Self ? MemberExpr::CreateImplicit(
                          Ctx, Self, Arrow, cast<CXXMethodDecl>(Of),
                          Ctx.BoundMemberTy, VK_PRValue, OK_Ordinary)
                    : functionRef(Of, Loc);
    C = S.BuildCallExpr(nullptr, Fn, Loc, Args, Loc);
  }
  // A container result is passed as the container (`T &result`).
  if (!C.isInvalid() && Result)
    C = S.BuildBinOp(nullptr, Loc, BO_Assign,
                     Result->getType()->isPointerType() ? derefOf(Result)
                                                        : Result,
                     C.get());
  if (C.isInvalid())
    return bad("call to '" + E.Callee->getNameAsString() + "'");
  return C.get();
}

Expr *Emitter::exprAs(const ir::Expr &E, QualType Ty) {
  return convert(expr(E), Ty);
}

Expr *Emitter::expr(const ir::Expr &E) {
  if (Failed)
    return nullptr;
  ASTContext &Ctx = S.getASTContext();
  switch (E.K) {
  case ExprKind::Const:
    return constant(E);
  case ExprKind::VarRef:
    return varRef(E.V);
  case ExprKind::Index: {
    // An element of a container: x[i], (*d_x)[i]; x_data[i] once its data
    // pointer is hoisted (hoistData).
    if (E.Ops[0]->K == ExprKind::VarRef)
      if (VarDecl *Data = DataPtrs.lookup(E.Ops[0]->V)) {
        Expr *Idx = expr(*E.Ops[1]);
        if (!Idx)
          return nullptr;
        Expr *Base = S.BuildDeclRefExpr(Data, Data->getType(), VK_LValue, Loc);
        ExprResult R = S.CreateBuiltinArraySubscriptExpr(Base, Loc, Idx, Loc);
        return R.isInvalid() ? bad("container element") : R.get();
      }
    if (E.Ops[0]->K == ExprKind::VarRef)
      if (Expr *C = container(E.Ops[0]->V)) {
        Expr *Idx = expr(*E.Ops[1]);
        if (!Idx)
          return nullptr;
        if (isa<UnaryOperator>(C))
          C = new (Ctx) ParenExpr(Loc, Loc, C);
        // An Eigen object's coefficient in storage order: m(k) (its []
        // is for vectors only).
        ExprResult R =
            eigenShape(C->getType())
                ? S.BuildCallToObjectOfClassType(nullptr, C, Loc, {Idx}, Loc)
                : S.CreateOverloadedArraySubscriptExpr(Loc, Loc, C, Idx);
        return R.isInvalid() ? bad("container element") : R.get();
      }
    if (E.Ops[1]->isZero() && E.Ops[0]->Ty->isPointerType() &&
        E.Ops[0]->K != ExprKind::Cast) {
      // p[0] reads better as *p (a[0] stays a[0] for an array a).
      Expr *Ptr = expr(*E.Ops[0]);
      return Ptr ? derefOf(Ptr) : nullptr;
    }
    Expr *Base = expr(*E.Ops[0]);
    Expr *Idx = expr(*E.Ops[1]);
    if (!Base || !Idx)
      return nullptr;
    if (isa<BinaryOperator, ConditionalOperator>(Base->IgnoreImpCasts()))
      Base = new (Ctx) ParenExpr(Loc, Loc, Base);
    // An element of a container held by another or by an object: X[i][j],
    // (*d_X)[i][j], L.w[k].
    if (Base->getType()->isRecordType()) {
      // An Eigen object's coefficient in storage order: c.R(k).
      ExprResult R =
          eigenShape(Base->getType())
              ? S.BuildCallToObjectOfClassType(nullptr, Base, Loc, {Idx}, Loc)
              : S.CreateOverloadedArraySubscriptExpr(Loc, Loc, Base, Idx);
      return R.isInvalid() ? bad("container element") : R.get();
    }
    ExprResult R = S.CreateBuiltinArraySubscriptExpr(Base, Loc, Idx, Loc);
    return R.isInvalid() ? bad("subscript") : R.get();
  }
  case ExprKind::Member: {
    Expr *Base = expr(*E.Ops[0]);
    if (!Base)
      return nullptr;
    // (*p).m reads better as p->m.
    bool Arrow = false;
    if (auto *UO = dyn_cast<UnaryOperator>(Base->IgnoreParens()))
      if (UO->getOpcode() == UO_Deref) {
        Base = UO->getSubExpr();
        Arrow = true;
      }
    if (!Arrow && isa<BinaryOperator, ConditionalOperator>(Base->IgnoreImpCasts()))
      Base = new (Ctx) ParenExpr(Loc, Loc, Base);
    QualType Object = Arrow ? Base->getType()->getPointeeType() : Base->getType();
    // A base class's member: the object converted to that base first, as
    // Sema does for `d.m`.
    if (const auto *RD = Object->getAsCXXRecordDecl();
        RD && RD->getCanonicalDecl() !=
                  E.Field->getParent()->getCanonicalDecl()) {
      ExprResult R =
          S.PerformObjectMemberConversion(Base, nullptr, E.Field, E.Field);
      if (R.isInvalid())
        return bad("member of a base class");
      Base = R.get();
      Object = Arrow ? Base->getType()->getPointeeType() : Base->getType();
    }
    QualType Ty = E.Field->getType().getNonReferenceType();
    if (Object.isConstQualified() && !E.Field->isMutable())
      Ty.addConst();
    return MemberExpr::CreateImplicit(Ctx, Base, Arrow, E.Field, Ty,
                                      VK_LValue, OK_Ordinary);
  }
  case ExprKind::AddrOf: {
    Expr *Sub = expr(*E.Ops[0]);
    if (!Sub)
      return nullptr;
    ExprResult R = S.BuildUnaryOp(nullptr, Loc, UO_AddrOf, Sub);
    return R.isInvalid() ? bad("address-of") : R.get();
  }
  case ExprKind::Unary: {
    Expr *Sub = expr(*E.Ops[0]);
    if (!Sub)
      return nullptr;
    if (isa<BinaryOperator, ConditionalOperator>(Sub->IgnoreImpCasts()))
      Sub = new (Ctx) ParenExpr(Loc, Loc, Sub);
    ExprResult R = S.BuildUnaryOp(nullptr, Loc, E.UOp, Sub);
    return R.isInvalid() ? bad("unary operator") : convert(R.get(), E.Ty);
  }
  case ExprKind::Binary: {
    Expr *L = expr(*E.Ops[0]);
    Expr *R = expr(*E.Ops[1]);
    if (!L || !R)
      return nullptr;
    // Keep parentheses where the printed form needs them.
    auto Paren = [&](Expr *X) -> Expr * {
      if (isa<BinaryOperator, ConditionalOperator>(X->IgnoreImpCasts()))
        return new (Ctx) ParenExpr(Loc, Loc, X);
      return X;
    };
    ExprResult Res = S.BuildBinOp(nullptr, Loc, E.BOp, Paren(L), Paren(R));
    if (Res.isInvalid())
      return bad("binary operator");
    return E.Ty->isPointerType() ? Res.get() : convert(Res.get(), E.Ty);
  }
  case ExprKind::Cond: {
    Expr *C = expr(*E.Ops[0]);
    Expr *A = exprAs(*E.Ops[1], E.Ty);
    Expr *B = exprAs(*E.Ops[2], E.Ty);
    if (!C || !A || !B)
      return nullptr;
    ExprResult R = S.ActOnConditionalOp(Loc, Loc, C, A, B);
    return R.isInvalid() ? bad("conditional") : new (Ctx)
                                                    ParenExpr(Loc, Loc, R.get());
  }
  case ExprKind::Cast: {
    Expr *Sub = expr(*E.Ops[0]);
    if (!Sub)
      return nullptr;
    if (E.Ty->isPointerType()) {
      // The shadow of a member pointing to const reals is written
      // (shadowOf): const_cast<double *>(d_s->p).
      QualType From = Sub->getType();
      if (From->isPointerType() &&
          From->getPointeeType().isConstQualified() &&
          !E.Ty->getPointeeType().isConstQualified()) {
        ExprResult R = S.BuildCXXNamedCast(
            Loc, tok::kw_const_cast, Ctx.getTrivialTypeSourceInfo(E.Ty, Loc),
            Sub, SourceRange(Loc, Loc), SourceRange(Loc, Loc));
        return R.isInvalid() ? bad("cast") : R.get();
      }
      // The elements of a plain array given as a std::array of them
      // (f_hessian's unit vectors for f_hvp): a reinterpret_cast.
      QualType FromElem = From->isPointerType() ? From->getPointeeType()
                          : From->isArrayType()
                              ? Ctx.getAsArrayType(From)->getElementType()
                              : QualType();
      if (!FromElem.isNull() && FromElem->isArithmeticType() &&
          E.Ty->getPointeeType()->isRecordType()) {
        ExprResult R = S.BuildCXXNamedCast(
            Loc, tok::kw_reinterpret_cast,
            Ctx.getTrivialTypeSourceInfo(E.Ty, Loc), Sub,
            SourceRange(Loc, Loc), SourceRange(Loc, Loc));
        return R.isInvalid() ? bad("cast") : R.get();
      }
      return Sub; // array-to-pointer decay: implicit in C++
    }
    if (isa<BinaryOperator, ConditionalOperator>(Sub->IgnoreImpCasts()))
      Sub = new (Ctx) ParenExpr(Loc, Loc, Sub);
    ExprResult R = S.BuildCStyleCastExpr(
        Loc,
        Ctx.getTrivialTypeSourceInfo(spellable(Ctx, E.Ty.getUnqualifiedType()),
                                     Loc),
        Loc, Sub);
    return R.isInvalid() ? bad("cast") : R.get();
  }
  case ExprKind::Call:
    return callOf(E);
  case ExprKind::StopGrad:
    return expr(*E.Ops[0]);
  case ExprKind::Pop:
    return tapeCall(E.V, "pop", {});
  case ExprKind::FuncRef:
    return functionRef(E.Callee, Loc);
  case ExprKind::Size: {
    // A container variable (its size read once where it stays put, see
    // hoistData), or one held by another or by an object.
    if (E.Ops[0]->K == ExprKind::VarRef && E.Ext == ir::Extent::Elements)
      if (VarDecl *N = Sizes.lookup(E.Ops[0]->V))
        return convert(S.BuildDeclRefExpr(N, N->getType(), VK_LValue, Loc),
                       E.Ty);
    Expr *C = E.Ops[0]->K == ExprKind::VarRef ? container(E.Ops[0]->V)
                                               : expr(*E.Ops[0]);
    if (C && !C->getType()->isRecordType())
      C = nullptr;
    if (!C)
      return bad("size of a container");
    StringRef Method = E.Ext == ir::Extent::Rows   ? "rows"
                       : E.Ext == ir::Extent::Cols ? "cols"
                                                   : "size";
    return convert(containerCall(C, Method, {}), E.Ty);
  }
  }
  return bad("expression");
}

/// Pointer to the first scalar of an array lvalue (&a[0][0]).
static Expr *firstElement(Sema &S, Expr *A, SourceLocation Loc,
                          uint64_t &Count) {
  ASTContext &Ctx = S.getASTContext();
  Count = 1;
  while (const auto *AT = Ctx.getAsConstantArrayType(A->getType())) {
    Count *= AT->getSize().getZExtValue();
    Expr *Zero = IntegerLiteral::Create(Ctx, llvm::APInt(32, 0), Ctx.IntTy, Loc);
    A = S.CreateBuiltinArraySubscriptExpr(A, Loc, Zero, Loc).get();
    if (!A)
      return nullptr;
  }
  return S.BuildUnaryOp(nullptr, Loc, UO_AddrOf, A).get();
}

Stmt *Emitter::arrayTransfer(Var *Tape, const ir::Expr &Array,
                             StringRef Method) {
  ASTContext &Ctx = S.getASTContext();
  Expr *A = expr(Array);
  if (!A)
    return nullptr;
  uint64_t Count;
  Expr *First = firstElement(S, A, Loc, Count);
  if (!First)
    return bad("array element");
  Expr *N = IntegerLiteral::Create(Ctx, llvm::APInt(64, Count),
                                   Ctx.UnsignedLongTy, Loc);
  return tapeCall(Tape, Method, {First, N});
}

/// A push of one scalar, or a pop into a plain variable: what
/// appendStatements gathers into push_values / pop_values.
static bool isScalarPush(const ir::Stmt &St) {
  return St.K == StmtKind::Push && !St.RHS->Ty->isArrayType();
}
static bool isPopIntoVariable(const ir::Stmt &St) {
  return St.K == StmtKind::Assign && St.Op == BO_Assign &&
         St.RHS->K == ExprKind::Pop && St.LHS->K == ExprKind::VarRef &&
         !St.LHS->Ty->isArrayType();
}
/// The tape of either kind.
static Var *tapeOf(const ir::Stmt &St) {
  return St.K == StmtKind::Push ? St.V : St.RHS->V;
}

Stmt *Emitter::tapeGroup(ArrayRef<const ir::Stmt *> Group, bool Push) {
  if (Group.size() == 1)
    return stmt(*Group.front());
  llvm::SaveAndRestore<SourceLocation> AtFirst(
      Loc, Group.front()->Loc.isValid() ? Group.front()->Loc : Loc);
  llvm::SmallVector<Expr *, 16> Args;
  for (const ir::Stmt *St : Group) {
    Expr *A = expr(Push ? *St->RHS : *St->LHS);
    if (!A)
      return nullptr;
    Args.push_back(A);
  }
  return tapeCall(tapeOf(*Group.front()), Push ? "push_values" : "pop_values",
                  Args);
}

bool Emitter::appendStatements(const Block &B,
                               llvm::SmallVectorImpl<Stmt *> &Out) {
  for (size_t I = 0; I < B.size();) {
    // A container sized once: its storage stays put from here on.
    const ir::Stmt &First = *B[I];
    if (First.K == StmtKind::Resize && !First.Keep &&
        First.LHS->K == ExprKind::VarRef &&
        Resizes.lookup(First.LHS->V) == 1 && stableStorage(First.LHS->V)) {
      Stmt *X = stmt(First);
      if (!X)
        return false;
      Out.push_back(X);
      if (!hoistData(First.LHS->V, Out))
        return false;
      ++I;
      continue;
    }
    // A run of consecutive pushes (or of pops into distinct variables)
    // becomes one call per tape, in the run's order for that tape: the
    // tape checks for room once, not once per value. Pushes to different
    // tapes commute, and so do pops into different variables.
    bool Push = isScalarPush(*B[I]);
    size_t End = I;
    llvm::SmallPtrSet<const Var *, 8> Targets;
    while (End < B.size() &&
           (Push ? isScalarPush(*B[End])
                 : isPopIntoVariable(*B[End]) &&
                       Targets.insert(B[End]->LHS->V).second))
      ++End;
    if (End - I < 2) {
      Stmt *X = stmt(*B[I++]);
      if (!X)
        return false;
      Out.push_back(X);
      Out.append(AfterDecl.begin(), AfterDecl.end());
      AfterDecl.clear();
      continue;
    }
    llvm::MapVector<const Var *, llvm::SmallVector<const ir::Stmt *, 8>>
        ByTape;
    for (; I < End; ++I)
      ByTape[tapeOf(*B[I])].push_back(B[I].get());
    for (auto &[Tape, Group] : ByTape) {
      Stmt *X = tapeGroup(Group, Push);
      if (!X)
        return false;
      Out.push_back(X);
    }
  }
  return true;
}

Stmt *Emitter::compound(const Block &B) {
  llvm::SmallVector<Stmt *, 16> Stmts;
  size_t Hoisted = DataScope.size();
  bool OK = appendStatements(B, Stmts);
  // The block's data pointers go out of scope with it.
  while (DataScope.size() > Hoisted) {
    const Var *V = DataScope.pop_back_val();
    DataPtrs.erase(V);
    Sizes.erase(V);
  }
  if (!OK)
    return nullptr;
  return CompoundStmt::Create(S.getASTContext(), Stmts, FPOptionsOverride(),
                              Loc, Loc);
}

Stmt *Emitter::stmt(const ir::Stmt &St) {
  if (Failed)
    return nullptr;
  // The statement and everything built for it are located at the primal
  // statement it comes from (debug info, printed #line directives); engine
  // statements without one keep the enclosing location.
  llvm::SaveAndRestore<SourceLocation> AtStmt(Loc,
                                              St.Loc.isValid() ? St.Loc : Loc);
  ASTContext &Ctx = S.getASTContext();
  switch (St.K) {
  case StmtKind::Resize: {
    // t.assign(n, 0.0): the elements of a local container, zeroed.
    Expr *C = St.LHS->K == ExprKind::VarRef ? container(St.LHS->V) : nullptr;
    Expr *N = C ? expr(*St.RHS) : nullptr;
    if (!N)
      return C ? nullptr : bad("resize of a non-container");
    // An Eigen vector: t.setZero(n); a matrix: t.setZero(rows, n / rows).
    if (std::optional<EigenShape> Shape = eigenShape(C->getType())) {
      if (Shape->isVector() || !St.Cond)
        return containerCall(C, "setZero", {N});
      QualType L = Ctx.getPointerDiffType();
      ExprP Rows = ir::cast(L, St.Cond);
      Expr *R = expr(*Rows);
      Expr *Cols = R ? expr(*ir::div(ir::cast(L, St.RHS), Rows, L)) : nullptr;
      return Cols ? containerCall(C, "setZero", {R, Cols}) : nullptr;
    }
    // t.resize(n): the elements there are kept, cut or extended by zeros
    // (push_back's growth, and size changes the reverse sweep undoes).
    if (St.Keep)
      return containerCall(C, "resize", {N});
    // Objects: every byte zero, as an adjoint object starts.
    QualType Elem = St.LHS->Ty->getPointeeType();
    Expr *Zero = Elem->isRecordType()
                     ? runtimeObject("zero_object", Elem.getUnqualifiedType())
                     : constant(*ir::floatConst(Elem, 0));
    return Zero ? containerCall(C, "assign", {N, Zero}) : nullptr;
  }
  case StmtKind::Assign: {
    if (St.RHS->K == ExprKind::Pop && St.LHS->Ty->isArrayType())
      return arrayTransfer(St.RHS->V, *St.LHS, "pop_array");
    Expr *L = expr(*St.LHS);
    Expr *R = expr(*St.RHS);
    if (!L || !R)
      return nullptr;
    ExprResult Res = S.BuildBinOp(nullptr, Loc, St.Op, L, R);
    return Res.isInvalid() ? bad("assignment") : Res.get();
  }
  case StmtKind::Eval:
    return expr(*St.RHS);
  case StmtKind::Push: {
    if (St.RHS->Ty->isArrayType())
      return arrayTransfer(St.V, *St.RHS, "push_array");
    Expr *V = expr(*St.RHS);
    return V ? tapeCall(St.V, "push", {V}) : nullptr;
  }
  case StmtKind::PushRange:
  case StmtKind::PopRange: {
    bool Push = St.K == StmtKind::PushRange;
    Expr *First = expr(Push ? *St.RHS : *St.LHS);
    Expr *Count = First ? expr(*St.Cond) : nullptr;
    if (!Count)
      return nullptr;
    return tapeCall(St.V, Push ? "push_range" : "pop_range", {First, Count});
  }
  case StmtKind::Decl: {
    VarDecl *VD = declare(St.V);
    if (St.RHS) {
      Expr *Init = exprAs(*St.RHS, St.V->Type);
      if (!Init)
        return nullptr;
      S.AddInitializerToDecl(VD, Init, /*DirectInit=*/false);
    } else if (!initialize(VD, St.V)) {
      return nullptr;
    }
    return new (Ctx) DeclStmt(DeclGroupRef(VD), Loc, Loc);
  }
  case StmtKind::Block:
    return compound(St.Then);
  case StmtKind::If: {
    Expr *C = expr(*St.Cond);
    if (!C)
      return nullptr;
    ExprResult B = S.PerformContextuallyConvertToBool(C);
    Stmt *Then = compound(St.Then);
    Stmt *Else = St.Else.empty() ? nullptr : compound(St.Else);
    if (B.isInvalid() || !Then || (!St.Else.empty() && !Else))
      return bad("if");
    return IfStmt::Create(Ctx, Loc, IfStatementKind::Ordinary, nullptr,
                          nullptr, B.get(), Loc, Loc, Then, Loc, Else);
  }
  case StmtKind::Loop: {
    Expr *C = expr(*St.Cond);
    if (!C)
      return nullptr;
    ExprResult B = S.PerformContextuallyConvertToBool(C);
    Stmt *Body = compound(St.body());
    if (B.isInvalid() || !Body)
      return bad("loop");
    if (St.TestFirst)
      return WhileStmt::Create(Ctx, nullptr, B.get(), Body, Loc, Loc, Loc);
    return new (Ctx) DoStmt(Body, B.get(), Loc, Loc, Loc);
  }
  case StmtKind::Repeat: {
    // for (n = count; n; --n) body
    Expr *Count = expr(*St.Cond);
    Expr *Init = Count ? S.BuildBinOp(nullptr, Loc, BO_Assign, varRef(St.V),
                                      Count)
                             .get()
                       : nullptr;
    Expr *Cond = S.PerformContextuallyConvertToBool(varRef(St.V)).get();
    Expr *Dec = S.BuildUnaryOp(nullptr, Loc, UO_PreDec, varRef(St.V)).get();
    Stmt *Body = compound(St.body());
    if (!Init || !Cond || !Dec || !Body)
      return bad("reverse loop");
    return new (Ctx)
        ForStmt(Ctx, Init, Cond, nullptr, Dec, Body, Loc, Loc, Loc);
  }
  case StmtKind::Return: {
    // A local container is returned whole (a function returning one).
    if (St.RHS && St.RHS->K == ExprKind::VarRef &&
        !Target->getReturnType()->isPointerType())
      if (Expr *C = container(St.RHS->V)) {
        StmtResult R = S.BuildReturnStmt(Loc, C);
        return R.isInvalid() ? bad("return") : R.get();
      }
    Expr *V = St.RHS ? exprAs(*St.RHS, Target->getReturnType()) : nullptr;
    if (St.RHS && !V)
      return nullptr;
    StmtResult R = S.BuildReturnStmt(Loc, V);
    return R.isInvalid() ? bad("return") : R.get();
  }
  default:
    return bad("statement kind");
  }
}

VarDecl *Emitter::declare(Var *V) {
  ASTContext &Ctx = S.getASTContext();
  QualType T = V->Type;
  // A temporary has the type of the expression it holds, which a library
  // may spell with its internals (`__gnu_cxx::__enable_if<__is_integer<int>
  // ::__value, double>::__type` for std::cos(int)): spell the plain type.
  // Variables the user declared, and their adjoints, keep the user's words.
  bool UserSpelled = V->Origin || (V->Primal && V->Primal->Origin);
  if (!UserSpelled && Ctx.getBaseElementType(T).getCanonicalType()
                          ->isBuiltinType())
    T = Ctx.getQualifiedType(T.getCanonicalType(), T.getLocalQualifiers());
  T = spellable(Ctx, T); // `auto v = std::fabs(n);`
  if (V->K == Var::Kind::Tape) {
    // fluxion::Tape<T> &_tape_T = fluxion::tape<T>();
    T = Ctx.VoidTy; // replaced in initialize() once the accessor is found
  }
  // A local container's storage, its adjoint or tangent: the container.
  if (V->Type->isPointerType())
    for (const Var *P = V; P; P = P->Primal)
      if (P->Origin && P->K == Var::Kind::Local &&
          !containerElement(P->Origin->getType()).isNull()) {
        T = spellable(Ctx, P->Origin->getType()
                               .getNonReferenceType()
                               .getUnqualifiedType());
        break;
      }
  VarDecl *VD = VarDecl::Create(Ctx, Target, Loc, Loc, &Ctx.Idents.get(V->Name),
                                T, Ctx.getTrivialTypeSourceInfo(T, Loc),
                                SC_None);
  VD->setImplicit(false);
  VD->setReferenced();
  VD->markUsed(Ctx);
  Decls[V] = VD;
  return VD;
}

/// The runtime's fluxion::NAME<T>() (tape<T>, zero_object<T>).
static FunctionDecl *runtimeTemplate(Sema &S, StringRef Name, QualType Elem,
                                     SourceLocation Loc) {
  ASTContext &Ctx = S.getASTContext();
  LookupResult NS(S, &Ctx.Idents.get("fluxion"), Loc,
                  Sema::LookupNamespaceName);
  S.LookupQualifiedName(NS, Ctx.getTranslationUnitDecl());
  auto *Fluxion = NS.getAsSingle<NamespaceDecl>();
  if (!Fluxion)
    return nullptr;
  LookupResult R(S, &Ctx.Idents.get(Name), Loc, Sema::LookupOrdinaryName);
  S.LookupQualifiedName(R, Fluxion);
  FunctionTemplateDecl *FTD = nullptr;
  for (NamedDecl *D : R)
    if (auto *T = dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl()))
      FTD = T;
  if (!FTD)
    return nullptr;
  TemplateArgumentListInfo Args(Loc, Loc);
  Args.addArgument(TemplateArgumentLoc(TemplateArgument(Elem),
                                       Ctx.getTrivialTypeSourceInfo(Elem, Loc)));
  FunctionDecl *Spec = nullptr;
  sema::TemplateDeductionInfo Info(Loc);
  if (S.DeduceTemplateArguments(FTD, &Args, Spec, Info) !=
      TemplateDeductionResult::Success)
    return nullptr;
  return Spec;
}

Expr *Emitter::runtimeObject(StringRef Name, QualType T,
                             ArrayRef<Expr *> Args) {
  // fluxion::Name<T>(), spelled with its namespace and template argument.
  FunctionDecl *Fn = runtimeTemplate(S, Name, T, Loc);
  if (!Fn)
    return bad(("fluxion::" + Name + "<T>() not found; include "
                "<fluxion/fluxion.hpp>")
                   .str());
  ASTContext &Ctx = S.getASTContext();
  CXXScopeSpec SS;
  SS.MakeTrivial(Ctx, qualifierFor(Ctx, Fn->getDeclContext()),
                 SourceRange(Loc, Loc));
  TemplateArgumentListInfo TArgs(Loc, Loc);
  TArgs.addArgument(TemplateArgumentLoc(TemplateArgument(T),
                                        Ctx.getTrivialTypeSourceInfo(T, Loc)));
  Expr *Ref = S.BuildDeclRefExpr(Fn, Fn->getType(), VK_LValue,
                                 DeclarationNameInfo(Fn->getDeclName(), Loc),
                                 SS.getWithLocInContext(Ctx), nullptr,
                                 SourceLocation(), &TArgs);
  ExprResult Call = S.BuildCallExpr(
      nullptr, Ref, Loc,
      MultiExprArg(const_cast<Expr **>(Args.data()), Args.size()), Loc);
  return Call.isInvalid() ? bad(("call of fluxion::" + Name).str())
                          : Call.get();
}

bool Emitter::initialize(VarDecl *VD, Var *V) {
  ASTContext &Ctx = S.getASTContext();
  if (V->K == Var::Kind::Tape) {
    FunctionDecl *Acc = runtimeTemplate(S, "tape", V->TapeElement, Loc);
    if (!Acc) {
      bad("fluxion::tape<T>() not found; include <fluxion/fluxion.hpp>");
      return false;
    }
    QualType RefTy = Acc->getReturnType();
    // Instantiate fluxion::Tape<T> so that its members can be named.
    if (S.RequireCompleteType(Loc, RefTy.getNonReferenceType(),
                              diag::err_incomplete_type)) {
      bad("fluxion::Tape<T> is incomplete");
      return false;
    }
    // auto &_tape_T = fluxion::tape<T>();
    QualType AutoRef = Ctx.getLValueReferenceType(Ctx.getAutoDeductType());
    VD->setType(AutoRef);
    VD->setTypeSourceInfo(Ctx.getTrivialTypeSourceInfo(AutoRef, Loc));
    CXXScopeSpec SS;
    SS.MakeTrivial(Ctx, qualifierFor(Ctx, Acc->getDeclContext()),
                   SourceRange(Loc, Loc));
    TemplateArgumentListInfo TArgs(Loc, Loc);
    TArgs.addArgument(TemplateArgumentLoc(
        TemplateArgument(V->TapeElement),
        Ctx.getTrivialTypeSourceInfo(V->TapeElement, Loc)));
    Expr *Fn = S.BuildDeclRefExpr(
        Acc, Acc->getType(), VK_LValue,
        DeclarationNameInfo(Acc->getDeclName(), Loc),
        SS.getWithLocInContext(Ctx), nullptr, SourceLocation(), &TArgs);
    ExprResult Call = S.BuildCallExpr(nullptr, Fn, Loc, {}, Loc);
    if (Call.isInvalid()) {
      bad("tape accessor call");
      return false;
    }
    S.AddInitializerToDecl(VD, Call.get(), false);
    return !VD->isInvalidDecl();
  }
  Expr *Init;
  if (eigenShape(VD->getType())) {
    // A default-constructed fixed-size Eigen object holds garbage:
    // fluxion::zero_container<T>() is T::Zero() (empty when dynamic).
    Init = runtimeObject("zero_container", VD->getType().getUnqualifiedType());
    if (!Init)
      return false;
    S.AddInitializerToDecl(VD, Init, false);
    return !VD->isInvalidDecl();
  }
  if (!containerElement(VD->getType()).isNull()) {
    // An empty std::vector, or a std::array of zeros.
    Init = S.ActOnInitList(Loc, {}, Loc).get();
    if (!Init)
      return bad("container initializer"), false;
    S.AddInitializerToDecl(VD, Init, false);
    return !VD->isInvalidDecl();
  }
  // `= {}` runs a class's default constructor, which may set members (or
  // not exist): an adjoint must start at zero, so such an object is
  // initialised from fluxion::zero_object<T>() (every byte zero).
  const auto *Class = Ctx.getBaseElementType(V->Type)->getAsCXXRecordDecl();
  bool ZeroBytes = Class && Class->hasDefinition() &&
                   !Class->hasTrivialDefaultConstructor();
  if (ZeroBytes && V->isArray()) {
    // No initialiser zeroes them: each element is assigned
    // fluxion::zero_object<T>() right after the declaration.
    const CXXConstructorDecl *Default = S.LookupDefaultConstructor(
        const_cast<CXXRecordDecl *>(Class->getDefinition()));
    if (!Default || Default->isDeleted()) {
      bad("an array of objects of class " + Class->getNameAsString() +
          ", which has no default constructor; give the class one");
      return false;
    }
    Expr *Ref = S.BuildDeclRefExpr(VD, VD->getType(), VK_LValue, Loc);
    Expr *Zero = runtimeObject("zero_objects", VD->getType(), {Ref});
    if (!Zero)
      return false;
    S.ActOnUninitializedDecl(VD);
    VD->setInitStyle(VarDecl::CallInit); // printed `S d_a[N];`
    AfterDecl.push_back(Zero);
    return !VD->isInvalidDecl();
  }
  if (ZeroBytes) {
    Init = runtimeObject("zero_object", V->Type.getUnqualifiedType());
    if (!Init)
      return false;
  } else if (V->isArray() || V->Type->isRecordType()) {
    Init = S.ActOnInitList(Loc, {}, Loc).get(); // = {}
  } else if (V->Type->isRealFloatingType() || V->Type->isIntegerType() ||
             V->Type->isEnumeralType()) {
    ir::Expr Zero;
    Zero.K = ExprKind::Const;
    Zero.Ty = V->Type;
    Zero.FVal = llvm::APFloat(0.0);
    Zero.IVal = llvm::APSInt(llvm::APInt(64, 0), false);
    Init = constant(Zero);
  } else if (V->Type->isPointerType()) {
    Init = S.ActOnCXXNullPtrLiteral(Loc).get();
  } else {
    return true;
  }
  if (!Init) {
    bad("initializer");
    return false;
  }
  S.AddInitializerToDecl(VD, Init, false);
  return !VD->isInvalidDecl();
}

bool Emitter::emit(EmitRequest &R) {
  Target = R.Target;
  Loc = Target->getLocation();
  Failed = false;
  Decls.clear();
  DataPtrs.clear();
  Sizes.clear();
  SizeRead.clear();
  DataScope.clear();
  Resizes.clear();
  Names.clear();
  ThisVar = R.This;
  Sema::SynthesizedFunctionScope Scope(S, Target);
  if (R.Params.size() != Target->getNumParams())
    return bad("parameter count"), false;
  for (unsigned I = 0; I < R.Params.size(); ++I) {
    ParmVarDecl *P = Target->getParamDecl(I);
    // The body refers to parameters by their IR names.
    if (P->getName() != R.Params[I]->Name)
      P->setDeclName(&S.getASTContext().Idents.get(R.Params[I]->Name));
    Decls[R.Params[I]] = P;
  }

  // Declare only the locals the body uses.
  llvm::DenseSet<const Var *> Used;
  forEachExpr(R.Body, [&](const ir::Expr &E) {
    if (E.V)
      Used.insert(E.V);
  });
  forEachStmt(R.Body, [&](const ir::Stmt &St) {
    if (St.V)
      Used.insert(St.V);
    if (St.K == StmtKind::Resize && St.LHS->K == ExprKind::VarRef)
      ++Resizes[St.LHS->V];
  });
  // Hoisted data pointers get names nothing in the body uses.
  for (Var *V : R.Params)
    Names.insert(V->Name);
  for (const Var *V : Used)
    Names.insert(V->K == Var::Kind::Global && V->Origin
                     ? V->Origin->getName()
                     : llvm::StringRef(V->Name));
  forEachExpr(R.Body, [&](const ir::Expr &E) {
    if (E.K == ExprKind::Size && E.Ops[0]->K == ExprKind::VarRef)
      SizeRead.insert(E.Ops[0]->V);
    if (E.K == ExprKind::Call && E.Callee)
      if (const IdentifierInfo *II = E.Callee->getIdentifier())
        Names.insert(II->getName());
  });
  llvm::SmallVector<Stmt *, 32> Stmts;
  for (Var *V : R.Locals) {
    if (!Used.count(V) || Decls.count(V))
      continue;
    VarDecl *VD = declare(V);
    if (!initialize(VD, V))
      return false;
    Stmts.push_back(new (S.getASTContext()) DeclStmt(DeclGroupRef(VD), Loc, Loc));
    Stmts.append(AfterDecl.begin(), AfterDecl.end());
    AfterDecl.clear();
  }
  // Containers passed in whose size the body never changes.
  for (Var *V : R.Params)
    if (!Resizes.count(V) && stableStorage(V) && !hoistData(V, Stmts))
      return false;
  if (!appendStatements(R.Body, Stmts))
    return false;
  Target->setBody(CompoundStmt::Create(S.getASTContext(), Stmts,
                                       FPOptionsOverride(), Loc, Loc));
  return !Failed;
}

} // namespace fluxion
