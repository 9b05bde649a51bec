//===- Lowering.h - Clang AST to Fluxion IR ---------------------*- C++ -*-===//
//
// Lowers the body of a function into IR. Each kind of Clang statement and
// expression has one small handler; anything without a handler is reported
// as a located error that names the construct. Calls nested in expressions
// are hoisted into temporaries so that the reverse sweep never evaluates a
// call twice, and declarations are hoisted to function scope (their
// initialisers become assignments).
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_LOWERING_H
#define FLUXION_ENGINE_LOWERING_H

#include "fluxion/engine/Diagnostics.h"
#include "fluxion/engine/IR.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>
#include <optional>

namespace fluxion {

/// A dense Eigen object, `Eigen::Matrix` or `Eigen::Array`: its scalar, its
/// compile-time rows and columns (negative when dynamic) and its storage
/// order. The engine sees it as a container of its coefficients, stored
/// column by column unless RowMajor.
struct EigenShape {
  clang::QualType Scalar;
  int64_t Rows = -1, Cols = -1;
  bool RowMajor = false;
  bool IsArray = false;
  /// A Map or Ref over contiguous coefficients of Plain (a view the engine
  /// reads and writes like the object); Writable unless it views const.
  bool View = false;
  bool Writable = true;
  /// The Matrix or Array type itself (for a view, the one it views): the
  /// type of adjoints and tangents (contract v2).
  clang::QualType Plain;
  /// One dimension fixed at 1: a vector, sized by one number.
  bool isVector() const { return Rows == 1 || Cols == 1; }
};

/// An Eigen expression over variables of the function, as a tree whose
/// coefficients the lowering writes out (LowerEigenExpr.cpp).
struct EigenTerm {
  enum class Kind {
    Variable,       ///< Storage, of Shape
    Same,           ///< A (.array(), .matrix())
    Transpose,      ///< A(j, i)
    Negate,         ///< -A
    Scale,          ///< Value * A
    DivideByScalar, ///< A / Value
    Add,
    Subtract,
    CwiseProduct,
    CwiseQuotient,
    AddScalar,   ///< A + Value (arrays)
    SubScalar,   ///< A - Value
    ScalarMinus, ///< Value - A
    ScalarOver,  ///< Value / A (A.inverse() of an array: 1 / A)
    Pow,         ///< Fn(A(i, j), Value): std::pow
    Function, ///< Fn(A(i, j)), or A(i, j) squared (cubed when Value is 3)
              ///< when Fn is null
    Product,  ///< the matrix product A B
    Block,    ///< A(i + RowOffset, j + ColOffset): col, row, block, head,
              ///< tail, segment, read
    Cross,    ///< A.cross(B) of 3-vectors
    Max,      ///< A.cwiseMax(B): B where A < B, else A (std::max)
    Min,      ///< A.cwiseMin(B): B where B < A, else A (std::min)
    Cast,       ///< A(i, j) converted to Scalar: A.cast<T>()
    Diagonal,   ///< A(i, i): A.diagonal(), a column
    AsDiagonal, ///< A(i) on the diagonal, 0 elsewhere: v.asDiagonal()
    ScaleRows,  ///< A(i) B(i, j): v.asDiagonal() * B
    ScaleCols,  ///< A(i, j) B(j): A * v.asDiagonal()
    Triangular, ///< A(i, j) on the Part side of the diagonal, else 0:
                ///< A.triangularView<Part>()
    SelfAdjoint, ///< A(i, j) on the Part side, A(j, i) on the other:
                 ///< A.selfadjointView<Part>()
    Constant, ///< Value everywhere: T::Zero(), Ones(), Constant(c)
    Identity  ///< 1 on the diagonal, 0 elsewhere: T::Identity()
  };
  Kind K = Kind::Variable;
  clang::QualType Scalar;
  ir::ExprP Rows, Cols; ///< extents, constants where the types fix them
  ir::ExprP Storage;    ///< Variable
  EigenShape Shape;     ///< Variable
  ir::ExprP Value;      ///< Scale, DivideByScalar, Constant, the scalar
                        ///< kinds: the scalar
  ir::ExprP RowOffset, ColOffset; ///< Block
  /// Triangular, SelfAdjoint: Eigen's mode (Lower 1, Upper 2, UnitDiag 4,
  /// ZeroDiag 8).
  unsigned Part = 0;
  clang::FunctionDecl *Fn = nullptr;
  std::unique_ptr<EigenTerm> A, B;
  /// Variables whose coefficients it reads.
  llvm::SmallPtrSet<const ir::Var *, 4> Reads;
  /// Reads a coefficient other than the one it computes (a product, a
  /// transpose): assigning it to a variable it reads would alias.
  bool Mixes = false;
  /// The Matrix or Array type the expression evaluates to (Eigen's
  /// PlainObject): the type of a local holding its value.
  clang::QualType Plain;
  clang::SourceLocation Loc;
};

/// A mutable global integer, bool or enum (a counter, a flag): what
/// differentiated code may write (EffectGlobals.cpp).
bool isCounterGlobal(const clang::VarDecl *VD);

/// The counter globals differentiated code writes, across a translation
/// unit (EffectGlobals.cpp): a write runs in the forward sweep, as in the
/// primal, and is never recorded or restored; reads of such a global go
/// through a local (LowerExpr.cpp).
struct EffectGlobals {
  llvm::DenseSet<const clang::VarDecl *> Written;
  /// Counter globals derivative code read in place, and the function
  /// whose lowering read them (its definition).
  llvm::DenseMap<const clang::VarDecl *, const clang::FunctionDecl *>
      ReadDirectly;
  /// Notes the counter globals the body of FD and of the functions it
  /// calls (transitively) write. A global that one of those functions'
  /// derivative code, made earlier, reads in place is a located error at
  /// the write; returns false then.
  bool noteWriters(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                   DiagReporter &Diags);
};

class FunctionLowering {
public:
  FunctionLowering(clang::ASTContext &Ctx, DiagReporter &Diags)
      : Ctx(Ctx), Diags(Diags) {}

  /// Finds (instantiating a template) the runtime's fluxion::Name for
  /// arguments of the given types, as the Differentiator does for the
  /// calls its builders make; the lowering calls it for operations it
  /// lowers to runtime calls (Eigen's solves).
  std::function<clang::FunctionDecl *(llvm::StringRef,
                                      llvm::ArrayRef<clang::QualType>,
                                      clang::SourceLocation)>
      Runtime;
  /// The same for a runtime function template whose first template
  /// argument is given (fluxion::raise<E>).
  std::function<clang::FunctionDecl *(llvm::StringRef, clang::QualType,
                                      llvm::ArrayRef<clang::QualType>,
                                      clang::SourceLocation)>
      RuntimeFor;
  /// Instantiates the body of a template's instance used by lowered code.
  std::function<void(clang::FunctionDecl *, clang::SourceLocation)>
      Instantiate;
  /// The call operator of a lambda for arguments of the given types (a
  /// generic lambda's instance, instantiated); null if none fits.
  std::function<clang::CXXMethodDecl *(const clang::CXXRecordDecl *,
                                       llvm::ArrayRef<clang::QualType>,
                                       clang::SourceLocation)>
      LambdaCall;
  /// The translation unit's counter globals; null: writes to globals are
  /// refused.
  EffectGlobals *Effects = nullptr;
  /// Globals the annotation names (differentiated like parameters): they
  /// may be written.
  llvm::SmallPtrSet<const clang::VarDecl *, 2> NamedGlobals;

private:
  /// The definition whose body is being lowered (a view's original's).
  const clang::FunctionDecl *BodyOwner = nullptr;

public:

