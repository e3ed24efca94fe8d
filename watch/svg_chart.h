#pragma once

// The utilisation chart of a watched run as a standalone SVG file: a time axis with ticks,
// utilisation (left axis, percent) and memory in use (right axis, GiB) for every GPU, a legend,
// and the diagnosis under the title.

#include <string>
#include <string_view>
#include <vector>

#include "watch/classifier.h"
#include "watch/trace.h"

namespace gpulint::system {

std::string svg_chart(const Trace& trace, const std::vector<Diagnosis>& diagnoses);

// Text made safe for SVG's text and attribute values.
std::string svg_escape(std::string_view text);

// The tick step for an axis of `span` units with about `target` ticks: 1, 2 or 5 times a
// power of ten, so labels read as round numbers.
double nice_tick_step(double span, int target);

}  // namespace gpulint::system
