//===- LowerContainer.cpp - std::vector and std::array as storage ----------===//
//
// A container of reals is storage plus a size. A parameter of type
// `const std::vector<double> &` (or `std::vector<double> &`, a
// `std::array<double, N>`, by value when only read) is lowered as a
// variable of type `const double *` standing for its elements, so that
// every analysis and builder sees the pointer parameter it already handles:
//
//   x[i], x.at(i)          x[i]
//   x.front(), x.back()    x[0], x[x.size() - 1]
//   x.data()               x (the pointer)
//   x.size(), x.empty()    Size(x) (N for a std::array), Size(x) == 0
//   g(x) (g takes the container)    g(x): the callee's lowering does the same
//
// The emitter spells the variable as the container it stands for (`x[i]`,
// `x.data()`, `(*d_x)[i]` for its adjoint, declared `std::vector<double> *`
// by the contract). A local container is the same kind of variable; its
// declaration is a Resize (n zeros) followed by ordinary element
// assignments (LowerContainerInit.cpp), and the builders size its adjoint
// or tangent where it is sized. push_back is lowered here; other size
// changes in LowerResize.cpp, iterators in LowerIterators.cpp. A container
// held by another or by an object (`X[i]`, `L.w`) is a place, read and
// written by element (lowerHeldContainerCall); its size does not change in
// differentiated code.
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"
#include "fluxion/engine/FunctionViews.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

bool isContainerStorageVar(const Var *V) {
  return V && V->Origin && V->Type->isPointerType() &&
         !containerElement(V->Origin->getType()).isNull();
}

ExprP FunctionLowering::containerSize(Var *V, SourceLocation Loc) {
  QualType SizeTy = Ctx.getSizeType();
  if (std::optional<uint64_t> N = containerFixedSize(V->Origin->getType()))
    return ir::intConst(SizeTy, int64_t(*N));
  // A vector that grows: its count, which the engine follows like any
  // integer (a size read in a loop that grows it is no constant).
  if (Var *Count = GrowCounts.lookup(V))
    return ir::ref(Count, Loc);
  return ir::sizeOf(ir::ref(V, Loc), SizeTy);
}

/// The container a member call or subscript is applied to, if it is one.
static const clang::Expr *containerObject(const CallExpr *E,
                                          const CXXMethodDecl *&Method) {
  Method = nullptr;
  const clang::Expr *Object = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    Object = MC->getImplicitObjectArgument();
    Method = MC->getMethodDecl();
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    Method = dyn_cast_or_null<CXXMethodDecl>(OC->getDirectCallee());
    if (Method && OC->getNumArgs() > 0)
      Object = OC->getArg(0);
  }
  if (!Object || !Method)
    return nullptr;
  // An Eigen object's methods are its bases': see through the conversion.
  QualType T = Object->IgnoreParenImpCasts()->getType();
  if (T->isPointerType())
    T = T->getPointeeType();
  return containerElement(T).isNull() ? nullptr : Object;
}

static bool isContainerSwap(const CallExpr *E);

void FunctionLowering::appendIndexLoop(
    int64_t Begin, ExprP N, SourceLocation Loc, ir::Block &Out,
    llvm::function_ref<void(ExprP, ir::Block &)> Body) {
  QualType SizeTy = N->Ty->isIntegerType() ? N->Ty : Ctx.getSizeType();
  appendIndexLoop(ir::intConst(SizeTy, Begin), N, Loc, Out, Body);
}

void FunctionLowering::appendIndexLoop(
    ExprP Begin, ExprP N, SourceLocation Loc, ir::Block &Out,
    llvm::function_ref<void(ExprP, ir::Block &)> Body) {
  // k = Begin; while (k < N) { Body(k); k = k + 1; }: a counted loop the
  // analyses recognise like a source `for`.
  QualType SizeTy = N->Ty->isIntegerType() ? N->Ty : Ctx.getSizeType();
  Var *K = F->makeVar(Var::Kind::Local, "_k", SizeTy);
  F->Locals.push_back(K);
  auto Init = ir::assign(ir::ref(K), ir::cast(SizeTy, Begin), BO_Assign, Loc);
  Init->IsInit = true;
  Out.push_back(std::move(Init));
  auto L = std::make_unique<ir::Stmt>(ir::StmtKind::Loop, Loc);
  L->TestFirst = true;
  L->V = K;
  L->Cond = ir::binary(BO_LT, ir::ref(K), N, Ctx.BoolTy, Loc);
  Body(ir::ref(K), L->body());
  L->inc().push_back(ir::assign(
      ir::ref(K),
      ir::binary(BO_Add, ir::ref(K), ir::intConst(SizeTy, 1), SizeTy),
      BO_Assign, Loc));
  Out.push_back(std::move(L));
}

