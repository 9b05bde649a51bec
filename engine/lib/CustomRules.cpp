//===- CustomRules.cpp - Finding user-supplied derivatives -----------------===//
//
// Custom derivatives live in namespace fluxion::custom and are found by
// ordinary overload resolution on the arguments the generated code will
// pass. Two forms exist for reverse mode:
//   R f_vjp(P..., R seed, D d_p...)            one function (TensorFlow's
//                                              custom_gradient);
//   R f_fwd(P..., Res &res)  +
//   void f_bwd(P..., const Res &res, R seed, D d_p...)
//                                              a forward part that keeps
//                                              residuals for the backward
//                                              part (JAX's custom_vjp).
// A rule whose name matches but whose signature does not is an error that
// shows the expected signature; a rule that never matches a call is
// reported at the end of the translation unit.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/Overload.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace fluxion {

/// The name a callee's rules are named after: its own, except that a
/// builtin spelling of a library function has that function's rules
/// (__builtin_sqrt is differentiated by sqrt_vjp; the lowering lets through
/// only builtins with such a rule, and constants).
static std::string ruleStem(const FunctionDecl *Callee) {
  StringRef Name = Callee->getName();
  if (Callee->getBuiltinID() && Name.starts_with("__builtin_"))
    Name = Name.drop_front(StringRef("__builtin_").size());
  return Name.str();
}

NamespaceDecl *Differentiator::customNamespace() {
  NamespaceDecl *Fluxion = fluxionNamespace();
  if (!Fluxion)
    return nullptr;
  LookupResult R(S, &Ctx.Idents.get("custom"), SourceLocation(),
                 Sema::LookupNamespaceName);
  S.LookupQualifiedName(R, Fluxion);
  return R.getAsSingle<NamespaceDecl>();
}

NamespaceDecl *Differentiator::fluxionNamespace() {
  LookupResult R(S, &Ctx.Idents.get("fluxion"), SourceLocation(),
                 Sema::LookupNamespaceName);
  S.LookupQualifiedName(R, Ctx.getTranslationUnitDecl());
  return R.getAsSingle<NamespaceDecl>();
}

bool Differentiator::isRuntimeDecl(const Decl *D) {
  // The runtime's headers all live in one directory, next to the header
  // that declares fluxion::stop_gradient.
  if (RuntimeDir.empty()) {
    RuntimeDir = "-";
    if (NamespaceDecl *NS = fluxionNamespace()) {
      LookupResult R(S, &Ctx.Idents.get("stop_gradient"), SourceLocation(),
                     Sema::LookupOrdinaryName);
      S.LookupQualifiedName(R, NS);
      if (!R.empty())
        RuntimeDir = llvm::sys::path::parent_path(
                         Ctx.getSourceManager().getFilename(
                             Ctx.getSourceManager().getExpansionLoc(
                                 (*R.begin())->getLocation())))
                         .str();
    }
  }
  StringRef File = Ctx.getSourceManager().getFilename(
      Ctx.getSourceManager().getExpansionLoc(D->getLocation()));
  return llvm::sys::path::parent_path(File) == RuntimeDir;
}

std::string Differentiator::expectedSignature(FunctionDecl *Callee,
                                              StringRef Suffix) {
  PrintingPolicy Policy(Ctx.getLangOpts());
  Policy.SuppressTagKeyword = true;
  Policy.SuppressScope = false;
  // A library function's types are spelled as the user knows them, not
  // through the library's internal aliases (std::swap returns
  // `typename enable_if<...>::type`, which is void).
  bool Library = Ctx.getSourceManager().isInSystemHeader(Callee->getLocation());
  auto Param = [&](QualType T, StringRef Name) {
    if (Library)
      T = T.getCanonicalType();
    std::string S;
    llvm::raw_string_ostream OS(S);
    T.print(OS, Policy, Name);
    return S;
  };
  QualType R = Callee->getReturnType().getUnqualifiedType();
  std::vector<std::string> Ps;
  std::vector<std::pair<ParmVarDecl *, std::string>> Names;
  for (ParmVarDecl *P : Callee->parameters()) {
    std::string N = P->getName().empty() ? "p" : P->getNameAsString();
    if (Library) // std::swap's __a is a
      N = StringRef(N).ltrim('_').empty() ? "p" : StringRef(N).ltrim('_').str();
    Names.push_back({P, N});
    Ps.push_back(Param(P->getType().getUnqualifiedType(), N));
  }
  std::string Ret = Param(R, "");
  bool Reverse = Suffix == "_vjp" || Suffix == "_bwd";
  if (Suffix == "_fwd")
    Ps.push_back("Residuals &res");
  if (Suffix == "_bwd") {
    Ps.push_back("const Residuals &res");
    Ret = "void";
  }
  if (Reverse && hasSeed(Callee))
    Ps.push_back(Param(R, "seed"));
  if (Suffix != "_fwd")
    for (auto &[P, N] : Names) {
      if (!isDifferentiableType(P->getType()))
        continue;
      if (Reverse)
        Ps.push_back(Param(adjointParamType(Ctx, P->getType()), "d_" + N));
      else // the same types as the f_jvp the engine would generate
        Ps.push_back(Param(tangentParamType(Ctx, P->getType()), "t_" + N));
    }
  return Ret + " " + ruleStem(Callee) + Suffix.str() + "(" +
         llvm::join(Ps, ", ") + ")";
}

