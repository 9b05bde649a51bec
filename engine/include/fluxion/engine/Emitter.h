//===- Emitter.h - Fluxion IR to Clang AST ----------------------*- C++ -*-===//
//
// Builds the body of a generated function from IR through Sema's Build*
// functions, so that the result is type-checked exactly like user code (and
// prints as readable C++). All Sema interaction of the engine's output is
// here.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_EMITTER_H
#define FLUXION_ENGINE_EMITTER_H

#include "fluxion/engine/Diagnostics.h"
#include "fluxion/engine/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace clang {
class Sema;
class Expr;
class Stmt;
class NamespaceDecl;
} // namespace clang

namespace fluxion {

/// One generated function to emit: Params map 1:1 onto Target's parameters.
struct EmitRequest {
  clang::FunctionDecl *Target = nullptr;
  std::vector<ir::Var *> Params;
  /// A member function's object: the variable (a pointer) that is `this`.
  ir::Var *This = nullptr;
  std::vector<ir::Var *> Locals;
  ir::Block Body;
};

class Emitter {
public:
  Emitter(clang::Sema &S, DiagReporter &Diags) : S(S), Diags(Diags) {}

  /// Attaches the body; false after reporting an error.
  bool emit(EmitRequest &R);

  /// A reference to FD qualified by its namespaces (prints as ns::f).
  clang::Expr *functionRef(clang::FunctionDecl *FD, clang::SourceLocation Loc);

private:
  clang::Expr *expr(const ir::Expr &E);
  clang::Expr *exprAs(const ir::Expr &E, clang::QualType Ty);
  clang::Expr *constant(const ir::Expr &E);
  clang::Expr *callOf(const ir::Expr &E);
  clang::Expr *tapeCall(ir::Var *Tape, llvm::StringRef Method,
                        llvm::ArrayRef<clang::Expr *> Args);
  clang::Expr *convert(clang::Expr *E, clang::QualType Ty);
  clang::Expr *varRef(ir::Var *V);
  /// V stands for the elements of a container (LowerContainer.cpp) that D,
  /// a container or a pointer to one, declares.
  static bool isContainerStorage(const ir::Var *V, const clang::ValueDecl *D);
  /// The container (an lvalue) whose storage V is; null if V is none.
  clang::Expr *container(const ir::Var *V);
  /// Object.Method(Args...), or Ptr->Method(Args...).
  clang::Expr *containerCall(clang::Expr *Object, llvm::StringRef Method,
                             llvm::ArrayRef<clang::Expr *> Args);
  /// *Ptr, with *&x spelled x.
  clang::Expr *derefOf(clang::Expr *Ptr);
  /// Containers whose storage does not move while the function runs have
  /// their data pointer read once into a local (`x_data`): through
  /// `x.data()` at every access, the compiler reloads it after each tape
  /// push, whose stored `double *` may be the container's own.
  bool stableStorage(const ir::Var *V) const;
  /// `T *const x_data = x.data();`, and `const std::size_t x_size =
  /// x.size();` when the body asks for the size, appended to Out; uses of
  /// V emitted after them read the locals until the enclosing block ends.
  bool hoistData(ir::Var *V, llvm::SmallVectorImpl<clang::Stmt *> &Out);
  /// A hoisted local of type T named after V.
  clang::VarDecl *hoistedLocal(const ir::Var *V, llvm::StringRef Suffix,
                               clang::QualType T, clang::Expr *Init);
  clang::Stmt *stmt(const ir::Stmt &St);
  clang::Stmt *compound(const ir::Block &B);
  bool appendStatements(const ir::Block &B,
                        llvm::SmallVectorImpl<clang::Stmt *> &Out);
  clang::Stmt *tapeGroup(llvm::ArrayRef<const ir::Stmt *> Group, bool Push);
  clang::Stmt *arrayTransfer(ir::Var *Tape, const ir::Expr &Array,
                             llvm::StringRef Method);
  clang::VarDecl *declare(ir::Var *V);
  bool initialize(clang::VarDecl *VD, ir::Var *V);
  /// A call of the runtime's fluxion::Name<T>() (zero_object,
  /// zero_container); null, reported, when the runtime lacks it.
  clang::Expr *runtimeObject(llvm::StringRef Name, clang::QualType T,
                             llvm::ArrayRef<clang::Expr *> Args = {});
  /// Statements a declaration needs right after it (zeroing an array of
  /// objects that no initialiser can zero), appended by appendStatements.
  llvm::SmallVector<clang::Stmt *, 1> AfterDecl;
  clang::Expr *bad(llvm::StringRef What);

  clang::Sema &S;
  DiagReporter &Diags;
  clang::FunctionDecl *Target = nullptr;
  clang::SourceLocation Loc;
  llvm::DenseMap<const ir::Var *, clang::ValueDecl *> Decls;
  /// Hoisted data pointers (hoistData), in scope now, and the order they
  /// came in (blocks drop theirs when they end).
  llvm::DenseMap<const ir::Var *, clang::VarDecl *> DataPtrs;
  llvm::DenseMap<const ir::Var *, clang::VarDecl *> Sizes;
  /// Containers whose size the body reads (Size nodes).
  llvm::DenseSet<const ir::Var *> SizeRead;
  llvm::SmallVector<const ir::Var *, 8> DataScope;
  /// How many times each container is sized (Resize statements).
  llvm::DenseMap<const ir::Var *, unsigned> Resizes;
  /// Names the body uses (its variables, globals and callees).
  llvm::StringSet<> Names;
  bool Failed = false;
  ir::Var *ThisVar = nullptr;
  /// `this` of the member function being emitted.
  clang::Expr *thisExpr();
};

} // namespace fluxion

#endif
