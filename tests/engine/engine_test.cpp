// Unit tests of the engine's passes on IR lowered from real C++ (parsed by
// Clang's tooling, no plugin involved).
#include "fluxion/engine/Diagnostics.h"
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/Passes.h"
#include "fluxion/engine/ReadExtent.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace clang;
using namespace fluxion;

namespace {

/// Records the text of each diagnostic.
class Collector : public DiagnosticConsumer {
public:
  explicit Collector(std::string &Out) : Out(Out) {}
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    llvm::SmallString<128> Msg;
    Info.FormatDiagnostic(Msg);
    Out += Msg.str().str() + "\n";
  }

private:
  std::string &Out;
};

struct Lowered {
  std::string Errors; // declared first: the AST's diagnostics client writes here
  std::unique_ptr<ASTUnit> AST;
  std::unique_ptr<ir::Function> F;
};

/// Parses Code and lowers the function named Name.
Lowered lower(const std::string &Code, StringRef Name) {
  Lowered L;
  L.AST = tooling::buildASTFromCodeWithArgs(Code, {"-std=c++17"});
  ASTContext &Ctx = L.AST->getASTContext();
  FunctionDecl *FD = nullptr;
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (auto *F = dyn_cast<FunctionDecl>(D))
      if (F->getName() == Name && F->hasBody())
        FD = F;
  EXPECT_NE(FD, nullptr);
  L.AST->getDiagnostics().setClient(new Collector(L.Errors),
                                    /*ShouldOwnClient=*/true);
  DiagReporter Diags(L.AST->getDiagnostics());
  FunctionLowering Lowering(Ctx, Diags);
  L.F = Lowering.lower(FD);
  return L;
}

std::string printed(const ir::Block &B) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  ir::print(B, OS);
  return S;
}

unsigned countKind(const ir::Block &B, ir::StmtKind K) {
  unsigned N = 0;
  ir::forEachStmt(B, [&](const ir::Stmt &S) { N += S.K == K; });
  return N;
}

ir::Var *var(ir::Function &F, StringRef Name) {
  for (auto &V : F.Storage)
    if (V->Name == Name)
      return V.get();
  return nullptr;
}

TEST(Lowering, CompoundAssignmentsAndIncrements) {
  auto L = lower("double f(double x) { double y = x; y *= 2; y += x; int i = 0; "
                 "++i; i--; return y; }",
                 "f");
  ASSERT_TRUE(L.F);
  std::string S = printed(L.F->Body);
  EXPECT_NE(S.find("y = (y * 2"), std::string::npos) << S; // *= becomes =
  EXPECT_NE(S.find("y += x"), std::string::npos) << S;     // += is kept
  EXPECT_NE(S.find("i = (i + 1)"), std::string::npos) << S;
  EXPECT_NE(S.find("i = (i - 1)"), std::string::npos) << S;
}

TEST(Lowering, NestedCallsAreHoisted) {
  auto L = lower("double g(double); double f(double x) { return g(x) * g(x + 1); }",
                 "f");
  ASSERT_TRUE(L.F);
  // Two temporaries, each assigned from one call, then the product.
  unsigned Calls = 0;
  for (const ir::StmtP &S : L.F->Body)
    if (S->K == ir::StmtKind::Assign && S->RHS->K == ir::ExprKind::Call)
      ++Calls;
  EXPECT_EQ(Calls, 2u) << printed(L.F->Body);
}

TEST(Lowering, RejectsGotoWithLocation) {
  auto L = lower("double f(double x) { goto out; out: return x; }", "f");
  EXPECT_FALSE(L.F);
  EXPECT_NE(L.Errors.find("'goto' statement"), std::string::npos)
      << L.Errors;
}

TEST(JumpElimination, RemovesEveryJump) {
  auto L = lower(R"(
    double f(const double *x, int n) {
      double s = 0;
      for (int i = 0; i < n; ++i) {
        if (x[i] < 0) continue;
        if (x[i] > 10) break;
        switch (i % 3) { case 0: s += x[i]; case 1: s *= 2; break; default: return s; }
      }
      return s;
    })",
                 "f");
  ASSERT_TRUE(L.F);
  eliminateJumps(*L.F, L.AST->getASTContext());
  for (auto K : {ir::StmtKind::Break, ir::StmtKind::Continue,
                 ir::StmtKind::Return, ir::StmtKind::Switch})
    EXPECT_EQ(countKind(L.F->Body, K), 0u) << printed(L.F->Body);
  // The loop tests its break and return flags.
  std::string S = printed(L.F->Body);
  EXPECT_NE(S.find("!(_break)"), std::string::npos) << S;
  EXPECT_NE(S.find("!(_returned)"), std::string::npos) << S;
}

TEST(JumpElimination, TailReturnsNeedNoFlag) {
  auto L = lower("double f(double x) { if (x > 0) return x; else return -x; }",
                 "f");
  ASSERT_TRUE(L.F);
  eliminateJumps(*L.F, L.AST->getASTContext());
  EXPECT_EQ(var(*L.F, "_returned"), nullptr) << printed(L.F->Body);
}

