// The Clang front end, built into its own module (module.h): Clang resolves the names of the
// calls in files a compile database covers.
#include "analyzer/cpp/clang/module.h"
#include "analyzer/cpp/clang/preamble.h"
#include "analyzer/cpp/database_search.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace gpulint::cpp {
namespace {

namespace fs = std::filesystem;

// Clang's builtin headers (stddef.h, ...) live in its resource directory, which a tool linked
// against libclang-cpp does not find by itself.
constexpr const char* kResourceDir = GPULINT_CLANG_RESOURCE_DIR;

std::mutex& database_mutex() {
  static std::mutex m;
  return m;
}
struct Loaded {
  std::shared_ptr<clang::tooling::CompilationDatabase> db;  // null: none, or unreadable
  bool broken = false;                                      // there, but not a database
};

// One database per directory for the whole run.
std::map<std::string, Loaded>& databases() {
  static std::map<std::string, Loaded> cache;
  return cache;
}

std::shared_ptr<clang::tooling::CompilationDatabase> load(const fs::path& dir, bool* broken) {
  std::lock_guard<std::mutex> lock(database_mutex());
  auto [it, inserted] = databases().emplace(dir.string(), Loaded{});
  if (inserted) {
    std::string error;
    const fs::path json = dir / "compile_commands.json";
    std::error_code ec;
    // LLVM's parser prints its own complaint to stderr; a file that is not JSON at all is
    // caught first, so the only message is gpulint's.
    std::ifstream in(json, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (fs::exists(json, ec) && !nlohmann::json::accept(bytes.str())) {
      it->second.broken = true;
    } else if (fs::exists(json, ec)) {
      it->second.db = clang::tooling::JSONCompilationDatabase::loadFromFile(
          json.string(), error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
      it->second.broken = it->second.db == nullptr;
    }
  }
  *broken = it->second.broken;
  return it->second.db;
}

struct Found {
  std::vector<clang::tooling::CompileCommand> commands;  // empty: no database has the file
  fs::path dir;
  bool broken = false;
};

// The commands of one file, copied out of the shared database: JSONCompilationDatabase's
// lookups are not safe from several threads, so they happen under the lock and each Clang run
// gets its own copy.
class OneFile : public clang::tooling::CompilationDatabase {
 public:
  explicit OneFile(std::vector<clang::tooling::CompileCommand> commands)
      : commands_(std::move(commands)) {}
  std::vector<clang::tooling::CompileCommand> getCompileCommands(llvm::StringRef) const override {
    return commands_;
  }

 private:
  std::vector<clang::tooling::CompileCommand> commands_;
};

Found find_database(const fs::path& file, const std::string& explicit_dir) {
  Found found;
  const std::vector<fs::path> candidates = compile_database_candidates(file, explicit_dir);
  for (const fs::path& dir : candidates) {
    bool broken = false;
    auto db = load(dir, &broken);
    found.broken |= broken;
    if (db) {
      std::lock_guard<std::mutex> lock(database_mutex());
      found.commands = db->getCompileCommands(file.string());
    }
    if (!found.commands.empty()) {
      found.dir = dir;
      return found;
    }
    if (broken) found.dir = dir;
  }
  return found;
}

// Flags GCC accepts and Clang 14 rejects, as CMake writes them for g++ builds.
bool gcc_only(const std::string& arg) {
  return arg == "-fno-semantic-interposition" || arg == "-fconcepts" ||
         arg.starts_with("-fcompare-debug") || arg == "-fno-gnu-unique" ||
         arg.starts_with("-fmacro-prefix-map") || arg == "-fstack-clash-protection";
}

class Collector : public clang::RecursiveASTVisitor<Collector> {
 public:
  Collector(clang::SourceManager& sm, const clang::LangOptions& lang, Resolution& out)
      : sm_(sm), lang_(lang), out_(out) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitForStmt(clang::ForStmt* loop) {
    MacroLoop info;
    if (auto* init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit())) {
      for (const clang::Decl* d : init->decls()) {
        if (auto* var = llvm::dyn_cast<clang::VarDecl>(d))
          info.counters.push_back(var->getName().str());
      }
    }
    note_macro_loop(loop, loop->getBody(), std::move(info));
    return true;
  }
  bool VisitCXXForRangeStmt(clang::CXXForRangeStmt* loop) {
    MacroLoop info;
    info.iterated = root_variable(loop->getRangeInit());
    if (const clang::VarDecl* var = loop->getLoopVariable()) {
      if (auto* bindings = llvm::dyn_cast<clang::DecompositionDecl>(var)) {
        for (const clang::BindingDecl* b : bindings->bindings())
          info.bound.push_back(b->getName().str());
      } else {
        info.bound.push_back(var->getName().str());
      }
    }
    note_macro_loop(loop, loop->getBody(), std::move(info));
    return true;
  }
  bool VisitWhileStmt(clang::WhileStmt* loop) {
    note_macro_loop(loop, loop->getBody(), {});
    return true;
  }

  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (callee == nullptr) return true;
    clang::SourceLocation begin = call->getBeginLoc(), end = call->getEndLoc();
    if (begin.isInvalid() || end.isInvalid()) return true;
    // A call spelt in a macro argument is reported where it is spelt; one that a macro's body
    // makes, at the macro's invocation, which is what the source shows.
    auto place = [&](clang::SourceLocation loc, bool at_end) {
      if (!loc.isMacroID()) return loc;
      if (sm_.isMacroArgExpansion(loc)) return sm_.getSpellingLoc(loc);
      auto range = sm_.getExpansionRange(loc);
      return at_end ? range.getEnd() : range.getBegin();
    };
    begin = place(begin, false);
    end = place(end, true);
    if (!sm_.isInMainFile(begin) || !sm_.isInMainFile(end)) return true;
    const unsigned b = sm_.getFileOffset(begin);
    const unsigned e = sm_.getFileOffset(end) + clang::Lexer::MeasureTokenLength(end, sm_, lang_);
    if (e <= b) return true;
    // Template instantiations repeat a call; the first resolution stands.
    out_.callees.emplace(Resolution::key(b, e), callee->getQualifiedNameAsString());
    note_definition(Resolution::key(b, e), callee);
    return true;
  }

 private:
  // The step model's functions are the file's definitions, templates included, so a call of an
  // instantiation is a call of the template it came from.
  void note_definition(uint64_t call, const clang::FunctionDecl* callee) {
    if (const clang::FunctionDecl* pattern = callee->getTemplateInstantiationPattern())
      callee = pattern;
    const clang::FunctionDecl* definition = callee->getDefinition();
    if (definition == nullptr) return;
    const clang::SourceLocation name = sm_.getExpansionLoc(definition->getLocation());
    if (!sm_.isInMainFile(name)) return;
    std::vector<uint32_t>& offsets = out_.definitions[call];
    const uint32_t offset = sm_.getFileOffset(name);
    if (std::find(offsets.begin(), offsets.end(), offset) == offsets.end())
      offsets.push_back(offset);
  }

  // A loop whose keyword comes from a macro's body and whose body the file spells after the
  // invocation: a block, or one statement (which may itself be a macro's invocation, as a loop
  // macro nested in another is). A loop written whole in a macro, or in a macro's argument, is
  // not one.
  void note_macro_loop(const clang::Stmt* loop, const clang::Stmt* body, MacroLoop info) {
    const clang::SourceLocation keyword = loop->getBeginLoc();
    if (body == nullptr || !keyword.isMacroID() || sm_.isMacroArgExpansion(keyword)) return;
    info.block = llvm::isa<clang::CompoundStmt>(body);
    const clang::SourceLocation start = body->getBeginLoc();
    if (info.block && start.isMacroID()) return;
    const clang::SourceLocation first = sm_.getExpansionLoc(start);
    const clang::CharSourceRange invocation = sm_.getExpansionRange(keyword);
    if (!sm_.isInMainFile(first) || !sm_.isInMainFile(invocation.getBegin())) return;
    info.header_begin = sm_.getFileOffset(invocation.getBegin());
    info.header_end = sm_.getFileOffset(invocation.getEnd()) +
                      (invocation.isTokenRange()
                           ? clang::Lexer::MeasureTokenLength(invocation.getEnd(), sm_, lang_)
                           : 0);
    const uint32_t at = sm_.getFileOffset(first);
    if (at < info.header_end) return;
    // Template instantiations repeat the loop; the first stands.
    out_.macro_loops.emplace(at, std::move(info));
  }

  // `loader`, `*loader`, `loader->begin()`'s receiver: the variable a range is taken from.
  static std::string root_variable(const clang::Expr* e) {
    for (int depth = 0; e != nullptr && depth < 8; ++depth) {
      e = e->IgnoreParenImpCasts();
      if (auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e))
        return ref->getDecl()->getNameAsString();
      if (auto* unary = llvm::dyn_cast<clang::UnaryOperator>(e)) {
        e = unary->getSubExpr();
      } else if (auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e);
                 op != nullptr && op->getNumArgs() >= 1) {
        e = op->getArg(0);
      } else if (auto* member = llvm::dyn_cast<clang::MemberExpr>(e)) {
        e = member->getBase();
      } else {
        return {};
      }
    }
    return {};
  }

  clang::SourceManager& sm_;
  const clang::LangOptions& lang_;
  Resolution& out_;
};

