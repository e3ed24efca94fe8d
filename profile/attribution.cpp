#include "profile/attribution.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gpulint::profile {
namespace {

double overlap(const Interval& a, const Interval& b) {
  return std::max(0.0, std::min(a.end, b.end) - std::max(a.start, b.start));
}

// The GPU's busy intervals inside `step`, merged. `gpu` is sorted by start.
std::vector<Interval> busy_within(const std::vector<Interval>& gpu, const Interval& step) {
  std::vector<Interval> merged;
  for (const Interval& g : gpu) {
    if (g.start >= step.end) break;
    const Interval clipped{std::max(g.start, step.start), std::min(g.end, step.end)};
    if (clipped.end <= clipped.start) continue;
    if (!merged.empty() && clipped.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, clipped.end);
    } else {
      merged.push_back(clipped);
    }
  }
  return merged;
}

std::vector<Interval> gaps_within(const std::vector<Interval>& busy, const Interval& step) {
  std::vector<Interval> gaps;
  double at = step.start;
  for (const Interval& b : busy) {
    if (b.start > at) gaps.push_back({at, b.start});
    at = std::max(at, b.end);
  }
  if (at < step.end) gaps.push_back({at, step.end});
  return gaps;
}

double idle_during(const std::vector<Interval>& gaps, const Interval& span) {
  double idle = 0;
  for (const Interval& g : gaps) idle += overlap(g, span);
  return idle;
}

// The host's time in a waiting line, inside `step`: the line's span, which holds its wait.
Interval span_within(const HostWait& wait, const Interval& step) {
  const Interval whole = wait.span.length() > 0 ? wait.span : wait.when;
  return {std::max(std::min(whole.start, wait.when.start), step.start),
          std::min(std::max(whole.end, wait.when.end), step.end)};
}

