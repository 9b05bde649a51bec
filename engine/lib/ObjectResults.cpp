//===- ObjectResults.cpp - Derivatives of functions returning objects -----===//
//
// A function returning an object of a class of reals, `Vec3 f(p...)`, is
// differentiated as its view `void f(Vec3 *result, p...)` (FunctionViews.h),
// whose result is an output like any pointer a function writes. The
// contract's functions (v2, "C++ types") take and return objects instead:
//
//   Vec3 f_vjp(p..., const Vec3 &seed, d_p...)   returns f(p...)
//   Vec3 f_jvp(p..., t_p...)                     returns the result's tangent
//
// so the view's pointer parameters become locals pointing to local objects
// (`result = &_result`), seeded from `seed` or returned.
//
//===----------------------------------------------------------------------===//
#include "AdjointBody.h"
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/Emitter.h"
#include "fluxion/engine/FunctionViews.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace fluxion {

using ir::ExprP;
using ir::ref;
using ir::StmtKind;
using ir::StmtP;
using ir::Var;

bool Differentiator::returnsObject(const FunctionDecl *FD) {
  QualType R = FD->getReturnType();
  if (R->isReferenceType() || R->isDependentType())
    return false;
  if (eigenShape(R) || !containerElement(R).isNull())
    return returnsFixedContainer(R) || returnsDynamicEigen(R);
  return isDifferentiableRecord(R);
}

/// The container whose storage Ptr is (a view's `T &result`, its
/// adjoint or tangent); null when Ptr points to an object.
static QualType containerOf(const Var *Ptr) {
  for (const Var *P = Ptr; P; P = P->Primal)
    if (P->Origin)
      return containerElement(P->Origin->getType()).isNull()
                 ? QualType()
                 : P->Origin->getType().getNonReferenceType()
                       .getUnqualifiedType();
  return QualType();
}

ir::Var *objectBehind(EmitRequest &R, ir::Function &F, Var *Ptr,
                      llvm::StringRef Name) {
  // A container's storage becomes the local container itself.
  if (!containerOf(Ptr).isNull()) {
    Ptr->K = Var::Kind::Local;
    Ptr->ZeroInit = true;
    R.Locals.push_back(Ptr);
    return Ptr;
  }
  QualType Obj = Ptr->Type->getPointeeType().getUnqualifiedType();
  Var *O = F.makeVar(Var::Kind::Local, Name, Obj);
  Ptr->K = Var::Kind::Local;
  R.Locals.push_back(O);
  R.Locals.push_back(Ptr);
  R.Body.insert(R.Body.begin(),
                ir::assign(ref(Ptr), ir::addrOf(ref(O), Ptr->Type)));
  return O;
}

/// Dst = Src for two objects of type T, or for the storage of two
/// containers of T, element by element (of a dynamic-size Eigen object:
/// Dst sized as Src first, then a loop; Locals gains its counter).
static StmtP copyObject(ASTContext &Ctx, ir::Function &F,
                        std::vector<Var *> &Locals, Var *Dst, Var *Src) {
  QualType C = containerOf(Dst);
  if (C.isNull())
    return ir::assign(ref(Dst), ref(Src));
  ir::Block Copies;
  QualType Elem = Dst->Type->getPointeeType().getUnqualifiedType();
  if (!containerFixedSize(C)) {
    QualType SizeTy = Ctx.getSizeType();
    std::optional<EigenShape> Shape = eigenShape(C);
    ExprP N = ir::sizeOf(ref(Src), SizeTy);
    Copies.push_back(ir::resize(
        ref(Dst), N, {},
        Shape && !Shape->isVector()
            ? ir::sizeOf(ref(Src), SizeTy, ir::Extent::Rows)
            : nullptr));
    Var *K = F.makeVar(Var::Kind::Local, "_k", SizeTy);
    Locals.push_back(K);
    Copies.push_back(ir::assign(ref(K), ir::intConst(SizeTy, 0)));
    auto L = std::make_unique<ir::Stmt>(StmtKind::Loop);
    L->TestFirst = true;
    L->V = K;
    L->Cond = ir::binary(BO_LT, ref(K), N, Ctx.BoolTy);
    L->body().push_back(ir::assign(ir::index(ref(Dst), ref(K), Elem),
                                   ir::index(ref(Src), ref(K), Elem)));
    // Emitted as it is (no pass folds an increment block in after here).
    L->body().push_back(ir::assign(
        ref(K), ir::add(ref(K), ir::intConst(SizeTy, 1), SizeTy)));
    Copies.push_back(std::move(L));
    return ir::block(std::move(Copies));
  }
  uint64_t N = containerFixedSize(C).value_or(0);
  for (uint64_t I = 0; I < N; ++I) {
    ExprP K = ir::intConst(Ctx.getSizeType(), int64_t(I));
    Copies.push_back(ir::assign(ir::index(ref(Dst), K, Elem),
                                ir::index(ref(Src), K, Elem)));
  }
  return ir::block(std::move(Copies));
}