// Only the file's own declarations are walked: the headers' (or, with a PCH, deserialising all
// of them) would cost as much as the parse. A main-file template's instantiations are walked
// from the template.
class Consumer : public clang::ASTConsumer {
 public:
  explicit Consumer(Resolution& out) : out_(out) {}
  void Initialize(clang::ASTContext& context) override { context_ = &context; }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    const clang::SourceManager& sm = context_->getSourceManager();
    for (clang::Decl* decl : group) {
      if (sm.isInMainFile(sm.getExpansionLoc(decl->getLocation()))) own_.push_back(decl);
    }
    return true;
  }
  void HandleTranslationUnit(clang::ASTContext& context) override {
    Collector collector(context.getSourceManager(), context.getLangOpts(), out_);
    for (clang::Decl* decl : own_) collector.TraverseDecl(decl);
  }

 private:
  Resolution& out_;
  clang::ASTContext* context_ = nullptr;
  std::vector<clang::Decl*> own_;
};

// Keeps the first error, with its line, so the user learns why findings may be missing.
class FirstError : public clang::DiagnosticConsumer {
 public:
  explicit FirstError(Resolution& out) : out_(out) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error || !out_.error.empty()) return;
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    std::string where;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sm = info.getSourceManager();
      const clang::SourceLocation loc = sm.getExpansionLoc(info.getLocation());
      if (sm.isInMainFile(loc)) {
        out_.error_offset = sm.getFileOffset(loc);
      } else if (clang::PresumedLoc p = sm.getPresumedLoc(loc); p.isValid()) {
        where = std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) + ": ";
      }
    }
    out_.error = "Clang: " + where + std::string(message.str());
  }

 private:
  Resolution& out_;
};

