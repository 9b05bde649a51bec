//===- FluxionPragmas.cpp - #pragma fluxion revolve ------------------------===//
//
//   #pragma fluxion revolve(snapshots) [state(pointer, length)]...
//   for (int t = 0; t < steps; ++t) { ... }
//
// marks a time-stepping loop for binomial checkpointing. The handler turns
// the pragma into the statement
//   ::fluxion::detail::revolve_loop(snapshots, pointer, length, ...);
// in front of the loop, so that Sema resolves and type-checks the clause
// expressions like any other code and the engine finds them, typed, next to
// the loop they mark. Without the plugin the pragma is ignored.
//
//===----------------------------------------------------------------------===//
#include "clang/Basic/DiagnosticLex.h"
#include "clang/Basic/TokenKinds.h"
#include "clang/Lex/Pragma.h"
#include "clang/Lex/Preprocessor.h"

#include <algorithm>
#include <memory>

using namespace clang;

namespace fluxion {
namespace {

class FluxionPragmaHandler : public PragmaHandler {
public:
  FluxionPragmaHandler() : PragmaHandler("fluxion") {}

  void HandlePragma(Preprocessor &PP, PragmaIntroducer Introducer,
                    Token &FirstTok) override {
    SourceLocation Loc = FirstTok.getLocation();
    Token Tok;
    PP.Lex(Tok);
    if (Tok.isNot(tok::identifier) ||
        Tok.getIdentifierInfo()->getName() != "revolve")
      return error(PP, Tok, "expected 'revolve' after '#pragma fluxion'");
    Loc = Tok.getLocation();
    llvm::SmallVector<Token, 32> Out;
    // Synthesized tokens sit at the pragma's own words, so that diagnostics
    // about the marked loop point into the user's file. The parser reads
    // identifiers and punctuators by kind, never by spelling.
    auto Make = [&](tok::TokenKind K, StringRef Spelling, SourceLocation At) {
      Token T;
      T.startToken();
      T.setKind(K);
      T.setLocation(At);
      T.setLength(Spelling.size());
      if (K == tok::identifier)
        T.setIdentifierInfo(PP.getIdentifierInfo(Spelling));
      Out.push_back(T);
    };
    auto Add = [&](tok::TokenKind K, SourceLocation At) {
      Make(K, tok::getPunctuatorSpelling(K), At);
    };
    auto Ident = [&](StringRef Name) { Make(tok::identifier, Name, Loc); };
    Add(tok::coloncolon, Loc);
    Ident("fluxion");
    Add(tok::coloncolon, Loc);
    Ident("detail");
    Add(tok::coloncolon, Loc);
    Ident("revolve_loop");
    Add(tok::l_paren, Loc);
    // revolve(snapshots)
    PP.Lex(Tok);
    if (Tok.isNot(tok::l_paren))
      return error(PP, Tok, "expected '(' and a snapshot count");
    if (!copyUntilParen(PP, Out, /*Commas=*/false))
      return;
    // state(pointer, length)...
    for (PP.Lex(Tok); Tok.isNot(tok::eod); PP.Lex(Tok)) {
      if (Tok.isNot(tok::identifier) ||
          Tok.getIdentifierInfo()->getName() != "state")
        return error(PP, Tok, "expected 'state(pointer, length)'");
      PP.Lex(Tok);
      if (Tok.isNot(tok::l_paren))
        return error(PP, Tok, "expected '(' after 'state'");
      Add(tok::comma, Tok.getLocation());
      if (!copyUntilParen(PP, Out, /*Commas=*/true))
        return;
    }
    Add(tok::r_paren, Loc);
    Add(tok::semi, Loc);
    // The preprocessor reads injected tokens in place: hand it storage that
    // it owns and frees when the stream is done.
    auto Owned = std::make_unique<Token[]>(Out.size());
    std::copy(Out.begin(), Out.end(), Owned.get());
    PP.EnterTokenStream(std::move(Owned), Out.size(),
                        /*DisableMacroExpansion=*/false,
                        /*IsReinject=*/false);
  }

private:
  /// Copies the tokens up to the ')' matching an already read '('.
  static bool copyUntilParen(Preprocessor &PP,
                             llvm::SmallVectorImpl<Token> &Out, bool Commas) {
    unsigned Depth = 0, Count = 0, TopCommas = 0;
    Token Tok;
    for (PP.Lex(Tok);; PP.Lex(Tok)) {
      if (Tok.is(tok::eod)) {
        error(PP, Tok, "expected ')'");
        return false;
      }
      if (Tok.is(tok::l_paren))
        ++Depth;
      if (Tok.is(tok::r_paren)) {
        if (Depth == 0)
          break;
        --Depth;
      }
      if (Tok.is(tok::comma) && Depth == 0)
        ++TopCommas;
      Out.push_back(Tok);
      ++Count;
    }
    if (Count == 0 || TopCommas != (Commas ? 1u : 0u)) {
      error(PP, Tok,
            Commas ? "a state clause is 'state(pointer, length)'"
                   : "'revolve(snapshots)' takes one snapshot count");
      return false;
    }
    return true;
  }

  static void error(Preprocessor &PP, const Token &At, const char *Text) {
    DiagnosticsEngine &D = PP.getDiagnostics();
    D.Report(At.getLocation(),
             D.getCustomDiagID(DiagnosticsEngine::Error,
                               "fluxion: %0; the syntax is '#pragma fluxion "
                               "revolve(snapshots) [state(pointer, length)]...'"))
        << Text;
    // Skip the rest of the pragma line.
    Token Tok = At;
    while (Tok.isNot(tok::eod))
      PP.Lex(Tok);
  }
};

} // namespace
} // namespace fluxion

static clang::PragmaHandlerRegistry::Add<fluxion::FluxionPragmaHandler>
    RegisterPragma("fluxion", "#pragma fluxion revolve(snapshots)");
