//===- SourcePrinter.cpp - Generated functions as C++ source --------------===//
//
// Statements are printed here, one per line, so that each can get its own
// comment and #line directive; expressions go through Clang's StmtPrinter
// with a helper that spells references to functions and globals in full.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/SourcePrinter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace fluxion {

std::string escapeForLiteral(StringRef Text) {
  std::string Out;
  for (char C : Text) {
    if (C == '\\' || C == '"')
      Out += '\\';
    Out += C;
  }
  return Out;
}

std::string formatLLVMStyle(StringRef Code, StringRef FileName) {
  format::FormatStyle Style = format::getLLVMStyle();
  tooling::Replacements Changes =
      format::reformat(Style, Code, {tooling::Range(0, Code.size())}, FileName);
  llvm::Expected<std::string> Formatted =
      tooling::applyAllReplacements(Code, Changes);
  if (!Formatted) {
    llvm::consumeError(Formatted.takeError());
    return Code.str();
  }
  return *Formatted;
}

/// Generated function's names for the local constants of other functions
/// it reads (see LocalConstants).
using LocalConstantNames = llvm::DenseMap<const VarDecl *, std::string>;

/// True if T names a type declared inside a function (a local typedef or
/// class): such names mean nothing outside that function's body.
static bool namesLocalType(QualType T) {
  while (!T.isNull()) {
    if (const auto *TT = T->getAs<TypedefType>())
      if (TT->getDecl()->getDeclContext()->isFunctionOrMethod())
        return true;
    if (const auto *Tag = T->getAsTagDecl())
      return Tag->getDeclContext()->isFunctionOrMethod();
    if (T->isPointerType() || T->isReferenceType())
      T = T->getPointeeType();
    else if (const ArrayType *AT = T->getAsArrayTypeUnsafe())
      T = AT->getElementType();
    else
      return false;
  }
  return false;
}

/// A type as it is best printed away from where it was written: with every
/// name qualified (typedefs kept), or canonical if it names a function-local
/// declaration.
static QualType printable(QualType T, const ASTContext &Ctx) {
  if (namesLocalType(T))
    return T.getCanonicalType();
  // A deduced type ('auto', the object of a structured binding) as what
  // it was deduced to (qualifying the sugar twice gives `std::std::pair`).
  if (const auto *AT = dyn_cast<AutoType>(T.getTypePtr());
      AT && AT->isDeduced() && !AT->getDeducedType().isNull())
    return printable(
        Ctx.getQualifiedType(AT->getDeducedType(), T.getLocalQualifiers()),
        Ctx);
  return TypeName::getFullyQualifiedType(T, Ctx);
}

/// Adds to Read every declaration whose value S reads: all references but
/// the target of a plain assignment. Generated code may set a variable it
/// never reads (the result of an _hvp's primal sweep) or leave a parameter
/// unused; other compilers warn about both.
static void collectReads(const Stmt *S,
                         llvm::DenseSet<const ValueDecl *> &Read) {
  if (!S)
    return;
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    if (BO->getOpcode() == BO_Assign &&
        isa<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts())) {
      collectReads(BO->getRHS(), Read);
      return;
    }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    Read.insert(DRE->getDecl());
  for (const Stmt *Child : S->children())
    collectReads(Child, Read);
}

/// The variables a generated function's body declares, and its parameters.
static void collectOwnDecls(const Stmt *S,
                            llvm::DenseSet<const VarDecl *> &Own) {
  if (!S)
    return;
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        Own.insert(VD);
  for (const Stmt *Child : S->children())
    collectOwnDecls(Child, Own);
}

/// Calls F on each declaration S refers to.
template <typename Fn> static void forEachReference(const Stmt *S, Fn &&F) {
  if (!S)
    return;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    F(DRE->getDecl());
  for (const Stmt *Child : S->children())
    forEachReference(Child, F);
}

namespace {

/// The local constants of other functions that a generated body reads, in
/// the order they are declared at the top of the body: a primal's `static
/// const` (or `constexpr`) table, which the engine reads in place like a
/// global although no code outside the primal's body can name it, and the
/// local constants (`constexpr int n = 2;`) their initializers use, before
/// them. Each is declared again, with the initializer the user wrote, under
/// a name that nothing else in the generated function uses.
struct LocalConstants {
  std::vector<const VarDecl *> Ordered;
  LocalConstantNames Names;

