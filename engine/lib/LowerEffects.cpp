//===- LowerEffects.cpp - Printing to a stream, throwing ------------------===//
//
// Effects that carry no derivative and run in the forward sweep only, as
// in the primal, each as one call of a runtime helper (helpers.hpp) whose
// arguments are values the engine already knows:
// - `os << a << b;` with os an output stream at namespace scope
//   (std::cout, std::cerr, a user's std::ofstream) becomes
//   fluxion::stream_out(os, a, b); the stream is a global passed through
//   untouched;
// - `throw E(args);` becomes fluxion::raise<E>(args), `throw v;`
//   fluxion::raise<V>(v).
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;

bool FunctionLowering::lowerEffectArgument(
    const clang::Expr *Item, ir::Block &Out,
    llvm::SmallVectorImpl<ExprP> &Args, llvm::SmallVectorImpl<QualType> &Types) {
  ExprP V = lowerExpr(Item, Out);
  if (!V)
    return false;
  // Printed or thrown, never differentiated.
  Args.push_back(ir::stopGrad(V, V->Ty, Item->getExprLoc()));
  Types.push_back(V->Ty);
  return true;
}

/// A std::basic_ostream, or a class derived from one (std::ofstream).
static bool isOutputStream(QualType T) {
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  auto IsOstream = [](const CXXRecordDecl *C) {
    return C->isInStdNamespace() && C->getIdentifier() &&
           C->getName() == "basic_ostream";
  };
  if (IsOstream(RD))
    return true;
  return !RD->forallBases(
      [&](const CXXRecordDecl *B) { return !IsOstream(B); });
}

/// `a << b` on a stream: an overloaded << whose result is the stream.
static const CXXOperatorCallExpr *streamInsertion(const clang::Expr *E) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(E->IgnoreParenImpCasts());
  if (!Op || Op->getOperator() != OO_LessLess || Op->getNumArgs() != 2)
    return nullptr;
  return isOutputStream(Op->getType().getNonReferenceType()) ? Op : nullptr;
}

bool FunctionLowering::isStreamOutput(const clang::Expr *E) {
  return streamInsertion(E) != nullptr;
}

bool FunctionLowering::lowerStreamOutput(const clang::Expr *E,
                                         ir::Block &Out) {
  // The operands, left to right, and the stream at the far left.
  llvm::SmallVector<const clang::Expr *, 6> Items;
  const clang::Expr *Stream = E;
  while (const CXXOperatorCallExpr *Op = streamInsertion(Stream)) {
    Items.push_back(Op->getArg(1));
    Stream = Op->getArg(0);
  }
  std::reverse(Items.begin(), Items.end());
  const auto *DRE = dyn_cast<DeclRefExpr>(Stream->IgnoreParenImpCasts());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || !VD->hasGlobalStorage() || VD->isStaticLocal()) {
    Diags.report(Stream->getExprLoc(), Diag::NotSupported)
        << "printing to a stream that is not a variable at namespace scope"
        << "print to std::cout or std::cerr, or with printf";
    return false;
  }
  llvm::SmallVector<ExprP, 6> Args;
  llvm::SmallVector<QualType, 6> Types;
  ir::Var *&S = Vars[VD];
  if (!S) {
    S = F->makeVar(ir::Var::Kind::Global, VD->getName(), VD->getType(),
                   const_cast<VarDecl *>(VD));
    S->Name = VD->getNameAsString();
  }
  Args.push_back(ir::ref(S, DRE->getLocation()));
  Types.push_back(Ctx.getLValueReferenceType(VD->getType()));
  for (const clang::Expr *Item : Items) {
    // std::endl and other manipulators are overloaded functions.
    if (Item->getType()->isFunctionType() ||
        Item->getType()->isSpecificPlaceholderType(BuiltinType::Overload) ||
        Item->getType()->isFunctionPointerType()) {
      Diags.report(Item->getExprLoc(), Diag::NotSupported)
          << "a stream manipulator such as std::endl"
          << "print \"\\n\" instead";
      return false;
    }
    if (!lowerEffectArgument(Item, Out, Args, Types))
      return false;
  }
  clang::FunctionDecl *Fn =
      Runtime ? Runtime("stream_out", Types, E->getExprLoc()) : nullptr;
  if (!Fn)
    return false;
  Out.push_back(ir::eval(ir::call(Fn, Args, Ctx.VoidTy, E->getExprLoc()),
                         E->getBeginLoc()));
  return true;
}

/// The value the exception is made from, or its constructor's arguments.
static bool thrownArguments(const clang::Expr *E,
                            llvm::SmallVectorImpl<const clang::Expr *> &Args) {
  E = E->IgnoreImplicit();
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    E = FC->getSubExpr()->IgnoreImplicit();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    for (const clang::Expr *A : CE->arguments())
      Args.push_back(A);
    return true;
  }
  if (E->getType()->isRecordType())
    return false;
  Args.push_back(E);
  return true;
}

bool FunctionLowering::lowerThrow(const CXXThrowExpr *E, ir::Block &Out) {
  llvm::SmallVector<const clang::Expr *, 4> Items;
  bool Simple = E->getSubExpr() && thrownArguments(E->getSubExpr(), Items);
  for (const clang::Expr *A : Items)
    Simple &= !A->getType()->isRecordType();
  if (!Simple) {
    // A rethrow, or an exception built from objects (a std::string).
    Diags.report(E->getThrowLoc(), Diag::NotSupported)
        << "this throw expression"
        << "throw an exception made from literals and numbers, or move the "
           "check into a function that returns a value (`int checked(int "
           "n) { if (n <= 0) throw ...; return n; }`) and call it through "
           "fluxion::stop_gradient (`n = "
           "fluxion::stop_gradient(checked(n));`)";
    return false;
  }
  llvm::SmallVector<ExprP, 4> Args;
  llvm::SmallVector<QualType, 4> Types;
  for (const clang::Expr *Item : Items)
    if (!lowerEffectArgument(Item, Out, Args, Types))
      return false;
  QualType Thrown = E->getSubExpr()->getType().getUnqualifiedType();
  clang::FunctionDecl *Fn =
      RuntimeFor ? RuntimeFor("raise", Thrown, Types, E->getThrowLoc())
                 : nullptr;
  if (!Fn)
    return false;
  Out.push_back(ir::eval(ir::call(Fn, Args, Ctx.VoidTy, E->getThrowLoc()),
                         E->getThrowLoc()));
  return true;
}

} // namespace fluxion
