//===- JumpElimination.cpp - Structured IR without jumps -------------------===//
//
// Rewrites break, continue, early return and switch into flags and guarded
// blocks, so that every later pass sees only assignments, ifs and loops whose
// bodies run to their end. A statement after one that may jump is wrapped in
// `if (!flag) { ... }`; loops test their break and return flags; a switch
// becomes a chain of `fall = fall || match; if (fall) { section }`.
// Returns in tail position need no flag.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Passes.h"

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/SetVector.h"

using namespace clang;

namespace fluxion {
using namespace ir;

namespace {

using FlagSet = llvm::SmallSetVector<Var *, 4>;

class JumpEliminator {
public:
  JumpEliminator(Function &F, ASTContext &Ctx) : F(F), Ctx(Ctx) {}

  void run() { F.Body = block(std::move(F.Body), /*Tail=*/true, {}); }

private:
  struct Context {
    Var *Break = nullptr;    ///< flag of the innermost loop or switch
    Var *Continue = nullptr; ///< flag of the innermost loop
    Stmt *BreakOwner = nullptr;
    Stmt *ContinueOwner = nullptr;
  };

  Var *flag(StringRef Name) {
    Var *V = F.makeVar(Var::Kind::Temp, Name, Ctx.BoolTy);
    V->ZeroInit = true;
    F.Locals.push_back(V);
    return V;
  }

  Var *returnFlag() {
    if (!Returned)
      Returned = flag("_returned");
    return Returned;
  }

  StmtP setFlag(Var *V, bool Value) {
    return assign(ref(V), boolConst(Ctx, Value));
  }

  /// !(f1 || f2 ...) as !f1 && !f2 ...
  ExprP noneOf(const FlagSet &Flags) {
    ExprP Result;
    for (Var *V : Flags) {
      ExprP Not = unary(UO_LNot, ref(V), Ctx.BoolTy);
      Result = Result ? binary(BO_LAnd, Result, Not, Ctx.BoolTy) : Not;
    }
    return Result;
  }

  /// Eliminates jumps in B. Flags that the block may set and that skip what
  /// follows it are added to Jumps.
  Block block(Block B, bool Tail, Context C, FlagSet *Jumps = nullptr) {
    Block Out;
    for (size_t I = 0; I < B.size(); ++I) {
      bool Last = I + 1 == B.size();
      FlagSet Mine;
      stmt(std::move(B[I]), Tail && Last, C, Mine, Out);
      if (Jumps)
        for (Var *V : Mine)
          Jumps->insert(V);
      if (!Mine.empty() && !Last) {
        Block Rest(std::make_move_iterator(B.begin() + I + 1),
                   std::make_move_iterator(B.end()));
        Block Guarded = block(std::move(Rest), Tail, C, Jumps);
        if (!Guarded.empty())
          Out.push_back(ifStmt(noneOf(Mine), std::move(Guarded)));
        return Out;
      }
    }
    return Out;
  }

  /// True if S contains a jump that leaves S's own loops/switches.
  void stmt(StmtP S, bool Tail, Context C, FlagSet &Jumps, Block &Out) {
    switch (S->K) {
    case StmtKind::Return:
      if (!Tail) {
        Out.push_back(setFlag(returnFlag(), true));
        Jumps.insert(returnFlag());
      }
      return;
    case StmtKind::Break:
      Out.push_back(setFlag(C.Break, true));
      Jumps.insert(C.Break);
      return;
    case StmtKind::Continue:
      Out.push_back(setFlag(C.Continue, true));
      Jumps.insert(C.Continue);
      return;
    case StmtKind::Block:
      for (StmtP &Inner : block(std::move(S->Then), Tail, C, &Jumps))
        Out.push_back(std::move(Inner));
      return;
    case StmtKind::If:
      S->Then = block(std::move(S->Then), Tail, C, &Jumps);
      S->Else = block(std::move(S->Else), Tail, C, &Jumps);
      Out.push_back(std::move(S));
      return;
    case StmtKind::Loop:
      return loop(std::move(S), C, Jumps, Out);
    case StmtKind::Switch:
      return switchStmt(std::move(S), C, Jumps, Out);
    default:
      Out.push_back(std::move(S));
      return;
    }
  }

