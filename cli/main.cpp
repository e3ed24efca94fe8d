// The command line: `gpulint [check] PATH...`, `gpulint rules`, `gpulint explain CODE`.

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "analyzer/core/selection.h"
#include "analyzer/core/walker.h"
#include "analyzer/engine.h"
#include "analyzer/report/report.h"
#include "rules/registry.h"

namespace gpulint {
namespace {

// Exit codes are part of the contract (ARCHITECTURE.md).
constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;

void error(std::string_view message) { fmt::print(stderr, "gpulint: error: {}\n", message); }
void warning(std::string_view message) { fmt::print(stderr, "gpulint: warning: {}\n", message); }

struct CheckOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  unsigned jobs = 0;
  std::string output_file;
  bool no_color = false;
};

// Colour only for a person at a terminal: never into a file or a pipe, and never when the
// user opted out through the NO_COLOR convention (https://no-color.org) or a dumb terminal.
bool use_color(const CheckOptions& options) {
  if (options.no_color || !options.output_file.empty()) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) == 1;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Writes through a temporary file in the same directory and renames it into place, so a
// reader (a CI step, an editor) never sees a half-written report.
bool write_atomically(const std::string& path, std::string_view bytes) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::string temp = (dir / ("." + target.filename().string() + ".gpulint-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    error(fmt::format("{}: cannot create a temporary file: {}", path, std::strerror(errno)));
    return false;
  }
  // mkstemp creates 0600; the report should get the permissions any new file would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  bool ok = ::fchmod(fd, 0666 & ~mask) == 0 && write_all(fd, bytes) && ::fsync(fd) == 0;
  int cause = errno;
  if (::close(fd) != 0 && ok) ok = false, cause = errno;
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) ok = false, cause = errno;
  if (!ok) {
    ::unlink(temp.c_str());
    error(fmt::format("{}: cannot write the report: {}", path, std::strerror(cause)));
  }
  return ok;
}

bool write_stdout(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() ||
      std::fflush(stdout) != 0) {
    error(fmt::format("cannot write the report to stdout: {}", std::strerror(errno)));
    return false;
  }
  return true;
}

int run_check(const CheckOptions& options) {
  std::vector<const Rule*> rules;
  try {
    rules = Selection::parse(all_rules(), split_codes(options.select), split_codes(options.ignore))
                .enabled();
  } catch (const std::invalid_argument& e) {
    error(e.what());
    return kExitError;
  }

  // Each path is walked on its own so that a directory which yields nothing can be named.
  std::vector<std::string> files;
  std::vector<std::string> path_errors;
  for (const std::string& path : options.paths) {
    WalkResult walked = collect_files({path});
    std::error_code ec;
    if (walked.files.empty() && walked.errors.empty() && std::filesystem::is_directory(path, ec)) {
      warning(fmt::format("no Python files found under {}", path));
    }
    files.insert(files.end(), walked.files.begin(), walked.files.end());
    path_errors.insert(path_errors.end(), walked.errors.begin(), walked.errors.end());
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());

  const LintResult result = lint_files(files, {rules, options.jobs});

  ReportSummary summary{result.files_checked, path_errors};
  for (const FileError& e : result.errors) {
    summary.file_errors.push_back(fmt::format("{}: {}", e.path, e.message));
  }
  for (const std::string& e : summary.file_errors) error(e);

  const std::string report =
      options.format == "json"
          ? render_json(result.diagnostics, summary, GPULINT_VERSION)
          : render_text(result.diagnostics, summary, {.color = use_color(options)});
  const bool written = options.output_file.empty() ? write_stdout(report)
                                                   : write_atomically(options.output_file, report);

  if (!written || !summary.file_errors.empty()) return kExitError;
  return result.diagnostics.empty() ? kExitClean : kExitFindings;
}

std::string_view default_label(const RuleInfo& info) { return info.default_on ? "on" : "opt-in"; }

