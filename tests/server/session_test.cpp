// `gpulint server` driven by a scripted client: what an editor sees of its documents' findings,
// the code actions and hover, configuration and other files of the workspace, and every edge
// of the protocol a client may hit.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "server/text_positions.h"
#include "tests/server/lsp_client.h"

namespace gpulint::server {
namespace {

namespace fs = std::filesystem;

// The training script both this test and the Neovim test edit (tests/server/train.py).
const std::string kTrain = [] {
  std::ifstream in(GPULINT_SOURCE_DIR "/tests/server/train.py");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}();

class ServerSession : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "gpulint-server-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = fs::canonical(pattern);
    client_ = std::make_unique<LspClient>(dir_);
  }
  void TearDown() override {
    client_.reset();
    fs::remove_all(dir_);
  }

  std::string uri(const std::string& name) { return "file://" + (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
  }
  Json open(const std::string& name, const std::string& text, const char* language = "python") {
    client_->notify(
        "textDocument/didOpen",
        {{"textDocument",
          {{"uri", uri(name)}, {"languageId", language}, {"version", 1}, {"text", text}}}});
    return client_->published(uri(name));
  }
  Json change_all(const std::string& name, const std::string& text, int version) {
    client_->notify("textDocument/didChange",
                    {{"textDocument", {{"uri", uri(name)}, {"version", version}}},
                     {"contentChanges", Json::array({{{"text", text}}})}});
    return client_->published(uri(name));
  }
  static std::vector<std::string> codes(const Json& published) {
    std::vector<std::string> out;
    for (const Json& d : published["diagnostics"]) out.push_back(d["code"]);
    std::sort(out.begin(), out.end());
    return out;
  }
  static const Json* find(const Json& published, const std::string& code) {
    for (const Json& d : published["diagnostics"]) {
      if (d["code"] == code) return &d;
    }
    return nullptr;
  }
  Json actions(const std::string& name, const Json& range, Json only = nullptr) {
    Json context = {{"diagnostics", Json::array()}};
    if (!only.is_null()) context["only"] = only;
    return client_->answer(
        client_->request("textDocument/codeAction", {{"textDocument", {{"uri", uri(name)}}},
                                                     {"range", range},
                                                     {"context", context}}))["result"];
  }
  // `text` with one action's edits applied, as an editor would.
  static std::string applied(std::string text, const Json& action, const std::string& doc_uri) {
    std::vector<Json> edits(action["edit"]["changes"][doc_uri].begin(),
                            action["edit"]["changes"][doc_uri].end());
    // Last first, so that earlier positions stay where they were.
    std::sort(edits.begin(), edits.end(), [](const Json& a, const Json& b) {
      const Json &x = a["range"]["start"], &y = b["range"]["start"];
      return std::pair(x["line"].get<int>(), x["character"].get<int>()) >
             std::pair(y["line"].get<int>(), y["character"].get<int>());
    });
    for (const Json& e : edits) {
      const Json& r = e["range"];
      apply_change(text, {r["start"]["line"], r["start"]["character"]},
                   {r["end"]["line"], r["end"]["character"]}, e["newText"].get<std::string>(),
                   Encoding::Utf16);
    }
    return text;
  }

  fs::path dir_;
  std::unique_ptr<LspClient> client_;
};

TEST_F(ServerSession, InitializeNamesWhatItCanDo) {
  const Json reply = client_->initialize(uri(""));
  const Json& caps = reply["result"]["capabilities"];
  EXPECT_EQ(caps["positionEncoding"], "utf-16");
  EXPECT_EQ(caps["textDocumentSync"]["change"], 2);  // incremental
  EXPECT_TRUE(caps["hoverProvider"].get<bool>());
  EXPECT_EQ(caps["diagnosticProvider"]["identifier"], "gpulint");
  EXPECT_EQ(reply["result"]["serverInfo"]["name"], "gpulint");
}

TEST_F(ServerSession, Utf8PositionsWhenTheClientOffersThem) {
  const Json reply =
      client_->initialize(uri(""), {{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}});
  EXPECT_EQ(reply["result"]["capabilities"]["positionEncoding"], "utf-8");
}

// A client that can watch files is asked to, once initialized; its answer needs no reply.
TEST_F(ServerSession, AClientThatWatchesFilesIsAskedTo) {
  client_->initialize(
      uri(""), {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}});
  const std::optional<Json> asked = client_->next();
  ASSERT_TRUE(asked);
  EXPECT_EQ((*asked)["method"], "client/registerCapability");
  const Json& registration = (*asked)["params"]["registrations"][0];
  EXPECT_EQ(registration["method"], "workspace/didChangeWatchedFiles");
  EXPECT_EQ(registration["registerOptions"]["watchers"][0]["globPattern"], "**/*.py");
  client_->send({{"jsonrpc", "2.0"}, {"id", (*asked)["id"]}, {"result", nullptr}});
  // A file created outside the editor and announced: it is read for context.
  const std::string helper = "def log_loss(loss):\n    return loss.item()\n";
  EXPECT_TRUE(open("helper.py", helper)["diagnostics"].empty());
  write("train.py",
        "import torch\nfrom helper import log_loss\n\n\n"
        "def fit(model, loader, optimizer):\n    for x in loader:\n"
        "        loss = model(x.cuda()).sum()\n        loss.backward()\n"
        "        optimizer.step()\n        log_loss(loss)\n");
  client_->notify("workspace/didChangeWatchedFiles",
                  {{"changes", Json::array({{{"uri", uri("train.py")}, {"type", 1}}})}});
  EXPECT_EQ(codes(client_->published(uri("helper.py"))), (std::vector<std::string>{"GL101"}));
}

