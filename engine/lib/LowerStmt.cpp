//===- LowerStmt.cpp - Lowering of statements to Fluxion IR ----------------===//
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/FunctionViews.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ScopeExit.h"

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
using ir::RevolveSpec;
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


std::unique_ptr<Function> FunctionLowering::lower(FunctionDecl *FD) {
  F = std::make_unique<Function>();
  F->Primal = FD;
  F->Name = FD->getNameAsString();
  F->ReturnType = FD->getReturnType();
  Vars.clear();
  Walkers.clear();
  Iterators.clear();
  UnsizedLocals.clear();
  UnsizedInLoops.clear();
  GrowCounts.clear();
  DeclaredSizes.clear();
  LoopDepth = 0;
  LoopEntry = nullptr;
  DeclaredOutsideLoops.clear();
  EigenLocals.clear();
  Self = nullptr;
  Result = nullptr;
  // A view (FunctionViews.h): the body uses the parameters of the
  // original's definition, `this` and `return e;`, which are the view's
  // parameters.
  const FunctionView *View = asView(FD);
  const FunctionDecl *OrigDef = nullptr;
  if (View && !View->Of->hasBody(OrigDef))
    return nullptr;
  // Counters and flags it or its callees write (EffectGlobals.cpp).
  BodyOwner = nullptr;
  (View ? View->Of : FD)->hasBody(BodyOwner);
  if (Effects && !Effects->noteWriters(Ctx, BodyOwner, Diags))
    return nullptr;
  bool OK = true;
  // Parameters taken by value that the function writes: C++ gives the
  // function a copy, so they are locals initialised from the argument.
  llvm::SmallVector<ParmVarDecl *, 2> Copied;
  // The declaration the body names for parameter P: a view's parameters
  // stand for those of the original's definition.
  auto bodyParam = [&](ParmVarDecl *P) {
    if (!OrigDef)
      return P;
    return const_cast<ParmVarDecl *>(OrigDef->getParamDecl(
        P->getFunctionScopeIndex() - View->firstParam()));
  };
  for (ParmVarDecl *P : FD->parameters()) {
    // A reference is an address: `T &x` is a `T *x` read as `*x`.
    QualType T = P->getType();
    bool ByRef = false;
    if (QualType Elem = containerElement(T); !Elem.isNull()) {
      // A container is its storage (LowerContainer.cpp): `const double *`
      // unless it is a non-const reference.
      QualType C = T.getNonReferenceType();
      // A Map or Ref of non-const writes through to what it views, also
      // when passed by value.
      std::optional<EigenShape> Eigen = eigenShape(C);
      bool WritableView = Eigen && Eigen->View && Eigen->Writable;
      bool Writable =
          (T->isReferenceType() && !C.isConstQualified()) || WritableView;
      if (!T->isReferenceType() && !WritableView &&
          paramMemoryUse(FD, P->getFunctionScopeIndex()).Written) {
        Copied.push_back(bodyParam(P));
      }
      T = Ctx.getPointerType(Writable ? Elem : Elem.withConst());
    } else if (const auto *RT = T->getAs<ReferenceType>()) {
      QualType Pointee = RT->getPointeeType();
      std::string Problem =
          isClassWithoutReals(Pointee) ? "" : recordProblem(Pointee);
      if (Pointee->isRecordType() && llvm::StringRef(Problem).starts_with("member")) {
        // A class of the user's with a pointer to reals inside.
        Diags.report(P->getLocation(), Diag::NotSupported)
            << ("a parameter of type '" + T.getAsString() + "'")
            << (Problem + ", which derivatives cannot follow yet; pass the "
                          "real numbers as a pointer or array parameter of "
                          "their own");
        OK = false;
        continue;
      }
      bool DataClass = Pointee->isRecordType() && Problem.empty();
      if (refuseEigenContainer(Pointee, P->getLocation(), "parameter")) {
        OK = false;
        continue;
      }
      if (!Pointee->isArithmeticType() && !Pointee->isEnumeralType() &&
          !DataClass) {
        Diags.report(P->getLocation(), Diag::UnsupportedType) << T << "parameter";
        OK = false;
        continue;
      }
      T = Ctx.getPointerType(Pointee);
      ByRef = true;
    }
    if (isDifferentiableRecord(T)) {
      // An object passed by value that the function only reads is read
      // in place, like a const S&; the derivatives keep the by-value
      // spelling.
      if (paramMemoryUse(FD, P->getFunctionScopeIndex()).Written) {
        Copied.push_back(bodyParam(P));
      }
      T = Ctx.getPointerType(T.getUnqualifiedType().withConst());
      ByRef = true;
    }
    if (!checkType(T, P->getLocation(), "parameter"))
      OK = false;
    Var *V = F->makeVar(Var::Kind::Param,
                        P->getName().empty() ? "_p" : P->getName(), T, P);
    V->ByRef = ByRef;
    Vars[P] = V;
    if (OrigDef) {
      unsigned I = P->getFunctionScopeIndex();
      if (View->Self && I == 0)
        Self = V;
      else if (View->Result && I == unsigned(View->Self))
        Result = V;
      else
        Vars[OrigDef->getParamDecl(I - View->firstParam())] = V;
    }
    F->Params.push_back(V);
  }
  if (!OK)
    return nullptr;
  for (ParmVarDecl *P : Copied)
    if (!lowerParamCopy(P, F->Body))
      return nullptr;
  if (!F->ReturnType->isVoidType()) {
    ReturnVar = F->makeVar(Var::Kind::Local, "_ret",
                           F->ReturnType.getUnqualifiedType());
    F->Locals.push_back(ReturnVar);
    F->ReturnVar = ReturnVar;
  } else {
    ReturnVar = nullptr;
  }
  const Stmt *Body = OrigDef ? OrigDef->getBody() : FD->getBody();
  if (!lowerWalkingParams(OrigDef ? OrigDef : FD))
    return nullptr;
  // A std::vector parameter whose size the function changes: its count.
  for (ParmVarDecl *P : (OrigDef ? OrigDef : FD)->parameters())
    if (!containerElement(P->getType()).isNull() && Body)
      noteResizedContainer(P, F->Body, Body);
  if (const auto *Ctor = dyn_cast_or_null<CXXConstructorDecl>(OrigDef))
    if (!lowerMemberInits(Ctor, F->Body))
      return nullptr;
  if (!Body || !lowerStmt(Body, F->Body))
    return nullptr;
  return std::move(F);
}

