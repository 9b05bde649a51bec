//===- Jacobian.cpp - Dense Jacobians from jvp or vjp sweeps ---------------===//
//
// f_jacobian(p..., J) fills J row-major: one row per output (the returned
// value first, then the elements of fixed-size output arrays and objects),
// one column per flattened differentiable input: a scalar, the elements of
// a fixed-size array, or the floating members of an object of reals (in
// declaration order, base classes first, arrays element by element). A list of names in the annotation
// picks the inputs (the columns); every output gives rows, named or not.
// With fewer inputs than outputs it runs one f_jvp per column (forward
// mode); otherwise one f_vjp per row (reverse mode), like JAX's jacfwd and
// jacrev.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/Emitter.h"
#include "fluxion/engine/FunctionViews.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::StmtKind;
using ir::StmtP;
using ir::Var;

namespace {
/// A differentiable parameter as f_jacobian sees it.
struct Part {
  unsigned Param;
  uint64_t Size;  ///< flattened elements
  bool Output;    ///< a non-const fixed-size array or object the function writes
  bool Scalar;
  /// An object of reals (or a fixed-size array of them): its floating
  /// members are the elements, each spelled out (objectScalars).
  QualType Object = {};
};
} // namespace

/// The type of P when it is an object of reals or a fixed-size array of
/// them (by value, by reference or as an array parameter); null otherwise.
static QualType objectType(ASTContext &Ctx, const ParmVarDecl *P) {
  QualType T = P->getOriginalType().getNonReferenceType();
  if (T->isDependentType() || !Ctx.getBaseElementType(T)->isRecordType() ||
      (T->isArrayType() && !Ctx.getAsConstantArrayType(T)))
    return {};
  Qualifiers Quals; // (of the elements of an array: `const S x[2]`)
  return Ctx.getUnqualifiedArrayType(T, Quals);
}

/// The floating scalars of an object of type Object, as lvalues reached
/// from Base, in member order.
static llvm::SmallVector<ExprP, 16>
objectScalars(ASTContext &Ctx, ExprP Base, QualType Object) {
  llvm::SmallVector<ExprP, 16> Out;
  forEachScalar(Ctx, std::move(Base), nullptr, Object,
                [&](ExprP D, ExprP, QualType T) {
                  if (T->isRealFloatingType())
                    Out.push_back(std::move(D));
                });
  return Out;
}

/// The floating type of a scalar parameter, of a fixed-size array's
/// elements, or of an object's first floating member.
static QualType elementType(ASTContext &Ctx, const ParmVarDecl *P) {
  if (QualType O = objectType(Ctx, P); !O.isNull()) {
    auto Scalars = objectScalars(Ctx, ir::intConst(Ctx.IntTy, 0), O);
    return Scalars.empty() ? Ctx.DoubleTy
                           : Scalars.front()->Ty.getUnqualifiedType();
  }
  if (const auto *AT = Ctx.getAsConstantArrayType(P->getOriginalType()))
    return Ctx.getBaseElementType(AT).getUnqualifiedType();
  return P->getType().getNonReferenceType().getUnqualifiedType();
}

/// The rows and columns of E's Jacobian. Before FD has a body, a non-const
/// fixed-size array counts as an output; with the body (Def), only if the
/// function writes it: one it only reads is an input (C code often leaves
/// out the const), and one it only reads that the annotation does not name
/// is neither.
static bool jacobianParts(ASTContext &Ctx, FunctionDecl *FD,
                          const std::vector<bool> &Active,
                          const std::vector<bool> &Named,
                          std::vector<Part> &Parts,
                          const FunctionDecl *Def = nullptr) {
  // Whether P, written through, is an output: false when the body shows it
  // only read; Skip when it is then no input either (not named).
  auto IsOutput = [&](const ParmVarDecl *P, unsigned I, bool &Skip) {
    bool Output = isFixedSizeOutput(Ctx, P);
    if (Output && Def && !paramMemoryUse(Def, I).Written) {
      Output = false;
      Skip = !Named[I];
    }
    return Output;
  };
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    if (!Active[I])
      continue;
    const ParmVarDecl *P = FD->getParamDecl(I);
    bool Skip = false;
    QualType T = P->getType();
    // An object of reals: `const Camera &`, `Camera` by value, `Vec2 &` (an
    // output when written), `Vec2 e[2]`. One holding a pointer has no
    // fixed number of elements.
    if (QualType O = objectType(Ctx, P); !O.isNull()) {
      QualType Elem = Ctx.getBaseElementType(O);
      if (!isDifferentiableRecord(Elem) || pointsToReals(Elem))
        return false;
      bool Output = IsOutput(P, I, Skip);
      if (Skip)
        continue;
      uint64_t N = objectScalars(Ctx, ir::intConst(Ctx.IntTy, 0), O).size();
      // A dynamic-size Eigen object has no fixed number of elements (and
      // no scalars here): it has no place in J.
      if (N == 0 || (eigenShape(Elem) && !containerFixedSize(Elem)))
        return false;
      Parts.push_back({I, N, Output, false, O});
      continue;
    }
    // A scalar input: by value or const T& (a non-const T& is not a row).
    // In a function template, `T` or `const T&` may be one: the instance
    // is checked again when it is differentiated.
    bool Template = T->isDependentType();
    QualType V = T.getNonReferenceType();
    if ((V->isRealFloatingType() ||
         (Template && !V->isPointerType() && !V->isArrayType())) &&
        (!T->isReferenceType() || V.isConstQualified())) {
      Parts.push_back({I, 1, false, true});
      continue;
    }
    // T x[N] of a template: its size is the instance's.
    if (Template && P->getOriginalType()->isArrayType()) {
      QualType E = P->getOriginalType()->getAsArrayTypeUnsafe()->getElementType();
      Parts.push_back({I, 1, !E.isConstQualified(), false});
      continue;
    }
    const auto *AT = Ctx.getAsConstantArrayType(P->getOriginalType());
    if (!AT || !AT->getElementType()->isRealFloatingType())
      return false;
    bool Output = IsOutput(P, I, Skip);
    if (Skip)
      continue;
    Parts.push_back({I, AT->getSize().getZExtValue(), Output, false});
  }
  return true;
}

