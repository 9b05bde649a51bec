//===- IR.h - Fluxion's differentiation IR ----------------------*- C++ -*-===//
//
// The engine lowers a function body from Clang's AST into this small
// structured IR, transforms it (jump elimination, activity, adjoint and
// tangent building), and emits the result back as Clang AST. The IR keeps
// Clang's types and declarations so that emission is exact; it differs from
// the AST in being small (a dozen node kinds), immutable for expressions
// (subtrees are shared freely), and free of C++'s many spellings of the same
// thing (compound assignment, increments, `for` vs `while`, implicit casts).
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_IR_H
#define FLUXION_ENGINE_IR_H

#include "clang/AST/Decl.h"
#include "clang/AST/OperationKinds.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace fluxion::ir {

/// A variable of the IR: a parameter, a (hoisted) local, a temporary the
/// engine introduced, a tape handle, or a global the function reads.
struct Var {
  enum class Kind { Param, Local, Temp, Tape, Global };
  Kind K;
  std::string Name;
  clang::QualType Type;
  /// The primal declaration this variable stands for (params, locals,
  /// globals); null for engine temporaries.
  clang::VarDecl *Origin = nullptr;
  /// For adjoint/tangent variables: the primal variable they shadow.
  Var *Primal = nullptr;
  /// Zero-initialise when declared (adjoints, counters).
  bool ZeroInit = false;
  /// Holds an adjoint (a variable's, a seed, a temporary carrying one) in a
  /// reverse sweep: a sweep run for several seeds at once (LaneExpansion.h)
  /// gives it one value per seed.
  bool Adjoint = false;
  /// Read through its address: a reference parameter `T &x` (or a tangent
  /// passed by value that the IR treats like one) is a `T *` here, every use
  /// is `*x`, and emitted code spells it as the reference (`x`, `&x`).
  bool ByRef = false;
  /// For Kind::Tape: element type of the tape.
  clang::QualType TapeElement;
  unsigned Id = 0;

  bool isArray() const { return Type->isConstantArrayType(); }
  bool isPointer() const { return Type->isPointerType(); }
};

enum class ExprKind {
  Const,   ///< floating or integer literal
  VarRef,  ///< a variable (an lvalue)
  Index,   ///< Ops[0][Ops[1]] (an lvalue); Ops[0] is a pointer or array
  Member,  ///< Ops[0].Field (an lvalue); Ops[0] an lvalue of class type
           ///< (`p->m` is a member of `p[0]`)
  AddrOf,  ///< &Ops[0], Ops[0] a VarRef of a scalar
  Unary,   ///< UOp Ops[0]
  Binary,  ///< Ops[0] BOp Ops[1] (arithmetic, comparison, logical, pointer)
  Cond,    ///< Ops[0] ? Ops[1] : Ops[2]
  Cast,    ///< (Ty)Ops[0]
  Call,    ///< Callee(Ops...)
  Pop,     ///< TapeVar.pop()
  StopGrad, ///< fluxion::stop_gradient(Ops[0]): value flows, derivative doesn't
  FuncRef,  ///< a function used as a value (Callee), e.g. for pass_through
  Size      ///< the number of elements of the container Ops[0] (a VarRef of
            ///< its storage, LowerContainer.cpp), or its rows or columns
            ///< (Extent): an integer
};

/// Which extent of a container a Size expression reads.
enum class Extent : uint8_t { Elements, Rows, Cols };

struct Expr;
using ExprP = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind K;
  clang::QualType Ty;
  llvm::SmallVector<ExprP, 3> Ops;
  Var *V = nullptr; ///< VarRef; the tape for Pop
  clang::BinaryOperatorKind BOp = clang::BO_Add;
  clang::UnaryOperatorKind UOp = clang::UO_Minus;
  llvm::APFloat FVal{0.0};
  llvm::APSInt IVal;
  clang::FunctionDecl *Callee = nullptr;
  /// Member: the data member read or written.
  clang::FieldDecl *Field = nullptr;
  /// Size: elements, rows or columns (an Eigen object's).
  Extent Ext = Extent::Elements;
  /// Const: a string literal or __func__, emitted as it is (printf formats,
  /// assert messages).
  const clang::Expr *Literal = nullptr;
  clang::SourceLocation Loc;

  bool isFloatConst() const { return K == ExprKind::Const && Ty->isRealFloatingType(); }
  bool isZero() const;
  bool isOne() const;
  bool isLValue() const {
    return K == ExprKind::VarRef || K == ExprKind::Index ||
           K == ExprKind::Member;
  }
  /// The variable at the root of an lvalue (x for x, x[i], x[i][j]).
  Var *rootVar() const;
};

