#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/cost.h"
#include "analyzer/core/source_file.h"
#include "analyzer/core/span.h"

namespace gpulint {

enum class Severity { Error, Warning };
enum class Applicability { Safe, Unsafe };

struct Edit {
  Span span;
  std::string replacement;
  // Resolved by the engine from `span`, for reporters that address edits by line and column
  // (SARIF `fixes`); rules leave them unset.
  Position start = {};
  Position end = {};
};

struct Fix {
  std::string message;
  Applicability applicability = Applicability::Safe;
  std::vector<Edit> edits;
};

// A location in a file, resolved for output: 1-based, end exclusive as in LSP and Ruff.
struct Location {
  std::string path;
  Span span;
  Position start;
  Position end;

  friend bool operator==(const Location&, const Location&) = default;
};

// Another place that explains a finding, e.g. the call site that makes a helper per-step.
struct Related {
  Location location;
  std::string message;
};

struct Diagnostic {
  std::string code;
  std::string name;
  Severity severity = Severity::Warning;
  std::string message;
  std::string help;  // the one-line fix hint
  Location location;
  std::string source_line;  // the first line of the span, for reporters that show it
  std::vector<Related> related;
  std::optional<Fix> fix;
  std::optional<Cost> cost;                                 // set only by `gpulint verify`
  std::optional<Observed> observed;                         // set only by `gpulint profile`
  std::vector<std::pair<std::string, int64_t>> parameters;  // Finding::parameters
};

// The order every output uses: path, line, column, code.
bool diagnostic_less(const Diagnostic& a, const Diagnostic& b);

}  // namespace gpulint
