//===- SourcePrinter.h - Generated functions as C++ source ------*- C++ -*-===//
//
// Prints the functions the engine generated as C++ that any C++17 compiler
// accepts (fluxion-gen writes it into the output translation unit, the
// plugin's dump option to stderr): names are qualified and calls of template
// specializations spell their template arguments, so that the code means the
// same thing wherever it is placed and whichever compiler reads it. Each
// statement can be preceded by a comment quoting the primal source line it
// comes from and by a #line directive mapping it to that line. A function
// the engine declared in a class is a member: its declaration goes inside
// the class and its definition outside it. A primal's local constant table
// that a generated body reads is declared again at the top of that body.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_SOURCEPRINTER_H
#define FLUXION_ENGINE_SOURCEPRINTER_H

#include "clang/AST/PrettyPrinter.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class ValueDecl;
} // namespace clang

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace fluxion {

struct SourcePrintOptions {
  /// A #line directive before the function and before each statement, to
  /// the primal source line the statement was generated from.
  bool LineDirectives = true;
  /// A comment quoting the primal source line above the statements
  /// generated from it.
  bool SourceComments = true;
};

class SourcePrinter {
public:
  SourcePrinter(clang::ASTContext &Ctx, SourcePrintOptions Opts);

  /// `static double g_fwd(double x);`; for a member, the declaration that
  /// goes inside its class (`static` for a member without `this`).
  void printDeclaration(const clang::FunctionDecl *FD, llvm::raw_ostream &OS);
  /// The function with its body; a member is defined outside its class, in
  /// the class's namespace (`double S::g_fwd(double x) {...}`). The `static
  /// const` and `constexpr` local tables of other functions (the primal's)
  /// that the body reads are declared again at the top of the body, with
  /// the initializers the user wrote.
  void printDefinition(const clang::FunctionDecl *FD, llvm::raw_ostream &OS);

  /// With line directives on, the functions are printed with a marker line
  /// where each directive goes, because formatting moves lines: once the
  /// code is formatted, finishLines() turns each marker into a #line
  /// directive, or drops it where the line count already is right.
  std::string finishLines(llvm::StringRef Formatted) const;
  /// A marker for a directive to Loc's line (nothing when line directives
  /// are off or Loc is invalid).
  void printLineMarker(clang::SourceLocation Loc, llvm::raw_ostream &OS);
  /// `#line N "file"` for Loc, as final text (or nothing).
  std::string lineDirective(clang::SourceLocation Loc) const;

  const clang::PrintingPolicy &policy() const { return Policy; }

private:
  /// Without Read, the signature of a declaration. With Read, that of a
  /// definition: parameters not in Read are marked [[maybe_unused]] and a
  /// member is named with its classes, as outside them.
  void printSignature(
      const clang::FunctionDecl *FD, llvm::raw_ostream &OS,
      const llvm::DenseSet<const clang::ValueDecl *> *Read = nullptr);

  clang::ASTContext &Ctx;
  SourcePrintOptions Opts;
  clang::PrintingPolicy Policy;
  /// The presumed line and file of each marker, by number.
  std::vector<std::pair<unsigned, std::string>> Markers;
};

/// Code formatted with clang-format's LLVM style (Code itself if it cannot
/// be formatted).
std::string formatLLVMStyle(llvm::StringRef Code,
                            llvm::StringRef FileName = "generated.cpp");

/// Code as a C++ string literal body: backslashes and quotes escaped.
std::string escapeForLiteral(llvm::StringRef Text);

} // namespace fluxion

#endif