TEST(Activity, FollowsDataFlowOnly) {
  auto L = lower(R"(
    double f(double x, double w, int n) {
      double a = x * 2;      // active
      double b = w + 1;      // inactive: w is not an active input here
      double c = b * b;      // inactive
      int k = n * 2;         // integer: never active
      return a * c + k;
    })",
                 "f");
  ASSERT_TRUE(L.F);
  eliminateJumps(*L.F, L.AST->getASTContext());
  ir::Var *X = L.F->Params[0];
  ActivityInfo A(*L.F, {X});
  EXPECT_TRUE(A.isActive(var(*L.F, "a")));
  EXPECT_FALSE(A.isActive(var(*L.F, "b")));
  EXPECT_FALSE(A.isActive(var(*L.F, "c")));
  EXPECT_FALSE(A.isActive(var(*L.F, "k")));
  EXPECT_TRUE(A.isActive(var(*L.F, "_ret")));
}

TEST(Activity, OutputsOfActiveCallsBecomeActive) {
  auto L = lower(R"(
    void fill(const double *in, double *out);
    double f(const double *x) { double tmp[2]; fill(x, tmp); return tmp[0]; })",
                 "f");
  ASSERT_TRUE(L.F);
  ActivityInfo A(*L.F, {L.F->Params[0]});
  EXPECT_TRUE(A.isActive(var(*L.F, "tmp")));
}

TEST(Assignments, ConstantMeansSetOnceOutsideLoops) {
  auto L = lower(R"(
    double f(double x, double y, int n) {
      double once = x * 2;
      double twice = 1; twice = x;
      double looped = 0;
      for (int i = 0; i < n; ++i) looped = x;
      y = 3;
      return once + twice + looped + y;
    })",
                 "f");
  ASSERT_TRUE(L.F);
  AssignmentInfo A(*L.F);
  EXPECT_TRUE(A.isConstant(var(*L.F, "once")));
  EXPECT_TRUE(A.isConstant(L.F->Params[0]));  // x: only its entry value
  EXPECT_FALSE(A.isConstant(L.F->Params[1])); // y: reassigned
  EXPECT_FALSE(A.isConstant(var(*L.F, "twice")));
  EXPECT_FALSE(A.isConstant(var(*L.F, "looped")));
}

/// The read extent of parameter Param of the function Name in Code.
std::optional<ReadExtent> extentIn(const std::string &Code, StringRef Name,
                                   unsigned Param) {
  auto AST = tooling::buildASTFromCodeWithArgs(Code, {"-std=c++17"});
  for (Decl *D : AST->getASTContext().getTranslationUnitDecl()->decls())
    if (auto *F = dyn_cast<FunctionDecl>(D))
      if (F->getName() == Name && F->hasBody())
        return pointerReadExtent(F, Param);
  ADD_FAILURE() << "no function " << Name.str();
  return std::nullopt;
}

TEST(ReadExtent, CountedLoopsOverAPointerToConst) {
  auto E = extentIn(R"(
    double f(int n, const double *v) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += v[i] * v[i];
      for (int i = 1; n > i; i++) s -= v[i];
      return s;
    })",
                    "f", 1);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->CountParam, 0u);
  EXPECT_EQ(E->MinCount, 0);
  // A constant index widens the extent (logsumexp's v[0]).
  E = extentIn(R"(
    double f(const double *v, int n) {
      double m = v[0];
      for (int i = 1; i < n; i += 1) m = v[i] > m ? v[i] : m;
      return m + v[2];
    })",
               "f", 0);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->CountParam, 1u);
  EXPECT_EQ(E->MinCount, 3);
}

TEST(ReadExtent, UnknownWhenAnythingElseIsSeen) {
  const char *Cases[] = {
      // passed on, pointer arithmetic, index not a counter
      "double g(int, const double *); "
      "double f(int n, const double *v) { return g(n, v); }",
      "double f(int n, const double *v) { return *(v + n); }",
      "double f(int n, const double *v) { double s = 0; "
      "for (int i = 0; i < n; ++i) s += v[i + 1]; return s; }",
      // the counter or the bound changes in the body
      "double f(int n, const double *v) { double s = 0; "
      "for (int i = 0; i < n; ++i) { s += v[i]; ++i; } return s; }",
      "double f(int n, const double *v) { double s = 0; "
      "for (int i = 0; i < n; ++i) { s += v[i]; n = n - 1; } return s; }",
      // <= reads one more; a negative start; two different bounds
      "double f(int n, const double *v) { double s = 0; "
      "for (int i = 0; i <= n; ++i) s += v[i]; return s; }",
      "double f(int n, const double *v) { double s = 0; "
      "for (int i = -1; i < n; ++i) s += v[i]; return s; }",
      "double f(int n, const double *v, int m) { double s = 0; "
      "for (int i = 0; i < n; ++i) s += v[i]; "
      "for (int i = 0; i < m; ++i) s += v[i]; return s; }",
      // the counter declared outside the for
      "double f(int n, const double *v) { double s = 0; int i = 0; "
      "for (; i < n; ++i) s += v[i]; return s; }",
      // the counter's address taken
      "void h(int *); double f(int n, const double *v) { double s = 0; "
      "for (int i = 0; i < n; ++i) { h(&i); s += v[i]; } return s; }",
      // not a pointer to const
      "double f(int n, double *v) { double s = 0; "
      "for (int i = 0; i < n; ++i) s += v[i]; return s; }",
  };
  for (const char *Code : Cases)
    EXPECT_FALSE(extentIn(Code, "f", 1)) << Code;
}

} // namespace