  explicit LocalConstants(const FunctionDecl *FD) {
    const Stmt *Body = FD->getBody();
    llvm::DenseSet<const VarDecl *> Own;
    collectOwnDecls(Body, Own);
    for (const ParmVarDecl *P : FD->parameters())
      Own.insert(P);
    // Every name the body declares or refers to is taken.
    for (const VarDecl *VD : Own)
      Taken.insert(VD->getName());
    forEachReference(Body, [&](const ValueDecl *D) {
      if (const auto *VD = dyn_cast<VarDecl>(D);
          VD && isForeign(VD, Own) && isConstantLike(VD))
        add(VD, Own);
      else if (D->getDeclName().isIdentifier())
        Taken.insert(D->getName());
    });
    for (const VarDecl *VD : Ordered) {
      std::string Name = VD->getName().str();
      for (unsigned N = 1; !Taken.insert(Name).second; ++N)
        Name = (VD->getName() + "_" + llvm::Twine(N)).str();
      Names[VD] = Name;
    }
  }

private:
  static bool isForeign(const VarDecl *VD,
                        const llvm::DenseSet<const VarDecl *> &Own) {
    return !isa<ParmVarDecl>(VD) && VD->isLocalVarDecl() && !Own.count(VD);
  }
  /// A local whose value a copy declared elsewhere has too.
  static bool isConstantLike(const VarDecl *VD) {
    return VD->isStaticLocal() || VD->getTLSKind() != VarDecl::TLS_None ||
           VD->isConstexpr() ||
           (VD->getType().isConstQualified() && VD->getInit() &&
            VD->isUsableInConstantExpressions(VD->getASTContext()));
  }
  void add(const VarDecl *VD, const llvm::DenseSet<const VarDecl *> &Own) {
    if (!Seen.insert(VD).second)
      return;
    forEachReference(VD->getInit(), [&](const ValueDecl *D) {
      if (const auto *Dep = dyn_cast<VarDecl>(D);
          Dep && Dep != VD && isForeign(Dep, Own) && isConstantLike(Dep))
        add(Dep, Own);
      else if (D->getDeclName().isIdentifier())
        Taken.insert(D->getName());
    });
    Ordered.push_back(VD);
  }

  llvm::DenseSet<const VarDecl *> Seen;
  llvm::StringSet<> Taken;
};

/// Spells every reference to a function or a global variable with its
/// namespaces, and a function template specialization with its template
/// arguments: the printed code must find the same declaration by ordinary
/// lookup wherever it is placed (and whichever compiler reads it), while the
/// AST refers to declarations directly.
class QualifyingHelper : public PrinterHelper {
public:
  /// LocalNames: the names under which the generated function declares the
  /// primal's local constants it reads (see LocalConstants).
  QualifyingHelper(const ASTContext &Ctx, const PrintingPolicy &Policy,
                   const LocalConstantNames *LocalNames = nullptr)
      : Ctx(Ctx), Policy(Policy), LocalNames(LocalNames) {}