/// A std::vector or std::array whose elements are Eigen objects: the
/// element type, else null.
static QualType eigenElementOfContainer(QualType T) {
  const auto *RD = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  if (!RD || !RD->isInStdNamespace() || !RD->getIdentifier() ||
      (RD->getName() != "vector" && RD->getName() != "array") ||
      RD->getTemplateArgs().size() == 0 ||
      RD->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return QualType();
  QualType Elem = RD->getTemplateArgs()[0].getAsType();
  const auto *ER = Elem->getAsCXXRecordDecl();
  return ER && isInEigen(ER) ? Elem : QualType();
}

bool FunctionLowering::refuseEigenContainer(QualType T, SourceLocation Loc,
                                            StringRef What) {
  QualType Elem = eigenElementOfContainer(T);
  if (Elem.isNull())
    return false;
  PrintingPolicy Policy = Ctx.getPrintingPolicy();
  std::string Matrix = "Eigen::Matrix<double, 3, Eigen::Dynamic>";
  if (std::optional<EigenShape> S = eigenShape(Elem); S && S->Cols == 1 &&
                                                       S->Rows > 0)
    Matrix = "Eigen::Matrix<" +
             S->Scalar.getUnqualifiedType().getAsString(Policy) + ", " +
             std::to_string(S->Rows) + ", Eigen::Dynamic>";
  Diags.report(Loc, Diag::NotSupported)
      << ("a " + What.str() + " of type '" +
          T.getNonReferenceType().getUnqualifiedType().getAsString(Policy) +
          "' (a container of Eigen objects)")
      << ("hold them as the columns of one Eigen matrix ('" + Matrix +
          "', element i read as 'm.col(i)'), or their numbers in a "
          "std::vector<double>");
  return true;
}

bool FunctionLowering::checkType(QualType T, SourceLocation Loc,
                                 StringRef What) {
  if (refuseEigenContainer(T, Loc, What))
    return false;
  QualType U = T.getCanonicalType();
  if (U->isArithmeticType() || U->isEnumeralType())
    return true;
  if (U->isReferenceType() && U.getNonReferenceType()->isArrayType()) {
    QualType Elem = Ctx.getBaseElementType(U.getNonReferenceType());
    Diags.report(Loc, Diag::NotSupported)
        << ("a " + What.str() + " that is a reference to an array ('" +
            T.getAsString(Ctx.getPrintingPolicy()) + "')")
        << ("take a pointer to its first element ('" +
            (U.getNonReferenceType().isConstQualified() ||
                     Elem.isConstQualified()
                 ? std::string("const ")
                 : std::string()) +
            Elem.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy()) +
            " *') or an array parameter ('" +
            Elem.getAsString(Ctx.getPrintingPolicy()) + " a[N]')");
    return false;
  }
  // A function object with no data: nothing to differentiate or record.
  if (isEmptyFunctionObject(U))
    return true;
  if (isDifferentiableRecord(U)) {
    // Locals (and globals, read in place) are storage like arrays; a
    // parameter by value is not lowered yet.
    if (What != "parameter")
      return What == "global variable" || !refuseObjectWithPointer(U, Loc);
    Diags.report(Loc, Diag::NotSupported)
        << ("a " + What.str() + " of class type " + T.getAsString())
        << ("pass it by reference ('const " +
            T.getUnqualifiedType().getAsString() + " &')");
    return false;
  }
  if (U->isConstantArrayType() || U->isPointerType()) {
    QualType E = elementType(U);
    if (!E.isNull() && (E->isArithmeticType() || E->isConstantArrayType() ||
                        E->isEnumeralType() ||
                        (U->isConstantArrayType() && isDifferentiableRecord(E))))
      return checkType(E, Loc, What);
    // Opaque pointers (void*, FILE*, ...) pass through untouched.
    if (U->isPointerType())
      return true;
  }
  if (const auto *RD = U->getAsCXXRecordDecl();
      RD && isInEigen(RD) && RD->getIdentifier()) {
    StringRef Class = RD->getName();
    if (llvm::is_contained({"LLT", "LDLT", "PartialPivLU", "FullPivLU",
                            "HouseholderQR", "ColPivHouseholderQR",
                            "FullPivHouseholderQR",
                            "CompleteOrthogonalDecomposition", "JacobiSVD",
                            "BDCSVD", "SelfAdjointEigenSolver",
                            "EigenSolver"},
                           Class)) {
      Diags.report(Loc, Diag::NotSupported)
          << ("a " + What.str() + " holding a decomposition (Eigen::" +
              Class.str() + ")")
          << "solve where you factor ('A.llt().solve(b)', 'A.ldlt().solve(b)'"
             ", 'A.partialPivLu().solve(b)'): the derivative reuses the "
             "factorisation";
      return false;
    }
    if (llvm::is_contained({"Quaternion", "AngleAxis", "Transform",
                            "Translation", "Rotation2D", "Hyperplane",
                            "ParametrizedLine", "AlignedBox"},
                           Class)) {
      Diags.report(Loc, Diag::NotSupported)
          << ("a " + What.str() + " of Eigen's geometry type Eigen::" +
              Class.str())
          << "write the rotation or transform as a matrix ('Eigen::Matrix3d "
             "R', built from its formula) and use matrix products";
      return false;
    }
  }
  if (const auto *RD = U->getAsCXXRecordDecl(); RD && isInEigen(RD)) {
    // `auto d = p - q;` holds Eigen's expression object, not values.
    Diags.report(Loc, Diag::NotSupported)
        << ("a " + What.str() +
            " holding an unevaluated Eigen expression (an 'auto' of "
            "Eigen arithmetic, a view)")
        << "declare it with the type it evaluates to ('Eigen::VectorXd d = "
           "p - q;', 'Eigen::Vector3d', 'Eigen::MatrixXd')";
    return false;
  }
  Diags.report(Loc, Diag::UnsupportedType) << T << What;
  return false;
}