bool Differentiator::checkJacobianParts(UserEntry &E, FunctionDecl *Def) {
  // An array counted as an output when f_jacobian was declared that f
  // never writes is an input; one the annotation does not name has no
  // place in J (its width is the named inputs'), but the sweeps were
  // declared with it: say so rather than guess.
  for (unsigned I = 0; I < Def->getNumParams(); ++I) {
    const ParmVarDecl *P = Def->getParamDecl(I);
    if (!E.Active[I] || E.Named[I] || !isFixedSizeOutput(Ctx, P) ||
        paramMemoryUse(Def, I).Written)
      continue;
    Diags.report(E.Loc, Diag::NotDifferentiable)
        << Def
        << ("'" + P->getName() + "' is a non-const " +
            (P->getOriginalType()->isReferenceType() ? "reference"
                                                     : "array") +
            " that the function only reads, and the "
            "annotation does not name it; declare it 'const' (then it is "
            "left out like any unnamed input) or name it (then its "
            "elements are columns)")
               .str();
    return false;
  }
  std::vector<Part> Parts;
  jacobianParts(Ctx, Def, E.Active, E.Named, Parts, Def);
  uint64_t Rows = hasSeed(Def) ? 1 : 0, Cols = 0;
  // An array the function writes is an output; its entry values are held
  // fixed (they are not columns), as documented for in-place updates.
  for (const Part &P : Parts)
    (P.Output ? Rows : Cols) += P.Size;
  if (Rows == 0 || Cols == 0) {
    Diags.report(E.Loc, Diag::NotDifferentiable)
        << Def << "it has no outputs or no inputs to differentiate";
    return false;
  }
  return true;
}

bool Differentiator::checkRerunState(UserEntry &E, FunctionDecl *Def,
                                     StringRef Runs, bool Forward) {
  auto Refuse = [&](const std::string &What) {
    Diags.report(E.Loc, Diag::NotDifferentiable)
        << Def
        << (Runs.str() + ", and " + What +
            ", which each run would find changed by the one before; keep "
            "that state out of the function (pass it as a const input and "
            "return or write its new value), or call f_jvp, f_vjp or f_hvp "
            "yourself, restoring the state between calls");
    return false;
  };
  const auto *Method = dyn_cast<CXXMethodDecl>(Def);
  if (Method && !Method->isStatic() && !Method->isConst()) {
    ParamMemoryUse Self = paramMemoryUse(viewOf(Method), 0);
    if (Self.Read && Self.Written)
      return Refuse("it changes members of its object that it reads");
  }
  for (unsigned I = 0; I < Def->getNumParams(); ++I) {
    const ParmVarDecl *P = Def->getParamDecl(I);
    QualType T = P->getType();
    if (!(T->isPointerType() || T->isReferenceType()) ||
        T->getPointeeType().isConstQualified() ||
        (E.Active[I] && isFixedSizeOutput(Ctx, P)))
      continue;
    // A reverse sweep gives back the real numbers it reads (scratch
    // memory, `work[0] = ...; y = work[0] * x`); f_jvp gives back nothing,
    // and neither gives back counters.
    if (!Forward && T->getPointeeType()->isRealFloatingType())
      continue;
    ParamMemoryUse Use = paramMemoryUse(Def, I);
    if (Use.Read && Use.Written)
      return Refuse("it changes what parameter '" + P->getNameAsString() +
                    "' refers to and reads it");
  }
  return true;
}

