#include "watch/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpulint::system {
namespace {

constexpr double kWidth = 960, kHeight = 400;
constexpr double kLeft = 70, kRight = kWidth - 80, kTop = 70, kBottom = kHeight - 70;
constexpr double kMibPerGib = 1024;
// Utilisation solid, memory dashed in a lighter shade of the same hue, one hue per GPU.
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                    "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};
constexpr const char* kFont = "font-family=\"sans-serif\" font-size=\"12\"";
constexpr const char* kTitleFont =
    "font-family=\"sans-serif\" font-size=\"14\" font-weight=\"bold\"";

std::string command_line(const std::vector<std::string>& command) {
  std::string line;
  for (const std::string& arg : command) line += (line.empty() ? "" : " ") + arg;
  return line;
}

std::string tick_label(double value, double step) {
  // As many decimals as the step needs: 0.25 s steps show two, 5 s steps none.
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return fmt::format("{:.{}f}", value, decimals);
}

// A polyline per stretch of readings, broken where a reading is missing.
std::string series_path(const std::vector<double>& t_ms, const std::vector<double>& values,
                        double t_max_s, double y_max, const std::string& style) {
  std::string out;
  std::string points;
  auto flush = [&] {
    if (!points.empty()) out += fmt::format("<polyline points=\"{}\" {}/>\n", points, style);
    points.clear();
  };
  for (size_t i = 0; i < std::min(t_ms.size(), values.size()); ++i) {
    if (std::isnan(values[i])) {
      flush();
      continue;
    }
    const double x = kLeft + (kRight - kLeft) * (t_ms[i] / 1000.0) / t_max_s;
    const double y = kBottom - (kBottom - kTop) * std::clamp(values[i] / y_max, 0.0, 1.0);
    points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x, y);
  }
  flush();
  return out;
}

}  // namespace

std::string svg_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

double nice_tick_step(double span, int target) {
  if (!(span > 0) || target < 1) return 1;
  const double raw = span / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double factor : {1.0, 2.0, 5.0}) {
    if (raw <= factor * magnitude) return factor * magnitude;
  }
  return 10 * magnitude;
}

