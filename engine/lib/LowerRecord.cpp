//===- LowerRecord.cpp - Objects of structs of reals, member by member ----===//
//
// An object of a struct of reals is storage, like an array: its members are
// lvalues (ir::Member). Initialising or copying a whole object lowers to one
// assignment per scalar member (arrays element by element, nested structs
// recursively), so that activity, recording and the builders only ever see
// scalar assignments, as for arrays.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/FunctionViews.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace fluxion {
using ir::assign;
using ir::Block;
using ir::ExprP;
using ir::floatConst;
using ir::index;
using ir::intConst;
using ir::member;

static const RecordDecl *recordOf(QualType T) {
  const auto *RD = T.getCanonicalType()->getAsRecordDecl();
  return RD ? RD->getDefinition() : nullptr;
}

void forEachScalar(ASTContext &Ctx, ExprP Dst, ExprP Src, QualType Ty,
                          llvm::function_ref<void(ExprP, ExprP, QualType)> Leaf) {
  QualType T = Ty.getCanonicalType();
  if (const auto *AT = Ctx.getAsConstantArrayType(T)) {
    QualType Elem = AT->getElementType();
    for (uint64_t I = 0, N = AT->getSize().getZExtValue(); I < N; ++I) {
      ExprP Idx = intConst(Ctx.IntTy, I);
      forEachScalar(Ctx, index(Dst, Idx, Elem),
                    Src ? index(Src, Idx, Elem) : nullptr, Elem, Leaf);
    }
    return;
  }
  // A std::array: its elements by index, never by the library's member (a
  // local one is its storage, indexed the same way).
  if (std::optional<uint64_t> N = containerFixedSize(T);
      N && !eigenShape(T) && !containerElement(T).isNull()) {
    QualType Elem = containerElement(T);
    for (uint64_t I = 0; I < *N; ++I) {
      ExprP Idx = intConst(Ctx.getSizeType(), I);
      forEachScalar(Ctx, index(Dst, Idx, Elem),
                    Src ? index(Src, Idx, Elem) : nullptr, Elem, Leaf);
    }
    return;
  }
  // A fixed-size Eigen object: its coefficients in storage order (m(k)).
  if (std::optional<EigenShape> E = eigenShape(T); E && !E->View) {
    if (std::optional<uint64_t> N = containerFixedSize(T)) {
      QualType Scalar = E->Scalar.getUnqualifiedType();
      for (uint64_t I = 0; I < *N; ++I) {
        ExprP Idx = intConst(Ctx.getPointerDiffType(), I);
        Leaf(index(Dst, Idx, Scalar), Src ? index(Src, Idx, Scalar) : nullptr,
             Scalar);
      }
      return;
    }
  }
  if (const RecordDecl *RD = recordOf(T)) {
    // Members of base classes first (a base's member is a member of the
    // object: Dst.m).
    if (const auto *CRD = dyn_cast<CXXRecordDecl>(RD))
      for (const CXXBaseSpecifier &B : CRD->bases())
        forEachScalar(Ctx, Dst, Src, B.getType(), Leaf);
    for (FieldDecl *F : RD->fields())
      forEachScalar(Ctx, member(Dst, F), Src ? member(Src, F) : nullptr,
                    F->getType(), Leaf);
    return;
  }
  Leaf(Dst, Src, T.getUnqualifiedType());
}

static ExprP zeroOf(QualType T) {
  return T->isRealFloatingType() ? floatConst(T, 0) : intConst(T, 0);
}

/// Copies are written out member by member; past this many numbers a copy
/// is refused rather than unrolled.
static constexpr unsigned MaxCopiedScalars = 256;

/// An object holding a pointer to reals is read where it is: a copy or a
/// new one would need its adjoint's pointer member to point to shadow
/// memory of the right extent, which derivative code cannot know.
bool FunctionLowering::refuseObjectWithPointer(QualType Ty,
                                               SourceLocation Loc) {
  if (!pointsToReals(Ty))
    return false;
  PrintingPolicy Policy(Ctx.getLangOpts());
  Policy.SuppressTagKeyword = true;
  std::string Name = Ty.getUnqualifiedType().getAsString(Policy);
  std::string Container = containerMember(Ty);
  // Likewise for a container member: its adjoint's would need the size of
  // one derivative code cannot make.
  if (!Container.empty()) {
    Diags.report(Loc, Diag::NotSupported)
        << ("making or copying an object of class '" + Name +
            "', which holds a container ('" + Container + "')")
        << ("read and write the original through a reference ('const " +
            Name + " &' or '" + Name + " &'), or pass the container as a "
            "parameter of its own");
    return true;
  }
  Diags.report(Loc, Diag::NotSupported)
      << ("making or copying an object of class '" + Name +
          "', which holds a pointer to real numbers")
      << ("read the original through a reference ('const " + Name +
          " &'), or pass the pointer as a parameter of its own");
  return true;
}