class Action : public clang::ASTFrontendAction {
 public:
  explicit Action(Resolution& out) : out_(out) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&,
                                                        llvm::StringRef) override {
    return std::make_unique<Consumer>(out_);
  }

 private:
  Resolution& out_;
};

class Factory : public clang::tooling::FrontendActionFactory {
 public:
  explicit Factory(Resolution& out) : out_(out) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<Action>(out_);
  }

 private:
  Resolution& out_;
};

clang::tooling::ArgumentsAdjuster adjuster() {
  using namespace clang::tooling;
  return combineAdjusters(
      combineAdjusters(
          combineAdjusters(getClangSyntaxOnlyAdjuster(), getClangStripOutputAdjuster()),
          getClangStripDependencyFileAdjuster()),
      [](const CommandLineArguments& args, llvm::StringRef) {
        CommandLineArguments out;
        for (const std::string& arg : args) {
          if (!gcc_only(arg)) out.push_back(arg);
        }
        out.push_back(std::string("-resource-dir=") + kResourceDir);
        out.push_back("-w");  // the user's warnings are their compiler's business
        out.push_back("-fno-caret-diagnostics");  // and no "N errors generated" on stderr
        return out;
      });
}

void plan_run(const std::vector<std::string>& paths, const std::string& database_dir) {
  forget_expected_preambles();
  const clang::tooling::ArgumentsAdjuster adjust = adjuster();
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::path file = fs::absolute(path, ec);
    if (ec) continue;
    const Found found = find_database(file, database_dir);
    if (found.commands.empty()) continue;
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    expect_preamble(file.string(), text.str(),
                    adjust(found.commands.front().CommandLine, file.string()));
  }
}

