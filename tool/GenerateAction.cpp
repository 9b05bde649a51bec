//===- GenerateAction.cpp - fluxion-gen's frontend action -----------------===//
#include "GenerateAction.h"
#include "Placement.h"
#include "Splicer.h"

#include "FluxionConsumer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace clang;

namespace fluxion {
namespace {

/// Comments out the [[fluxion::...]] attributes written in the main file:
/// other compilers warn about them, and the output must not generate its
/// functions a second time when it goes through Fluxion again.
class AnnotationEraser {
public:
  explicit AnnotationEraser(ASTContext &Ctx)
      : SM(Ctx.getSourceManager()), LangOpts(Ctx.getLangOpts()) {}

  std::vector<TextEdit> edits(const DeclContext *DC) {
    visit(DC);
    std::sort(Edits.begin(), Edits.end(),
              [](const TextEdit &A, const TextEdit &B) {
                return A.Offset < B.Offset;
              });
    return std::move(Edits);
  }

private:
  void visit(const DeclContext *DC) {
    for (const Decl *D : DC->decls()) {
      if (!SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation())))
        continue;
      if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(D))
        D = FTD->getTemplatedDecl();
      if (const auto *FD = dyn_cast<FunctionDecl>(D))
        erase(FD);
      else if (isa<NamespaceDecl, LinkageSpecDecl, ExportDecl>(D))
        visit(cast<DeclContext>(D));
    }
  }

  void erase(const FunctionDecl *FD) {
    for (const AnnotateAttr *A : FD->specific_attrs<AnnotateAttr>()) {
      SourceRange R = A->getRange();
      if (A->isInherited() || !A->getAnnotation().starts_with("fluxion::") ||
          R.getBegin().isMacroID() || R.getEnd().isMacroID() ||
          !SM.isWrittenInMainFile(R.getBegin()))
        continue;
      unsigned Begin = SM.getFileOffset(R.getBegin());
      unsigned End = SM.getFileOffset(
          Lexer::getLocForEndOfToken(R.getEnd(), 0, SM, LangOpts));
      StringRef Text = SM.getBufferData(SM.getMainFileID()).slice(Begin, End);
      if (End <= Begin || Text.contains("*/") || !Seen.insert(Begin).second)
        continue;
      Edits.push_back({Begin, End - Begin, ("/*" + Text + "*/").str()});
    }
  }

  const SourceManager &SM;
  const LangOptions &LangOpts;
  std::vector<TextEdit> Edits;
  llvm::DenseSet<unsigned> Seen;
};

/// Comments out the `#pragma fluxion ...` lines of the main file: the
/// generated code already does what they ask for, and other compilers warn
/// about pragmas they do not know.
class FluxionPragmaEraser : public PPCallbacks {
public:
  FluxionPragmaEraser(const SourceManager &SM, std::vector<TextEdit> &Edits)
      : SM(SM), Edits(Edits) {}

  void PragmaDirective(SourceLocation Loc,
                       PragmaIntroducerKind Introducer) override {
    if (Introducer != PIK_HashPragma || Loc.isMacroID() ||
        !SM.isWrittenInMainFile(Loc))
      return;
    unsigned Offset = SM.getFileOffset(Loc);
    StringRef Rest = SM.getBufferData(SM.getMainFileID()).substr(Offset);
    Rest = Rest.substr(0, Rest.find('\n'));
    // '#' 'pragma' 'fluxion', with any blanks between.
    if (!Rest.consume_front("#"))
      return;
    Rest = Rest.ltrim(" \t");
    if (!Rest.consume_front("pragma"))
      return;
    Rest = Rest.ltrim(" \t");
    if (!Rest.starts_with("fluxion") ||
        (Rest.size() > 7 && (isalnum(Rest[7]) || Rest[7] == '_')))
      return;
    Edits.push_back({Offset, 0, "// "});
  }

private:
  const SourceManager &SM;
  std::vector<TextEdit> &Edits;
};

/// The plugin's consumer, watching the parse for the placement of what the
/// engine generates, and printing it all at the end.
class GenerateConsumer : public FluxionConsumer {
public:
  GenerateConsumer(CompilerInstance &CI, PlacementRecorder &Recorder,
                   const SourcePrintOptions &Opts, GeneratedOutput &Output)
      : FluxionConsumer(consumerOptions(CI, Recorder, CallSiteEdits)), CI(CI),
        Recorder(Recorder), Opts(Opts), Output(Output) {
    CI.getPreprocessor().addPPCallbacks(std::make_unique<FluxionPragmaEraser>(
        CI.getSourceManager(), PragmaEdits));
  }