enum class StmtKind {
  Block,    ///< { Body... }
  Assign,   ///< LHS Op RHS, Op one of =, +=, -=
  Eval,     ///< an expression evaluated for its effects (a call)
  Decl,     ///< a block-local declaration of V with optional Init (engine code)
  If,       ///< if (Cond) Then else Else
  Loop,     ///< while / do-while (TestFirst) with Cond; Inc runs after Body
  Repeat,   ///< for (V = Count; V > 0; --V) Body  (reverse sweep of a loop)
  Push,     ///< TapeVar.push(Value)
  PushRange, ///< TapeVar.push_range(RHS, Cond): Cond elements from pointer RHS
  PopRange,  ///< TapeVar.pop_range(LHS, Cond): gives them back, in place
  Return,   ///< return Value (only as the last statement after jump elimination)
  Break,    ///< removed by jump elimination
  Continue, ///< removed by jump elimination
  Switch,   ///< removed by jump elimination
  Resize    ///< the local container LHS (a VarRef of its storage) gets RHS
            ///< zeros (a dynamic-size Eigen matrix Cond rows of them), or,
            ///< with Keep, RHS elements keeping those there are
            ///< (LowerContainer.cpp)
};

struct Stmt;
using StmtP = std::unique_ptr<Stmt>;

/// A loop marked for binomial checkpointing (#pragma fluxion revolve).
struct RevolveSpec {
  ExprP Snapshots;
  /// Memory behind pointers that the loop writes: (pointer, element count).
  std::vector<std::pair<ExprP, ExprP>> State;
  clang::SourceLocation Loc; ///< of the pragma
};
using Block = std::vector<StmtP>;

/// One `case`/`default` section of a switch, up to the next label.
struct SwitchSection {
  std::vector<ExprP> Values; ///< the case values; empty for default
  bool IsDefault = false;
  Block Body;
};

struct Stmt {
  StmtKind K;
  clang::SourceLocation Loc;
  // Assign / Eval / Push / Return / Decl
  ExprP LHS, RHS;
  clang::BinaryOperatorKind Op = clang::BO_Assign;
  /// Decl: the variable; Push: the tape; Repeat: counter; Loop: the integer
  /// its `for` declares (read nowhere outside the loop), if any.
  Var *V = nullptr;
  // If / Loop / Switch / Repeat
  ExprP Cond; ///< If/Loop condition, Switch subject, Repeat count
  Block Then, Else;  ///< If; Loop uses Then as body and Else as Inc
  bool TestFirst = true;
  /// Assign: the initialiser of a declaration (the variable held nothing the
  /// program could read before it).
  bool IsInit = false;
  /// Resize: keep the elements there are, cut or extended by zeros to RHS
  /// (`t.resize(n)`), instead of zeroing them all. Alone, a std::vector
  /// growing by push_back (RHS is one more than the old size).
  bool Keep = false;
  /// Resize (with Keep): a size change in the middle of the function
  /// (resize, clear, assign, a copy, a declaration in a loop): the reverse
  /// sweep gives the container its old size back, and the elements a
  /// shrink drops.
  bool Undo = false;
  std::vector<SwitchSection> Sections;
  /// Loop: binomial checkpointing requested.
  std::shared_ptr<const RevolveSpec> Revolve;

  Stmt(StmtKind K, clang::SourceLocation Loc = {}) : K(K), Loc(Loc) {}
  Block &body() { return Then; }
  const Block &body() const { return Then; }
  Block &inc() { return Else; }
  const Block &inc() const { return Else; }
};

/// A function in IR form: its parameters, its variables, and its body.
struct Function {
  clang::FunctionDecl *Primal = nullptr; ///< the function it was lowered from
  std::string Name;
  clang::QualType ReturnType;
  std::vector<Var *> Params;
  Var *ReturnVar = nullptr;  ///< holds the result; null for void functions
  std::vector<Var *> Locals; ///< hoisted locals, temps, tapes: declared at entry
  Block Body;
  std::vector<std::unique_ptr<Var>> Storage;

  /// Creates a variable whose name is unique in this function.
  Var *makeVar(Var::Kind K, llvm::StringRef Name, clang::QualType Ty,
               clang::VarDecl *Origin = nullptr);
  bool nameTaken(llvm::StringRef Name) const;
};

// Expression builders. They fold the trivial cases (x*1, x+0, -(-x)) so that
// generated code reads like hand-written code.
ExprP ref(Var *V, clang::SourceLocation Loc = {});
ExprP floatConst(clang::QualType Ty, double Value);
ExprP intConst(clang::QualType Ty, int64_t Value);
ExprP boolConst(clang::ASTContext &Ctx, bool Value);
ExprP binary(clang::BinaryOperatorKind Op, ExprP L, ExprP R, clang::QualType Ty,
             clang::SourceLocation Loc = {});
