#pragma once

// What analysing one file yields: its diagnostics, or why it could not be analysed, and the
// links the cross-module pass follows. The result cache stores exactly this.

#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/diagnostic.h"
#include "analyzer/core/step_model.h"

namespace gpulint {

struct FileError {
  std::string path;
  std::string message;
  bool skipped = false;  // over the size limit: said in a note, not an error of the run
};

// What a file's step loops reach in other modules, for the linker.
struct Links {
  struct Call {
    std::string module;  // as the file imports it
    ExternalCaller caller;
  };
  struct LoaderUse {
    std::string module;
    std::string function;
  };
  // A module-level function's parameter that a step loop of this file iterates.
  struct LoaderParameter {
    std::string function;
    int32_t position = -1;
    std::string name;
  };
  // A call of an imported function outside any known step loop (by offset): if the callee
  // reaches a backward, the call is a step event here, and its loop may be a step loop.
  struct Probe {
    std::string module;
    std::string function;
    uint32_t at = 0;
  };
  std::vector<Call> calls;  // per-step calls of imported functions
  std::vector<Probe> probes;
  std::vector<LoaderUse> loader_uses;  // imported functions whose result a step loop iterates
  std::vector<LoaderParameter> loader_parameters;
  std::vector<ArgumentFlow> argument_flows;        // imported results handed to imported functions
  std::vector<HandedArgument> handed_arguments;    // its loaders and models handed to them
  bool cuda = false;                               // the file runs on a CUDA device
  std::vector<ImportedConstant> wanted_constants;  // other modules' constants it reads
  std::vector<std::pair<std::string, int64_t>> constants;  // its own, for the files that import it
  std::vector<std::string> training_functions;             // StepModel::training_functions
  std::vector<std::string> device_functions;               // StepModel::device_functions
  std::vector<ImportedConstant> device_calls;              // StepModel::device_calls
  std::vector<std::string> unwrapping_functions;           // StepModel::unwrapping_functions
  std::vector<ImportedConstant> collate_calls;             // StepModel::collate_calls
  std::vector<std::string> host_functions;                 // StepModel::host_functions
  std::vector<ImportedConstant> host_calls;                // StepModel::host_calls
  std::vector<std::string> placed_functions;               // StepModel::placed_functions
  std::vector<ImportedConstant> model_calls;               // StepModel::model_calls
};

struct FileOutcome {
  std::vector<Diagnostic> diagnostics;
  std::optional<FileError> error;
  Links links;
};

}  // namespace gpulint