  bool handledStmt(Stmt *S, raw_ostream &OS) override {
    if (auto *Cast = dyn_cast<CStyleCastExpr>(S)) {
      OS << "(";
      printable(Cast->getTypeAsWritten(), Ctx).print(OS, Policy);
      OS << ")";
      Cast->getSubExpr()->printPretty(OS, this, Policy);
      return true;
    }
    // StmtPrinter prints the tree as it is and relies on ParenExpr nodes:
    // (*p)[i] built without one would print as *p[i].
    if (auto *ASE = dyn_cast<ArraySubscriptExpr>(S)) {
      if (!needsParens(ASE->getBase()))
        return false;
      OS << "(";
      ASE->getBase()->printPretty(OS, this, Policy);
      OS << ")[";
      ASE->getIdx()->printPretty(OS, this, Policy);
      OS << "]";
      return true;
    }
    if (auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      if (auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl())) {
        // Named from another namespace than its own (libc++'s
        // std::__math::hypot as std::hypot: Emitter.cpp, spelledContext).
        const NestedNameSpecifier *Q = DRE->getQualifier();
        const NamespaceDecl *QNS = Q ? Q->getAsNamespace() : nullptr;
        if (QNS && QNS != FD->getDeclContext()->getRedeclContext()) {
          Q->print(OS, Policy);
          FD->printName(OS, Policy);
        } else {
          FD->printQualifiedName(OS, Policy);
        }
        if (const TemplateArgumentList *Args =
                FD->getTemplateSpecializationArgs())
          printTemplateArgumentList(
              OS, Args->asArray(), Policy,
              FD->getPrimaryTemplate()->getTemplateParameters());
        return true;
      }
      auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (VD && LocalNames) {
        auto It = LocalNames->find(VD);
        if (It != LocalNames->end()) {
          OS << It->second;
          return true;
        }
      }
      if (VD && VD->hasGlobalStorage() && !VD->isStaticLocal()) {
        VD->printQualifiedName(OS, Policy);
        if (const auto *Spec = dyn_cast<VarTemplateSpecializationDecl>(VD))
          printTemplateArgumentList(
              OS, Spec->getTemplateArgs().asArray(), Policy,
              Spec->getSpecializedTemplate()->getTemplateParameters());
        return true;
      }
      return false;
    }
    // StmtPrinter would spell infinities and NaNs as "+Inf" and "NaN".
    if (auto *FL = dyn_cast<FloatingLiteral>(S)) {
      llvm::APFloat V = FL->getValue();
      if (V.isFinite())
        return false;
      std::string Cast;
      llvm::raw_string_ostream(Cast)
          << "(" << FL->getType().getAsString(Policy) << ")";
      OS << "(" << Cast
         << (V.isNaN()        ? "__builtin_nan(\"\")"
             : V.isNegative() ? "-__builtin_huge_val()"
                              : "__builtin_huge_val()")
         << ")";
      return true;
    }
    return false;
  }

private:
  /// True for an operand of a postfix operator that binds less tightly.
  static bool needsParens(const Expr *E) {
    return isa<UnaryOperator, BinaryOperator, AbstractConditionalOperator,
               ExplicitCastExpr>(E->IgnoreImpCasts());
  }

  const ASTContext &Ctx;
  const PrintingPolicy &Policy;
  const LocalConstantNames *LocalNames;
};

/// Prints one generated body, one statement per line.
class BodyPrinter {
public:
  BodyPrinter(SourcePrinter &Printer, ASTContext &Ctx,
              const SourcePrintOptions &Opts, SourceLocation FunctionLoc,
              const llvm::DenseSet<const ValueDecl *> &Read,
              const LocalConstants &Constants, raw_ostream &OS)
      : Printer(Printer), Ctx(Ctx), SM(Ctx.getSourceManager()),
        Policy(Printer.policy()), Opts(Opts),
        Helper(Ctx, Policy, &Constants.Names), FunctionLoc(FunctionLoc),
        Read(Read), Constants(Constants), OS(OS) {}

  void stmt(const Stmt *S);
  /// `{`, the statements, `}` (no line break after the brace).
  void block(const Stmt *S, bool WithConstants = false);
  /// The function body: a block that starts with the local constants.
  void body(const Stmt *S);

private:
  void expr(const Expr *E) {
    E->printPretty(OS, &Helper, Policy, 0, "\n", &Ctx);
  }
  void varDecl(const VarDecl *VD);
  /// `static const double c[2] = {...};`, as the user wrote it, under its
  /// name in the generated function.
  void localConstant(const VarDecl *VD);
  /// The comment and #line directive of a statement at Loc.
  void locate(SourceLocation Loc);
  std::string lineText(SourceLocation Loc) const;

  SourcePrinter &Printer;
  ASTContext &Ctx;
  const SourceManager &SM;
  const PrintingPolicy &Policy;
  const SourcePrintOptions &Opts;
  QualifyingHelper Helper;
  SourceLocation FunctionLoc;
  const llvm::DenseSet<const ValueDecl *> &Read;
  const LocalConstants &Constants;
  raw_ostream &OS;
  /// The source line quoted last.
  std::pair<FileID, unsigned> Quoted;
};

} // namespace

