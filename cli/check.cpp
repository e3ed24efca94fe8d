// `gpulint [check] PATH...`: lint files and directories, report the findings.

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "analyzer/core/config.h"
#include "analyzer/core/libgit2.h"
#include "analyzer/core/project.h"
#include "analyzer/core/selection.h"
#include "analyzer/core/walker.h"
#include "analyzer/cpp/front_end.h"
#include "analyzer/engine.h"
#include "analyzer/fixes/apply.h"
#include "analyzer/fixes/fix_rounds.h"
#include "analyzer/report/report.h"
#include "cli/clang_progress.h"
#include "cli/output.h"
#include "cli/subcommand.h"
#include "rules/registry.h"

namespace gpulint {
namespace {

struct CheckOptions {
  std::vector<std::string> paths;  // `-`: standard input; none: `.`
  std::string stdin_filename;      // the name standard input is linted under
  std::string format = "full";
  bool statistics = false;
  bool exit_zero = false;
  bool quiet = false;
  bool show_files = false;
  bool fix = false;
  bool unsafe_fixes = false;
  bool diff = false;
  bool fix_only = false;
  std::vector<std::string> context;  // read for cross-module context, not reported
  std::vector<std::string> select;
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  std::string config;
  bool no_ignore = false;
  bool force_exclude = false;
  bool show_settings = false;
  unsigned jobs = 0;
  uint64_t max_file_size = kDefaultMaxFileSize;
  std::string compile_database_dir;  // -p: where compile_commands.json is
  std::string output_file;
  std::string sarif_output;
  std::string json_output;
  bool no_color = false;
  bool no_cache = false;
  std::string cache_dir;
};

std::unique_ptr<ResultCache> open_cache(const CheckOptions& options) {
  if (options.no_cache) return nullptr;
  return std::make_unique<ResultCache>(cache_dir(options.cache_dir), GPULINT_VERSION, build_id());
}

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

std::string render_report(std::string_view format, const LintResult& result,
                          const ReportSummary& summary, const CheckOptions& options) {
  if (format == "json") return render_json(result.diagnostics, summary, GPULINT_VERSION);
  if (format == "github") return render_github(result.diagnostics, summary);
  const TextOptions text{.color = use_color(options), .summary = !options.quiet};
  if (options.statistics) return render_statistics(result.diagnostics);
  if (format == "concise") return render_concise(result.diagnostics, summary, text);
  if (format == "sarif") {
    return render_sarif(result.diagnostics, summary, rule_infos(),
                        {.version = GPULINT_VERSION,
                         .information_uri = GPULINT_HOMEPAGE,
                         .source_root = source_root()});
  }
  return render_text(result.diagnostics, summary, text);
}

ProjectOptions project_options(const CheckOptions& options) {
  ProjectOptions project;
  if (!options.config.empty()) project.config = options.config;
  if (!options.select.empty()) {
    project.command_line.select = split_codes(options.select);
    // `--select "$RULES"` with the variable unset would switch every rule off, silently.
    if (project.command_line.select->empty()) {
      throw std::invalid_argument(
          "--select names no rule (an empty value selects nothing; leave it out for the "
          "defaults, or name rules: --select GL1,GL201)");
    }
  }
  project.command_line.extend_select = split_codes(options.extend_select);
  project.command_line.ignore = split_codes(options.ignore);
  project.no_ignore = options.no_ignore;
  project.force_exclude = options.force_exclude;
  return project;
}

int show_settings(Project& project, const CheckOptions& options) {
  std::string out;
  for (const std::string& path : options.paths) out += project.show_settings(path);
  return write_stdout(out) ? kExitClean : kExitError;
}

// The findings and errors of the files named, not of those read for context only.
LintResult keep_reported(LintResult result, const std::set<std::string>& reported) {
  if (result.files_checked + result.errors.size() + result.skipped.size() == reported.size())
    return result;
  auto other = [&](const std::string& path) { return !reported.count(path); };
  std::erase_if(result.diagnostics, [&](const Diagnostic& d) { return other(d.location.path); });
  std::erase_if(result.errors, [&](const FileError& e) { return other(e.path); });
  std::erase_if(result.skipped, [&](const FileError& e) { return other(e.path); });
  result.files_checked = reported.size() - result.errors.size() - result.skipped.size();
  return result;
}

// Standard input, whole; an error when it cannot be read.
std::string read_stdin() {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::invalid_argument(std::string("cannot read standard input: ") +
                                  std::strerror(errno));
    if (n == 0) return text;
    text.append(buffer, static_cast<size_t>(n));
  }
}

int check_project(const CheckOptions& options, Project& project) {
  // `-` names standard input, as does --stdin-filename alone; no path at all means `.`.
  std::vector<std::string> paths;
  bool from_stdin = options.paths.empty() && !options.stdin_filename.empty();
  for (const std::string& path : options.paths) {
    if (path == "-") {
      from_stdin = true;
    } else {
      paths.push_back(path);
    }
  }
  if (paths.empty() && !from_stdin) paths.push_back(".");
  // Each path is walked on its own so that a directory which yields nothing can be named.
  std::vector<std::string> files;
  std::vector<std::string> path_errors;
  for (const std::string& path : paths) {
    WalkResult walked = project.walk(path);
    std::error_code ec;
    if (walked.files.empty() && walked.errors.empty() && std::filesystem::is_directory(path, ec)) {
      warning(fmt::format("no Python files found under {}", path));
    }
    files.insert(files.end(), walked.files.begin(), walked.files.end());
    path_errors.insert(path_errors.end(), walked.errors.begin(), walked.errors.end());
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  files = distinct_files(files);
  LintOptions lint;
  if (from_stdin) {
    const std::string name = options.stdin_filename.empty() ? "-" : options.stdin_filename;
    std::erase(files, name);
    files.push_back(name);
    lint.texts[name] = read_stdin();
  }
  if (options.show_files) {
    std::string out;
    for (const std::string& file : files) out += file + "\n";
    return write_stdout(out) ? kExitClean : kExitError;
  }
  // --context: the project's other files are linted with these, so that a helper's findings
  // that another file's step loop makes per-step are found, and only these are reported.
  const std::set<std::string> reported(files.begin(), files.end());
  if (!options.context.empty()) {
    std::vector<std::string> context;
    for (const std::string& path : options.context) {
      WalkResult walked = project.walk(path);
      context.insert(context.end(), walked.files.begin(), walked.files.end());
    }
    std::sort(context.begin(), context.end());
    files.insert(files.end(), context.begin(), context.end());
    files = distinct_files(files);
  }

  project.resolve(files);
  if (const std::string& dir = options.compile_database_dir; !dir.empty()) {
    // A database named and not found must not turn into a silent run on syntax alone.
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      throw std::invalid_argument("-p " + dir + ": no such directory");
    }
    if (!std::filesystem::exists(std::filesystem::path(dir) / "compile_commands.json", ec)) {
      throw std::invalid_argument("-p " + dir +
                                  ": holds no compile_commands.json (CMake writes one with "
                                  "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)");
    }
  }
  cpp::set_compile_database_dir(options.compile_database_dir);
  // Until the last parse: the report must not share the terminal line with it.
  std::unique_ptr<TerminalClangProgress> progress =
      options.quiet ? nullptr : TerminalClangProgress::start();
  lint.jobs = options.jobs;
  lint.max_file_size = options.max_file_size;
  lint.rule_set_for = [&project](const std::string& path) { return project.rule_set_for(path); };
  // Standard input comes from an editor or a formatter, run at every change: no cache is written.
  const std::unique_ptr<ResultCache> cache = from_stdin ? nullptr : open_cache(options);
  lint.cache = cache.get();
  LintResult result = keep_reported(lint_files(files, lint), reported);
  if (!(options.fix || options.fix_only || options.diff)) progress.reset();
  size_t fixed = 0;
  // Standard input fixed is printed, not written back; the report then goes to stderr.
  const bool fixed_to_stdout = from_stdin && (options.fix || options.fix_only) && !options.diff;
  std::string stdin_text = fixed_to_stdout ? lint.texts.begin()->second : std::string();
  if (options.fix || options.fix_only || options.diff) {
    FixRun run = fix_files(files, lint, std::move(result), options.unsafe_fixes, all_rules());
    progress.reset();
    result = keep_reported(std::move(run.remaining), reported);
    for (const std::string& path : run.refused)
      warning(fmt::format("{}: not fixed: the fixed text would not parse", path));
    if (options.diff) {
      if (!run.after.empty() && libgit2() == nullptr) {
        error("--diff needs libgit2, which could not be loaded: " + libgit2_problem());
        return kExitError;
      }
      std::string out;
      for (const auto& [path, after] : run.after)
        out += unified_diff(path, run.before.at(path), after);
      if (!write_stdout(out)) return kExitError;
      if (!options.quiet) {
        fmt::print(stderr, "Would fix {} finding{}.\n", run.applied, run.applied == 1 ? "" : "s");
      }
      return run.after.empty() ? kExitClean : kExitFindings;
    }
    bool written = true;
    for (const auto& [path, after] : run.after) {
      if (fixed_to_stdout && lint.texts.count(path)) {
        stdin_text = after;
      } else {
        written &= write_atomically(path, after);
      }
    }
    if (!written) return kExitError;
    fixed = run.applied;
  }
  if (cache) {
    if (std::string problem = cache->save(); !problem.empty())
      warning("the cache was not saved: " + problem);
  }

  ReportSummary summary{result.files_checked, path_errors};
  summary.fixed = fixed;
  for (const FileError& e : result.errors) {
    summary.file_errors.push_back(fmt::format("{}: {}", e.path, e.message));
  }
  for (const std::string& e : summary.file_errors) error(e);
  for (const FileError& e : result.skipped) note(fmt::format("{}: {}", e.path, e.message));
  if (const std::string why = cpp::clang_unavailable_reason(); !why.empty()) {
    note(fmt::format("C++ files with a compile database were analysed by syntax alone: {}", why));
  } else if (const size_t syntax_only = cpp::syntax_only_files.load(); syntax_only > 0) {
    note(fmt::format(
        "{} C++ file{} analysed by syntax alone (tree-sitter-cpp), with no compile database that "
        "lists {}: LibTorch names are matched as spelt, not resolved through headers, macros or "
        "`using`, so precision is reduced; pass -p BUILD_DIR (the directory holding "
        "compile_commands.json, e.g. from cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON) for Clang",
        syntax_only, syntax_only == 1 ? "" : "s", syntax_only == 1 ? "it" : "them"));
  }
  if (const size_t recovered = cpp::syntax_recovered_files.load(); recovered > 0) {
    note(fmt::format(
        "{} C++ file{} held code tree-sitter-cpp could not read (unexpanded macros, some valid "
        "syntax); findings there may be incomplete, and with Clang (-p BUILD_DIR) they are not",
        recovered, recovered == 1 ? "" : "s"));
  }

  if (fixed_to_stdout && !write_stdout(stdin_text)) return kExitError;
  if (options.fix_only) {
    if (!options.quiet && !fixed_to_stdout) {
      write_stdout(fmt::format("Fixed {} finding{}.\n", fixed, fixed == 1 ? "" : "s"));
    }
    return summary.file_errors.empty() ? kExitClean : kExitError;
  }
  const std::string report = render_report(options.format, result, summary, options);
  bool written = false;
  if (!options.output_file.empty()) {
    written = write_atomically(options.output_file, report);
  } else if (fixed_to_stdout) {
    written = std::fwrite(report.data(), 1, report.size(), stderr) == report.size();
  } else {
    written = write_stdout(report);
  }
  // Extra reports of the same run, e.g. text for the log and SARIF for code scanning; each is
  // written even when another failed, and any failure fails the run.
  if (!options.sarif_output.empty()) {
    written &=
        write_atomically(options.sarif_output, render_report("sarif", result, summary, options));
  }
  if (!options.json_output.empty()) {
    written &=
        write_atomically(options.json_output, render_report("json", result, summary, options));
  }

  if (!written || !summary.file_errors.empty()) return kExitError;
  return result.diagnostics.empty() || options.exit_zero ? kExitClean : kExitFindings;
}

int run_check(const CheckOptions& options) {
  set_quiet(options.quiet);
  try {
    if (options.statistics && options.format != "full" && options.format != "text" &&
        options.format != "concise") {
      throw std::invalid_argument("--statistics prints a text table; leave out --output-format " +
                                  options.format);
    }
    Project project(all_rules(), project_options(options));
    if (options.show_settings) return show_settings(project, options);
    return check_project(options, project);
  } catch (const ConfigError& e) {
    error(e.what());
  } catch (const std::invalid_argument& e) {
    error(e.what());
  }
  return kExitError;
}

}  // namespace

