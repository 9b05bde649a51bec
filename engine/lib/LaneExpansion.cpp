//===- LaneExpansion.cpp - One reverse sweep for several seeds ------------===//
//
// See LaneExpansion.h. The rewrite is syntactic over a first-order backward
// function: adjoint variables are marked (Var::Adjoint) by the reverse
// builder, and every statement either writes an adjoint (it runs once per
// lane) or touches none (it runs once). Anything else, such as a branch on
// an adjoint, fails the expansion, and the caller keeps one sweep per row.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/LaneExpansion.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

using namespace clang;

namespace fluxion {
using namespace ir;

namespace {

/// Where lane l of an adjoint variable lives.
struct Lane {
  Var *New = nullptr;
  /// Distance between lanes, in units of Unit bytes: 1 for scalars and
  /// objects, N for a local array of N, the stride parameter for a pointer
  /// parameter.
  ExprP Stride;
  /// Bytes per unit of Stride: the element's size, or 1 for a pointer to
  /// objects (Bytes).
  uint64_t Unit = 0;
  /// A scalar or an object: x becomes New[l].
  bool Scalar = false;
  /// A pointer to objects whose lanes are Stride bytes apart, so that a
  /// member of each lane can be passed on with the same stride: lane l is
  /// fluxion::lane(d_p, l, ld_d_p).
  bool Bytes = false;
  /// The fixed-size container (std::array, Vector3d) whose storage this
  /// is: its extents are constants.
  QualType Container;
};

class Expander {
public:
  Expander(const LaneInput &In, unsigned M, ASTContext &Ctx,
           LaneOracle &Oracle, LaneOutput &Out, std::string &Why)
      : In(In), M(M), Ctx(Ctx), Oracle(Oracle), Out(Out), Why(Why) {}

  bool run();

private:
  bool fail(std::string Reason) {
    if (Why.empty())
      Why = std::move(Reason);
    return false;
  }
  /// Gives V its lanes (a local or a temporary).
  bool laneLocal(Var *V);
  bool mentionsLanes(const Expr &E) const;
  /// E inside the loop over lanes: adjoints at lane l (at lane 0 while
  /// AtZero is set).
  ExprP atLane(const ExprP &E);
  /// Lane l of a pointer to objects whose lanes are bytes apart.
  ExprP laneObject(const Lane &Ln);
  /// A pointer into adjoint memory, passed to a lanes callee: the pointer
  /// to lane 0 and the stride, in units of Unit bytes.
  bool laneBase(const ExprP &E, ExprP &Base, ExprP &Stride, uint64_t &Unit);
  /// Stride converted from units of From bytes to units of To bytes.
  bool convertStride(ExprP &Stride, uint64_t From, uint64_t To);
  uint64_t bytes(QualType T) const {
    return Ctx.getTypeSizeInChars(T).getQuantity();
  }
  bool block(const Block &B, Block &To);
  /// Appends S (which runs once per lane) to the pending loop over lanes.
  void perLane(StmtP S) { Pending.push_back(std::move(S)); }
  void flush(Block &To);
  bool laneCall(const Expr &Call, SourceLocation Loc, Block &To);