TEST_F(ServerSession, OpeningPublishesTheFindingsOfTheUnsavedText) {
  write("train.py", "print('saved text has no loop')\n");
  client_->initialize(uri(""));
  const Json published = open("train.py", kTrain);
  EXPECT_EQ(codes(published), (std::vector<std::string>{"GL101", "GL104", "GL202"}));
  const Json* item = find(published, "GL101");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ((*item)["range"]["start"], Json({{"line", 12}, {"character", 14}}));
  EXPECT_EQ((*item)["range"]["end"], Json({{"line", 12}, {"character", 25}}));
  EXPECT_EQ((*item)["source"], "gpulint");
  EXPECT_EQ((*item)["severity"], 2);
}

// Incremental edits in UTF-16 columns: a line holding characters outside the BMP before the edit.
TEST_F(ServerSession, IncrementalChangesLandWhereTheEditorMeantThem) {
  client_->initialize(uri(""));
  std::string text = kTrain;
  text.replace(text.find("        print(loss.item())"), 26,
               "        note = \"\xF0\x9F\x98\x80\xC3\xA9\"; print(loss)");
  const Json before = open("train.py", text);
  EXPECT_EQ(codes(before), (std::vector<std::string>{"GL104", "GL202"}));
  // After `"😀é"; print(loss` (16 + 2 + 1 UTF-16 units on that line), insert `.item()`.
  const uint32_t at =
      8 + std::string("note = \"").size() + 2 + 1 + std::string("\"; print(loss").size();
  client_->notify("textDocument/didChange",
                  {{"textDocument", {{"uri", uri("train.py")}, {"version", 2}}},
                   {"contentChanges", Json::array({{{"range",
                                                     {{"start", {{"line", 12}, {"character", at}}},
                                                      {"end", {{"line", 12}, {"character", at}}}}},
                                                    {"text", ".item()"}}})}});
  const Json after = client_->published(uri("train.py"));
  EXPECT_EQ(after["version"], 2);
  EXPECT_EQ(codes(after), (std::vector<std::string>{"GL101", "GL104", "GL202"}));
  const Json* item = find(after, "GL101");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ((*item)["range"]["end"]["character"], at + 7);
}

TEST_F(ServerSession, ASafeFixAppliedRemovesItsFinding) {
  client_->initialize(uri(""));
  const Json published = open("train.py", kTrain);
  const Json* pin = find(published, "GL202");
  ASSERT_NE(pin, nullptr);
  const Json found = actions("train.py", (*pin)["range"]);
  const Json* fix = nullptr;
  for (const Json& a : found) {
    if (a["title"].get<std::string>().starts_with("GL202: set `pin_memory=True`")) fix = &a;
  }
  ASSERT_NE(fix, nullptr) << found.dump(2);
  EXPECT_EQ((*fix)["kind"], "quickfix");
  EXPECT_TRUE((*fix)["isPreferred"].get<bool>());
  const std::string fixed = applied(kTrain, *fix, uri("train.py"));
  EXPECT_NE(fixed.find("num_workers=4, pin_memory=True)"), std::string::npos) << fixed;
  EXPECT_EQ(codes(change_all("train.py", fixed, 2)), (std::vector<std::string>{"GL101", "GL104"}));
}