  /// Lower dynamic-size matrix products to calls of fluxion::eigen_product,
  /// run by Eigen's kernels in both sweeps, when the runtime declares it;
  /// off for sweeps that are differentiated again (f_hvp), which take
  /// coefficient loops (LowerEigenProduct.cpp).
  bool RuleProducts = true;

  /// Lowers FD (which must have a body). Returns null after reporting errors.
  std::unique_ptr<ir::Function> lower(clang::FunctionDecl *FD);

private:
  // Statements (LowerStmt.cpp). Each appends to Out; false after an error.
  bool lowerStmt(const clang::Stmt *S, ir::Block &Out);
  bool lowerCompound(const clang::CompoundStmt *S, ir::Block &Out);
  bool lowerDecl(const clang::DeclStmt *S, ir::Block &Out);
  bool lowerVarInit(ir::Var *V, const clang::Expr *Init, ir::Block &Out);
  /// A local reference or pointer (LowerAlias.cpp): an alias of the place
  /// its initialiser designates when that place cannot change while the
  /// variable lives, else why not (empty when it is an alias).
  std::string aliasProblem(const clang::VarDecl *VD);

public:
  clang::ASTContext &context() const { return Ctx; }
  /// A term of a pointer's position: an integer, or a walking pointer (its
  /// position); Negate subtracts it.
  struct PointerTerm {
    const clang::Expr *E;
    bool Negate;
  };
  /// The base of a pointer expression (x for x + k, &x[k], a walking
  /// pointer on x, an alias of x + k), its position terms added to Terms.
  const clang::Expr *splitPointer(const clang::Expr *E,
                                  llvm::SmallVectorImpl<PointerTerm> &Terms);

private:
  // Pointers that walk (LowerAlias.cpp): a base that stays put plus an
  // integer position.
  struct WalkingPointer {
    const clang::Expr *Base = nullptr;
    ir::Var *Pos = nullptr;
    /// A parameter that walks: its value on entry (the IR never changes
    /// it), which Base names.
    ir::Var *Entry = nullptr;
  };
  /// Pointer parameters the body moves become walkers; false after
  /// reporting one that moves to other memory.
  bool lowerWalkingParams(const clang::FunctionDecl *Def);
  /// The walking pointer E names (through conversions), or null.
  const clang::VarDecl *walkerRef(const clang::Expr *E) const;
  /// Why VD, which moves, cannot be a base plus a position; empty if it can.
  std::string walkProblem(const clang::VarDecl *VD, const clang::Expr *Base);
  /// Declares VD's position and sets it; else why VD cannot walk (nothing
  /// reported).
  std::string lowerWalkingPointer(const clang::VarDecl *VD, ir::Block &Out);
  ir::ExprP sumPointerTerms(llvm::ArrayRef<PointerTerm> Terms, ir::Block &Pre);
  /// VD's base plus Pos, of VD's type.
  ir::ExprP walkerPointer(const clang::VarDecl *VD, ir::ExprP Pos,
                          ir::Block &Pre);
  /// ++p, p-- on a walking pointer (null if UO is not one).
  ir::ExprP lowerWalkingStep(const clang::UnaryOperator *UO, ir::Block &Out);
  /// p = base + k, p += n, p -= n on a walking pointer.
  bool lowerWalkingAssignment(const clang::BinaryOperator *BO, ir::Block &Out);
  /// p != end, p < q, p - q on one base, one of them walking: positions
  /// compared (null if E is not such a comparison).
  ir::ExprP lowerWalkingComparison(const clang::BinaryOperator *E,
                                   ir::Block &Pre);
  /// Initialises the lvalue Slot of type Ty from Init (a number, an array,
  /// an object).
  bool lowerInitInto(ir::ExprP Slot, clang::QualType Ty,
                     const clang::Expr *Init, ir::Block &Out);
  /// Runs a constructor other than a trivial one on the object at Slot.
  bool lowerConstructorCall(ir::ExprP Slot, const clang::CXXConstructExpr *CE,
                            ir::Block &Out);
  bool lowerArrayInit(ir::ExprP Base, clang::QualType Ty,
                      const clang::Expr *Init, ir::Block &Out);
  // Objects of structs of reals (LowerRecord.cpp): initialisation and
  // copies become member-wise assignments, so later passes see scalars.
  /// std::get<I>(x) of a std::pair or std::array: true if E is one, with
  /// Out the member or element (null after an error).
  bool lowerStdGet(const clang::CallExpr *E, ir::Block &Pre, ir::ExprP &Out);
  /// A std::array place initialised from a braced list, element by
  /// element (LowerRecord.cpp).
  bool lowerStdArrayInit(ir::ExprP Base, clang::QualType Ty,
                         const clang::InitListExpr *IL, ir::Block &Out);
  bool lowerRecordInit(ir::ExprP Base, clang::QualType Ty,
                       const clang::Expr *Init, ir::Block &Out);
  /// An Eigen object held by another (Base: `p.R`) initialised by Init.
  bool lowerHeldEigenInit(ir::ExprP Base, clang::QualType Ty,
                          const clang::Expr *Init, ir::Block &Out);
  /// Reports (true) an object of Ty made or copied at Loc when Ty holds a
  /// pointer to reals.
  bool refuseObjectWithPointer(clang::QualType Ty, clang::SourceLocation Loc);
  bool copyMembers(ir::ExprP Dst, ir::ExprP Src, clang::QualType Ty,
                   clang::SourceLocation Loc, ir::Block &Out);
  void zeroMembers(ir::ExprP Dst, clang::QualType Ty, clang::SourceLocation Loc,
                   ir::Block &Out);
  /// Dst = Value for an element of type Ty: member by member for an object
  /// (Value an lvalue), a conversion for a number; a null Value is zero.
  bool assignElement(ir::ExprP Dst, ir::ExprP Value, clang::QualType Ty,
                     clang::SourceLocation Loc, ir::Block &Out);
  /// The object at Dst initialised from E: an initialiser lowerRecordInit
  /// takes, or an object of the function read in place (`v.push_back(p)`).
  bool lowerObjectInto(ir::ExprP Dst, clang::QualType Ty,
                       const clang::Expr *E, ir::Block &Out);
  /// A constructor's member initialisers (written and implicit), as
  /// assignments to the members of `*self`.
  bool lowerMemberInits(const clang::CXXConstructorDecl *Ctor, ir::Block &Out);
  /// An object of class type made by E (a call returning it, a
  /// constructor call): a new temporary holding it.
  ir::ExprP lowerTemporaryObject(const clang::Expr *E, ir::Block &Pre);
  /// `a = b` of class type (the trivial operator=): member-wise.
  bool lowerRecordAssignment(const clang::CXXOperatorCallExpr *E,
                             ir::Block &Out);
  bool lowerExprStmt(const clang::Expr *E, ir::Block &Out);
  bool lowerAssignment(const clang::BinaryOperator *BO, ir::Block &Out);
  /// ++x, x++, --x, x--: the update as a statement; returns the value the
  /// expression yields (the place after a prefix operator, the old value
  /// after a postfix one), null after an error.
  ir::ExprP lowerIncrement(const clang::UnaryOperator *UO, ir::Block &Out);
  bool lowerIf(const clang::IfStmt *S, ir::Block &Out);
  bool lowerFor(const clang::ForStmt *S, ir::Block &Out);
  /// A for loop marked by #pragma fluxion revolve (Marker is the call the
  /// pragma leaves in front of it).
  bool lowerRevolveLoop(const clang::CallExpr *Marker,
                        const clang::ForStmt *Loop, ir::Block &Out);
  /// `for (T v : a)` over an array of known size (LowerRangeFor.cpp): the
  /// counted loop `for (int k = 0; k < N; ++k)` with v = a[k] (a copy, or
  /// a[k] itself at each use for a reference).
  bool lowerRangeFor(const clang::CXXForRangeStmt *S, ir::Block &Out);
  bool lowerRangeForLoop(const clang::CXXForRangeStmt *S, ir::Block &Out);
  /// Why the place Place designates may change while S runs (a function
  /// call or a choice in it, or a variable it reads as a value that S
  /// writes); empty when it stays put (LowerAlias.cpp).
  std::string placeProblem(const clang::Expr *Place, const clang::Stmt *S);
  bool lowerWhile(const clang::WhileStmt *S, ir::Block &Out);
  bool lowerDo(const clang::DoStmt *S, ir::Block &Out);
  bool lowerSwitch(const clang::SwitchStmt *S, ir::Block &Out);
  bool lowerReturn(const clang::ReturnStmt *S, ir::Block &Out);
  bool lowerBody(const clang::Stmt *S, ir::Block &Out);
  /// Builds a loop whose condition may need hoisted statements: those are
  /// moved into the body followed by `if (!cond) break;`.
  bool lowerLoop(const clang::Expr *Cond, const clang::Stmt *Body,
                 const clang::Expr *Inc, bool TestFirst,
                 clang::SourceLocation Loc, ir::Block &Out);