Subcommand add_check(CLI::App& app) {
  auto check = std::make_shared<CheckOptions>();
  CLI::App* cmd =
      app.add_subcommand("check", "Lint Python and C++ (LibTorch) files (the default command)");
  cmd->add_option("paths", check->paths,
                  "Files and directories to lint (default: .); - reads standard input");
  cmd->add_option("--stdin-filename", check->stdin_filename,
                  "The name standard input is linted under (its language, config, "
                  "per-file-ignores and the report); alone, it also reads standard input");
  cmd->add_option("--output-format,--format", check->format,
                  "full (text, the default), concise (one line each), json, sarif or github")
      ->check(CLI::IsMember({"full", "text", "concise", "json", "sarif", "github"}))
      ->capture_default_str();
  cmd->add_flag("--statistics", check->statistics,
                "Print the number of findings of each rule instead of the findings");
  cmd->add_flag("--exit-zero", check->exit_zero,
                "Exit 0 even when there are findings (2 still means an error)");
  cmd->add_flag("-q,--quiet", check->quiet,
                "Print the findings and nothing else: no summary, notes or warnings");
  cmd->add_flag("--show-files", check->show_files,
                "Print the files that would be linted, and exit");
  cmd->add_option("--context", check->context,
                  "Also read the files under this path for cross-module context (a helper's "
                  "callers), reporting only the paths named; repeatable (pre-commit: --context .)")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_flag("--fix", check->fix,
                "Apply the safe fixes, then report what remains (standard input: print it fixed)");
  cmd->add_flag("--unsafe-fixes", check->unsafe_fixes,
                "Apply the unsafe fixes too (they may change what the program computes)");
  cmd->add_flag("--diff", check->diff,
                "Print the fixes as a unified diff and change nothing (exit 1 when there is one)");
  cmd->add_flag("--fix-only", check->fix_only,
                "Apply the fixes and report only how many; no findings");
  // One value per flag, so that `--select GL1 train.py` does not swallow the path.
  cmd->add_option("--select", check->select,
                  "Rules to run instead of the defaults: codes, prefixes (GL1) or ALL; "
                  "comma-separated, repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("--extend-select", check->extend_select,
                  "Rules to run besides the selected ones; comma-separated, repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("--ignore", check->ignore,
                  "Rules not to run: codes, prefixes or ALL; comma-separated, repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("-j,--jobs", check->jobs, "Files linted in parallel (0: one per core)")
      ->capture_default_str();
  cmd->add_option("--max-file-size", check->max_file_size,
                  "Skip (with a note) files larger than this: bytes, or with a unit (20MB, 512KB)")
      ->transform(CLI::AsSizeValue(true))
      ->default_str("20MB");
  cmd->add_option("-p,--compile-database", check->compile_database_dir,
                  "Directory with compile_commands.json for C++ files (default: the nearest one "
                  "above each file, else build/)");
  cmd->add_option("--output-file", check->output_file,
                  "Write the report to this file instead of stdout");
  cmd->add_option("--sarif-output", check->sarif_output,
                  "Also write a SARIF report to this file (in the same run)");
  cmd->add_option("--json-output", check->json_output,
                  "Also write a JSON report to this file (in the same run)");
  cmd->add_flag("--no-color", check->no_color, "Never colour the text report");
  cmd->add_flag("--no-cache", check->no_cache,
                "Neither read nor write the result cache (.gpulint_cache/)");
  cmd->add_option("--cache-dir", check->cache_dir,
                  "Where the result cache lives (default: $GPULINT_CACHE_DIR, else "
                  ".gpulint_cache in the current directory)");
  cmd->add_option("--config", check->config,
                  "Use this config file for every file instead of the nearest "
                  "pyproject.toml / .gpulint.toml");
  cmd->add_flag("--no-ignore", check->no_ignore,
                "Lint files that .gitignore and .ignore files exclude");
  cmd->add_flag("--force-exclude", check->force_exclude,
                "Apply exclude and ignore files to paths named on the command line too");
  cmd->add_flag("--show-settings", check->show_settings,
                "Print the settings that apply to each named file and where they come from");
  return {cmd, [check] { return run_check(*check); }};
}

}  // namespace gpulint
