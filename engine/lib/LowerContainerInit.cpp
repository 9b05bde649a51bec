//===- LowerContainerInit.cpp - Containers made and assigned whole --------===//
//
// A local std::vector, std::array or Eigen object is storage the lowering
// sizes where it is declared (a Resize, LowerContainer.cpp) and fills with
// ordinary element assignments:
//
//   std::vector<double> t(n), t(n, v)    n elements (v in each)
//   t = {a, b}, std::array<T, 2> q{a, b}  the values, in order
//   std::vector<double> c = h, w(b, e)   a copy of a container of the
//                                        function, or of a range of one
//   Vector3d v(a, b, c), VectorXd r = e  coefficients, an Eigen expression
//                                        (LowerEigenUses.cpp)
//
// A std::array assigned whole (`t = u`, `t = g(x)`, `t = {t[1], t[0]}`, a
// fixed-size result returned) is assigned element by element, a braced
// list computed whole before it is stored.
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

/// The initialisers of a braced list, nested lists (std::array's member)
/// flattened; null for an element left to value-initialisation.
static void flattenInits(const clang::Expr *E,
                         llvm::SmallVectorImpl<const clang::Expr *> &Out) {
  E = E->IgnoreParens();
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    if (IL->isSyntacticForm() && IL->getSemanticForm())
      IL = IL->getSemanticForm();
    for (const clang::Expr *I : IL->inits())
      flattenInits(I, Out);
    return;
  }
  Out.push_back(isa<ImplicitValueInitExpr>(E) ? nullptr : E);
}

bool FunctionLowering::lowerArrayReturn(const clang::Expr *V,
                                        ir::Block &Out) {
  return lowerArrayAssignment(ir::ref(Result, V->getExprLoc()),
                              Result->Origin->getType(), V, Out);
}