/// Runs overload resolution of Candidates on arguments of the given types
/// (lvalues where LValue is set or the type is an lvalue reference: the
/// generated code passes a `T&` parameter on as the variable it names);
/// null if none is viable.
static FunctionDecl *resolve(Sema &S, const LookupResult &Candidates,
                             llvm::ArrayRef<QualType> Types,
                             llvm::ArrayRef<bool> LValue,
                             SourceLocation Loc,
                             TemplateArgumentListInfo *Explicit = nullptr) {
  ASTContext &Ctx = S.getASTContext();
  llvm::SmallVector<Expr *, 8> Args;
  for (unsigned I = 0; I < Types.size(); ++I)
    Args.push_back(new (Ctx) OpaqueValueExpr(
        Loc, Types[I].getNonReferenceType(),
        (I < LValue.size() && LValue[I]) || Types[I]->isLValueReferenceType()
            ? VK_LValue
            : VK_PRValue));
  OverloadCandidateSet Set(Loc, OverloadCandidateSet::CSK_Normal);
  S.AddFunctionCandidates(Candidates.asUnresolvedSet(), Args, Set, Explicit);
  OverloadCandidateSet::iterator Best;
  if (Set.BestViableFunction(S, Loc, Best) != OR_Success)
    return nullptr;
  return Best->Function;
}

void Differentiator::markCustomUsed(FunctionDecl *Rule, SourceLocation Loc) {
  UsedCustom.insert(Rule->getCanonicalDecl());
  if (FunctionTemplateDecl *T = Rule->getPrimaryTemplate())
    UsedCustom.insert(T->getCanonicalDecl());
  if (Rule->isTemplateInstantiation() && !Rule->isDefined())
    S.MarkFunctionReferenced(Loc, Rule);
}

void Differentiator::reportMismatch(const LookupResult &R,
                                    FunctionDecl *Callee, StringRef Suffix,
                                    SourceLocation Loc) {
  Diags.report(Loc, Diag::CustomMismatch)
      << ruleStem(Callee) + Suffix.str() << Callee
      << expectedSignature(Callee, Suffix);
  for (NamedDecl *D : R) {
    Diags.report(D->getLocation(), Diag::NoteCustomCandidate) << D;
    UsedCustom.insert(D->getCanonicalDecl()); // reported: no warning too
  }
}

