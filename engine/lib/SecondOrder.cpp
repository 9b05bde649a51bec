//===- SecondOrder.cpp - Hessian-vector products and dense Hessians --------===//
//
// f_hvp is the tangent of the adjoint (forward over reverse): the joint
// adjoint body of f, with seed 1, run through the TangentBuilder along the
// direction v. The adjoint parameters (the gradient) are write-only there:
// only their tangents, H v, are kept, accumulated into hv_. f_hessian calls
// f_hvp once per unit vector.
//
//===----------------------------------------------------------------------===//
#include "AdjointBody.h"
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/Emitter.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::StmtKind;
using ir::StmtP;
using ir::Var;

/// Elements of a differentiable parameter as f_hessian sees it: 1 for a
/// scalar, N for a fixed-size array parameter (T x[N]), 0 if unknown.
static uint64_t flatSize(ASTContext &Ctx, const ParmVarDecl *P) {
  // A function template's `T x` or `T x[N]`: sized per instance (the
  // instance's own f_hessian is declared only if it has a size).
  if (P->getType()->isDependentType())
    return P->getOriginalType().getNonReferenceType()->isPointerType() ? 0 : 1;
  if (P->getType().getNonReferenceType()->isRealFloatingType())
    return 1;
  if (const auto *AT = Ctx.getAsConstantArrayType(P->getOriginalType())) {
    uint64_t N = AT->getSize().getZExtValue();
    QualType E = AT->getElementType();
    return E->isRealFloatingType() ? N : 0;
  }
  // A std::array of reals (not an Eigen object, whose alignment a plain
  // array of its coefficients may not have).
  QualType T = P->getType().getNonReferenceType();
  if (std::optional<uint64_t> N = containerFixedSize(T);
      N && !eigenShape(T) && containerElement(T)->isRealFloatingType())
    return *N;
  return 0;
}

std::vector<std::pair<std::string, QualType>>
Differentiator::hvpParams(FunctionDecl *FD, const std::vector<bool> &Active) {
  auto Ps = tangentParams(FD, Active);
  for (auto &P : Ps)
    if (P.first.rfind("t_", 0) == 0)
      P.first = "v_" + P.first.substr(2);
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    if (Active[I])
      Ps.push_back({"hv_" + FD->getParamDecl(I)->getNameAsString(),
                    adjointParamType(Ctx, FD->getParamDecl(I)->getType())});
  return Ps;
}

bool Differentiator::checkSecondOrder(FunctionDecl *FD, const Annotation &A) {
  if (!hasSeed(FD)) {
    Diags.report(A.Loc, Diag::NotDifferentiable)
        << FD << "a Hessian needs a function that returns a floating value";
    return false;
  }
  for (ParmVarDecl *P : FD->parameters()) {
    QualType T = P->getType();
    if ((T->isPointerType() || T->isReferenceType()) &&
        isDifferentiableType(T) && !T->getPointeeType().isConstQualified()) {
      Diags.report(P->getLocation(), Diag::NotDifferentiable)
          << FD
          << "a Hessian is taken of a scalar function of its inputs; make "
             "the output parameter a const input or return the value";
      return false;
    }
  }
  return true;
}

void Differentiator::declareSecondOrder(UserEntry &E) {
  FunctionDecl *FD = E.Annotated;
  std::string Base = FD->getNameAsString();
  E.HVP = declare(FD, Base + "_hvp", Ctx.VoidTy, hvpParams(FD, E.Active),
                  false, true);
  bool Dense = true;
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    if (E.Active[I] && flatSize(Ctx, FD->getParamDecl(I)) == 0)
      Dense = false;
  if (!Dense)
    return;
  std::vector<std::pair<std::string, QualType>> Ps;
  for (ParmVarDecl *P : FD->parameters())
    Ps.push_back({P->getName().empty() ? std::string("_p")
                                       : P->getNameAsString(),
                  P->getType()});
  Ps.push_back(
      {"H", Ctx.getPointerType(FD->getReturnType().getUnqualifiedType())});
  E.Hessian = declare(FD, Base + "_hessian", Ctx.VoidTy, Ps, false, true);
}