bool FunctionLowering::lowerArrayAssignment(ExprP Dst, QualType T,
                                            const clang::Expr *V,
                                            ir::Block &Out) {
  SourceLocation Loc = V->getExprLoc();
  // A variable's storage, or a std::array held by a container or an object
  // (`ps[i] = {a, b}`).
  QualType Elem = Dst->Ty->isPointerType()
                      ? Dst->Ty->getPointeeType()
                      : containerElement(T).getUnqualifiedType();
  QualType SizeTy = Ctx.getSizeType();
  uint64_t N = containerFixedSize(T).value_or(0);
  auto At = [&](ExprP Base, uint64_t K) {
    return ir::index(Base, ir::intConst(SizeTy, int64_t(K)), Elem);
  };
  const clang::Expr *E = V->IgnoreImplicit()->IgnoreParens();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
      CE && CE->getNumArgs() == 1)
    E = CE->getArg(0)->IgnoreImplicit()->IgnoreParens(); // a copy
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) // A2{a, b}
    E = FC->getSubExpr()->IgnoreImplicit()->IgnoreParens();
  // c ? u : v: an if assigning each.
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    ExprP C = lowerExpr(CO->getCond(), Out);
    ir::Block Then, Else;
    if (!C || !lowerArrayAssignment(Dst, T, CO->getTrueExpr(), Then) ||
        !lowerArrayAssignment(Dst, T, CO->getFalseExpr(), Else))
      return false;
    Out.push_back(ir::ifStmt(C, std::move(Then), std::move(Else), Loc));
    return true;
  }
  // {a, b, c}: the elements the list leaves out are zeros. The list is a
  // temporary: every value is computed before the first is stored
  // (`t = {t[1], t[0]}` exchanges them), except into a view's fresh
  // result.
  if (isa<InitListExpr>(E)) {
    llvm::SmallVector<const clang::Expr *, 8> Inits;
    flattenInits(E, Inits);
    llvm::SmallVector<ExprP, 8> Values;
    for (uint64_t K = 0; K < N; ++K) {
      ExprP Value = ir::floatConst(Elem, 0);
      if (K < Inits.size() && Inits[K]) {
        Value = lowerExpr(Inits[K], Out);
        if (!Value)
          return false;
        Value = convertResult(Value, Elem, Out);
        bool Fresh = Result && Dst->K == ir::ExprKind::VarRef &&
                     Dst->V == Result;
        if (!Fresh && Value->K != ir::ExprKind::Const)
          Value = materialize(Value, Out, "_e", Loc);
      }
      Values.push_back(Value);
    }
    for (uint64_t K = 0; K < N; ++K)
      Out.push_back(ir::assign(At(Dst, K), Values[K], BO_Assign, Loc));
    return true;
  }
  // A container variable of the function, or a callee's result (a new
  // local, FunctionViews.h): copied.
  ExprP Src;
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      if (Var *S = Vars.lookup(VD); S && isContainerStorageVar(S))
        Src = ir::ref(S, Loc);
  } else if (const auto *Call = dyn_cast<CallExpr>(E);
             Call && Call->getDirectCallee() &&
             returnsFixedContainer(Call->getDirectCallee()->getReturnType())) {
    Src = lowerExpr(Call, Out);
    if (!Src)
      return false;
    if (Src->K != ir::ExprKind::VarRef || !isContainerStorageVar(Src->V))
      Src = nullptr;
  }
  // A std::array held by a container or an object (`ps[j]`, `s.a`).
  if (!Src && E->isGLValue() &&
      Ctx.hasSameUnqualifiedType(E->getType(), T.getNonReferenceType()) &&
      isa<ArraySubscriptExpr, MemberExpr, CXXOperatorCallExpr>(E)) {
    Src = lowerExpr(E, Out);
    if (!Src)
      return false;
    if (Src->K != ir::ExprKind::Index && Src->K != ir::ExprKind::Member &&
        !(Src->K == ir::ExprKind::VarRef && isContainerStorageVar(Src->V)))
      Src = nullptr;
  }
  if (Src) {
    // Through temporaries when both sides are places in one variable
    // (`ps[0] = ps[1]`, which may be the same element).
    bool Same = Src->rootVar() && Src->rootVar() == Dst->rootVar() &&
                Src->K != ir::ExprKind::VarRef;
    llvm::SmallVector<ExprP, 8> Values;
    for (uint64_t K = 0; K < N; ++K)
      Values.push_back(Same ? materialize(At(Src, K), Out, "_e", Loc)
                            : At(Src, K));
    for (uint64_t K = 0; K < N; ++K)
      Out.push_back(ir::assign(At(Dst, K), Values[K], BO_Assign, Loc));
    return true;
  }
  std::string TypeName = T.getNonReferenceType().getUnqualifiedType()
                             .getAsString(Ctx.getPrintingPolicy());
  Diags.report(Loc, Diag::NotSupported)
      << ("this value of a '" + TypeName + "'")
      << "give a braced list of its elements ('{a, b}'), a variable holding "
         "them, or the result of a function returning one";
  return false;
}

/// The braced list E is (`{a, b}` passed as a std::initializer_list).
static const InitListExpr *initializerList(const clang::Expr *E) {
  E = E->IgnoreImplicit();
  if (const auto *SL = dyn_cast<CXXStdInitializerListExpr>(E))
    E = SL->getSubExpr()->IgnoreImplicit();
  return dyn_cast<InitListExpr>(E);
}

/// Whether an object of type T holds storage of its own, which a copy or
/// a zero of it would have to allocate: a std::vector or a dynamic-size
/// Eigen object, as T itself, as an element of a fixed-size array or
/// std::array, or as a member.
static bool holdsOwnStorage(QualType T, unsigned Depth = 0) {
  T = T.getCanonicalType();
  if (Depth > 8)
    return false;
  if (const auto *AT = dyn_cast<ConstantArrayType>(T.getTypePtr()))
    return holdsOwnStorage(AT->getElementType(), Depth + 1);
  if (eigenShape(T))
    return !containerFixedSize(T);
  if (QualType Elem = containerElement(T); !Elem.isNull())
    return !containerFixedSize(T) || holdsOwnStorage(Elem, Depth + 1);
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  for (const CXXBaseSpecifier &B : RD->getDefinition()->bases())
    if (holdsOwnStorage(B.getType(), Depth + 1))
      return true;
  for (const FieldDecl *F : RD->getDefinition()->fields())
    if (holdsOwnStorage(F->getType(), Depth + 1))
      return true;
  return false;
}

