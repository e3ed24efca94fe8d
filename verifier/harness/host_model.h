#pragma once

// What a call costs the host when a PyTorch program makes it: Python, the dispatcher, the
// caching allocator, on top of the CUDA call underneath. Where the cost of a pattern lives on
// the host (launch-bound steps, a sync, a nonzero, a small batch), raw CUDA measures something
// cheaper than what a PyTorch user pays, so the experiments add the difference, measured:
// when the local Python has torch and sees the GPU, a probe times each call through it; the
// experiments time the raw CUDA counterpart and spin the host for the rest. Without torch the
// figures are raw CUDA, and the report says so and why.

#include <string>
#include <string_view>
#include <vector>

#include "verifier/harness/params.h"

namespace gpulint::verifier {

struct HostModel {
  std::string source = "cuda";  // "torch": the per-call times below were measured; "cuda": none
  std::string detail;           // torch: "torch 2.11.0 through python3"; cuda: why not torch
  // Host time of one call, in microseconds (0 when source is "cuda").
  double launch_us = 0;       // an op that launches one kernel (torch.cuda._sleep(0)), async
  double item_us = 0;         // .item() of a ready one-element CUDA tensor, GPU idle
  double synchronize_us = 0;  // torch.cuda.synchronize(), GPU idle
  double print_us = 0;        // an f-string log line printed and flushed to /dev/null
  double module_us = 0;       // a Linear + ReLU pair of 8 in a Sequential, 1024 wide, batch 1
  double alloc_us = 0;        // torch.empty of a 38.5 MB batch from the caching allocator + free
  // torch.mm of placement's FP32 GEMM on every CPU core, ms per sample, in the order taken;
  // empty without torch or without placement.
  std::vector<double> cpu_gemm_ms;
  // torch.randn of a fresh CPU tensor of placement's batch, ms per sample; empty likewise.
  std::vector<double> cpu_randn_ms;

  bool measured() const { return source == "torch"; }
};

// The probe run through Python: prints one JSON object, {"torch": VERSION, "figures": {...}}
// or {"error": WHY}.
std::string_view torch_probe_source();

// Reads the probe's output. Throws std::runtime_error when it is not the probe's JSON or the
// probe said why it could not measure.
HostModel host_model_from_probe(std::string_view output, std::string_view python);

// What the probe times on the CPU besides the per-call figures; zeros: nothing.
struct ProbeWork {
  GemmShape cpu_gemm;
  int64_t randn_elements = 0;
};

// Runs the probe with `python` (a name looked up on PATH, or a path), at most `timeout_s`
// seconds. Never throws: a failure gives the raw CUDA model with the reason in `detail`.
HostModel probe_host_model(const std::string& python, double timeout_s, const ProbeWork& work);

}  // namespace gpulint::verifier