// `spans` merged where they overlap, sorted by start.
std::vector<Interval> merged(std::vector<Interval> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const Interval& s : spans) {
    if (!out.empty() && s.start <= out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

bool by_time(const HostSample& a, const HostSample& b) { return a.at_us < b.at_us; }

// The line sampled most often inside `span` (`samples` sorted by time); none without samples.
SourceLine most_sampled(const std::vector<HostSample>& samples, const Interval& span) {
  std::map<SourceLine, int> counts;
  auto it = std::lower_bound(samples.begin(), samples.end(), HostSample{span.start, {}}, by_time);
  for (; it != samples.end() && it->at_us < span.end; ++it) ++counts[it->where];
  SourceLine best;
  int most = 0;
  for (const auto& [where, count] : counts) {
    if (count > most) std::tie(best, most) = std::tie(where, count);
  }
  return best;
}

// Whether `t` falls in one of `spans` (sorted by start, disjoint).
bool within(const std::vector<Interval>& spans, double t) {
  const auto after = std::upper_bound(spans.begin(), spans.end(), t,
                                      [](double at, const Interval& s) { return at < s.start; });
  return after != spans.begin() && t < std::prev(after)->end;
}

double total_length(const std::vector<Interval>& spans) {
  double total = 0;
  for (const Interval& s : spans) total += s.length();
  return total;
}

}  // namespace

Attribution attribute(const Trace& trace, std::optional<double> unprofiled_step_us,
                      std::vector<HostSample> samples,
                      const std::vector<LineTime>& unprofiled_lines) {
  std::stable_sort(samples.begin(), samples.end(), by_time);
  std::map<SourceLine, int> host_counts;
  double unmarked_idle_us = 0;
  Attribution out;
  StepBreakdown& b = out.breakdown;
  std::map<SourceLine, LineCost> lines;
  double host_rest_us = 0;  // the host's work outside the synchronising lines
  std::vector<double> op_lengths;
  double queued_gaps_us = 0, queued_ops = 0;
  double launched_gaps_us = 0, launched_pairs = 0;
  for (const Interval& step : trace.steps) {
    const std::vector<Interval> busy = busy_within(trace.gpu, step);
    const std::vector<Interval> gaps = gaps_within(busy, step);
    double busy_us = 0, idle_us = 0, data_idle_us = 0, sync_us = 0;
    for (const Interval& i : busy) busy_us += i.length();
    for (const Interval& g : gaps) idle_us += g.length();
    std::map<SourceLine, std::vector<Interval>> spans;  // each line's host time in this step
    std::vector<Interval> sync_spans;
    for (const HostWait& wait : trace.waits) {
      const double inside = overlap(wait.when, step);
      if (inside <= 0) continue;
      const auto [it, added] = lines.try_emplace(wait.where);
      LineCost& line = it->second;
      if (added) line = {wait.where, wait.kind, wait.cause};
      line.waits_per_step += 1;
      line.wait_us_per_step += inside;
      const Interval span = span_within(wait, step);
      spans[wait.where].push_back(span);
      if (wait.kind == HostWait::Kind::Data) {
        const double idle = idle_during(gaps, wait.when);
        line.gpu_idle_us_per_step += idle;
        data_idle_us += idle;
      } else {
        sync_us += inside;
        sync_spans.push_back(span);
        // The host launches nothing while it waits: the GPU's gaps inside the wait, between
        // two operations, are its own.
        for (const Interval& g : gaps) {
          if (g.start > wait.when.start && g.end < wait.when.end) queued_gaps_us += g.length();
        }
        const auto by_start = [](double t, const Interval& op) { return t < op.start; };
        const auto first =
            std::upper_bound(trace.gpu.begin(), trace.gpu.end(), wait.when.start, by_start);
        const auto last = std::partition_point(
            first, trace.gpu.end(), [&](const Interval& op) { return op.start < wait.when.end; });
        queued_ops += static_cast<double>(last - first);
      }
    }
    std::vector<Interval> marked;  // every line's host time in this step, for launch gaps
    for (auto& [where, line_spans] : spans) {
      for (const Interval& s : merged(std::move(line_spans))) {
        lines[where].own_idle_us_per_step += idle_during(gaps, s);
        marked.push_back(s);
      }
    }
    marked = merged(std::move(marked));
    for (const Interval& g : gaps) unmarked_idle_us += g.length() - idle_during(marked, g);
    auto sample =
        std::lower_bound(samples.begin(), samples.end(), HostSample{step.start, {}}, by_time);
    for (; sample != samples.end() && sample->at_us < step.end; ++sample) {
      if (within(gaps, sample->at_us) && !within(marked, sample->at_us)) {
        ++host_counts[sample->where];
        ++out.host_samples;
      }
    }
    for (size_t g = 0; g < gaps.size(); ++g) {
      // Between two operations: not the step's head before its first, nor its tail after its last.
      const bool between = gaps[g].start > step.start && gaps[g].end < step.end;
      if (between && gaps[g].length() <= kLaunchGapUs) {
        b.idle_between_launches_us += gaps[g].length() - idle_during(marked, gaps[g]);
      }
    }
    std::vector<double> lengths;
    for (const Interval& op : trace.gpu) {
      if (op.start >= step.start && op.start < step.end) lengths.push_back(op.length());
    }
    // The GPU's own gap before an operation launched while the one before it still ran: the
    // host was ahead there, so the gap stays when the host's waits are gone.
    for (size_t i = 1; i < trace.gpu.size() && i < trace.gpu_launched.size(); ++i) {
      const Interval& before = trace.gpu[i - 1];
      const Interval& op = trace.gpu[i];
      if (op.start < step.start || op.start >= step.end) continue;
      if (!(trace.gpu_launched[i] <= before.end)) continue;  // NaN: not known
      launched_gaps_us += std::max(0.0, op.start - before.end);
      launched_pairs += 1;
    }
    b.gpu_ops += static_cast<double>(lengths.size());
    op_lengths.insert(op_lengths.end(), lengths.begin(), lengths.end());
    for (const DeviceCopy& copy : trace.to_device) {
      if (copy.when.start < step.start || copy.when.start >= step.end) continue;
      (copy.pageable ? b.pageable_copies : b.pinned_copies) += 1;
      (copy.pageable ? b.pageable_bytes : b.pinned_bytes) += static_cast<double>(copy.bytes);
      (copy.pageable ? b.pageable_copy_us : b.pinned_copy_us) += copy.when.length();
    }
    b.step_us += step.length();
    b.gpu_busy_us += busy_us;
    b.gpu_idle_us += idle_us;
    b.idle_waiting_for_data_us += data_idle_us;
    b.idle_host_work_us += idle_us - data_idle_us;
    b.sync_wait_us += sync_us;
    host_rest_us += step.length() - total_length(merged(std::move(sync_spans)));
  }
  const double n = static_cast<double>(trace.steps.size());
  b.steps = static_cast<int>(trace.steps.size());
  for (double* v : {&b.step_us, &b.gpu_busy_us, &b.gpu_idle_us, &b.idle_waiting_for_data_us,
                    &b.idle_host_work_us, &b.sync_wait_us, &host_rest_us,
                    &b.idle_between_launches_us, &b.gpu_ops, &b.pageable_copies, &b.pageable_bytes,
                    &b.pageable_copy_us, &b.pinned_copies, &b.pinned_bytes, &b.pinned_copy_us}) {
    *v /= n;
  }
  if (!op_lengths.empty()) {
    std::nth_element(op_lengths.begin(), op_lengths.begin() + op_lengths.size() / 2,
                     op_lengths.end());
    b.median_gpu_op_us = op_lengths[op_lengths.size() / 2];
  }
  // Every queued pair where the trace ties operations to their launches; else the gaps inside
  // the host's waits, when it launched nothing (far fewer operations, so a noisier mean).
  if (launched_pairs > 0) {
    b.queued_gap_us = launched_gaps_us / launched_pairs;
  } else if (queued_ops > 0) {
    b.queued_gap_us = queued_gaps_us / queued_ops;
  }
  b.unprofiled_step_us = unprofiled_step_us.value_or(b.step_us);
  const double overhead = std::max(0.0, b.step_us - b.unprofiled_step_us);
  // Where the host runs ahead of the GPU its overhead is hidden; what lengthens the step is the
  // overhead of the host's work while the GPU idles. The host's times there shrink by this.
  const double idle_scale =
      b.gpu_idle_us > 0 ? std::max(0.0, b.gpu_idle_us - overhead) / b.gpu_idle_us : 1.0;
  SyncGroup group;
  for (auto& [where, line] : lines) {
    for (double* v : {&line.waits_per_step, &line.wait_us_per_step, &line.gpu_idle_us_per_step,
                      &line.own_idle_us_per_step}) {
      *v /= n;
    }
    if (line.kind == HostWait::Kind::Sync) group.lines.push_back(where);
  }
  if (!group.lines.empty()) {
    double host_without_us = host_rest_us - overhead;
    if (unprofiled_step_us && !unprofiled_lines.empty()) {
      double sampled_us = *unprofiled_step_us;
      for (const LineTime& at : unprofiled_lines) {
        if (std::ranges::binary_search(group.lines, at.where)) sampled_us -= at.us_per_step;
      }
      host_without_us = std::min(host_without_us, sampled_us);
    }
    group.step_without_us = std::max(host_without_us, b.gpu_work_us());
    group.saving_us_per_step = std::max(0.0, b.unprofiled_step_us - group.step_without_us);
    out.syncs = group;
  }
  for (auto& [where, line] : lines) {
    if (line.kind == HostWait::Kind::Data) {
      line.saving_us_per_step = std::max(0.0, std::min(line.gpu_idle_us_per_step * idle_scale,
                                                       b.unprofiled_step_us - b.gpu_work_us()));
    } else if (group.lines.size() == 1) {
      line.saving_us_per_step = group.saving_us_per_step;
    } else {
      line.saving_us_per_step =
          std::min(line.own_idle_us_per_step * idle_scale, group.saving_us_per_step);
    }
    out.lines.push_back(line);
  }
  std::stable_sort(out.lines.begin(), out.lines.end(), [](const LineCost& x, const LineCost& y) {
    return x.wait_us_per_step + x.gpu_idle_us_per_step >
           y.wait_us_per_step + y.gpu_idle_us_per_step;
  });
  for (const auto& [where, count] : host_counts) {
    out.host_lines.push_back(
        {where, count, unmarked_idle_us / n * count / static_cast<double>(out.host_samples)});
  }
  std::stable_sort(out.host_lines.begin(), out.host_lines.end(),
                   [](const HostLine& x, const HostLine& y) { return x.samples > y.samples; });
  return out;
}

Timeline timeline(const Trace& trace, size_t steps, std::vector<HostSample> samples) {
  std::stable_sort(samples.begin(), samples.end(), by_time);
  Timeline out;
  for (size_t i = 0; i < std::min(steps, trace.steps.size()); ++i) {
    const Interval& step = trace.steps[i];
    out.steps.push_back(step);
    const std::vector<Interval> busy = busy_within(trace.gpu, step);
    std::vector<Segment> lines;  // the host's time in each waiting line, by start
    for (const HostWait& wait : trace.waits) {
      const Interval span = span_within(wait, step);
      if (span.length() <= 0) continue;
      lines.push_back(
          {wait.kind == HostWait::Kind::Data ? Segment::Kind::Data : Segment::Kind::Line, span,
           wait.where, wait.cause});
    }
    std::stable_sort(lines.begin(), lines.end(), [](const Segment& a, const Segment& b) {
      return a.when.start < b.when.start;
    });
    std::vector<Segment> segments;
    for (const Interval& b : busy) segments.push_back({Segment::Kind::Busy, b, {}, {}});
    for (const Interval& gap : gaps_within(busy, step)) {
      double at = gap.start;
      for (const Segment& line : lines) {
        if (line.when.end <= at || line.when.start >= gap.end) continue;
        if (line.when.start > at)
          segments.push_back({Segment::Kind::Host, {at, line.when.start}, {}, {}});
        const double end = std::min(line.when.end, gap.end);
        segments.push_back(
            {line.kind, {std::max(at, line.when.start), end}, line.where, line.cause});
        at = end;
      }
      if (at < gap.end) segments.push_back({Segment::Kind::Host, {at, gap.end}, {}, {}});
    }
    for (Segment& s : segments) {
      if (s.kind == Segment::Kind::Host) s.where = most_sampled(samples, s.when);
    }
    std::stable_sort(segments.begin(), segments.end(), [](const Segment& a, const Segment& b) {
      return a.when.start < b.when.start;
    });
    out.segments.insert(out.segments.end(), segments.begin(), segments.end());
  }
  return out;
}

}  // namespace gpulint::profile
