//===- Placement.cpp - Where the plugin would put each generated function -===//
#include "Placement.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/Lex/Lexer.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace clang;

namespace fluxion {

/// The class's name as the user reads it: `Outer::Inner`, `Box<int>`.
static std::string className(const RecordDecl *RD) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  PrintingPolicy Policy(RD->getASTContext().getLangOpts());
  Policy.SuppressUnwrittenScope = true;
  RD->getNameForDiagnostic(OS, Policy, /*Qualified=*/true);
  return Name;
}

std::optional<std::string>
whyNotWritable(const FunctionDecl *FD, const SourceManager &SM, bool Plural) {
  const char *Member =
      Plural ? "they would be members of " : "it would be a member of ";
  const DeclContext *DC = FD->getDeclContext();
  if (DC->getRedeclContext()->isFileContext())
    return std::nullopt;
  if (!DC->isRecord())
    return std::string(Plural ? "they are" : "it is") +
           " declared in a scope that is neither a namespace nor a class";
  const auto *RD = cast<RecordDecl>(DC);
  for (const DeclContext *Outer = RD; !Outer->isFileContext();
       Outer = Outer->getParent()) {
    if (Outer->isFunctionOrMethod())
      return Member + ("'" + className(RD)) +
             "', a class defined inside a function, whose members cannot "
             "be defined outside it";
    const auto *Class = dyn_cast<CXXRecordDecl>(Outer);
    if (!Class)
      continue;
    if (!Class->getIdentifier() || Class->isLambda())
      return Member + std::string("an unnamed class, which code outside the "
                                  "class cannot name");
    if (isa<ClassTemplateSpecializationDecl>(Class) ||
        Class->getDescribedClassTemplate() || Class->isDependentContext() ||
        Class->getInstantiatedFromMemberClass())
      return Member + ("'" + className(RD)) +
             "', a class template or a class inside one; fluxion-gen does "
             "not write members of class templates yet";
  }
  const RecordDecl *Def = RD->getDefinition();
  SourceLocation Close = Def ? Def->getBraceRange().getEnd() : SourceLocation();
  if (Close.isInvalid())
    return Member + ("'" + className(RD)) +
           "', whose definition fluxion-gen cannot find";
  if (Close.isMacroID())
    return Member + ("'" + className(RD)) +
           "', whose closing brace comes from a macro";
  if (!SM.isWrittenInMainFile(Close))
    return Member + ("'" + className(RD)) + "', which is defined in '" +
           SM.getFilename(Close).str() +
           "'; fluxion-gen writes the input file only, so the class must "
           "be defined there";
  return std::nullopt;
}

PlacementRecorder::PlacementRecorder(const SourceManager &SM,
                                     const LangOptions &LangOpts)
    : SM(SM), LangOpts(LangOpts), Buffer(SM.getBufferData(SM.getMainFileID())) {
}

/// True if D's last token is the closing brace of a body (as opposed to a
/// ';' that its source range leaves out).
static bool endsWithBrace(const Decl *D) {
  if (const auto *TD = dyn_cast<TemplateDecl>(D))
    if (const NamedDecl *Pattern = TD->getTemplatedDecl())
      D = Pattern;
  if (const auto *FD = dyn_cast<FunctionDecl>(D))
    return FD->doesThisDeclarationHaveABody();
  if (const auto *LS = dyn_cast<LinkageSpecDecl>(D))
    return LS->hasBraces();
  return isa<NamespaceDecl>(D);
}

InsertPoint PlacementRecorder::lineEndAfter(unsigned Offset) const {
  size_t P = Offset;
  while (P < Buffer.size() && (Buffer[P] == ' ' || Buffer[P] == '\t'))
    ++P;
  if (P >= Buffer.size())
    return {static_cast<unsigned>(Buffer.size()), false};
  if (Buffer[P] != '\n' && Buffer[P] != '\r' &&
      !Buffer.substr(P).starts_with("//"))
    return {Offset, true};
  size_t Newline = Buffer.find('\n', P);
  return {static_cast<unsigned>(Newline == StringRef::npos ? Buffer.size()
                                                           : Newline + 1),
          false};
}

