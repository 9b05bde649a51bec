//===- RepeatedDiagnostics.cpp - Say each Fluxion error once --------------===//
#include "RepeatedDiagnostics.h"

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <string>

using namespace clang;

namespace fluxion {

namespace {

/// The filters alive now (the project builds without RTTI).
llvm::DenseSet<const DiagnosticConsumer *> &installed() {
  static llvm::DenseSet<const DiagnosticConsumer *> Filters;
  return Filters;
}

class RepeatFilter : public DiagnosticConsumer {
public:
  RepeatFilter(DiagnosticConsumer &Target,
               std::unique_ptr<DiagnosticConsumer> Owned)
      : Target(Target), Owned(std::move(Owned)) {
    // What the client counted before the filter came keeps counting.
    NumErrors = Target.getNumErrors();
    NumWarnings = Target.getNumWarnings();
    installed().insert(this);
  }
  ~RepeatFilter() override { installed().erase(this); }

  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    if (Level == DiagnosticsEngine::Note) {
      if (!Dropping)
        forward(Level, Info);
      return;
    }
    Dropping = false;
    llvm::SmallString<256> Text;
    Info.FormatDiagnostic(Text);
    if (llvm::StringRef(Text).starts_with("fluxion:")) {
      // The place, the level and the words: a repeat of all three is the
      // same error (notes included: they follow from the same lowering).
      llvm::SmallString<300> Key;
      Key += std::to_string(Info.getLocation().getRawEncoding());
      Key += '/';
      Key += std::to_string(static_cast<int>(Level));
      Key += '/';
      Key += Text;
      if (!Said.insert(Key).second) {
        Dropping = true;
        return;
      }
    }
    forward(Level, Info);
  }

  void BeginSourceFile(const LangOptions &LO, const Preprocessor *PP) override {
    Target.BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { Target.EndSourceFile(); }
  void finish() override { Target.finish(); }
  void clear() override {
    DiagnosticConsumer::clear();
    Target.clear();
  }
  bool IncludeInDiagnosticCounts() const override {
    return Target.IncludeInDiagnosticCounts();
  }

private:
  void forward(DiagnosticsEngine::Level Level, const Diagnostic &Info) {
    DiagnosticConsumer::HandleDiagnostic(Level, Info); // counts it
    Target.HandleDiagnostic(Level, Info);
  }

  DiagnosticConsumer &Target;
  std::unique_ptr<DiagnosticConsumer> Owned;
  llvm::StringSet<> Said;
  bool Dropping = false; ///< The last error was a repeat: drop its notes.
};

} // namespace

void sayFluxionDiagnosticsOnce(DiagnosticsEngine &D) {
  DiagnosticConsumer *Client = D.getClient();
  if (!Client || installed().contains(Client))
    return;
  std::unique_ptr<DiagnosticConsumer> Owned = D.takeClient();
  D.setClient(new RepeatFilter(*Client, std::move(Owned)),
              /*ShouldOwnClient=*/true);
}

} // namespace fluxion
