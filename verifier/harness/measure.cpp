#include "verifier/harness/measure.h"

#include <utility>

namespace gpulint::verifier {

Measurement measure(std::string id, std::string label, std::string unit,
                    const std::function<double()>& sample, const StableOptions& options) {
  const StableResult r = measure_until_stable(sample, options);
  Measurement m;
  m.id = std::move(id);
  m.label = std::move(label);
  m.unit = std::move(unit);
  m.stats = r.summary;
  m.stable = r.stable;
  return m;
}

Measurement rate_of(const Measurement& time, double amount, std::string id, std::string label,
                    std::string unit) {
  Measurement m;
  m.id = std::move(id);
  m.label = std::move(label);
  m.unit = std::move(unit);
  m.higher_is_better = true;
  m.stable = time.stable;
  const Summary& t = time.stats;
  m.stats = {amount / t.median, amount / t.p75, amount / t.p25,
             amount / t.max,    amount / t.min, t.samples};
  return m;
}

}  // namespace gpulint::verifier
