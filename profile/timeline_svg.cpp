#include "profile/timeline_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "watch/svg_chart.h"

namespace gpulint::profile {
namespace {

using system::svg_escape;

constexpr double kWidth = 960;
constexpr double kLeft = 40, kRight = kWidth - 40;
constexpr double kLaneTop = 90, kLaneHeight = 44;
constexpr double kBarTop = 200, kBarHeight = 30;
constexpr const char* kFont = "font-family=\"sans-serif\" font-size=\"12\"";
constexpr const char* kTitleFont =
    "font-family=\"sans-serif\" font-size=\"14\" font-weight=\"bold\"";

struct Style {
  const char* css_class;
  const char* colour;
  const char* legend;
};

constexpr std::array<Style, 4> kStyles = {{
    {"busy", "#2ca02c", "GPU busy"},
    {"data", "#1f77b4", "idle: the host waiting for a batch"},
    {"line", "#d62728", "idle: the host in a synchronising line"},
    {"host", "#ff7f0e", "idle: the host's other work"},
}};

const Style& style_of(Segment::Kind kind) { return kStyles[static_cast<size_t>(kind)]; }

std::string ms(double us) { return fmt::format("{:.2f} ms", us / 1000); }

std::string rect(double x, double y, double w, double h, const Style& style,
                 const std::string& tip) {
  return fmt::format(
      "<rect class=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
      "fill=\"{}\"><title>{}</title></rect>\n",
      style.css_class, x, y, std::max(w, 0.5), h, style.colour, svg_escape(tip));
}

std::string tip_of(const Segment& s, const PlotInput& in) {
  const std::string length = ms(s.when.length());
  switch (s.kind) {
    case Segment::Kind::Busy:
      return "GPU busy " + length;
    case Segment::Kind::Data:
      return fmt::format("GPU idle {}: the host waiting for its next batch at {}", length,
                         in.line_name(s.where));
    case Segment::Kind::Line:
      return fmt::format("GPU idle {}: the host in {} ({})", length, in.line_name(s.where),
                         in.cause_phrase(s.cause));
    case Segment::Kind::Host:
      break;
  }
  if (!s.where.file.empty()) {
    return fmt::format("GPU idle {}: the host's other work, sampled mostly at {}", length,
                       in.line_name(s.where));
  }
  return fmt::format("GPU idle {}: the host's other work (Python, launches)", length);
}

// The steps side by side on one time axis, in milliseconds from the first step's start.
std::string lane(const PlotInput& in) {
  const Timeline& t = *in.timeline;
  const double t0 = t.steps.front().start, t1 = t.steps.back().end;
  const auto x_of = [&](double us) { return kLeft + (kRight - kLeft) * (us - t0) / (t1 - t0); };
  std::string svg = "<g class=\"timeline\">\n";
  for (const Segment& s : t.segments) {
    svg += rect(x_of(s.when.start), kLaneTop, x_of(s.when.end) - x_of(s.when.start), kLaneHeight,
                style_of(s.kind), tip_of(s, in));
  }
  svg += "</g>\n<g class=\"steps\" stroke=\"#333\" stroke-dasharray=\"4 3\">\n";
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const double x = x_of(t.steps[i].start);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>\n", x,
                       kLaneTop - 16, kLaneTop + kLaneHeight);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" {} stroke=\"none\">step {} ({})</text>\n",
                       x + 4, kLaneTop - 6, kFont, i + 1, ms(t.steps[i].length()));
  }
  svg += "</g>\n<g class=\"time-ticks\" text-anchor=\"middle\">\n";
  const double span_ms = (t1 - t0) / 1000;
  const double step = system::nice_tick_step(span_ms, 10);
  for (double v = 0; v <= span_ms + 1e-9; v += step) {
    const double x = x_of(t0 + v * 1000);
    svg +=
        fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#888\"/>\n",
                    x, kLaneTop + kLaneHeight, kLaneTop + kLaneHeight + 5);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" {}>{:g}</text>\n", x,
                       kLaneTop + kLaneHeight + 18, kFont, v);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" {}>ms</text>\n</g>\n", kRight + 14,
                     kLaneTop + kLaneHeight + 18, kFont);
  return svg;
}

