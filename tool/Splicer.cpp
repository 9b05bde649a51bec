//===- Splicer.cpp - The input with the generated functions inserted ------===//
#include "Splicer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace clang;

namespace fluxion {

Splicer::Splicer(ASTContext &Ctx, SourcePrintOptions Opts)
    : Ctx(Ctx), Opts(Opts), Printer(Ctx, Opts) {
  const SourceManager &SM = Ctx.getSourceManager();
  Buffer = SM.getBufferData(SM.getMainFileID());
}

Splicer::NamespacePath Splicer::between(const DeclContext *Enclosing,
                                        const DeclContext *Target) {
  NamespacePath Path;
  const DeclContext *Stop = Enclosing->getRedeclContext();
  for (const DeclContext *DC = Target->getRedeclContext();
       !DC->isTranslationUnit() && !DC->Equals(Stop);
       DC = DC->getParent()->getRedeclContext())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Path.push_back(NS->getFirstDecl());
  std::reverse(Path.begin(), Path.end());
  return Path;
}

static void openNamespace(const NamespaceDecl *NS, raw_ostream &OS) {
  if (NS->isInline())
    OS << "inline ";
  OS << "namespace ";
  if (!NS->isAnonymousNamespace())
    OS << NS->getName() << " ";
  OS << "{\n";
}

static void closeNamespace(const NamespaceDecl *NS, raw_ostream &OS) {
  OS << "} // namespace";
  if (!NS->isAnonymousNamespace())
    OS << " " << NS->getName();
  OS << "\n";
}

void Splicer::printInNamespaces(ArrayRef<Placement> Placements,
                                SourcePrinter &With, raw_ostream &OS) {
  NamespacePath Open;
  auto CloseAll = [&] {
    for (auto It = Open.rbegin(); It != Open.rend(); ++It)
      closeNamespace(*It, OS);
    Open.clear();
  };
  bool First = true;
  for (const Placement &P : Placements) {
    NamespacePath Needed = between(P.Enclosing, P.FD->getDeclContext());
    if (Needed != Open) {
      if (!Open.empty())
        CloseAll();
      if (!First)
        OS << "\n";
      for (const NamespaceDecl *NS : Needed)
        openNamespace(NS, OS);
      Open = Needed;
    } else if (!First) {
      OS << "\n";
    }
    First = false;
    if (P.K == Placement::Kind::Definition)
      With.printDefinition(P.FD, OS);
    else
      With.printDeclaration(P.FD, OS);
  }
  CloseAll();
}

/// True if S refers to FD.
static bool refersTo(const Stmt *S, const FunctionDecl *FD) {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (DRE->getDecl() == FD)
      return true;
  for (const Stmt *Child : S->children())
    if (refersTo(Child, FD))
      return true;
  return false;
}

/// The placements of Group without the declarations that nothing needs: a
/// function defined further down the same group and not used before that.
static std::vector<Placement>
withoutNeedlessDeclarations(ArrayRef<Placement> Group) {
  std::vector<Placement> Kept;
  for (size_t I = 0; I < Group.size(); ++I) {
    const Placement &P = Group[I];
    bool Needless = false;
    if (P.K == Placement::Kind::Declaration) {
      for (size_t J = I + 1; J < Group.size(); ++J) {
        if (Group[J].K != Placement::Kind::Definition)
          continue;
        if (Group[J].FD == P.FD) {
          Needless = true;
          break;
        }
        if (refersTo(Group[J].FD->getBody(), P.FD))
          break;
      }
    }
    if (!Needless)
      Kept.push_back(P);
  }
  return Kept;
}

/// Code formatted as the members of a class: indented one level.
static std::string formatAsMembers(StringRef Code) {
  static constexpr llvm::StringLiteral Open = "struct FluxionGenerated {\n",
                                       Close = "};\n";
  std::string Formatted = formatLLVMStyle((Open + Code + Close).str());
  StringRef F(Formatted);
  if (!F.consume_front(Open) || !F.consume_back(Close))
    return formatLLVMStyle(Code);
  return F.str();
}

std::string Splicer::insertion(ArrayRef<Placement> Group) {
  // Members are declared in their class, public so that the generated
  // functions outside it can call them.
  bool InClass = Group.front().Enclosing->isRecord();
  std::string Code;
  llvm::raw_string_ostream CodeOS(Code);
  if (InClass)
    CodeOS << "public:\n";
  printInNamespaces(withoutNeedlessDeclarations(Group), Printer, CodeOS);

  const InsertPoint &At = Group.front().At;
  StringRef Before = Buffer.take_front(At.Offset);
  StringRef After = Buffer.drop_front(At.Offset);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  // The functions start a line of their own, after a blank line.
  if (At.MidLine || (!Before.empty() && !Before.ends_with("\n")))
    OS << "\n";
  if (At.MidLine || !(Before.empty() || Before.ends_with("\n\n")))
    OS << "\n";
  OS << Printer.finishLines(InClass ? formatAsMembers(Code)
                                    : formatLLVMStyle(Code));
  if (After.empty() && !At.MidLine)
    return Text;
  // The original text resumes on a line of its own (after a blank line,
  // unless it is the class's closing brace), mapped back to its line in
  // the input.
  if (!InClass &&
      (At.MidLine || !(After.starts_with("\n") || After.starts_with("\r\n"))))
    OS << "\n";
  const SourceManager &SM = Ctx.getSourceManager();
  OS << Printer.lineDirective(
      SM.getLocForStartOfFile(SM.getMainFileID()).getLocWithOffset(At.Offset));
  return Text;
}

std::string Splicer::translationUnit(ArrayRef<Placement> Placements,
                                     ArrayRef<TextEdit> Edits) {
  if (Placements.empty() && Edits.empty())
    return Buffer.str();
  std::string Out;
  size_t Copied = 0;
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Placements.empty() && Placements.front().At.Offset != 0) {
    // The whole output maps back to the input, the user's lines included.
    if (Buffer.starts_with("\xEF\xBB\xBF"))
      Copied = 3;
    Out += Buffer.substr(0, Copied);
    Out += Printer.lineDirective(SM.getLocForStartOfFile(SM.getMainFileID()));
  }
  while (!Placements.empty() || !Edits.empty()) {
    if (Placements.empty() ||
        (!Edits.empty() &&
         Edits.front().Offset < Placements.front().At.Offset)) {
      const TextEdit &E = Edits.front();
      Out += Buffer.slice(Copied, E.Offset);
      Out += E.Text;
      Copied = E.Offset + E.Length;
      Edits = Edits.drop_front();
      continue;
    }
    unsigned Offset = Placements.front().At.Offset;
    size_t N = 1;
    while (N < Placements.size() && Placements[N].At.Offset == Offset)
      ++N;
    Out += Buffer.slice(Copied, Offset);
    Copied = Offset;
    Out += insertion(Placements.take_front(N));
    Placements = Placements.drop_front(N);
  }
  Out += Buffer.substr(Copied);
  return Out;
}

std::string Splicer::declarations(ArrayRef<Placement> Placements) {
  std::vector<Placement> Callable;
  for (Placement P : Placements) {
    // Members are declared in their class only.
    if (P.K != Placement::Kind::Declaration ||
        P.FD->getDeclContext()->isRecord() ||
        P.FD->getFormalLinkage() != Linkage::External ||
        P.FD->isInlineSpecified())
      continue;
    P.Enclosing = Ctx.getTranslationUnitDecl();
    Callable.push_back(P);
  }
  if (Callable.empty())
    return "";
  SourcePrintOptions Plain;
  Plain.LineDirectives = false;
  Plain.SourceComments = false;
  SourcePrinter HeaderPrinter(Ctx, Plain);
  std::string Code;
  llvm::raw_string_ostream OS(Code);
  printInNamespaces(Callable, HeaderPrinter, OS);
  return formatLLVMStyle(Code, "generated.hpp");
}

} // namespace fluxion
