//===- OutputCheck.cpp - Does fluxion-gen's output compile? ---------------===//
#include "OutputCheck.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace clang;
using namespace clang::tooling;

namespace fluxion {
namespace {

/// Headers were parsed with their function bodies by the generating run:
/// the check reads their declarations only. The main file, the user's code
/// and the generated code, is checked whole.
class SkipHeaderBodies : public ASTConsumer {
public:
  explicit SkipHeaderBodies(const SourceManager &SM) : SM(SM) {}
  bool shouldSkipFunctionBody(Decl *D) override {
    return !SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation()));
  }

private:
  const SourceManager &SM;
};

class CheckAction : public ASTFrontendAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    CI.getFrontendOpts().SkipFunctionBodies = true;
    // The errors are printed as fluxion-gen's, without "N errors
    // generated.".
    CI.setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>());
    return std::make_unique<SkipHeaderBodies>(CI.getSourceManager());
  }
};

/// One error (or a note attached to it), located in the output.
struct Problem {
  bool IsNote = false;
  std::string Message;
  /// The position in the output (or in a header), not following #line.
  bool InOutput = false;
  std::string File;
  unsigned Line = 0, Column = 0;
  std::string LineText;
  /// Where the output's #line directives map the position: the input line
  /// the generated statement differentiates, or the user's own line.
  std::string MappedFile;
  unsigned MappedLine = 0;
};

/// Collects the errors of the check and the notes that go with them.
class ProblemCollector : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level == DiagnosticsEngine::Note ? !InError
                                         : Level < DiagnosticsEngine::Error) {
      InError = false;
      return;
    }
    InError = true;
    Problem P;
    P.IsNote = Level == DiagnosticsEngine::Note;
    llvm::SmallString<128> Message;
    Info.FormatDiagnostic(Message);
    P.Message = Message.str().str();
    if (Info.hasSourceManager() && Info.getLocation().isValid())
      locate(Info.getSourceManager(), Info.getLocation(), P);
    Problems.push_back(std::move(P));
  }

  std::vector<Problem> Problems;

private:
  static void locate(const SourceManager &SM, SourceLocation Loc, Problem &P) {
    Loc = SM.getExpansionLoc(Loc);
    PresumedLoc Real = SM.getPresumedLoc(Loc, /*UseLineDirectives=*/false);
    if (Real.isInvalid())
      return;
    P.InOutput = SM.isInMainFile(Loc);
    P.File = Real.getFilename();
    P.Line = Real.getLine();
    P.Column = Real.getColumn();
    std::pair<FileID, unsigned> D = SM.getDecomposedLoc(Loc);
    bool Invalid = false;
    StringRef Buffer = SM.getBufferData(D.first, &Invalid);
    if (!Invalid && D.second <= Buffer.size()) {
      size_t Begin = Buffer.find_last_of("\r\n", D.second);
      Begin = Begin == StringRef::npos ? 0 : Begin + 1;
      size_t End = Buffer.find_first_of("\r\n", D.second);
      P.LineText = Buffer.slice(Begin, End).str();
    }
    PresumedLoc Mapped = SM.getPresumedLoc(Loc);
    if (!P.IsNote && P.InOutput && Mapped.isValid() &&
        (Mapped.getLine() != Real.getLine() ||
         StringRef(Mapped.getFilename()) != Real.getFilename())) {
      P.MappedFile = Mapped.getFilename();
      P.MappedLine = Mapped.getLine();
    }
  }

  bool InError = false;
};

void print(const Problem &P, StringRef OutputName, llvm::raw_ostream &OS) {
  std::string Where = "fluxion-gen";
  if (P.Line)
    Where = ((P.InOutput ? OutputName : StringRef(P.File)) + ":" +
             llvm::Twine(P.Line) + ":" + llvm::Twine(P.Column))
                .str();
  if (P.IsNote)
    llvm::WithColor::note(OS, Where) << P.Message << "\n";
  else
    llvm::WithColor::error(OS, Where)
        << "fluxion-gen produced output that does not compile: " << P.Message
        << "\n";
  if (P.Line && !P.LineText.empty()) {
    std::string Number = std::to_string(P.Line);
    OS << " " << Number << " | " << P.LineText << "\n";
    std::string Caret;
    for (unsigned I = 0; I + 1 < P.Column && I < P.LineText.size(); ++I)
      Caret += P.LineText[I] == '\t' ? '\t' : ' ';
    OS << " " << std::string(Number.size(), ' ') << " | " << Caret << "^\n";
  }
  if (P.MappedLine)
    llvm::WithColor::note(
        OS, (P.MappedFile + ":" + llvm::Twine(P.MappedLine)).str())
        << "line " << P.Line << " of the output comes from this line\n";
}

} // namespace

bool outputCompiles(const CompilationDatabase &Compilations,
                    const ArgumentsAdjuster &Adjuster, StringRef Input,
                    StringRef Output, StringRef OutputName) {
  llvm::SmallString<256> Path(Input);
  llvm::sys::fs::make_absolute(Path);
  ClangTool Tool(Compilations, {std::string(Path)});
  Tool.appendArgumentsAdjuster(Adjuster);
  // Only errors: the user's flags may turn warnings into errors, and Clang
  // warns about things other compilers accept.
  Tool.appendArgumentsAdjuster(getInsertArgumentAdjuster(
      CommandLineArguments{"-w", "-Wno-error"}, ArgumentInsertPosition::END));
  Tool.mapVirtualFile(Path, Output);
  ProblemCollector Collector;
  Tool.setDiagnosticConsumer(&Collector);
  Tool.setPrintErrorMessage(false);
  int Status = Tool.run(newFrontendActionFactory<CheckAction>().get());
  if (Status == 0 && Collector.getNumErrors() == 0)
    return true;
  for (const Problem &P : Collector.Problems)
    print(P, OutputName, llvm::errs());
  llvm::WithColor::error(llvm::errs(), "fluxion-gen")
      << "the output for '" << Input
      << "' does not compile: this is a bug in fluxion-gen, not in your "
         "code; please report it with the input. Nothing was written for "
         "this input (--no-compile-check writes the output anyway)\n";
  return false;
}

} // namespace fluxion