/// How the user spells a construct (diagnostics name what was written, not
/// Clang's class names).
StringRef describeConstruct(const clang::Stmt *S) {
  switch (S->getStmtClass()) {
  case clang::Stmt::GotoStmtClass:
  case clang::Stmt::IndirectGotoStmtClass:
    return "goto";
  case clang::Stmt::CXXTryStmtClass:
    return "try";
  case clang::Stmt::GCCAsmStmtClass:
  case clang::Stmt::MSAsmStmtClass:
    return "asm";
  case clang::Stmt::CXXForRangeStmtClass:
    return "range-based for";
  case clang::Stmt::CoreturnStmtClass:
  case clang::Stmt::CoroutineBodyStmtClass:
    return "coroutine";
  case clang::Stmt::CXXOperatorCallExprClass:
    return "overloaded operator call";
  case clang::Stmt::CXXMemberCallExprClass:
    return "member function call";
  case clang::Stmt::MemberExprClass:
    return "member access";
  case clang::Stmt::LambdaExprClass:
    return "lambda";
  case clang::Stmt::CXXThrowExprClass:
    return "throw";
  case clang::Stmt::CXXNewExprClass:
    return "new";
  case clang::Stmt::CXXDeleteExprClass:
    return "delete";
  case clang::Stmt::CXXConstructExprClass:
  case clang::Stmt::CXXTemporaryObjectExprClass:
    return "object construction";
  case clang::Stmt::StmtExprClass:
    return "statement expression";
  case clang::Stmt::CXXThisExprClass:
    return "this";
  case clang::Stmt::StringLiteralClass:
    return "string literal";
  case clang::Stmt::InitListExprClass:
  case clang::Stmt::CXXStdInitializerListExprClass:
    return "initializer list";
  case clang::Stmt::BinaryConditionalOperatorClass:
    return "?: without a middle operand";
  case clang::Stmt::CompoundLiteralExprClass:
    return "compound literal";
  case clang::Stmt::VAArgExprClass:
    return "va_arg";
  case clang::Stmt::CXXDynamicCastExprClass:
    return "dynamic_cast";
  case clang::Stmt::CXXReinterpretCastExprClass:
    return "reinterpret_cast";
  case clang::Stmt::CXXConstCastExprClass:
    return "const_cast";
  case clang::Stmt::CXXTypeidExprClass:
    return "typeid";
  case clang::Stmt::AtomicExprClass:
    return "atomic operation";
  case clang::Stmt::CXXPseudoDestructorExprClass:
    return "destructor call";
  case clang::Stmt::CXXBindTemporaryExprClass:
    return "temporary object";
  default:
    // Never Clang's class name: users do not write those.
    return "this construct";
  }
}

bool FunctionLowering::unsupported(const Stmt *S) {
  Diags.report(S->getBeginLoc(), Diag::UnsupportedStmt) << describeConstruct(S);
  return false;
}

bool FunctionLowering::lowerStmt(const Stmt *S, Block &Out) {
  if (!S)
    return true;
  if (const auto *E = dyn_cast<Expr>(S))
    return lowerExprStmt(E, Out);
  switch (S->getStmtClass()) {
  case Stmt::CompoundStmtClass:
    return lowerCompound(cast<CompoundStmt>(S), Out);
  case Stmt::DeclStmtClass:
    return lowerDecl(cast<DeclStmt>(S), Out);
  case Stmt::NullStmtClass:
    return true;
  case Stmt::IfStmtClass:
    return lowerIf(cast<IfStmt>(S), Out);
  case Stmt::ForStmtClass:
    return lowerFor(cast<ForStmt>(S), Out);
  case Stmt::CXXForRangeStmtClass:
    return lowerRangeFor(cast<CXXForRangeStmt>(S), Out);
  case Stmt::WhileStmtClass:
    return lowerWhile(cast<WhileStmt>(S), Out);
  case Stmt::DoStmtClass:
    return lowerDo(cast<DoStmt>(S), Out);
  case Stmt::SwitchStmtClass:
    return lowerSwitch(cast<SwitchStmt>(S), Out);
  case Stmt::ReturnStmtClass:
    return lowerReturn(cast<ReturnStmt>(S), Out);
  case Stmt::BreakStmtClass:
    Out.push_back(std::make_unique<ir::Stmt>(StmtKind::Break, S->getBeginLoc()));
    return true;
  case Stmt::ContinueStmtClass:
    Out.push_back(
        std::make_unique<ir::Stmt>(StmtKind::Continue, S->getBeginLoc()));
    return true;
  case Stmt::AttributedStmtClass:
    return lowerStmt(cast<AttributedStmt>(S)->getSubStmt(), Out);
  case Stmt::LabelStmtClass:
    // A label nothing jumps to is harmless; a goto is reported where it is.
    return lowerStmt(cast<LabelStmt>(S)->getSubStmt(), Out);
  default:
    return unsupported(S);
  }
}

/// The call `fluxion::detail::revolve_loop(...)` that `#pragma fluxion
/// revolve` leaves in front of the loop it marks.
static const CallExpr *revolveMarker(const clang::Stmt *S) {
  const auto *E = dyn_cast<Expr>(S);
  const auto *CE = E ? dyn_cast<CallExpr>(E->IgnoreImplicit()) : nullptr;
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || FD->getName() != "revolve_loop")
    return nullptr;
  const auto *Detail = dyn_cast<NamespaceDecl>(FD->getDeclContext());
  if (!Detail || Detail->getName() != "detail")
    return nullptr;
  const auto *Fluxion = dyn_cast<NamespaceDecl>(Detail->getDeclContext());
  return Fluxion && Fluxion->getName() == "fluxion" ? CE : nullptr;
}

bool FunctionLowering::lowerCompound(const CompoundStmt *S, Block &Out) {
  bool OK = true;
  auto Children = S->body();
  Scopes.push_back({S, 0});
  auto PopScope = llvm::make_scope_exit([&] { Scopes.pop_back(); });
  for (auto It = Children.begin(); It != Children.end(); ++It) {
    Scopes.back().second = It - Children.begin();
    if (const CallExpr *Marker = revolveMarker(*It)) {
      auto Next = std::next(It);
      const clang::Stmt *Loop = Next == Children.end() ? nullptr : *Next;
      if (!Loop || !isa<ForStmt>(Loop)) {
        Diags.report(Marker->getBeginLoc(), Diag::RevolveNotLoop);
        OK = false;
        continue;
      }
      ++It;
      OK &= lowerRevolveLoop(Marker, cast<ForStmt>(Loop), Out);
      continue;
    }
    OK &= lowerStmt(*It, Out);
  }
  return OK;
}

/// A break, return or goto that leaves the loop whose body S is.
static const Stmt *earlyExit(const Stmt *S, bool InNestedLoop) {
  if (!S)
    return nullptr;
  if (isa<ReturnStmt, GotoStmt, IndirectGotoStmt>(S))
    return S;
  if (isa<BreakStmt>(S) && !InNestedLoop)
    return S;
  bool Nested = InNestedLoop ||
                isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt>(S);
  for (const Stmt *Child : S->children())
    if (const Stmt *E = earlyExit(Child, Nested))
      return E;
  return nullptr;
}