std::string BodyPrinter::lineText(SourceLocation Loc) const {
  std::pair<FileID, unsigned> D = SM.getDecomposedLoc(Loc);
  bool Invalid = false;
  StringRef Buffer = SM.getBufferData(D.first, &Invalid);
  if (Invalid || D.second > Buffer.size())
    return "";
  // The last line break before the location (searching back from it).
  size_t Begin = Buffer.find_last_of("\r\n", D.second);
  Begin = Begin == StringRef::npos ? 0 : Begin + 1;
  StringRef Line = Buffer.slice(Begin, Buffer.find_first_of("\r\n", D.second));
  Line = Line.trim();
  // A comment ending in a backslash would swallow the next line.
  while (Line.consume_back("\\"))
    Line = Line.rtrim();
  return Line.str();
}

void BodyPrinter::locate(SourceLocation Loc) {
  if (Loc.isInvalid())
    Loc = FunctionLoc;
  Loc = SM.getExpansionLoc(Loc);
  if (Opts.SourceComments && Loc != SM.getExpansionLoc(FunctionLoc)) {
    std::pair<FileID, unsigned> Line(SM.getFileID(Loc),
                                     SM.getExpansionLineNumber(Loc));
    if (Line != Quoted) {
      Quoted = Line;
      std::string Text = lineText(Loc);
      if (!Text.empty())
        OS << "// " << Text << "\n";
    }
  }
  Printer.printLineMarker(Loc, OS);
}

void BodyPrinter::varDecl(const VarDecl *VD) {
  // `auto &_tape = fluxion::tape<T>();` reads better than the deduced type.
  QualType T = VD->getType();
  if (const TypeSourceInfo *TSI = VD->getTypeSourceInfo())
    if (TSI->getType()->getContainedAutoType())
      T = TSI->getType();
  if (!Read.count(VD))
    OS << "[[maybe_unused]] ";
  printable(T, Ctx).print(OS, Policy, VD->getName());
  const Expr *Init = VD->getInit();
  // `S a[N];`: a default construction is written as nothing.
  if (const auto *Construct =
          dyn_cast_or_null<CXXConstructExpr>(Init ? Init->IgnoreImplicit()
                                                  : nullptr);
      Construct && VD->getInitStyle() == VarDecl::CallInit &&
      !Construct->isListInitialization() && Construct->getNumArgs() == 0)
    Init = nullptr;
  if (Init) {
    OS << " = ";
    expr(Init);
  }
}

void BodyPrinter::localConstant(const VarDecl *VD) {
  locate(VD->getBeginLoc());
  if (VD->isStaticLocal())
    OS << "static ";
  if (VD->getTLSKind() != VarDecl::TLS_None)
    OS << "thread_local ";
  if (VD->isConstexpr())
    OS << "constexpr ";
  printable(VD->getType(), Ctx).print(OS, Policy, Constants.Names.lookup(VD));
  // The initializer as DeclPrinter spells it, with references to other
  // local constants renamed.
  const Expr *Init = VD->getInit();
  if (Init && !isa<ParenListExpr>(Init)) {
    bool Call = VD->getInitStyle() == VarDecl::CallInit;
    if (const auto *Construct =
            dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit()))
      if (Call && !Construct->isListInitialization() &&
          (Construct->getNumArgs() == 0 ||
           Construct->getArg(0)->isDefaultArgument()))
        Init = nullptr; // `static const T t;`
    if (Init) {
      OS << (Call ? "(" : VD->getInitStyle() == VarDecl::CInit ? " = " : "");
      Init->printPretty(OS, &Helper, Policy, 0, "\n", &Ctx);
      if (Call)
        OS << ")";
    }
  }
  OS << ";\n";
}

void BodyPrinter::body(const Stmt *S) {
  block(S, /*WithConstants=*/true);
}

void BodyPrinter::block(const Stmt *S, bool WithConstants) {
  OS << "{\n";
  if (WithConstants)
    for (const VarDecl *VD : Constants.Ordered)
      localConstant(VD);
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : CS->body())
      stmt(Child);
  } else {
    stmt(S);
  }
  OS << "}";
}