bool FunctionLowering::copyMembers(ExprP Dst, ExprP Src, QualType Ty,
                                   SourceLocation Loc, Block &Out) {
  if (refuseObjectWithPointer(Ty, Loc))
    return false;
  unsigned N = 0;
  forEachScalar(Ctx, Dst, Src, Ty, [&](ExprP, ExprP, QualType) { ++N; });
  if (N > MaxCopiedScalars) {
    Diags.report(Loc, Diag::NotSupported)
        << ("copying an object of " + std::to_string(N) + " numbers")
        << "pass it by reference, or copy the members that change";
    return false;
  }
  forEachScalar(Ctx, Dst, Src, Ty, [&](ExprP D, ExprP S, QualType) {
    Out.push_back(assign(D, S, BO_Assign, Loc));
  });
  return true;
}

void FunctionLowering::zeroMembers(ExprP Dst, QualType Ty, SourceLocation Loc,
                                   Block &Out) {
  forEachScalar(Ctx, Dst, nullptr, Ty, [&](ExprP D, ExprP, QualType T) {
    Out.push_back(assign(D, zeroOf(T), BO_Assign, Loc));
  });
}

bool FunctionLowering::assignElement(ExprP Dst, ExprP Value, QualType Ty,
                                     SourceLocation Loc, Block &Out) {
  if (!Ty->isRecordType()) {
    Out.push_back(assign(Dst, Value ? ir::cast(Ty, Value) : zeroOf(Ty),
                         BO_Assign, Loc));
    return true;
  }
  if (Value && !Value->isLValue()) {
    Diags.report(Loc, Diag::NotSupported)
        << "copying this object into a container"
        << "copy a variable, a member or an element";
    return false;
  }
  if (!Value) {
    zeroMembers(Dst, Ty, Loc, Out);
    return true;
  }
  return copyMembers(Dst, Value, Ty, Loc, Out);
}

bool FunctionLowering::lowerObjectInto(ExprP Dst, QualType Ty,
                                       const clang::Expr *E, Block &Out) {
  const clang::Expr *Inner = E->IgnoreImplicit()->IgnoreParens();
  if (Inner->isGLValue() && Inner->getType()->isRecordType() &&
      !isa<CallExpr>(Inner)) {
    ExprP Src = lowerExpr(Inner, Out);
    return Src && assignElement(Dst, Src, Ty, E->getExprLoc(), Out);
  }
  return lowerRecordInit(Dst, Ty, E, Out);
}

bool FunctionLowering::lowerStdArrayInit(ExprP Base, QualType Ty,
                                         const InitListExpr *IL, Block &Out) {
  // `{a, b}` is `{{a, b}}` to Sema (the braces of the library's member
  // elided): the elements are the inner list's.
  if (IL->getNumInits() == 1)
    if (const auto *In =
            dyn_cast<InitListExpr>(IL->getInit(0)->IgnoreImplicit()))
      IL = In;
  QualType Elem = containerElement(Ty).getUnqualifiedType();
  uint64_t N = *containerFixedSize(Ty);
  bool OK = true;
  for (uint64_t I = 0; I < N && OK; ++I) {
    const clang::Expr *E = I < IL->getNumInits() ? IL->getInit(I) : nullptr;
    ExprP Slot = index(Base, intConst(Ctx.getSizeType(), I), Elem);
    if (!E || isa<ImplicitValueInitExpr>(E))
      zeroMembers(Slot, Elem, IL->getBeginLoc(), Out);
    else if (Elem->isRecordType())
      OK = lowerRecordInit(Slot, Elem, E, Out);
    else if (ExprP V = lowerExpr(E, Out))
      Out.push_back(assign(Slot, ir::cast(Elem, V), BO_Assign,
                           E->getBeginLoc()));
    else
      OK = false;
  }
  return OK;
}

static bool isStdPair(const CXXRecordDecl *RD) {
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         RD->getName() == "pair";
}