FunctionDecl *Differentiator::findCustom(FunctionDecl *Callee,
                                         StringRef Suffix, SourceLocation Loc,
                                         bool *Failed,
                                         const std::vector<bool> *Active) {
  NamespaceDecl *NS = customNamespace();
  if (!NS || !Callee->getIdentifier())
    return nullptr;
  std::string Name = ruleStem(Callee) + Suffix.str();
  LookupResult R(S, &Ctx.Idents.get(Name), Loc, Sema::LookupOrdinaryName);
  S.LookupQualifiedName(R, NS);
  if (R.empty())
    return nullptr;
  // The arguments the generated code will pass: (params..., seed, d_params)
  // for a reverse rule, (params..., tangents) for a forward one; for an
  // annotated function whose annotation names some parameters, the rule
  // may also have the generated function's signature (derivatives of the
  // named parameters only).
  bool Reverse = Suffix == "_vjp";
  auto ArgTypes = [&](const std::vector<bool> *Only) {
    llvm::SmallVector<QualType, 8> Types;
    for (ParmVarDecl *P : Callee->parameters())
      Types.push_back(P->getType().getUnqualifiedType());
    if (Reverse && hasSeed(Callee))
      Types.push_back(Callee->getReturnType().getUnqualifiedType());
    for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
      QualType T = Callee->getParamDecl(I)->getType();
      if (isDifferentiableType(T) && (!Only || (*Only)[I]))
        Types.push_back(Reverse || T->isPointerType() ? adjointParamType(Ctx, T)
                        // a T& is an output: its tangent by address
                        : T->isReferenceType() ? tangentParamType(Ctx, T)
                                               : T.getUnqualifiedType());
    }
    return Types;
  };
  auto Types = ArgTypes(nullptr);
  FunctionDecl *Rule = nullptr;
  if (Active) {
    auto Named = ArgTypes(Active);
    if (Named.size() != Types.size())
      Rule = resolve(S, R, Named, {}, Loc);
  }
  if (!Rule)
    Rule = resolve(S, R, Types, {}, Loc);
  if (!Rule) {
    // The runtime's <cmath> rules share their names with any user function
    // called exp or sin: a mismatch there means "not meant for this one".
    bool AllRuntime = llvm::all_of(R, [&](NamedDecl *D) {
      return isRuntimeDecl(D);
    });
    if (AllRuntime && Callee->hasBody())
      return nullptr;
    reportMismatch(R, Callee, Suffix, Loc);
    if (Failed)
      *Failed = true;
    return nullptr;
  }
  QualType Want = Callee->getReturnType().getUnqualifiedType();
  QualType Got = Rule->getReturnType().getUnqualifiedType();
  if (!Ctx.hasSameType(Want, Got)) {
    Diags.report(Rule->getLocation(), Diag::CustomReturnType)
        << Rule << Got << Want;
    markCustomUsed(Rule, Loc);
    Diags.report(Loc, Diag::NoteCustomUsedFor) << Callee;
    if (Failed)
      *Failed = true;
    return nullptr;
  }
  markCustomUsed(Rule, Loc);
  return Rule;
}

/// True if every return statement of Fwd returns its last parameter (the
/// residual, taken by reference) unchanged: `y = std::exp(x); return y;`.
/// Then the call's result and the residual are one value, which a caller
/// that keeps the result need not store twice. Rules without a visible body
/// (declared here, defined elsewhere) never qualify.
static bool returnsResidual(const FunctionDecl *Fwd) {
  const Stmt *Body = Fwd->getBody();
  const ParmVarDecl *Res = Fwd->getParamDecl(Fwd->getNumParams() - 1);
  if (!Body || !Fwd->getASTContext().hasSameUnqualifiedType(
                   Fwd->getReturnType(), Res->getType().getNonReferenceType()))
    return false;
  unsigned Returns = 0;
  bool AllResidual = true;
  llvm::SmallVector<const Stmt *, 16> Work{Body};
  while (!Work.empty()) {
    const Stmt *St = Work.pop_back_val();
    if (!St)
      continue;
    if (isa<LambdaExpr>(St) || isa<BlockExpr>(St))
      continue; // their returns are not Fwd's
    if (const auto *R = dyn_cast<ReturnStmt>(St)) {
      ++Returns;
      const auto *Ref = R->getRetValue()
                            ? dyn_cast<DeclRefExpr>(
                                  R->getRetValue()->IgnoreParenImpCasts())
                            : nullptr;
      AllResidual &= Ref && Ref->getDecl() == Res;
      continue;
    }
    for (const Stmt *Child : St->children())
      Work.push_back(Child);
  }
  return Returns > 0 && AllResidual;
}