// The mean step as one bar: busy, idle waiting for batches, idle in the synchronising lines,
// idle at the host's other work.
std::string bar(const PlotInput& in) {
  const StepBreakdown& b = in.attribution->breakdown;
  double in_lines = 0;
  for (const LineCost& line : in.attribution->lines) {
    if (line.kind == HostWait::Kind::Sync) in_lines += line.own_idle_us_per_step;
  }
  in_lines = std::min(in_lines, b.idle_host_work_us);
  const std::array<double, 4> parts = {b.gpu_busy_us, b.idle_waiting_for_data_us, in_lines,
                                       b.idle_host_work_us - in_lines};
  std::string svg = fmt::format("<text x=\"{}\" y=\"{}\" {}>the mean step, {}:</text>\n", kLeft,
                                kBarTop - 8, kFont, ms(b.step_us));
  svg += "<g class=\"breakdown\">\n";
  double x = kLeft;
  for (size_t i = 0; i < parts.size(); ++i) {
    const double w = b.step_us > 0 ? (kRight - kLeft) * parts[i] / b.step_us : 0;
    if (parts[i] <= 0) continue;
    const std::string label =
        fmt::format("{} {} ({:.0f}%)", kStyles[i].legend, ms(parts[i]), 100 * parts[i] / b.step_us);
    svg += rect(x, kBarTop, w, kBarHeight, kStyles[i], label);
    if (w > 60) {
      svg += fmt::format(
          "<text x=\"{:.1f}\" y=\"{}\" {} fill=\"white\" text-anchor=\"middle\">{:.0f}%</text>\n",
          x + w / 2, kBarTop + 20, kFont, 100 * parts[i] / b.step_us);
    }
    x += w;
  }
  return svg + "</g>\n";
}

// The lines by what fixing them saves, under the bar.
std::string savings(const PlotInput& in, double& y) {
  std::string svg = "<g class=\"lines\">\n";
  std::vector<const LineCost*> lines;
  for (const LineCost& line : in.attribution->lines) lines.push_back(&line);
  std::stable_sort(lines.begin(), lines.end(), [](const LineCost* a, const LineCost* b) {
    return a->saving_us_per_step > b->saving_us_per_step;
  });
  for (const LineCost* line : lines) {
    const std::string what =
        line->kind == HostWait::Kind::Data ? "waiting for batches" : in.cause_phrase(line->cause);
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" {}>{}: {}, {} waited a step; fixing it alone "
        "saves about {}</text>\n",
        kLeft, y, kFont, svg_escape(in.line_name(line->where)), svg_escape(what),
        ms(line->wait_us_per_step), ms(line->saving_us_per_step));
    y += 16;
  }
  if (const std::optional<SyncGroup>& g = in.attribution->syncs; g && g->lines.size() > 1) {
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" {}>the {} synchronising lines together: removing "
        "all of them saves about {} a step</text>\n",
        kLeft, y, kFont, g->lines.size(), ms(g->saving_us_per_step));
    y += 16;
  }
  return svg + "</g>\n";
}

std::string legend(double y) {
  std::string svg = "<g class=\"legend\">\n";
  double x = kLeft;
  for (const Style& s : kStyles) {
    svg += fmt::format("<rect x=\"{:.0f}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\"/>\n", x,
                       y - 11, s.colour);
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{}\" {}>{}</text>\n", x + 20, y, kFont, s.legend);
    x += 40 + 6.5 * static_cast<double>(std::string_view(s.legend).size());
  }
  return svg + "</g>\n";
}

}  // namespace

std::string timeline_svg(const PlotInput& in) {
  const StepBreakdown& b = in.attribution->breakdown;
  double y = kBarTop + kBarHeight + 24;
  std::string body;
  if (!in.timeline->steps.empty() &&
      in.timeline->steps.back().end > in.timeline->steps.front().start) {
    body += lane(in);
  }
  body += bar(in);
  body += savings(in, y);
  body += legend(y + 10);
  const double height = y + 30;
  const std::string title = "gpulint profile: " + in.command;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n",
      kWidth, height);
  svg += fmt::format("<title>{}</title>\n", svg_escape(title));
  svg += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", kWidth, height);
  svg +=
      fmt::format("<text x=\"{}\" y=\"22\" {}>{}</text>\n", kLeft, kTitleFont, svg_escape(title));
  svg += fmt::format(
      "<text x=\"{}\" y=\"42\" {}>rank {}: the first {} of {} profiled steps; step {} under the "
      "profiler, {} without it; GPU busy {:.0f}%. Hover a gap for its line.</text>\n",
      kLeft, kFont, in.rank, in.timeline->steps.size(), b.steps, ms(b.step_us),
      ms(b.unprofiled_step_us), b.step_us > 0 ? 100 * b.gpu_busy_us / b.step_us : 0);
  return svg + body + "</svg>\n";
}

}  // namespace gpulint::profile
