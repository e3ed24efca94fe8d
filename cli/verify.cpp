// `gpulint verify [PATH...]`: measure on the local GPU what the findings cost. Without paths it
// runs the experiments (all, or those of --rules) and prints a table; with paths it lints
// first, runs the experiments of the rules that fired and attaches a cost to each finding.
// The CUDA code lives in gpulint-verifier, a separate executable started as a child, so that
// gpulint itself starts and lints on a machine with no CUDA libraries at all.

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "analyzer/core/config.h"
#include "analyzer/core/project.h"
#include "analyzer/core/selection.h"
#include "analyzer/engine.h"
#include "analyzer/report/report.h"
#include "analyzer/result_cache.h"
#include "cli/output.h"
#include "cli/subcommand.h"
#include "rules/registry.h"
#include "verifier/harness/catalog.h"
#include "verifier/harness/costs.h"
#include "verifier/harness/params.h"
#include "verifier/harness/render.h"
#include "verifier/harness/report.h"

extern char** environ;

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using verifier::Params;
using verifier::Report;

struct VerifyOptions {
  std::vector<std::string> paths;
  std::vector<std::string> rules;
  std::string format = "text";
  std::string output_file;
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  std::string config;
  // Experiment parameters, passed through as gpulint-verifier flags when given.
  std::vector<std::pair<std::string, std::string>> overrides;
};

// A failure that ends the command with this exit code and one line on stderr.
struct Stop {
  int code;
  std::string message;
};

fs::path find_verifier() {
  if (const char* env = std::getenv("GPULINT_VERIFIER"); env != nullptr && *env != '\0') {
    const fs::path path(env);
    if (::access(path.c_str(), X_OK) != 0) {
      throw Stop{kExitNoGpu, fmt::format("GPULINT_VERIFIER={} is not an executable file", env)};
    }
    return path;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path beside = (ec ? fs::path(".") : self.parent_path()) / "gpulint-verifier";
  if (::access(beside.c_str(), X_OK) != 0) {
    throw Stop{kExitNoGpu,
               fmt::format("no verifier: {} does not exist (it is built only where nvcc is "
                           "found; set GPULINT_VERIFIER to its path)",
                           beside.string())};
  }
  return beside;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs gpulint-verifier with `args` and returns its report; its stdout and stderr go to files
// so that a missing GPU ends in one line of ours, not in the child's chatter.
Report run_verifier(const Params& params) {
  const fs::path binary = find_verifier();
  std::string dir_template = (fs::temp_directory_path() / "gpulint-verify-XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr) {
    throw Stop{kExitError,
               fmt::format("cannot create a temporary directory: {}", std::strerror(errno))};
  }
  const fs::path dir(dir_template);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  const fs::path report_path = dir / "report.json", log_path = dir / "stderr.txt";

  std::vector<std::string> args = {binary.string(), "--output", report_path.string()};
  const std::vector<std::string> flags = verifier::to_args(params);
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    throw Stop{kExitNoGpu,
               fmt::format("cannot start {}: {}", binary.string(), std::strerror(spawned))};
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string log = read_file(log_path);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code != 0 && code != 3) {
    std::string last = log.substr(0, log.find('\n'));
    throw Stop{kExitError,
               fmt::format("{} failed ({}){}{}", binary.string(),
                           WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                                               : fmt::format("exit {}", code),
                           last.empty() ? "" : ": ", last)};
  }
  Report report;
  try {
    report = verifier::report_from_json(read_file(report_path));
  } catch (const verifier::ReportError& e) {
    throw Stop{kExitError, e.what()};
  }
  if (report.unavailable) throw Stop{kExitNoGpu, report.unavailable->message};
  for (const verifier::ExperimentResult& e : report.experiments) {
    if (!e.ok) warning(fmt::format("experiment {} failed: {}", e.name, e.error));
  }
  return report;
}

Params base_params(const VerifyOptions& options) {
  std::vector<std::string> flags;
  for (const auto& [flag, value] : options.overrides) {
    if (value.empty()) continue;
    flags.push_back(flag);
    flags.push_back(value);
  }
  try {
    return verifier::params_from_args(flags);
  } catch (const verifier::ParamError& e) {
    throw Stop{kExitError, e.what()};
  }
}

nlohmann::ordered_json costs_json(const std::vector<verifier::RuleCost>& costs,
                                  const Report& report, const Params& params) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const verifier::RuleCost& c : costs) {
    nlohmann::ordered_json j = {{"code", c.code}, {"name", c.name}, {"experiment", c.experiment}};
    if (const std::optional<Cost> cost = verifier::cost_for(c.code, report, params)) {
      j["value"] = cost->value;
      j["unit"] = cost->unit;
      j["summary"] = cost->summary;
      j["device"] = cost->device;
    } else {
      j["summary"] = c.summary;
    }
    out.push_back(std::move(j));
  }
  return out;
}