  bool HandleTopLevelDecl(DeclGroupRef DG) override {
    // Generated definitions come back through here on their way to the
    // (absent) code generator.
    Differentiator *Diff = differentiator();
    if (!(DG.isSingleDecl() && Diff && Diff->isGenerated(DG.getSingleDecl())))
      Recorder.sawTopLevel(DG);
    return FluxionConsumer::HandleTopLevelDecl(DG);
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    Recorder.sawEndOfTranslationUnit();
    FluxionConsumer::HandleTranslationUnit(Ctx);
    if (CI.getDiagnostics().hasErrorOccurred())
      return;
    std::vector<Placement> Placements = Recorder.placements();
    if (!placeable(Placements))
      return;
    Splicer Splice(Ctx, Opts);
    std::vector<TextEdit> Edits;
    if (!Placements.empty()) {
      Edits = AnnotationEraser(Ctx).edits(Ctx.getTranslationUnitDecl());
      Edits.insert(Edits.end(), PragmaEdits.begin(), PragmaEdits.end());
      Edits.insert(Edits.end(), CallSiteEdits.begin(), CallSiteEdits.end());
      std::sort(Edits.begin(), Edits.end(),
                [](const TextEdit &A, const TextEdit &B) {
                  return A.Offset < B.Offset;
                });
    }
    Output.Source = Splice.translationUnit(Placements, Edits);
    Output.Declarations = Splice.declarations(Placements);
    Output.Complete = true;
    Output.Generated = !Placements.empty() || !Edits.empty();
  }

private:
  static ConsumerOptions consumerOptions(CompilerInstance &CI,
                                         PlacementRecorder &Recorder,
                                         std::vector<TextEdit> &CallSiteEdits) {
    ConsumerOptions ConsumerOpts;
    ConsumerOpts.OnCallSite = [&CI, &Recorder, &CallSiteEdits](
                                  const CallExpr *Form,
                                  FunctionDecl *Generated,
                                  const Decl *User) {
      std::optional<TextEdit> Edit = callSiteEdit(CI, Form, Generated);
      if (!Edit)
        return;
      // A form in a template is written once for all its instances.
      for (const TextEdit &Other : CallSiteEdits)
        if (Other.Offset == Edit->Offset) {
          if (Other.Text != Edit->Text) {
            DiagnosticsEngine &Diags = CI.getDiagnostics();
            Diags.Report(Form->getExprLoc(),
                         Diags.getCustomDiagID(
                             DiagnosticsEngine::Error,
                             "fluxion-gen cannot write a call-site form whose "
                             "function depends on template parameters; make "
                             "the derivative outside the template and pass it "
                             "in, or compile with the plugin"));
          }
          return;
        }
      CallSiteEdits.push_back(std::move(*Edit));
      Recorder.usedByCallSite(Generated, User);
    };
    ConsumerOpts.OnGenerated = [&Recorder](FunctionDecl *FD) {
      Recorder.defined(FD);
    };
    ConsumerOpts.OnDeclared = [&Recorder](FunctionDecl *FD,
                                          FunctionDecl *Like) {
      Recorder.declared(FD, Like);
    };
    return ConsumerOpts;
  }