bool FunctionLowering::lowerRevolveLoop(const CallExpr *Marker,
                                        const ForStmt *Loop, Block &Out) {
  auto Spec = std::make_shared<RevolveSpec>();
  Spec->Loc = Marker->getBeginLoc();
  // Recomputing a step from a snapshot replays it whole: a loop that may
  // leave early has no fixed number of steps to schedule.
  if (const Stmt *Exit = earlyExit(Loop->getBody(), /*InNestedLoop=*/false)) {
    Diags.report(Exit->getBeginLoc(), Diag::RevolveNotCounted)
        << (isa<ReturnStmt>(Exit) ? "the body returns"
                                  : "the body leaves the loop early");
    return false;
  }
  Block Pre;
  auto Arg = [&](unsigned I) -> ExprP {
    const Expr *A = Marker->getArg(I);
    ExprP E = lowerExpr(A, Pre);
    if (E && !Pre.empty()) {
      Diags.report(A->getExprLoc(), Diag::RevolveBadClause)
          << "its arguments must not call functions";
      return nullptr;
    }
    return E;
  };
  unsigned N = Marker->getNumArgs();
  if (N == 0 || N % 2 == 0) {
    Diags.report(Spec->Loc, Diag::RevolveBadClause)
        << "each state clause names a pointer and a length";
    return false;
  }
  if (!Marker->getArg(0)->getType()->isIntegerType()) {
    Diags.report(Marker->getArg(0)->getExprLoc(), Diag::RevolveBadClause)
        << "the snapshot count must be an integer";
    return false;
  }
  Spec->Snapshots = Arg(0);
  if (!Spec->Snapshots)
    return false;
  for (unsigned I = 1; I + 1 < N; I += 2) {
    const Expr *P = Marker->getArg(I)->IgnoreParenImpCasts();
    if (!P->getType()->isPointerType() && !P->getType()->isArrayType()) {
      Diags.report(P->getExprLoc(), Diag::RevolveBadClause)
          << "a state clause names a pointer first";
      return false;
    }
    if (!Marker->getArg(I + 1)->getType()->isIntegerType()) {
      Diags.report(Marker->getArg(I + 1)->getExprLoc(), Diag::RevolveBadClause)
          << "a state length must be an integer";
      return false;
    }
    ExprP Ptr = Arg(I), Len = Arg(I + 1);
    if (!Ptr || !Len)
      return false;
    if (!Ptr->rootVar()) {
      Diags.report(P->getExprLoc(), Diag::RevolveBadClause)
          << "a state clause names a pointer variable";
      return false;
    }
    Spec->State.push_back({Ptr, Len});
  }
  size_t Before = Out.size();
  if (!lowerFor(Loop, Out))
    return false;
  for (size_t I = Out.size(); I > Before; --I)
    if (Out[I - 1]->K == StmtKind::Loop) {
      Out[I - 1]->Revolve = Spec;
      return true;
    }
  Diags.report(Spec->Loc, Diag::RevolveNotLoop);
  return false;
}

/// The type a local is declared with in generated code: without const,
/// also on array elements, since declarations are hoisted and their
/// initialisers become assignments (and the tape may restore them).
QualType FunctionLowering::assignableType(QualType T) const {
  Qualifiers Quals;
  return Ctx.getUnqualifiedArrayType(T.getUnqualifiedType(), Quals);
}

Var *FunctionLowering::varFor(const VarDecl *D, SourceLocation UseLoc) {
  auto It = Vars.find(D);
  if (It != Vars.end())
    return It->second;
  if (D->isLocalVarDeclOrParm())
    return nullptr; // declared in a construct we rejected
  // A global or namespace-scope variable: read in place.
  if (!checkType(D->getType(), UseLoc, "global variable"))
    return nullptr;
  Var *V = F->makeVar(Var::Kind::Global, D->getName(), D->getType(),
                      const_cast<VarDecl *>(D));
  V->Name = D->getNameAsString(); // globals keep their own name
  Vars[D] = V;
  return V;
}

bool FunctionLowering::lowerParamCopy(ParmVarDecl *P, Block &Out) {
  // The argument is the parameter as lowered (read only, like a const&),
  // under a name of its own; P names the copy from here on.
  SourceLocation Loc = P->getLocation();
  QualType T = P->getType().getUnqualifiedType();
  auto *Arg = VarDecl::Create(Ctx, P->getDeclContext(), Loc, Loc,
                              P->getIdentifier(), T,
                              Ctx.getTrivialTypeSourceInfo(T, Loc), SC_None);
  Vars[Arg] = Vars.lookup(P);
  auto *ArgRef = DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(),
                                     SourceLocation(), Arg, false, Loc, T,
                                     VK_LValue);
  if (!containerElement(T).isNull())
    return lowerContainerLocal(P, Out, ArgRef);
  Var *V = F->makeVar(Var::Kind::Local, P->getName(), assignableType(T), P);
  F->Locals.push_back(V);
  Vars[P] = V;
  size_t First = Out.size();
  if (!lowerVarInit(V, ArgRef, Out))
    return false;
  for (size_t I = First; I < Out.size(); ++I)
    if (Out[I]->K == StmtKind::Assign && Out[I]->LHS->rootVar() == V)
      Out[I]->IsInit = true;
  return true;
}

