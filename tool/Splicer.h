//===- Splicer.h - The input with generated functions inserted --*- C++ -*-===//
//
// Writes fluxion-gen's outputs for one translation unit: the main file with
// the printed functions inserted at their placements (each insertion
// formatted on its own, the user's code left byte for byte as it was), and
// the generated declarations other translation units can call.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_TOOL_SPLICER_H
#define FLUXION_TOOL_SPLICER_H

#include "Placement.h"

#include "fluxion/engine/SourcePrinter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace clang {
class ASTContext;
class NamespaceDecl;
} // namespace clang

namespace fluxion {

/// A replacement of original text in the main file.
struct TextEdit {
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Text;
};

class Splicer {
public:
  Splicer(clang::ASTContext &Ctx, SourcePrintOptions Opts);

  /// The main file with every placement inserted and the edits applied
  /// (the file itself, byte for byte, when there are none). Edits must not
  /// overlap each other or contain a placement.
  std::string translationUnit(llvm::ArrayRef<Placement> Placements,
                              llvm::ArrayRef<TextEdit> Edits);
  /// The declarations of the generated functions that other translation
  /// units can call (external linkage, not inline), in their namespaces.
  std::string declarations(llvm::ArrayRef<Placement> Placements);

private:
  using NamespacePath = llvm::SmallVector<const clang::NamespaceDecl *, 4>;

  /// The printed functions of the placements at one position, formatted,
  /// with the directive that maps the following original text back.
  std::string insertion(llvm::ArrayRef<Placement> Group);
  /// The namespaces to open at a point in Enclosing to declare in Target.
  static NamespacePath between(const clang::DeclContext *Enclosing,
                               const clang::DeclContext *Target);
  /// Prints the functions in order, opening and closing namespaces.
  static void printInNamespaces(llvm::ArrayRef<Placement> Placements,
                                SourcePrinter &With, llvm::raw_ostream &OS);

  clang::ASTContext &Ctx;
  SourcePrintOptions Opts;
  SourcePrinter Printer;
  llvm::StringRef Buffer;
};

} // namespace fluxion

#endif