void BodyPrinter::stmt(const Stmt *S) {
  // A nested block only scopes its statements, which are located each.
  if (!isa<CompoundStmt>(S))
    locate(S->getBeginLoc());
  if (const auto *E = dyn_cast<Expr>(S)) {
    expr(E);
    OS << ";\n";
    return;
  }
  switch (S->getStmtClass()) {
  case Stmt::CompoundStmtClass:
    block(S);
    OS << "\n";
    return;
  case Stmt::DeclStmtClass:
    for (const Decl *D : cast<DeclStmt>(S)->decls()) {
      if (const auto *VD = dyn_cast<VarDecl>(D))
        varDecl(VD);
      else
        D->print(OS, Policy);
      OS << ";\n";
    }
    return;
  case Stmt::IfStmtClass: {
    const auto *If = cast<IfStmt>(S);
    OS << "if (";
    expr(If->getCond());
    OS << ") ";
    block(If->getThen());
    if (const Stmt *Else = If->getElse()) {
      OS << " else ";
      block(Else);
    }
    OS << "\n";
    return;
  }
  case Stmt::WhileStmtClass: {
    const auto *While = cast<WhileStmt>(S);
    OS << "while (";
    expr(While->getCond());
    OS << ") ";
    block(While->getBody());
    OS << "\n";
    return;
  }
  case Stmt::DoStmtClass: {
    const auto *Do = cast<DoStmt>(S);
    OS << "do ";
    block(Do->getBody());
    OS << " while (";
    expr(Do->getCond());
    OS << ");\n";
    return;
  }
  case Stmt::ForStmtClass: {
    const auto *For = cast<ForStmt>(S);
    OS << "for (";
    if (const auto *Init = dyn_cast_or_null<Expr>(For->getInit()))
      expr(Init);
    OS << "; ";
    if (const Expr *Cond = For->getCond())
      expr(Cond);
    OS << "; ";
    if (const Expr *Inc = For->getInc())
      expr(Inc);
    OS << ") ";
    block(For->getBody());
    OS << "\n";
    return;
  }
  case Stmt::ReturnStmtClass:
    OS << "return";
    if (const Expr *Value = cast<ReturnStmt>(S)->getRetValue()) {
      OS << " ";
      expr(Value);
    }
    OS << ";\n";
    return;
  default:
    // The emitter builds nothing else; print anything new as Clang does.
    S->printPretty(OS, &Helper, Policy, 0, "\n", &Ctx);
    OS << "\n";
    return;
  }
}

SourcePrinter::SourcePrinter(ASTContext &Ctx, SourcePrintOptions Opts)
    : Ctx(Ctx), Opts(Opts), Policy(Ctx.getLangOpts()) {
  Policy.SuppressTagKeyword = true;
  // Anonymous and inline namespaces are not spelled: "(anonymous
  // namespace)::" is no C++.
  Policy.SuppressUnwrittenScope = true;
  Policy.Bool = true;
}

/// Marker lines are comments, so that the formatter indents them like the
/// statement they precede (it also puts a space after the slashes).
static constexpr llvm::StringLiteral MarkerTag = "#line@";

/// The number of the marker on Line, if it is one.
static std::optional<unsigned> markerIndex(StringRef Line) {
  Line = Line.trim();
  if (!Line.consume_front("//"))
    return std::nullopt;
  Line = Line.ltrim();
  unsigned Index;
  if (!Line.consume_front(MarkerTag) || Line.getAsInteger(10, Index))
    return std::nullopt;
  return Index;
}

void SourcePrinter::printLineMarker(SourceLocation Loc, raw_ostream &OS) {
  if (!Opts.LineDirectives || Loc.isInvalid())
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isInvalid())
    return;
  OS << "//" << MarkerTag << Markers.size() << "\n";
  Markers.emplace_back(P.getLine(), P.getFilename());
}

std::string SourcePrinter::lineDirective(SourceLocation Loc) const {
  if (!Opts.LineDirectives || Loc.isInvalid())
    return "";
  const SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isInvalid())
    return "";
  return "#line " + std::to_string(P.getLine()) + " \"" +
         escapeForLiteral(P.getFilename()) + "\"\n";
}

std::string SourcePrinter::finishLines(StringRef Formatted) const {
  std::string Out;
  // The presumed position of the next line, once a directive has set it.
  StringRef File;
  unsigned Line = 0;
  while (!Formatted.empty()) {
    auto [Text, Rest] = Formatted.split('\n');
    Formatted = Rest;
    std::optional<unsigned> Index = markerIndex(Text);
    if (!Index || *Index >= Markers.size()) {
      Out += Text;
      Out += '\n';
      if (Line)
        ++Line;
      continue;
    }
    const auto &[Target, TargetFile] = Markers[*Index];
    if (Line == Target && File == TargetFile)
      continue; // the next line already has that number
    Out += "#line " + std::to_string(Target);
    if (File != TargetFile)
      Out += " \"" + escapeForLiteral(TargetFile) + "\"";
    Out += '\n';
    File = TargetFile;
    Line = Target;
  }
  return Out;
}