/// What both ways of building f_jacobian start from: its parameters (J
/// last), J's element type, and the row and element counters k and i.
struct Frame {
  Frame(ASTContext &Ctx, FunctionDecl *Jacobian) {
    for (ParmVarDecl *P : Jacobian->parameters())
      Params.push_back(F.makeVar(Var::Kind::Param, P->getName(), P->getType()));
    J = Params.back();
    T = J->Type->getPointeeType();
    K = F.makeVar(Var::Kind::Local, "k", Ctx.IntTy);
    I = F.makeVar(Var::Kind::Local, "i", Ctx.IntTy);
    F.Locals = {K, I};
  }
  ir::Function F;
  std::vector<Var *> Params;
  Var *J, *K, *I;
  QualType T;
};

bool Differentiator::declareJacobian(UserEntry &E, const Annotation &A) {
  FunctionDecl *FD = E.Annotated;
  std::vector<Part> Parts;
  if (!jacobianParts(Ctx, FD, E.Active, E.Named, Parts)) {
    Diags.report(A.Loc, Diag::NotDifferentiable)
        << FD
        << "a dense Jacobian needs scalar, fixed-size array and object "
           "parameters (T x[N], const S &s; outputs T y[N], S &out); use "
           "f_jvp or f_vjp for pointers, containers, dynamic-size Eigen "
           "objects and non-const scalar references";
    return false;
  }
  uint64_t Rows = hasSeed(FD) ? 1 : 0, Cols = 0;
  bool MayBeInputs = false;
  for (const Part &P : Parts) {
    (P.Output ? Rows : Cols) += P.Size;
    MayBeInputs |= P.Output;
  }
  // Arrays counted as outputs here may turn out to be inputs once the body
  // is known (checkJacobianParts decides then).
  if (Rows == 0 || (Cols == 0 && !MayBeInputs)) {
    Diags.report(A.Loc, Diag::NotDifferentiable)
        << FD << "it has no outputs or no inputs to differentiate";
    return false;
  }
  std::vector<std::pair<std::string, QualType>> Ps;
  for (ParmVarDecl *P : FD->parameters())
    Ps.push_back({P->getName().empty() ? std::string("_p")
                                       : P->getNameAsString(),
                  P->getType()});
  QualType T = hasSeed(FD) ? FD->getReturnType().getUnqualifiedType()
                           : Ctx.DoubleTy;
  for (const Part &P : Parts)
    if (!P.Object.isNull())
      T = elementType(Ctx, FD->getParamDecl(P.Param));
    else if (!P.Scalar)
      T = Ctx.getBaseElementType(
          FD->getParamDecl(P.Param)->getOriginalType()).getUnqualifiedType();
  Ps.push_back({"J", Ctx.getPointerType(T)});
  E.Jacobian = declare(FD, FD->getNameAsString() + "_jacobian", Ctx.VoidTy, Ps,
                       false, true);
  // The sweeps it is built from.
  E.Forward = Cols <= Rows;
  Annotation Base = A;
  Base.K = E.Forward ? Annotation::Kind::Jvp : Annotation::Kind::Grad;
  Base.OutputsAlwaysActive = true; // the same parameters as E.Active
  Base.ForJacobian = true;
  annotate(FD, Base);
  // Another annotation of FD may have declared that sweep for other
  // parameters first (annotate reported it).
  UserEntry *Sweep = findUser(FD, Base.K);
  return Sweep && Sweep->Active == E.Active;
}

/// The split pair f's reverse-mode rows run: its forward sweep records once,
/// its backward function restores f's outputs.
Differentiator::SplitEntry &Differentiator::jacobianPair(UserEntry &E,
                                                         FunctionDecl *Def) {
  bool All = true;
  for (unsigned P = 0; P < Def->getNumParams(); ++P)
    All &= !isDifferentiableType(Def->getParamDecl(P)->getType()) ||
           E.Active[P];
  return splitPair(Def, E.Active, All, /*RestoreMemory=*/true,
                   Def->getLocation(), Def);
}

