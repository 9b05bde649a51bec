// Unit tests of the SourcePrinter on functions parsed from real C++: the
// printed text must name the same declarations wherever it is placed, and
// line markers must become the right #line directives once formatted.
#include "fluxion/engine/SourcePrinter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace clang;
using namespace fluxion;

namespace {

/// The function named Name with a body, anywhere in Ctx's namespaces.
const FunctionDecl *findFunction(const DeclContext *DC, StringRef Name) {
  for (const Decl *D : DC->decls()) {
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (FD->getName() == Name && FD->hasBody())
        return FD;
    if (const auto *NS = dyn_cast<NamespaceDecl>(D))
      if (const FunctionDecl *FD = findFunction(NS, Name))
        return FD;
  }
  return nullptr;
}

std::string print(ASTUnit &AST, StringRef Name, SourcePrintOptions Opts) {
  const FunctionDecl *FD =
      findFunction(AST.getASTContext().getTranslationUnitDecl(), Name);
  EXPECT_NE(FD, nullptr);
  if (!FD)
    return "";
  SourcePrinter Printer(AST.getASTContext(), Opts);
  std::string Code;
  llvm::raw_string_ostream OS(Code);
  Printer.printDefinition(FD, OS);
  return Printer.finishLines(formatLLVMStyle(Code));
}

SourcePrintOptions plain() {
  SourcePrintOptions Opts;
  Opts.LineDirectives = false;
  Opts.SourceComments = false;
  return Opts;
}

TEST(SourcePrinter, QualifiesFunctionsGlobalsAndTypes) {
  auto AST = tooling::buildASTFromCodeWithArgs(R"cpp(
    namespace lib {
    namespace detail { template <class T> using Id = T; }
    double scale = 2;
    template <class T> T sq(T v) { return v * v; }
    detail::Id<double> f(detail::Id<double> x) { return sq(x) * scale; }
    }
  )cpp",
                                               {"-std=c++17"}, "input.cc");
  std::string Out = print(*AST, "f", plain());
  EXPECT_NE(Out.find("lib::detail::Id<double> f(lib::detail::Id<double> x)"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("return lib::sq<double>(x) * lib::scale;"),
            std::string::npos)
      << Out;
}

TEST(SourcePrinter, QuotesSourceLinesAndMapsStatements) {
  auto AST = tooling::buildASTFromCodeWithArgs("double f(double x) {\n"
                                               "  double y = x * x;\n"
                                               "  return y + x;\n"
                                               "}\n",
                                               {"-std=c++17"}, "input.cc");
  SourcePrintOptions Opts;
  std::string Out = print(*AST, "f", Opts);
  // The function maps to line 1; each statement to its own line, and where
  // the line count is already right no directive is needed.
  EXPECT_EQ(Out, "#line 1 \"input.cc\"\n"
                 "double f(double x) {\n"
                 "  // double y = x * x;\n"
                 "#line 2\n"
                 "  double y = x * x;\n"
                 "  // return y + x;\n"
                 "#line 3\n"
                 "  return y + x;\n"
                 "}\n");
}

TEST(SourcePrinter, MarksWhatGeneratedCodeNeverReads) {
  auto AST = tooling::buildASTFromCodeWithArgs(
      "double f(double x, int n) { double r; r = x; return x; }",
      {"-std=c++17"}, "input.cc");
  std::string Out = print(*AST, "f", plain());
  EXPECT_NE(Out.find("double f(double x, [[maybe_unused]] int n) {"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("[[maybe_unused]] double r;"), std::string::npos) << Out;
}

TEST(SourcePrinter, EscapesFileNames) {
  EXPECT_EQ(escapeForLiteral("a\\b\"c"), "a\\\\b\\\"c");
}

} // namespace
