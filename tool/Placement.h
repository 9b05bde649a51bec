//===- Placement.h - Where the plugin would put each generated function ---===//
//
// The plugin adds generated functions to the AST at two moments: it declares
// them next to a function (the annotated one, or the callee a helper is
// generated for), and it defines them while Sema hands it the top-level
// declaration whose body made the definition possible (or at the end of the
// translation unit). fluxion-gen inserts the printed functions at the text
// positions that correspond to those moments in the main file, so that every
// name a printed function uses is declared above it, as it was for the
// plugin.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_TOOL_PLACEMENT_H
#define FLUXION_TOOL_PLACEMENT_H

#include "clang/AST/DeclGroup.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>
#include <vector>

namespace clang {
class DeclContext;
class FunctionDecl;
} // namespace clang

namespace fluxion {

/// A position in the main file where generated code is inserted.
struct InsertPoint {
  unsigned Offset = 0;
  /// The position is inside a line: the inserted text starts a new line and
  /// the rest of the original line follows it on a line of its own.
  bool MidLine = false;
};

/// Where one generated function is printed.
struct Placement {
  enum class Kind { Declaration, Definition };
  Kind K = Kind::Declaration;
  const clang::FunctionDecl *FD = nullptr;
  InsertPoint At;
  /// The context the insertion point is in: the namespaces from there down
  /// to the function's own are opened around it. For the declaration of a
  /// member, its class: it is inserted before the class's closing brace.
  const clang::DeclContext *Enclosing = nullptr;
  /// When the engine declared or defined the function: placements at the
  /// same position are printed in this order.
  unsigned Order = 0;
};

/// Why FD, a function the engine declared, cannot be written as source
/// (a sentence completing "fluxion-gen cannot write 'f_fwd' as source: ",
/// speaking of several functions if Plural), or nothing if it can. A member of
/// a class can be written if the class is defined in the main file, outside
/// functions and templates: it is declared before the class's closing brace and
/// defined after the top-level declaration containing the class.
std::optional<std::string> whyNotWritable(const clang::FunctionDecl *FD,
                                          const clang::SourceManager &SM,
                                          bool Plural = false);

/// Follows the parse (top-level declarations, the end of the translation
/// unit) and records where each generated function belongs.
class PlacementRecorder {
public:
  PlacementRecorder(const clang::SourceManager &SM,
                    const clang::LangOptions &LangOpts);

  /// Sema handed this top-level declaration to the consumers.
  void sawTopLevel(clang::DeclGroupRef DG);
  void sawEndOfTranslationUnit();
  /// The engine declared FD next to Like.
  void declared(const clang::FunctionDecl *FD, const clang::FunctionDecl *Like);
  /// The engine defined FD.
  void defined(const clang::FunctionDecl *FD);
  /// A call-site form in User (a top-level declaration) takes FD's address:
  /// if FD is declared after it (next to a template instance, which has no
  /// text of its own), declare it before User's outermost declaration too.
  void usedByCallSite(const clang::FunctionDecl *FD, const clang::Decl *User);

  /// Every placement, sorted by position and order. Declarations are placed
  /// now, when the extent of the declaration they follow is known.
  std::vector<Placement> placements() const;

private:
  struct PendingDeclaration {
    const clang::FunctionDecl *FD;
    const clang::FunctionDecl *Like;
    InsertPoint Current;
    unsigned Order;
  };

  Placement placeDeclaration(const PendingDeclaration &P) const;
  /// Before the closing brace of the class that declares FD, at the start
  /// of its line if only blanks precede it there.
  std::optional<InsertPoint> inClass(const clang::FunctionDecl *FD) const;
  /// Just after D (and the ';' ending it), mapped to the main file.
  std::optional<InsertPoint> after(const clang::Decl *D) const;
  /// The start of the line after the #include in the main file that
  /// (indirectly) brought in File.
  std::optional<InsertPoint> afterInclude(clang::FileID File) const;
  /// Offset, moved to the start of the next line if only blanks or a line
  /// comment follow it on its line.
  InsertPoint lineEndAfter(unsigned Offset) const;
  /// The offset just past the ';' that ends the declaration whose last
  /// token (so far) is at Offset.
  unsigned pastSemicolon(unsigned Offset) const;

  const clang::SourceManager &SM;
  const clang::LangOptions &LangOpts;
  clang::StringRef Buffer;
  /// Just after the latest top-level declaration seen: where the plugin is
  /// while it defines functions.
  InsertPoint Current;
  unsigned NextOrder = 0;
  /// Extra declarations before the call-site forms that use them.
  std::vector<Placement> EarlyDeclarations;
  std::vector<PendingDeclaration> Declarations;
  /// Generated function -> its entry in Declarations.
  llvm::DenseMap<const clang::FunctionDecl *, size_t> DeclarationOf;
  std::vector<Placement> Definitions;
};

} // namespace fluxion

#endif