ExprP FunctionLowering::lowerContainerArg(const clang::Expr *A, QualType ParamTy,
                                          ir::Block &Pre) {
  // A copy made for a by-value parameter reads its source in place: the
  // callee does not write it (its own lowering checks).
  const clang::Expr *Src = A->IgnoreImplicit();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Src);
      CE && CE->getNumArgs() == 1 && CE->getConstructor()->isCopyConstructor())
    Src = CE->getArg(0)->IgnoreImplicit();
  ExprP L = isa<DeclRefExpr>(Src->IgnoreParens()) ? lowerExpr(Src, Pre)
                                                   : nullptr;
  bool ReadOnly = !ParamTy->isReferenceType() ||
                  ParamTy.getNonReferenceType().isConstQualified();
  // A container held by another or by an object (`dot(X[i], w)`,
  // `sum(L.w)`), passed to a parameter that only reads it: its address,
  // which the call binds the parameter to (a const pointer: the callee
  // writes nothing there).
  const clang::Expr *Bare = Src->IgnoreParens();
  if (!L && (isa<ArraySubscriptExpr, MemberExpr>(Bare) ||
             isContainerElementCall(Bare)) &&
      !eigenShape(Bare->getType())) {
    L = lowerExpr(Bare, Pre);
    if (!L)
      return nullptr;
  }
  if (L && isContainerPlace(*L) &&
      Ctx.hasSameUnqualifiedType(L->Ty, ParamTy.getNonReferenceType())) {
    if (!ReadOnly) {
      Diags.report(A->getExprLoc(), Diag::NotSupported)
          << ("passing a '" +
              L->Ty.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy()) +
              "' held by another container or by an object to a parameter "
              "that may write it")
          << "take the parameter as a const reference, or write the "
             "elements where the container is held";
      return nullptr;
    }
    return ir::addrOf(L, Ctx.getPointerType(L->Ty.withConst()));
  }
  if (L && L->K == ir::ExprKind::VarRef && isContainerStorageVar(L->V) &&
      Ctx.hasSameUnqualifiedType(L->V->Origin->getType().getNonReferenceType(),
                                 ParamTy.getNonReferenceType())) {
    // A callee that takes the container by const& or by value only reads
    // it: say so, as for a `const T*` parameter (the reverse sweep then
    // does not save what the callee cannot overwrite).
    QualType Elem = L->Ty->getPointeeType();
    if (ReadOnly && !Elem.isConstQualified())
      L = ir::cast(Ctx.getPointerType(Elem.withConst()), L);
    return L;
  }
  if (!L && usesPoisoned(A))
    return nullptr;
  // An Eigen expression (a callee's result, `p - q`, `P.col(i)`) passed to
  // a parameter that only reads it: evaluated into a new local, as C++
  // binds it to a temporary.
  bool ReadOnlyParam = ReadOnly;
  QualType PT = ParamTy.getNonReferenceType().getUnqualifiedType();
  if (!L && ReadOnlyParam && eigenShape(PT) && !eigenShape(PT)->View &&
      eigenNamespaceType(bare(Src)->getType())) {
    std::unique_ptr<EigenTerm> T = lowerEigenTerm(Src, Pre);
    if (!T)
      return nullptr;
    ExprP Temp = eigenTemporary(
        "_arg", PT, T, ir::mul(T->Rows, T->Cols, Ctx.getPointerDiffType()),
        "passing an Eigen expression to a function", Pre, A->getExprLoc());
    if (!Temp)
      return nullptr;
    QualType Elem = Temp->Ty->getPointeeType();
    return ir::cast(Ctx.getPointerType(Elem.withConst()), Temp);
  }
  // A std::array built in place (`step({a, b}, k)`, a callee's result)
  // passed to a parameter that only reads it: the same.
  if (!L && ReadOnlyParam && returnsFixedContainer(PT) && !eigenShape(PT)) {
    SourceLocation Loc = A->getExprLoc();
    auto *VD = VarDecl::Create(Ctx, F->Primal, Loc, Loc,
                               &Ctx.Idents.get("_arg"), PT,
                               Ctx.getTrivialTypeSourceInfo(PT, Loc), SC_None);
    QualType Elem = containerElement(PT).getUnqualifiedType();
    Var *Temp = F->makeVar(Var::Kind::Local, "_arg", Ctx.getPointerType(Elem),
                           VD);
    F->Locals.push_back(Temp);
    if (!lowerArrayAssignment(ir::ref(Temp, Loc), PT, Src, Pre))
      return nullptr;
    return ir::cast(Ctx.getPointerType(Elem.withConst()), ir::ref(Temp, Loc));
  }
  Diags.report(A->getExprLoc(), Diag::NotSupported)
      << ("passing a '" +
          ParamTy.getNonReferenceType().getUnqualifiedType().getAsString() +
          "' that is not a container variable of the function (a member, "
          "an element of another container or a temporary)")
      << "pass a container parameter or local of the calling function";
  return nullptr;
}