  // Expressions (LowerExpr.cpp). Statements that must run first (hoisted
  // calls) are appended to Pre. Null after an error.
  ir::ExprP lowerExpr(const clang::Expr *E, ir::Block &Pre);
  ir::ExprP lowerCast(const clang::CastExpr *E, ir::Block &Pre);
  ir::ExprP lowerDeclRef(const clang::DeclRefExpr *E, ir::Block &Pre);
  ir::ExprP lowerMember(const clang::MemberExpr *E, ir::Block &Pre);
  ir::ExprP lowerUnary(const clang::UnaryOperator *E, ir::Block &Pre);
  ir::ExprP lowerBinary(const clang::BinaryOperator *E, ir::Block &Pre);
  ir::ExprP lowerConditional(const clang::ConditionalOperator *E,
                             ir::Block &Pre);
  ir::ExprP lowerShortCircuit(const clang::BinaryOperator *E, ir::Block &Pre);
  /// A call; nested calls are stored into a temporary unless TopLevel.
  /// Discarded: the result is not used (a call statement).
  ir::ExprP lowerCall(const clang::CallExpr *E, ir::Block &Pre,
                      bool TopLevel = false, bool Discarded = false);
  bool lowerArguments(const clang::FunctionDecl *Callee,
                      llvm::ArrayRef<const clang::Expr *> ArgExprs,
                      llvm::SmallVectorImpl<ir::ExprP> &Args, ir::Block &Pre,
                      clang::SourceLocation Loc);
  /// A call of Target, a function whose body is `return place;` returning
  /// a reference (LowerPlaceCall.cpp): true if it is one, with Out the
  /// place (null after an error).
  bool lowerPlaceCall(const clang::CallExpr *E, const clang::FunctionDecl *Target,
                      ir::Block &Pre, ir::ExprP &Out);
  /// A standard algorithm over positions in a container or an array
  /// (LowerAlgorithms.cpp): with a lambda, a loop in place calling it;
  /// otherwise a call of the runtime's pointer form (algorithm.hpp). True
  /// if E is one, with Out its value (null after an error or for none).
  bool lowerAlgorithm(const clang::CallExpr *E, ir::Block &Pre,
                      ir::ExprP &Out, bool Discarded);
  bool lowerAlgorithmLoop(const clang::CallExpr *E, llvm::StringRef Name,
                          ir::Block &Pre, ir::ExprP &Out);
  /// std::copy, std::copy_n, std::fill and std::fill_n over iterators of
  /// containers of numbers: a loop in place over the elements. False if E
  /// is not one of those forms (the runtime's version is called then).
  bool lowerElementLoop(const clang::CallExpr *E, llvm::StringRef Name,
                        ir::Block &Pre, ir::ExprP &Out);

