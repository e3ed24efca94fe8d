#include "analyzer/result_cache.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace gpulint {
namespace {

using nlohmann::json;

// Two FNV-1a 64-bit streams with different offsets: 128 bits, so keys do not collide in
// practice, at about a byte a cycle.
struct Hash128 {
  uint64_t a = 0xcbf29ce484222325ULL;
  uint64_t b = 0x84222325cbf29ce4ULL;
  void add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      a = (a ^ c) * 0x100000001b3ULL;
      b = (b ^ c) * 0x100000001b3ULL;
    }
    // A separator, so ("ab", "c") and ("a", "bc") differ.
    a = (a ^ 0xff) * 0x100000001b3ULL;
    b = (b ^ 0xfe) * 0x100000001b3ULL;
  }
  std::string hex() const {
    char out[33];
    std::snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(a),
                  static_cast<unsigned long long>(b));
    return out;
  }
};

json position_json(const Position& p) { return {p.line, p.column}; }
Position position_of(const json& j) { return {j.at(0).get<uint32_t>(), j.at(1).get<uint32_t>()}; }

json location_json(const Location& l) {
  return {l.path, l.span.begin, l.span.end, position_json(l.start), position_json(l.end)};
}
Location location_of(const json& j) {
  return {j.at(0).get<std::string>(),
          {j.at(1).get<uint32_t>(), j.at(2).get<uint32_t>()},
          position_of(j.at(3)),
          position_of(j.at(4))};
}

json diagnostic_json(const Diagnostic& d) {
  json related = json::array();
  for (const Related& r : d.related) related.push_back({location_json(r.location), r.message});
  json out = {{"c", d.code},        {"n", d.name}, {"s", d.severity == Severity::Error},
              {"m", d.message},     {"h", d.help}, {"l", location_json(d.location)},
              {"t", d.source_line}, {"r", related}};
  if (d.fix) {
    json edits = json::array();
    for (const Edit& e : d.fix->edits) {
      edits.push_back(
          {e.span.begin, e.span.end, e.replacement, position_json(e.start), position_json(e.end)});
    }
    out["f"] = {d.fix->message, d.fix->applicability == Applicability::Safe, edits};
  }
  if (!d.parameters.empty()) out["p"] = d.parameters;
  return out;
}

Diagnostic diagnostic_of(const json& j) {
  Diagnostic d;
  d.code = j.at("c").get<std::string>();
  d.name = j.at("n").get<std::string>();
  d.severity = j.at("s").get<bool>() ? Severity::Error : Severity::Warning;
  d.message = j.at("m").get<std::string>();
  d.help = j.at("h").get<std::string>();
  d.location = location_of(j.at("l"));
  d.source_line = j.at("t").get<std::string>();
  for (const json& r : j.at("r")) d.related.push_back({location_of(r.at(0)), r.at(1)});
  if (j.contains("f")) {
    const json& f = j.at("f");
    Fix fix{f.at(0).get<std::string>(),
            f.at(1).get<bool>() ? Applicability::Safe : Applicability::Unsafe,
            {}};
    for (const json& e : f.at(2)) {
      fix.edits.push_back({{e.at(0).get<uint32_t>(), e.at(1).get<uint32_t>()},
                           e.at(2).get<std::string>(),
                           position_of(e.at(3)),
                           position_of(e.at(4))});
    }
    d.fix = std::move(fix);
  }
  if (j.contains("p")) {
    d.parameters = j.at("p").get<std::vector<std::pair<std::string, int64_t>>>();
  }
  return d;
}

json caller_json(const ExternalCaller& c) {
  json via = json::array();
  for (const Location& l : c.via) via.push_back(location_json(l));
  return {c.function, location_json(c.call_site), via, c.training, c.interval_guarded, c.every_step,
          c.regions,  c.scalar_arguments};
}

ExternalCaller caller_of(const json& j) {
  ExternalCaller c;
  c.function = j.at(0).get<std::string>();
  c.call_site = location_of(j.at(1));
  for (const json& l : j.at(2)) c.via.push_back(location_of(l));
  c.training = j.at(3).get<bool>();
  c.interval_guarded = j.at(4).get<bool>();
  c.every_step = j.at(5).get<bool>();
  c.regions = j.at(6).get<uint8_t>();
  c.scalar_arguments = j.size() > 7 && j.at(7).get<bool>();
  return c;
}