void Differentiator::defineUserHVP(UserEntry &E, FunctionDecl *Def) {
  E.Defined = true;
  if (Def->isInvalidDecl() || Diags.clangReportedErrors())
    return;
  Current = Def;
  // A method is differentiated as a function of its object (`self`, a
  // constant here) and its parameters.
  FunctionDecl *Lowered = Def;
  std::vector<bool> Active = E.Active;
  if (!memberForm(E, Def, Lowered, Active)) {
    Current = nullptr;
    return;
  }
  SecondOrderMode = true;
  auto D = differentiate(Lowered, Active, Ctx, Diags, *this, nullptr);
  SecondOrderMode = false;
  if (!D) {
    Current = nullptr;
    explain(Def);
    return;
  }
  ir::Function &F = *D->IR;
  unsigned NP = F.Params.size();
  // The seed becomes a local holding 1: H v is the tangent of the gradient.
  Var *Seed = D->ReverseParams[NP];
  Seed->K = Var::Kind::Local;
  F.Locals.push_back(Seed);
  ir::Block Adjoint;
  Adjoint.push_back(ir::assign(ir::ref(Seed), ir::floatConst(Seed->Type, 1)));
  for (StmtP &St : D->Parts.Forward)
    Adjoint.push_back(std::move(St));
  for (StmtP &St : D->Parts.Reverse)
    Adjoint.push_back(std::move(St));

  llvm::DenseMap<Var *, Var *> Tangents;
  std::vector<Var *> Params(F.Params.begin(), F.Params.end());
  std::vector<Var *> ActiveParams, Directions, Products;
  std::vector<Var *> Gradients(D->ReverseParams.begin() + NP + 1,
                               D->ReverseParams.end());
  for (unsigned I = 0, J = 0; I < NP; ++I) {
    if (!Active[I])
      continue;
    Var *P = F.Params[I];
    ActiveParams.push_back(P);
    Var *V = F.makeVar(Var::Kind::Param, "v_" + P->Name,
                       P->Type->isRealFloatingType()
                           ? P->Type.getUnqualifiedType()
                           : P->Type);
    V->ByRef = tangentPassedByValue(P);
    Directions.push_back(V);
    Tangents[P] = V;
    Var *G = Gradients[J++];
    Var *HV = F.makeVar(Var::Kind::Param, "hv_" + P->Name, G->Type);
    Products.push_back(HV);
    Tangents[G] = HV;
  }
  // A method's object is a constant of H v unless the annotation names
  // "this"; but members the method writes are saved and restored by the
  // adjoint, and tangents travel with every value on the tape, so they
  // have tangents: zero, in an object of the class.
  ir::Block Prologue;
  if (Lowered != Def && !Active[0] &&
      isDifferentiableRecord(F.Params[0]->Type->getPointeeType())) {
    Var *Self = F.Params[0];
    Var *Zero = F.makeVar(Var::Kind::Local, "_t_self_zero",
                          Self->Type->getPointeeType().getUnqualifiedType());
    Zero->ZeroInit = true;
    Var *T = F.makeVar(Var::Kind::Local, "_t_self", Self->Type);
    F.Locals.push_back(Zero);
    F.Locals.push_back(T);
    Prologue.push_back(
        ir::assign(ir::ref(T), ir::addrOf(ir::ref(Zero), Self->Type)));
    Tangents[Self] = T;
  }
  ActivityInfo Activity(Adjoint, ActiveParams);
  TangentBuilder Builder(F, Ctx, Activity, *this, Diags, Tangents);
  for (Var *G : Gradients)
    Builder.Sinks.insert(G);
  auto Body = Builder.build(&Adjoint);
  if (Body)
    Body->insert(Body->begin(), std::make_move_iterator(Prologue.begin()),
                 std::make_move_iterator(Prologue.end()));
  Current = nullptr;
  if (!Body) {
    explain(Def);
    return;
  }
  EmitRequest R;
  R.Target = E.HVP;
  R.Params = Params;
  R.Params.insert(R.Params.end(), Directions.begin(), Directions.end());
  R.Params.insert(R.Params.end(), Products.begin(), Products.end());
  if (Lowered != Def)
    placeThis(R, "hv_this");
  R.Locals = F.Locals;
  R.Body = std::move(*Body);
  emitAndPublish(R);
  if (!E.Hessian)
    return;
  uint64_t Columns = 0;
  for (unsigned I = 0; I < Def->getNumParams(); ++I)
    if (E.Active[I])
      Columns += flatSize(Ctx, Def->getParamDecl(I));
  if (Columns < 2 ||
      checkRerunState(E, Def, "f_hessian runs it once per column",
                      /*Forward=*/false))
    defineDenseHessian(E, Def);
}