  void loop(StmtP S, Context Outer, FlagSet &Jumps, Block &Out) {
    Context C = Outer;
    C.Break = flag("_break");
    C.Continue = flag("_continue");
    FlagSet Inner;
    Block Body = block(std::move(S->body()), false, C, &Inner);
    bool UsesBreak = Inner.count(C.Break), UsesCont = Inner.count(C.Continue);
    bool UsesRet = Returned && Inner.count(Returned);
    // Flags that end the loop.
    FlagSet Exit;
    if (UsesBreak)
      Exit.insert(C.Break);
    if (UsesRet)
      Exit.insert(Returned);
    if (UsesCont)
      Body.insert(Body.begin(), setFlag(C.Continue, false));
    Block Inc = block(std::move(S->inc()), false, C);
    if (!Inc.empty()) {
      if (!Exit.empty())
        Body.push_back(ifStmt(noneOf(Exit), std::move(Inc)));
      else
        for (StmtP &I : Inc)
          Body.push_back(std::move(I));
    }
    S->body() = std::move(Body);
    if (!Exit.empty())
      S->Cond = binary(BO_LAnd, noneOf(Exit), S->Cond, Ctx.BoolTy);
    if (UsesBreak)
      Out.push_back(setFlag(C.Break, false));
    Out.push_back(std::move(S));
    if (UsesRet)
      Jumps.insert(Returned);
    dropUnused(C.Break, UsesBreak);
    dropUnused(C.Continue, UsesCont);
  }

  void switchStmt(StmtP S, Context Outer, FlagSet &Jumps, Block &Out) {
    Context C = Outer;
    C.Break = flag("_break");
    SourceLocation Loc = S->Loc;
    // Evaluate the subject once.
    ExprP Subject = S->Cond;
    if (!isTrivial(*Subject)) {
      Var *T = F.makeVar(Var::Kind::Temp, "_case", Subject->Ty);
      F.Locals.push_back(T);
      Out.push_back(assign(ref(T), Subject, BO_Assign, Loc));
      Subject = ref(T);
    }
    auto Matches = [&](const SwitchSection &Sec) -> ExprP {
      ExprP M;
      for (const ExprP &V : Sec.Values) {
        ExprP Eq = binary(BO_EQ, Subject, V, Ctx.BoolTy);
        M = M ? binary(BO_LOr, M, Eq, Ctx.BoolTy) : Eq;
      }
      return M;
    };
    ExprP AnyCase;
    for (const SwitchSection &Sec : S->Sections)
      if (!Sec.Values.empty()) {
        ExprP M = Matches(Sec);
        AnyCase = AnyCase ? binary(BO_LOr, AnyCase, M, Ctx.BoolTy) : M;
      }
    Var *Fall = flag("_fall");
    Block Chain;
    Chain.push_back(setFlag(Fall, false));
    for (SwitchSection &Sec : S->Sections) {
      ExprP M = Matches(Sec);
      if (Sec.IsDefault) {
        ExprP Def = AnyCase ? unary(UO_LNot, AnyCase, Ctx.BoolTy)
                            : boolConst(Ctx, true);
        M = M ? binary(BO_LOr, M, Def, Ctx.BoolTy) : Def;
      }
      Chain.push_back(assign(ref(Fall), binary(BO_LOr, ref(Fall), M,
                                               Ctx.BoolTy)));
      auto Body = std::make_unique<Stmt>(StmtKind::Block);
      Body->Then = std::move(Sec.Body);
      Block Wrapped;
      Wrapped.push_back(std::move(Body));
      Chain.push_back(ifStmt(ref(Fall), std::move(Wrapped), {}, Loc));
    }
    // The generic guard of block() skips the remaining sections after a
    // break, continue or return.
    FlagSet Inner;
    Block Result = block(std::move(Chain), false, C, &Inner);
    bool UsesBreak = Inner.count(C.Break);
    if (UsesBreak)
      Out.push_back(setFlag(C.Break, false));
    for (StmtP &R : Result)
      Out.push_back(std::move(R));
    for (Var *V : Inner)
      if (V != C.Break)
        Jumps.insert(V);
    dropUnused(C.Break, UsesBreak);
  }

  void dropUnused(Var *V, bool Used) {
    if (Used)
      return;
    llvm::erase(F.Locals, V);
  }

  Function &F;
  ASTContext &Ctx;
  Var *Returned = nullptr;
};

} // namespace

void eliminateJumps(Function &F, ASTContext &Ctx) {
  JumpEliminator(F, Ctx).run();
}

} // namespace fluxion