TEST_F(ServerSession, SuppressionsOnTheLineAndInTheFileSilenceTheFinding) {
  client_->initialize(uri(""));
  const Json published = open("train.py", kTrain);
  const Json range = (*find(published, "GL101"))["range"];
  const Json found = actions("train.py", range);
  const Json *line = nullptr, *file = nullptr;
  for (const Json& a : found) {
    if (a["title"] == "GL101: suppress on this line") line = &a;
    if (a["title"] == "GL101: suppress in this file") file = &a;
  }
  ASSERT_TRUE(line && file) << found.dump(2);
  const std::string on_line = applied(kTrain, *line, uri("train.py"));
  EXPECT_NE(on_line.find("print(loss.item())  # gpulint: ignore[GL101]\n"), std::string::npos);
  EXPECT_EQ(codes(change_all("train.py", on_line, 2)),
            (std::vector<std::string>{"GL104", "GL202"}));
  const std::string in_file = applied(kTrain, *file, uri("train.py"));
  EXPECT_TRUE(in_file.starts_with("# gpulint: file-ignore[GL101]\nimport torch\n")) << in_file;
  EXPECT_EQ(codes(change_all("train.py", in_file, 3)),
            (std::vector<std::string>{"GL104", "GL202"}));
}

TEST_F(ServerSession, FixAllAppliesTheSafeFixesOnly) {
  client_->initialize(uri(""));
  open("train.py", kTrain);
  const Json found = actions(
      "train.py",
      {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}},
      Json::array({"source.fixAll"}));
  ASSERT_EQ(found.size(), 1u) << found.dump(2);
  EXPECT_EQ(found[0]["kind"], "source.fixAll.gpulint");
  const std::string fixed = applied(kTrain, found[0], uri("train.py"));
  EXPECT_NE(fixed.find("pin_memory=True"), std::string::npos);
  EXPECT_NE(fixed.find("print(loss.item())"), std::string::npos);  // GL104's fix is unsafe
}

TEST_F(ServerSession, HoverShowsTheRuleAndWhatVerifyMeasured) {
  client_->initialize(uri(""));
  open("train.py", kTrain);
  const Json at = {{"textDocument", {{"uri", uri("train.py")}}},
                   {"position", {{"line", 12}, {"character", 18}}}};
  Json hover = client_->answer(client_->request("textDocument/hover", at))["result"];
  const std::string text = hover["contents"]["value"];
  EXPECT_EQ(hover["contents"]["kind"], "markdown");
  EXPECT_NE(text.find("**GL101** (item-in-loop)"), std::string::npos) << text;
  EXPECT_NE(text.find("Family: sync"), std::string::npos) << text;
  EXPECT_EQ(text.find("Measured cost"), std::string::npos);
  write(std::string(".gpulint_cache/") + GPULINT_VERSION + "/costs.json",
        R"({"device": "NVIDIA H200", "costs": [{"code": "GL101", "value": 41.5, "unit": "us",
            "summary": "+41.5 us a step"}]})");
  hover = client_->answer(client_->request("textDocument/hover", at))["result"];
  EXPECT_NE(hover["contents"]["value"].get<std::string>().find(
                "**Measured cost:** +41.5 us a step (measured by `gpulint verify` on NVIDIA H200)"),
            std::string::npos)
      << hover.dump();
  // Nowhere near a finding: nothing.
  EXPECT_TRUE(
      client_
          ->answer(client_->request("textDocument/hover",
                                    {{"textDocument", {{"uri", uri("train.py")}}},
                                     {"position", {{"line", 0}, {"character", 0}}}}))["result"]
          .is_null());
}

