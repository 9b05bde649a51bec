//===- Differentiator.h - Declares and defines derivative functions -*- C++ -*-===//
//
// The engine's entry point. The Clang-facing glue (plugin or tool) calls:
//   annotate()        when an attribute is seen: validates it and declares
//                     the user-facing derivatives (f_grad, f_vjp) at once,
//                     so that later code can call them by name;
//   defineFor()       when a definition is complete: generates the bodies;
//   finish()          at the end of the translation unit: generates what had
//                     to wait for a callee's body, and reports what never
//                     got one.
// Callee derivatives are requested on demand through DerivativeOracle: a
// custom derivative (fluxion::custom::g_vjp, by overload resolution) or a
// generated split pair g_fwd/g_bwd specialised to the active parameters.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_DIFFERENTIATOR_H
#define FLUXION_ENGINE_DIFFERENTIATOR_H

#include "fluxion/engine/Diagnostics.h"
#include "fluxion/engine/LaneExpansion.h"
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/ReverseBuilder.h"
#include "fluxion/engine/TangentBuilder.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace clang {
class Sema;
class NamespaceDecl;
class CXXMethodDecl;
class LookupResult;
} // namespace clang

namespace fluxion {

struct EmitRequest;

/// What an annotation asks for.
struct Annotation {
  enum class Kind { Grad, Jvp, Hessian, Jacobian };
  Kind K = Kind::Grad;
  /// Parameter names restricting differentiation (empty: all).
  llvm::SmallVector<std::string, 4> Params;
  llvm::SmallVector<clang::SourceLocation, 4> ParamLocs; ///< of each name
  clang::SourceLocation Loc;
  std::string Spelling = "fluxion::grad";
  /// The names restrict the inputs only: fixed-size output arrays (T y[N],
  /// non-const) are differentiated whether named or not. Set for
  /// [[fluxion::jacobian]], whose outputs are its rows, and for the sweeps
  /// f_jacobian is built from.
  bool OutputsAlwaysActive = false;
  /// Not written by the user: what [[fluxion::hessian]] also gives. An
  /// annotation of the same kind already there takes its place.
  bool Implied = false;
  /// The sweep [[fluxion::jacobian]] is built from (f_vjp or f_jvp): the
  /// contract promises f_jacobian only, so it is defined only when the
  /// Jacobian calls it or the translation unit does.
  bool ForJacobian = false;
  /// Written as fluxion::grad(f, ...) rather than an attribute: other
  /// parameters than an annotation's get functions of their own.
  bool CallSite = false;
};

/// A residual-form custom derivative: f_fwd(P..., Res &) and
/// f_bwd(P..., const Res &, [seed], adjoints...).
struct ResidualRule {
  clang::FunctionDecl *Fwd = nullptr;
  clang::FunctionDecl *Bwd = nullptr;
  clang::QualType Residual;
  /// Every return of Fwd returns its residual parameter (exp_fwd keeps
  /// exp(x) and returns it): the call's result is the residual.
  bool ResidualIsResult = false;
};

class Differentiator : public DerivativeOracle,
                       public TangentOracle,
                       public LaneOracle {
public:
  explicit Differentiator(clang::Sema &S);

  /// Validates A on FD and declares the functions it generates.
  void annotate(clang::FunctionDecl *FD, const Annotation &A);
  /// FD's body is complete: define its derivatives, and any pending callee
  /// derivatives that can now be defined.
  void defineFor(clang::FunctionDecl *FD);
  void finish();

  /// The functions the contract names, one per kind.
  enum class EntryKind { Grad, VJP, JVP, HVP, Hessian, Jacobian };
  /// The call-site form (fluxion::grad(f, "x"), fluxion::jvp(f), ...):
  /// annotates FD as A asks unless an annotation already generates the
  /// same functions (one set of functions serves both), defines them if
  /// FD's body is known, and returns the one Which names. Null after a
  /// located error at A.Loc.
  clang::FunctionDecl *callSiteDerivative(clang::FunctionDecl *FD,
                                          const Annotation &A,
                                          EntryKind Which);

  /// True for functions this engine declared.
  bool isGenerated(const clang::Decl *D) const override;
  /// True for the functions the contract names (f_grad, f_vjp, f_jvp,
  /// f_hvp, f_hessian, f_jacobian), which user code may call; false for
  /// the sweeps of callees and the other helpers generated code calls.
  bool isEntryPoint(const clang::FunctionDecl *FD) const;
  /// Called with each function once its body is set (hand it to CodeGen).
  std::function<void(clang::FunctionDecl *)> OnDefined;
  /// Called with each function this engine declares and the function it is
  /// declared next to (fluxion-gen prints the declaration there).
  std::function<void(clang::FunctionDecl *, clang::FunctionDecl *)> OnDeclared;
  /// Print each generated function to this stream (the dump option).
  llvm::raw_ostream *Dump = nullptr;

  std::optional<CallDerivative>
  reverseOf(const ir::Expr &Call, llvm::ArrayRef<bool> ArgActive,
            bool RestoreMemory) override;
  std::optional<CallTangent>
  tangentOf(const ir::Expr &Call, llvm::ArrayRef<bool> ArgActive,
            llvm::ArrayRef<bool> ArgSink) override;
  clang::FunctionDecl *runtimeFunction(llvm::StringRef Name,
                                       llvm::ArrayRef<clang::QualType> Args,
                                       clang::SourceLocation Loc) override;
  bool checkpointsEnabled() const override { return !SecondOrderMode; }
  void noteCalls(const ir::Block &Sweep) override;
  clang::FunctionDecl *lanesOf(clang::FunctionDecl *Bwd, unsigned M,
                               llvm::SmallVectorImpl<LaneArg> &Kinds) override;
  clang::FunctionDecl *laneAccessor(clang::QualType Ptr) override;
  EffectGlobals *effectGlobals() override { return &Effects; }
  clang::FunctionDecl *
  runtimeTemplateFunction(llvm::StringRef Name, clang::QualType T,
                          llvm::ArrayRef<clang::QualType> Args,
                          clang::SourceLocation Loc) override;
  void instantiate(clang::FunctionDecl *FD, clang::SourceLocation Loc) override;
  clang::CXXMethodDecl *lambdaCallFor(const clang::CXXRecordDecl *Closure,
                                      llvm::ArrayRef<clang::QualType> Args,
                                      clang::SourceLocation Loc) override;

private:
  struct UserEntry {
    Annotation::Kind K = Annotation::Kind::Grad;
    clang::FunctionDecl *Annotated = nullptr;
    clang::FunctionDecl *VJP = nullptr;
    clang::FunctionDecl *Grad = nullptr;
    clang::FunctionDecl *JVP = nullptr;
    clang::FunctionDecl *HVP = nullptr;
    clang::FunctionDecl *Hessian = nullptr;
    clang::FunctionDecl *Jacobian = nullptr;
    bool Forward = false; ///< Jacobian by columns (jvp) rather than rows
    std::vector<bool> Active;
    /// Parameters the annotation names (all, when it names none).
    std::vector<bool> Named;
    /// Global variables differentiated with respect to (grad only).
    std::vector<clang::VarDecl *> Globals;
    /// A member function whose annotation names "this": the object's
    /// members are differentiated too.
    bool WithThis = false;
    clang::SourceLocation Loc;
    bool Defined = false;
    /// Declared only as the sweep of a Jacobian (Annotation::ForJacobian),
    /// and whether that Jacobian's definition calls it.
    bool OnlyForJacobian = false;
    bool NeededByJacobian = false;
    /// Defined only if something calls it (at the end of the TU).
    bool waitsForACall() const { return OnlyForJacobian && !NeededByJacobian; }
  };
  /// An annotated non-static member function is differentiated as its view
  /// (FunctionViews.h), with `self` active when the annotation names
  /// "this": sets Lowered and puts self's activity first. False after
  /// reporting a "this" that is not a class of reals.
  bool memberForm(UserEntry &E, clang::FunctionDecl *Def,
                  clang::FunctionDecl *&Lowered, std::vector<bool> &Active);
  /// A member's derivative: `self` is `this`, and its adjoint (tangent),
  /// renamed Name, goes after the parameters'.
  static void placeThis(EmitRequest &R, llvm::StringRef Name);
  struct SplitEntry {
    clang::FunctionDecl *Callee = nullptr;
    clang::FunctionDecl *Fwd = nullptr;
    clang::FunctionDecl *Bwd = nullptr;
    std::vector<bool> Active;
    /// Built for f_hvp: no checkpoints or residual rules inside.
    bool SecondOrder = false;
    /// Restores the memory written through pointer parameters.
    bool RestoresMemory = false;
    /// Every call that needs this pair, and the function it is in.
    llvm::SmallVector<std::pair<clang::SourceLocation, clang::FunctionDecl *>,
                      2>
        Uses;
    bool Defined = false;
    /// The final code of some derivative calls the pair.
    bool Called = false;
    bool isCalled() const {
      return Called || Fwd->isReferenced() || Bwd->isReferenced();
    }
  };

  /// The annotation of kind K on FD or a redeclaration (any kind if none).
  UserEntry *findUser(const clang::FunctionDecl *FD,
                      std::optional<Annotation::Kind> K = std::nullopt);
  /// The entry of kind K on FD or a redeclaration for exactly Active.
  UserEntry *findUser(const clang::FunctionDecl *FD, Annotation::Kind K,
                      const std::vector<bool> &Active);
  /// True if E is for FD or a redeclaration.
  static bool isEntryFor(const clang::FunctionDecl *FD, const UserEntry &E);
  bool isUsed(const UserEntry &E) const;
  /// Name for a function generated from Like: instances of a template get
  /// their template arguments in it, and the name is never one already
  /// given to a generated function of the same type in the same scope.
  std::string derivedName(const clang::FunctionDecl *Like,
                          llvm::StringRef Name, clang::QualType FnTy);
  std::set<std::tuple<const clang::DeclContext *, std::string, const void *>>
      GeneratedNames;
  /// With the body known: f_jacobian has rows and columns (a located error
  /// otherwise).
  bool checkJacobianParts(UserEntry &E, clang::FunctionDecl *Def);
  /// f_jacobian's columns, rows that are whole f_vjp calls, and
  /// f_hessian's columns run f once each (Runs says so): f must not read state it changes (a member of its object, what
  /// a non-output parameter points to). False after reporting it.
  /// Forward: the runs are f_jvp calls, which give back nothing.
  bool checkRerunState(UserEntry &E, clang::FunctionDecl *Def,
                       llvm::StringRef Runs, bool Forward);
  bool checkAnnotation(clang::FunctionDecl *FD, const Annotation &A,
                       std::vector<bool> &Active,
                       std::vector<clang::VarDecl *> &Globals);
  /// The namespace-scope variable Name as seen from FD, if any.
  clang::VarDecl *lookupGlobal(clang::FunctionDecl *FD, llvm::StringRef Name);
  /// Globals differentiated with respect to must be read by the annotated
  /// function itself: a callee's reads would carry no adjoint.
  bool checkGlobalsInCallees(clang::FunctionDecl *Def, const UserEntry &E);
  void defineUser(UserEntry &E, clang::FunctionDecl *Def);
  void defineSplit(SplitEntry &E, clang::FunctionDecl *Def);
  /// A split pair's local containers: the backward function sizes them
  /// (and their adjoints) from the size, and the elements its sweep reads,
  /// that the forward function pushes at its end.
  void handOverContainers(ReverseBuilder &B, struct Differentiated &D);
  // Forward mode (ForwardMode.cpp).
  void declareJVP(UserEntry &E);
  void defineUserJVP(UserEntry &E, clang::FunctionDecl *Def);
  void defineDual(struct DualEntry &E, clang::FunctionDecl *Def);
  std::vector<std::pair<std::string, clang::QualType>>
  tangentParams(clang::FunctionDecl *FD, const std::vector<bool> &Active);
  // Second order (SecondOrder.cpp).
  std::vector<std::pair<std::string, clang::QualType>>
  hvpParams(clang::FunctionDecl *FD, const std::vector<bool> &Active);
  bool checkSecondOrder(clang::FunctionDecl *FD, const Annotation &A);
  void declareSecondOrder(UserEntry &E);
  void defineUserHVP(UserEntry &E, clang::FunctionDecl *Def);
  void defineDenseHessian(UserEntry &E, clang::FunctionDecl *Def);
  // Several reverse sweeps at once (Jacobian.cpp, LaneExpansion.cpp).
  struct LaneEntry {
    SplitEntry *Pair = nullptr;
    unsigned M = 0;
    clang::FunctionDecl *Fn = nullptr;
    clang::SourceLocation Loc; ///< of the annotation that needs it
    bool Defined = false;
  };
  std::map<std::pair<const clang::Decl *, unsigned>, std::unique_ptr<LaneEntry>>
      LaneEntries;
  std::vector<LaneEntry *> LaneOrder;
  /// Where a lanes version is needed (the Jacobian being defined).
  clang::SourceLocation LanesLoc;
  void defineLanes(LaneEntry &E);
  /// The most rows f_jacobian computes in one reverse sweep.
  static constexpr unsigned MaxLanes = 8;
  /// True if the reverse sweep of FD and of everything it calls can run
  /// several seeds at once: every callee's body is known, and no local is
  /// an adjoint that lanes cannot hold (a pointer, a multidimensional
  /// array, a record).
  bool lanesPossible(const clang::FunctionDecl *FD);
  llvm::DenseMap<const clang::Decl *, bool> LanesImpossible;
  // Jacobian (Jacobian.cpp).
  bool declareJacobian(UserEntry &E, const Annotation &A);
  void defineJacobian(UserEntry &E, clang::FunctionDecl *Def);
  void defineJacobianLanes(UserEntry &E, clang::FunctionDecl *Def,
                           uint64_t Rows);
  /// The pair whose sweeps f_jacobian's reverse-mode rows run.
  SplitEntry &jacobianPair(UserEntry &E, clang::FunctionDecl *Def);
  /// Defines the derivatives E asks for.
  void defineEntry(UserEntry &E, clang::FunctionDecl *Def);
  void drain(bool AtEnd);
  /// Notes explaining why Fn is differentiated (the chain of calls up to
  /// an annotated function).
  void explain(const clang::FunctionDecl *Fn, unsigned Depth = 0);

  // Annotated function templates (Templates.cpp). The annotation on the
  // template declares derivative templates of the same parameters; each
  // instance the program uses is differentiated as an ordinary function
  // whose derivatives are the derivative templates' specializations.
  // A member of a class template is the same with the class's instances:
  // its derivatives are members of the class template, instantiated with
  // the class.
  struct TemplateEntry {
    clang::FunctionTemplateDecl *Primal = nullptr;
    clang::CXXMethodDecl *PrimalMember = nullptr; ///< of a class template
    llvm::SmallVector<Annotation, 2> Annotations;
    /// The derivative templates, by name (sq_grad, sq_vjp, ...).
    llvm::SmallVector<clang::FunctionTemplateDecl *, 4> Derivatives;
    /// The derivative members of the class template (loss_grad, ...).
    llvm::SmallVector<clang::CXXMethodDecl *, 4> MemberDerivatives;
  };
  /// Differentiates an instance of an annotated template (or of a member
  /// of a class template) that Use needs.
  void differentiateInstance(TemplateEntry &T, clang::FunctionDecl *Instance,
                             clang::SourceLocation Use);
  /// In the order of the annotations: instances are differentiated (and
  /// their errors reported) in that order.
  llvm::MapVector<const clang::Decl *, TemplateEntry> Templates;
  /// Instances already differentiated.
  llvm::SmallPtrSet<const clang::Decl *, 8> InstancesDone;
  /// True for the pattern of a function template or of a member of a
  /// class template.
  static bool isTemplatePattern(const clang::FunctionDecl *FD);
  /// Declares the derivative template Name of Like's template, with the
  /// dependent signature FnTy.
  clang::FunctionDecl *declareTemplate(clang::FunctionDecl *Like,
                                       llvm::StringRef Name,
                                       clang::QualType FnTy,
                                       llvm::ArrayRef<std::pair<std::string, clang::QualType>> Params);
  /// For an instance of an annotated template, the specialization of its
  /// derivative template Name (which must have type FnTy), or null if the
  /// template has no derivative of that name.
  clang::FunctionDecl *specializationFor(clang::FunctionDecl *Like,
                                         llvm::StringRef Name,
                                         clang::QualType FnTy);
  /// Differentiates every instance whose derivative specializations the
  /// program uses. True if it found new ones.
  bool instantiateDerivatives();

  // Functions returning an object of a class of reals (ObjectResults.cpp,
  // contract v2): f_vjp(p..., const R &seed, d_p...) returns f's value and
  // f_jvp(p..., t_p...) the result's tangent; both differentiate f's view
  // `void f(R *result, p...)`, whose result is an output.
  static bool returnsObject(const clang::FunctionDecl *FD);
  void declareObjectVJP(UserEntry &E);
  void defineObjectVJP(UserEntry &E, clang::FunctionDecl *Def);
  void defineObjectJVP(UserEntry &E, clang::FunctionDecl *Def);

  /// Declares `Ret Name(Params...)` next to Like.
  clang::FunctionDecl *
  declare(clang::FunctionDecl *Like, llvm::StringRef Name, clang::QualType Ret,
          llvm::ArrayRef<std::pair<std::string, clang::QualType>> Params,
          bool Internal, bool Visible);
  std::vector<std::pair<std::string, clang::QualType>>
  reverseParams(clang::FunctionDecl *FD, const std::vector<bool> &Active);
  // Checkpointed callees (Checkpointing.cpp).
  struct LoggedEntry {
    clang::FunctionDecl *Callee = nullptr;
    clang::FunctionDecl *Logged = nullptr;
    llvm::SmallVector<std::pair<clang::SourceLocation, clang::FunctionDecl *>,
                      2>
        Uses;
    bool Defined = false;
  };
  bool isCheckpointed(const clang::FunctionDecl *FD);
  bool isRevolveMarker(const clang::FunctionDecl *FD);
  /// True if FD's calls (transitively) are differentiated differently at
  /// first order: checkpoints, residual rules, binomial loops.
  bool hasFirstOrderOnlyParts(const clang::FunctionDecl *FD);
  /// True if FD's calls (transitively) checkpoint or run binomial loops:
  /// their reverse sweeps push again, so a tape cannot be replayed.
  bool usesCheckpointing(const clang::FunctionDecl *FD);
  /// g_logged: the primal of Callee that logs its writes outside its frame.
  clang::FunctionDecl *loggedVersion(clang::FunctionDecl *Callee,
                                     clang::SourceLocation Loc);
  bool logWrites(ir::Block &B, ir::Function &F);
  void defineLogged(LoggedEntry &E, clang::FunctionDecl *Def);
  std::map<const clang::Decl *, std::unique_ptr<LoggedEntry>> Logged;
  std::vector<LoggedEntry *> LoggedOrder;
  llvm::DenseMap<const clang::Decl *, bool> FirstOrderOnly;
  llvm::DenseMap<const clang::Decl *, bool> UsesCheckpoints;

  // Custom derivatives (CustomRules.cpp).
  /// The rule fluxion::custom::<callee><Suffix> matching Callee's
  /// convention (with Active, for an annotated function, also the
  /// generated function's own signature); null if there is none. Sets *Failed after reporting a rule
  /// whose name matches but whose signature does not.
  clang::FunctionDecl *findCustom(clang::FunctionDecl *Callee,
                                  llvm::StringRef Suffix,
                                  clang::SourceLocation Loc,
                                  bool *Failed = nullptr,
                                  const std::vector<bool> *Active = nullptr);
  std::optional<ResidualRule> findResidualRule(clang::FunctionDecl *Callee,
                                               clang::SourceLocation Loc,
                                               bool &Failed);
  std::string expectedSignature(clang::FunctionDecl *Callee,
                                llvm::StringRef Suffix);
  void reportMismatch(const clang::LookupResult &R,
                      clang::FunctionDecl *Callee, llvm::StringRef Suffix,
                      clang::SourceLocation Loc);
  void markCustomUsed(clang::FunctionDecl *Rule, clang::SourceLocation Loc);
  /// Warns about custom derivatives that no call matched.
  void warnUnusedCustom();
  /// True for declarations in the runtime's own headers.
  bool isRuntimeDecl(const clang::Decl *D);
  clang::NamespaceDecl *customNamespace();
  clang::NamespaceDecl *fluxionNamespace();
  /// runtimeFunction, with an explicit first template argument when given.
  clang::FunctionDecl *runtimeLookup(llvm::StringRef Name,
                                     llvm::ArrayRef<clang::QualType> Args,
                                     clang::SourceLocation Loc,
                                     clang::TemplateArgumentListInfo *Explicit);
  void publish(clang::FunctionDecl *FD);
  /// Defines Target as a call of Callee with Target's parameters (and Extra
  /// inserted at position At).
  void defineForwarder(clang::FunctionDecl *Target, clang::FunctionDecl *Callee,
                       ir::ExprP Extra = nullptr, unsigned At = 0);
  /// Defines Target (the f_vjp or f_jvp of Def) as a call of Def's custom
  /// rule, which takes a derivative for every differentiable parameter
  /// while Target has them only for the Active ones. False after an error.
  bool defineCustomForwarder(clang::FunctionDecl *Target,
                             clang::FunctionDecl *Def,
                             clang::FunctionDecl *Custom,
                             const std::vector<bool> &Active, bool Reverse,
                             clang::SourceLocation Loc);
  /// Defines Target (an f_vjp) from a residual-form rule.
  void defineFromResidualRule(clang::FunctionDecl *Target,
                              const ResidualRule &Rule);
  /// Emits R's body into its target and hands the target on.
  void emitAndPublish(struct EmitRequest &R);
  /// Which callee parameters a generated derivative differentiates, given
  /// the active arguments of a call; All is set when every differentiable
  /// parameter is.
  std::vector<bool> activeParams(clang::FunctionDecl *Callee,
                                 llvm::ArrayRef<bool> ArgActive, bool &All);
  /// "_x_w" naming the active parameters (empty when all are).
  std::string activeSuffix(clang::FunctionDecl *Callee,
                           const std::vector<bool> &Active, bool All);
  /// False (after an error naming the missing Rule) if Callee's derivative
  /// cannot be generated: a builtin or system function without a body.
  bool canGenerate(clang::FunctionDecl *Callee, clang::SourceLocation Loc,
                   llvm::StringRef Rule);

  clang::Sema &S;
  clang::ASTContext &Ctx;
  DiagReporter Diags;
  std::vector<std::unique_ptr<UserEntry>> Users;
  std::map<std::pair<const clang::Decl *, std::vector<bool>>,
           std::unique_ptr<SplitEntry>>
      Splits;
  std::vector<SplitEntry *> SplitOrder;
  /// The pair each generated _fwd/_bwd function belongs to.
  llvm::DenseMap<const clang::FunctionDecl *, SplitEntry *> PairOf;
  /// The split pair of Callee for these active parameters (declared on
  /// first request, defined once something calls it), noting the use.
  SplitEntry &splitPair(clang::FunctionDecl *Callee,
                        const std::vector<bool> &Active, bool All,
                        bool RestoreMemory, clang::SourceLocation UseLoc,
                        clang::FunctionDecl *User);
  std::map<std::tuple<const clang::Decl *, std::vector<bool>,
                      std::vector<bool>>,
           std::unique_ptr<struct DualEntry>>
      Duals;
  /// The IR of generated functions, so that they can be differentiated
  /// again (the tangent of an adjoint).
  struct StoredIR {
    std::shared_ptr<ir::Function> IR;
    std::vector<ir::Var *> Params;
    ir::Block Body;
  };
  std::map<const clang::Decl *, StoredIR> Stored;
  std::vector<DualEntry *> DualOrder;
  llvm::SmallPtrSet<const clang::Decl *, 32> Generated;
  llvm::SmallPtrSet<const clang::Decl *, 16> UsedCustom;
  std::string RuntimeDir;
  /// Set while building the adjoint that f_hvp differentiates again.
  bool SecondOrderMode = false;
  clang::FunctionDecl *Current = nullptr; ///< function being differentiated
  bool Busy = false;
  EffectGlobals Effects;
  std::vector<clang::FunctionDecl *> Deferred;
};

/// A generated dual function g_dual (value and tangent of a callee).
struct DualEntry {
  clang::FunctionDecl *Callee = nullptr;
  clang::FunctionDecl *Dual = nullptr;
  std::vector<bool> Active;
  std::vector<bool> Sink; ///< parameters whose primal writes are dropped
  llvm::SmallVector<std::pair<clang::SourceLocation, clang::FunctionDecl *>, 2>
      Uses;
  bool Defined = false;
};

/// The type of the adjoint parameter for a parameter of type T.
clang::QualType adjointParamType(clang::ASTContext &Ctx, clang::QualType T);
/// The type of the tangent parameter in f_jvp for a parameter of type T: a
/// value for a scalar or const T&, a const S* for an object input, the
/// parameter's own type for pointers (ForwardMode.cpp).
clang::QualType tangentParamType(clang::ASTContext &Ctx, clang::QualType T);
/// A const T& input's tangent (and direction in f_hvp) is a T passed by
/// value, which the IR reads through its address like the parameter; for
/// an object (const S&) it is a const S*, as for other non-scalar inputs.
inline bool tangentPassedByValue(const ir::Var *P) {
  clang::QualType Pointee = P->Type->getPointeeType();
  return P->ByRef && Pointee.isConstQualified() && !Pointee->isRecordType();
}

/// Gives a FunctionLowering the oracle's runtime lookups and the
/// translation unit's counter globals.
void connectLowering(FunctionLowering &Lowering, DerivativeOracle &Oracle);

/// Reports that Def stores active values through its parameter I, which has
/// no adjoint (or tangent) buffer: the object of a method's view is named
/// as the object, with the advice to name "this".
void reportUndifferentiatedOutput(DiagReporter &Diags,
                                  const clang::FunctionDecl *Def, unsigned I,
                                  bool Tangent);

/// True for a parameter declared as a fixed-size array of floating values
/// the function may write (T y[N], not const), or as an object of reals (or
/// a fixed-size array of them) by non-const reference or array (`Vec2 &e`,
/// `Vec2 e[2]`): an output whose elements are rows of f_jacobian.
bool isFixedSizeOutput(clang::ASTContext &Ctx, const clang::ParmVarDecl *P);


} // namespace fluxion

#endif
