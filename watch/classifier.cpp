#include "watch/classifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rules/registry.h"

namespace gpulint::system {
namespace {

// The thresholds, in NVML's utilisation percent (the share of its last sample period, 1/6 s
// to 1 s by product, during which any kernel was running). Why each value:
//
// Below kActive the GPU is doing nothing the user asked for. On the H200, creating the CUDA
// context read 2%, while a loop of tiny kernels with a sync every step read 7 to 11%.
constexpr double kActive = 5;
// A well-fed training loop keeps a kernel running nearly all the time; the optimizer step,
// logging and the occasional sync leave it in the 90s. 80 leaves room for those.
constexpr double kHigh = 80;
// Healthy: high for most of the time the GPU was in use. 70% tolerates evaluation passes,
// checkpoints and warm-up inside the judged span.
constexpr double kHealthyShare = 0.7;
// A drop is a fall below kLow after a reading of at least kPeak. The peak sits under kHigh
// because NVML averages over its period: a compute phase shorter than the period never reads
// 100. The trough sits well above kActive for the same reason: a data-loading pause shorter
// than the period reads as a dip, not as zero.
constexpr double kPeak = 60;
constexpr double kLow = 30;
// Periodic means repeated: three drops are the fewest that show a rhythm, and together they
// must cover a real share of the time, or they are occasional hiccups (evaluation, logging).
constexpr int kMinDrops = 3;
constexpr double kMinDropShare = 0.15;
// Spike-then-zero: after its last work the GPU sat below kActive for at least half of the run
// counted from its first work.
constexpr double kQuietTailShare = 0.5;
// A reading covers NVML's last period, up to 1 s, so readings in the first second can show
// work from before the command started: on the H200, 32 to 50% at the start of a CPU-only run
// that followed a GPU job. The command cannot have done much in that second anyway.
constexpr double kStaleMs = 1000;
// An idle head or tail is named when it is over a fifth of the run (a warm-up's start-up, a
// final evaluation on the GPU's results, are shorter) and at least a few seconds long.
constexpr double kIdleSegmentShare = 0.2;
constexpr double kIdleSegmentMinS = 2;
// Fewer samples than this (0.5 s at the default 50 ms) say nothing about a shape.
constexpr size_t kMinSamples = 10;

struct Point {
  double t_s;
  double u;
};

// The rules whose pattern produces the shape (`Rule::shapes`), in code order.
std::vector<std::string> rules_for(Shape shape) {
  uint8_t flag = 0;
  switch (shape) {
    case Shape::Idle:
      flag = shape::kIdle;
      break;
    case Shape::SpikeThenZero:
      flag = shape::kSpikeThenZero;
      break;
    case Shape::SawTooth:
      flag = shape::kSawTooth;
      break;
    case Shape::FlatLow:
      flag = shape::kFlatLow;
      break;
    case Shape::Healthy:
      flag = shape::kHealthy;
      break;
    case Shape::Unknown:
      break;
  }
  std::vector<std::string> out;
  for (const Rule* rule : all_rules()) {
    if (rule->shapes & flag) out.emplace_back(rule->info.code);
  }
  return out;
}

std::string cause_for(Shape shape) {
  switch (shape) {
    case Shape::Idle:
      return "nothing ran on the GPU: the model and data stayed on the CPU, or torch cannot use "
             "CUDA (run `gpulint doctor`)";
    case Shape::SpikeThenZero:
      return "the GPU did a little work, then the run went on on the CPU: a model or batches "
             "left on (or copied back to) the CPU";
    case Shape::SawTooth:
      return "the GPU waits for every batch: loading and augmentation run in the training "
             "process, or copies cannot overlap compute";
    case Shape::FlatLow:
      return "the CPU cannot queue work ahead of the GPU: a host sync every step, or kernels too "
             "small to fill it";
    case Shape::Healthy:
      return "the GPU is kept busy; utilisation counts time, not how well each kernel uses the "
             "chip, so precision settings still matter";
    case Shape::Unknown:
      break;
  }
  return "";
}

// The run's idle head (from its start to the GPU's first work) and idle tail (from its last
// work to the end), where long enough to name. `first` and `last` are the first and last
// points at or above kActive.
std::vector<IdleSegment> idle_segments(const std::vector<Point>& points, size_t first,
                                       size_t last) {
  const double run_s = points.back().t_s;
  std::vector<IdleSegment> out;
  if (!(run_s > 0)) return out;
  const auto add = [&](IdleSegment::Where where, double start, double end) {
    const double length = end - start;
    if (length >= kIdleSegmentMinS && length / run_s > kIdleSegmentShare) {
      out.push_back({where, start, length, length / run_s});
    }
  };
  add(IdleSegment::Where::Head, 0, points[first].t_s);
  add(IdleSegment::Where::Tail, points[last].t_s, run_s);
  return out;
}

Diagnosis finish(Diagnosis d) {
  d.rules = rules_for(d.shape);
  d.cause = cause_for(d.shape);
  return d;
}

double percent(double share) { return std::round(share * 100); }

}  // namespace

std::string describe(const IdleSegment& segment) {
  return segment.where == IdleSegment::Where::Head
             ? fmt::format(
                   "idle head: the first {:.1f} s ({:.0f}% of the run), before the GPU's "
                   "first work",
                   segment.length_s, percent(segment.share))
             : fmt::format(
                   "idle tail: from {:.1f} s to the end, {:.1f} s ({:.0f}% of the run), "
                   "after the GPU's last work",
                   segment.start_s, segment.length_s, percent(segment.share));
}

std::string_view shape_name(Shape shape) {
  switch (shape) {
    case Shape::Unknown:
      return "unknown";
    case Shape::Idle:
      return "idle";
    case Shape::Healthy:
      return "healthy";
    case Shape::SawTooth:
      return "saw-tooth";
    case Shape::FlatLow:
      return "flat-low";
    case Shape::SpikeThenZero:
      return "spike-then-zero";
  }
  return "unknown";
}

Diagnosis classify(const std::vector<double>& t_ms, const std::vector<double>& utilization) {
  // Samples are taken on a fixed grid, so a share of samples is a share of time.
  std::vector<Point> points;
  for (size_t i = 0; i < std::min(t_ms.size(), utilization.size()); ++i) {
    if (t_ms[i] < kStaleMs || std::isnan(utilization[i])) continue;
    points.push_back({t_ms[i] / 1000.0, utilization[i]});
  }
  Diagnosis d;
  const size_t n = points.size();
  if (n == 0) {
    d.summary = "no utilisation reading was taken";
    return finish(d);
  }
  double sum = 0, peak = 0;
  for (const Point& p : points) sum += p.u, peak = std::max(peak, p.u);
  d.mean_utilization = sum / static_cast<double>(n);
  const double span_s = points.back().t_s - points.front().t_s;
  if (n < kMinSamples) {
    d.summary = fmt::format("only {} sample{} ({:.2f} s): too short to judge the shape", n,
                            n == 1 ? "" : "s", span_s);
    return finish(d);
  }
  if (peak < kActive) {
    d.shape = Shape::Idle;
    d.share = 1;
    d.summary = fmt::format("never above {:.0f}% in {:.1f} s ({} samples)", kActive, span_s, n);
    return finish(d);
  }

  // Judging starts at the first real work: the first peak, or the first activity where there
  // is no peak. What comes before (imports, CUDA init, weight copies, library handles) is
  // start-up, whatever a training loop does next.
  size_t first = 0, last = n - 1;
  const auto is_peak = [](const Point& p) { return p.u >= kPeak; };
  if (const auto it = std::find_if(points.begin(), points.end(), is_peak); it != points.end()) {
    first = static_cast<size_t>(it - points.begin());
  } else {
    while (points[first].u < kActive) ++first;
  }
  while (points[last].u < kActive) --last;
  size_t first_active = 0;
  while (points[first_active].u < kActive) ++first_active;
  d.idle = idle_segments(points, first_active, last);
  const size_t judged = n - first;
  const size_t busy = last - first + 1;
  const size_t quiet_tail = n - 1 - last;
  const double tail_share = static_cast<double>(quiet_tail) / static_cast<double>(judged);
  if (busy < kMinSamples || tail_share >= kQuietTailShare) {
    d.shape = Shape::SpikeThenZero;
    double busy_sum = 0;
    for (size_t i = first; i <= last; ++i) busy_sum += points[i].u;
    d.mean_utilization = busy_sum / static_cast<double>(busy);
    const double busy_s = points[last].t_s - points[first].t_s;
    if (busy < kMinSamples) {
      // Too brief to have a shape of its own: the rest of the run is what matters.
      d.share = 1.0 - static_cast<double>(busy) / static_cast<double>(n);
      d.summary = fmt::format(
          "GPU work for only {:.1f} s of {:.1f} s; below {:.0f}% for {:.0f}% "
          "of the run",
          busy_s, span_s, kActive, percent(d.share));
    } else {
      d.share = tail_share;
      d.summary = fmt::format(
          "GPU work for {:.1f} s (mean {:.0f}%), then below {:.0f}% for {:.1f} s: {:.0f}% of the "
          "run after its first work",
          busy_s, d.mean_utilization, kActive, points[n - 1].t_s - points[last].t_s,
          percent(d.share));
    }
    return finish(d);
  }

  // The busy span, from the first real work to the last work: teardown is not judged.
  size_t high = 0, low = 0;
  double busy_sum = 0;
  bool after_peak = false;
  std::vector<double> drop_times;
  for (size_t i = first; i <= last; ++i) {
    const double u = points[i].u;
    busy_sum += u;
    high += u >= kHigh;
    low += u < kLow;
    if (u >= kPeak) {
      after_peak = true;
    } else if (u < kLow && after_peak) {
      drop_times.push_back(points[i].t_s);
      after_peak = false;
    }
  }
  const double busy_n = static_cast<double>(busy);
  d.mean_utilization = busy_sum / busy_n;
  const double high_share = static_cast<double>(high) / busy_n;
  const double low_share = static_cast<double>(low) / busy_n;
  d.drops = static_cast<int>(drop_times.size());
  if (d.drops >= 2) {
    d.drop_period_s = (drop_times.back() - drop_times.front()) / (d.drops - 1);
  }
  const double busy_s = points[last].t_s - points[first].t_s;

  if (d.drops >= kMinDrops && low_share >= kMinDropShare) {
    d.shape = Shape::SawTooth;
    d.share = low_share;
    d.summary = fmt::format(
        "{} drops below {:.0f}%, one every {:.1f} s; {:.0f}% of {:.1f} s in the drops (mean "
        "{:.0f}%)",
        d.drops, kLow, d.drop_period_s, percent(low_share), busy_s, d.mean_utilization);
  } else if (high_share >= kHealthyShare) {
    d.shape = Shape::Healthy;
    d.share = high_share;
    d.summary = fmt::format("at or above {:.0f}% for {:.0f}% of {:.1f} s (mean {:.0f}%)", kHigh,
                            percent(high_share), busy_s, d.mean_utilization);
  } else {
    d.shape = Shape::FlatLow;
    d.share = 1.0 - high_share;
    d.summary = fmt::format(
        "below {:.0f}% for {:.0f}% of {:.1f} s (mean {:.0f}%), without a "
        "rhythm of drops",
        kHigh, percent(d.share), busy_s, d.mean_utilization);
  }
  return finish(d);
}

std::vector<Diagnosis> diagnose(const Trace& trace) {
  std::vector<Diagnosis> out;
  for (const GpuSeries& gpu : trace.gpus) {
    Diagnosis d = classify(trace.t_ms, gpu.utilization_percent);
    d.gpu_index = gpu.index;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace gpulint::system
