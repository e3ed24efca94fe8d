#include "server/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/core/language.h"
#include "analyzer/core/project.h"
#include "analyzer/engine.h"
#include "analyzer/fixes/fix_rounds.h"
#include "analyzer/result_cache.h"
#include "rules/registry.h"
#include "server/code_actions.h"
#include "server/text_positions.h"
#include "server/transport.h"
#include "server/workspace.h"

namespace gpulint::server {
namespace {

using Json = nlohmann::json;

// JSON-RPC's error codes, and LSP's own.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;

// Results the in-memory cache gathers from edits are dropped this often, so that memory stays
// flat however long the session.
constexpr size_t kLintsPerCache = 256;

struct Document {
  std::string path;
  std::string text;
  int64_t version = 0;
  bool dirty = true;                    // changed since it was last linted
  std::vector<Diagnostic> diagnostics;  // of `text`, when not dirty
};

struct RequestError {
  int code;
  std::string message;
};

const Json& field(const Json& object, const char* key) {
  static const Json null;
  if (!object.is_object()) return null;
  const auto it = object.find(key);
  return it == object.end() ? null : *it;
}

LspPosition position_from(const Json& p) {
  const Json& line = field(p, "line");
  const Json& character = field(p, "character");
  if (!line.is_number_unsigned() || !character.is_number_unsigned()) {
    throw RequestError{kInvalidParams,
                       "a position needs a line and a character (whole numbers, 0 or more)"};
  }
  return {line.get<uint32_t>(), character.get<uint32_t>()};
}

std::string uri_from(const Json& params) {
  const Json& uri = field(field(params, "textDocument"), "uri");
  if (!uri.is_string()) throw RequestError{kInvalidParams, "textDocument.uri is missing"};
  return uri.get<std::string>();
}

// Whether two lints found the same: an unchanged document's findings are not sent again.
bool same_findings(const std::vector<Diagnostic>& a, const std::vector<Diagnostic>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Diagnostic& x, const Diagnostic& y) {
                      return x.code == y.code && x.location == y.location &&
                             x.message == y.message && x.related.size() == y.related.size();
                    });
}

class Session {
 public:
  Session(int in, int out) : transport_(in, out) {}
  int run();

 private:
  void handle(const std::string& body);
  Json dispatch(const std::string& method, const Json& params);
  void send(const Json& message);
  void notify(const std::string& method, Json params);
  void reply_error(const Json& id, int code, const std::string& message);

  Json initialize(const Json& params);
  void watch_files();
  void open(const Json& params);
  void change(const Json& params);
  void close(const Json& params);
  Json pull_diagnostics(const Json& params);
  Json code_actions(const Json& params);
  Json hover(const Json& params);

  Document& document(const std::string& uri);
  Document& linted(const std::string& uri);
  void lint_dirty();
  LintResult lint(const std::vector<std::string>& paths, std::map<std::string, std::string> texts,
                  LintOptions& options, std::unique_ptr<Project>& project);
  void publish(const std::string& uri, const Document& doc);
  Json diagnostics_json(const Document& doc);
  void show_once(int type, const std::string& message);

  Transport transport_;
  bool initialized_ = false;
  bool shut_down_ = false;
  bool exit_ = false;
  bool push_ = true;        // publish diagnostics, unless the client pulls them
  bool can_watch_ = false;  // the client watches files for us when asked
  Encoding encoding_ = Encoding::Utf16;
  Workspace workspace_;
  std::map<std::string, Document> documents_;  // by URI
  std::unique_ptr<ResultCache> cache_;
  size_t lints_ = 0;
  std::set<std::string> shown_;
};

int Session::run() {
  while (!exit_) {
    // Lint once the editor has stopped sending: a burst of keystrokes is one lint.
    const bool dirty = std::any_of(documents_.begin(), documents_.end(),
                                   [](const auto& d) { return d.second.dirty; });
    if (dirty && !shut_down_ && !transport_.ready()) {
      lint_dirty();
      continue;
    }
    const Incoming in = transport_.read();
    if (in.status == Incoming::Status::End) return 1;
    if (in.status == Incoming::Status::Malformed) {
      reply_error(nullptr, kParseError, in.problem);
      continue;
    }
    handle(in.body);
  }
  return shut_down_ ? 0 : 1;
}

