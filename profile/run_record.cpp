#include "profile/run_record.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace gpulint::profile {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kStepMark = "gpulint/step ";
constexpr std::string_view kSyncMark = "gpulint/sync ";
constexpr std::string_view kDataMark = "gpulint/data ";
constexpr std::string_view kPrintMark = "gpulint/print ";

// The CUDA calls in which the host thread waits for the GPU. A copy from pageable memory
// (cudaMemcpyAsync) blocks too, and sync debug mode warns before it.
constexpr std::array<std::string_view, 7> kBlockingCalls = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy",
    "cudaMemcpyAsync",       "cuStreamSynchronize",   "cuCtxSynchronize"};

std::optional<Json> parse(std::string_view text, std::string* error) {
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    *error = "not JSON";
    return std::nullopt;
  }
  return json;
}

std::string text_field(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double number_field(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

// Kineto writes thread ids as numbers, and as strings for its own rows.
std::string thread_of(const Json& event) {
  const auto it = event.find("tid");
  if (it == event.end()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// "gpulint/sync /home/u/train.py:89" -> {"/home/u/train.py", 89}.
SourceLine mark_line(std::string_view name, std::string_view mark) {
  name.remove_prefix(mark.size());
  const size_t colon = name.rfind(':');
  if (colon == std::string_view::npos) return {std::string(name), 0};
  int line = 0;
  for (char c : name.substr(colon + 1)) {
    if (c < '0' || c > '9') return {std::string(name), 0};
    line = line * 10 + (c - '0');
  }
  return {std::string(name.substr(0, colon)), line};
}

struct Event {
  std::string thread;
  Interval when;
  std::string name;
  int64_t correlation = -1;  // ties a runtime call to the GPU work it launched
};

int64_t correlation_of(const Json& event) {
  const auto args = event.find("args");
  if (args == event.end() || !args->is_object()) return -1;
  const auto it = args->find("correlation");
  return it != args->end() && it->is_number_integer() ? it->get<int64_t>() : -1;
}

// Blocking calls closer than this to each other are one wait (.item(): a copy, then a
// stream synchronize).
constexpr double kChainGapUs = 50;

bool any_of_names(const std::vector<const Event*>& ops,
                  std::initializer_list<std::string_view> names) {
  return std::any_of(ops.begin(), ops.end(), [&](const Event* op) {
    return std::find(names.begin(), names.end(), op->name) != names.end();
  });
}

// The operators enclosing a call on its thread, outermost first (`ops` sorted by start).
std::vector<const Event*> enclosing(const Event& call, const std::vector<Event>& ops) {
  std::vector<const Event*> out;
  for (const Event& op : ops) {
    if (op.when.start > call.when.start) break;
    if (op.thread == call.thread && op.when.end >= call.when.start) out.push_back(&op);
  }
  return out;
}

// The cause of a wait: the first blocking call of its chain, the operators enclosing it, and
// the direction of a copy in the chain.
SyncCause cause_of(const std::vector<const Event*>& chain,
                   const std::vector<const Event*>& enclosing,
                   const std::map<int64_t, std::string>& copies) {
  const Event& first = *chain.front();
  if (first.name == "cudaDeviceSynchronize" || first.name == "cuCtxSynchronize") {
    return SyncCause::Synchronize;
  }
  if (any_of_names(enclosing, {"aten::is_nonzero"})) return SyncCause::Branch;
  if (any_of_names(enclosing, {"aten::item"})) return SyncCause::ValueRead;
  if (any_of_names(enclosing, {"aten::nonzero", "aten::masked_select", "aten::unique",
                               "aten::_unique2", "aten::unique_consecutive",
                               "aten::repeat_interleave", "aten::nonzero_static"})) {
    return SyncCause::DynamicShape;
  }
  for (const Event* call : chain) {
    const auto copy = copies.find(call->correlation);
    if (copy == copies.end()) continue;
    if (copy->second.find("DtoH") != std::string::npos) return SyncCause::CopyToHost;
    if (copy->second.find("HtoD") != std::string::npos) return SyncCause::CopyToDevice;
  }
  if (any_of_names(enclosing, {"aten::_local_scalar_dense"})) return SyncCause::ValueRead;
  return SyncCause::Unknown;
}

}  // namespace

std::optional<Window> read_window(std::string_view text, std::string* error) {
  std::optional<Json> json = parse(text, error);
  if (!json) return std::nullopt;
  if (!json->is_object() || !json->contains("steps") || !json->contains("syncs")) {
    *error = "not a window record of gpulint's profile shim";
    return std::nullopt;
  }
  Window window;
  window.rank = static_cast<int>(number_field(*json, "rank"));
  window.warmup = static_cast<int>(number_field(*json, "warmup"));
  window.steps = static_cast<int>(number_field(*json, "steps"));
  window.step_source = text_field(*json, "step_source");
  if (const double step = number_field(*json, "unprofiled_step_us"); step > 0) {
    window.unprofiled_step_us = step;
  }
  for (const Json& at : json->value("unprofiled_lines", Json::array())) {
    if (at.is_array() && at.size() == 3 && at[0].is_string() && at[1].is_number_integer() &&
        at[2].is_number()) {
      window.unprofiled_lines.push_back(
          {{at[0].get<std::string>(), at[1].get<int>()}, at[2].get<double>()});
    }
  }
  window.torch = text_field(*json, "torch");
  window.error = text_field(*json, "error");
  window.cuda = json->value("cuda", false);
  for (const Json& site : (*json)["syncs"]) {
    if (!site.is_object()) continue;
    window.syncs.push_back(
        {{text_field(site, "file"), static_cast<int>(number_field(site, "line"))},
         text_field(site, "function"),
         static_cast<int64_t>(number_field(site, "count"))});
  }
  for (const Json& at : json->value("mark_us", Json::array())) {
    if (at.is_number()) window.mark_us.push_back(at.get<double>());
  }
  std::vector<SourceLine> sites;
  for (const Json& site : json->value("sample_sites", Json::array())) {
    const bool valid =
        site.is_array() && site.size() == 2 && site[0].is_string() && site[1].is_number_integer();
    sites.push_back(valid ? SourceLine{site[0].get<std::string>(), site[1].get<int>()}
                          : SourceLine{});
  }
  for (const Json& sample : json->value("samples", Json::array())) {
    if (!sample.is_array() || sample.size() != 2 || !sample[0].is_number() ||
        !sample[1].is_number_unsigned() || sample[1].get<size_t>() >= sites.size()) {
      continue;
    }
    const SourceLine& where = sites[sample[1].get<size_t>()];
    if (!where.file.empty()) window.samples.push_back({sample[0].get<double>(), where});
  }
  return window;
}

std::vector<HostSample> placed_samples(const Window& window, const Trace& trace) {
  const size_t marks = std::min(window.mark_us.size(), trace.steps.size());
  if (marks == 0) return {};
  std::vector<double> offsets;
  for (size_t i = 0; i < marks; ++i) offsets.push_back(trace.steps[i].start - window.mark_us[i]);
  std::nth_element(offsets.begin(), offsets.begin() + offsets.size() / 2, offsets.end());
  const double offset = offsets[offsets.size() / 2];
  std::vector<HostSample> placed = window.samples;
  for (HostSample& sample : placed) sample.at_us += offset;
  return placed;
}

std::optional<Trace> read_trace(std::string_view text, std::string* error) {
  std::optional<Json> json = parse(text, error);
  if (!json) return std::nullopt;
  const auto events = json->is_object() ? json->find("traceEvents") : json->end();
  if (!json->is_object() || events == json->end() || !events->is_array()) {
    *error = "not a PyTorch profiler trace (no traceEvents)";
    return std::nullopt;
  }
  Trace trace;
  std::string step_thread;
  std::vector<std::pair<Event, HostWait>> marks;
  std::vector<Event> blocking;
  std::vector<Event> ops;
  std::map<int64_t, std::string> copies;          // GPU copies by correlation: their direction
  std::vector<std::pair<Interval, int64_t>> gpu;  // with its correlation
  std::unordered_map<int64_t, double> launched;   // a runtime call's end, by correlation
  std::vector<Interval> prints;                   // print calls on the step thread
  for (const Json& event : *events) {
    if (!event.is_object()) continue;
    const std::string category = text_field(event, "cat");
    const std::string name = text_field(event, "name");
    const double start = number_field(event, "ts");
    const Interval when{start, start + number_field(event, "dur")};
    if (category == "kernel" || category == "gpu_memcpy" || category == "gpu_memset") {
      gpu.emplace_back(when, correlation_of(event));
      if (category == "gpu_memcpy") {
        copies[correlation_of(event)] = name;
        // "Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pinned -> Device)".
        if (name.find("HtoD") != std::string::npos) {
          const auto args = event.find("args");
          trace.to_device.push_back(
              {when, args != event.end() ? static_cast<int64_t>(number_field(*args, "bytes")) : 0,
               name.find("Pageable") != std::string::npos});
        }
      }
    } else if (category == "cpu_op") {
      ops.push_back({thread_of(event), when, name});
    } else if (category == "user_annotation") {
      if (name.starts_with(kStepMark)) {
        trace.steps.push_back(when);
        step_thread = thread_of(event);
      } else if (name.starts_with(kSyncMark)) {
        marks.push_back({{thread_of(event), when, name},
                         {HostWait::Kind::Sync, when, when, mark_line(name, kSyncMark)}});
      } else if (name.starts_with(kPrintMark)) {
        prints.push_back(when);
      } else if (name.starts_with(kDataMark)) {
        marks.push_back({{thread_of(event), when, name},
                         {HostWait::Kind::Data, when, when, mark_line(name, kDataMark)}});
      }
    } else if (category == "cuda_runtime" || category == "cuda_driver") {
      if (const int64_t c = correlation_of(event); c >= 0) launched[c] = when.end;
      if (std::find(kBlockingCalls.begin(), kBlockingCalls.end(), name) != kBlockingCalls.end()) {
        blocking.push_back({thread_of(event), when, name, correlation_of(event)});
      }
    }
  }
  if (trace.steps.empty()) {
    *error = "the trace holds no step marks of gpulint's profile shim";
    return std::nullopt;
  }
  const auto by_start = [](const auto& a, const auto& b) { return a.when.start < b.when.start; };
  std::sort(trace.steps.begin(), trace.steps.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::sort(gpu.begin(), gpu.end(),
            [](const auto& a, const auto& b) { return a.first.start < b.first.start; });
  for (const auto& [when, correlation] : gpu) {
    trace.gpu.push_back(when);
    const auto it = correlation >= 0 ? launched.find(correlation) : launched.end();
    trace.gpu_launched.push_back(it == launched.end() ? std::numeric_limits<double>::quiet_NaN()
                                                      : it->second);
  }
  std::sort(trace.to_device.begin(), trace.to_device.end(),
            [](const DeviceCopy& a, const DeviceCopy& b) { return a.when.start < b.when.start; });
  std::sort(blocking.begin(), blocking.end(), by_start);
  std::sort(ops.begin(), ops.end(), by_start);
  std::sort(marks.begin(), marks.end(),
            [](const auto& a, const auto& b) { return a.first.when.start < b.first.when.start; });
  // Where each sync mark's wait is. Torch hands a warning to Python when the operator has
  // returned, so a mark from a warning comes right after its blocking calls: the wait is the
  // last chain of them since the thread's previous mark. A mark around torch.cuda.synchronize
  // holds its blocking call.
  double previous = -std::numeric_limits<double>::infinity();
  for (auto& [event, wait] : marks) {
    if (event.thread != step_thread) continue;
    const double since = previous;
    previous = event.when.end;
    if (wait.kind == HostWait::Kind::Sync) {
      const auto inside = [&](const Event& e) {
        return e.thread == event.thread && e.when.start >= event.when.start &&
               e.when.start <= event.when.end;
      };
      std::vector<const Event*> chain;
      if (const auto held = std::find_if(blocking.begin(), blocking.end(), inside);
          held != blocking.end()) {
        chain.push_back(&*held);
      } else {
        // The blocking calls before the mark, latest first, back to a gap or the previous mark.
        auto it = std::lower_bound(blocking.begin(), blocking.end(), event.when.start,
                                   [](const Event& e, double t) { return e.when.start < t; });
        while (it != blocking.begin()) {
          --it;
          if (it->thread != event.thread) continue;
          if (it->when.start < since) break;
          if (!chain.empty() && it->when.end + kChainGapUs < chain.front()->when.start) break;
          chain.insert(chain.begin(), &*it);
        }
      }
      if (!chain.empty()) {
        const std::vector<const Event*> around = enclosing(*chain.front(), ops);
        wait.when = {chain.front()->when.start, chain.back()->when.end};
        wait.cause = cause_of(chain, around, copies);
        wait.span = {std::min({event.when.start, wait.when.start,
                               around.empty() ? wait.when.start : around.front()->when.start}),
                     std::max(wait.when.end, event.when.end)};
      }
      // A tensor printed: whatever the reads inside print were, the line prints.
      for (const Interval& print : prints) {
        if (print.start <= event.when.start && event.when.start <= print.end) {
          wait.cause = SyncCause::Print;
          wait.span = print;
        }
      }
    }
    trace.waits.push_back(wait);
  }
  std::sort(trace.waits.begin(), trace.waits.end(), by_start);
  return trace;
}

}  // namespace gpulint::profile