const clang::Expr *containerStorage(const clang::Expr *E,
                                    const clang::Expr *&Index) {
  Index = nullptr;
  const auto *Call = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
  const CXXMethodDecl *Method = nullptr;
  const clang::Expr *Object = Call ? containerObject(Call, Method) : nullptr;
  if (!Object || Object->getType()->isPointerType())
    return nullptr;
  if (Method->getOverloadedOperator() == OO_Subscript &&
      Call->getNumArgs() == 2) {
    Index = Call->getArg(1);
    return Object;
  }
  bool Data = Method->getIdentifier() && Method->getName() == "data" &&
              Call->getNumArgs() == 0;
  return Data ? Object : nullptr;
}

bool isContainerElementCall(const clang::Stmt *S) {
  const auto *E = dyn_cast<CallExpr>(S);
  const CXXMethodDecl *Method = nullptr;
  if (!E || !containerObject(E, Method))
    return false;
  // v[i], and an Eigen object's m(i, j), coeffRef(i) and v.x().
  if (Method->getOverloadedOperator() == OO_Subscript ||
      Method->getOverloadedOperator() == OO_Call)
    return true;
  if (!Method->getIdentifier())
    return false;
  StringRef Name = Method->getName();
  if (Name == "coeffRef" || Name == "coeff" ||
      (Name.size() == 1 && StringRef("xyzw").contains(Name)))
    return true;
  return Name == "at" || Name == "front" || Name == "back" || Name == "data";
}