TEST_F(ServerSession, AClientThatPullsGetsDiagnosticsOnRequest) {
  client_->initialize(uri(""), {{"textDocument", {{"diagnostic", Json::object()}}}});
  client_->notify(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", uri("train.py")}, {"languageId", "python"}, {"version", 1}, {"text", kTrain}}}});
  const Json reply = client_->answer(
      client_->request("textDocument/diagnostic", {{"textDocument", {{"uri", uri("train.py")}}}}));
  EXPECT_EQ(reply["result"]["kind"], "full");
  EXPECT_EQ(reply["result"]["items"].size(), 3u);
  for (const Json& m : client_->seen)
    EXPECT_NE(m.value("method", ""), "textDocument/publishDiagnostics");
}

TEST_F(ServerSession, ConfigurationCountsFromTheNextEdit) {
  client_->initialize(uri(""));
  EXPECT_EQ(open("train.py", kTrain).at("diagnostics").size(), 3u);
  write("pyproject.toml", "[tool.gpulint]\nignore = [\"GL104\"]\n");
  EXPECT_EQ(codes(change_all("train.py", kTrain, 2)), (std::vector<std::string>{"GL101", "GL202"}));
  // A broken one: the defaults, and the user is told once.
  write("pyproject.toml", "[tool.gpulint\nignore = \n");
  EXPECT_EQ(codes(change_all("train.py", kTrain, 3)).size(), 3u);
  bool told = false;
  for (const Json& m : client_->seen) {
    told = told ||
           (m.value("method", "") == "window/showMessage" &&
            m["params"]["message"].get<std::string>().find("configuration") != std::string::npos);
  }
  EXPECT_TRUE(told);
}

// A helper's findings that a step loop in another file makes per-step, shown in the helper.
TEST_F(ServerSession, AHelperShowsWhatItsCallersLoopsMakeOfIt) {
  write("pkg/__init__.py", "");
  write("pkg/train.py", R"(import torch
from .helper import log_loss


def fit(model, loader, optimizer):
    for x in loader:
        x = x.cuda()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).sum()
        loss.backward()
        optimizer.step()
        log_loss(loss)
)");
  const std::string helper = "def log_loss(loss):\n    return loss.item()\n";
  write("pkg/helper.py", helper);
  client_->initialize(uri(""));
  const Json published = open("pkg/helper.py", helper);
  ASSERT_EQ(codes(published), (std::vector<std::string>{"GL101"}));
  const Json& related = published["diagnostics"][0]["relatedInformation"];
  ASSERT_EQ(related.size(), 1u);
  EXPECT_EQ(related[0]["location"]["uri"], uri("pkg/train.py"));
  EXPECT_EQ(related[0]["location"]["range"]["start"]["line"], 11);
}

// A buffer never saved, and a script without an extension: linted in the editor's language.
TEST_F(ServerSession, UntitledBuffersAreLintedInTheirLanguage) {
  client_->initialize(uri(""));
  for (const std::string& doc_uri : {std::string("untitled:Untitled-1"), uri("train")}) {
    client_->notify(
        "textDocument/didOpen",
        {{"textDocument",
          {{"uri", doc_uri}, {"languageId", "python"}, {"version", 1}, {"text", kTrain}}}});
    EXPECT_EQ(codes(client_->published(doc_uri)),
              (std::vector<std::string>{"GL101", "GL104", "GL202"}))
        << doc_uri;
  }
}

TEST_F(ServerSession, ATextThatDoesNotParseStillGetsItsFindings) {
  client_->initialize(uri(""));
  std::string text = kTrain;
  text += "\ndef broken(:\n    pass\n";
  const std::vector<std::string> found = codes(open("train.py", text));
  EXPECT_NE(std::find(found.begin(), found.end(), "GL000"), found.end());
  EXPECT_NE(std::find(found.begin(), found.end(), "GL101"), found.end());
}

TEST_F(ServerSession, CppDocumentsAreLintedToo) {
  client_->initialize(uri(""));
  const Json published = open("train.cpp", R"(#include <torch/torch.h>

void train(torch::nn::Linear& model, torch::optim::SGD& opt, torch::Tensor x) {
  for (int step = 0; step < 100; ++step) {
    auto loss = model->forward(x.to(torch::kCUDA)).sum();
    loss.backward();
    opt.step();
    float value = loss.item<float>();
  }
}
)",
                              "cpp");
  const std::vector<std::string> found = codes(published);
  EXPECT_NE(std::find(found.begin(), found.end(), "GL101"), found.end());
  const Json range = (*find(published, "GL101"))["range"];
  for (const Json& a : actions("train.cpp", range)) {
    if (a["title"] == "GL101: suppress on this line") {
      EXPECT_EQ(a["edit"]["changes"][uri("train.cpp")][0]["newText"],
                "  // gpulint: ignore[GL101]");
    }
  }
}