  const LaneInput &In;
  unsigned M;
  ASTContext &Ctx;
  LaneOracle &Oracle;
  LaneOutput &Out;
  std::string &Why;
  llvm::DenseMap<const Var *, Lane> Lanes;
  Var *L = nullptr; ///< the lane counter
  bool AtZero = false;
  Block Pending;
  llvm::DenseMap<const Type *, Var *> Zeros; ///< M zero seeds per type
};

/// The container a local container's storage (or its adjoint's) stands
/// for, when its size is fixed (a std::array, a Vector3d): its lanes are a
/// plain array of N per lane.
static QualType fixedContainer(const Var *V) {
  if (!V->Type->isPointerType())
    return {};
  for (const Var *P = V; P; P = P->Primal)
    if (P->Origin && P->K == Var::Kind::Local &&
        !containerElement(P->Origin->getType()).isNull())
      return containerFixedSize(P->Origin->getType())
                 ? P->Origin->getType().getNonReferenceType()
                 : QualType();
  return {};
}

bool Expander::laneLocal(Var *V) {
  if (Lanes.count(V))
    return true;
  QualType T = V->Type.getUnqualifiedType();
  Lane Ln;
  auto Element = [](QualType E) {
    return E->isRealFloatingType() ||
           (isDifferentiableRecord(E) && containerElement(E).isNull() &&
            !pointsToReals(E));
  };
  // N elements per lane: a local array, or a fixed-size container's
  // storage.
  QualType E;
  uint64_t N = 0;
  Ln.Container = fixedContainer(V);
  if (!Ln.Container.isNull()) {
    E = T->getPointeeType().getUnqualifiedType();
    N = *containerFixedSize(Ln.Container);
  } else if (const auto *AT = Ctx.getAsConstantArrayType(T);
             AT && Element(AT->getElementType())) {
    E = AT->getElementType().getUnqualifiedType();
    N = AT->getSize().getZExtValue();
  }
  if (!E.isNull()) {
    Ln.New = In.F->makeVar(Var::Kind::Local, V->Name,
                           Ctx.getConstantArrayType(
                               E, llvm::APInt(64, N * M), nullptr,
                               ArraySizeModifier::Normal, 0));
    Ln.Stride = intConst(Ctx.IntTy, static_cast<int64_t>(N));
    Ln.Unit = bytes(E);
  } else if (Element(T)) {
    // A scalar or an object of reals: one per lane.
    Ln.New = In.F->makeVar(Var::Kind::Local, V->Name,
                           Ctx.getConstantArrayType(
                               T, llvm::APInt(64, M), nullptr,
                               ArraySizeModifier::Normal, 0));
    Ln.Stride = intConst(Ctx.IntTy, 1);
    Ln.Unit = bytes(T);
    Ln.Scalar = true;
  } else {
    return fail("the adjoint '" + V->Name + "' is neither a floating scalar, "
                "an object of reals nor a one-dimensional array of them");
  }
  // The expanded function declares only the new variable: it keeps the
  // name the reader knows from the one-seed function.
  Ln.New->Name = V->Name;
  Ln.New->Adjoint = true;
  Ln.New->ZeroInit = true;
  Out.Locals.push_back(Ln.New);
  Lanes[V] = Ln;
  return true;
}

bool Expander::mentionsLanes(const Expr &E) const {
  bool Found = false;
  forEachExpr(E, [&](const Expr &Sub) {
    Found |= Sub.K == ExprKind::VarRef && Lanes.count(Sub.V);
  });
  return Found;
}

ExprP Expander::laneObject(const Lane &Ln) {
  if (AtZero)
    return ref(Ln.New);
  FunctionDecl *Fn = Oracle.laneAccessor(Ln.New->Type);
  if (!Fn) {
    fail("the runtime's fluxion::lane is not declared");
    return ref(Ln.New);
  }
  return call(Fn, {ref(Ln.New), ref(L), Ln.Stride}, Ln.New->Type);
}

ExprP Expander::atLane(const ExprP &E) {
  if (!mentionsLanes(*E))
    return E;
  QualType Long = Ctx.LongTy;
  auto Offset = [&](const Lane &Ln) {
    return mul(ref(L), Ln.Stride, Ln.Stride->Ty);
  };
  ExprP Lane0 = intConst(Ctx.IntTy, 0);
  switch (E->K) {
  case ExprKind::VarRef: {
    const Lane &Ln = Lanes.find(E->V)->second;
    if (Ln.Scalar)
      return index(ref(Ln.New), AtZero ? Lane0 : ref(L), E->Ty);
    if (Ln.Bytes)
      return laneObject(Ln);
    if (AtZero)
      return ref(Ln.New);
    // An array or pointer as a value (a rule's pointer argument): lane l's
    // first element.
    QualType Elem = E->Ty->isArrayType()
                        ? Ctx.getAsArrayType(E->Ty)->getElementType()
                        : E->Ty->getPointeeType();
    return binary(BO_Add, ref(Ln.New), Offset(Ln), Ctx.getPointerType(Elem));
  }
  case ExprKind::Index:
    if (E->Ops[0]->K == ExprKind::VarRef && Lanes.count(E->Ops[0]->V)) {
      const Lane &Ln = Lanes.find(E->Ops[0]->V)->second;
      if (!Ln.Scalar) {
        ExprP I = atLane(E->Ops[1]);
        if (Ln.Bytes)
          return index(laneObject(Ln), I, E->Ty);
        if (AtZero)
          return index(ref(Ln.New), I, E->Ty);
        return index(ref(Ln.New), add(Offset(Ln), I, Long), E->Ty);
      }
    }
    break;
  case ExprKind::AddrOf:
    if (E->Ops[0]->K == ExprKind::VarRef)
      return addrOf(atLane(E->Ops[0]), E->Ty);
    break;
  case ExprKind::Size:
    // A fixed-size container's extents are the same in every lane.
    if (E->Ops[0]->K == ExprKind::VarRef && Lanes.count(E->Ops[0]->V))
      if (QualType C = Lanes.find(E->Ops[0]->V)->second.Container;
          !C.isNull()) {
        uint64_t N = *containerFixedSize(C);
        if (E->Ext != Extent::Elements) {
          std::optional<EigenShape> S = eigenShape(C);
          if (!S || S->Rows < 0 || S->Cols < 0) {
            fail("the extent of a container without a fixed shape");
            return E;
          }
          N = E->Ext == Extent::Rows ? S->Rows : S->Cols;
        }
        return intConst(E->Ty, static_cast<int64_t>(N));
      }
    break;
  default:
    break;
  }
  auto Copy = std::make_shared<Expr>(*E);
  for (ExprP &Op : Copy->Ops)
    Op = atLane(Op);
  return Copy;
}

bool Expander::laneBase(const ExprP &E, ExprP &Base, ExprP &Stride,
                        uint64_t &Unit) {
  switch (E->K) {
  case ExprKind::Const: // no adjoint memory (an inactive argument)
    Base = E;
    Stride = intConst(Ctx.LongTy, 0);
    Unit = 0; // any
    return true;
  case ExprKind::VarRef: {
    auto It = Lanes.find(E->V);
    if (It == Lanes.end())
      return fail("an adjoint pointer without lanes ('" + E->V->Name + "')");
    Base = ref(It->second.New);
    Stride = It->second.Stride;
    Unit = It->second.Unit;
    return true;
  }
  case ExprKind::AddrOf:
    if (E->Ops[0]->K == ExprKind::VarRef)
      return laneBase(E->Ops[0], Base, Stride, Unit);
    break;
  case ExprKind::Cast:
    if (E->Ops[0]->K == ExprKind::Member ||
        E->Ops[0]->K == ExprKind::Index)
      break; // an array member decaying
    if (!laneBase(E->Ops[0], Base, Stride, Unit))
      return false;
    Base = cast(E->Ty, Base);
    return true;
  case ExprKind::Binary:
    if ((E->BOp == BO_Add || E->BOp == BO_Sub) && !mentionsLanes(*E->Ops[1])) {
      if (!laneBase(E->Ops[0], Base, Stride, Unit))
        return false;
      Base = binary(E->BOp, Base, E->Ops[1], E->Ty);
      return true;
    }
    break;
  default:
    break;
  }
  // A place inside an object's or an array's lane (`&d_cam->rot`,
  // `d_cam->centre`, `&d_ps[i].pos`): the same place in lane 0, and the
  // lanes' own distance apart.
  Var *Root = E->rootVar();
  auto It = Root ? Lanes.find(Root) : Lanes.end();
  if (It != Lanes.end() && E->K != ExprKind::VarRef) {
    AtZero = true;
    Base = atLane(E);
    AtZero = false;
    Stride = It->second.Stride;
    Unit = It->second.Unit;
    return true;
  }
  return fail("an adjoint argument that is not a variable plus an offset");
}

bool Expander::convertStride(ExprP &Stride, uint64_t From, uint64_t To) {
  if (From == To || From == 0 || To == 0)
    return true;
  if (From % To == 0) {
    Stride = mul(Stride, intConst(Stride->Ty, From / To), Stride->Ty);
    return true;
  }
  if (To % From == 0) {
    Stride = binary(BO_Div, Stride, intConst(Stride->Ty, To / From),
                    Stride->Ty);
    return true;
  }
  return fail("lanes of an object whose size is not a multiple of its "
              "members' sizes");
}

void Expander::flush(Block &To) {
  if (Pending.empty())
    return;
  for (StmtP &S : countedLoop(Ctx, L, M, std::move(Pending)))
    To.push_back(std::move(S));
  Pending.clear();
}

bool Expander::laneCall(const Expr &C, SourceLocation Loc, Block &To) {
  llvm::SmallVector<LaneArg, 8> Kinds;
  FunctionDecl *Target = Oracle.lanesOf(C.Callee, M, Kinds);
  if (!Target) { // a custom rule: once per lane
    perLane(eval(atLane(std::make_shared<Expr>(C)), Loc));
    return true;
  }
  if (Kinds.size() != C.Ops.size())
    return fail("a backward call whose arguments do not match its callee");
  llvm::SmallVector<ExprP, 12> Args;
  for (unsigned I = 0; I < C.Ops.size(); ++I) {
    const ExprP &A = C.Ops[I];
    switch (Kinds[I]) {
    case LaneArg::Primal:
      if (mentionsLanes(*A))
        return fail("an adjoint passed as a primal argument");
      Args.push_back(A);
      break;
    case LaneArg::Seed: {
      if (A->K == ExprKind::VarRef && Lanes.count(A->V) &&
          Lanes.find(A->V)->second.Scalar) {
        Args.push_back(ref(Lanes.find(A->V)->second.New));
        break;
      }
      if (mentionsLanes(*A) || !A->isZero())
        return fail("a seed that is neither a variable nor zero");
      // An inactive result: M zero seeds.
      QualType T = A->Ty.getUnqualifiedType();
      Var *&Z = Zeros[T.getCanonicalType().getTypePtr()];
      if (!Z) {
        Z = In.F->makeVar(Var::Kind::Local, "_zero_seeds",
                          Ctx.getConstantArrayType(T, llvm::APInt(64, M),
                                                   nullptr,
                                                   ArraySizeModifier::Normal,
                                                   0));
        Z->ZeroInit = true;
        Out.Locals.push_back(Z);
      }
      Args.push_back(ref(Z));
      break;
    }
    case LaneArg::Adjoint: {
      ExprP Base, Stride;
      uint64_t Unit = 0;
      if (!laneBase(A, Base, Stride, Unit))
        return false;
      // The callee's stride: bytes for objects, elements otherwise.
      QualType To = Target->getParamDecl(Args.size())->getType();
      To = To->isPointerType() ? To->getPointeeType() : To;
      if (!convertStride(Stride, Unit, To->isRecordType() ? 1 : bytes(To)))
        return false;
      Args.push_back(Base);
      Args.push_back(cast(Ctx.LongTy, Stride));
      break;
    }
    }
  }
  flush(To);
  To.push_back(eval(call(Target, Args, Target->getReturnType(), C.Loc), Loc));
  return true;
}

bool Expander::block(const Block &B, Block &To) {
  for (const StmtP &SP : B) {
    const Stmt &S = *SP;
    switch (S.K) {
    case StmtKind::Decl:
      if (S.V->Adjoint) {
        if (!laneLocal(S.V))
          return false;
        if (QualType C = Lanes.find(S.V)->second.Container; !C.isNull()) {
          // A fixed-size container: each lane's elements start at 0.
          if (S.RHS)
            return fail("an adjoint container declared with a value");
          QualType E = S.V->Type->getPointeeType().getUnqualifiedType();
          for (uint64_t I = 0, N = *containerFixedSize(C); I < N; ++I)
            perLane(assign(atLane(index(ref(S.V), intConst(Ctx.IntTy, I), E)),
                           floatConst(E, 0), BO_Assign, S.Loc));
          continue;
        }
        if (!S.V->Type->isRealFloatingType()) {
          // An object (or array): each lane's floating members start at 0.
          if (S.RHS)
            return fail("an adjoint object declared with a value");
          forEachScalar(Ctx, atLane(ref(S.V)), nullptr, S.V->Type,
                        [&](ExprP D, ExprP, QualType T) {
                          if (T->isRealFloatingType())
                            perLane(assign(D, floatConst(T, 0), BO_Assign,
                                           S.Loc));
                        });
          continue;
        }
        ExprP Init = S.RHS ? S.RHS : floatConst(S.V->Type, 0);
        perLane(assign(atLane(ref(S.V)), atLane(Init), BO_Assign, S.Loc));
        continue;
      }
      break;
    case StmtKind::Assign: {
      Var *Root = S.LHS->rootVar();
      if (Root && Lanes.count(Root)) {
        perLane(assign(atLane(S.LHS), atLane(S.RHS), S.Op, S.Loc));
        continue;
      }
      break;
    }
    case StmtKind::Eval:
      if (S.RHS && S.RHS->K == ExprKind::Call && mentionsLanes(*S.RHS)) {
        if (!laneCall(*S.RHS, S.Loc, To))
          return false;
        continue;
      }
      if (S.LHS && S.LHS->K == ExprKind::Call && mentionsLanes(*S.LHS)) {
        if (!laneCall(*S.LHS, S.Loc, To))
          return false;
        continue;
      }
      break;
    case StmtKind::Block: {
      flush(To);
      Block Inner;
      if (!block(S.Then, Inner))
        return false;
      flush(Inner);
      To.push_back(ir::block(std::move(Inner)));
      continue;
    }
    case StmtKind::If:
    case StmtKind::Loop:
    case StmtKind::Repeat: {
      if ((S.Cond && mentionsLanes(*S.Cond)))
        return fail("control flow that depends on an adjoint");
      flush(To);
      StmtP C = clone(S);
      C->Then.clear();
      C->Else.clear();
      if (!block(S.Then, C->Then))
        return false;
      flush(C->Then);
      if (!block(S.Else, C->Else))
        return false;
      flush(C->Else);
      To.push_back(std::move(C));
      continue;
    }
    case StmtKind::Switch:
      return fail("a switch in a reverse sweep");
    default:
      break;
    }
    // Runs once: it must not touch an adjoint.
    bool Touches = (S.LHS && mentionsLanes(*S.LHS)) ||
                   (S.RHS && mentionsLanes(*S.RHS)) ||
                   (S.Cond && mentionsLanes(*S.Cond));
    if (Touches)
      return fail("a statement that mixes adjoints with primal values");
    flush(To);
    To.push_back(clone(S));
  }
  return true;
}

bool Expander::run() {
  L = In.F->makeVar(Var::Kind::Local, "_l", Ctx.IntTy);
  for (Var *P : In.Params) {
    if (!P->Adjoint) {
      Out.Params.push_back(P);
      continue;
    }
    if (P->Type->isRealFloatingType()) { // the seed: M of them
      Lane Ln;
      Ln.New = In.F->makeVar(Var::Kind::Param, P->Name,
                             Ctx.getPointerType(P->Type.getUnqualifiedType()));
      Ln.New->Name = P->Name;
      Ln.New->Adjoint = true;
      Ln.Stride = intConst(Ctx.IntTy, 1);
      Ln.Unit = bytes(P->Type);
      Ln.Scalar = true;
      Lanes[P] = Ln;
      Out.Params.push_back(Ln.New);
      continue;
    }
    QualType To = P->Type->isPointerType() ? P->Type->getPointeeType()
                                           : QualType();
    if (To.isNull() ||
        (!To->isRealFloatingType() &&
         (!isDifferentiableRecord(To) || !containerElement(To).isNull() ||
          pointsToReals(To))))
      return fail("the adjoint parameter '" + P->Name +
                  "' is not a pointer to floating values or objects of them");
    Var *Ld = In.F->makeVar(Var::Kind::Param, "ld_" + P->Name, Ctx.LongTy);
    Lane Ln;
    Ln.New = P;
    Ln.Stride = ref(Ld);
    Ln.Bytes = To->isRecordType();
    Ln.Unit = Ln.Bytes ? 1 : bytes(To);
    Lanes[P] = Ln;
    Out.Params.push_back(P);
    Out.Params.push_back(Ld);
  }
  for (Var *V : In.Locals) {
    if (!V->Adjoint) {
      Out.Locals.push_back(V);
      continue;
    }
    if (!laneLocal(V))
      return false;
  }
  Out.Locals.push_back(L);
  if (!block(*In.Body, Out.Body))
    return false;
  flush(Out.Body);
  return true;
}

} // namespace

bool expandLanes(const LaneInput &In, unsigned M, ASTContext &Ctx,
                 LaneOracle &Oracle, LaneOutput &Out, std::string &Why) {
  return Expander(In, M, Ctx, Oracle, Out, Why).run();
}

} // namespace fluxion