bool FunctionLowering::lowerContainerCall(const CallExpr *E, ir::Block &Pre,
                                          ExprP &Out) {
  Out = nullptr;
  // std::swap of two objects (not containers, not Eigen): their members
  // exchanged through a copy, as the library's move-based swap does.
  if (const FunctionDecl *FD = E->getDirectCallee();
      FD && FD->isInStdNamespace() && FD->getIdentifier() &&
      FD->getName() == "swap" && E->getNumArgs() == 2 &&
      !isa<CXXMemberCallExpr>(E) && E->getArg(0)->getType()->isRecordType() &&
      containerElement(E->getArg(0)->getType()).isNull() &&
      !eigenShape(E->getArg(0)->getType())) {
    QualType T = E->getArg(0)->getType().getNonReferenceType().getUnqualifiedType();
    SourceLocation Loc = E->getExprLoc();
    ExprP A = lowerLValue(E->getArg(0), Pre);
    ExprP B = A ? lowerLValue(E->getArg(1), Pre) : nullptr;
    if (!B)
      return true;
    Var *Held = F->makeVar(Var::Kind::Local, "_swapped", T);
    F->Locals.push_back(Held);
    if (copyMembers(ir::ref(Held), A, T, Loc, Pre) &&
        copyMembers(A, B, T, Loc, Pre) &&
        copyMembers(B, ir::ref(Held), T, Loc, Pre))
      Out = ir::intConst(Ctx.IntTy, 0);
    return true;
  }
  // std::swap of two containers: their elements and sizes exchanged.
  if (isContainerSwap(E)) {
    QualType Elem = containerElement(E->getArg(0)->getType());
    bool Objects = !Elem.isNull() && Elem->isRecordType();
    if (Objects && !usesPoisoned(E))
      Diags.report(E->getExprLoc(), Diag::NotSupported)
          << ("swapping two std::vectors of objects ('" +
              Elem.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy()) +
              "')")
          << "exchange the elements' members in a loop ('double x = "
             "t[i].x; t[i].x = u[i].x; u[i].x = x;')";
    else if (!lowerContainerSwap(E->getArg(0), E->getArg(1), E->getExprLoc(),
                                 Pre, Out) &&
             !usesPoisoned(E))
      Diags.report(E->getExprLoc(), Diag::NotSupported)
          << "swapping containers other than two local std::vectors (or "
             "std::vector parameters of the annotated function) of one type"
          << "swap the elements in a loop, or copy ('u = v;')";
    return true;
  }
  const CXXMethodDecl *Method = nullptr;
  const clang::Expr *Object = containerObject(E, Method);
  if (!Object)
    return false;
  SourceLocation Loc = E->getExprLoc();
  std::string Name = Method->getNameAsString();
  if (Method->getOverloadedOperator() == OO_Subscript)
    Name = "[]";
  // A local declared empty, not used yet: its first resize or assign sizes
  // it, as a size given where it is declared would.
  const VarDecl *Unsized = nullptr;
  std::optional<std::pair<const VarDecl *, unsigned>> StillUnsized;
  if (const auto *DR = dyn_cast<DeclRefExpr>(Object->IgnoreParenImpCasts()))
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
        VD && UnsizedLocals.count(VD)) {
      // In the block it is declared in: it runs once (or, declared in a
      // loop, it is sized once before the loop). An Eigen object is also
      // sized by its first assignment and fill.
      bool Sizing = Name == "resize" || Name == "assign";
      if (eigenShape(VD->getType())) {
        unsigned Args = isa<CXXOperatorCallExpr>(E) ? 0 : E->getNumArgs();
        Sizing = Name == "resize" || Name == "operator=" ||
                 ((Name == "setZero" || Name == "setOnes") && Args >= 1) ||
                 (Name == "setConstant" && Args >= 2);
      }
      if (Sizing && sizedHere(VD))
        Unsized = VD;
      // Eigen's `=` would size it there, at each pass; derivative code
      // sizes a local once.
      if (Sizing && !Unsized && eigenShape(VD->getType())) {
        std::string N = VD->getNameAsString();
        Diags.report(Loc, Diag::NotSupported)
            << ("giving the Eigen local '" + N +
                "', declared empty, its size inside a loop or a nested block")
            << ("size it where it is declared ('" +
                VD->getType().getAsString() + " " + N +
                "(n);') or right after, in the same block");
        return true;
      }
      // Its storage is lowered below, which counts as a use; these calls
      // use no element.
      if (Name == "size" || Name == "empty" || Name == "reserve" ||
          Name == "shrink_to_fit" ||
          Name == "capacity")
        StillUnsized = {VD, UnsizedLocals.lookup(VD)};
    }
  std::string TypeName =
      Object->getType().getNonReferenceType().getUnqualifiedType().getAsString();

  // The container must be a variable the function sees as storage. An
  // Eigen object that is not one is the value of an expression
  // (`a.cross(b).dot(c)`): reductions and the like of expressions
  // (LowerEigenUses.cpp) take it.
  ExprP Storage;
  const clang::Expr *Inner = Object->IgnoreParenImpCasts();
  // An Eigen member of an object (`c.R(0, 1)`, `pose.t.x()`): its
  // coefficients where the object holds them.
  if (std::optional<EigenShape> Shape = eigenShape(Inner->getType());
      Shape && !Shape->View && isa<MemberExpr>(Inner)) {
    if (ExprP Place = lowerExpr(Inner, Pre))
      lowerEigenCall(E, Method,
                     heldEigenStorage(Place, Inner->getType()
                                                 .getNonReferenceType()
                                                 .isConstQualified()),
                     *Shape, Pre, Out);
    return true;
  }
  if (!isa<DeclRefExpr>(Inner) && eigenShape(Inner->getType()))
    return false;
  if (isa<DeclRefExpr>(Inner)) {
    if (Object->getType()->isPointerType()) {
      Diags.report(Loc, Diag::NotSupported)
          << ("a pointer to a container ('" + TypeName + "')")
          << "pass the container by reference";
      return true;
    }
    Storage = lowerExpr(Inner, Pre);
    if (StillUnsized)
      UnsizedLocals.insert(*StillUnsized);
    if (!Storage)
      return true;
  }
  // A container held by another (`X[i]` of a vector of vectors, a row
  // bound to one) or by an object (`L.w`): a place, like an element.
  if (!Storage && !eigenShape(Inner->getType()) &&
      !containerElement(Inner->getType()).isNull() &&
      !isa<CXXConstructExpr, MaterializeTemporaryExpr>(Inner))
    Storage = lowerExpr(Inner, Pre);
  if (Storage && isContainerPlace(*Storage)) {
    lowerHeldContainerCall(E, Method, Storage,
                   Object->getType().getNonReferenceType().isConstQualified(),
                   Pre, Out);
    return true;
  }
  if (!Storage && usesPoisoned(Inner))
    return true;
  if (!Storage || Storage->K != ir::ExprKind::VarRef ||
      !isContainerStorageVar(Storage->V)) {
    Diags.report(Loc, Diag::NotSupported)
        << ("a '" + TypeName +
            "' that is not a variable of the function (a member, an element "
            "of another container, a global or a temporary)")
        << "pass it to the function as a parameter of its own "
           "('const " + TypeName + " &')";
    return true;
  }
  Var *V = Storage->V;
  if (std::optional<EigenShape> Shape = eigenShape(V->Origin->getType())) {
    if (!Unsized || !sizeEigenLocal(E, Name, Storage, *Shape, Pre, Out))
      lowerEigenCall(E, Method, Storage, *Shape, Pre, Out);
    return true;
  }
  QualType Elem = V->Type->getPointeeType();
  Var *Count = GrowCounts.lookup(V);
  auto SizeExpr = [&]() { return containerSize(V, Loc); };
  auto Element = [&](ExprP Idx) {
    ExprP R = ir::index(Storage, Idx, Elem);
    std::const_pointer_cast<ir::Expr>(R)->Loc = Loc;
    return R;
  };
  unsigned NArgs = E->getNumArgs() - (isa<CXXOperatorCallExpr>(E) ? 1 : 0);
  const clang::Expr *Arg0 =
      NArgs ? E->getArg(isa<CXXOperatorCallExpr>(E) ? 1 : 0) : nullptr;
  if ((Name == "[]" || Name == "at") && Arg0) {
    // The conversion to size_type is implicit in x[i], as for an array.
    const clang::Expr *I = Arg0;
    while (const auto *ICE = dyn_cast<ImplicitCastExpr>(I->IgnoreParens())) {
      if (ICE->getCastKind() != CK_IntegralCast || !ICE->getSubExpr()->getType()->isIntegerType())
        break;
      I = ICE->getSubExpr();
    }
    ExprP Idx = lowerExpr(I, Pre);
    if (Idx)
      Out = Element(Idx);
    return true;
  }
  if (Name == "front" && !NArgs) {
    Out = Element(ir::intConst(Ctx.IntTy, 0));
    return true;
  }
  if (Name == "back" && !NArgs) {
    QualType SizeTy = Ctx.getSizeType();
    Out = Element(ir::binary(BO_Sub, SizeExpr(), ir::intConst(SizeTy, 1),
                             SizeTy));
    return true;
  }
  if (Name == "data" && !NArgs) {
    Out = Storage;
    return true;
  }
  if ((Name == "size" || Name == "max_size") && !NArgs) {
    Out = ir::cast(E->getType(), SizeExpr());
    return true;
  }
  if (Name == "empty" && !NArgs) {
    Out = ir::binary(BO_EQ, SizeExpr(), ir::intConst(Ctx.getSizeType(), 0),
                     Ctx.BoolTy);
    return true;
  }
  // y.push_back(v) on a local vector that grows: it grows by one element
  // (and its adjoint with it, by a zero), which is then v.
  if ((Name == "push_back" || Name == "emplace_back") && NArgs == 1 && Count) {
    bool Object = Elem->isRecordType();
    ExprP Value = Object ? nullptr : lowerExpr(Arg0, Pre);
    if (!Object && !Value)
      return true;
    QualType SizeTy = Count->Type;
    Pre.push_back(ir::resize(
        Storage, ir::binary(BO_Add, ir::ref(Count), ir::intConst(SizeTy, 1),
                            SizeTy),
        Loc, nullptr, /*Keep=*/true));
    // An object: its members from the initialiser (`v.push_back(P{a, b})`)
    // or from the object read (`v.push_back(p)`).
    if (Object) {
      if (!lowerObjectInto(Element(ir::ref(Count)), Elem, Arg0, Pre))
        return true;
    } else {
      Pre.push_back(ir::assign(Element(ir::ref(Count)),
                               convertResult(Value, Elem, Pre), BO_Assign,
                               Loc));
    }
    Pre.push_back(ir::assign(ir::ref(Count),
                             ir::binary(BO_Add, ir::ref(Count),
                                        ir::intConst(SizeTy, 1), SizeTy),
                             BO_Assign, Loc));
    Out = ir::intConst(Ctx.IntTy, 0);
    return true;
  }
  // t.resize(n), t.resize(n, v), t.assign(n, v) sizing a local declared
  // empty: n zeros (and its adjoint with it), then v in each.
  if (Unsized && (NArgs == 1 || NArgs == 2) && Arg0->getType()->isIntegerType() &&
      (Name == "resize" || NArgs == 2)) {
    QualType SizeTy = Ctx.getSizeType();
    ExprP N = lowerExpr(Arg0, Pre);
    ExprP Value = N && NArgs == 2
                      ? lowerExpr(E->getArg(E->getNumArgs() - 1), Pre)
                      : nullptr;
    if (!N || (NArgs == 2 && !Value))
      return true;
    N = materialize(ir::cast(SizeTy, N), Pre, "_n", Loc);
    Pre.push_back(ir::resize(Storage, N, Loc));
    if (Value) {
      bool Object = Elem->isRecordType();
      if (!Object)
        Value = materialize(convertResult(Value, Elem, Pre), Pre, "_fill",
                            Loc);
      bool OK = true;
      appendIndexLoop(0, N, Loc, Pre, [&](ExprP K, ir::Block &Body) {
        if (Object)
          OK &= assignElement(Element(K), Value, Elem, Loc, Body);
        else
          Body.push_back(ir::assign(Element(K), Value, BO_Assign, Loc));
      });
      if (!OK)
        return true;
    }
    if (Count)
      Pre.push_back(ir::assign(ir::ref(Count), N, BO_Assign, Loc));
    Out = ir::intConst(Ctx.IntTy, 0);
    return true;
  }
  // Other size changes of a local whose count the function follows.
  if (Count && changesContainerSize(Name) && Name != "push_back" &&
      Name != "emplace_back") {
    lowerSizeChange(E, Name, V, Count, Pre, Out);
    return true;
  }
  // a.fill(v) of a std::array: every element v (read once, first).
  if (Name == "fill" && NArgs == 1 && containerFixedSize(V->Origin->getType())) {
    ExprP Value = lowerExpr(Arg0, Pre);
    if (!Value)
      return true;
    if (!Elem->isRecordType())
      Value = materialize(convertResult(Value, Elem, Pre), Pre, "_fill", Loc);
    bool OK = true;
    appendIndexLoop(0, SizeExpr(), Loc, Pre, [&](ExprP K, ir::Block &Body) {
      OK &= assignElement(Element(K), Value, Elem, Loc, Body);
    });
    if (OK)
      Out = ir::intConst(Ctx.IntTy, 0);
    return true;
  }
  // emplace_back(a, b): the element is built by its class's constructor
  // inside the library, which derivative code does not follow.
  if (Name == "emplace_back" && NArgs != 1 && Count && Elem->isRecordType()) {
    std::string Class =
        Elem.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
    Diags.report(Loc, Diag::NotSupported)
        << ("emplace_back with the arguments of a constructor of '" + Class +
            "'")
        << ("build the object in the call ('" + V->Name + ".push_back(" +
            Class + "(...))')");
    return true;
  }
  // Capacity only: no element or size changes.
  if ((Name == "reserve" && NArgs == 1) || (Name == "shrink_to_fit" && NArgs == 0)) {
    Out = ir::intConst(Ctx.IntTy, 0);
    return true;
  }
  // Iterators a position does not cover (LowerIterators.cpp takes
  // begin() and end() where an iterator is used).
  bool Iterator = Name == "begin" || Name == "end" || Name == "cbegin" ||
                  Name == "cend" || Name == "rbegin" || Name == "rend" ||
                  Name == "crbegin" || Name == "crend";
  if (Iterator)
    Diags.report(Loc, Diag::NotSupported)
        << ("an iterator of a '" + TypeName + "' ('" + Name + "()') here")
        << "loop over the elements with a range-based for or an index "
           "loop, or use begin() and end() with *it, ++it, it + n and "
           "comparisons";
  else if (!Method->isConst())
    Diags.report(Loc, Diag::NotSupported)
        << ("calling '" + Name + "' on '" + V->Name + "' (a '" + TypeName +
            "': a call that changes its size or all of it)")
        << "size the container where it is declared ('" + TypeName +
               " t(n);') and assign its elements ('t[i] = ...')";
  else
    Diags.report(Loc, Diag::NotSupported)
        << ("'" + Name + "' of a '" + TypeName + "'")
        << "use size(), data(), front(), back() or the elements ('x[i]')";
  return true;
}