std::optional<Resolution> resolve(const std::string& path, std::string_view text,
                                  const std::string& database_dir) {
  std::error_code ec;
  const fs::path file = fs::absolute(path, ec);
  if (ec) return std::nullopt;
  Found found = find_database(file, database_dir);
  if (found.commands.empty()) {
    if (!found.broken) return std::nullopt;
    Resolution broken;
    broken.error =
        (found.dir / "compile_commands.json").string() + " could not be read as a compile database";
    return broken;
  }
  const clang::tooling::ArgumentsAdjuster adjust = adjuster();
  const std::string pch = shared_preamble(
      file.string(), std::string(text), adjust(found.commands.front().CommandLine, file.string()));
  OneFile db(std::move(found.commands));
  const std::string file_name = file.string();
  auto run = [&](const std::string& with_pch) {
    // A file system of its own: ClangTool enters each command's directory, and on the process's
    // file system that is a chdir, under every other worker of the run opening relative paths.
    clang::tooling::ClangTool tool(db, {file.string()},
                                   std::make_shared<clang::PCHContainerOperations>(),
                                   llvm::vfs::createPhysicalFileSystem());
    tool.appendArgumentsAdjuster(adjust);
    // The text analysed, not what the path holds on disk: standard input, an editor's buffer.
    // ClangTool keeps both as references: `file_name` and `text` outlive the run.
    tool.mapVirtualFile(file_name, text);
    if (!with_pch.empty()) {
      tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
          {"-include-pch", with_pch}, clang::tooling::ArgumentInsertPosition::END));
    }
    Resolution resolution;
    FirstError errors(resolution);
    tool.setDiagnosticConsumer(&errors);
    tool.setPrintErrorMessage(false);
    Factory factory(resolution);
    const int status = tool.run(&factory);
    if (status != 0 && resolution.error.empty())
      resolution.error = "Clang: the file could not be analysed";
    return resolution;
  };
  Resolution resolution = run(pch);
  resolution.shared_preamble = !pch.empty();
  // A PCH Clang will not take (it says so) must not cost the file its analysis.
  if (!pch.empty() && (resolution.error.find("precompiled") != std::string::npos ||
                       resolution.error.find("PCH") != std::string::npos)) {
    resolution = run("");
  }
  return resolution;
}

}  // namespace
}  // namespace gpulint::cpp

extern "C" __attribute__((visibility("default"))) const gpulint::cpp::ClangModule*
gpulint_clang_module() {
  static const gpulint::cpp::ClangModule module{gpulint::cpp::kClangModuleAbi,
                                                sizeof(gpulint::cpp::Resolution),
                                                gpulint::cpp::plan_run, gpulint::cpp::resolve};
  return &module;
}
