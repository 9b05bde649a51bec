//===- IR.cpp - Builders and printing for Fluxion's IR ---------------------===//
#include "fluxion/engine/IR.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;

namespace fluxion::ir {

bool Expr::isZero() const {
  if (K != ExprKind::Const || Literal)
    return false;
  return Ty->isRealFloatingType() ? FVal.isZero() : IVal == 0;
}

bool Expr::isOne() const {
  if (K != ExprKind::Const || Literal)
    return false;
  if (Ty->isRealFloatingType()) {
    llvm::APFloat One(FVal.getSemantics(), 1);
    return FVal.compare(One) == llvm::APFloat::cmpEqual;
  }
  return IVal == 1;
}

Var *Expr::rootVar() const {
  if (K == ExprKind::VarRef)
    return V;
  if (K == ExprKind::Index || K == ExprKind::Member || K == ExprKind::AddrOf ||
      K == ExprKind::Cast)
    return Ops[0]->rootVar();
  if (K == ExprKind::Binary && Ty->isPointerType()) // p + i
    return Ops[0]->Ty->isPointerType() || Ops[0]->Ty->isArrayType()
               ? Ops[0]->rootVar()
               : Ops[1]->rootVar();
  return nullptr;
}

bool Function::nameTaken(llvm::StringRef N) const {
  for (const auto &V : Storage)
    if (V->Name == N)
      return true;
  return false;
}

Var *Function::makeVar(Var::Kind K, llvm::StringRef Base, QualType Ty,
                       VarDecl *Origin) {
  // A declaration without a name (the object a structured binding names)
  // gets one: generated code declares it.
  std::string Stem = Base.empty() ? "_bound" : Base.str();
  std::string Name = Stem;
  for (unsigned I = 1; nameTaken(Name); ++I)
    Name = Stem + "_" + std::to_string(I);
  auto V = std::make_unique<Var>();
  V->K = K;
  V->Name = Name;
  V->Type = Ty;
  V->Origin = Origin;
  V->Id = Storage.size();
  Storage.push_back(std::move(V));
  return Storage.back().get();
}

static std::shared_ptr<Expr> make(ExprKind K, QualType Ty) {
  auto E = std::make_shared<Expr>();
  E->K = K;
  E->Ty = Ty;
  return E;
}

ExprP ref(Var *V, SourceLocation Loc) {
  auto E = make(ExprKind::VarRef, V->Type);
  E->V = V;
  E->Loc = Loc;
  return E;
}

ExprP floatConst(QualType Ty, double Value) {
  auto E = make(ExprKind::Const, Ty);
  E->FVal = llvm::APFloat(Value);
  return E;
}

ExprP intConst(QualType Ty, int64_t Value) {
  auto E = make(ExprKind::Const, Ty);
  E->IVal = llvm::APSInt(llvm::APInt(64, Value, /*isSigned=*/true), false);
  return E;
}

ExprP boolConst(ASTContext &Ctx, bool Value) {
  return intConst(Ctx.BoolTy, Value ? 1 : 0);
}

ExprP binary(BinaryOperatorKind Op, ExprP L, ExprP R, QualType Ty,
             SourceLocation Loc) {
  auto E = make(ExprKind::Binary, Ty);
  E->BOp = Op;
  E->Ops = {std::move(L), std::move(R)};
  E->Loc = Loc;
  return E;
}

ExprP unary(UnaryOperatorKind Op, ExprP Sub, QualType Ty) {
  auto E = make(ExprKind::Unary, Ty);
  E->UOp = Op;
  E->Ops = {std::move(Sub)};
  return E;
}

ExprP index(ExprP Base, ExprP Idx, QualType ElemTy) {
  auto E = make(ExprKind::Index, ElemTy);
  E->Ops = {std::move(Base), std::move(Idx)};
  return E;
}

ExprP member(ExprP Base, FieldDecl *Field) {
  auto E = make(ExprKind::Member, Field->getType().getNonReferenceType());
  E->Field = Field;
  E->Ops = {std::move(Base)};
  return E;
}

ExprP cast(QualType Ty, ExprP Sub) {
  // Integer constants used as floating values become floating literals.
  if (Sub->K == ExprKind::Const && Ty->isRealFloatingType() &&
      Sub->Ty->isIntegerType() && !Sub->Ty->isBooleanType()) {
    auto E = make(ExprKind::Const, Ty);
    E->FVal = llvm::APFloat(static_cast<double>(Sub->IVal.getExtValue()));
    return E;
  }
  if (Sub->K == ExprKind::Unary && Sub->UOp == UO_Minus &&
      Sub->Ops[0]->K == ExprKind::Const && Ty->isRealFloatingType())
    return neg(cast(Ty, Sub->Ops[0]), Ty);
  if (Sub->Ty.getCanonicalType().getUnqualifiedType() ==
      Ty.getCanonicalType().getUnqualifiedType())
    return Sub;
  auto E = make(ExprKind::Cast, Ty);
  E->Ops = {std::move(Sub)};
  return E;
}

const ExprP &conversionSource(const Expr &Cast) {
  assert(Cast.K == ExprKind::Cast && "not a conversion");
  const ExprP *Src = &Cast.Ops[0];
  auto FloatToFloat = [](const Expr &E) {
    return E.K == ExprKind::Cast && E.Ty->isRealFloatingType() &&
           E.Ops[0]->Ty->isRealFloatingType();
  };
  if (!FloatToFloat(Cast))
    return *Src;
  while (FloatToFloat(**Src))
    Src = &(*Src)->Ops[0];
  return *Src;
}

ExprP cond(ExprP C, ExprP A, ExprP B, QualType Ty) {
  auto E = make(ExprKind::Cond, Ty);
  E->Ops = {std::move(C), std::move(A), std::move(B)};
  return E;
}

ExprP call(FunctionDecl *Callee, llvm::ArrayRef<ExprP> Args, QualType Ty,
           SourceLocation Loc) {
  auto E = make(ExprKind::Call, Ty);
  E->Callee = Callee;
  E->Ops.assign(Args.begin(), Args.end());
  E->Loc = Loc;
  return E;
}

ExprP stopGrad(ExprP Sub, QualType Ty, SourceLocation Loc) {
  auto E = make(ExprKind::StopGrad, Ty);
  E->Ops = {std::move(Sub)};
  E->Loc = Loc;
  return E;
}

ExprP pop(Var *Tape) {
  auto E = make(ExprKind::Pop, Tape->TapeElement);
  E->V = Tape;
  return E;
}

ExprP addrOf(ExprP LValue, QualType PtrTy) {
  auto E = make(ExprKind::AddrOf, PtrTy);
  E->Ops = {std::move(LValue)};
  return E;
}

ExprP sizeOf(ExprP Container, QualType SizeTy, Extent Ext) {
  auto E = make(ExprKind::Size, SizeTy);
  E->Ops = {std::move(Container)};
  E->Ext = Ext;
  return E;
}

ExprP add(ExprP L, ExprP R, QualType Ty) {
  if (L->isZero())
    return cast(Ty, R);
  if (R->isZero())
    return cast(Ty, L);
  if (R->K == ExprKind::Unary && R->UOp == UO_Minus)
    return binary(BO_Sub, L, R->Ops[0], Ty);
  return binary(BO_Add, L, R, Ty);
}

ExprP sub(ExprP L, ExprP R, QualType Ty) {
  if (R->isZero())
    return cast(Ty, L);
  if (L->isZero())
    return neg(R, Ty);
  return binary(BO_Sub, L, R, Ty);
}

ExprP mul(ExprP L, ExprP R, QualType Ty) {
  if (L->isOne())
    return cast(Ty, R);
  if (R->isOne())
    return cast(Ty, L);
  if (L->K == ExprKind::Unary && L->UOp == UO_Minus)
    return neg(mul(L->Ops[0], R, Ty), Ty);
  if (R->K == ExprKind::Unary && R->UOp == UO_Minus)
    return neg(mul(L, R->Ops[0], Ty), Ty);
  return binary(BO_Mul, L, R, Ty);
}

ExprP div(ExprP L, ExprP R, QualType Ty) {
  if (R->isOne())
    return cast(Ty, L);
  if (L->K == ExprKind::Unary && L->UOp == UO_Minus)
    return neg(div(L->Ops[0], R, Ty), Ty);
  return binary(BO_Div, L, R, Ty);
}

ExprP neg(ExprP E, QualType Ty) {
  if (E->K == ExprKind::Unary && E->UOp == UO_Minus)
    return E->Ops[0];
  return unary(UO_Minus, E, Ty);
}

bool sameExpr(const Expr &A, const Expr &B) {
  if (A.K != B.K || A.Ops.size() != B.Ops.size())
    return false;
  if (A.Ty.getCanonicalType() != B.Ty.getCanonicalType())
    return false;
  switch (A.K) {
  case ExprKind::Const:
    if (A.Literal || B.Literal)
      return A.Literal == B.Literal;
    return A.Ty->isRealFloatingType()
               ? A.FVal.bitwiseIsEqual(B.FVal)
               : llvm::APSInt::isSameValue(A.IVal, B.IVal);
  case ExprKind::VarRef:
  case ExprKind::Pop:
    if (A.V != B.V || A.K == ExprKind::Pop)
      return false;
    break;
  case ExprKind::Binary:
    if (A.BOp != B.BOp)
      return false;
    break;
  case ExprKind::Unary:
    if (A.UOp != B.UOp)
      return false;
    break;
  case ExprKind::Member:
    if (A.Field != B.Field)
      return false;
    break;
  case ExprKind::Call:
    return false; // calls may have effects: never merged
  case ExprKind::FuncRef:
    return A.Callee == B.Callee;
  case ExprKind::Size:
    if (A.Ext != B.Ext)
      return false;
    break;
  default:
    break;
  }
  for (size_t I = 0; I < A.Ops.size(); ++I)
    if (!sameExpr(*A.Ops[I], *B.Ops[I]))
      return false;
  return true;
}

bool isTrivial(const Expr &E) {
  switch (E.K) {
  case ExprKind::Const:
  case ExprKind::VarRef:
    return true;
  case ExprKind::Index:
    return isTrivial(*E.Ops[0]) && isTrivial(*E.Ops[1]);
  case ExprKind::Member:
  case ExprKind::Cast:
  case ExprKind::Unary:
    return isTrivial(*E.Ops[0]);
  default:
    return false;
  }
}

StmtP resize(ExprP Container, ExprP Count, SourceLocation Loc, ExprP Rows,
             bool Keep) {
  auto S = std::make_unique<Stmt>(StmtKind::Resize, Loc);
  S->Keep = Keep;
  S->LHS = std::move(Container);
  S->RHS = std::move(Count);
  S->Cond = std::move(Rows);
  return S;
}

StmtP resizeAgain(ExprP Container, ExprP Count, SourceLocation Loc) {
  StmtP S = resize(std::move(Container), std::move(Count), Loc, nullptr,
                   /*Keep=*/true);
  S->Undo = true;
  return S;
}

StmtP assign(ExprP LHS, ExprP RHS, BinaryOperatorKind Op, SourceLocation Loc) {
  auto S = std::make_unique<Stmt>(StmtKind::Assign, Loc);
  S->LHS = std::move(LHS);
  S->RHS = std::move(RHS);
  S->Op = Op;
  return S;
}

StmtP eval(ExprP E, SourceLocation Loc) {
  auto S = std::make_unique<Stmt>(StmtKind::Eval, Loc);
  S->RHS = std::move(E);
  return S;
}

StmtP decl(Var *V, ExprP Init) {
  auto S = std::make_unique<Stmt>(StmtKind::Decl);
  S->V = V;
  S->RHS = std::move(Init);
  return S;
}

StmtP ifStmt(ExprP C, Block Then, Block Else, SourceLocation Loc) {
  auto S = std::make_unique<Stmt>(StmtKind::If, Loc);
  S->Cond = std::move(C);
  S->Then = std::move(Then);
  S->Else = std::move(Else);
  return S;
}

StmtP push(Var *Tape, ExprP Value) {
  auto S = std::make_unique<Stmt>(StmtKind::Push);
  S->V = Tape;
  S->RHS = std::move(Value);
  return S;
}

StmtP pushRange(Var *Tape, ExprP First, ExprP Count) {
  auto S = std::make_unique<Stmt>(StmtKind::PushRange);
  S->V = Tape;
  S->RHS = std::move(First);
  S->Cond = std::move(Count);
  return S;
}

StmtP popRange(Var *Tape, ExprP First, ExprP Count) {
  auto S = std::make_unique<Stmt>(StmtKind::PopRange);
  S->V = Tape;
  S->LHS = std::move(First);
  S->Cond = std::move(Count);
  return S;
}

StmtP block(Block Body) {
  auto S = std::make_unique<Stmt>(StmtKind::Block);
  S->Then = std::move(Body);
  return S;
}

ExprP shadowOf(const Expr &E, ASTContext &Ctx,
               llvm::function_ref<Var *(Var *)> Shadow) {
  switch (E.K) {
  case ExprKind::VarRef:
    return ref(Shadow(E.V));
  case ExprKind::Index: {
    ExprP Base = shadowOf(*E.Ops[0], Ctx, Shadow);
    return Base ? index(Base, E.Ops[1], E.Ty.getUnqualifiedType()) : nullptr;
  }
  case ExprKind::Member: {
    ExprP Base = shadowOf(*E.Ops[0], Ctx, Shadow);
    if (!Base)
      return nullptr;
    ExprP M = member(Base, E.Field);
    // A member pointing to const reals (`const double *p` of a Span): the
    // shadow's points to shadow memory, which derivatives write (contract
    // v2).
    QualType T = E.Field->getType();
    if (T->isPointerType() && T->getPointeeType().isConstQualified())
      return cast(Ctx.getPointerType(T->getPointeeType().getUnqualifiedType()),
                  M);
    return M;
  }
  case ExprKind::AddrOf: {
    ExprP Sub = shadowOf(*E.Ops[0], Ctx, Shadow);
    return Sub ? addrOf(Sub, Ctx.getPointerType(Sub->Ty)) : nullptr;
  }
  case ExprKind::Binary: { // pointer arithmetic
    bool LeftIsPtr =
        E.Ops[0]->Ty->isPointerType() || E.Ops[0]->Ty->isArrayType();
    ExprP Ptr = shadowOf(*E.Ops[LeftIsPtr ? 0 : 1], Ctx, Shadow);
    if (!Ptr)
      return nullptr;
    QualType PT =
        Ptr->Ty->isArrayType() ? Ctx.getArrayDecayedType(Ptr->Ty) : Ptr->Ty;
    return binary(E.BOp, Ptr, E.Ops[LeftIsPtr ? 1 : 0], PT);
  }
  case ExprKind::Cast: { // array-to-pointer decay: the shadow decays alike
    ExprP Sub = shadowOf(*E.Ops[0], Ctx, Shadow);
    // Keep the decay visible: analyses that look for pointer arguments
    // (calls writing through them) must see the shadow as one too.
    // The shadow is written: it decays to a pointer to non-const elements
    // (a member array of a const S is const; its adjoint is not).
    if (Sub && Sub->Ty->isArrayType() && E.Ty->isPointerType())
      return cast(Ctx.getPointerType(
                      E.Ty->getPointeeType().getUnqualifiedType()),
                  Sub);
    return Sub;
  }
  default:
    return nullptr;
  }
}

Block countedLoop(ASTContext &Ctx, Var *Counter, int64_t Count, Block Body) {
  QualType T = Counter->Type;
  Block Out;
  Out.push_back(assign(ref(Counter), intConst(T, 0)));
  auto L = std::make_unique<Stmt>(StmtKind::Loop);
  L->Cond = binary(BO_LT, ref(Counter), intConst(T, Count), Ctx.BoolTy);
  L->body() = std::move(Body);
  L->body().push_back(assign(
      ref(Counter), binary(BO_Add, ref(Counter), intConst(T, 1), T)));
  Out.push_back(std::move(L));
  return Out;
}

StmtP clone(const Stmt &S) {
  auto C = std::make_unique<Stmt>(S.K, S.Loc);
  C->LHS = S.LHS;
  C->RHS = S.RHS;
  C->Op = S.Op;
  C->V = S.V;
  C->Cond = S.Cond;
  C->Then = clone(S.Then);
  C->Else = clone(S.Else);
  C->TestFirst = S.TestFirst;
  C->IsInit = S.IsInit;
  C->Keep = S.Keep;
  C->Undo = S.Undo;
  for (const SwitchSection &Sec : S.Sections) {
    SwitchSection Copy;
    Copy.Values = Sec.Values;
    Copy.IsDefault = Sec.IsDefault;
    Copy.Body = clone(Sec.Body);
    C->Sections.push_back(std::move(Copy));
  }
  C->Revolve = S.Revolve;
  return C;
}

Block clone(const Block &B) {
  Block Out;
  for (const StmtP &S : B)
    Out.push_back(clone(*S));
  return Out;
}

void forEachExpr(const Expr &E, llvm::function_ref<void(const Expr &)> F) {
  F(E);
  for (const ExprP &Op : E.Ops)
    forEachExpr(*Op, F);
}

void forEachStmt(const Block &B, llvm::function_ref<void(const Stmt &)> F) {
  for (const StmtP &S : B) {
    F(*S);
    forEachStmt(S->Then, F);
    forEachStmt(S->Else, F);
    for (const SwitchSection &Sec : S->Sections)
      forEachStmt(Sec.Body, F);
  }
}

void placeUnplaced(llvm::MutableArrayRef<StmtP> Stmts, SourceLocation Loc) {
  if (Loc.isInvalid())
    return;
  for (StmtP &S : Stmts) {
    if (S->Loc.isInvalid())
      S->Loc = Loc;
    placeUnplaced(S->Then, Loc);
    placeUnplaced(S->Else, Loc);
    for (SwitchSection &Sec : S->Sections)
      placeUnplaced(Sec.Body, Loc);
  }
}

void forEachExpr(const Block &B, llvm::function_ref<void(const Expr &)> F) {
  forEachStmt(B, [&](const Stmt &S) {
    for (const ExprP *E : {&S.LHS, &S.RHS, &S.Cond})
      if (*E)
        forEachExpr(**E, F);
    for (const SwitchSection &Sec : S.Sections)
      for (const ExprP &V : Sec.Values)
        forEachExpr(*V, F);
  });
}

//===----------------------------------------------------------------------===//
// Printing (debugging aid; the emitted Clang AST is what users read).
//===----------------------------------------------------------------------===//

void print(const Expr &E, llvm::raw_ostream &OS) {
  switch (E.K) {
  case ExprKind::Const:
    if (E.Ty->isRealFloatingType()) {
      llvm::SmallString<16> S;
      E.FVal.toString(S);
      OS << S;
    } else {
      OS << E.IVal;
    }
    return;
  case ExprKind::VarRef:
    OS << E.V->Name;
    return;
  case ExprKind::Index:
    print(*E.Ops[0], OS);
    OS << "[";
    print(*E.Ops[1], OS);
    OS << "]";
    return;
  case ExprKind::Member:
    print(*E.Ops[0], OS);
    OS << "." << E.Field->getName();
    return;
  case ExprKind::AddrOf:
    OS << "&";
    print(*E.Ops[0], OS);
    return;
  case ExprKind::Unary:
    OS << UnaryOperator::getOpcodeStr(E.UOp) << "(";
    print(*E.Ops[0], OS);
    OS << ")";
    return;
  case ExprKind::Binary:
    OS << "(";
    print(*E.Ops[0], OS);
    OS << " " << BinaryOperator::getOpcodeStr(E.BOp) << " ";
    print(*E.Ops[1], OS);
    OS << ")";
    return;
  case ExprKind::Cond:
    OS << "(";
    print(*E.Ops[0], OS);
    OS << " ? ";
    print(*E.Ops[1], OS);
    OS << " : ";
    print(*E.Ops[2], OS);
    OS << ")";
    return;
  case ExprKind::Cast:
    OS << "(" << E.Ty.getAsString() << ")";
    print(*E.Ops[0], OS);
    return;
  case ExprKind::Call:
  case ExprKind::StopGrad: {
    OS << (E.K == ExprKind::Call ? E.Callee->getNameAsString()
                                 : std::string("stop_gradient"))
       << "(";
    llvm::ListSeparator Sep;
    for (const ExprP &A : E.Ops) {
      OS << Sep;
      print(*A, OS);
    }
    OS << ")";
    return;
  }
  case ExprKind::Pop:
    OS << E.V->Name << ".pop()";
    return;
  case ExprKind::FuncRef:
    OS << E.Callee->getNameAsString();
    return;
  case ExprKind::Size:
    print(*E.Ops[0], OS);
    OS << (E.Ext == Extent::Rows   ? ".rows()"
           : E.Ext == Extent::Cols ? ".cols()"
                                   : ".size()");
    return;
  }
}

void print(const Block &B, llvm::raw_ostream &OS, unsigned Indent) {
  auto Pad = [&](unsigned N) { OS.indent(N * 2); };
  for (const StmtP &SP : B) {
    const Stmt &S = *SP;
    Pad(Indent);
    switch (S.K) {
    case StmtKind::Assign:
      print(*S.LHS, OS);
      OS << " " << BinaryOperator::getOpcodeStr(S.Op) << " ";
      print(*S.RHS, OS);
      OS << ";\n";
      break;
    case StmtKind::Eval:
      print(*S.RHS, OS);
      OS << ";\n";
      break;
    case StmtKind::Decl:
      OS << S.V->Type.getAsString() << " " << S.V->Name;
      if (S.RHS) {
        OS << " = ";
        print(*S.RHS, OS);
      }
      OS << ";\n";
      break;
    case StmtKind::Resize:
      print(*S.LHS, OS);
      OS << (S.Keep ? ".resize(" : ".assign(");
      print(*S.RHS, OS);
      OS << (S.Keep ? ");\n" : ", 0);\n");
      break;
    case StmtKind::Push:
      OS << S.V->Name << ".push(";
      print(*S.RHS, OS);
      OS << ");\n";
      break;
    case StmtKind::PushRange:
    case StmtKind::PopRange:
      OS << S.V->Name
         << (S.K == StmtKind::PushRange ? ".push_range(" : ".pop_range(");
      print(S.K == StmtKind::PushRange ? *S.RHS : *S.LHS, OS);
      OS << ", ";
      print(*S.Cond, OS);
      OS << ");\n";
      break;
    case StmtKind::Return:
      OS << "return";
      if (S.RHS) {
        OS << " ";
        print(*S.RHS, OS);
      }
      OS << ";\n";
      break;
    case StmtKind::Break:
      OS << "break;\n";
      break;
    case StmtKind::Continue:
      OS << "continue;\n";
      break;
    case StmtKind::Block:
      OS << "{\n";
      print(S.Then, OS, Indent + 1);
      Pad(Indent);
      OS << "}\n";
      break;
    case StmtKind::If:
      OS << "if (";
      print(*S.Cond, OS);
      OS << ") {\n";
      print(S.Then, OS, Indent + 1);
      if (!S.Else.empty()) {
        Pad(Indent);
        OS << "} else {\n";
        print(S.Else, OS, Indent + 1);
      }
      Pad(Indent);
      OS << "}\n";
      break;
    case StmtKind::Loop:
      OS << (S.TestFirst ? "while (" : "do-while (");
      print(*S.Cond, OS);
      OS << ") {\n";
      print(S.body(), OS, Indent + 1);
      if (!S.inc().empty()) {
        Pad(Indent + 1);
        OS << "// increment\n";
        print(S.inc(), OS, Indent + 1);
      }
      Pad(Indent);
      OS << "}\n";
      break;
    case StmtKind::Repeat:
      OS << "for (" << S.V->Name << " = ";
      print(*S.Cond, OS);
      OS << "; " << S.V->Name << "; --" << S.V->Name << ") {\n";
      print(S.body(), OS, Indent + 1);
      Pad(Indent);
      OS << "}\n";
      break;
    case StmtKind::Switch:
      OS << "switch (";
      print(*S.Cond, OS);
      OS << ") {\n";
      for (const SwitchSection &Sec : S.Sections) {
        Pad(Indent);
        if (Sec.IsDefault)
          OS << "default:";
        for (const ExprP &V : Sec.Values) {
          OS << "case ";
          print(*V, OS);
          OS << ":";
        }
        OS << "\n";
        print(Sec.Body, OS, Indent + 1);
      }
      Pad(Indent);
      OS << "}\n";
      break;
    }
  }
}

void print(const Function &F, llvm::raw_ostream &OS) {
  OS << F.ReturnType.getAsString() << " " << F.Name << "(";
  llvm::ListSeparator Sep;
  for (Var *P : F.Params)
    OS << Sep << P->Type.getAsString() << " " << P->Name;
  OS << ") {\n";
  for (Var *L : F.Locals)
    OS << "  " << L->Type.getAsString() << " " << L->Name << ";\n";
  print(F.Body, OS, 1);
  OS << "}\n";
}

} // namespace fluxion::ir