int run_rules(const std::string& format) {
  const auto rules = all_rules();
  if (format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Rule* rule : rules) {
      const RuleInfo& info = rule->info;
      list.push_back({{"code", info.code},
                      {"name", info.name},
                      {"family", info.family},
                      {"default", default_label(info)},
                      {"severity", info.severity == Severity::Error ? "error" : "warning"},
                      {"summary", info.summary},
                      {"help", info.help},
                      {"docs", info.docs}});
    }
    return write_stdout(list.dump(2) + "\n") ? kExitClean : kExitError;
  }

  size_t widths[4] = {4, 4, 6, 7};  // the header words: CODE NAME FAMILY DEFAULT
  for (const Rule* rule : rules) {
    widths[0] = std::max(widths[0], rule->info.code.size());
    widths[1] = std::max(widths[1], rule->info.name.size());
    widths[2] = std::max(widths[2], rule->info.family.size());
  }
  std::string table = fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  SUMMARY\n", "CODE", widths[0],
                                  "NAME", widths[1], "FAMILY", widths[2], "DEFAULT", widths[3]);
  for (const Rule* rule : rules) {
    const RuleInfo& info = rule->info;
    table += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", info.code, widths[0], info.name,
                         widths[1], info.family, widths[2], default_label(info), widths[3],
                         info.summary);
  }
  return write_stdout(table) ? kExitClean : kExitError;
}

int run_explain(std::string code) {
  // Codes are upper case; `gpulint explain gl101` is an easy slip to forgive.
  std::transform(code.begin(), code.end(), code.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const Rule* rule = find_rule(code);
  if (rule == nullptr) {
    error(fmt::format("unknown rule code `{}`; `gpulint rules` lists the codes", code));
    return kExitError;
  }
  const RuleInfo& info = rule->info;
  std::string text = fmt::format("# {} ({})\n\n{}\n\nFamily: {}. Default: {}.", info.name,
                                 info.code, info.summary, info.family, default_label(info));
  if (!info.default_on) text += fmt::format(" Enable it with `--select {}`.", info.code);
  text += "\n";
  if (!info.help.empty()) text += fmt::format("Fix: {}\n", info.help);
  if (!info.docs.empty()) text += fmt::format("\n{}\n", info.docs);
  // Docs written as a raw string often end in a newline already; print exactly one.
  while (text.ends_with("\n\n")) text.pop_back();
  return write_stdout(text) ? kExitClean : kExitError;
}

int run(int argc, char** argv) {
  CLI::App app{"gpulint: finds the PyTorch code that leaves a GPU idle", "gpulint"};
  app.set_version_flag("--version", std::string("gpulint ") + GPULINT_VERSION);
  app.require_subcommand(1);

  CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand("check", "Lint Python files (the default command)");
  check_cmd->add_option("paths", check.paths, "Files and directories to lint")->required();
  check_cmd->add_option("--format", check.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  // One value per flag, so that `--select GL1 train.py` does not swallow the path.
  check_cmd
      ->add_option("--select", check.select,
                   "Rules to run instead of the defaults: codes, prefixes (GL1) or ALL; "
                   "comma-separated, repeatable")
      ->expected(1)
      ->take_all();
  check_cmd
      ->add_option("--ignore", check.ignore,
                   "Rules not to run: codes, prefixes or ALL; comma-separated, repeatable")
      ->expected(1)
      ->take_all();
  check_cmd->add_option("-j,--jobs", check.jobs, "Files linted in parallel (0: one per core)")
      ->capture_default_str();
  check_cmd->add_option("--output-file", check.output_file,
                        "Write the report to this file instead of stdout");
  check_cmd->add_flag("--no-color", check.no_color, "Never colour the text report");

  std::string rules_format = "text";
  CLI::App* rules_cmd = app.add_subcommand("rules", "List the rules");
  rules_cmd->add_option("--format", rules_format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();

  std::string explain_code;
  CLI::App* explain_cmd = app.add_subcommand("explain", "Show a rule's documentation");
  explain_cmd->add_option("code", explain_code, "A rule code, e.g. GL101")->required();

  // `gpulint PATH...` means `gpulint check PATH...`: insert the subcommand unless the first
  // argument already names one or asks for help or the version.
  std::vector<char*> args(argv, argv + argc);
  if (argc > 1) {
    const std::string_view first = argv[1];
    const bool is_subcommand =
        !app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == first; }).empty();
    if (!is_subcommand && first != "-h" && first != "--help" && first != "--version") {
      static char check_word[] = "check";
      args.insert(args.begin() + 1, check_word);
    }
  }

  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    // CLI11 returns 0 for --help and --version and its own codes for errors; the contract
    // says 2 for every usage error.
    return app.exit(e) == 0 ? kExitClean : kExitError;
  }

  if (check_cmd->parsed()) return run_check(check);
  if (rules_cmd->parsed()) return run_rules(rules_format);
  return run_explain(explain_code);
}

}  // namespace
}  // namespace gpulint

int main(int argc, char** argv) { return gpulint::run(argc, argv); }
