#include "analyzer/core/diagnostic.h"

#include <tuple>

namespace gpulint {

bool diagnostic_less(const Diagnostic& a, const Diagnostic& b) {
  return std::tie(a.location.path, a.location.start.line, a.location.start.column, a.code,
                  a.message) < std::tie(b.location.path, b.location.start.line,
                                        b.location.start.column, b.code, b.message);
}

}  // namespace gpulint