bool changesContainerSize(StringRef Name) {
  return Name == "push_back" || Name == "emplace_back" || Name == "pop_back" ||
         Name == "resize" || Name == "assign" || Name == "clear" ||
         Name == "operator=" || Name == "swap" || Name == "insert" ||
         Name == "erase" || Name == "emplace";
}

/// std::swap(u, v) on two containers: its arguments.
static bool isContainerSwap(const CallExpr *E) {
  const FunctionDecl *FD = E ? E->getDirectCallee() : nullptr;
  return FD && FD->isInStdNamespace() && FD->getIdentifier() &&
         FD->getName() == "swap" && E->getNumArgs() == 2 &&
         !isa<CXXMemberCallExpr>(E) &&
         !containerElement(E->getArg(0)->getType()).isNull() &&
         !eigenShape(E->getArg(0)->getType());
}

static const VarDecl *localOrParam(const clang::Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return VD && (VD->isLocalVarDecl() || isa<ParmVarDecl>(VD)) ? VD : nullptr;
}

/// The local variable a member call of S is made on, if the call changes
/// its size (Only: or Only, when the call is a swap that changes its
/// size too).
static const VarDecl *resizedBy(const Stmt *S, const VarDecl *Only) {
  const auto *Call = dyn_cast<CallExpr>(S);
  if (isContainerSwap(Call)) {
    for (const clang::Expr *A : Call->arguments())
      if (const VarDecl *VD = localOrParam(A); VD && (!Only || VD == Only))
        return VD;
    return nullptr;
  }
  if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
      MC && Only && MC->getMethodDecl() && MC->getMethodDecl()->getIdentifier() &&
      MC->getMethodDecl()->getName() == "swap" && MC->getNumArgs() == 1 &&
      localOrParam(MC->getArg(0)) == Only &&
      !containerElement(MC->getArg(0)->getType()).isNull())
    return Only;
  const CXXMethodDecl *Method = nullptr;
  const clang::Expr *Object = Call ? containerObject(Call, Method) : nullptr;
  if (!Object || (!Method->getIdentifier() && !Method->isOverloadedOperator()))
    return nullptr;
  // A std::array keeps its size (`a = b` assigns the elements).
  QualType T = Object->getType().getNonReferenceType();
  if (!changesContainerSize(Method->getNameAsString()) || eigenShape(T) ||
      (Method->getOverloadedOperator() == OO_Equal && containerFixedSize(T)))
    return nullptr;
  return localOrParam(Object);
}