std::optional<ResidualRule>
Differentiator::findResidualRule(FunctionDecl *Callee, SourceLocation Loc,
                                 bool &Failed) {
  NamespaceDecl *NS = customNamespace();
  if (!NS || !Callee->getIdentifier())
    return std::nullopt;
  std::string Name = ruleStem(Callee) + "_fwd";
  LookupResult R(S, &Ctx.Idents.get(Name), Loc, Sema::LookupOrdinaryName);
  S.LookupQualifiedName(R, NS);
  if (R.empty())
    return std::nullopt;
  // The residual type is what the forward part's last parameter refers to;
  // each candidate proposes one, and overload resolution picks.
  unsigned N = Callee->getNumParams();
  llvm::SmallVector<QualType, 8> Types;
  for (ParmVarDecl *P : Callee->parameters())
    Types.push_back(P->getType().getUnqualifiedType());
  FunctionDecl *Fwd = nullptr;
  QualType Res;
  // Candidates taking the callee's own parameter types go first: with
  // overloads for float, double and long double, a double call must not
  // get the float residual because double converts to float.
  llvm::SmallVector<FunctionDecl *, 4> Exact, Others;
  for (NamedDecl *D : R) {
    auto *FD = dyn_cast<FunctionDecl>(D->getUnderlyingDecl());
    if (!FD || FD->getNumParams() != N + 1)
      continue;
    bool Same = true;
    for (unsigned I = 0; I < N; ++I)
      Same &= Ctx.hasSameUnqualifiedType(
          FD->getParamDecl(I)->getType().getNonReferenceType(), Types[I]);
    (Same ? Exact : Others).push_back(FD);
  }
  Exact.append(Others.begin(), Others.end());
  for (FunctionDecl *FD : Exact) {
    QualType Last = FD->getParamDecl(N)->getType();
    if (!Last->isLValueReferenceType() ||
        Last.getNonReferenceType().isConstQualified())
      continue;
    QualType Candidate = Last.getNonReferenceType().getUnqualifiedType();
    llvm::SmallVector<QualType, 8> WithRes(Types);
    WithRes.push_back(Candidate);
    llvm::SmallVector<bool, 8> LValue(N, false);
    LValue.push_back(true);
    FunctionDecl *Best = resolve(S, R, WithRes, LValue, Loc);
    if (Best && Ctx.hasSameUnqualifiedType(
                    Best->getParamDecl(N)->getType().getNonReferenceType(),
                    Candidate)) {
      Fwd = Best;
      Res = Candidate;
      break;
    }
  }
  if (!Fwd) {
    reportMismatch(R, Callee, "_fwd", Loc);
    Failed = true;
    return std::nullopt;
  }
  QualType Want = Callee->getReturnType().getUnqualifiedType();
  if (!Ctx.hasSameType(Want, Fwd->getReturnType().getUnqualifiedType())) {
    Diags.report(Fwd->getLocation(), Diag::CustomReturnType)
        << Fwd << Fwd->getReturnType() << Want;
    markCustomUsed(Fwd, Loc);
    Diags.report(Loc, Diag::NoteCustomUsedFor) << Callee;
    Failed = true;
    return std::nullopt;
  }
  if (!Res.isTriviallyCopyableType(Ctx)) {
    Diags.report(Fwd->getLocation(), Diag::CustomMismatch)
        << Fwd->getNameAsString() << Callee
        << "a trivially copyable residual type (it is stored on the tape)";
    Failed = true;
    return std::nullopt;
  }
  // The backward part: (params..., const Res &, [seed], adjoints...).
  std::string BwdName = ruleStem(Callee) + "_bwd";
  LookupResult B(S, &Ctx.Idents.get(BwdName), Loc, Sema::LookupOrdinaryName);
  S.LookupQualifiedName(B, NS);
  llvm::SmallVector<QualType, 8> BTypes(Types);
  BTypes.push_back(Res.withConst());
  llvm::SmallVector<bool, 8> LValue(N, false);
  LValue.push_back(true);
  if (hasSeed(Callee))
    BTypes.push_back(Want);
  for (ParmVarDecl *P : Callee->parameters())
    if (isDifferentiableType(P->getType()))
      BTypes.push_back(adjointParamType(Ctx, P->getType()));
  FunctionDecl *Bwd = B.empty() ? nullptr : resolve(S, B, BTypes, LValue, Loc);
  if (!Bwd) {
    Diags.report(Fwd->getLocation(), Diag::ResidualNoBackward)
        << Fwd << BwdName << expectedSignature(Callee, "_bwd");
    for (NamedDecl *D : B)
      Diags.report(D->getLocation(), Diag::NoteCustomCandidate) << D;
    Diags.report(Loc, Diag::NoteCustomUsedFor) << Callee;
    markCustomUsed(Fwd, Loc);
    Failed = true;
    return std::nullopt;
  }
  markCustomUsed(Fwd, Loc);
  markCustomUsed(Bwd, Loc);
  return ResidualRule{Fwd, Bwd, Res, returnsResidual(Fwd)};
}

