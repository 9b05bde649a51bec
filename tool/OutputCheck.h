//===- OutputCheck.h - Does fluxion-gen's output compile? -------*- C++ -*-===//
//
// fluxion-gen must not hand back output that does not compile: once an
// input's output is produced, it is parsed again in-process, as if it were
// the input (same path, same compile command), syntax only and with the
// bodies of functions outside the main file skipped, so that what it costs
// is mostly reading the headers a second time. Errors are printed at their
// position in the output, with the output's line and the input line it
// comes from, as an internal error of fluxion-gen.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_TOOL_OUTPUTCHECK_H
#define FLUXION_TOOL_OUTPUTCHECK_H

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringRef.h"

namespace fluxion {

/// Parses Output as the translation unit Input with Input's compile command
/// (adjusted by Adjuster, warnings off). If it has errors, prints them as
/// errors in the output named OutputName and returns false.
bool outputCompiles(const clang::tooling::CompilationDatabase &Compilations,
                    const clang::tooling::ArgumentsAdjuster &Adjuster,
                    llvm::StringRef Input, llvm::StringRef Output,
                    llvm::StringRef OutputName);

} // namespace fluxion

#endif
