//===- FluxionGen.cpp - fluxion-gen, the source-to-source tool ------------===//
//
// Runs the same engine as the plugin on each input and writes the input back
// with the generated derivatives inserted as C++ source, where the plugin
// declares and defines them, for compilers other than Clang, for reading
// and for debugging. Usage:
//
//   fluxion-gen in.cpp -o out.cpp -- <compiler flags>
//   fluxion-gen -p build/ a.cpp b.cpp --output-dir gen/
//   fluxion-gen in.cpp --declarations in.derivatives.hpp -- <flags>
//
//===----------------------------------------------------------------------===//
#include "GenerateAction.h"
#include "OutputCheck.h"

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace clang::tooling;
namespace cl = llvm::cl;

static cl::OptionCategory GenCategory("fluxion-gen options");

static cl::opt<std::string>
    OutputFile("o",
               cl::desc("Write the output translation unit to <file> ('-': "
                        "standard output); one input only"),
               cl::value_desc("file"), cl::cat(GenCategory));

static cl::opt<std::string>
    OutputDir("output-dir",
              cl::desc("Write the output translation unit of each input to "
                       "<dir>/<input file name>"),
              cl::value_desc("dir"), cl::cat(GenCategory));

static cl::opt<std::string> DeclarationsFile(
    "declarations",
    cl::desc("Write the declarations of the generated functions that other "
             "translation units can call to the header <file>; without -o "
             "or --output-dir, only the header is written"),
    cl::value_desc("file"), cl::cat(GenCategory));

static cl::opt<bool>
    NoLine("no-line",
           cl::desc("Omit the #line directives that map generated statements "
                    "to the source lines they differentiate"),
           cl::cat(GenCategory));

static cl::opt<bool> NoCompileCheck(
    "no-compile-check",
    cl::desc("Do not parse the output again to check that it compiles "
             "(the check makes fluxion-gen fail, writing nothing, rather "
             "than write code that does not compile)"),
    cl::cat(GenCategory));

static cl::extrahelp CommonHelp(CommonOptionsParser::HelpMessage);

static const char Overview[] =
    "Fluxion's source-to-source tool: writes each input back with the\n"
    "derivatives of its [[fluxion::...]] functions inserted as C++ source, "
    "where the\nFluxion plugin declares and defines them. The output compiles "
    "with any C++17\ncompiler and the flags of `fluxion-config --cxxflags`.\n";

static int fail(const llvm::Twine &Message) {
  llvm::WithColor::error(llvm::errs(), "fluxion-gen") << Message << "\n";
  return 1;
}

/// Loading the plugin into the tool would register the attributes twice.
static ArgumentsAdjuster stripPluginFlags() {
  return [](const CommandLineArguments &Args, StringRef) {
    CommandLineArguments Kept;
    for (const std::string &A : Args) {
      StringRef Arg(A);
      if (Arg.starts_with("-fplugin=") || Arg.starts_with("-fplugin-arg-") ||
          Arg.starts_with("-fpass-plugin="))
        continue;
      Kept.push_back(A);
    }
    return Kept;
  };
}

/// Clang's builtin headers: LibTooling would look for them next to this
/// executable.
static ArgumentsAdjuster addResourceDir() {
  return [](const CommandLineArguments &Args, StringRef) {
    for (const std::string &A : Args)
      if (StringRef(A).starts_with("-resource-dir"))
        return Args;
    CommandLineArguments Out = Args;
    Out.push_back("-resource-dir=" FLUXION_CLANG_RESOURCE_DIR);
    return Out;
  };
}

static bool writeFile(StringRef Path, StringRef Text) {
  if (Path == "-") {
    llvm::outs() << Text;
    llvm::outs().flush();
    return true;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_None);
  if (EC) {
    fail("cannot write '" + Path + "': " + EC.message());
    return false;
  }
  OS << Text;
  return true;
}