std::string encode(const FileOutcome& outcome) {
  json diagnostics = json::array(), calls = json::array(), loaders = json::array();
  for (const Diagnostic& d : outcome.diagnostics) diagnostics.push_back(diagnostic_json(d));
  for (const Links::Call& c : outcome.links.calls)
    calls.push_back({c.module, caller_json(c.caller)});
  for (const Links::LoaderUse& u : outcome.links.loader_uses)
    loaders.push_back({u.module, u.function});
  json wanted = json::array(), constants = json::array();
  for (const ImportedConstant& c : outcome.links.wanted_constants)
    wanted.push_back({c.module, c.symbol, c.local});
  for (const auto& [name, value] : outcome.links.constants) constants.push_back({name, value});
  json parameters = json::array(), flows = json::array();
  for (const Links::LoaderParameter& p : outcome.links.loader_parameters)
    parameters.push_back({p.function, p.position, p.name});
  for (const ArgumentFlow& f : outcome.links.argument_flows)
    flows.push_back({f.callee_module, f.callee, f.position, f.keyword, f.source_module, f.source});
  json handed_arguments = json::array();
  for (const HandedArgument& a : outcome.links.handed_arguments) {
    handed_arguments.push_back(
        {a.callee_module, a.callee, a.position, a.keyword, static_cast<int>(a.what)});
  }
  json device_calls = json::array(), collate_calls = json::array(), probes = json::array();
  for (const Links::Probe& p : outcome.links.probes) probes.push_back({p.module, p.function, p.at});
  for (const ImportedConstant& c : outcome.links.device_calls)
    device_calls.push_back({c.module, c.symbol, c.local});
  for (const ImportedConstant& c : outcome.links.collate_calls)
    collate_calls.push_back({c.module, c.symbol, c.local});
  json host_calls = json::array(), model_calls = json::array();
  for (const ImportedConstant& c : outcome.links.host_calls)
    host_calls.push_back({c.module, c.symbol, c.local});
  for (const ImportedConstant& c : outcome.links.model_calls)
    model_calls.push_back({c.module, c.symbol, c.local});
  const std::vector<uint8_t> bytes = json::to_msgpack(
      json{diagnostics, calls, loaders, outcome.links.cuda, wanted, constants, parameters, flows,
           outcome.links.training_functions, outcome.links.device_functions, device_calls,
           outcome.links.unwrapping_functions, collate_calls, handed_arguments, probes,
           outcome.links.host_functions, host_calls, outcome.links.placed_functions, model_calls});
  return std::string(bytes.begin(), bytes.end());
}

FileOutcome decode(const std::string& bytes) {
  const json j = json::from_msgpack(bytes);
  FileOutcome outcome;
  for (const json& d : j.at(0)) outcome.diagnostics.push_back(diagnostic_of(d));
  for (const json& c : j.at(1)) outcome.links.calls.push_back({c.at(0), caller_of(c.at(1))});
  for (const json& u : j.at(2)) outcome.links.loader_uses.push_back({u.at(0), u.at(1)});
  outcome.links.cuda = j.at(3).get<bool>();
  for (const json& c : j.at(4))
    outcome.links.wanted_constants.push_back({c.at(0), c.at(1), c.at(2)});
  for (const json& c : j.at(5))
    outcome.links.constants.emplace_back(c.at(0), c.at(1).get<int64_t>());
  for (const json& p : j.at(6))
    outcome.links.loader_parameters.push_back({p.at(0), p.at(1).get<int32_t>(), p.at(2)});
  for (const json& f : j.at(7)) {
    outcome.links.argument_flows.push_back(
        {f.at(0), f.at(1), f.at(2).get<int32_t>(), f.at(3), f.at(4), f.at(5)});
  }
  outcome.links.training_functions = j.at(8).get<std::vector<std::string>>();
  outcome.links.device_functions = j.at(9).get<std::vector<std::string>>();
  for (const json& c : j.at(10)) outcome.links.device_calls.push_back({c.at(0), c.at(1), c.at(2)});
  outcome.links.unwrapping_functions = j.at(11).get<std::vector<std::string>>();
  for (const json& c : j.at(12)) outcome.links.collate_calls.push_back({c.at(0), c.at(1), c.at(2)});
  for (const json& a : j.at(13)) {
    outcome.links.handed_arguments.push_back({a.at(0), a.at(1), a.at(2).get<int32_t>(), a.at(3),
                                              static_cast<Handed>(a.at(4).get<int>())});
  }
  for (const json& p : j.at(14))
    outcome.links.probes.push_back({p.at(0), p.at(1), p.at(2).get<uint32_t>()});
  outcome.links.host_functions = j.at(15).get<std::vector<std::string>>();
  for (const json& c : j.at(16)) outcome.links.host_calls.push_back({c.at(0), c.at(1), c.at(2)});
  outcome.links.placed_functions = j.at(17).get<std::vector<std::string>>();
  for (const json& c : j.at(18)) outcome.links.model_calls.push_back({c.at(0), c.at(1), c.at(2)});
  return outcome;
}

