#pragma once

// A hand-made verifier report for the CPU tests: figures chosen so costs are easy to check.

#include <string>

#include "verifier/harness/report.h"

namespace gpulint::verifier::testing {

inline Measurement figure(std::string id, std::string unit, double median, bool higher = false) {
  Measurement m;
  m.id = id;
  m.label = id;
  m.unit = std::move(unit);
  m.higher_is_better = higher;
  m.stats = {median, median * 0.99, median * 1.01, median * 0.98, median * 1.02, 9};
  m.stable = true;
  return m;
}

inline Report sample_report() {
  Report r;
  r.device.name = "NVIDIA Test GPU";
  r.device.cc_major = 9;
  r.device.sm_count = 132;
  r.device.memory_gib = 139.8;
  r.device.driver_version = "13.0";
  r.device.runtime_version = "13.0";
  r.device.driver_release = "580.159.04";
  r.device.sm_clock_max_mhz = 1980;
  r.device.mem_clock_max_mhz = 3201;
  r.device.clocks_start = {1980, 3201};
  r.device.cpu_threads = 16;
  r.device.cpu_gemm = "builtin";
  ExperimentResult sync;
  sync.name = "sync";
  sync.measurements = {
      figure("balanced.pipelined", "us/step", 80), figure("balanced.readback", "us/step", 100),
      figure("balanced.device_sync", "us/step", 110), figure("balanced.print", "us/step", 104)};
  sync.wall_s = 1.5;
  sync.host_load = {2.5, 0.25};
  ExperimentResult precision;
  precision.name = "precision";
  precision.measurements = {figure("gemm.fp32", "TFLOP/s", 50, true),
                            figure("gemm.tf32", "TFLOP/s", 300, true),
                            figure("gemm.bf16", "TFLOP/s", 600, true),
                            figure("gemm.fp16", "TFLOP/s", 610, true),
                            figure("gemm.bf16.k1001", "TFLOP/s", 200, true),
                            figure("gemm.bf16.k1008", "TFLOP/s", 400, true)};
  ExperimentResult transfer;
  transfer.name = "transfer";
  transfer.ok = false;
  transfer.error = "cudaErrorMemoryAllocation: out of memory";
  r.experiments = {sync, precision, transfer};
  r.wall_s = 3.25;
  return r;
}

}  // namespace gpulint::verifier::testing