ExprP unary(clang::UnaryOperatorKind Op, ExprP E, clang::QualType Ty);
ExprP index(ExprP Base, ExprP Idx, clang::QualType ElemTy);
ExprP member(ExprP Base, clang::FieldDecl *Field);
ExprP cast(clang::QualType Ty, ExprP E);
ExprP cond(ExprP C, ExprP A, ExprP B, clang::QualType Ty);
ExprP call(clang::FunctionDecl *Callee, llvm::ArrayRef<ExprP> Args,
           clang::QualType Ty, clang::SourceLocation Loc = {});
ExprP pop(Var *Tape);
/// E's value with no derivative: fluxion::stop_gradient, and values that are
/// data (positions an algorithm returns, printed values).
ExprP stopGrad(ExprP E, clang::QualType Ty, clang::SourceLocation Loc = {});
ExprP addrOf(ExprP LValue, clang::QualType PtrTy);
/// Container.size() for a VarRef of a container's storage.
ExprP sizeOf(ExprP Container, clang::QualType SizeTy,
             Extent Ext = Extent::Elements);

/// Arithmetic builders with folding, on expressions of floating type Ty.
ExprP add(ExprP L, ExprP R, clang::QualType Ty);
ExprP sub(ExprP L, ExprP R, clang::QualType Ty);
ExprP mul(ExprP L, ExprP R, clang::QualType Ty);
ExprP div(ExprP L, ExprP R, clang::QualType Ty);
ExprP neg(ExprP E, clang::QualType Ty);

/// Structural equality (same variables, same operations, same constants).
bool sameExpr(const Expr &A, const Expr &B);
/// True for expressions cheap enough to repeat instead of naming.
bool isTrivial(const Expr &E);
/// The operand a conversion between floating types starts from, looking
/// through a chain of such conversions: for (double)(float)x, x. Derivatives
/// pass through the chain in one step (the derivative of each link is 1), so
/// a seed or tangent is not rounded to the narrowest type on the way.
const ExprP &conversionSource(const Expr &Cast);

StmtP assign(ExprP LHS, ExprP RHS, clang::BinaryOperatorKind Op = clang::BO_Assign,
             clang::SourceLocation Loc = {});
StmtP eval(ExprP E, clang::SourceLocation Loc = {});
StmtP decl(Var *V, ExprP Init);
StmtP ifStmt(ExprP Cond, Block Then, Block Else = {}, clang::SourceLocation Loc = {});
StmtP push(Var *Tape, ExprP Value);
/// Saves / restores Count elements starting at pointer First (Count <= 0:
/// none); pop order is the reverse of push order, as for push/pop.
StmtP pushRange(Var *Tape, ExprP First, ExprP Count);
StmtP popRange(Var *Tape, ExprP First, ExprP Count);
StmtP block(Block Body);
/// Container.assign(Count, 0) for a VarRef of a local container's storage.
/// A dynamic-size Eigen matrix also gets its number of Rows (the Resize's
/// Cond; its columns are Count / Rows).
StmtP resize(ExprP Container, ExprP Count, clang::SourceLocation Loc = {},
             ExprP Rows = nullptr, bool Keep = false);
/// A size change the reverse sweep undoes (Resize with Keep and Undo).
StmtP resizeAgain(ExprP Container, ExprP Count, clang::SourceLocation Loc);
/// Counter = 0; while (Counter < Count) { Body; Counter = Counter + 1; }
Block countedLoop(clang::ASTContext &Ctx, Var *Counter, int64_t Count,
                  Block Body);

/// The same lvalue or pointer expression over shadow variables (adjoints,
/// tangents): x[i] -> Shadow(x)[i], &v -> &Shadow(v), p + k -> Shadow(p) + k.
/// Null if E is not such an expression.
ExprP shadowOf(const Expr &E, clang::ASTContext &Ctx,
               llvm::function_ref<Var *(Var *)> Shadow);

/// Gives the statements of Stmts (nested ones included) that have no
/// location yet the location Loc of the primal statement they were built
/// from, so that emitted code maps back to the source it differentiates.
void placeUnplaced(llvm::MutableArrayRef<StmtP> Stmts,
                   clang::SourceLocation Loc);

/// Deep copies of statements (expressions are shared).
StmtP clone(const Stmt &S);
Block clone(const Block &B);

/// Calls F on every expression node (pre-order), statements included.
void forEachExpr(const Expr &E, llvm::function_ref<void(const Expr &)> F);
void forEachExpr(const Block &B, llvm::function_ref<void(const Expr &)> F);
void forEachStmt(const Block &B, llvm::function_ref<void(const Stmt &)> F);

/// Debug printing in C-like syntax.
void print(const Expr &E, llvm::raw_ostream &OS);
void print(const Block &B, llvm::raw_ostream &OS, unsigned Indent = 0);
void print(const Function &F, llvm::raw_ostream &OS);

} // namespace fluxion::ir

#endif // FLUXION_ENGINE_IR_H