bool isContainerPlace(const ir::Expr &E) {
  return (E.K == ir::ExprKind::Index || E.K == ir::ExprKind::Member) &&
         !eigenShape(E.Ty) && !containerElement(E.Ty).isNull();
}

void FunctionLowering::lowerHeldContainerCall(const CallExpr *E,
                                      const CXXMethodDecl *Method,
                                      ExprP Place, bool Const, ir::Block &Pre,
                                      ExprP &Out) {
  Out = nullptr;
  SourceLocation Loc = E->getExprLoc();
  QualType Elem = containerElement(Place->Ty);
  if (Const || Place->Ty.isConstQualified())
    Elem.addConst();
  QualType SizeTy = Ctx.getSizeType();
  std::optional<uint64_t> Fixed = containerFixedSize(Place->Ty);
  ExprP Size = Fixed ? ir::intConst(SizeTy, int64_t(*Fixed))
                     : ir::sizeOf(Place, SizeTy);
  auto Element = [&](ExprP Idx) {
    ExprP R = ir::index(Place, Idx, Elem);
    std::const_pointer_cast<ir::Expr>(R)->Loc = Loc;
    return R;
  };
  std::string Name = Method->getOverloadedOperator() == OO_Subscript
                         ? "[]"
                         : Method->getNameAsString();
  unsigned NArgs = E->getNumArgs() - (isa<CXXOperatorCallExpr>(E) ? 1 : 0);
  if ((Name == "[]" || Name == "at") && NArgs == 1) {
    if (ExprP Idx = lowerExpr(E->getArg(E->getNumArgs() - 1), Pre))
      Out = Element(Idx);
    return;
  }
  if (Name == "front" && !NArgs) {
    Out = Element(ir::intConst(SizeTy, 0));
    return;
  }
  if (Name == "back" && !NArgs) {
    Out = Element(ir::binary(BO_Sub, Size, ir::intConst(SizeTy, 1), SizeTy));
    return;
  }
  if (Name == "data" && !NArgs) {
    Out = ir::addrOf(Element(ir::intConst(SizeTy, 0)),
                     Ctx.getPointerType(Elem));
    return;
  }
  if ((Name == "size" || Name == "max_size") && !NArgs) {
    Out = ir::cast(E->getType(), Size);
    return;
  }
  if (Name == "empty" && !NArgs) {
    Out = ir::binary(BO_EQ, Size, ir::intConst(SizeTy, 0), Ctx.BoolTy);
    return;
  }
  std::string TypeName = Place->Ty.getUnqualifiedType().getAsString(
      Ctx.getPrintingPolicy());
  bool Iterator = Name == "begin" || Name == "end" || Name == "cbegin" ||
                  Name == "cend" || Name == "rbegin" || Name == "rend";
  Diags.report(Loc, Diag::NotSupported)
      << ("calling '" + Name + "' on a '" + TypeName +
          "' held by another container or by an object")
      << (Iterator ? "loop over its elements with an index or a range-based "
                     "for"
                   : "read and write its elements ('x[i]', size(), front(), "
                     "back()); its size cannot change in differentiated code");
}