bool FunctionLowering::lowerContainerLocal(const VarDecl *VD, ir::Block &Out,
                                           const clang::Expr *InitAs) {
  QualType T = VD->getType().getNonReferenceType();
  QualType Elem = containerElement(T).getUnqualifiedType();
  std::string TypeName = T.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
  SourceLocation Loc = VD->getLocation();
  if (Elem->isRecordType() && !isDifferentiableRecord(Elem)) {
    // Its zeros and copies would be objects the engine does not follow.
    Diags.report(Loc, Diag::NotSupported)
        << ("a local '" + TypeName + "' ('" + VD->getNameAsString() + "')")
        << ("take it as a parameter, or use a local array of '" +
            Elem->getAsRecordDecl()->getNameAsString() + "'");
    return false;
  }
  if (holdsOwnStorage(Elem)) {
    // Each element's adjoint would need storage of the size that element
    // has; derivative code does not follow those sizes.
    Diags.report(Loc, Diag::NotSupported)
        << ("a local '" + TypeName + "' ('" + VD->getNameAsString() +
            "') whose elements hold containers of their own")
        << ("keep all the numbers in one std::vector (element (i, j) at [i "
            "* m + j]), or take the container as a parameter ('const " +
            TypeName + " &')");
    return false;
  }
  if (std::optional<EigenShape> Shape = eigenShape(T); Shape && Shape->View) {
    // A view of other memory: the engine would need to know what it views.
    Diags.report(Loc, Diag::NotSupported)
        << ("a local Eigen view '" + TypeName + "' ('" +
            VD->getNameAsString() + "')")
        << "copy the values into a local object ('Eigen::Vector3d p(x[0], "
           "x[1], x[2]);'), or take the view as a parameter";
    return false;
  }
  // In a loop: a fixed-size container of numbers is an array whose
  // elements are assigned again, as a local array's are; a std::vector is
  // sized again at each iteration, a size change the reverse sweep undoes
  // (ReverseResize.cpp); a dynamic Eigen object is sized once, before the
  // outermost loop (its size must be known there), and then assigned
  // again at each iteration like a fixed-size one.
  bool FixedNumbers = containerFixedSize(T) && Elem->isRealFloatingType();
  bool Objects = Elem->isRecordType();
  bool Vector = !containerFixedSize(T) && !eigenShape(T) && !Objects;
  bool SizedBeforeLoops =
      LoopDepth && eigenShape(T) && !containerFixedSize(T) && LoopEntry;
  if (LoopDepth && !FixedNumbers && !Vector && !SizedBeforeLoops) {
    Diags.report(Loc, Diag::NotSupported)
        << ("a local '" + TypeName + "' ('" + VD->getNameAsString() +
            "') declared inside a loop")
        << "declare it before the loop and assign its elements in the loop";
    return false;
  }
  // `std::vector<double> p = softmax(z);`: the callee's body in place, its
  // returned local the variable.
  const clang::Expr *Given = InitAs ? InitAs : VD->getInit();
  if (const CallExpr *Call = containerResultCall(Given, T)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee->hasBody() && Instantiate)
      Instantiate(const_cast<FunctionDecl *>(Callee), Call->getExprLoc());
    llvm::SmallVector<const clang::Expr *, 4> Args(Call->arguments().begin(),
                                                   Call->arguments().end());
    ExprP R = inlineBody(Callee, {}, Args, Out, Call->getExprLoc(),
                         "function returning a container");
    if (!R)
      return false;
    Vars[VD] = R->V;
    return true;
  }
  // `A3 k1 = rhs(y);` with a lambda returning a container: likewise.
  if (const auto *Call =
          dyn_cast_or_null<CallExpr>(Given ? Given->IgnoreImplicit() : nullptr);
      Call && isLambdaCall(Call) && !Call->getType()->isReferenceType() &&
      Ctx.hasSameUnqualifiedType(Call->getType(), T)) {
    ExprP R = lowerLambdaCall(Call, Out);
    if (!R)
      return false;
    Vars[VD] = R->V;
    return true;
  }
  Var *V = F->makeVar(Var::Kind::Local, VD->getName(), Ctx.getPointerType(Elem),
                      const_cast<VarDecl *>(VD));
  Vars[VD] = V;
  F->Locals.push_back(V);
  ExprP Storage = ir::ref(V, Loc);
  std::optional<uint64_t> Fixed = containerFixedSize(T);
  QualType SizeTy = Ctx.getSizeType();

  // Storage[k] = Value(k) for every k < N (objects member by member).
  bool LoopOK = true;
  auto Loop = [&](ExprP N, llvm::function_ref<ExprP(ExprP)> Value) {
    appendIndexLoop(0, N, Loc, Out, [&](ExprP K, ir::Block &Body) {
      if (Objects) {
        LoopOK &= assignElement(ir::index(Storage, K, Elem), Value(K), Elem,
                                Loc, Body);
        return;
      }
      Body.push_back(ir::assign(ir::index(Storage, K, Elem), Value(K),
                                BO_Assign, Loc));
    });
    return LoopOK;
  };
  // A size, computed where the local is sized: here, or before the
  // outermost loop (SizedBeforeLoops), where it must be known.
  bool SizeKnown = true;
  auto SizeValue = [&](ExprP Raw, StringRef Name) {
    if (!SizedBeforeLoops)
      return materialize(Raw, Out, Name, Loc);
    if (SizeKnown && !knownBeforeLoops(*Raw)) {
      Diags.report(Loc, Diag::NotSupported)
          << ("a local '" + TypeName + "' ('" + VD->getNameAsString() +
              "') declared inside a loop with a size computed in the loop")
          << "declare it before the loop, or size it by what is known "
             "before the loop (the size of a parameter, or an integer "
             "declared before the loop that nothing changes)";
      SizeKnown = false;
    }
    return materialize(Raw, *LoopEntry, Name, Loc);
  };
  // Rows: of a dynamic-size Eigen matrix, whose coefficients are N.
  // Filled: the initialiser assigns every coefficient (else the
  // declaration's zeros stand, set again at each iteration of a loop).
  auto Sized = [&](ExprP N, ExprP Rows = nullptr, bool Filled = false) {
    // A std::array has its size from the start.
    if (Fixed)
      return;
    DeclaredSizes[V] = N;
    if (SizedBeforeLoops) {
      LoopEntry->push_back(ir::resize(Storage, N, Loc, Rows));
      if (!Filled)
        Loop(N, [&](ExprP) { return ir::floatConst(Elem, 0); });
      return;
    }
    // In a loop, a std::vector already holds the last iteration's
    // elements: sized again (undone by the reverse sweep) and zeroed
    // again, then the initialiser assigns them.
    if (LoopDepth) {
      Out.push_back(ir::resizeAgain(Storage, N, Loc));
      Loop(N, [&](ExprP) { return ir::floatConst(Elem, 0); });
      return;
    }
    Out.push_back(ir::resize(Storage, N, Loc, Rows));
  };
  // Declared in a loop, it starts again at each iteration: what the
  // initialiser leaves to the declaration's zeros (`{}`, `Zero()`, the
  // elements after a shorter list) is zeroed again.
  if (LoopDepth && Fixed)
    Loop(ir::intConst(SizeTy, int64_t(*Fixed)),
         [&](ExprP) { return ir::floatConst(Elem, 0); });
  auto Bad = [&](StringRef Form) {
    std::string Name = VD->getNameAsString();
    Diags.report(Loc, Diag::NotSupported)
        << ("initialising the local '" + TypeName + "' '" + Name + "' " +
            Form.str())
        << (eigenShape(T)
                ? "give it a size ('" + TypeName + " " + Name +
                      "(n)'), its coefficients ('(x, y, z)'), Zero, Ones or "
                      "Constant, or a copy of another Eigen variable"
                : "give it a size ('" + TypeName + " " + Name +
                      "(n)' or '(n, value)'), a braced list of values, or a "
                      "copy of another container variable");
    return false;
  };

  std::optional<EigenShape> Eigen = eigenShape(T);
  bool DynamicMatrix = Eigen && !Fixed && !Eigen->isVector();
  // Sized as the Eigen expression E (LowerEigenExpr.cpp), then assigned it.
  auto FromEigenExpression = [&](const clang::Expr *E) {
    std::unique_ptr<EigenTerm> R = lowerEigenTerm(E, Out);
    if (!R)
      return false;
    if (!Fixed)
      Sized(SizeValue(ir::cast(SizeTy, ir::mul(R->Rows, R->Cols,
                                               Ctx.getPointerDiffType())),
                      "_n"),
            DynamicMatrix ? SizeValue(ir::cast(SizeTy, R->Rows), "_rows")
                          : nullptr,
            /*Filled=*/true);
    return SizeKnown && assignEigenTerm(Storage, BO_Assign, R, Out, Loc);
  };
  const clang::Expr *Init = Given ? Given->IgnoreImplicit() : nullptr;
  // fluxion::stop_gradient(x) of a container of numbers: a copy of x (the
  // helper's parameter) whose elements carry no derivative.
  bool Stopped = false;
  if (const auto *SG = dyn_cast_or_null<CallExpr>(Init);
      SG && SG->getNumArgs() == 1 && isStopGradient(SG->getDirectCallee()) &&
      !Eigen && !Objects) {
    Init = SG->getArg(0)->IgnoreImplicit();
    Stopped = true;
  }
  // A copy of another container variable, or of one held by another or by
  // an object (`std::vector<double> row = X[i];`).
  auto CopyOf = [&](const clang::Expr *S) {
    S = S->IgnoreParens();
    ExprP Src = isa<DeclRefExpr, ArraySubscriptExpr, MemberExpr>(S) ||
                        isContainerElementCall(S)
                    ? lowerExpr(S, Out)
                    : nullptr;
    bool Place = Src && isContainerPlace(*Src);
    if (!Src || (!Place && (Src->K != ir::ExprKind::VarRef ||
                            !isContainerStorageVar(Src->V))))
      return Src || !usesPoisoned(S) ? Bad("from this expression") : false;
    ExprP Count = Fixed   ? ir::intConst(SizeTy, int64_t(*Fixed))
                  : Place ? SizeValue(ir::sizeOf(Src, SizeTy), "_n")
                          : SizeValue(containerSize(Src->V, Loc), "_n");
    Sized(Count, nullptr, /*Filled=*/true);
    if (!SizeKnown)
      return false;
    QualType SrcElem =
        Place ? containerElement(Src->Ty) : Src->Ty->getPointeeType();
    if (Objects && SrcElem.getCanonicalType().getUnqualifiedType() !=
                       Elem.getCanonicalType())
      return Bad("from a container of another class");
    return Loop(Count, [&](ExprP K) {
      ExprP X = ir::index(Src, K, SrcElem);
      if (Stopped)
        X = ir::stopGrad(X, X->Ty, Loc);
      return Objects ? X : ir::cast(Elem, X);
    });
  };
  // The argument of a parameter taken by value (lowerParamCopy).
  if (const auto *DR = dyn_cast_or_null<DeclRefExpr>(Init);
      DR && !containerElement(DR->getType()).isNull())
    return DynamicMatrix ? FromEigenExpression(DR) : CopyOf(DR);
  if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Init)) {
    unsigned N = CE->getNumArgs();
    // Arguments a constructor takes by default (an allocator) are left out.
    while (N && isa<CXXDefaultArgExpr>(CE->getArg(N - 1)))
      --N;
    if (N == 0) {
      // Empty (std::vector: sized later, by its first resize or assign,
      // or emptied again in a loop) or zeros (std::array).
      if (!Fixed && !Eigen && LoopDepth) {
        Sized(ir::intConst(SizeTy, 0));
      } else if (!Fixed) {
        UnsizedLocals[VD] = Scopes.size();
        if (LoopDepth)
          UnsizedInLoops[VD] = LoopDepth;
      }
      return true;
    }
    const clang::Expr *A0 = CE->getArg(0)->IgnoreImplicit();
    // Matrix2d m{{a, b}, {c, d}}: row by row (Eigen 3.4); a column vector
    // takes one row of values as its coefficients.
    if (Eigen && N == 1)
      if (const InitListExpr *Outer = initializerList(A0)) {
        llvm::SmallVector<llvm::SmallVector<const clang::Expr *, 4>, 4> Rows;
        for (const clang::Expr *Row : Outer->inits()) {
          const InitListExpr *Inner = initializerList(Row);
          if (!Inner)
            return Bad("with these constructor arguments");
          Rows.emplace_back(Inner->inits().begin(), Inner->inits().end());
        }
        bool Column = Eigen->Cols == 1 && Rows.size() == 1;
        size_t R = Column ? Rows[0].size() : Rows.size();
        size_t C = Column ? 1 : (Rows.empty() ? 0 : Rows[0].size());
        for (const auto &Row : Rows)
          if (Row.size() != (Column ? R : C))
            return Bad("with rows of different lengths");
        if ((Eigen->Rows >= 0 && size_t(Eigen->Rows) != R) ||
            (Eigen->Cols >= 0 && size_t(Eigen->Cols) != C))
          return Bad("with a list of another shape");
        if (!Fixed)
          Sized(ir::intConst(SizeTy, int64_t(R * C)),
                DynamicMatrix ? ir::intConst(SizeTy, int64_t(R)) : nullptr,
                /*Filled=*/true);
        for (size_t I = 0; I < R; ++I)
          for (size_t J = 0; J < C; ++J) {
            const clang::Expr *Item = Column ? Rows[0][I] : Rows[I][J];
            ExprP Value = lowerExpr(Item, Out);
            if (!Value)
              return false;
            size_t Flat = Eigen->RowMajor && !Column ? I * C + J : I + J * R;
            Out.push_back(ir::assign(
                ir::index(Storage, ir::intConst(SizeTy, int64_t(Flat)), Elem),
                convertResult(Value, Elem, Out), BO_Assign,
                Item->getExprLoc()));
          }
        return true;
      }
    if (DynamicMatrix) {
      // MatrixXd m(rows, cols): zeros (Eigen leaves them uninitialised);
      // anything else is an expression (Zero, Identity, a copy, A * B).
      if (N == 2 && A0->getType()->isIntegerType() &&
          CE->getArg(1)->IgnoreImplicit()->getType()->isIntegerType()) {
        ExprP R = lowerExpr(A0, Out);
        ExprP C = R ? lowerExpr(CE->getArg(1), Out) : nullptr;
        if (!C)
          return false;
        R = ir::cast(SizeTy, R);
        C = ir::cast(SizeTy, C);
        Sized(SizeValue(ir::mul(R, C, SizeTy), "_n"), SizeValue(R, "_rows"));
        return SizeKnown;
      }
      if (N == 1 && A0->getType()->isRecordType())
        return FromEigenExpression(A0);
      return Bad("with these constructor arguments");
    }
    if (Eigen) {
      // Vector3d v(a, b, c): the coefficients.
      if (Fixed && N == *Fixed && N > 1) {
        for (unsigned I = 0; I < N; ++I) {
          ExprP Value = lowerExpr(CE->getArg(I), Out);
          if (!Value)
            return false;
          Out.push_back(ir::assign(
              ir::index(Storage, ir::intConst(SizeTy, I), Elem),
              convertResult(Value, Elem, Out), BO_Assign, Loc));
        }
        return true;
      }
      // T::Zero(n), T::Ones(n), T::Constant(n, c), T::Zero() when fixed.
      if (const auto *Call = dyn_cast<CallExpr>(A0); Call && N == 1) {
        const auto *Callee =
            dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
        StringRef Name = Callee && Callee->isStatic() && Callee->getIdentifier()
                             ? Callee->getName()
                             : "";
        unsigned Sizes = Call->getNumArgs() - (Name == "Constant" ? 1 : 0);
        bool Known = Name == "Zero" || Name == "Ones" || Name == "Constant";
        if (Known && Sizes == (Fixed ? 0u : 1u) &&
            (Name != "Constant" || Call->getNumArgs() >= 1)) {
          ExprP Count;
          if (Fixed) {
            Count = ir::intConst(SizeTy, int64_t(*Fixed));
          } else {
            Count = lowerExpr(Call->getArg(0), Out);
            if (!Count)
              return false;
            Count = SizeValue(ir::cast(SizeTy, Count), "_n");
            Sized(Count, nullptr, /*Filled=*/Name != "Zero");
            if (!SizeKnown)
              return false;
          }
          ExprP Value = Name == "Zero"   ? nullptr
                        : Name == "Ones" ? ir::floatConst(Elem, 1)
                                         : lowerExpr(Call->getArg(Sizes), Out);
          if (Name == "Constant" && !Value)
            return false;
          if (Value) {
            Value = materialize(convertResult(Value, Elem, Out), Out, "_fill",
                                Loc);
            Loop(Count, [&](ExprP) { return Value; });
          }
          return true;
        }
      }
      // VectorXd t(n) has n coefficients; (rows, cols) is for matrices.
      if (A0->getType()->isIntegerType() && (Fixed || N != 1))
        return Bad("with these constructor arguments");
      // An Eigen expression (`VectorXd r = A * x - b;`): sized as it, then
      // assigned coefficient by coefficient.
      if (N == 1 && A0->getType()->isRecordType() &&
          !(isa<DeclRefExpr>(A0->IgnoreParens()) &&
            !containerElement(A0->getType()).isNull()))
        return FromEigenExpression(A0);
    }
    if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(A0))
      Init = IL->getSubExpr()->IgnoreImplicit();
    else if (!containerElement(A0->getType()).isNull()) {
      return CopyOf(A0);
    } else if (A0->getType()->isIntegerType() && !Fixed && N <= 2) {
      // std::vector<double> t(n) or t(n, value).
      ExprP Count = lowerExpr(A0, Out);
      if (!Count)
        return false;
      Count = SizeValue(ir::cast(SizeTy, Count), "_n");
      Sized(Count, nullptr, /*Filled=*/N == 2);
      if (!SizeKnown)
        return false;
      if (N == 2) {
        ExprP Value = lowerExpr(CE->getArg(1), Out);
        if (!Value)
          return false;
        // An object is copied from where it is, member by member.
        if (!Objects)
          Value = materialize(convertResult(Value, Elem, Out), Out, "_fill",
                              Loc);
        return Loop(Count, [&](ExprP) { return Value; });
      }
      return true;
    } else if (N == 2 && !Fixed && !Objects && isIteratorExpr(A0) &&
               isIteratorExpr(CE->getArg(1))) {
      // std::vector<double> t(b, e) over a container of the function: the
      // elements between the two positions.
      std::optional<IteratorPosition> B = lowerIteratorPosition(A0, Out);
      std::optional<IteratorPosition> E =
          B && B->Pos ? lowerIteratorPosition(CE->getArg(1), Out)
                      : std::nullopt;
      if (!B || !B->Pos || !E || !E->Pos)
        return false;
      if (B->Storage->K != ir::ExprKind::VarRef ||
          E->Storage->K != ir::ExprKind::VarRef ||
          B->Storage->V != E->Storage->V)
        return Bad("from iterators of two containers");
      ExprP From = materialize(ir::cast(SizeTy, B->Pos), Out, "_at", Loc);
      ExprP Count = materialize(
          ir::binary(BO_Sub, ir::cast(SizeTy, E->Pos), From, SizeTy), Out,
          "_n", Loc);
      Sized(Count);
      QualType SrcElem = B->Storage->Ty->getPointeeType();
      return Loop(Count, [&](ExprP K) {
        return ir::cast(Elem, ir::index(B->Storage,
                                        ir::binary(BO_Add, K, From, SizeTy),
                                        SrcElem));
      });
    } else {
      return Bad("with these constructor arguments");
    }
  }
  if (const auto *IL = dyn_cast_or_null<InitListExpr>(Init)) {
    llvm::SmallVector<const clang::Expr *, 8> Elems;
    if (Objects) {
      // {P{a, b}, p}: one object per initialiser.
      if (IL->isSyntacticForm() && IL->getSemanticForm())
        IL = IL->getSemanticForm();
      Sized(ir::intConst(SizeTy, int64_t(IL->getNumInits())));
      for (unsigned I = 0; I < IL->getNumInits(); ++I)
        if (!lowerObjectInto(ir::index(Storage, ir::intConst(SizeTy, I), Elem),
                             Elem, IL->getInit(I), Out))
          return false;
      return true;
    }
    flattenInits(IL, Elems);
    if (Fixed && Elems.size() > *Fixed)
      return Bad("with more values than it holds");
    Sized(ir::intConst(SizeTy, int64_t(Elems.size())));
    for (size_t I = 0; I < Elems.size(); ++I) {
      if (!Elems[I])
        continue; // zero already
      ExprP Value = lowerExpr(Elems[I], Out);
      if (!Value)
        return false;
      Out.push_back(ir::assign(
          ir::index(Storage, ir::intConst(SizeTy, int64_t(I)), Elem),
          convertResult(Value, Elem, Out), BO_Assign, Loc));
    }
    return true;
  }
  if (!Init)
    return true;
  // `VectorXd r = f(x);`, `Vector3d d = p - q;` without a constructor call
  // between: an Eigen expression (LowerEigenExpr.cpp) says what it is.
  if (Eigen && Init->getType()->isRecordType())
    return FromEigenExpression(Init);
  return Bad("this way");
}

} // namespace fluxion
