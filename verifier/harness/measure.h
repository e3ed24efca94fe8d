#pragma once

// Turning a sampled figure into a reported Measurement, and a time into a rate.

#include <functional>
#include <string>

#include "verifier/harness/report.h"
#include "verifier/harness/stable.h"

namespace gpulint::verifier {

Measurement measure(std::string id, std::string label, std::string unit,
                    const std::function<double()>& sample, const StableOptions& options);

// `amount` per sample over a time figure: GB/s from ms per copy, TFLOP/s from ms per GEMM.
// The quartiles swap because the rate falls as the time rises.
Measurement rate_of(const Measurement& time, double amount, std::string id, std::string label,
                    std::string unit);

}  // namespace gpulint::verifier