bool FunctionLowering::lowerRecordInit(ExprP Base, QualType Ty,
                                       const clang::Expr *Init, Block &Out) {
  if (refuseObjectWithPointer(Ty, Init->getBeginLoc()))
    return false;
  // std::pair(a, b), std::make_pair(a, b): the two members.
  auto PairMembers = [&](const CXXRecordDecl *RD, const clang::Expr *First,
                         const clang::Expr *Second) {
    auto Field = RD->field_begin();
    for (const clang::Expr *A : {First, Second}) {
      QualType FT = Field->getType();
      if (!FT->isArithmeticType()) {
        Diags.report(A->getBeginLoc(), Diag::NotSupported)
            << "a std::pair of other than numbers"
            << "use a struct of your own";
        return false;
      }
      ExprP V = lowerExpr(A, Out);
      if (!V)
        return false;
      Out.push_back(assign(member(Base, *Field),
                           ir::cast(FT.getUnqualifiedType(), V), BO_Assign,
                           A->getBeginLoc()));
      ++Field;
    }
    return true;
  };
  if (std::optional<EigenShape> E = eigenShape(Ty);
      E && !E->View && Base->K != ir::ExprKind::VarRef)
    return lowerHeldEigenInit(Base, Ty, Init, Out);
  Init = Init->IgnoreImplicit()->IgnoreParens();
  // S{...} and S(x) written as casts: their operand initialises.
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(Init))
    Init = FC->getSubExpr()->IgnoreImplicit();
  if (const auto *Call = dyn_cast<CallExpr>(Init)) {
    // std::make_pair(a, b): the pair's two members, as its constructor.
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
        Callee->getName() == "make_pair" && Call->getNumArgs() == 2 &&
        isStdPair(Ty->getAsCXXRecordDecl()))
      return PairMembers(Ty->getAsCXXRecordDecl(), Call->getArg(0),
                         Call->getArg(1));
    // A function returning the object writes a temporary; copy it.
    ExprP Src = lowerCall(Call, Out);
    return Src && copyMembers(Base, Src, Ty, Init->getBeginLoc(), Out);
  }
  // An object itself, not a constructor call: an element an algorithm's
  // loop hands to a lambda taking it by value (LowerAlgorithms.cpp).
  if (Init->isGLValue() && Ctx.hasSameUnqualifiedType(Init->getType(), Ty)) {
    ExprP Src = lowerExpr(Init, Out);
    return Src && copyMembers(Base, Src, Ty, Init->getBeginLoc(), Out);
  }
  if (const auto *IL = dyn_cast<InitListExpr>(Init);
      IL && containerFixedSize(Ty) && !containerElement(Ty).isNull())
    return lowerStdArrayInit(Base, Ty, IL, Out);
  if (const auto *IL = dyn_cast<InitListExpr>(Init)) {
    // Aggregate and designated initialisation: Sema has put the
    // initialisers in member order and filled the missing ones.
    const RecordDecl *RD = recordOf(Ty);
    unsigned I = 0;
    bool OK = true;
    // An aggregate's bases come first (`Circle c{{s}, r}`).
    if (const auto *CRD = dyn_cast<CXXRecordDecl>(RD))
      for (const CXXBaseSpecifier &B : CRD->bases()) {
        const clang::Expr *E = I < IL->getNumInits() ? IL->getInit(I) : nullptr;
        ++I;
        if (!E || isa<ImplicitValueInitExpr>(E))
          zeroMembers(Base, B.getType(), Init->getBeginLoc(), Out);
        else
          OK &= lowerRecordInit(Base, B.getType(), E, Out);
      }
    for (FieldDecl *F : RD->fields()) {
      const clang::Expr *E = I < IL->getNumInits() ? IL->getInit(I) : nullptr;
      ++I;
      ExprP Slot = member(Base, F);
      QualType FT = F->getType();
      if (!E || isa<ImplicitValueInitExpr>(E)) {
        zeroMembers(Slot, FT, Init->getBeginLoc(), Out);
        continue;
      }
      if (FT->isConstantArrayType())
        OK &= lowerArrayInit(Slot, FT, E, Out);
      else if (FT->isRecordType())
        OK &= lowerRecordInit(Slot, FT, E, Out);
      else if (ExprP V = lowerExpr(E, Out))
        Out.push_back(assign(Slot, ir::cast(FT.getUnqualifiedType(), V),
                             BO_Assign, E->getBeginLoc()));
      else
        OK = false;
    }
    return OK;
  }
  if (isa<CXXScalarValueInitExpr>(Init)) {
    zeroMembers(Base, Ty, Init->getBeginLoc(), Out);
    return true;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Init)) {
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (CE->getNumArgs() == 0 && actsTrivially(Ctor)) {
      // `S s;` leaves the members as they are; `S s{}` / `S()` zeroes them.
      if (CE->requiresZeroInitialization() ||
          isa<CXXTemporaryObjectExpr>(CE))
        zeroMembers(Base, Ty, Init->getBeginLoc(), Out);
      return true;
    }
    if (CE->getNumArgs() == 1 && actsTrivially(Ctor) &&
        (Ctor->isCopyConstructor() || Ctor->isMoveConstructor())) {
      ExprP Src = lowerExpr(CE->getArg(0), Out);
      if (!Src)
        return false;
      if (!Src->isLValue()) {
        Diags.report(CE->getArg(0)->getExprLoc(), Diag::NotSupported)
            << "copying this object" << "copy a variable, a member or an "
                                        "array element";
        return false;
      }
      return copyMembers(Base, Src, Ty, CE->getBeginLoc(), Out);
    }
    // std::pair(a, b) (what `return {a, b};` builds): its two members.
    if (const CXXRecordDecl *RD = Ctor->getParent();
        isStdPair(RD) && CE->getNumArgs() == 2 &&
        !Ctor->isCopyOrMoveConstructor())
      return PairMembers(RD, CE->getArg(0), CE->getArg(1));
    if (!actsTrivially(Ctor))
      return lowerConstructorCall(Base, CE, Out);
  }
  Diags.report(Init->getBeginLoc(), Diag::NotSupported)
      << ("this initialisation of an object of class type " +
          Ty.getUnqualifiedType().getAsString())
      << "initialise it from a braced list of its members or copy another "
         "object";
  return false;
}