void Differentiator::defineJacobian(UserEntry &E, FunctionDecl *Def) {
  E.Defined = true;
  if (Def->isInvalidDecl() || Diags.clangReportedErrors())
    return;
  UserEntry *Sweep = findUser(
      Def, E.Forward ? Annotation::Kind::Jvp : Annotation::Kind::Grad);
  if (!Sweep)
    return;
  FunctionDecl *Callee = E.Forward ? Sweep->JVP : Sweep->VJP;
  if (!checkJacobianParts(E, Def))
    return;
  std::vector<Part> Parts;
  jacobianParts(Ctx, Def, E.Active, E.Named, Parts, Def);
  Frame Fr(Ctx, E.Jacobian);
  ir::Function &F = Fr.F;
  std::vector<Var *> &Params = Fr.Params;
  Var *J = Fr.J, *K = Fr.K, *I = Fr.I;
  QualType T = Fr.T;
  QualType Int = Ctx.IntTy;
  auto IntC = [&](int64_t X) { return ir::intConst(Int, X); };
  auto Loop = [&](Var *Counter, uint64_t Count, ir::Block Body) {
    return ir::countedLoop(Ctx, Counter, Count, std::move(Body));
  };
  // Reverse mode: one forward sweep, and one reverse sweep per row over its
  // tape (rewound between rows), instead of a whole f_vjp per row; the
  // outputs end with the values f computed. Not when something checkpoints:
  // a checkpoint's reverse sweep pushes again, over what the next row
  // needs, nor when f writes memory other than fixed-size outputs. Then
  // each row is an f_vjp, which gives that memory its entry values back,
  // and f runs once more at the end for its outputs.
  // (A method's rows are whole f_vjp calls on the object: its split pair
  // is a function of the object, which f_jacobian does not hand over.)
  const auto *Method = dyn_cast<CXXMethodDecl>(Def);
  bool Replay = !E.Forward && !usesCheckpointing(Def) &&
                (!Method || Method->isStatic());
  // Memory f writes must be put back before each row: only fixed-size
  // outputs can be (a pointer of unknown length, such as scratch space,
  // cannot).
  for (unsigned P = 0; P < Def->getNumParams(); ++P) {
    QualType PT = Def->getParamDecl(P)->getType();
    if (PT->isPointerType() && !PT->getPointeeType().isConstQualified() &&
        !(E.Active[P] && isFixedSizeOutput(Ctx, Def->getParamDecl(P))))
      Replay = false;
  }
  // Columns (f_jvp) and whole-f_vjp rows run f again each: state f reads
  // and changes would differ from run to run.
  uint64_t Runs = E.Forward ? 0 : (hasSeed(Def) ? 1 : 0);
  for (const Part &P : Parts)
    Runs += P.Output == !E.Forward ? P.Size : 0;
  if ((E.Forward || !Replay) && Runs > 1 &&
      !checkRerunState(E, Def,
                       E.Forward ? "f_jacobian runs it once per column"
                                 : "f_jacobian runs it once per row",
                       E.Forward))
    return;
  // Rows or columns that call the sweep itself need its definition; the
  // replayed and lanes rows run the split pair instead.
  if (E.Forward || !Replay)
    Sweep->NeededByJacobian = true;
  if (Replay && !E.Forward) {
    uint64_t Rows = hasSeed(Def) ? 1 : 0;
    for (const Part &P : Parts)
      Rows += P.Output ? P.Size : 0;
    // Lanes of an Eigen object's adjoint would be indexed past the first
    // object by its operator(): those rows replay instead.
    bool EigenParts = llvm::any_of(Parts, [&](const Part &P) {
      return eigenShape(Def->getParamDecl(P.Param)->getType()
                            .getNonReferenceType())
          .has_value();
    });
    if (Rows > 1 && Rows <= MaxLanes && !EigenParts && lanesPossible(Def)) {
      defineJacobianLanes(E, Def, Rows);
      return;
    }
  }
  FunctionDecl *Rewind = nullptr;
  Var *Position = nullptr;
  ir::Block Pre, Post;
  // An output, and a local holding its final values.
  struct EndValue {
    const Part *P;
    Var *Out, *End;
  };
  std::vector<EndValue> EndValues;
  // Copies part P's elements between a parameter and a local.
  auto Copy = [&](const Part &P, Var *To, Var *From) {
    ir::Block B;
    if (!P.Object.isNull()) {
      auto Ds = objectScalars(Ctx, ir::ref(To), P.Object);
      auto Ss = objectScalars(Ctx, ir::ref(From), P.Object);
      for (size_t X = 0; X < Ds.size(); ++X)
        B.push_back(ir::assign(Ds[X], Ss[X]));
      return B;
    }
    B.push_back(ir::assign(ir::index(ir::ref(To), ir::ref(I), T),
                           ir::index(ir::ref(From), ir::ref(I), T)));
    uint64_t N = Ctx.getAsConstantArrayType(From->isArray() ? From->Type
                                                            : To->Type)
                     ->getSize()
                     .getZExtValue();
    return Loop(I, N, std::move(B));
  };
  if (Replay) {
    FunctionDecl *Current =
        runtimeFunction("tape_position", {}, Def->getLocation());
    if (!Current)
      return;
    Position = F.makeVar(Var::Kind::Local, "tapes", Current->getReturnType());
    F.Locals.push_back(Position);
    QualType PosPtr = Ctx.getPointerType(Position->Type);
    FunctionDecl *Where =
        runtimeFunction("tape_position", {PosPtr}, Def->getLocation());
    if (!Where)
      return;
    Rewind = runtimeFunction("tape_rewind", {Position->Type},
                             Def->getLocation());
    if (!Rewind)
      return;
    SplitEntry &Pair = jacobianPair(E, Def);
    Callee = Pair.Bwd;
    llvm::SmallVector<ExprP, 8> FwdArgs;
    for (unsigned P = 0; P < Def->getNumParams(); ++P)
      FwdArgs.push_back(ir::ref(Params[P]));
    Pre.push_back(ir::eval(ir::call(Pair.Fwd, FwdArgs, Def->getReturnType())));
    Pre.push_back(ir::eval(ir::call(
        Where, {ir::addrOf(ir::ref(Position), PosPtr)}, Ctx.VoidTy)));
    for (const Part &P : Parts) {
      if (!P.Output)
        continue;
      Var *Out = Params[P.Param];
      Var *End = F.makeVar(
          Var::Kind::Local, "end_" + Out->Name,
          !P.Object.isNull()
              ? P.Object
              : Ctx.getConstantArrayType(T, llvm::APInt(64, P.Size), nullptr,
                                         ArraySizeModifier::Normal, 0));
      F.Locals.push_back(End);
      EndValues.push_back({&P, Out, End});
      for (StmtP &St : Copy(P, End, Out))
        Pre.push_back(std::move(St));
      // Afterwards the outputs hold what f computed.
      for (StmtP &St : Copy(P, Out, End))
        Post.push_back(std::move(St));
    }
  }
  // One seed buffer per differentiable parameter (tangent or adjoint).
  struct Slot {
    Part P;
    Var *Buf;
    uint64_t Offset; ///< among inputs (columns) or outputs (rows)
  };
  std::vector<Slot> Slots;
  uint64_t Rows = hasSeed(Def) ? 1 : 0, Cols = 0;
  for (const Part &P : Parts) {
    uint64_t &Counter = P.Output ? Rows : Cols;
    // In reverse mode an input's adjoints are its part of row k of J: the
    // reverse sweep adds into J itself (no buffer, no copy).
    QualType PT = elementType(Ctx, Def->getParamDecl(P.Param));
    if (!E.Forward && !P.Output && P.Object.isNull() &&
        Ctx.hasSameUnqualifiedType(PT, T)) {
      Slots.push_back({P, nullptr, Counter});
      Counter += P.Size;
      continue;
    }
    // Of the parameter's own element type (a float input of a double J):
    // converted when copied into J.
    // An object's are an object of its type.
    QualType BT = !P.Object.isNull() ? P.Object
                  : P.Scalar
                      ? PT
                      : Ctx.getConstantArrayType(PT, llvm::APInt(64, P.Size),
                                                 nullptr,
                                                 ArraySizeModifier::Normal, 0);
    Var *Buf = F.makeVar(Var::Kind::Local,
                         (E.Forward ? "t_" : "d_") + Params[P.Param]->Name, BT);
    Buf->ZeroInit = true;
    F.Locals.push_back(Buf);
    Slots.push_back({P, Buf, Counter});
    Counter += P.Size;
  }
  // Element I of an input's adjoints in row k of J.
  auto InJ = [&](const Slot &S, ExprP Idx) -> ExprP {
    ExprP At = ir::binary(BO_Mul, ir::ref(K), IntC(Cols), Int);
    At = ir::binary(BO_Add, At, IntC(S.Offset), Int);
    return Idx ? ir::binary(BO_Add, At, Idx, Int) : At;
  };
  Var *Result = nullptr;
  if (hasSeed(Def)) {
    Result = F.makeVar(Var::Kind::Local, E.Forward ? "t_ret" : "seed", T);
    Result->ZeroInit = true;
    F.Locals.push_back(Result);
  }
  auto Elem = [&](const Slot &S, ExprP Idx) -> ExprP {
    if (!S.Buf)
      return ir::index(ir::ref(J), InJ(S, S.P.Scalar ? nullptr : Idx), T);
    return S.P.Scalar ? ir::ref(S.Buf)
                      : ir::index(ir::ref(S.Buf), Idx,
                                  Ctx.getAsArrayType(S.Buf->Type)
                                      ->getElementType());
  };
  // Body(element, its index in the part) for each element of slot S: a
  // loop over an array, one statement per member of an object.
  auto EachElem = [&](const Slot &S,
                      llvm::function_ref<StmtP(ExprP, ExprP)> Body) {
    ir::Block B;
    if (!S.P.Object.isNull()) {
      int64_t X = 0;
      for (ExprP El : objectScalars(Ctx, ir::ref(S.Buf), S.P.Object))
        B.push_back(Body(El, IntC(X++)));
      return B;
    }
    B.push_back(Body(Elem(S, ir::ref(I)), ir::ref(I)));
    return Loop(I, S.P.Size, std::move(B));
  };
  // Seeds the unit vector k into the slots on the "Seeded" side (inputs in
  // forward mode, outputs in reverse mode) and clears the others.
  ir::Block Body;
  for (const Slot &S : Slots) {
    bool Seeded = S.P.Output != E.Forward;
    auto Init = [&](ExprP El, ExprP Idx) {
      ExprP Value = ir::floatConst(T, 0);
      if (Seeded)
        Value = ir::cond(
            ir::binary(BO_EQ, ir::ref(K),
                       ir::binary(BO_Add, IntC(S.Offset), Idx, Int),
                       Ctx.BoolTy),
            ir::floatConst(T, 1), ir::floatConst(T, 0), T);
      return ir::assign(El, Value);
    };
    for (StmtP &St : EachElem(S, Init))
      Body.push_back(std::move(St));
  }
  llvm::SmallVector<ExprP, 8> Args;
  for (unsigned P = 0; P < Def->getNumParams(); ++P)
    Args.push_back(ir::ref(Params[P]));
  auto BufArg = [&](const Slot &S, bool ByValue) -> ExprP {
    if (!S.Buf)
      return ir::binary(BO_Add, ir::ref(J), InJ(S, nullptr),
                        Ctx.getPointerType(T));
    if (S.Buf->Type->isRecordType())
      return ir::addrOf(ir::ref(S.Buf), Ctx.getPointerType(S.Buf->Type));
    if (!S.P.Scalar)
      return ir::cast(Ctx.getPointerType(Ctx.getAsArrayType(S.Buf->Type)
                                             ->getElementType()),
                      ir::ref(S.Buf));
    return ByValue ? ir::ref(S.Buf)
                   : ir::addrOf(ir::ref(S.Buf), Ctx.getPointerType(T));
  };
  if (E.Forward) {
    for (const Slot &S : Slots)
      Args.push_back(BufArg(S, /*ByValue=*/S.P.Scalar));
    ExprP Call = ir::call(Callee, Args, Callee->getReturnType());
    if (Result)
      Body.push_back(ir::assign(ir::ref(Result), Call));
    else
      Body.push_back(ir::eval(Call));
    // Column k: J[row * Cols + k].
    auto At = [&](ExprP Row) {
      return ir::index(ir::ref(J),
                       ir::binary(BO_Add, ir::binary(BO_Mul, Row, IntC(Cols), Int),
                                  ir::ref(K), Int),
                       T);
    };
    if (Result)
      Body.push_back(ir::assign(At(IntC(0)), ir::ref(Result)));
    for (const Slot &S : Slots) {
      if (!S.P.Output)
        continue;
      auto ToJ = [&](ExprP El, ExprP Idx) {
        return ir::assign(At(ir::binary(BO_Add, IntC(S.Offset), Idx, Int)),
                          El);
      };
      for (StmtP &St : EachElem(S, ToJ))
        Body.push_back(std::move(St));
    }
  } else {
    if (Replay) {
      // Row k runs the reverse sweep again over the one forward sweep: the
      // tapes and the outputs go back to where that sweep left them.
      Body.push_back(ir::eval(ir::call(Rewind, {ir::ref(Position)},
                                       Ctx.VoidTy)));
      for (const EndValue &V : EndValues)
        for (StmtP &St : Copy(*V.P, V.Out, V.End))
          Body.push_back(std::move(St));
    }
    if (!Replay && llvm::any_of(Parts, [](const Part &P) { return P.Output; }))
      Post.push_back(ir::eval(ir::call(Def, Args, Def->getReturnType())));
    // Row k: seed the return value (k == 0) or an output element.
    if (Result) {
      Body.push_back(ir::assign(
          ir::ref(Result),
          ir::cond(ir::binary(BO_EQ, ir::ref(K), IntC(0), Ctx.BoolTy),
                   ir::floatConst(T, 1), ir::floatConst(T, 0), T)));
      Args.push_back(ir::ref(Result));
    }
    for (const Slot &S : Slots)
      Args.push_back(BufArg(S, false));
    Body.push_back(ir::eval(ir::call(Callee, Args, Callee->getReturnType())));
    for (const Slot &S : Slots) {
      if (S.P.Output || !S.Buf)
        continue;
      auto ToJ = [&](ExprP El, ExprP Idx) {
        ExprP At = ir::binary(
            BO_Add, ir::binary(BO_Mul, ir::ref(K), IntC(Cols), Int),
            ir::binary(BO_Add, IntC(S.Offset), Idx, Int), Int);
        return ir::assign(ir::index(ir::ref(J), At, T), El);
      };
      for (StmtP &St : EachElem(S, ToJ))
        Body.push_back(std::move(St));
    }
  }
  // One f_jvp per column runs f once per column: an output that f updates
  // in place (reads before writing) must start each run from its values on
  // entry. (f_vjp restores such outputs itself.)
  if (E.Forward && Cols > 1) {
    ir::Block Restore;
    for (const Slot &S : Slots) {
      if (!S.P.Output)
        continue;
      Var *Out = Params[S.P.Param];
      Var *Entry = F.makeVar(Var::Kind::Local, "entry_" + Out->Name,
                             S.Buf->Type);
      F.Locals.push_back(Entry);
      for (StmtP &St : Copy(S.P, Entry, Out))
        Pre.push_back(std::move(St));
      for (StmtP &St : Copy(S.P, Out, Entry))
        Restore.push_back(std::move(St));
    }
    for (StmtP &St : Body)
      Restore.push_back(std::move(St));
    Body = std::move(Restore);
  }
  EmitRequest R;
  R.Target = E.Jacobian;
  R.Params = Params;
  R.Locals = F.Locals;
  R.Body = std::move(Pre);
  for (StmtP &St : Loop(K, E.Forward ? Cols : Rows, std::move(Body)))
    R.Body.push_back(std::move(St));
  for (StmtP &St : Post)
    R.Body.push_back(std::move(St));
  emitAndPublish(R);
}

