// `gpulint profile [OPTIONS] -- CMD ARGS...`: run the user's command with the profile shim on
// PYTHONPATH (profile/shim/sitecustomize.py), read back the window of steps it recorded, say
// where each step's time went and which lines made the GPU wait, and join that to the
// analyzer's findings for the files those lines are in.

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/core/project.h"
#include "analyzer/core/walker.h"
#include "analyzer/engine.h"
#include "analyzer/report/report.h"
#include "cli/output.h"
#include "cli/subcommand.h"
#include "machine/process.h"
#include "profile/attribution.h"
#include "profile/run_record.h"
#include "profile/shim_source.h"
#include "profile/timeline_svg.h"
#include "rules/registry.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using profile::Attribution;
using profile::HostWait;
using profile::SourceLine;

struct ProfileOptions {
  int warmup = 10;
  int steps = 20;
  bool stop = false;
  std::string format = "text";
  std::string output_file;
  std::string keep;
  std::string plot;
  std::vector<std::string> command;
};

// A private directory for one run: the shim, and the records it writes. Removed on the way out
// unless --keep named a place to copy the records to.
class RunDirectory {
 public:
  RunDirectory() {
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "gpulint-profile-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~RunDirectory() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

bool write_shim(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir / "shim", ec);
  fs::create_directories(dir / "records", ec);
  std::ofstream out(dir / "shim" / "sitecustomize.py", std::ios::binary);
  const std::string_view source = profile::shim_source();
  out.write(source.data(), static_cast<std::streamsize>(source.size()));
  return static_cast<bool>(out);
}

void set_environment(const fs::path& dir, const ProfileOptions& options) {
  const char* old = std::getenv("PYTHONPATH");
  const std::string shim = (dir / "shim").string();
  const std::string path = old && *old ? shim + ":" + old : shim;
  ::setenv("PYTHONPATH", path.c_str(), 1);
  ::setenv("GPULINT_PROFILE_DIR", (dir / "records").c_str(), 1);
  ::setenv("GPULINT_PROFILE_WARMUP", std::to_string(options.warmup).c_str(), 1);
  ::setenv("GPULINT_PROFILE_STEPS", std::to_string(options.steps).c_str(), 1);
  ::setenv("GPULINT_PROFILE_STOP", options.stop ? "1" : "0", 1);
}

struct RankRecord {
  profile::Window window;
  std::optional<Attribution> attribution;
  profile::Timeline timeline;  // the first steps, for --plot
  std::string problem;         // why there is no attribution
};

constexpr size_t kPlottedSteps = 3;

std::vector<RankRecord> read_records(const fs::path& records) {
  std::vector<RankRecord> ranks;
  std::error_code ec;
  std::vector<fs::path> windows;
  for (const auto& entry : fs::directory_iterator(records, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("window-rank") && name.ends_with(".json")) windows.push_back(entry.path());
  }
  std::sort(windows.begin(), windows.end());
  for (const fs::path& path : windows) {
    std::string error;
    const std::optional<std::string> text = read_file(path);
    std::optional<profile::Window> window =
        text ? profile::read_window(*text, &error) : std::nullopt;
    if (!window) continue;
    RankRecord rank{*window, std::nullopt, {}, {}};
    const fs::path trace_path = records / fmt::format("trace-rank{}.json", rank.window.rank);
    if (!rank.window.error.empty()) {
      rank.problem = "the shim failed: " + rank.window.error;
    } else if (!rank.window.cuda) {
      rank.problem = "torch sees no CUDA GPU in this process: there is no GPU time to attribute";
    } else if (rank.window.steps == 0) {
      rank.problem = fmt::format(
          "no step was profiled: the program took {} steps or fewer (--warmup; a step ends at an "
          "optimizer's step, or else at a backward call, or else at a DataLoader's next batch)",
          rank.window.warmup);
    } else if (const std::optional<std::string> trace_text = read_file(trace_path)) {
      if (const std::optional<profile::Trace> trace = profile::read_trace(*trace_text, &error)) {
        const std::vector<profile::HostSample> samples =
            profile::placed_samples(rank.window, *trace);
        rank.attribution = profile::attribute(*trace, rank.window.unprofiled_step_us, samples,
                                              rank.window.unprofiled_lines);
        rank.timeline = profile::timeline(*trace, kPlottedSteps, samples);
      } else {
        rank.problem = fmt::format("{}: {}", trace_path.string(), error);
      }
    } else {
      rank.problem = "the profiler wrote no trace";
    }
    ranks.push_back(std::move(rank));
  }
  return ranks;
}

std::string ms(double us) { return fmt::format("{:.2f} ms", us / 1000); }
std::string share(double part, double whole) {
  return whole > 0 ? fmt::format("{:.0f}%", 100 * part / whole) : "-";
}

// A path as `check` would print it: relative to the working directory when it lies under it.
std::string display_path(const std::string& file) {
  std::error_code ec;
  const fs::path relative = fs::relative(file, fs::current_path(ec), ec);
  return ec || relative.empty() || relative.string().starts_with("..") ? file : relative.string();
}

std::string line_name(const SourceLine& where) {
  return fmt::format("{}:{}", display_path(where.file), where.line);
}

// Lines under this share of the samples, or with fewer than this many, are left out: a few
// samples say little.
constexpr double kHostLineShare = 0.05;
constexpr int kHostLineSamples = 5;
constexpr size_t kHostLinesShown = 5;

std::string render_host_lines(const Attribution& a) {
  std::string out;
  size_t shown = 0;
  for (const profile::HostLine& line : a.host_lines) {
    if (shown == kHostLinesShown || line.samples < kHostLineSamples ||
        line.samples < kHostLineShare * a.host_samples) {
      break;
    }
    if (shown++ == 0) {
      out += fmt::format(
          "  the host's own work while the GPU idled, by line ({} samples of the host's line "
          "outside the lines above):\n",
          a.host_samples);
    }
    out += fmt::format("    {:<40} GPU idle {} a step ({} samples)\n", line_name(line.where),
                       ms(line.gpu_idle_us_per_step), line.samples);
  }
  return out;
}

std::string render_rank(const RankRecord& rank) {
  std::string out;
  const Attribution& a = *rank.attribution;
  const profile::StepBreakdown& b = a.breakdown;
  out += fmt::format(
      "rank {}: {} steps profiled after {} of warm-up (torch{}{})\n", rank.window.rank, b.steps,
      rank.window.warmup, rank.window.torch.empty() ? "" : " " + rank.window.torch,
      rank.window.step_source == "optimizer" || rank.window.step_source.empty()
          ? ""
          : fmt::format("; a step ends at each {}",
                        rank.window.step_source == "batch" ? "next batch" : "backward call"));
  out += fmt::format("  step {}: GPU busy {} ({}), idle {} ({})\n", ms(b.step_us),
                     ms(b.gpu_busy_us), share(b.gpu_busy_us, b.step_us), ms(b.gpu_idle_us),
                     share(b.gpu_idle_us, b.step_us));
  if (rank.window.unprofiled_step_us) {
    out += fmt::format(
        "    without the profiler the step took {} (the warm-up's); savings are "
        "against that\n",
        ms(b.unprofiled_step_us));
  }
  out += fmt::format("    idle while waiting for data: {}; while the host worked: {}\n",
                     ms(b.idle_waiting_for_data_us), ms(b.idle_host_work_us));
  out += fmt::format("    host waiting for the GPU (synchronising calls): {} a step\n",
                     ms(b.sync_wait_us));
  if (b.gpu_ops > 0) {
    // Launch-bound: a large share of the step lost in short gaps while the host queues
    // operations that each take the GPU less time than the host needs to launch them.
    const bool launch_bound = b.idle_between_launches_us > 0.25 * b.step_us;
    out += fmt::format(
        "    {:.0f} GPU operations a step (median {:.1f} us, {:.1f} us apart where queued); idle "
        "in gaps of up to {:.1f} ms between them: {} a step{}\n",
        b.gpu_ops, b.median_gpu_op_us, b.queued_gap_us, profile::kLaunchGapUs / 1000,
        ms(b.idle_between_launches_us),
        launch_bound ? ": launch-bound, fewer and larger kernels would help (torch.compile, "
                       "foreach optimizers, larger batches)"
                     : "");
  }
  if (b.pageable_copies + b.pinned_copies > 0) {
    out += fmt::format(
        "    copies to the GPU a step: {:.1f} from pageable memory ({:.2f} MB, {} on the GPU; "
        "each blocks the host: pin the loader's memory), {:.1f} from pinned ({:.2f} MB, {})\n",
        b.pageable_copies, b.pageable_bytes / 1e6, ms(b.pageable_copy_us), b.pinned_copies,
        b.pinned_bytes / 1e6, ms(b.pinned_copy_us));
  }
  if (!a.lines.empty()) out += "  lines, by time waited a step:\n";
  for (const profile::LineCost& line : a.lines) {
    out += fmt::format("    {:<40} {} {:.1f}x a step, {} waited{}; fixing it alone saves ~{}\n",
                       line_name(line.where), line.kind == HostWait::Kind::Sync ? "sync" : "data",
                       line.waits_per_step, ms(line.wait_us_per_step),
                       line.kind == HostWait::Kind::Data
                           ? fmt::format(", GPU idle {}", ms(line.gpu_idle_us_per_step))
                           : "",
                       ms(line.saving_us_per_step));
  }
  out += render_host_lines(a);
  if (a.syncs) {
    const profile::SyncGroup& g = *a.syncs;
    if (g.lines.size() > 1) {
      out += fmt::format(
          "  these {} lines synchronise the same steps: the host cannot run ahead of the GPU "
          "while any one remains, so removing one alone saves only its own time above; removing "
          "all of them would save about {} a step ({} -> {}, the longer of the host's work and "
          "the GPU's)\n",
          g.lines.size(), ms(g.saving_us_per_step), ms(b.unprofiled_step_us),
          ms(g.step_without_us));
    } else {
      out +=
          fmt::format("  removing the synchronising line would save about {} a step ({} -> {})\n",
                      ms(g.saving_us_per_step), ms(b.unprofiled_step_us), ms(g.step_without_us));
    }
  }
  return out;
}

// What each synchronising call's cause is called, for people, and the evidence flag a rule
// declares for it (none for a pageable copy, whose rules point at the loader and the copy's
// options rather than at this line, or for an unknown cause).
struct CauseInfo {
  profile::SyncCause cause;
  std::string_view phrase;
  uint8_t evidence;
};
constexpr CauseInfo kCauses[] = {
    {profile::SyncCause::ValueRead, "a tensor's value read on the host", evidence::kValueRead},
    {profile::SyncCause::CopyToHost, "a device-to-host copy", evidence::kCopyToHost},
    {profile::SyncCause::Synchronize, "torch.cuda.synchronize()", evidence::kSynchronize},
    {profile::SyncCause::Print, "a print that reads tensors", evidence::kPrint},
    {profile::SyncCause::Branch, "a Python branch on a tensor", evidence::kBranch},
    {profile::SyncCause::DynamicShape, "an operation whose output size depends on the data",
     evidence::kDynamicShape},
    {profile::SyncCause::CopyToDevice, "a host-to-device copy from pageable memory", 0},
};

std::string_view phrase_of(profile::SyncCause cause) {
  for (const CauseInfo& c : kCauses) {
    if (c.cause == cause) return c.phrase;
  }
  return "a synchronising call";
}

// The rule whose pattern a synchronising call is, by the evidence each rule declares.
const Rule* rule_of(profile::SyncCause cause) {
  for (const CauseInfo& c : kCauses) {
    if (c.cause != cause || c.evidence == 0) continue;
    for (const Rule* rule : all_rules()) {
      if (rule->evidence & c.evidence) return rule;
    }
  }
  return nullptr;
}

Observed observed_at(const profile::LineCost& line, double step_us) {
  Observed observed;
  observed.seen = true;
  observed.per_step = line.waits_per_step;
  observed.wait_ms_per_step = line.wait_us_per_step / 1000;
  observed.share_of_step = step_us > 0 ? line.wait_us_per_step / step_us : 0;
  observed.saving_ms_per_step = line.saving_us_per_step / 1000;
  observed.gpu_idle_ms_per_step =
      (line.kind == HostWait::Kind::Data ? line.gpu_idle_us_per_step : line.own_idle_us_per_step) /
      1000;
  observed.summary =
      line.kind == HostWait::Kind::Data
          ? fmt::format(
                "the step loop at {} waited for its next batch {} a step ({} of the "
                "step), the GPU idle {}",
                line_name(line.where), ms(line.wait_us_per_step),
                share(line.wait_us_per_step, step_us), ms(line.gpu_idle_us_per_step))
          : fmt::format("{}, {:.1f}x a step; the host waited {} a step ({} of the step)",
                        phrase_of(line.cause), line.waits_per_step, ms(line.wait_us_per_step),
                        share(line.wait_us_per_step, step_us));
  observed.summary += fmt::format("; fixing this line alone would save about {} a step",
                                  ms(line.saving_us_per_step));
  return observed;
}

// The host's own work at a line, sampled while the GPU idled: what fixing it saves depends on the
// fix (the work moved, batched or dropped), so none is predicted.
Observed observed_at(const profile::HostLine& line, double step_us, int samples) {
  Observed observed;
  observed.seen = true;
  observed.samples = line.samples;
  observed.gpu_idle_ms_per_step = line.gpu_idle_us_per_step / 1000;
  observed.share_of_step = step_us > 0 ? line.gpu_idle_us_per_step / step_us : 0;
  observed.summary = fmt::format(
      "the host's own work at this line kept the GPU idle {} a step ({} of the step; {} of {} "
      "samples of the host's line while the GPU idled)",
      ms(line.gpu_idle_us_per_step), share(line.gpu_idle_us_per_step, step_us), line.samples,
      samples);
  return observed;
}

// A synchronising line the run shows and no rule found, as a finding of the rule whose pattern
// it is; nullopt where no rule's pattern matches its cause.
std::optional<Diagnostic> unfound(const profile::LineCost& line, double step_us) {
  const Rule* rule = rule_of(line.cause);
  if (line.kind != HostWait::Kind::Sync || rule == nullptr) return std::nullopt;
  std::ifstream in(line.where.file, std::ios::binary);
  std::string text;
  int read = 0;
  while (read < line.where.line && std::getline(in, text)) ++read;
  if (read < line.where.line) return std::nullopt;  // the file changed since the run
  Diagnostic d;
  d.code = rule->info.code;
  d.name = rule->info.name;
  d.message = fmt::format("{} every step, seen in this run at a line no rule reported",
                          phrase_of(line.cause));
  d.help = rule->info.help;
  d.location.path = display_path(line.where.file);
  const size_t indent = text.find_first_not_of(" \t");
  d.location.start = {static_cast<uint32_t>(line.where.line),
                      static_cast<uint32_t>(indent == std::string::npos ? 1 : indent + 1)};
  d.location.end = {static_cast<uint32_t>(line.where.line), static_cast<uint32_t>(text.size() + 1)};
  d.source_line = text;
  d.observed = observed_at(line, step_us);
  return d;
}

// Whether a line's evidence bears on a finding: a synchronising call on the findings of rules
// about synchronising, placement and copying (their experiments measure transfers) at that
// line; a wait for batches on the findings of its file whose experiments measure loading (the
// loader is made elsewhere than where it is iterated).
bool bears_on(const profile::LineCost& line, const Diagnostic& d) {
  const Rule* rule = find_rule(d.code);
  if (rule == nullptr) return false;
  if (line.kind == HostWait::Kind::Data) return rule->measure.experiment == "loading";
  const std::string_view family = rule->info.family;
  return family == "sync" || family == "placement" || rule->measure.experiment == "transfer";
}

// Each finding the run's evidence bears on is marked observed, the rest not observed; a
// synchronising line no rule found becomes a finding of its own.
void join(std::vector<Diagnostic>& diagnostics, const RankRecord& rank) {
  const auto canonical = [](const std::string& file) {
    std::error_code ec;
    return fs::weakly_canonical(file, ec).string();
  };
  const double step = rank.attribution->breakdown.step_us;
  std::set<const profile::LineCost*> reported;
  for (Diagnostic& d : diagnostics) {
    const std::string file = canonical(d.location.path);
    const profile::LineCost* evidence = nullptr;
    for (const profile::LineCost& line : rank.attribution->lines) {
      const bool here = line.kind == HostWait::Kind::Data
                            ? true
                            : line.where.line == static_cast<int>(d.location.start.line);
      if (here && canonical(line.where.file) == file && bears_on(line, d)) {
        evidence = &line;
        break;
      }
    }
    // Else the host's own work at the line, for rules whose pattern that is.
    const profile::HostLine* host = nullptr;
    const Rule* rule = find_rule(d.code);
    if (evidence == nullptr && rule != nullptr && (rule->evidence & evidence::kHostWork)) {
      for (const profile::HostLine& line : rank.attribution->host_lines) {
        if (line.samples >= kHostLineSamples &&
            line.where.line == static_cast<int>(d.location.start.line) &&
            canonical(line.where.file) == file) {
          host = &line;
          break;
        }
      }
    }
    if (host != nullptr) {
      d.observed = observed_at(*host, step, rank.attribution->host_samples);
    } else if (evidence == nullptr) {
      d.observed = Observed{.summary =
                                "not observed in this run (nothing at this line made "
                                "the GPU wait in the profiled steps)"};
    } else {
      d.observed = observed_at(*evidence, step);
      reported.insert(evidence);
    }
  }
  for (const profile::LineCost& line : rank.attribution->lines) {
    if (reported.contains(&line)) continue;
    if (std::optional<Diagnostic> d = unfound(line, step)) diagnostics.push_back(std::move(*d));
  }
  std::sort(diagnostics.begin(), diagnostics.end(), diagnostic_less);
}

std::vector<std::string> observed_files(const std::vector<RankRecord>& ranks) {
  std::vector<std::string> files;
  for (const RankRecord& rank : ranks) {
    for (const profile::SyncSite& site : rank.window.syncs) {
      if (!site.where.file.empty()) files.push_back(display_path(site.where.file));
    }
    if (!rank.attribution) continue;
    for (const profile::LineCost& line : rank.attribution->lines) {
      if (!line.where.file.empty()) files.push_back(display_path(line.where.file));
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return distinct_files(files);
}

int run_profile(const ProfileOptions& options) {
  if (options.command.empty()) {
    error("profile needs a command to run: gpulint profile [OPTIONS] -- CMD ARGS...");
    return kExitError;
  }
  if (options.warmup < 0 || options.steps < 1) {
    error("--warmup must be 0 or more and --steps 1 or more");
    return kExitError;
  }
  RunDirectory dir;
  if (dir.path().empty() || !write_shim(dir.path())) {
    error("profile: cannot create a private directory for the run's records");
    return kExitError;
  }
  set_environment(dir.path(), options);
  const system::ChildExit child = system::run_inheriting_stdio(options.command);
  if (!child.error.empty()) {
    error(child.error);
    return child.code;
  }
  if (!options.keep.empty()) {
    std::error_code ec;
    fs::create_directories(options.keep, ec);
    fs::copy(dir.path() / "records", options.keep,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    if (ec) warning(fmt::format("--keep {}: {}", options.keep, ec.message()));
  }
  const std::vector<RankRecord> ranks = read_records(dir.path() / "records");
  // Whatever went wrong, the command's own exit code is the answer, as it would have been.
  const std::string command = fmt::format("{}", fmt::join(options.command, " "));
  if (ranks.empty()) {
    error(child.code != 0
              ? fmt::format("profile: '{}' exited with {} before torch was imported; nothing "
                            "was recorded",
                            command, child.code)
              : fmt::format("profile: nothing was recorded: '{}' never imported torch", command));
    return child.code;
  }
  // The report goes to stderr, as time(1)'s does: stdout belongs to the command.
  std::string report;
  // Under torchrun every step waits for the slowest rank: its lines are the ones joined.
  const RankRecord* slowest = nullptr;
  size_t attributed = 0;
  for (const RankRecord& rank : ranks) {
    if (rank.attribution) {
      report += render_rank(rank);
      ++attributed;
      if (!slowest ||
          rank.attribution->breakdown.step_us > slowest->attribution->breakdown.step_us) {
        slowest = &rank;
      }
    } else {
      report += fmt::format("rank {}: {}\n", rank.window.rank, rank.problem);
    }
  }
  if (attributed > 1) {
    report += fmt::format("slowest: rank {} at {} a step; its lines are the findings' evidence\n",
                          slowest->window.rank, ms(slowest->attribution->breakdown.step_us));
  }
  fmt::print(stderr, "gpulint profile: '{}' exited with {}\n{}", command, child.code, report);
  if (!slowest) return child.code;
  bool plotted = true;
  if (!options.plot.empty()) {
    const profile::PlotInput plot{
        command,
        slowest->window.rank,
        &*slowest->attribution,
        &slowest->timeline,
        line_name,
        [](profile::SyncCause cause) { return std::string(phrase_of(cause)); }};
    plotted = write_atomically(options.plot, profile::timeline_svg(plot));
  }

  Project project(all_rules(), {});
  std::vector<std::string> files = observed_files(ranks);
  project.resolve(files);
  LintOptions lint;
  lint.rule_set_for = [&project](const std::string& path) { return project.rule_set_for(path); };
  LintResult result = lint_files(files, lint);
  join(result.diagnostics, *slowest);
  ReportSummary summary{result.files_checked, {}};
  for (const FileError& e : result.errors) {
    summary.file_errors.push_back(fmt::format("{}: {}", e.path, e.message));
  }
  const std::string out = render_findings(options.format, result.diagnostics, summary);
  const bool written =
      options.output_file.empty() ? write_stdout(out) : write_atomically(options.output_file, out);
  // The command's own failure comes first; else a file that could not be written is an error.
  if (!written || !plotted) return child.code != 0 ? child.code : kExitError;
  return child.code;
}

}  // namespace

Subcommand add_profile(CLI::App& app) {
  auto options = std::make_shared<ProfileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Run a PyTorch command, profile a window of its steps, and join what made the GPU wait to "
      "the findings at those lines");
  cmd->add_option("--warmup", options->warmup, "Optimizer steps before the window")
      ->capture_default_str();
  cmd->add_option("--steps", options->steps, "Optimizer steps in the window")
      ->capture_default_str();
  cmd->add_flag("--stop", options->stop, "End the program once the window is recorded");
  cmd->add_option("--output-format,--format", options->format, "Format of the findings")
      ->check(CLI::IsMember({"text", "json", "sarif", "github"}))
      ->capture_default_str();
  cmd->add_option("-o,--output-file", options->output_file,
                  "Write the findings to a file instead of stdout");
  cmd->add_option("--keep", options->keep,
                  "Copy the raw records (the profiler's trace, the shim's window) into DIR");
  cmd->add_option("--plot", options->plot,
                  "Write a timeline of a few profiled steps and the step's breakdown to this SVG "
                  "file");
  cmd->add_option("command", options->command, "The command to run, after --")->required();
  return {cmd, [options] { return run_profile(*options); }};
}

}  // namespace gpulint