void Differentiator::warnUnusedCustom() {
  NamespaceDecl *NS = customNamespace();
  if (!NS || Users.empty())
    return;
  static const char *const Suffixes[] = {"_vjp", "_jvp", "_fwd", "_bwd"};
  for (NamespaceDecl *Part : NS->redecls()) {
    for (Decl *D : Part->decls()) {
      auto *ND = dyn_cast<NamedDecl>(D);
      if (!ND || !isa<FunctionDecl, FunctionTemplateDecl>(ND) ||
          !ND->getIdentifier() || D->isImplicit())
        continue;
      if (Ctx.getSourceManager().isInSystemHeader(D->getLocation()) ||
          isRuntimeDecl(D))
        continue;
      if (UsedCustom.count(ND->getCanonicalDecl()))
        continue;
      StringRef Name = ND->getName();
      for (const char *Suffix : Suffixes) {
        if (!Name.ends_with(Suffix))
          continue;
        Diags.report(D->getLocation(), Diag::CustomUnused)
            << ND->getQualifiedNameAsString()
            << Name.drop_back(StringRef(Suffix).size());
        break;
      }
    }
  }
}

FunctionDecl *Differentiator::runtimeTemplateFunction(
    StringRef Name, QualType T, llvm::ArrayRef<QualType> Types,
    SourceLocation Loc) {
  TemplateArgumentListInfo Explicit(Loc, Loc);
  Explicit.addArgument(TemplateArgumentLoc(
      TemplateArgument(T), Ctx.getTrivialTypeSourceInfo(T, Loc)));
  return runtimeLookup(Name, Types, Loc, &Explicit);
}

void Differentiator::instantiate(FunctionDecl *FD, SourceLocation Loc) {
  if (FD->isTemplateInstantiation() && !FD->hasBody())
    S.InstantiateFunctionDefinition(Loc, FD, /*Recursive=*/true,
                                    /*DefinitionRequired=*/true);
}

CXXMethodDecl *Differentiator::lambdaCallFor(const CXXRecordDecl *Closure,
                                             llvm::ArrayRef<QualType> Args,
                                             SourceLocation Loc) {
  LookupResult R(S, Ctx.DeclarationNames.getCXXOperatorName(OO_Call), Loc,
                 Sema::LookupOrdinaryName);
  S.LookupQualifiedName(R, const_cast<CXXRecordDecl *>(Closure));
  // The object first (Sema's convention for methods), then the arguments.
  llvm::SmallVector<QualType, 4> Types{QualType(Closure->getTypeForDecl(), 0)};
  Types.append(Args.begin(), Args.end());
  llvm::SmallVector<bool, 4> LValue(Types.size(), true);
  auto *Call = dyn_cast_or_null<CXXMethodDecl>(resolve(S, R, Types, LValue, Loc));
  if (Call && Call->isTemplateInstantiation() && !Call->hasBody())
    S.InstantiateFunctionDefinition(Loc, Call, /*Recursive=*/true,
                                    /*DefinitionRequired=*/true);
  return Call;
}

FunctionDecl *Differentiator::runtimeFunction(StringRef Name,
                                              llvm::ArrayRef<QualType> Args,
                                              SourceLocation Loc) {
  return runtimeLookup(Name, Args, Loc, nullptr);
}

FunctionDecl *Differentiator::runtimeLookup(StringRef Name,
                                            llvm::ArrayRef<QualType> Args,
                                            SourceLocation Loc,
                                            TemplateArgumentListInfo *Explicit) {
  NamespaceDecl *NS = fluxionNamespace();
  FunctionDecl *FD = nullptr;
  if (NS) {
    LookupResult R(S, &Ctx.Idents.get(Name), Loc, Sema::LookupOrdinaryName);
    S.LookupQualifiedName(R, NS);
    if (!R.empty())
      FD = resolve(S, R, Args, {}, Loc, Explicit);
  }
  if (!FD) {
    Diags.report(Loc, Diag::MissingRuntime) << Name;
    return nullptr;
  }
  S.MarkFunctionReferenced(Loc, FD);
  return FD;
}

} // namespace fluxion