bool FunctionLowering::lowerHeldEigenInit(ExprP Base, QualType Ty,
                                          const clang::Expr *Init, Block &Out) {
  // Built empty: its coefficients are left as they are, or zeroed (`{}`).
  const clang::Expr *E = Init->IgnoreImplicit()->IgnoreParens();
  const auto *IL = dyn_cast<InitListExpr>(E);
  if (IL && IL->getNumInits() == 1)
    E = IL->getInit(0)->IgnoreImplicit()->IgnoreParens();
  else if (IL && IL->getNumInits() == 0) {
    zeroMembers(Base, Ty, Init->getBeginLoc(), Out);
    return true;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
      CE && CE->getNumArgs() == 0) {
    if (CE->requiresZeroInitialization() || isa<CXXTemporaryObjectExpr>(CE))
      zeroMembers(Base, Ty, Init->getBeginLoc(), Out);
    return true;
  }
  // Built from an Eigen expression (`Pose{a.R * b.R, t}`, `: R(R0)`): the
  // expression assigned where the object holds it.
  return lowerEigenAssignment(heldEigenStorage(Base, /*Const=*/false),
                              BO_Assign, E, Out, Init->getBeginLoc());
}

/// The variable an lvalue expression names a part of (`p`, `ps[i].x`,
/// `s.a[k]`), if any.
static const ValueDecl *rootDecl(const clang::Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *DR = dyn_cast<DeclRefExpr>(E))
      return DR->getDecl();
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      E = ME->getBase();
    else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      E = AS->getBase();
    else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
             OC && OC->getNumArgs() > 0 &&
             (OC->getOperator() == OO_Subscript || OC->getOperator() == OO_Call))
      E = OC->getArg(0);
    else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
      E = MC->getImplicitObjectArgument();
    else
      return nullptr;
  }
}

/// Whether S names D anywhere.
static bool refersTo(const Stmt *S, const ValueDecl *D) {
  if (!S)
    return false;
  if (const auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == D)
    return true;
  for (const Stmt *C : S->children())
    if (refersTo(C, D))
      return true;
  return false;
}