bool FunctionLowering::lowerDecl(const DeclStmt *S, Block &Out) {
  bool OK = true;
  for (const clang::Decl *D : S->decls()) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (!VD) {
      if (isa<TypedefNameDecl, TagDecl, UsingDecl, UsingDirectiveDecl,
              StaticAssertDecl>(D))
        continue;
      Diags.report(D->getLocation(), Diag::UnsupportedStmt)
          << D->getDeclKindName();
      OK = false;
      continue;
    }
    if (VD->isStaticLocal() || VD->getTLSKind() != VarDecl::TLS_None) {
      if (VD->getType().isConstQualified() && VD->getInit() &&
          VD->getInit()->isConstantInitializer(Ctx, false)) {
        // A constant table: read it like a global.
        Var *V = F->makeVar(Var::Kind::Global, VD->getName(), VD->getType(),
                            const_cast<VarDecl *>(VD));
        V->Name = VD->getNameAsString();
        Vars[VD] = V;
        continue;
      }
      Diags.report(VD->getLocation(), Diag::StaticLocal) << VD;
      OK = false;
      continue;
    }
    QualType T = VD->getType();
    if (isEigenExpressionLocal(VD)) {
      OK &= lowerEigenExpressionLocal(VD, Out);
      continue;
    }
    if (const auto *RD = T->getAsCXXRecordDecl(); RD && RD->isLambda()) {
      OK &= lowerLambdaDecl(VD, Out);
      continue;
    }
    if (const auto *RD = T->getAsCXXRecordDecl();
        RD && RD->getName() == "function" && RD->isInStdNamespace()) {
      Diags.report(VD->getLocation(), Diag::NotSupported)
          << "a std::function (its target is known only at run time)"
          << "call the lambda or the function directly";
      Poisoned.insert(VD);
      OK = false;
      continue;
    }
    if (T->isFunctionPointerType()) {
      // Calls through it are reported where they happen.
      Poisoned.insert(VD);
      continue;
    }
    if (T->isReferenceType() || (T->isPointerType() && isDifferentiableType(T))) {
      const Expr *Init = VD->getInit();
      // A reference bound to a value it keeps alive is a local holding it.
      if (T->isReferenceType() && Init &&
          isa<MaterializeTemporaryExpr>(Init->IgnoreParens())) {
        T = T.getNonReferenceType().getUnqualifiedType();
      } else {
        std::string Why = aliasProblem(VD);
        if (Why.empty()) {
          Aliases[VD] = Init;
          continue;
        }
        // A pointer whose place changes: a base plus a position.
        if (T->isPointerType()) {
          Why = lowerWalkingPointer(VD, Out);
          if (Why.empty())
            continue;
        }
        Diags.report(VD->getLocation(), Diag::NotSupported)
            << ("local " +
                std::string(T->isReferenceType() ? "reference" : "pointer") +
                " '" + VD->getNameAsString() + "' (" + Why + ")")
            << (T->isReferenceType()
                    ? "index the array or name the member at each use"
                    : "move it only within the memory it starts in (++p, "
                      "p += n, p = x + k), or index from a base that stays "
                      "put (p[k])");
        Poisoned.insert(VD);
        OK = false;
        continue;
      }
    }
    if (!containerElement(T).isNull()) {
      if (!lowerContainerLocal(VD, Out)) {
        Poisoned.insert(VD);
        OK = false;
        continue;
      }
      noteResizedContainer(VD, Out);
      continue;
    }
    // An iterator (`auto it = x.begin()`): a position (LowerIterators.cpp).
    if (!containerIteratorElement(T).isNull()) {
      if (!lowerIteratorLocal(VD, Out)) {
        Poisoned.insert(VD);
        OK = false;
      }
      continue;
    }
    // Another iterator (a reverse one): the container call says why.
    if (const auto *Init = dyn_cast_or_null<CXXMemberCallExpr>(
            VD->getInit() ? VD->getInit()->IgnoreImplicit() : nullptr);
        Init && T->isRecordType() && !isDifferentiableRecord(T)) {
      ExprP Ignored;
      Block Pre;
      if (lowerContainerCall(Init, Pre, Ignored) && !Ignored) {
        Poisoned.insert(VD);
        OK = false;
        continue;
      }
    }
    if (!checkType(T, VD->getLocation(), "local variable")) {
      Poisoned.insert(VD);
      OK = false;
      continue;
    }
    Var *V = F->makeVar(Var::Kind::Local, VD->getName(), assignableType(T),
                        const_cast<VarDecl *>(VD));
    Vars[VD] = V;
    F->Locals.push_back(V);
    if (!LoopDepth && T->isIntegerType())
      DeclaredOutsideLoops.insert(V);
    if (const Expr *Init = VD->getInit()) {
      size_t First = Out.size();
      if (!lowerVarInit(V, Init, Out)) {
        // Later uses of a variable whose initialiser failed add nothing.
        Poisoned.insert(VD);
        Vars.erase(VD);
        OK = false;
        continue;
      }
      for (size_t I = First; I < Out.size(); ++I)
        if (Out[I]->K == StmtKind::Assign && Out[I]->LHS->rootVar() == V)
          Out[I]->IsInit = true;
    }
  }
  return OK;
}

bool FunctionLowering::lowerVarInit(Var *V, const Expr *Init, Block &Out) {
  return lowerInitInto(ref(V), V->Type, Init, Out);
}

bool FunctionLowering::lowerInitInto(ExprP Slot, QualType Ty, const Expr *Init,
                                     Block &Out) {
  Ty = Ty.getUnqualifiedType();
  if (Ty->isConstantArrayType())
    return lowerArrayInit(Slot, Ty, Init, Out);
  if (Ty->isRecordType())
    return lowerRecordInit(Slot, Ty, Init, Out);
  noteConvertedToValue(Init);
  Init = Init->IgnoreImplicit();
  if (const auto *PL = dyn_cast<ParenListExpr>(Init); PL && PL->getNumExprs() == 1)
    Init = PL->getExpr(0)->IgnoreImplicit();
  if (const auto *IL = dyn_cast<InitListExpr>(Init)) {
    if (IL->getNumInits() == 0) {
      Out.push_back(assign(Slot, Ty->isRealFloatingType() ? floatConst(Ty, 0)
                                                          : intConst(Ty, 0)));
      return true;
    }
    Init = IL->getInit(0);
  }
  ExprP RHS;
  if (const auto *Call = dyn_cast<CallExpr>(Init->IgnoreParenImpCasts()))
    RHS = lowerCall(Call, Out, /*TopLevel=*/true);
  else
    RHS = lowerExpr(Init, Out);
  if (!RHS)
    return false;
  Out.push_back(assign(Slot, convertResult(RHS, Ty, Out), BO_Assign,
                       Init->getBeginLoc()));
  return true;
}