  // Iterators of containers (LowerIterators.cpp): a container variable
  // plus an integer position.
  struct IteratorPosition {
    /// The container variable (a DeclRefExpr) and its storage.
    const clang::Expr *Container = nullptr;
    ir::ExprP Storage;
    /// Null after an error (reported).
    ir::ExprP Pos;
  };
  /// E's container and position, if E is an iterator (begin(), end(), a
  /// local iterator, it + n, ++it, std::next ...); nullopt if it is none.
  std::optional<IteratorPosition>
  lowerIteratorPosition(const clang::Expr *E, ir::Block &Pre);
  /// ++it, it--, it += n, it = e on a local iterator: the change (in
  /// Pre) and the position the expression yields.
  IteratorPosition moveIterator(const clang::CXXOperatorCallExpr *Op,
                                ir::Block &Pre);
  /// std::max_element(b, e) and the other positions algorithm.hpp marks,
  /// over iterators (LowerAlgorithms.cpp); nullopt if E is none.
  std::optional<IteratorPosition>
  lowerPositionAlgorithm(const clang::CallExpr *E, ir::Block &Pre);
  /// E's arguments, iterators as pointers into the storage, with their
  /// types; First gets the first argument's position. False after an error.
  bool lowerAlgorithmArgs(const clang::CallExpr *E, ir::Block &Pre,
                          llvm::SmallVectorImpl<ir::ExprP> &Args,
                          llvm::SmallVectorImpl<clang::QualType> &Types,
                          IteratorPosition *First = nullptr);
  /// The position as a pointer into the storage.
  ir::ExprP iteratorPointer(const IteratorPosition &P);
  /// `auto it = x.begin();`: a position local (false after an error).
  bool lowerIteratorLocal(const clang::VarDecl *VD, ir::Block &Out);
  /// An operator applied to iterators (*it, ++it, it != e, it - b ...),
  /// std::distance: true if E is one, with Out its value (null after an
  /// error).
  bool lowerIteratorOp(const clang::CallExpr *E, ir::Block &Pre,
                       ir::ExprP &Out);
  /// C++20's rewritten comparisons (`it != e` as `!(it == e)`) of
  /// iterators.
  bool lowerIteratorComparison(const clang::CXXRewrittenBinaryOperator *E,
                               ir::Block &Pre, ir::ExprP &Out);
  /// it == e, it < e, e - it on positions of one container.
  ir::ExprP compareIterators(clang::BinaryOperatorKind Op,
                             const clang::Expr *L, const clang::Expr *R,
                             clang::QualType Ty, ir::Block &Pre,
                             clang::SourceLocation Loc);
  /// The container's element count (its count while it grows).
  ir::ExprP containerSize(ir::Var *Storage, clang::SourceLocation Loc);
  struct IteratorLocal {
    const clang::Expr *Container = nullptr;
    ir::Var *Pos = nullptr;
  };
  llvm::DenseMap<const clang::VarDecl *, IteratorLocal> Iterators;
  /// A local std::vector whose size changes after it is declared (a
  /// push_back, resize, clear, assign or copy later in its scope, or a
  /// declaration in a loop): its element count is an integer local (its
  /// size() from then on), set by each change (LowerContainer.cpp).
  void noteResizedContainer(const clang::VarDecl *VD, ir::Block &Out,
                            const clang::Stmt *Body = nullptr);
  llvm::DenseMap<ir::Var *, ir::Var *> GrowCounts;
  /// The position the last insert or erase lowered was at: the iterator
  /// it returns (`it = t.erase(it)`).
  ir::ExprP SizeChangeAt;
  /// The size a local container's declaration gives it.
  llvm::DenseMap<ir::Var *, ir::ExprP> DeclaredSizes;
  /// Local std::vectors declared empty and not used yet, with the depth of
  /// the block they are declared in: the first resize or assign there
  /// sizes them (LowerContainer.cpp).
  llvm::DenseMap<const clang::VarDecl *, unsigned> UnsizedLocals;
  /// A member call or subscript of a container (LowerContainer.cpp): true
  /// if E is one, with Out its lowering (null after an error).
  bool lowerContainerCall(const clang::CallExpr *E, ir::Block &Pre,
                          ir::ExprP &Out);
  /// A member call on an Eigen Matrix or Array variable (LowerEigen.cpp):
  /// coefficients, extents, reductions and fills; Out is null after an
  /// error.
  void lowerEigenCall(const clang::CallExpr *E,
                      const clang::CXXMethodDecl *Method, ir::ExprP Storage,
                      const EigenShape &Shape, ir::Block &Pre, ir::ExprP &Out);
  /// The first sizing of a dynamic-size Eigen local declared empty
  /// (`y = e`, `y.resize(n)`, `m.setZero(r, c)`, `v.setConstant(n, c)`):
  /// a Resize, then the values. False when E is no sizing form.
  bool sizeEigenLocal(const clang::CallExpr *E, llvm::StringRef Name,
                      ir::ExprP Storage, const EigenShape &Shape,
                      ir::Block &Pre, ir::ExprP &Out);
  /// Storage = Rhs, Storage sized as Rhs first (Eigen's resizing `=`).
  bool assignSizing(ir::ExprP Storage, const EigenShape &Shape,
                    const clang::Expr *Rhs, ir::Block &Pre,
                    clang::SourceLocation Loc);
  /// E's variable when it is a dynamic-size Eigen local declared empty and
  /// not used yet, in the block E is in, at the loop depth of E.
  const clang::VarDecl *unsizedEigenLocal(const clang::Expr *E) const;
  /// VD is a local declared empty, not used yet, and this is the block it
  /// is declared in, at the same loop depth: a resize here sizes it.
  bool sizedHere(const clang::VarDecl *VD) const;
  /// Dynamic-size Eigen locals declared empty inside loops, with the loop
  /// depth there: sized once, before the outermost loop.
  llvm::DenseMap<const clang::VarDecl *, unsigned> UnsizedInLoops;
  /// Where the local declared empty that Storage is gets its size, of
  /// Extents: Pre, or before the outermost loop when it is declared in a
  /// loop. Null after reporting extents that the loop computes.
  ir::Block *sizingBlock(ir::ExprP Storage, llvm::ArrayRef<ir::ExprP> Extents,
                         ir::Block &Pre, clang::SourceLocation Loc);
  /// `v << a, b, c` on an Eigen variable: one assignment per coefficient.
  /// True if E is such a chain, with Out the variable (null after an error).
  bool lowerEigenCommaInit(const clang::CallExpr *E, ir::Block &Pre,
                           ir::ExprP &Out);
  /// Eigen expressions (LowerEigenExpr.cpp). The term of E, a variable or
  /// an expression over variables; scalars it scales by are evaluated into
  /// Pre. Null after an error.
  std::unique_ptr<EigenTerm> lowerEigenTerm(const clang::Expr *E,
                                            ir::Block &Pre);
  std::unique_ptr<EigenTerm> lowerEigenTermOf(const clang::Expr *E,
                                              ir::Block &Pre);
  // `auto d = p - q;` (LowerEigenAuto.cpp): a local holding an Eigen
  // expression stands for the expression, its scalars evaluated where it
  // is declared, its variables read where it is used, as Eigen does.
  static bool isEigenExpressionLocal(const clang::VarDecl *VD);
  bool lowerEigenExpressionLocal(const clang::VarDecl *VD, ir::Block &Out);
  llvm::DenseMap<const clang::VarDecl *, std::shared_ptr<const EigenTerm>>
      EigenLocals;
  // Products by Eigen's kernels (LowerEigenProduct.cpp).
  /// An operand of fluxion::eigen_product: op(M), M Rows x Cols stored
  /// column by column Ld apart from Data, op a transpose if Transposed.
  struct ProductOperand {
    ir::ExprP Data, Rows, Cols, Ld;
    bool Transposed = false;
  };
  bool productsByRules();
  /// A product with an extent the types leave dynamic.
  static bool dynamicProduct(const EigenTerm &P);
  bool productOperand(const EigenTerm &T, ProductOperand &Out);
  /// The whole variable Dst (of shape Shape) Op= the product P, whose
  /// operands are productOperands, by one call.
  bool callProduct(const EigenTerm &P, ir::ExprP Dst, const EigenShape &Shape,
                   clang::BinaryOperatorKind Op, ir::Block &Pre,
                   clang::SourceLocation Loc);
  /// Makes P's operands productOperands (new locals holding the others'
  /// values); false if one cannot be held here (no error reported).
  /// Failed is set after an error.
  bool productOperands(EigenTerm &P, ir::Block &Pre, bool &Failed);
  /// Evaluates each dynamic product of T (innermost first) into a new
  /// local by a call, and reads it there; products whose locals cannot be
  /// sized here stay coefficient loops. False after an error.
  bool evaluateProducts(EigenTerm &T, ir::Block &Pre);
  /// Dst Op= R by one call when R is a dynamic product and Dst a whole
  /// variable: Handled then, false otherwise; false result after an error.
  bool assignProduct(ir::ExprP Dst, const EigenShape &Shape,
                     clang::BinaryOperatorKind Op, EigenTerm &R,
                     ir::Block &Pre, clang::SourceLocation Loc,
                     bool &Handled);
  /// A new local of Eigen type T for a value Rows x Cols, sized where it
  /// is declared or, in a loop, before the outermost loop (LoopEntry) when
  /// its extents are known there; null when it cannot be (no error).
  ir::ExprP productTemporary(clang::QualType T, ir::ExprP Rows, ir::ExprP Cols,
                             ir::Block &Pre, clang::SourceLocation Loc);
  /// P, or the row or column scaling it is when a factor of the product P
  /// is v.asDiagonal().
  std::unique_ptr<EigenTerm> diagonalProduct(std::unique_ptr<EigenTerm> P);
  /// T::Zero(), Ones(), Constant(c), Identity(), with sizes when T is
  /// dynamic; null (nothing reported) for another static call.
  std::unique_ptr<EigenTerm> lowerEigenNullary(const clang::CallExpr *CE,
                                               ir::Block &Pre);
  /// `A.llt().solve(b)` (and ldlt, partialPivLu, householderQr) and
  /// `A.inverse()`: operations lowered to runtime calls with rules
  /// (LowerEigenSolve.cpp).
  bool isEigenRuleTerm(const clang::Expr *E);
  /// The result of E (isEigenRuleTerm), a new local written by the
  /// runtime's call on variables.
  std::unique_ptr<EigenTerm> lowerEigenRuleTerm(const clang::Expr *E,
                                                ir::Block &Pre);
  /// `Object.determinant()`: the runtime's fluxion::determinant.
  ir::ExprP lowerEigenDeterminant(const clang::Expr *Object,
                                  clang::QualType ResultType, ir::Block &Pre,
                                  clang::SourceLocation Loc);
  /// An operand of such a call: an Eigen variable, or a new local holding
  /// an expression's value.
  struct EigenRuleOperand {
    ir::ExprP Storage;
    clang::QualType Type;
    std::unique_ptr<EigenTerm> Term;
  };
  bool eigenRuleOperand(const clang::Expr *X, llvm::StringRef Name,
                        llvm::StringRef What, EigenRuleOperand &Out,
                        ir::Block &Pre);
  /// fluxion::Fn(Inputs..., Output) (a void rule writing Output, which it
  /// returns) or fluxion::Fn(Inputs...) (a value, in a new local).
  ir::ExprP callEigenRule(llvm::StringRef Fn,
                          llvm::ArrayRef<ir::ExprP> Inputs,
                          llvm::ArrayRef<clang::QualType> InputTypes,
                          ir::ExprP Output, clang::QualType OutputType,
                          clang::QualType ResultType, ir::Block &Pre,
                          clang::SourceLocation Loc);
  /// The runtime declares fluxion::Fn; else reported for What.
  bool haveEigenRules(llvm::StringRef Fn, llvm::StringRef What,
                      clang::SourceLocation Loc);
  /// A new local Eigen object of type T named Name, of Count coefficients
  /// when T is dynamic, assigned Value if there is one: its storage. What
  /// names the operation needing it in errors (a dynamic matrix, a loop).
  ir::ExprP eigenTemporary(llvm::StringRef Name, clang::QualType T,
                           const std::unique_ptr<EigenTerm> &Value,
                           ir::ExprP Count, llvm::StringRef What,
                           ir::Block &Pre, clang::SourceLocation Loc);
  /// Extents X and Y of an Eigen expression's operands agree: compared
  /// here when both are constants, at run time (appended to Pre)
  /// otherwise. What: 0 a product's inner extents, 1 rows, 2 columns, 3 a
  /// solved matrix's rows and columns, 4 the rows of a solve's matrix and
  /// right-hand side.
  bool sameExtent(ir::ExprP X, ir::ExprP Y, int What, ir::Block &Pre,
                  clang::SourceLocation Loc);
  /// Appends to Pre a call of the runtime's check fluxion::Name(Args...);
  /// false, reported, when the runtime is not included.
  bool runtimeCheck(llvm::StringRef Name, llvm::ArrayRef<ir::ExprP> Args,
                    ir::Block &Pre, clang::SourceLocation Loc);
  /// The storage of E, an Eigen variable of the function (a writable one
  /// if Writable); null, reported as What on anything else.
  ir::ExprP eigenVariableOf(const clang::Expr *E, ir::Block &Pre,
                            llvm::StringRef What, bool Writable);
  /// The storage of an Eigen object held by another (Place: `c.R`), as a
  /// pointer to its first coefficient (`&c.R(0)`), const if Const.
  ir::ExprP heldEigenStorage(ir::ExprP Place, bool Const);
  /// The term of an Eigen variable (its storage) of the given shape.
  std::unique_ptr<EigenTerm> eigenVariableTerm(ir::ExprP Storage,
                                               const EigenShape &Shape,
                                               clang::SourceLocation Loc);
  /// The element (an lvalue) at coefficient (I, J) of the variable T.
  ir::ExprP eigenElement(const EigenTerm &T, ir::ExprP I, ir::ExprP J);
  /// Coefficient (I, J) of T; statements it needs (a product's loop) go to
  /// Body.
  ir::ExprP eigenCoefficient(const EigenTerm &T, ir::ExprP I, ir::ExprP J,
                             ir::Block &Body);
  /// Loops over T's coefficients (columns outside, rows inside), calling
  /// Use with each coefficient and its row and column.
  bool forEachEigenCoefficient(
      const EigenTerm &T, ir::Block &Out,
      llvm::function_ref<void(ir::ExprP Coef, ir::ExprP I, ir::ExprP J,
                              ir::Block &Body)>
          Use);
  /// sum, squaredNorm, norm, mean, prod, maxCoeff, minCoeff of T, or
  /// T.dot(*Other): a loop into a local; null when Name is none of them.
  ir::ExprP reduceEigen(llvm::StringRef Name, const EigenTerm &T,
                        const EigenTerm *Other, ir::Block &Pre,
                        clang::SourceLocation Loc);
  static bool isEigenReduction(llvm::StringRef Name, unsigned Args);
  /// Dst Op= Rhs for an Eigen variable Dst (Op: =, +=, -=).
  bool lowerEigenAssignment(ir::ExprP Dst, clang::BinaryOperatorKind Op,
                            const clang::Expr *Rhs, ir::Block &Pre,
                            clang::SourceLocation Loc);
  /// `return e;` in a view of a function returning a fixed-size Eigen
  /// object: e assigned to the view's `result` (FunctionViews.h).
  bool lowerEigenReturn(const clang::Expr *V, ir::Block &Out);
  /// Dst (fixed-size storage) = the coefficients CE is built from
  /// (coefficientConstruct), one assignment each.
  bool assignCoefficients(const clang::CXXConstructExpr *CE, ir::ExprP Dst,
                          ir::Block &Out);
  /// The same for a std::array: a braced list, or a container variable of
  /// the same type, copied into `result` element by element.
  bool lowerArrayReturn(const clang::Expr *V, ir::Block &Out);
  /// Dst (the storage of a std::array of type T) = V: a braced list, a
  /// container variable, or a callee's result, element by element.
  bool lowerArrayAssignment(ir::ExprP Dst, clang::QualType T,
                            const clang::Expr *V, ir::Block &Out);
  /// The one matrix product of R that an assignment (Op) can accumulate
  /// column by column into its destination: its left factor a column-major
  /// matrix variable, only coefficient-wise operations above it. Null when
  /// there is none.
  EigenTerm *columnwiseProduct(EigenTerm &R, clang::BinaryOperatorKind Op);
  /// Dst Op= R, into the view View of Dst (a Block term over Dst's
  /// variable) when there is one.
  bool assignEigenTerm(ir::ExprP Dst, clang::BinaryOperatorKind Op,
                       const std::unique_ptr<EigenTerm> &R, ir::Block &Pre,
                       clang::SourceLocation Loc,
                       const EigenTerm *View = nullptr);
  /// `v.segment(i, n) = e`, `X.col(k) += e` (Op: =, +=, -=), through
  /// noalias() or not: true if Target is a view of an Eigen variable, with
  /// Out the variable (null after an error).
  /// `Dst op= Rhs` on an array (the variable, or the View of it): a number
  /// added to or taken from every coefficient, or a number or an array
  /// expression multiplied or divided in, coefficient by coefficient.
  bool assignToArray(ir::ExprP Dst, clang::BinaryOperatorKind Op,
                     const clang::Expr *Rhs, ir::Block &Pre,
                     clang::SourceLocation Loc, const EigenTerm *View);
  /// `a.array() op= e`, `a.matrix() = e` on a whole variable: true if Op
  /// is one (Out null after an error).
  bool lowerWholeArrayAssignment(const clang::CXXOperatorCallExpr *Op,
                                 ir::Block &Pre, ir::ExprP &Out);
  bool lowerEigenViewAssignment(const clang::Expr *Target,
                                clang::BinaryOperatorKind Op,
                                const clang::Expr *Rhs, ir::Block &Pre,
                                clang::SourceLocation Loc, ir::ExprP &Out);
  /// Reductions and 1x1 results of Eigen expressions, assignments through
  /// noalias(): true if E is one, with Out its lowering.
  bool lowerEigenExpressionCall(const clang::CallExpr *E, ir::Block &Pre,
                                ir::ExprP &Out);
  /// A call of an Eigen operation the engine does not follow (an
  /// arithmetic operator on whole objects, a view, a decomposition): true
  /// after reporting it, naming the operation.
  bool refuseEigenOperation(const clang::CallExpr *E);
  /// for (k = Begin; k < N; ++k) Body(k), appended to Out.
  void appendIndexLoop(int64_t Begin, ir::ExprP N, clang::SourceLocation Loc,
                       ir::Block &Out,
                       llvm::function_ref<void(ir::ExprP, ir::Block &)> Body);
  void appendIndexLoop(ir::ExprP Begin, ir::ExprP N, clang::SourceLocation Loc,
                       ir::Block &Out,
                       llvm::function_ref<void(ir::ExprP, ir::Block &)> Body);
  /// A member call or subscript of a container held by another or by an
  /// object (isContainerPlace): elements, size, front, back, data (Out is
  /// null after an error).
  void lowerHeldContainerCall(const clang::CallExpr *E,
                              const clang::CXXMethodDecl *Method,
                              ir::ExprP Place, bool Const, ir::Block &Pre,
                              ir::ExprP &Out);
  /// A call changing the size of a local std::vector whose count the
  /// function follows (resize, assign, clear, pop_back, `t = x`,
  /// `t = {a, b}`, swap; LowerResize.cpp): Out is null after an error.
  void lowerSizeChange(const clang::CallExpr *E, llvm::StringRef Name,
                       ir::Var *Storage, ir::Var *Count, ir::Block &Pre,
                       ir::ExprP &Out);
  /// `std::swap(u, v)` or `u.swap(v)` of two std::vectors whose counts the
  /// function follows: their elements and sizes exchanged (LowerResize.cpp);
  /// false if U and V are no such containers (nothing reported).
  bool lowerContainerSwap(const clang::Expr *U, const clang::Expr *V,
                          clang::SourceLocation Loc, ir::Block &Pre,
                          ir::ExprP &Out);
  /// A container passed to a callee's container parameter: its storage.
  ir::ExprP lowerContainerArg(const clang::Expr *A, clang::QualType ParamTy,
                              ir::Block &Pre);
  ir::ExprP lowerLiteral(const clang::Expr *E);
  /// `std::cout << a << b;` (LowerEffects.cpp): printed in the forward sweep.
  static bool isStreamOutput(const clang::Expr *E);
  bool lowerStreamOutput(const clang::Expr *E, ir::Block &Out);
  /// `throw E(args);` (LowerEffects.cpp): raised in the forward sweep.
  bool lowerThrow(const clang::CXXThrowExpr *E, ir::Block &Out);
  /// Item lowered as an argument of such a helper, wrapped in StopGrad.
  bool lowerEffectArgument(const clang::Expr *Item, ir::Block &Out,
                           llvm::SmallVectorImpl<ir::ExprP> &Args,
                           llvm::SmallVectorImpl<clang::QualType> &Types);
  /// V is a counter global that differentiated code writes.
  bool effectGlobal(const ir::Var *V) const;
  ir::ExprP lowerLValue(const clang::Expr *E, ir::Block &Pre);
  /// The address of lvalue LV as a pointer of type PtrTy (&p[i] is p + i).
  ir::ExprP addressOf(ir::ExprP LV, clang::QualType PtrTy);
  /// False (reported) if two pointer or reference arguments of a call are
  /// the same address and the callee writes through one of them.
  bool checkAliasing(llvm::ArrayRef<const clang::Expr *> ArgExprs,
                     const clang::FunctionDecl *Callee,
                     llvm::ArrayRef<ir::ExprP> Args);
  /// An argument bound to a reference parameter of type ParamTy: the
  /// address of the lvalue, or of a temporary holding a value.
  ir::ExprP lowerReferenceArg(const clang::Expr *A, clang::QualType ParamTy,
                              ir::Block &Pre);
  /// Stores E into a fresh temporary (appended to Pre); returns its ref.
  /// The value of E converted to To. A call whose result type differs
  /// from To is stored into a temporary of its own type first: the
  /// builders differentiate a call only as the whole right-hand side of an
  /// assignment, never inside a conversion.
  clang::QualType assignableType(clang::QualType T) const;
  bool returnsPositionInFirstRange(const clang::FunctionDecl *Callee);
  /// algorithm.hpp marks std::Name as returning a position in its first
  /// range (fluxion::custom::Name_position).
  bool hasPositionMarker(llvm::StringRef Name);
  /// Glvalues whose value is only read (converted to a value, bound to a
  /// const T&): a call returning a reference there may be lowered as one
  /// returning the value (std::max). Conditionals pass it to both branches.
  llvm::DenseSet<const clang::Expr *> OnlyRead;
  void noteRead(const clang::Expr *E);
  /// noteRead of what E converts to a value, if E is such a conversion.
  void noteConvertedToValue(const clang::Expr *E);
  bool resultOnlyRead(const clang::Expr *E);
  ir::ExprP convertResult(ir::ExprP E, clang::QualType To, ir::Block &Pre);
  ir::ExprP materialize(ir::ExprP E, ir::Block &Pre, llvm::StringRef Name,
                        clang::SourceLocation Loc);