/// True for a function that is a member of a class and has no `this`: a
/// static member function, or a function the engine declared in a class.
static bool isStaticMember(const FunctionDecl *FD) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return MD ? MD->isStatic() : FD->getDeclContext()->isRecord();
}

/// `Outer::Inner::` for a member of Inner nested in Outer: what names a
/// member outside its class, from the class's namespace.
static void printClassQualifier(const FunctionDecl *FD, raw_ostream &OS,
                                const PrintingPolicy &Policy) {
  llvm::SmallVector<const RecordDecl *, 2> Classes;
  for (const DeclContext *DC = FD->getDeclContext(); DC && DC->isRecord();
       DC = DC->getParent())
    Classes.push_back(cast<RecordDecl>(DC));
  for (auto It = Classes.rbegin(); It != Classes.rend(); ++It) {
    OS << (*It)->getName();
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(*It))
      printTemplateArgumentList(
          OS, Spec->getTemplateArgs().asArray(), Policy,
          Spec->getSpecializedTemplate()->getTemplateParameters());
    OS << "::";
  }
}

void SourcePrinter::printSignature(
    const FunctionDecl *FD, raw_ostream &OS,
    const llvm::DenseSet<const ValueDecl *> *Read) {
  // A member is declared in its class (Read is null) and defined outside
  // it, with its class named.
  bool Member = FD->getDeclContext()->isRecord();
  bool OutOfLine = Member && Read;
  // A derivative template, and its instances as explicit specializations
  // (inline: every translation unit that uses one defines it).
  const TemplateArgumentList *Instance = FD->getTemplateSpecializationArgs();
  if (const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate()) {
    T->getTemplateParameters()->print(OS, Ctx);
    OS << " ";
  } else if (Instance) {
    OS << "template <> ";
  }
  if (Member ? !OutOfLine && isStaticMember(FD)
             : FD->getStorageClass() == SC_Static)
    OS << "static ";
  if (FD->isInlineSpecified() || Instance)
    OS << "inline ";
  std::string Declarator;
  llvm::raw_string_ostream DS(Declarator);
  if (OutOfLine)
    printClassQualifier(FD, DS, Policy);
  DS << FD->getName();
  if (Instance)
    printTemplateArgumentList(
        DS, Instance->asArray(), Policy,
        FD->getPrimaryTemplate()->getTemplateParameters());
  DS << "(";
  for (const ParmVarDecl *P : FD->parameters()) {
    if (P != FD->getParamDecl(0))
      DS << ", ";
    if (Read && !Read->count(P))
      DS << "[[maybe_unused]] ";
    printable(P->getType(), Ctx).print(DS, Policy, P->getName());
  }
  DS << ")";
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    Qualifiers Q = MD->getMethodQualifiers();
    if (Q.hasConst())
      DS << " const";
    if (Q.hasVolatile())
      DS << " volatile";
    if (MD->getRefQualifier() == RQ_LValue)
      DS << " &";
    else if (MD->getRefQualifier() == RQ_RValue)
      DS << " &&";
  }
  printable(FD->getReturnType(), Ctx).print(OS, Policy, Declarator);
}

void SourcePrinter::printDeclaration(const FunctionDecl *FD, raw_ostream &OS) {
  printLineMarker(FD->getLocation(), OS);
  printSignature(FD, OS);
  OS << ";\n";
}

void SourcePrinter::printDefinition(const FunctionDecl *FD, raw_ostream &OS) {
  printLineMarker(FD->getLocation(), OS);
  llvm::DenseSet<const ValueDecl *> Read;
  collectReads(FD->getBody(), Read);
  printSignature(FD, OS, &Read);
  OS << " ";
  LocalConstants Constants(FD);
  BodyPrinter Body(*this, Ctx, Opts, FD->getLocation(), Read, Constants, OS);
  if (const Stmt *B = FD->getBody())
    Body.body(B);
  else
    OS << "{}";
  OS << "\n";
}

} // namespace fluxion