void Session::send(const Json& message) {
  // A client that has gone away ends the session at its next read.
  transport_.write(message.dump(-1, ' ', false, Json::error_handler_t::replace));
}

void Session::notify(const std::string& method, Json params) {
  send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void Session::reply_error(const Json& id, int code, const std::string& message) {
  send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void Session::show_once(int type, const std::string& message) {
  if (shown_.insert(message).second) {
    notify("window/showMessage", {{"type", type}, {"message", "gpulint: " + message}});
  }
}

void Session::handle(const std::string& body) {
  Json message = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    reply_error(nullptr, kParseError, "the message is not JSON");
    return;
  }
  const Json& id = field(message, "id");
  const Json& method = field(message, "method");
  const bool request = message.is_object() && message.contains("id");
  if (!method.is_string() || (request && !id.is_string() && !id.is_number_integer())) {
    // A response to a request of ours (there are none that need an answer) is not an error.
    if (request && method.is_null() && (message.contains("result") || message.contains("error")))
      return;
    reply_error(request && (id.is_string() || id.is_number_integer()) ? id : Json(nullptr),
                kInvalidRequest, "a message needs a method (a string) and, if a request, an id");
    return;
  }
  const std::string name = method.get<std::string>();
  try {
    if (!initialized_ && name != "initialize" && name != "exit") {
      if (request) reply_error(id, kServerNotInitialized, "the server is not initialized yet");
      return;
    }
    if (shut_down_ && name != "exit") {
      if (request) reply_error(id, kInvalidRequest, "the server has been shut down");
      return;
    }
    Json result = dispatch(name, field(message, "params"));
    if (request) send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
  } catch (const RequestError& e) {
    if (request) reply_error(id, e.code, e.message);
  } catch (const std::exception& e) {
    if (request) reply_error(id, kInternalError, e.what());
  }
}

Json Session::dispatch(const std::string& method, const Json& params) {
  if (method == "initialize") return initialize(params);
  if (method == "initialized") {
    watch_files();
    return nullptr;
  }
  if (method == "shutdown") {
    shut_down_ = true;
    return nullptr;
  }
  if (method == "exit") {
    exit_ = true;
    return nullptr;
  }
  if (method == "textDocument/didOpen") {
    open(params);
  } else if (method == "textDocument/didChange") {
    change(params);
  } else if (method == "textDocument/didClose") {
    close(params);
  } else if (method == "textDocument/didSave" || method == "workspace/didChangeWatchedFiles") {
    // Other files, or the configuration, may have changed: every open document again.
    workspace_.forget_files();
    for (auto& [uri, doc] : documents_) doc.dirty = true;
  } else if (method == "textDocument/diagnostic") {
    return pull_diagnostics(params);
  } else if (method == "textDocument/codeAction") {
    return code_actions(params);
  } else if (method == "textDocument/hover") {
    return hover(params);
  } else if (!method.starts_with("$/") && method != "workspace/didChangeConfiguration") {
    throw RequestError{kMethodNotFound, "gpulint's server does not handle " + method};
  }
  return nullptr;
}

Json Session::initialize(const Json& params) {
  if (initialized_) throw RequestError{kInvalidRequest, "initialize was sent twice"};
  initialized_ = true;
  const Json& capabilities = field(params, "capabilities");
  const Json& encodings = field(field(capabilities, "general"), "positionEncodings");
  if (encodings.is_array() &&
      std::find(encodings.begin(), encodings.end(), Json("utf-8")) != encodings.end()) {
    encoding_ = Encoding::Utf8;
  }
  push_ = !field(field(capabilities, "textDocument"), "diagnostic").is_object();
  const Json& watched = field(field(capabilities, "workspace"), "didChangeWatchedFiles");
  can_watch_ = field(watched, "dynamicRegistration").is_boolean() &&
               field(watched, "dynamicRegistration").get<bool>();
  std::string root;
  if (const Json& folders = field(params, "workspaceFolders");
      folders.is_array() && !folders.empty()) {
    root = path_of_uri(field(folders[0], "uri").is_string()
                           ? field(folders[0], "uri").get<std::string>()
                           : std::string());
  } else if (const Json& uri = field(params, "rootUri"); uri.is_string()) {
    root = path_of_uri(uri.get<std::string>());
  }
  workspace_.set_root(root);
  cache_ = workspace_.open_cache();
  return {{"capabilities",
           {{"positionEncoding", encoding_ == Encoding::Utf8 ? "utf-8" : "utf-16"},
            {"textDocumentSync",
             {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
            {"diagnosticProvider",
             {{"identifier", "gpulint"},
              {"interFileDependencies", true},
              {"workspaceDiagnostics", false}}},
            {"codeActionProvider",
             {{"codeActionKinds", {"quickfix", kFixAllKind}}, {"resolveProvider", false}}},
            {"hoverProvider", true}}},
          {"serverInfo", {{"name", "gpulint"}, {"version", GPULINT_VERSION}}}};
}

// Asks a client that can watch files to tell of changes to Python files and configuration
// made outside it (a `git checkout`, another editor); others rescan on save.
void Session::watch_files() {
  if (!can_watch_) return;
  Json watchers = Json::array();
  for (const char* glob : {"**/*.py", "**/pyproject.toml", "**/.gpulint.toml"}) {
    watchers.push_back({{"globPattern", glob}});
  }
  send({{"jsonrpc", "2.0"},
        {"id", "gpulint-watch-files"},
        {"method", "client/registerCapability"},
        {"params",
         {{"registrations",
           {{{"id", "gpulint-watched-files"},
             {"method", "workspace/didChangeWatchedFiles"},
             {"registerOptions", {{"watchers", watchers}}}}}}}}});
}

void Session::open(const Json& params) {
  const Json& item = field(params, "textDocument");
  const Json& text = field(item, "text");
  if (!text.is_string()) throw RequestError{kInvalidParams, "textDocument.text is missing"};
  const std::string uri = uri_from(params);
  Document& doc = documents_[uri];
  doc.path = path_of_uri(uri);
  // An unsaved buffer ("untitled:Untitled-1") or a script without an extension: the editor's
  // language decides, through the name it is linted under.
  if (!language_of(doc.path)) {
    const Json& language = field(item, "languageId");
    if (language == "python") doc.path += ".py";
    if (language == "cpp" || language == "cuda-cpp") doc.path += ".cpp";
  }
  doc.text = text.get<std::string>();
  doc.version =
      field(item, "version").is_number_integer() ? field(item, "version").get<int64_t>() : 0;
  doc.dirty = true;
}

void Session::change(const Json& params) {
  Document& doc = document(uri_from(params));
  const Json& changes = field(params, "contentChanges");
  if (!changes.is_array()) throw RequestError{kInvalidParams, "contentChanges is missing"};
  for (const Json& c : changes) {
    const Json& text = field(c, "text");
    if (!text.is_string()) throw RequestError{kInvalidParams, "a change without text"};
    const Json& range = field(c, "range");
    if (range.is_object()) {
      apply_change(doc.text, position_from(field(range, "start")),
                   position_from(field(range, "end")), text.get<std::string>(), encoding_);
    } else {
      doc.text = text.get<std::string>();
    }
  }
  const Json& version = field(field(params, "textDocument"), "version");
  if (version.is_number_integer()) doc.version = version.get<int64_t>();
  doc.dirty = true;
}

void Session::close(const Json& params) {
  const std::string uri = uri_from(params);
  if (documents_.erase(uri) > 0 && push_) {
    notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", Json::array()}});
  }
}

Document& Session::document(const std::string& uri) {
  const auto it = documents_.find(uri);
  if (it == documents_.end()) throw RequestError{kInvalidParams, "not an open document: " + uri};
  return it->second;
}

Document& Session::linted(const std::string& uri) {
  Document& doc = document(uri);
  if (doc.dirty) lint_dirty();
  return doc;
}

LintResult Session::lint(const std::vector<std::string>& paths,
                         std::map<std::string, std::string> texts, LintOptions& options,
                         std::unique_ptr<Project>& project) {
  // The configuration is read afresh for every lint: an edit to pyproject.toml or
  // .gpulint.toml counts from the next keystroke, saved or not by this editor.
  try {
    project = std::make_unique<Project>(all_rules(), ProjectOptions{});
    project->resolve(paths);
    options.rule_set_for = [p = project.get()](const std::string& path) {
      return p->rule_set_for(path);
    };
  } catch (const std::exception& e) {
    show_once(
        1, std::string("the configuration could not be read, so the defaults apply: ") + e.what());
    options.rule_set_for = nullptr;
    options.rules.clear();
    for (const Rule* rule : all_rules()) {
      if (rule->info.default_on) options.rules.push_back(rule);
    }
  }
  if (++lints_ % kLintsPerCache == 0) cache_ = workspace_.open_cache();
  options.cache = cache_.get();
  options.texts = std::move(texts);
  return lint_files(paths, options);
}

void Session::lint_dirty() {
  std::map<std::string, std::string> texts;
  for (const auto& [uri, doc] : documents_) texts[doc.path] = doc.text;
  std::vector<std::string> paths = workspace_.context_for(texts);
  for (const auto& [path, text] : texts) paths.push_back(path);
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  LintOptions options;
  std::unique_ptr<Project> project;
  LintResult result = lint(paths, std::move(texts), options, project);
  std::map<std::string, std::vector<Diagnostic>> by_path;
  for (Diagnostic& d : result.diagnostics) by_path[d.location.path].push_back(std::move(d));
  for (const FileError& e : result.errors) {
    for (const auto& [uri, doc] : documents_) {
      if (doc.path == e.path) show_once(2, fmt::format("{}: {}", e.path, e.message));
    }
  }
  for (auto& [uri, doc] : documents_) {
    std::vector<Diagnostic>& found = by_path[doc.path];
    const bool changed = doc.dirty || !same_findings(found, doc.diagnostics);
    doc.diagnostics = std::move(found);
    doc.dirty = false;
    // A helper's per-step findings change with its callers: every open document that changed.
    if (changed && push_) publish(uri, doc);
  }
}

Json Session::diagnostics_json(const Document& doc) {
  const LineIndex index(doc.text, encoding_);
  Json items = Json::array();
  for (const Diagnostic& d : doc.diagnostics) {
    items.push_back(lsp_diagnostic(d, index, workspace_, encoding_));
  }
  return items;
}

void Session::publish(const std::string& uri, const Document& doc) {
  notify("textDocument/publishDiagnostics",
         {{"uri", uri}, {"version", doc.version}, {"diagnostics", diagnostics_json(doc)}});
}

Json Session::pull_diagnostics(const Json& params) {
  const Document& doc = linted(uri_from(params));
  return {{"kind", "full"}, {"items", diagnostics_json(doc)}};
}

Json Session::code_actions(const Json& params) {
  const std::string uri = uri_from(params);
  Document& doc = linted(uri);
  const Json& range = field(params, "range");
  const LineIndex index(doc.text, encoding_);
  const Span wanted{static_cast<uint32_t>(index.offset(position_from(field(range, "start")))),
                    static_cast<uint32_t>(index.offset(position_from(field(range, "end"))))};
  std::vector<std::string> only;
  if (const Json& kinds = field(field(params, "context"), "only"); kinds.is_array()) {
    for (const Json& k : kinds) {
      if (k.is_string()) only.push_back(k.get<std::string>());
    }
  }
  const auto fix_all = [this, &doc] {
    std::vector<std::string> paths = {doc.path};
    LintOptions options;
    std::unique_ptr<Project> project;
    LintResult first = lint(paths, {{doc.path, doc.text}}, options, project);
    FixRun run = fix_files(paths, options, std::move(first), /*unsafe=*/false, all_rules());
    const auto it = run.after.find(doc.path);
    return it == run.after.end() ? std::optional<std::string>() : it->second;
  };
  const ActionInput input{uri,   doc.path,  doc.text,   doc.diagnostics,
                          index, encoding_, workspace_, fix_all};
  return code_actions_for(input, wanted, only);
}

Json Session::hover(const Json& params) {
  const Document& doc = linted(uri_from(params));
  const LineIndex index(doc.text, encoding_);
  const size_t at = index.offset(position_from(field(params, "position")));
  std::string markdown;
  for (const Diagnostic& d : doc.diagnostics) {
    if (at < d.location.span.begin || at > d.location.span.end) continue;
    if (!markdown.empty()) markdown += "\n\n---\n\n";
    markdown += hover_markdown(d, workspace_);
  }
  if (markdown.empty()) return nullptr;
  return {{"contents", {{"kind", "markdown"}, {"value", markdown}}}};
}

}  // namespace

int run_session(int in, int out) { return Session(in, out).run(); }

}  // namespace gpulint::server