/// The header --declarations writes: Body (the declarations of each input)
/// under an include guard named after Path.
static std::string declarationsHeader(StringRef Path,
                                      llvm::ArrayRef<std::string> Inputs,
                                      StringRef Body) {
  std::string Guard = "FLUXION_GENERATED_";
  for (char C : llvm::sys::path::filename(Path))
    Guard += llvm::isAlnum(C) ? llvm::toUpper(C) : '_';
  std::string Header;
  llvm::raw_string_ostream OS(Header);
  OS << "// Declarations of the functions fluxion-gen generated from "
     << llvm::join(Inputs, ", ") << ".\n"
     << "// Include it after the declarations of the types they use.\n"
     << "#ifndef " << Guard << "\n#define " << Guard << "\n"
     << Body << "\n#endif // " << Guard << "\n";
  return Header;
}

int main(int argc, const char **argv) {
  llvm::InitLLVM X(argc, argv);
  auto Parser = CommonOptionsParser::create(argc, argv, GenCategory,
                                            cl::OneOrMore, Overview);
  if (!Parser) {
    llvm::errs() << llvm::toString(Parser.takeError());
    return 1;
  }
  const std::vector<std::string> &Inputs = Parser->getSourcePathList();
  if (!OutputFile.empty() && !OutputDir.empty())
    return fail("-o and --output-dir cannot be used together");
  if (!OutputFile.empty() && Inputs.size() > 1)
    return fail("-o takes one input; use --output-dir for several");
  bool WriteSources =
      !OutputFile.empty() || !OutputDir.empty() || DeclarationsFile.empty();
  if (WriteSources && OutputFile.empty() && OutputDir.empty() &&
      Inputs.size() > 1)
    return fail("several inputs: give --output-dir");
  if (!OutputDir.empty()) {
    if (std::error_code EC = llvm::sys::fs::create_directories(OutputDir))
      return fail("cannot create '" + OutputDir + "': " + EC.message());
    llvm::StringSet<> Names;
    for (const std::string &Input : Inputs)
      if (!Names.insert(llvm::sys::path::filename(Input)).second)
        return fail("two inputs named '" + llvm::sys::path::filename(Input) +
                    "' would write the same file in --output-dir");
  }

  fluxion::SourcePrintOptions PrintOpts;
  PrintOpts.LineDirectives = !NoLine;
  int Status = 0;
  std::string Declarations;
  for (const std::string &Input : Inputs) {
    // One tool per input: a failing input does not stop the others, and
    // its outputs are not written.
    ArgumentsAdjuster Adjuster = combineAdjusters(
        Parser->getArgumentsAdjuster(),
        combineAdjusters(stripPluginFlags(), addResourceDir()));
    ClangTool Tool(Parser->getCompilations(), {Input});
    Tool.appendArgumentsAdjuster(Adjuster);
    fluxion::GeneratedOutput Output;
    fluxion::GenerateActionFactory Factory(PrintOpts, Output);
    if (Tool.run(&Factory) != 0 || !Output.Complete) {
      Status = 1;
      continue;
    }
    llvm::SmallString<256> Path(OutputFile.empty() ? StringRef("-")
                                                   : StringRef(OutputFile));
    if (!OutputDir.empty()) {
      Path = OutputDir;
      llvm::sys::path::append(Path, llvm::sys::path::filename(Input));
    }
    // An input without generated code is copied as it is: nothing to check.
    if (!NoCompileCheck && Output.Generated &&
        !fluxion::outputCompiles(
            Parser->getCompilations(), Adjuster, Input, Output.Source,
            Path == "-" ? StringRef("<stdout>") : StringRef(Path))) {
      Status = 1;
      continue;
    }
    if (WriteSources) {
      if (!writeFile(Path, Output.Source))
        Status = 1;
    }
    if (!Output.Declarations.empty())
      Declarations += "\n// From " + Input + "\n" + Output.Declarations;
  }
  if (!DeclarationsFile.empty() && Status == 0 &&
      !writeFile(DeclarationsFile,
                 declarationsHeader(DeclarationsFile, Inputs, Declarations)))
    Status = 1;
  return Status;
}