/// Reverse mode with every row in one reverse sweep: f_fwd records once,
/// and the lanes version of f_bwd runs one seed per row (LaneExpansion.h).
/// Row k's adjoints of an input go straight into J, lane stride Cols.
void Differentiator::defineJacobianLanes(UserEntry &E, FunctionDecl *Def,
                                         uint64_t Rows) {
  std::vector<Part> Parts;
  jacobianParts(Ctx, Def, E.Active, E.Named, Parts, Def);
  Frame Fr(Ctx, E.Jacobian);
  ir::Function &F = Fr.F;
  std::vector<Var *> &Params = Fr.Params;
  Var *J = Fr.J, *K = Fr.K, *I = Fr.I;
  QualType T = Fr.T;
  QualType Int = Ctx.IntTy;
  auto IntC = [&](int64_t X) { return ir::intConst(Int, X); };
  auto LongC = [&](int64_t X) { return ir::intConst(Ctx.LongTy, X); };
  auto Loop = [&](Var *Counter, uint64_t Count, ir::Block Body) {
    return ir::countedLoop(Ctx, Counter, Count, std::move(Body));
  };
  auto Array = [&](uint64_t N) {
    return Ctx.getConstantArrayType(T, llvm::APInt(64, N), nullptr,
                                    ArraySizeModifier::Normal, 0);
  };
  auto Append = [](ir::Block &To, ir::Block From) {
    for (StmtP &St : From)
      To.push_back(std::move(St));
  };
  SplitEntry &Pair = jacobianPair(E, Def);
  llvm::SmallVector<LaneArg, 8> Kinds;
  SourceLocation SavedLoc = LanesLoc;
  LanesLoc = E.Loc;
  FunctionDecl *Lanes = lanesOf(Pair.Bwd, Rows, Kinds);
  LanesLoc = SavedLoc;

  ir::Block Body;
  llvm::SmallVector<ExprP, 8> FwdArgs;
  for (unsigned P = 0; P < Def->getNumParams(); ++P)
    FwdArgs.push_back(ir::ref(Params[P]));
  Body.push_back(ir::eval(ir::call(Pair.Fwd, FwdArgs, Def->getReturnType())));
  // The reverse sweep gives the outputs back as they were on entry: keep
  // what f computed, and put it back at the end.
  ir::Block Post;
  for (const Part &P : Parts) {
    if (!P.Output)
      continue;
    Var *Out = Params[P.Param];
    Var *End = F.makeVar(Var::Kind::Local, "end_" + Out->Name,
                         P.Object.isNull() ? Array(P.Size) : P.Object);
    F.Locals.push_back(End);
    if (!P.Object.isNull()) {
      auto Outs = objectScalars(Ctx, ir::ref(Out), P.Object);
      auto Ends = objectScalars(Ctx, ir::ref(End), P.Object);
      for (size_t X = 0; X < Outs.size(); ++X) {
        Body.push_back(ir::assign(Ends[X], Outs[X]));
        Post.push_back(ir::assign(Outs[X], Ends[X]));
      }
      continue;
    }
    ir::Block Save, Restore;
    Save.push_back(ir::assign(ir::index(ir::ref(End), ir::ref(I), T),
                              ir::index(ir::ref(Out), ir::ref(I), T)));
    Restore.push_back(ir::assign(ir::index(ir::ref(Out), ir::ref(I), T),
                                 ir::index(ir::ref(End), ir::ref(I), T)));
    Append(Body, Loop(I, P.Size, std::move(Save)));
    Append(Post, Loop(I, P.Size, std::move(Restore)));
  }
  // Seeds, one lane per row k: the return value is row 0, then the
  // outputs' elements. Inputs' adjoints start at zero.
  llvm::SmallVector<ExprP, 12> Args(FwdArgs.begin(), FwdArgs.end());
  ir::Block Seed, CopyOut;
  auto IsRow = [&](ExprP Row) {
    return ir::cond(ir::binary(BO_EQ, ir::ref(K), Row, Ctx.BoolTy),
                    ir::floatConst(T, 1), ir::floatConst(T, 0), T);
  };
  // Lane k of element i of a buffer of Size elements per lane.
  auto InBuf = [&](Var *Buf, uint64_t Size) {
    return ir::index(ir::ref(Buf),
                     ir::add(ir::binary(BO_Mul, ir::ref(K), IntC(Size), Int),
                             ir::ref(I), Int),
                     Ctx.getAsArrayType(Buf->Type)->getElementType());
  };
  // Row k, column Offset + i of J.
  auto InJ = [&](uint64_t Cols, uint64_t Offset) {
    return ir::index(
        ir::ref(J),
        ir::add(ir::binary(BO_Mul, ir::ref(K), IntC(Cols), Int),
                ir::add(IntC(Offset), ir::ref(I), Int), Int),
        T);
  };
  uint64_t Cols = 0;
  for (const Part &P : Parts)
    Cols += P.Output ? 0 : P.Size;
  if (hasSeed(Def)) {
    // Of the result's type, which J's need not be (a float f with long
    // double output arrays).
    QualType RT = Def->getReturnType().getUnqualifiedType();
    Var *Seeds = F.makeVar(
        Var::Kind::Local, "seed",
        Ctx.getConstantArrayType(RT, llvm::APInt(64, Rows), nullptr,
                                 ArraySizeModifier::Normal, 0));
    F.Locals.push_back(Seeds);
    Seed.push_back(ir::assign(ir::index(ir::ref(Seeds), ir::ref(K), RT),
                              ir::cast(RT, IsRow(IntC(0)))));
    Args.push_back(ir::ref(Seeds));
  }
  uint64_t Row = hasSeed(Def) ? 1 : 0, Col = 0;
  for (const Part &P : Parts) {
    QualType PT = elementType(Ctx, Def->getParamDecl(P.Param));
    if (!P.Object.isNull()) {
      // One object (or array of them) per lane, the lanes sizeof apart:
      // lane k's members are row k's seeds (an output) or its part of J
      // (an input).
      QualType Elem = Ctx.getBaseElementType(P.Object);
      uint64_t Count = 1;
      if (const auto *AT = Ctx.getAsConstantArrayType(P.Object))
        Count = Ctx.getConstantArrayElementCount(AT);
      Var *Buf = F.makeVar(Var::Kind::Local, "d_" + Params[P.Param]->Name,
                           Ctx.getConstantArrayType(
                               Elem, llvm::APInt(64, Count * Rows), nullptr,
                               ArraySizeModifier::Normal, 0));
      F.Locals.push_back(Buf);
      llvm::SmallVector<ExprP, 16> Scalars; // lane k's
      for (uint64_t N = 0; N < Count; ++N)
        for (ExprP &S : objectScalars(
                 Ctx,
                 ir::index(ir::ref(Buf),
                           Count == 1
                               ? ir::ref(K)
                               : ir::add(ir::binary(BO_Mul, ir::ref(K),
                                                    IntC(Count), Int),
                                         IntC(N), Int),
                           Elem),
                 Elem))
          Scalars.push_back(std::move(S));
      uint64_t &At = P.Output ? Row : Col;
      for (size_t X = 0; X < Scalars.size(); ++X) {
        QualType ST = Scalars[X]->Ty;
        Seed.push_back(ir::assign(
            Scalars[X], P.Output ? ir::cast(ST, IsRow(IntC(At + X)))
                                 : ir::floatConst(ST, 0)));
        if (!P.Output)
          CopyOut.push_back(ir::assign(
              ir::index(ir::ref(J),
                        ir::add(ir::binary(BO_Mul, ir::ref(K), IntC(Cols),
                                           Int),
                                IntC(At + X), Int),
                        T),
              Scalars[X]));
      }
      Args.push_back(ir::ref(Buf));
      Args.push_back(LongC(Count * Ctx.getTypeSizeInChars(Elem).getQuantity()));
      At += P.Size;
      continue;
    }
    ir::Block Init;
    if (!P.Output && Ctx.hasSameUnqualifiedType(PT, T)) {
      // Straight into J.
      Init.push_back(ir::assign(InJ(Cols, Col), ir::floatConst(T, 0)));
      Args.push_back(ir::binary(BO_Add, ir::ref(J), IntC(Col),
                                Ctx.getPointerType(T)));
      Args.push_back(LongC(Cols));
    } else {
      // Of the parameter's own element type (a float input's adjoints in
      // a double J): converted when copied into J.
      Var *Buf = F.makeVar(Var::Kind::Local, "d_" + Params[P.Param]->Name,
                           Ctx.getConstantArrayType(
                               PT, llvm::APInt(64, P.Size * Rows), nullptr,
                               ArraySizeModifier::Normal, 0));
      F.Locals.push_back(Buf);
      Init.push_back(ir::assign(
          InBuf(Buf, P.Size),
          P.Output ? ir::cast(PT, IsRow(ir::add(IntC(Row), ir::ref(I), Int)))
                   : ir::floatConst(PT, 0)));
      Args.push_back(ir::ref(Buf));
      Args.push_back(LongC(P.Size));
      if (!P.Output) {
        ir::Block Copy;
        Copy.push_back(ir::assign(InJ(Cols, Col), InBuf(Buf, P.Size)));
        Append(CopyOut, Loop(I, P.Size, std::move(Copy)));
      }
    }
    Append(Seed, Loop(I, P.Size, std::move(Init)));
    (P.Output ? Row : Col) += P.Size;
  }
  Append(Body, Loop(K, Rows, std::move(Seed)));
  Body.push_back(ir::eval(ir::call(Lanes, Args, Ctx.VoidTy)));
  if (!CopyOut.empty())
    Append(Body, Loop(K, Rows, std::move(CopyOut)));
  Append(Body, std::move(Post));
  EmitRequest R;
  R.Target = E.Jacobian;
  R.Params = Params;
  R.Locals = F.Locals;
  R.Body = std::move(Body);
  emitAndPublish(R);
}

} // namespace fluxion