unsigned PlacementRecorder::pastSemicolon(unsigned Offset) const {
  Lexer Lex(SM.getLocForStartOfFile(SM.getMainFileID()), LangOpts,
            Buffer.begin(), Buffer.begin() + Offset, Buffer.end());
  int Depth = 0;
  Token Tok;
  while (true) {
    Lex.LexFromRawLexer(Tok);
    if (Tok.is(tok::eof))
      return Offset;
    if (Tok.isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
      ++Depth;
    else if (Tok.isOneOf(tok::r_paren, tok::r_square, tok::r_brace) &&
             --Depth < 0)
      return Offset; // the enclosing scope ends first: no ';' to take
    else if (Tok.is(tok::semi) && Depth == 0)
      return SM.getFileOffset(Tok.getLocation()) + Tok.getLength();
  }
}

std::optional<InsertPoint> PlacementRecorder::afterInclude(FileID File) const {
  SourceLocation IncludeLoc;
  while (File.isValid() && File != SM.getMainFileID()) {
    IncludeLoc = SM.getIncludeLoc(File);
    if (IncludeLoc.isInvalid())
      return std::nullopt; // predefines, command-line includes
    IncludeLoc = SM.getExpansionLoc(IncludeLoc);
    File = SM.getFileID(IncludeLoc);
  }
  if (File != SM.getMainFileID())
    return std::nullopt;
  size_t Newline = Buffer.find('\n', SM.getFileOffset(IncludeLoc));
  return InsertPoint{static_cast<unsigned>(Newline == StringRef::npos
                                               ? Buffer.size()
                                               : Newline + 1),
                     false};
}

std::optional<InsertPoint>
PlacementRecorder::inClass(const FunctionDecl *FD) const {
  if (whyNotWritable(FD, SM))
    return std::nullopt;
  const RecordDecl *Def =
      cast<RecordDecl>(FD->getDeclContext())->getDefinition();
  unsigned Offset = SM.getFileOffset(Def->getBraceRange().getEnd());
  size_t LineStart = Buffer.find_last_of("\n", Offset);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  if (Buffer.slice(LineStart, Offset).find_first_not_of(" \t") ==
      StringRef::npos)
    return InsertPoint{static_cast<unsigned>(LineStart), false};
  return InsertPoint{Offset, true};
}

std::optional<InsertPoint> PlacementRecorder::after(const Decl *D) const {
  SourceLocation End = D->getEndLoc();
  if (End.isInvalid())
    return std::nullopt;
  End = SM.getExpansionRange(End).getEnd();
  FileID File = SM.getFileID(End);
  if (File != SM.getMainFileID())
    return afterInclude(File);
  unsigned Offset = SM.getFileOffset(End);
  bool IsSemicolon = Offset < Buffer.size() && Buffer[Offset] == ';';
  Offset = SM.getFileOffset(Lexer::getLocForEndOfToken(End, 0, SM, LangOpts));
  if (!IsSemicolon && !endsWithBrace(D))
    Offset = pastSemicolon(Offset);
  return lineEndAfter(Offset);
}

void PlacementRecorder::sawTopLevel(DeclGroupRef DG) {
  for (const Decl *D : DG) {
    // Instantiations are reported at the end of the translation unit, at
    // the position of their pattern: the plugin is not there.
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (FD->isTemplateInstantiation())
        continue;
    if (std::optional<InsertPoint> At = after(D))
      if (At->Offset > Current.Offset)
        Current = *At;
  }
}

void PlacementRecorder::sawEndOfTranslationUnit() {
  Current = {static_cast<unsigned>(Buffer.size()), false};
}

void PlacementRecorder::declared(const FunctionDecl *FD,
                                 const FunctionDecl *Like) {
  DeclarationOf[FD] = Declarations.size();
  Declarations.push_back({FD, Like, Current, NextOrder++});
}

void PlacementRecorder::defined(const FunctionDecl *FD) {
  Placement P;
  P.K = Placement::Kind::Definition;
  P.FD = FD;
  P.At = Current;
  P.Enclosing = FD->getTranslationUnitDecl();
  P.Order = NextOrder++;
  Definitions.push_back(P);
}

void PlacementRecorder::usedByCallSite(const FunctionDecl *FD,
                                       const Decl *User) {
  auto It = DeclarationOf.find(FD);
  if (It == DeclarationOf.end() ||
      !Declarations[It->second].Like->isTemplateInstantiation() ||
      FD->getPrimaryTemplate())
    return;
  // Before the outermost declaration (a namespace, a class, a function, a
  // template) around the form.
  const Decl *Outer = User;
  for (const DeclContext *DC = User->getLexicalDeclContext();
       DC && !DC->isTranslationUnit(); DC = DC->getLexicalParent())
    Outer = cast<Decl>(DC);
  if (const auto *Fn = dyn_cast<FunctionDecl>(Outer)) {
    if (const FunctionDecl *Pattern = Fn->getTemplateInstantiationPattern())
      Fn = Pattern;
    Outer = Fn->getDescribedFunctionTemplate()
                ? (const Decl *)Fn->getDescribedFunctionTemplate()
                : Fn;
  }
  SourceLocation Begin = SM.getExpansionLoc(Outer->getBeginLoc());
  if (!SM.isWrittenInMainFile(Begin))
    return;
  unsigned Offset = SM.getFileOffset(Begin);
  size_t LineStart = Buffer.find_last_of("\n", Offset);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  InsertPoint At{Offset, true};
  if (Buffer.slice(LineStart, Offset).find_first_not_of(" \t") ==
      StringRef::npos)
    At = {static_cast<unsigned>(LineStart), false};
  if (llvm::any_of(EarlyDeclarations, [&](const Placement &P) {
        return P.FD == FD && P.At.Offset <= At.Offset;
      }))
    return;
  Placement P;
  P.FD = FD;
  P.At = At;
  P.Enclosing = FD->getTranslationUnitDecl();
  P.Order = NextOrder++;
  EarlyDeclarations.push_back(P);
}

Placement
PlacementRecorder::placeDeclaration(const PendingDeclaration &D) const {
  // Next to a generated function (the dual of a split pair): where that one
  // is, after it.
  // An instance of a derivative template: an explicit specialization,
  // declared right after its template, before any use.
  if (const FunctionTemplateDecl *T = D.FD->getPrimaryTemplate()) {
    auto Pattern = DeclarationOf.find(T->getTemplatedDecl());
    if (Pattern != DeclarationOf.end()) {
      Placement P = placeDeclaration(Declarations[Pattern->second]);
      P.FD = D.FD;
      P.Order = D.Order;
      return P;
    }
  }
  auto Generated = DeclarationOf.find(D.Like);
  if (Generated != DeclarationOf.end()) {
    Placement P = placeDeclaration(Declarations[Generated->second]);
    P.FD = D.FD;
    P.Order = D.Order;
    return P;
  }
  Placement P;
  P.FD = D.FD;
  P.At = D.Current;
  P.Enclosing = D.FD->getTranslationUnitDecl();
  P.Order = D.Order;
  // A member: in its class, wherever the function it is generated for is
  // defined.
  if (D.FD->getDeclContext()->isRecord()) {
    if (std::optional<InsertPoint> At = inClass(D.FD)) {
      P.At = *At;
      P.Enclosing = D.FD->getDeclContext();
    }
    return P;
  }
  // An instantiation has no text of its own: declare where the plugin was.
  if (D.Like->isTemplateInstantiation())
    return P;
  // Right after Like when that is in the function's namespace; otherwise
  // (an out-of-line definition, a linkage specification) after the
  // top-level declaration containing Like, reopening the namespace.
  const DeclContext *Lexical = D.Like->getLexicalDeclContext();
  bool InPlace = Lexical->getRedeclContext()->Equals(
      D.FD->getDeclContext()->getRedeclContext());
  const Decl *Outermost = D.Like;
  for (const DeclContext *DC = Lexical; !DC->isTranslationUnit();
       DC = DC->getLexicalParent()) {
    InPlace &= isa<NamespaceDecl>(DC);
    Outermost = cast<Decl>(DC);
  }
  SourceLocation End = SM.getExpansionRange(D.Like->getEndLoc()).getEnd();
  if (InPlace && SM.isWrittenInMainFile(End)) {
    if (std::optional<InsertPoint> At = after(D.Like)) {
      P.At = *At;
      P.Enclosing = Lexical;
    }
    return P;
  }
  if (std::optional<InsertPoint> At = after(Outermost))
    P.At = *At;
  return P;
}

std::vector<Placement> PlacementRecorder::placements() const {
  std::vector<Placement> All;
  // A function the engine declared but neither defined nor called (a pair
  // an early to-be-recorded round asked for) is left out: g++ would warn
  // about a static function never defined.
  // Likewise a static one defined but called by no printed code (a pair
  // the adjoint that f_hvp differentiates called: f_hvp calls its tangent).
  auto Unused = [](const FunctionDecl *FD) {
    return FD->getStorageClass() == SC_Static && !FD->isReferenced();
  };
  for (const PendingDeclaration &D : Declarations)
    if ((D.FD->isDefined() || D.FD->isReferenced() ||
         D.FD->getDescribedFunctionTemplate()) &&
        !Unused(D.FD))
      All.push_back(placeDeclaration(D));
  for (const Placement &P : Definitions)
    if (!Unused(P.FD))
      All.push_back(P);
  All.insert(All.end(), EarlyDeclarations.begin(), EarlyDeclarations.end());
  std::sort(All.begin(), All.end(), [](const Placement &A, const Placement &B) {
    return std::make_pair(A.At.Offset, A.Order) <
           std::make_pair(B.At.Offset, B.Order);
  });
  return All;
}

} // namespace fluxion