// The rules' costs, kept in the cache directory for `gpulint server`'s hover; a run that cannot
// keep them says so and goes on.
void remember_costs(const std::vector<verifier::RuleCost>& costs, const Report& report,
                    const Params& params) {
  const std::filesystem::path dir = std::filesystem::path(cache_dir("")) / GPULINT_VERSION;
  if (std::string problem = make_cache_directory(dir); !problem.empty()) {
    warning("the measured costs were not kept for the editor: " + problem);
    return;
  }
  const nlohmann::ordered_json kept = {{"device", verifier::describe_device(report.device)},
                                       {"costs", costs_json(costs, report, params)}};
  write_atomically((dir / kCostsFile).string(), kept.dump(2) + "\n");
}

bool emit(const VerifyOptions& options, const std::string& bytes) {
  return options.output_file.empty() ? write_stdout(bytes)
                                     : write_atomically(options.output_file, bytes);
}

// `gpulint verify [--rules CODES]`: the experiments and their table.
int verify_experiments(const VerifyOptions& options) {
  Params params = base_params(options);
  const std::vector<std::string> codes = split_codes(options.rules);
  if (!codes.empty()) {
    const verifier::RuleSelection selection = verifier::experiments_for_rules(codes);
    for (const std::string& code : selection.unmeasured) {
      warning(fmt::format("{} has no verifier experiment", code));
    }
    if (selection.experiments.empty()) {
      throw Stop{kExitError, "none of the rules given has a verifier experiment"};
    }
    params.experiments = selection.experiments;
  }
  const Report report = run_verifier(params);
  const std::vector<verifier::RuleCost> costs = verifier::rule_costs(report, params);
  remember_costs(costs, report, params);
  std::string out;
  if (options.format == "json") {
    nlohmann::ordered_json j = {{"tool", "gpulint"}, {"version", GPULINT_VERSION}};
    j["verifier"] = nlohmann::ordered_json::parse(verifier::to_json(report));
    j["costs"] = costs_json(costs, report, params);
    out = j.dump(2) + "\n";
  } else if (options.format == "sarif") {
    // No findings to hang costs on: they go into the run's property bag.
    nlohmann::ordered_json sarif =
        nlohmann::ordered_json::parse(render_sarif({}, {}, rule_infos(),
                                                   {.version = GPULINT_VERSION,
                                                    .information_uri = GPULINT_HOMEPAGE,
                                                    .source_root = source_root(),
                                                    .automation_id = "gpulint-verify/"}));
    sarif["runs"][0]["properties"] = {{"verifier",
                                       {{"device", verifier::describe_device(report.device)},
                                        {"costs", costs_json(costs, report, params)}}}};
    out = sarif.dump(2) + "\n";
  } else {
    out = verifier::render_table(report, costs);
  }
  return emit(options, out) ? kExitClean : kExitError;
}