std::string svg_chart(const Trace& trace, const std::vector<Diagnosis>& diagnoses) {
  const double t_max_s = std::max(trace.duration_s(), 0.001);
  double memory_max_gib = 1;
  for (const GpuSeries& gpu : trace.gpus) {
    memory_max_gib = std::max(memory_max_gib, gpu.memory_total_mib / kMibPerGib);
    for (double m : gpu.memory_used_mib) {
      if (!std::isnan(m)) memory_max_gib = std::max(memory_max_gib, m / kMibPerGib);
    }
  }

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n",
      kWidth, kHeight);
  const std::string title = "gpulint watch: " + command_line(trace.command);
  svg += fmt::format("<title>{}</title>\n", svg_escape(title));
  svg += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", kWidth, kHeight);
  svg +=
      fmt::format("<text x=\"{}\" y=\"22\" {}>{}</text>\n", kLeft, kTitleFont, svg_escape(title));
  double line_y = 40;
  for (const Diagnosis& d : diagnoses) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" {}>GPU {}: {}: {}</text>\n", kLeft, line_y, kFont,
                       d.gpu_index, shape_name(d.shape), svg_escape(d.summary));
    line_y += 14;
    for (const IdleSegment& idle : d.idle) {
      svg += fmt::format("<text x=\"{}\" y=\"{}\" {}>GPU {}: {}</text>\n", kLeft, line_y, kFont,
                         d.gpu_index, svg_escape(describe(idle)));
      line_y += 14;
    }
  }

  // Grid and the two vertical axes.
  svg += "<g class=\"axes\" stroke=\"#888\" stroke-width=\"1\">\n";
  svg +=
      fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", kLeft, kBottom, kRight);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", kLeft, kTop, kBottom);
  svg +=
      fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", kRight, kTop, kBottom);
  svg += "</g>\n";

  svg += "<g class=\"y-ticks\" text-anchor=\"end\">\n";
  for (int p = 0; p <= 100; p += 25) {
    const double y = kBottom - (kBottom - kTop) * p / 100.0;
    svg += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n",
                       kLeft, y, kRight, y);
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" {}>{}%</text>\n", kLeft - 6, y + 4, kFont, p);
  }
  svg += "</g>\n";

  // The right axis ends on a tick, so its top is labelled.
  const double memory_step = nice_tick_step(memory_max_gib, 4);
  memory_max_gib = memory_step * std::ceil(memory_max_gib / memory_step - 1e-9);
  svg += "<g class=\"memory-ticks\" text-anchor=\"start\">\n";
  for (double m = 0; m <= memory_max_gib + 1e-9; m += memory_step) {
    const double y = kBottom - (kBottom - kTop) * m / memory_max_gib;
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" {}>{} GiB</text>\n", kRight + 6, y + 4, kFont,
                       tick_label(m, memory_step));
  }
  svg += "</g>\n";

  const double time_step = nice_tick_step(t_max_s, 10);
  svg += "<g class=\"time-ticks\" text-anchor=\"middle\">\n";
  for (double t = 0; t <= t_max_s + 1e-9; t += time_step) {
    const double x = kLeft + (kRight - kLeft) * t / t_max_s;
    svg +=
        fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#888\"/>\n",
                    x, kBottom, kBottom + 5);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" {}>{}</text>\n", x, kBottom + 18, kFont,
                       tick_label(t, time_step));
  }
  svg += "</g>\n";
  svg += fmt::format("<text x=\"{}\" y=\"{}\" {} text-anchor=\"middle\">time (s)</text>\n",
                     (kLeft + kRight) / 2, kBottom + 36, kFont);
  svg += fmt::format(
      "<text {} text-anchor=\"middle\" transform=\"translate(18 {}) rotate(-90)\">GPU "
      "utilisation</text>\n",
      kFont, (kTop + kBottom) / 2);
  svg += fmt::format(
      "<text {} text-anchor=\"middle\" transform=\"translate({} {}) rotate(90)\">memory in "
      "use</text>\n",
      kFont, kWidth - 12, (kTop + kBottom) / 2);

  // Series, then the legend along the bottom.
  svg += "<g class=\"series\" fill=\"none\" stroke-width=\"1.5\">\n";
  for (size_t g = 0; g < trace.gpus.size(); ++g) {
    const GpuSeries& gpu = trace.gpus[g];
    const char* colour = kColours[g % std::size(kColours)];
    svg += series_path(trace.t_ms, gpu.utilization_percent, t_max_s, 100,
                       fmt::format("class=\"utilization\" stroke=\"{}\"", colour));
    std::vector<double> gib;
    for (double m : gpu.memory_used_mib) gib.push_back(m / kMibPerGib);
    svg += series_path(trace.t_ms, gib, t_max_s, memory_max_gib,
                       fmt::format("class=\"memory\" stroke=\"{}\" stroke-dasharray=\"6 3\" "
                                   "stroke-opacity=\"0.6\"",
                                   colour));
  }
  svg += "</g>\n";

  svg += "<g class=\"legend\">\n";
  double x = kLeft;
  const double y = kHeight - 14;
  for (size_t g = 0; g < trace.gpus.size(); ++g) {
    const GpuSeries& gpu = trace.gpus[g];
    const char* colour = kColours[g % std::size(kColours)];
    for (const bool memory : {false, true}) {
      svg += fmt::format(
          "<line x1=\"{:.0f}\" y1=\"{}\" x2=\"{:.0f}\" y2=\"{}\" stroke=\"{}\" "
          "stroke-width=\"2\"{}/>\n",
          x, y - 4, x + 24, y - 4, colour,
          memory ? " stroke-dasharray=\"6 3\" stroke-opacity=\"0.6\"" : "");
      const std::string label = fmt::format("GPU {} {} {}", gpu.index, svg_escape(gpu.name),
                                            memory ? "memory in use (GiB)" : "utilisation (%)");
      svg += fmt::format("<text x=\"{:.0f}\" y=\"{}\" {}>{}</text>\n", x + 30, y, kFont, label);
      x += 40 + 7.0 * static_cast<double>(label.size());
    }
  }
  svg += "</g>\n</svg>\n";
  return svg;
}

}  // namespace gpulint::system