  // Lambdas defined and called in the function (LowerLambda.cpp): each
  // call is the lambda's body in place.
  using LambdaCopies =
      llvm::SmallVector<std::pair<const clang::VarDecl *, ir::Var *>, 2>;
  struct LambdaLocal {
    const clang::LambdaExpr *Lambda = nullptr;
    /// Variables captured by copy (and init-captures), and the locals that
    /// took their values where the lambda was created.
    LambdaCopies Copies;
  };
  bool isLambdaCall(const clang::CallExpr *E) const;
  bool lowerLambdaDecl(const clang::VarDecl *VD, ir::Block &Out);
  bool lowerCaptures(const clang::LambdaExpr *L, LambdaCopies &Copies,
                     ir::Block &Out);
  /// The call-site form's function for a lambda calls it on its closure
  /// parameter Self: the captured values are read from its members.
  bool lowerClosureCaptures(const clang::DeclRefExpr *Self,
                            LambdaCopies &Copies, ir::Block &Out);
  ir::ExprP lowerLambdaCall(const clang::CallExpr *E, ir::Block &Pre);
  /// The copies a closure (a lambda written in place, a lambda local, a
  /// closure parameter) calls see; null after an error (reported at Loc).
  const LambdaCopies *closureCopies(const clang::Expr *Closure,
                                    LambdaCopies &Fresh, ir::Block &Pre,
                                    clang::SourceLocation Loc);
  /// The body of the lambda call operator Op in place, its parameters
  /// bound to Args; the result (an int 0 for void), null after an error.
  ir::ExprP inlineLambda(const clang::CXXMethodDecl *Op,
                         const LambdaCopies &Copies,
                         llvm::ArrayRef<const clang::Expr *> Args,
                         ir::Block &Pre, clang::SourceLocation Loc);
  /// The body of Fn in place (a lambda's call operator, or a function
  /// taking a lambda): parameters bound to Args in the caller's scope, a
  /// closure parameter to the argument's lambda; What names Fn in errors.
  ir::ExprP inlineBody(const clang::FunctionDecl *Fn,
                       const LambdaCopies &Copies,
                       llvm::ArrayRef<const clang::Expr *> Args,
                       ir::Block &Pre, clang::SourceLocation Loc,
                       llvm::StringRef What);
  /// The storage of the local container a body returns (`return r;`), or
  /// of a new local holding the Eigen expression it returns; reported when
  /// it returns anything else.
  ir::ExprP returnedContainer(const clang::FunctionDecl *Fn,
                              const clang::ReturnStmt *Ret, ir::Block &Pre,
                              clang::SourceLocation Loc);
  /// Init when it is a call of a function of the program returning a
  /// container of type T by value (`std::vector<double> p = softmax(z);`):
  /// its body is inlined and its returned local becomes the variable.
  const clang::CallExpr *containerResultCall(const clang::Expr *Init,
                                             clang::QualType T) const;
  /// A call of a function with a lambda parameter (`apply(f, x)`, a
  /// template instantiated for a closure): its body in place, so that the
  /// lambda is called in place too. True if E is one (Out null after an
  /// error).
  bool lowerCallTakingLambda(const clang::CallExpr *E, ir::Block &Pre,
                             ir::ExprP &Out);
  /// Reports E if it makes a std::function (true then).
  bool refuseStdFunction(const clang::Expr *E);
  /// Element expressions an algorithm's loop builds (`x[k]`, its counter
  /// unchanged in the body): a lambda's `T &` parameter may alias them.
  llvm::SmallPtrSet<const clang::Expr *, 4> StablePlaces;
  llvm::DenseMap<const clang::VarDecl *, LambdaLocal> Lambdas;
  unsigned LambdaDepth = 0;
  /// Loops around the statement being lowered.
  unsigned LoopDepth = 0;
  /// Inside a loop: statements that run once before the outermost one
  /// (the sizing of locals holding products, LowerEigenProduct.cpp); null
  /// outside loops and in loops that have none.
  ir::Block *LoopEntry = nullptr;
  /// Integer locals declared outside every loop.
  llvm::SmallPtrSet<const ir::Var *, 8> DeclaredOutsideLoops;
  /// E has the value before the outermost loop that it has in the loops:
  /// constants, the extents of variables (no container changes size
  /// inside a loop), and integers declared outside the loops (or
  /// parameters) that nothing in their function writes.
  bool knownBeforeLoops(const ir::Expr &E);
  /// A local std::vector or std::array (LowerContainerInit.cpp): its storage,
  /// sized and filled from its initialiser.
  /// InitAs: the initialiser to lower in place of VD's own (a range-based
  /// for's element).
  bool lowerContainerLocal(const clang::VarDecl *VD, ir::Block &Out,
                           const clang::Expr *InitAs = nullptr);
  /// A parameter taken by value that the function writes: a local copy of
  /// the argument, which P names in the body.
  bool lowerParamCopy(clang::ParmVarDecl *P, ir::Block &Out);