const VarDecl *resizedLocal(const Stmt *S, const VarDecl *Only,
                            bool InLoop) {
  if (!S)
    return nullptr;
  if (const VarDecl *VD = resizedBy(S, Only); VD && (!Only || VD == Only))
    return VD;
  // A std::vector declared in a loop is sized again at each iteration.
  if (const auto *DS = dyn_cast<DeclStmt>(S); DS && InLoop && !Only)
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D);
          VD && !VD->isImplicit() && !VD->getType()->isReferenceType())
        if (QualType T = VD->getType(); !containerElement(T).isNull() &&
                                        !containerFixedSize(T) &&
                                        !eigenShape(T))
          return VD;
  bool Loop = InLoop || isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
  for (const Stmt *C : S->children())
    if (const VarDecl *VD = resizedLocal(C, Only, Loop))
      return VD;
  return nullptr;
}

void FunctionLowering::noteResizedContainer(const VarDecl *VD,
                                            ir::Block &Out,
                                            const Stmt *Body) {
  QualType T = VD->getType().getNonReferenceType();
  Var *V = Vars.lookup(VD);
  // A variable that is another's storage (the local a callee returned)
  // keeps the count that one has.
  if (!V || GrowCounts.count(V) || eigenShape(T) || containerFixedSize(T) ||
      (Scopes.empty() && !Body))
    return;
  // Sized again at each iteration, or by a later call in its scope (a
  // parameter: in the function's body).
  bool Changes = LoopDepth > 0 || (Body && resizedLocal(Body, VD));
  if (!Body) {
    auto [Scope, Index] = Scopes.back();
    auto Stmts = Scope->body();
    for (auto It = Stmts.begin() + Index; It != Stmts.end() && !Changes; ++It)
      Changes = resizedLocal(*It, VD);
  }
  if (!Changes)
    return;
  // Its count from here on: an integer the engine follows like any other
  // (a size that changes in a loop is no loop invariant).
  QualType SizeTy = Ctx.getSizeType();
  Var *Count = F->makeVar(Var::Kind::Local, VD->getName().str() + "_n", SizeTy);
  F->Locals.push_back(Count);
  ExprP N = DeclaredSizes.lookup(V);
  Out.push_back(ir::assign(ir::ref(Count),
                           N ? ir::cast(SizeTy, N)
                             : ir::sizeOf(ir::ref(V), SizeTy),
                           BO_Assign, VD->getLocation()));
  Out.back()->IsInit = true;
  GrowCounts[V] = Count;
}

} // namespace fluxion