bool FunctionLowering::lowerArrayInit(ExprP Base, QualType Ty, const Expr *Init,
                                      Block &Out) {
  const auto *AT = Ctx.getAsConstantArrayType(Ty);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit());
      CE && AT && CE->getNumArgs() == 0) {
    // `S a[N];`: a trivial constructor leaves the elements as they are
    // (or zeroes them: `S a[N]{}`); another one runs on each element.
    if (actsTrivially(CE->getConstructor())) {
      if (CE->requiresZeroInitialization())
        zeroMembers(Base, Ty, Init->getBeginLoc(), Out);
      return true;
    }
    uint64_t N = AT->getSize().getZExtValue();
    bool OK = true;
    for (uint64_t I = 0; I < N && OK; ++I)
      OK &= lowerConstructorCall(
          index(Base, intConst(Ctx.IntTy, I), AT->getElementType()), CE, Out);
    return OK;
  }
  // A copy of another array (`auto [a, b] = arr;`, a lambda's copy of
  // a captured array): element by element, nested arrays and objects too.
  if (const auto *AIL = dyn_cast<ArrayInitLoopExpr>(Init->IgnoreImplicit());
      AIL && AT) {
    ExprP Src = lowerExpr(AIL->getCommonExpr()->getSourceExpr(), Out);
    if (!Src)
      return false;
    if (!Src->isLValue()) {
      Diags.report(Init->getBeginLoc(), Diag::NotSupported)
          << "copying this array" << "copy a variable, a member or an element";
      return false;
    }
    return copyMembers(Base, Src, Ty, Init->getBeginLoc(), Out);
  }
  const auto *IL = dyn_cast<InitListExpr>(Init->IgnoreImplicit());
  if (!AT || !IL) {
    Diags.report(Init->getBeginLoc(), Diag::UnsupportedExpr)
        << "array initializer";
    return false;
  }
  QualType Elem = AT->getElementType();
  uint64_t N = AT->getSize().getZExtValue();
  bool OK = true;
  for (uint64_t I = 0; I < N; ++I) {
    ExprP Slot = index(Base, intConst(Ctx.IntTy, I), Elem);
    const Expr *EI = I < IL->getNumInits() ? IL->getInit(I) : nullptr;
    if (EI && isa<ImplicitValueInitExpr>(EI))
      EI = nullptr;
    if (Elem->isConstantArrayType()) {
      if (EI) {
        OK &= lowerArrayInit(Slot, Elem, EI, Out);
      } else {
        const auto *Sub = Ctx.getAsConstantArrayType(Elem);
        for (uint64_t J = 0; J < Sub->getSize().getZExtValue(); ++J)
          Out.push_back(
              assign(index(Slot, intConst(Ctx.IntTy, J),
                           Sub->getElementType()),
                     Sub->getElementType()->isRealFloatingType()
                         ? floatConst(Sub->getElementType(), 0)
                         : intConst(Sub->getElementType(), 0)));
      }
      continue;
    }
    if (Elem->isRecordType()) {
      // An object element (`S ps[2] = {s, t}`): member by member, as any
      // object initialisation, so that each member's derivative flows.
      if (EI)
        OK &= lowerInitInto(Slot, Elem, EI, Out);
      else
        zeroMembers(Slot, Elem, Init->getBeginLoc(), Out);
      continue;
    }
    ExprP RHS = EI ? lowerExpr(EI, Out)
                   : (Elem->isRealFloatingType() ? floatConst(Elem, 0)
                                                 : intConst(Elem, 0));
    if (!RHS) {
      OK = false;
      continue;
    }
    Out.push_back(assign(Slot, ir::cast(Elem, RHS)));
  }
  return OK;
}

/// std::pair of two numbers: its assignments copy the members.
static bool isPairOfNumbers(const CXXRecordDecl *RD) {
  if (!RD || !RD->isInStdNamespace() || !RD->getIdentifier() ||
      RD->getName() != "pair")
    return false;
  return llvm::all_of(RD->fields(), [](const FieldDecl *F) {
    return F->getType()->isArithmeticType();
  });
}

bool FunctionLowering::lowerExprStmt(const Expr *E, Block &Out) {
  E = E->IgnoreParens();
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
    E = EWC->getSubExpr()->IgnoreParens();
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->isAssignmentOp())
      return lowerAssignment(BO, Out);
    if (BO->getOpcode() == BO_Comma)
      return lowerExprStmt(BO->getLHS(), Out) &&
             lowerExprStmt(BO->getRHS(), Out);
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    if (UO->isIncrementDecrementOp())
      return lowerIncrement(UO, Out) != nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    if (const auto *M = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee()))
      if (Op->getOperator() == OO_Equal &&
          (actsTrivially(M) || isPairOfNumbers(M->getParent()))) {
        // t = u for a std::array of numbers: element by element.
        QualType T = Op->getArg(0)->getType();
        if (returnsFixedContainer(T.getNonReferenceType()) && !eigenShape(T)) {
          ExprP Dst = lowerExpr(Op->getArg(0), Out);
          if (!Dst)
            return false;
          if (Dst->K == ExprKind::VarRef && isContainerStorageVar(Dst->V))
            return lowerArrayAssignment(Dst, T, Op->getArg(1), Out);
          // One held by a container or an object, of numbers.
          if ((Dst->K == ExprKind::Index || Dst->K == ExprKind::Member) &&
              containerElement(T)->isArithmeticType())
            return lowerArrayAssignment(Dst, T, Op->getArg(1), Out);
          Diags.report(Op->getExprLoc(), Diag::NotSupported)
              << "assigning a whole std::array that is not a variable of "
                 "the function"
              << "assign its elements one by one ('a[i] = b[i]')";
          return false;
        } else if (isDifferentiableRecord(T)) {
          return lowerRecordAssignment(Op, Out);
        }
      }
  if (isStreamOutput(E))
    return lowerStreamOutput(E, Out);
  if (const auto *Throw = dyn_cast<CXXThrowExpr>(E))
    return lowerThrow(Throw, Out);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    ExprP C = lowerCall(Call, Out, /*TopLevel=*/true, /*Discarded=*/true);
    if (!C)
      return false;
    if (C->K == ExprKind::Call)
      Out.push_back(eval(C, E->getBeginLoc()));
    return true;
  }
  if (const auto *CE = dyn_cast<CastExpr>(E))
    if (CE->getCastKind() == CK_ToVoid)
      return lowerExprStmt(CE->getSubExpr(), Out);
  if (const auto *CO = dyn_cast<ConditionalOperator>(E);
      CO && CO->getType()->isVoidType()) {
    // `c ? a : b;` for its effects (assert expands to one): an if.
    ExprP C = lowerExpr(CO->getCond(), Out);
    Block Then, Else;
    if (!C || !lowerExprStmt(CO->getTrueExpr(), Then) ||
        !lowerExprStmt(CO->getFalseExpr(), Else))
      return false;
    Out.push_back(ifStmt(C, std::move(Then), std::move(Else),
                         CO->getQuestionLoc()));
    return true;
  }
  // An expression evaluated for nothing: check it, then drop it.
  Block Pre;
  ExprP V = lowerExpr(E, Pre);
  for (StmtP &S : Pre)
    Out.push_back(std::move(S));
  return V != nullptr;
}