// `gpulint verify PATH...`: lint, measure the rules that fired, report findings with costs.
int verify_paths(const VerifyOptions& options) {
  if (!options.rules.empty()) {
    throw Stop{kExitError,
               "--rules picks experiments when no PATH is given; with paths, "
               "--select and --ignore pick the rules"};
  }
  ProjectOptions project_options;
  if (!options.config.empty()) project_options.config = options.config;
  if (!options.select.empty()) {
    project_options.command_line.select = split_codes(options.select);
    if (project_options.command_line.select->empty())
      throw Stop{kExitError, "--select names no rule (an empty value selects nothing)"};
  }
  project_options.command_line.ignore = split_codes(options.ignore);
  Project project(all_rules(), project_options);
  std::vector<std::string> files, path_errors;
  for (const std::string& path : options.paths) {
    WalkResult walked = project.walk(path);
    files.insert(files.end(), walked.files.begin(), walked.files.end());
    path_errors.insert(path_errors.end(), walked.errors.begin(), walked.errors.end());
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  files = distinct_files(files);
  project.resolve(files);
  LintOptions lint;
  lint.rule_set_for = [&project](const std::string& path) { return project.rule_set_for(path); };
  LintResult result = lint_files(files, lint);
  ReportSummary summary{result.files_checked, path_errors};
  for (const FileError& e : result.errors) {
    summary.file_errors.push_back(fmt::format("{}: {}", e.path, e.message));
  }
  for (const std::string& e : summary.file_errors) error(e);

  const Params params = verifier::plan_for(result.diagnostics, base_params(options));
  if (!params.experiments.empty()) {
    const Report report = run_verifier(params);
    verifier::attach_costs(result.diagnostics, report, params);
    remember_costs(verifier::rule_costs(report, params), report, params);
  } else if (!result.diagnostics.empty()) {
    warning("no verifier experiment measures the rules that fired");
  }

  const std::string out = render_findings(options.format, result.diagnostics, summary);
  if (!emit(options, out) || !summary.file_errors.empty()) return kExitError;
  return result.diagnostics.empty() ? kExitClean : kExitFindings;
}

int run_verify(const VerifyOptions& options) {
  try {
    return options.paths.empty() ? verify_experiments(options) : verify_paths(options);
  } catch (const Stop& stop) {
    error(stop.message);
    return stop.code;
  } catch (const ConfigError& e) {
    error(e.what());
  } catch (const std::invalid_argument& e) {
    error(e.what());
  }
  return kExitError;
}

}  // namespace

Subcommand add_verify(CLI::App& app) {
  auto verify = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify", "Measure on the local GPU what each finding costs (needs gpulint-verifier)");
  cmd->add_option("paths", verify->paths,
                  "Files and directories to lint; their findings get measured costs");
  cmd->add_option("--rules", verify->rules,
                  "Without paths: run the experiments of these rules only (comma-separated)")
      ->expected(1)
      ->take_all();
  cmd->add_option("--format", verify->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "sarif"}))
      ->capture_default_str();
  cmd->add_option("--output-file", verify->output_file,
                  "Write the report to this file instead of stdout");
  cmd->add_option("--select", verify->select, "With paths: rules to run instead of the defaults")
      ->expected(1)
      ->take_all();
  cmd->add_option("--ignore", verify->ignore, "With paths: rules not to run")
      ->expected(1)
      ->take_all();
  cmd->add_option("--config", verify->config, "With paths: use this config file for every file");
  // Experiment parameters (verifier/README.md gives their defaults); each is handed to
  // gpulint-verifier under the same flag, which validates it.
  verify->overrides = {{"--batch-shape", ""}, {"--gemm-shape", ""},       {"--cpu-gemm-shape", ""},
                       {"--steps", ""},       {"--kernels-per-step", ""}, {"--profile", ""},
                       {"--workers", ""},     {"--loader-cpu-ms", ""},    {"--loader-gpu-ms", ""},
                       {"--layer", ""},       {"--budget-s", ""}};
  const char* help[] = {"fp32 batch for transfer and fill, e.g. 64x3x224x224",
                        "precision GEMM MxNxK",
                        "placement CPU-vs-GPU GEMM MxNxK",
                        "steps timed per sample",
                        "kernels a step launches (sync, debug)",
                        "step profile costs are quoted for: launch, balanced, compute",
                        "loading: producer threads",
                        "loading: CPU preprocessing per batch, ms",
                        "loading: GPU work per step, ms",
                        "GL503: the re-created layer, INxOUT",
                        "seconds of repeats per figure"};
  for (size_t i = 0; i < verify->overrides.size(); ++i) {
    cmd->add_option(verify->overrides[i].first, verify->overrides[i].second, help[i]);
  }
  return {cmd, [verify] { return run_verify(*verify); }};
}

}  // namespace gpulint