  ir::Var *varFor(const clang::VarDecl *D, clang::SourceLocation UseLoc);
  /// A std::vector or std::array of Eigen objects: true after reporting
  /// it, with advice.
  bool refuseEigenContainer(clang::QualType T, clang::SourceLocation Loc,
                            llvm::StringRef What);
  bool checkType(clang::QualType T, clang::SourceLocation Loc,
                 llvm::StringRef What);
  bool unsupported(const clang::Stmt *S);

  clang::ASTContext &Ctx;
  DiagReporter &Diags;
  std::unique_ptr<ir::Function> F;
  llvm::DenseMap<const clang::VarDecl *, ir::Var *> Vars;
  ir::Var *ReturnVar = nullptr;
  /// A method lowered as a function (Methods.h): the variable `this` is.
  ir::Var *Self = nullptr;
  /// A function returning an object, lowered as a view: where it goes.
  ir::Var *Result = nullptr;
  bool HadClangErrors = false;
  /// Locals already reported (or deliberately not lowered): expressions that
  /// use them report nothing more.
  llvm::SmallPtrSet<const clang::VarDecl *, 4> Poisoned;
  /// Local references and pointers lowered as their initialisers.
  llvm::DenseMap<const clang::VarDecl *, const clang::Expr *> Aliases;
  llvm::DenseMap<const clang::VarDecl *, WalkingPointer> Walkers;
  /// In a place call of a method (lowerPlaceCall): the object `this` is
  /// (a pointer when ThisArrow), and how deep such calls nest.
  const clang::Expr *ThisObject = nullptr;
  bool ThisArrow = false;
  unsigned PlaceCallDepth = 0;
  /// The compound statements being lowered, innermost last, with the index
  /// of the statement being lowered in each.
  llvm::SmallVector<std::pair<const clang::CompoundStmt *, unsigned>, 8> Scopes;
  bool usesPoisoned(const clang::Stmt *S) const;
};

/// How the body of Def (and of the callees it passes the parameter to) uses
/// the memory behind its pointer, array, reference or object parameter I (ParamUse.cpp).
/// Memory passed where it cannot be followed counts as read and written.
struct ParamMemoryUse {
  bool Read = false;
  bool Written = false;
};
ParamMemoryUse paramMemoryUse(const clang::FunctionDecl *Def, unsigned I);

/// True if S reads a value from memory rather than from a variable
/// (`idx[0]`, `*p`, `p->n`, a reference's referent): a place chosen by it
/// may move unseen (LowerAlias.cpp). With RowsStayPut, a row read from a
/// table of pointers to reals (`A[i]`) does not count: no differentiated
/// code stores one.
bool readsMemory(const clang::Stmt *S, bool RowsStayPut = false);

/// The container whose storage E designates: `v` for `v.data()` (Index
/// null) and for `v[k]` (Index k); null for anything else
/// (LowerContainer.cpp).
const clang::Expr *containerStorage(const clang::Expr *E,
                                    const clang::Expr *&Index);

/// E without the copies, conversions and temporaries around an object
/// passed by value (a closure given to a function) (LowerLambda.cpp).
const clang::Expr *withoutCopies(const clang::Expr *E);

/// True if S may change V: assign or increment it, take its address, bind
/// it to a non-const reference (LowerAlias.cpp).
bool mayBeWritten(const clang::Stmt *S, const clang::VarDecl *V);

/// True for a std::vector member function that changes its size
/// (push_back, resize, clear, assign, operator=, ...).
bool changesContainerSize(llvm::StringRef Name);
/// A local or parameter std::vector whose size S changes after its
/// declaration (Only, when given): a member call of S changing its size,
/// or, unless Only is given, a declaration in a loop of S (InLoop: S is
/// inside one); null if none (LowerContainer.cpp).
const clang::VarDecl *resizedLocal(const clang::Stmt *S,
                                   const clang::VarDecl *Only = nullptr,
                                   bool InLoop = false);

/// How the user spells the construct S ("goto", "try", "member access").
llvm::StringRef describeConstruct(const clang::Stmt *S);

/// True if the type is one the engine differentiates (float, double,
/// long double).
bool isDifferentiableScalar(clang::QualType T);
/// Element type of a pointer or array type, else null type.
clang::QualType elementType(clang::QualType T);
/// True for floating scalars, classes of them (isDifferentiableRecord), and
/// pointers/arrays of either.
bool isDifferentiableType(clang::QualType T);
/// True for a type of a function template's parameter that is
/// differentiable for some template arguments: `T`, `const T&`, `T*`,
/// `T[N]` where T is a template parameter (or any dependent type).
bool mayBeDifferentiable(clang::QualType T);
/// A class whose data members are all numbers, enums, fixed-size arrays of
/// them or such classes again, with at least one floating member: a struct
/// of reals (`struct Particle { double x, y, z, m; }`). Its floating members
/// are differentiated; its adjoint is an object of the same class.
bool isDifferentiableRecord(clang::QualType T);
/// A class that holds no real numbers at all (a policy, a tag, a polymorphic
/// shape with no data): passed through untouched, its methods callable.
bool isClassWithoutReals(clang::QualType T);
/// A user's class with no data at all, a stateless function object
/// (`struct Sq { double operator()(double) const; }`): passed by value and
/// made as a temporary with nothing to differentiate or record. Lambdas,
/// std's and Eigen's classes are not.
bool isEmptyFunctionObject(clang::QualType T);
/// True for a class of reals (or an array of one) with a member that
/// points to const reals (`struct Span { const double *p; int n; }`) or
/// a container of them (`struct Layer { std::vector<double> w; }`): its
/// objects hold memory outside themselves, and are read and written where
/// they are, never made or copied.
bool pointsToReals(clang::QualType T);
/// The first container member of such a class (`w`, `a.w`), or empty.
std::string containerMember(clang::QualType T);
/// A constructor or assignment operator that does what a trivial one does
/// to a class of reals: a trivial one, or one the compiler writes for a
/// class whose members are such classes, numbers, arrays of them or
/// fixed-size Eigen objects (whose default constructor leaves the
/// coefficients as they are and whose copy copies them).
bool actsTrivially(const clang::CXXMethodDecl *M);
std::optional<EigenShape> eigenShape(clang::QualType T);
/// The object type a Map or Ref of type T views, spelled as the user wrote
/// it where T spells it (`VectorXd` for `Map<const VectorXd>`).
clang::QualType eigenViewedType(clang::QualType T, const EigenShape &Shape);
/// Declared in namespace Eigen (or one nested in it): Eigen's objects,
/// expressions, views and decompositions.
bool isInEigen(const clang::Decl *D);
/// The element type of a std::vector or std::array of reals (or the scalar
/// of an Eigen Matrix or Array, eigenShape) (`double` for
/// `const std::vector<double> &`), of classes of reals, or of such
/// containers (`std::vector<double>` for a `std::vector<std::vector<double>>`);
/// null for any other type. The engine sees such a container as its
/// storage: a pointer to the elements, with a size (LowerContainer.cpp).
clang::QualType containerElement(clang::QualType T);
/// The element type (const-qualified for a const_iterator) of an iterator
/// of a std::vector (a class wrapping a pointer to its elements); null for
/// any other type. A std::array's iterators are pointers.
clang::QualType containerIteratorElement(clang::QualType T);
/// An iterator of a container: of a type containerIteratorElement knows,
/// or the pointer a std::array's begin() or end() returns
/// (LowerIterators.cpp).
bool isIteratorExpr(const clang::Expr *E);
/// N for a std::array<T, N> (rows * columns for a fixed-size Eigen
/// object); none for any other type.
std::optional<uint64_t> containerFixedSize(clang::QualType T);
/// V stands for the elements of a container parameter.
bool isContainerStorageVar(const ir::Var *V);
/// E is a container held by another (`X[i]` of a std::vector of them) or
/// by an object (`L.w`): an lvalue of the container's type, whose
/// elements are Index expressions over it (LowerContainer.cpp).
bool isContainerPlace(const ir::Expr &E);
/// x[i], x.at(i), x.front(), x.back() or x.data() on a std::vector or
/// std::array: a place in the container, like a[i] for an array.
bool isContainerElementCall(const clang::Stmt *S);
/// Why class T cannot be differentiated (a pointer to reals among its
/// members, a base class, a member of a library type, ...), naming the
/// member; empty when it is a struct of reals or of integers only.
std::string recordProblem(clang::QualType T);
/// Calls Leaf(dst, src, type) for every scalar in an object or array of
/// type Ty (base classes' members first, then members in order, arrays
/// element by element), with the lvalues reached from Dst (and from Src,
/// when given) (LowerRecord.cpp).
void forEachScalar(
    clang::ASTContext &Ctx, ir::ExprP Dst, ir::ExprP Src, clang::QualType Ty,
    llvm::function_ref<void(ir::ExprP, ir::ExprP, clang::QualType)> Leaf);

} // namespace fluxion

#endif