bool FunctionLowering::lowerAssignment(const BinaryOperator *BO, Block &Out) {
  if (walkerRef(BO->getLHS()))
    return lowerWalkingAssignment(BO, Out);
  ExprP LHS = lowerLValue(BO->getLHS(), Out);
  if (!LHS)
    return false;
  // A pointer to reals stored into memory (`rows[0] = y`) would make later
  // reads through that memory reach other memory than their adjoints do.
  if (LHS->K != ExprKind::VarRef && LHS->Ty->isPointerType() &&
      isDifferentiableType(LHS->Ty)) {
    Diags.report(BO->getOperatorLoc(), Diag::NotSupported)
        << "storing a pointer into memory"
        << "pass the memory it points to as a parameter of its own";
    return false;
  }
  const Expr *R = BO->getRHS();
  ExprP RHS;
  noteConvertedToValue(R);
  if (const auto *Call = dyn_cast<CallExpr>(R->IgnoreParenImpCasts());
      Call && BO->getOpcode() == BO_Assign)
    RHS = lowerCall(Call, Out, /*TopLevel=*/true);
  else
    RHS = lowerExpr(R, Out);
  if (!RHS)
    return false;
  QualType T = LHS->Ty;
  SourceLocation Loc = BO->getOperatorLoc();
  switch (BO->getOpcode()) {
  case BO_Assign:
    Out.push_back(assign(LHS, convertResult(RHS, T, Out), BO_Assign, Loc));
    return true;
  case BO_AddAssign:
  case BO_SubAssign:
    // Kept as accumulation (its adjoint needs no value of LHS) when the sum
    // is taken in LHS's type: `f -= ld` computes in long double and rounds
    // once, which `f -= (float)ld` would not.
    if (T->isRealFloatingType() &&
        Ctx.hasSameUnqualifiedType(
            cast<CompoundAssignOperator>(BO)->getComputationResultType(), T)) {
      Out.push_back(assign(LHS, ir::cast(T, RHS), BO->getOpcode(), Loc));
      return true;
    }
    [[fallthrough]];
  default: {
    // x op= e  is  x = x op e, computed in the type the operator uses.
    const auto *CAO = cast<CompoundAssignOperator>(BO);
    QualType CT = CAO->getComputationResultType();
    ExprP Value = binary(BinaryOperator::getOpForCompoundAssignment(
                             BO->getOpcode()),
                         ir::cast(CAO->getComputationLHSType(), LHS),
                         ir::cast(CT, RHS), CT, Loc);
    Out.push_back(assign(LHS, ir::cast(T, Value), BO_Assign, Loc));
    return true;
  }
  }
}

ExprP FunctionLowering::lowerIncrement(const UnaryOperator *UO, Block &Out) {
  if (ExprP P = lowerWalkingStep(UO, Out))
    return P;
  ExprP LV = lowerLValue(UO->getSubExpr(), Out);
  if (!LV)
    return nullptr;
  QualType T = LV->Ty;
  if (T->isPointerType()) {
    Diags.report(UO->getBeginLoc(), Diag::UnsupportedExpr)
        << "pointer increment";
    return nullptr;
  }
  ExprP One = T->isRealFloatingType() ? floatConst(T, 1) : intConst(T, 1);
  BinaryOperatorKind Op = UO->isIncrementOp() ? BO_Add : BO_Sub;
  SourceLocation Loc = UO->getOperatorLoc();
  // A postfix operator yields the old value: an integer's is the new one
  // stepped back (k - 1 in x[k - 1], no temporary for the reverse sweep to
  // keep); a real's is copied first.
  ExprP Value = LV;
  if (UO->isPostfix())
    Value = T->isIntegerType()
                ? binary(Op == BO_Add ? BO_Sub : BO_Add, LV, One, T, Loc)
                : materialize(LV, Out, "_old", Loc);
  Out.push_back(assign(LV, binary(Op, LV, One, T), BO_Assign, Loc));
  return Value;
}

bool FunctionLowering::lowerBody(const clang::Stmt *S, Block &Out) {
  return lowerStmt(S, Out);
}

bool FunctionLowering::lowerIf(const IfStmt *S, Block &Out) {
  if (S->isConsteval()) {
    Diags.report(S->getBeginLoc(), Diag::UnsupportedStmt) << "if consteval";
    return false;
  }
  if (!lowerStmt(S->getInit(), Out))
    return false;
  if (const VarDecl *CV = S->getConditionVariable()) {
    // if (T v = e): declare v, then test it.
    Var *V = F->makeVar(Var::Kind::Local, CV->getName(),
                        assignableType(CV->getType()),
                        const_cast<VarDecl *>(CV));
    Vars[CV] = V;
    F->Locals.push_back(V);
    if (!lowerVarInit(V, CV->getInit(), Out))
      return false;
  }
  if (S->isConstexpr()) {
    // Only the taken branch exists semantically.
    bool Taken = S->getCond()->EvaluateKnownConstInt(Ctx).getBoolValue();
    return lowerStmt(Taken ? S->getThen() : S->getElse(), Out);
  }
  ExprP C = lowerExpr(S->getCond(), Out);
  if (!C)
    return false;
  Block Then, Else;
  bool OK = lowerStmt(S->getThen(), Then);
  OK &= lowerStmt(S->getElse(), Else);
  Out.push_back(ifStmt(C, std::move(Then), std::move(Else), S->getIfLoc()));
  return OK;
}

