#pragma once

// Traces as JSON: columns of whole numbers (milliseconds, percent, MiB, MHz) with null where a
// reading is missing, so a trace is small, diffable and reads back exactly as written.

#include <optional>
#include <string>
#include <string_view>

#include "watch/trace.h"

namespace gpulint::system {

constexpr std::string_view kTraceFormat = "gpulint-watch-trace";
constexpr int kTraceFormatVersion = 1;

std::string write_trace_json(const Trace& trace);

// Null, with the reason in *error, when the text is not a trace of this format.
std::optional<Trace> read_trace_json(std::string_view text, std::string* error);

}  // namespace gpulint::system