void Differentiator::defineDenseHessian(UserEntry &E, FunctionDecl *Def) {
  // for (k = 0; k < N; ++k) {
  //   v = e_k; hv = 0; f_hvp(p..., v..., hv...);
  //   H[k * N + j] = hv_j for every flattened j
  // }
  ir::Function F;
  QualType T = Def->getReturnType().getUnqualifiedType();
  QualType Int = Ctx.IntTy;
  std::vector<Var *> Params;
  for (ParmVarDecl *P : E.Hessian->parameters())
    Params.push_back(F.makeVar(Var::Kind::Param, P->getName(), P->getType()));
  Var *H = Params.back();
  Var *K = F.makeVar(Var::Kind::Local, "k", Int);
  Var *J = F.makeVar(Var::Kind::Local, "j", Int);
  F.Locals = {K, J};
  // v and hv have each parameter's own element type (f_hvp takes a float*
  // for a float parameter of a long double function); H has f's type.
  struct Slot {
    Var *V, *HV;
    uint64_t Offset, Size;
    QualType Elem;
    /// A std::array parameter's type: f_hvp takes its v and hv as
    /// std::arrays, given here the plain arrays of the same elements.
    QualType Container;
  };
  std::vector<Slot> Slots;
  uint64_t N = 0;
  for (unsigned I = 0; I < Def->getNumParams(); ++I) {
    if (!E.Active[I])
      continue;
    const ParmVarDecl *P = Def->getParamDecl(I);
    uint64_t Size = flatSize(Ctx, P);
    QualType Own = P->getType().getNonReferenceType();
    bool Scalar = Size == 1 && Own->isRealFloatingType();
    bool StdArray = !Scalar && !containerElement(Own).isNull();
    QualType PT = Scalar     ? Own.getUnqualifiedType()
                  : StdArray ? containerElement(Own).getUnqualifiedType()
                             : Ctx.getBaseElementType(P->getOriginalType())
                                   .getUnqualifiedType();
    QualType VT = Scalar ? PT
                         : Ctx.getConstantArrayType(PT, llvm::APInt(64, Size),
                                                    nullptr,
                                                    ArraySizeModifier::Normal,
                                                    0);
    std::string Name = Params[I]->Name;
    Var *V = F.makeVar(Var::Kind::Local, "v_" + Name, VT);
    Var *HV = F.makeVar(Var::Kind::Local, "hv_" + Name, VT);
    V->ZeroInit = HV->ZeroInit = true;
    F.Locals.push_back(V);
    F.Locals.push_back(HV);
    Slots.push_back({V, HV, N, Size, PT,
                     StdArray ? Own.getUnqualifiedType() : QualType()});
    N += Size;
  }
  auto IntC = [&](int64_t X) { return ir::intConst(Int, X); };
  auto Loop = [&](Var *Counter, uint64_t Count, ir::Block Body) {
    return ir::countedLoop(Ctx, Counter, Count, std::move(Body));
  };
  auto Elem = [&](Var *A, ExprP Idx, QualType ET) -> ExprP {
    return A->isArray() ? ir::index(ir::ref(A), Idx, ET) : ir::ref(A);
  };
  ir::Block Row;
  llvm::SmallVector<ExprP, 8> Args;
  for (unsigned I = 0; I < Def->getNumParams(); ++I)
    Args.push_back(ir::ref(Params[I]));
  for (const Slot &Sl : Slots) {
    // v = (k == offset + j) ? 1 : 0; hv = 0
    ir::Block Init;
    ExprP Col = ir::binary(BO_Add, IntC(Sl.Offset), ir::ref(J), Int);
    QualType ET = Sl.Elem;
    Init.push_back(ir::assign(
        Elem(Sl.V, ir::ref(J), ET),
        ir::cond(ir::binary(BO_EQ, ir::ref(K), Col, Ctx.BoolTy),
                 ir::floatConst(ET, 1), ir::floatConst(ET, 0), ET)));
    Init.push_back(
        ir::assign(Elem(Sl.HV, ir::ref(J), ET), ir::floatConst(ET, 0)));
    for (StmtP &St : Loop(J, Sl.Size, std::move(Init)))
      Row.push_back(std::move(St));
    QualType VPtr = Ctx.getPointerType(
        Sl.Container.isNull() ? ET : Sl.Container.withConst());
    Args.push_back(Sl.V->isArray() ? ir::cast(VPtr, ir::ref(Sl.V))
                                   : ir::ref(Sl.V));
  }
  for (const Slot &Sl : Slots) {
    QualType HVPtr = Ctx.getPointerType(
        Sl.Container.isNull() ? Sl.Elem : Sl.Container);
    Args.push_back(Sl.HV->isArray()
                       ? ir::cast(HVPtr, ir::ref(Sl.HV))
                       : ir::addrOf(ir::ref(Sl.HV), HVPtr));
  }
  Row.push_back(ir::eval(ir::call(E.HVP, Args, Ctx.VoidTy)));
  for (const Slot &Sl : Slots) {
    // H[k * N + offset + j] = hv[j]
    ir::Block Copy;
    ExprP At = ir::binary(
        BO_Add, ir::binary(BO_Mul, ir::ref(K), IntC(N), Int),
        ir::binary(BO_Add, IntC(Sl.Offset), ir::ref(J), Int), Int);
    Copy.push_back(ir::assign(ir::index(ir::ref(H), At, T),
                              ir::cast(T, Elem(Sl.HV, ir::ref(J), Sl.Elem))));
    for (StmtP &St : Loop(J, Sl.Size, std::move(Copy)))
      Row.push_back(std::move(St));
  }
  EmitRequest R;
  R.Target = E.Hessian;
  R.Params = Params;
  R.Locals = F.Locals;
  R.Body = Loop(K, N, std::move(Row));
  emitAndPublish(R);
}

} // namespace fluxion