void Differentiator::declareObjectVJP(UserEntry &E) {
  FunctionDecl *FD = E.Annotated;
  auto Params = reverseParams(FD, E.Active);
  QualType R = FD->getReturnType().getUnqualifiedType();
  Params.insert(Params.begin() + FD->getNumParams(),
                {"seed", Ctx.getLValueReferenceType(R.withConst())});
  E.VJP = declare(FD, FD->getNameAsString() + "_vjp", R, Params, false, true);
}

void Differentiator::defineObjectVJP(UserEntry &E, FunctionDecl *Def) {
  E.Defined = true;
  if (Def->isInvalidDecl() || Diags.clangReportedErrors())
    return;
  Current = Def;
  FunctionDecl *View = viewOf(Def);
  std::vector<bool> Active = {true}; // the result
  Active.insert(Active.end(), E.Active.begin(), E.Active.end());
  auto D = differentiate(View, Active, Ctx, Diags, *this, nullptr);
  Current = nullptr;
  if (!D) {
    explain(Def);
    return;
  }
  // D's parameters: result, p..., d_result, d_p...
  unsigned N = Def->getNumParams();
  Var *Result = D->ReverseParams[0];
  Var *DResult = D->ReverseParams[N + 1];
  ir::Function &F = *D->IR;
  EmitRequest R;
  R.Target = E.VJP;
  R.Locals = F.Locals;
  // A container's seed, and the value kept, are read as storage.
  QualType SeedTy = E.VJP->getParamDecl(N)->getType();
  bool Storage = !containerOf(Result).isNull();
  Var *Seed = F.makeVar(Var::Kind::Param, "seed",
                        Storage ? Ctx.getPointerType(Result->Type
                                                         ->getPointeeType()
                                                         .withConst())
                                : SeedTy);
  for (unsigned I = 0; I < D->ReverseParams.size(); ++I)
    if (I != 0 && I != N + 1)
      R.Params.push_back(D->ReverseParams[I]);
  R.Params.insert(R.Params.begin() + N, Seed);
  // The primal value is kept before the reverse sweep, which may give
  // the output's memory back as it was.
  Var *Value = F.makeVar(Var::Kind::Local, "_value",
                         Storage ? Result->Type
                                 : Def->getReturnType().getUnqualifiedType());
  Value->Origin = Storage ? Result->Origin : nullptr;
  R.Locals.push_back(Value);
  R.Body = std::move(D->Parts.Forward);
  Var *Obj = objectBehind(R, F, Result, "_result");
  Var *DObj = objectBehind(R, F, DResult, "_d_result");
  R.Body.insert(R.Body.begin() + (Storage ? 0 : 2),
                copyObject(Ctx, F, R.Locals, DObj, Seed));
  R.Body.push_back(copyObject(Ctx, F, R.Locals, Value, Obj));
  for (StmtP &St : D->Parts.Reverse)
    R.Body.push_back(std::move(St));
  auto Ret = std::make_unique<ir::Stmt>(StmtKind::Return);
  Ret->RHS = ref(Value);
  R.Body.push_back(std::move(Ret));
  emitAndPublish(R);
}

} // namespace fluxion