TEST_F(ServerSession, BrokenMessagesGetErrorsAndTheSessionGoesOn) {
  client_->raw("Content-Length: 5\r\n\r\n{bad}");
  Json reply = *client_->next();
  EXPECT_EQ(reply["error"]["code"], -32700);
  EXPECT_TRUE(reply["id"].is_null());
  client_->raw("X-Nonsense: 1\r\n\r\n");
  EXPECT_EQ((*client_->next())["error"]["code"], -32700);
  // Before initialize, requests are refused.
  reply = client_->answer(client_->request("textDocument/hover", Json::object()));
  EXPECT_EQ(reply["error"]["code"], -32002);
  client_->initialize(uri(""));
  EXPECT_EQ(client_->answer(client_->request("workspace/bogus", {}))["error"]["code"], -32601);
  client_->send({{"jsonrpc", "2.0"}, {"id", 99}, {"params", {}}});
  EXPECT_EQ(client_->answer(99)["error"]["code"], -32600);
  // Hover on a document never opened, and without a position.
  reply = client_->answer(
      client_->request("textDocument/hover", {{"textDocument", {{"uri", uri("nope.py")}}}}));
  EXPECT_EQ(reply["error"]["code"], -32602);
  open("train.py", kTrain);
  reply = client_->answer(
      client_->request("textDocument/hover", {{"textDocument", {{"uri", uri("train.py")}}}}));
  EXPECT_EQ(reply["error"]["code"], -32602);
  // Notifications the server does not know, or about documents it does not have: no answer.
  client_->notify("$/setTrace", {{"value", "off"}});
  client_->notify("textDocument/didChange", {{"textDocument", {{"uri", uri("other.py")}}}});
  EXPECT_FALSE(client_->answer(client_->request("shutdown", nullptr)).is_null());
  client_->notify("exit", nullptr);
  EXPECT_EQ(client_->wait_exit(), 0);
}

TEST_F(ServerSession, ExitWithoutShutdownIsOneAndAClosedInputEndsTheSession) {
  client_->initialize(uri(""));
  client_->notify("exit", nullptr);
  EXPECT_EQ(client_->wait_exit(), 1);
  LspClient other(dir_);
  other.initialize(uri(""));
  other.close_input();
  EXPECT_EQ(other.wait_exit(), 1);
}

TEST_F(ServerSession, AnEditorSessionLeavesNoFilesBehind) {
  client_->initialize(uri(""));
  open("train.py", kTrain);
  client_->answer(client_->request("shutdown", nullptr));
  client_->notify("exit", nullptr);
  ASSERT_EQ(client_->wait_exit(), 0);
  EXPECT_TRUE(fs::is_empty(dir_));
}

long rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return -1;
}

// 10,000 edits of one document, each linted and published: memory after the first 1,000 is
// what it is after all 10,000, give or take what the allocator keeps.
TEST_F(ServerSession, MemoryStaysFlatOverTenThousandEdits) {
  client_->initialize(uri(""));
  open("train.py", kTrain);
  long after_warmup = 0;
  for (int i = 1; i <= 10000; ++i) {
    // Each edit changes the text: a comment with the edit's number.
    std::string text = kTrain;
    text += "# edit " + std::to_string(i) + "\n";
    ASSERT_FALSE(change_all("train.py", text, i + 1).is_null()) << "edit " << i;
    if (i == 1000) after_warmup = rss_kib(client_->pid());
  }
  const long after_all = rss_kib(client_->pid());
  RecordProperty("rss_kib_after_1000", std::to_string(after_warmup));
  RecordProperty("rss_kib_after_10000", std::to_string(after_all));
  EXPECT_LT(after_all - after_warmup, 4096) << after_warmup << " KiB -> " << after_all << " KiB";
}

}  // namespace
}  // namespace gpulint::server