/// A 'continue' of this loop in its body (not of a loop nested in it).
static bool continuesThis(const clang::Stmt *S) {
  if (!S || isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
    return false;
  if (isa<ContinueStmt>(S))
    return true;
  return llvm::any_of(S->children(),
                      [](const clang::Stmt *C) { return continuesThis(C); });
}

bool FunctionLowering::lowerLoop(const Expr *Cond, const clang::Stmt *Body,
                                 const Expr *Inc, bool TestFirst,
                                 SourceLocation Loc, Block &Out) {
  auto L = std::make_unique<ir::Stmt>(StmtKind::Loop, Loc);
  L->TestFirst = TestFirst;
  Block CondPre, GuardAfterBody;
  ExprP C = Cond ? lowerExpr(Cond, CondPre) : boolConst(Ctx, true);
  if (!C)
    return false;
  bool OK = true;
  if (!CondPre.empty()) {
    // The condition needs statements (hoisted calls): evaluate them at the
    // top (or bottom) of each iteration and leave through a break.
    Block Exit;
    Exit.push_back(std::make_unique<ir::Stmt>(StmtKind::Break, Loc));
    ExprP NotC = unary(UO_LNot, C, Ctx.BoolTy);
    Block Guard = std::move(CondPre);
    Guard.push_back(ifStmt(NotC, std::move(Exit)));
    if (!TestFirst) {
      // do { body } while (c): while (true) { body; if (!c) break; }, the
      // guard after the body, where a 'continue' would skip it.
      if (continuesThis(Body)) {
        Diags.report(Cond->getBeginLoc(), Diag::NotSupported)
            << "a 'continue' in a do-while loop whose condition calls a "
               "function or changes a variable"
            << "compute the condition into a variable at the end of the "
               "body ('more = ++it < n;') and test that ('while (more)')";
        return false;
      }
      GuardAfterBody = std::move(Guard);
      L->TestFirst = true;
    } else {
      for (StmtP &S : Guard)
        L->body().push_back(std::move(S));
    }
    C = boolConst(Ctx, true);
  }
  L->Cond = C;
  // What the body sizes once for all iterations (LoopEntry) runs before
  // the outermost loop.
  Block Entry;
  bool Outermost = LoopDepth == 0;
  if (Outermost)
    LoopEntry = &Entry;
  ++LoopDepth;
  OK &= lowerStmt(Body, L->body());
  --LoopDepth;
  if (Outermost)
    LoopEntry = nullptr;
  for (StmtP &S : GuardAfterBody)
    L->body().push_back(std::move(S));
  if (Inc)
    OK &= lowerExprStmt(Inc, L->inc());
  for (StmtP &S : Entry)
    Out.push_back(std::move(S));
  Out.push_back(std::move(L));
  return OK;
}

bool FunctionLowering::lowerFor(const ForStmt *S, Block &Out) {
  if (!lowerStmt(S->getInit(), Out))
    return false;
  if (S->getConditionVariable()) {
    Diags.report(S->getBeginLoc(), Diag::UnsupportedStmt)
        << "for with a condition variable";
    return false;
  }
  // An integer the for-init declares: no code outside the loop can read it.
  Var *Counter = nullptr;
  const auto *Init = dyn_cast_or_null<DeclStmt>(S->getInit());
  const auto *VD = Init && Init->isSingleDecl()
                       ? dyn_cast<VarDecl>(Init->getSingleDecl())
                       : nullptr;
  if (VD && VD->getType()->isIntegerType() && !Out.empty() &&
      Out.back()->K == StmtKind::Assign && Out.back()->IsInit &&
      Out.back()->LHS->K == ExprKind::VarRef &&
      Out.back()->LHS->V->Origin == VD)
    Counter = Out.back()->LHS->V;
  if (!lowerLoop(S->getCond(), S->getBody(), S->getInc(), true,
                 S->getForLoc(), Out))
    return false;
  Out.back()->V = Counter;
  return true;
}

bool FunctionLowering::lowerWhile(const WhileStmt *S, Block &Out) {
  if (S->getConditionVariable()) {
    Diags.report(S->getBeginLoc(), Diag::UnsupportedStmt)
        << "while with a condition variable";
    return false;
  }
  return lowerLoop(S->getCond(), S->getBody(), nullptr, true,
                   S->getWhileLoc(), Out);
}

bool FunctionLowering::lowerDo(const DoStmt *S, Block &Out) {
  return lowerLoop(S->getCond(), S->getBody(), nullptr, false, S->getDoLoc(),
                   Out);
}

bool FunctionLowering::lowerSwitch(const SwitchStmt *S, Block &Out) {
  if (!lowerStmt(S->getInit(), Out))
    return false;
  if (S->getConditionVariable()) {
    Diags.report(S->getBeginLoc(), Diag::UnsupportedStmt)
        << "switch with a condition variable";
    return false;
  }
  ExprP Subject = lowerExpr(S->getCond(), Out);
  if (!Subject)
    return false;
  const auto *Body = dyn_cast<CompoundStmt>(S->getBody());
  if (!Body)
    return unsupported(S);
  auto SW = std::make_unique<ir::Stmt>(StmtKind::Switch, S->getSwitchLoc());
  SW->Cond = Subject;
  bool OK = true;
  for (const clang::Stmt *Child : Body->body()) {
    // Peel the labels off this statement: each starts a new section.
    const clang::Stmt *Cur = Child;
    while (const auto *SC = dyn_cast<SwitchCase>(Cur)) {
      SwitchSection Sec;
      if (const auto *CS = dyn_cast<CaseStmt>(SC)) {
        if (CS->caseStmtIsGNURange()) {
          Diags.report(CS->getBeginLoc(), Diag::UnsupportedStmt)
              << "case range";
          return false;
        }
        llvm::APSInt V = CS->getLHS()->EvaluateKnownConstInt(Ctx);
        auto C = intConst(Subject->Ty, V.getExtValue());
        Sec.Values.push_back(C);
      } else {
        Sec.IsDefault = true;
      }
      SW->Sections.push_back(std::move(Sec));
      Cur = SC->getSubStmt();
    }
    if (SW->Sections.empty()) // statements before the first label never run
      continue;
    // Consecutive labels with no statement between them share a section.
    OK &= lowerStmt(Cur, SW->Sections.back().Body);
  }
  // Merge label-only sections into the next one (case 1: case 2: ...).
  std::vector<SwitchSection> Merged;
  for (SwitchSection &Sec : SW->Sections) {
    if (!Merged.empty() && Merged.back().Body.empty()) {
      SwitchSection &Prev = Merged.back();
      for (ExprP &V : Sec.Values)
        Prev.Values.push_back(V);
      Prev.IsDefault |= Sec.IsDefault;
      Prev.Body = std::move(Sec.Body);
      continue;
    }
    Merged.push_back(std::move(Sec));
  }
  SW->Sections = std::move(Merged);
  Out.push_back(std::move(SW));
  return OK;
}

bool FunctionLowering::lowerReturn(const ReturnStmt *S, Block &Out) {
  auto R = std::make_unique<ir::Stmt>(StmtKind::Return, S->getReturnLoc());
  if (const Expr *V = S->getRetValue(); V && Result &&
                                         isContainerStorageVar(Result)) {
    // A fixed-size container result is assigned to `result`
    // (FunctionViews.h).
    if (!(eigenShape(Result->Origin->getType()) ? lowerEigenReturn(V, Out)
                                                : lowerArrayReturn(V, Out)))
      return false;
    Out.push_back(std::move(R));
    return true;
  }
  if (const Expr *V = S->getRetValue(); V && Result) {
    // An object result initialises *result (FunctionViews.h).
    QualType Ty = Result->Type->getPointeeType();
    if (!lowerRecordInit(index(ref(Result), intConst(Ctx.IntTy, 0), Ty), Ty,
                         V, Out))
      return false;
    Out.push_back(std::move(R));
    return true;
  }
  if (const Expr *V = S->getRetValue()) {
    // A method returning a reference (`return *this;`) is called only for
    // its effect (FunctionViews.h): the reference it returns is not needed.
    if (!ReturnVar && Self && V->isGLValue() && !V->HasSideEffects(Ctx)) {
      Out.push_back(std::move(R));
      return true;
    }
    if (!ReturnVar)
      return lowerExprStmt(V, Out) && (Out.push_back(std::move(R)), true);
    ExprP E;
    noteConvertedToValue(V);
    if (const auto *Call = dyn_cast<CallExpr>(V->IgnoreParenImpCasts()))
      E = lowerCall(Call, Out, /*TopLevel=*/true);
    else
      E = lowerExpr(V, Out);
    if (!E)
      return false;
    Out.push_back(assign(ref(ReturnVar), convertResult(E, ReturnVar->Type, Out),
                         BO_Assign, S->getReturnLoc()));
  }
  Out.push_back(std::move(R));
  return true;
}

} // namespace fluxion