bool FunctionLowering::lowerRecordAssignment(const CXXOperatorCallExpr *E,
                                             Block &Out) {
  ExprP Dst = lowerLValue(E->getArg(0), Out);
  if (!Dst)
    return false;
  const clang::Expr *R = E->getArg(1)->IgnoreImplicit();
  QualType Ty = E->getArg(0)->getType().getNonReferenceType();
  if (isa<InitListExpr>(R)) {
    // `p = {p.y, p.x}`: the braced object is a temporary, built whole
    // before it is assigned, when it reads what it overwrites.
    const ValueDecl *Root = rootDecl(E->getArg(0));
    if (!Root || refersTo(R, Root)) {
      ir::Var *T =
          F->makeVar(ir::Var::Kind::Temp, "_obj", Ty.getUnqualifiedType());
      F->Locals.push_back(T);
      return lowerRecordInit(ir::ref(T), Ty, R, Out) &&
             copyMembers(Dst, ir::ref(T), Ty, E->getExprLoc(), Out);
    }
    return lowerRecordInit(Dst, E->getArg(0)->getType(), R, Out);
  }
  // p = std::make_pair(a, b), p = f(x): the new object, built in a
  // temporary.
  if (R->isPRValue() && isa<CallExpr>(R)) {
    ir::Var *T =
        F->makeVar(ir::Var::Kind::Temp, "_obj", Ty.getUnqualifiedType());
    F->Locals.push_back(T);
    return lowerRecordInit(ir::ref(T), Ty, R, Out) &&
           copyMembers(Dst, ir::ref(T), Ty, E->getExprLoc(), Out);
  }
  ExprP Src = lowerExpr(R, Out);
  if (!Src)
    return false;
  if (!Src->isLValue()) {
    Diags.report(R->getExprLoc(), Diag::NotSupported)
        << "assigning this object" << "assign a variable, a member or an "
                                      "array element";
    return false;
  }
  return copyMembers(Dst, Src, E->getArg(0)->getType(), E->getExprLoc(), Out);
}

} // namespace fluxion

namespace fluxion {

bool FunctionLowering::lowerConstructorCall(ExprP Slot,
                                            const CXXConstructExpr *CE,
                                            Block &Out) {
  FunctionDecl *View = viewOf(CE->getConstructor());
  llvm::SmallVector<const clang::Expr *, 8> ArgExprs{CE};
  for (const clang::Expr *A : CE->arguments())
    ArgExprs.push_back(A);
  llvm::SmallVector<ExprP, 4> Args{
      addressOf(Slot, View->getParamDecl(0)->getType())};
  if (!lowerArguments(View, ArgExprs, Args, Out, CE->getBeginLoc()))
    return false;
  Out.push_back(ir::eval(ir::call(View, Args, Ctx.VoidTy, CE->getBeginLoc()),
                         CE->getBeginLoc()));
  return true;
}

bool FunctionLowering::lowerMemberInits(const CXXConstructorDecl *Ctor,
                                        Block &Out) {
  QualType Class = Ctx.getRecordType(Ctor->getParent());
  ExprP Object = index(ir::ref(Self), intConst(Ctx.IntTy, 0), Class);
  bool OK = true;
  for (const CXXCtorInitializer *I : Ctor->inits()) {
    if (I->isBaseInitializer() && !I->isBaseVirtual()) {
      // The base's part of the object, initialised as an object of the
      // base's type.
      OK &= lowerInitInto(Object, QualType(I->getBaseClass(), 0),
                          I->getInit(), Out);
      continue;
    }
    if (!I->isAnyMemberInitializer()) {
      Diags.report(I->getSourceLocation(), Diag::NotSupported)
          << "a delegating constructor"
          << "initialise the members in this constructor";
      OK = false;
      continue;
    }
    FieldDecl *Field = I->getAnyMember();
    const clang::Expr *Init = I->getInit();
    if (const auto *DI = dyn_cast<CXXDefaultInitExpr>(Init))
      Init = DI->getExpr();
    OK &= lowerInitInto(member(Object, Field), Field->getType(), Init, Out);
  }
  return OK;
}

ExprP FunctionLowering::lowerTemporaryObject(const clang::Expr *E,
                                             Block &Pre) {
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return lowerCall(Call, Pre);
  QualType Ty = E->getType().getUnqualifiedType();
  if (refuseStdFunction(E))
    return nullptr;
  // A function object with no data (`Sp{}(v)`): an object of its class,
  // with nothing to initialise.
  if (isEmptyFunctionObject(Ty)) {
    ir::Var *T = F->makeVar(ir::Var::Kind::Local, "_fn", Ty);
    F->Locals.push_back(T);
    return ir::ref(T);
  }
  if (!isDifferentiableRecord(Ty)) {
    Diags.report(E->getExprLoc(), Diag::NotSupported)
        << "a temporary object passed by reference"
        << "pass an object that is a variable, a member or an array element";
    return nullptr;
  }
  ir::Var *T = F->makeVar(ir::Var::Kind::Local, "_obj", Ty);
  F->Locals.push_back(T);
  if (!lowerRecordInit(ir::ref(T), Ty, E, Pre))
    return nullptr;
  return ir::ref(T, E->getExprLoc());
}

} // namespace fluxion