  /// Source can reopen namespaces but not classes: a function the engine
  /// declared in a class defined elsewhere (or in another scope) cannot be
  /// written out.
  bool placeable(const std::vector<Placement> &Placements) {
    // The functions generated for one function (its _fwd and _bwd) share
    // its location: one error names them all.
    struct Problem {
      const FunctionDecl *First;
      std::string Why;
      std::vector<std::string> Names;
    };
    std::vector<Problem> Problems;
    llvm::DenseSet<const FunctionDecl *> Seen;
    for (const Placement &P : Placements) {
      std::optional<std::string> Why =
          whyNotWritable(P.FD, CI.getSourceManager());
      if (!Why || !Seen.insert(P.FD).second)
        continue;
      auto Same =
          std::find_if(Problems.begin(), Problems.end(), [&](const Problem &Q) {
            return Q.First->getLocation() == P.FD->getLocation() &&
                   Q.Why == *Why;
          });
      if (Same == Problems.end())
        Same = Problems.insert(Same, {P.FD, *Why, {}});
      Same->Names.push_back(P.FD->getName().str());
    }
    DiagnosticsEngine &Diags = CI.getDiagnostics();
    unsigned ID = Diags.getCustomDiagID(
        DiagnosticsEngine::Error, "fluxion-gen cannot write %0 as source: %1");
    for (const Problem &Q : Problems) {
      std::string Names;
      for (size_t I = 0; I < Q.Names.size(); ++I) {
        if (I > 0)
          Names += I + 1 == Q.Names.size() ? " and " : ", ";
        Names += "'" + Q.Names[I] + "'";
      }
      Diags.Report(Q.First->getLocation(), ID)
          << Names
          << *whyNotWritable(Q.First, CI.getSourceManager(),
                             Q.Names.size() > 1);
    }
    return Problems.empty();
  }

  /// The hidden argument of a call-site form, written out: the address of
  /// the function it generated (`fluxion::grad(f)` becomes
  /// `fluxion::grad(f, static_cast<double (*)(double, double *)>(&::f_grad))`,
  /// whose object calls f_grad with its own type).
  static std::optional<TextEdit> callSiteEdit(CompilerInstance &CI,
                                              const CallExpr *Form,
                                              FunctionDecl *Generated) {
    const SourceManager &SM = CI.getSourceManager();
    SourceLocation End = Form->getRParenLoc();
    DiagnosticsEngine &Diags = CI.getDiagnostics();
    if (End.isMacroID() || !SM.isWrittenInMainFile(End)) {
      Diags.Report(Form->getExprLoc(),
                   Diags.getCustomDiagID(
                       DiagnosticsEngine::Error,
                       "fluxion-gen can only write the derivative of a "
                       "call-site form written in the main file, outside "
                       "macros"));
      return std::nullopt;
    }
    // A lambda's derivative takes its closure, whose type has no name.
    if (const CXXRecordDecl *RD =
            Generated->getNumParams() == 0
                ? nullptr
                : Generated->getParamDecl(0)
                      ->getType()
                      .getNonReferenceType()
                      ->getAsCXXRecordDecl();
        RD && RD->isLambda()) {
      Diags.Report(Form->getExprLoc(),
                   Diags.getCustomDiagID(
                       DiagnosticsEngine::Error,
                       "fluxion-gen cannot write the derivative of a lambda "
                       "(its type has no name in source); make it a named "
                       "function, or compile with the Fluxion plugin"));
      return std::nullopt;
    }
    PrintingPolicy Policy(CI.getLangOpts());
    Policy.SuppressTagKeyword = true;
    Policy.PrintCanonicalTypes = true;
    Policy.FullyQualifiedName = true;
    ASTContext &Ctx = Generated->getASTContext();
    std::string Type =
        Ctx.getPointerType(Generated->getType()).getAsString(Policy);
    std::string Text = ", static_cast<" + Type + ">(&::" +
                       Generated->getQualifiedNameAsString() + ")";
    // After the last argument; a call with none after f has a comma to add
    // all the same.
    return TextEdit{SM.getFileOffset(End), 0, Text};
  }

  CompilerInstance &CI;
  PlacementRecorder &Recorder;
  const SourcePrintOptions &Opts;
  GeneratedOutput &Output;
  std::vector<TextEdit> PragmaEdits;
  std::vector<TextEdit> CallSiteEdits;
};

class GenerateAction : public ASTFrontendAction {
public:
  GenerateAction(SourcePrintOptions Opts, GeneratedOutput &Output)
      : Opts(Opts), Output(Output) {}

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    Recorder = std::make_unique<PlacementRecorder>(CI.getSourceManager(),
                                                   CI.getLangOpts());
    return std::make_unique<GenerateConsumer>(CI, *Recorder, Opts, Output);
  }

private:
  SourcePrintOptions Opts;
  GeneratedOutput &Output;
  std::unique_ptr<PlacementRecorder> Recorder;
};

} // namespace

std::unique_ptr<FrontendAction> GenerateActionFactory::create() {
  return std::make_unique<GenerateAction>(Opts, Output);
}

} // namespace fluxion
