//===- Splicer.cpp - The input with the generated functions inserted ------===//
#include "Splicer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
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
  for (const Placement &P : Placements) {
    NamespacePath Needed = between(P.Enclosing, P.FD->getDeclContext());
    if (Needed != Open) {
      CloseAll();
      for (const NamespaceDecl *NS : Needed)
        openNamespace(NS, OS);
      Open = Needed;
    }
    if (P.K == Placement::Kind::Definition)
      With.printDefinition(P.FD, OS);
    else
      With.printDeclaration(P.FD, OS);
    OS << "\n";
  }
  CloseAll();
}

std::string Splicer::insertion(ArrayRef<Placement> Group) {
  std::string Code;
  llvm::raw_string_ostream CodeOS(Code);
  printInNamespaces(Group, Printer, CodeOS);

  const InsertPoint &At = Group.front().At;
  bool AtEnd = At.Offset == Buffer.size();
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (At.MidLine || (AtEnd && !Buffer.empty() && !Buffer.ends_with("\n")))
    OS << "\n";
  OS << "\n" << Printer.finishLines(formatLLVMStyle(Code));
  if (AtEnd && !At.MidLine)
    return Text;
  // The original text resumes at its own line.
  const SourceManager &SM = Ctx.getSourceManager();
  OS << "\n"
     << Printer.lineDirective(SM.getLocForStartOfFile(SM.getMainFileID())
                                  .getLocWithOffset(At.Offset));
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
        (!Edits.empty() && Edits.front().Offset < Placements.front().At.Offset)) {
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
    if (P.K != Placement::Kind::Declaration ||
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