constexpr std::string_view kMagic = "gpulint-cache-11";

}  // namespace

ResultCache::ResultCache(std::filesystem::path dir, const std::string& version, std::string build)
    : file_(dir / version / "results.msgpack"), build_(std::move(build)) {
  std::ifstream in(file_, std::ios::binary);
  if (!in) return;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  try {
    const json j = json::from_msgpack(buffer.str());
    if (j.at("magic").get<std::string>() != kMagic) return;
    for (const auto& [key, value] : j.at("entries").items()) {
      const auto& bin = value.get_binary();
      loaded_.emplace(key, std::string(bin.begin(), bin.end()));
    }
  } catch (const json::exception&) {
    loaded_.clear();  // a truncated or foreign file: start cold
  }
}

std::string ResultCache::key(std::string_view path, std::string_view settings,
                             std::string_view inbound, std::string_view bytes) const {
  Hash128 h;
  h.add(build_);
  h.add(path);
  h.add(settings);
  h.add(inbound);
  h.add(bytes);
  return h.hex();
}

std::optional<FileOutcome> ResultCache::find(const std::string& key) {
  std::string encoded;
  {
    std::lock_guard lock(mutex_);
    auto it = loaded_.find(key);
    if (it == loaded_.end()) return std::nullopt;
    encoded = it->second;
    kept_.insert_or_assign(key, encoded);
  }
  try {
    return decode(encoded);
  } catch (const json::exception&) {
    std::lock_guard lock(mutex_);
    kept_.erase(key);
    return std::nullopt;
  }
}

void ResultCache::store(const std::string& key, const FileOutcome& outcome) {
  std::string encoded = encode(outcome);
  std::lock_guard lock(mutex_);
  kept_.insert_or_assign(key, std::move(encoded));
}

std::string cache_dir(const std::string& option) {
  if (!option.empty()) return option;
  const char* env = std::getenv("GPULINT_CACHE_DIR");
  return env != nullptr && *env != '\0' ? env : ".gpulint_cache";
}

std::string build_id() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const auto size = std::filesystem::file_size(exe, ec);
  const auto time = std::filesystem::last_write_time(exe, ec);
  if (ec) return {};
  return fmt::format("{}:{}", size, time.time_since_epoch().count());
}

std::string make_cache_directory(const std::filesystem::path& versioned) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path root = versioned.parent_path();
  const bool created = !fs::exists(root, ec);
  fs::create_directories(versioned, ec);
  if (ec) return "cannot create " + versioned.string() + ": " + ec.message();
  // Like Ruff's, a cache directory ignores itself, so it never shows up in `git status`; only
  // one gpulint made, though: `--cache-dir .` must not write `*` into a project's .gitignore.
  if (created) std::ofstream(root / ".gitignore") << "# Automatically created by gpulint.\n*\n";
  return {};
}

std::string ResultCache::save() {
  namespace fs = std::filesystem;
  std::lock_guard lock(mutex_);
  if (kept_ == loaded_) return {};
  json entries = json::object();
  for (const auto& [key, value] : kept_)
    entries[key] = json::binary(std::vector<uint8_t>(value.begin(), value.end()));
  const std::vector<uint8_t> bytes =
      json::to_msgpack(json{{"magic", kMagic}, {"entries", entries}});
  std::error_code ec;
  if (std::string problem = make_cache_directory(file_.parent_path()); !problem.empty()) {
    return problem;
  }
  const fs::path temp = file_.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      const std::string cause = std::strerror(errno);
      fs::remove(temp, ec);
      return "cannot write " + temp.string() + ": " + cause;
    }
  }
  if (::rename(temp.c_str(), file_.c_str()) != 0) {
    const int cause = errno;
    fs::remove(temp, ec);
    return "cannot write " + file_.string() + ": " +
           (cause == EISDIR || fs::is_directory(file_, ec) ? "a directory is in its place"
                                                           : std::strerror(cause));
  }
  return {};
}

}  // namespace gpulint
