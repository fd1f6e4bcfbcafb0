// Loading, step 1 of 3: which files a runner loads, from the options alone
// (no device touched, no memory installed): the model file and its
// manifest, each checked against the other, the device and precision, and
// the package each device runs for an aoti export. Steps 2 (memory) and 3
// (the models) are TorchModelRunner::Load's. Private to executor/.
#pragma once

#include <c10/core/ScalarType.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/executor/device_memory.h"
#include "qinfer/executor/model_manifest.h"
#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::executor {

// The file a loaded model runs: the TorchScript model.path, or the aoti
// package chosen for a device kind and precision.
struct ModelFile {
  std::string path;
  std::string digest;  // the manifest's digest for it; checked on load (aoti)
  bool aoti = false;
};

// What Load resolved before it touches a device.
struct ResolvedModel {
  ModelManifest manifest;  // its digest: model.path's own
  DeviceSpec spec;
  std::optional<at::ScalarType> autocast;  // model.autocast
  ModelFile primary_file;                  // what the primary runs
  ModelFile cpu_file;                      // what the fallback and the device overrides run
};

// "float32", "bfloat16" or "float16".
std::string DtypeName(std::optional<at::ScalarType> precision);

// Resolves `options` (manifest_path filled in when empty). Every refusal
// names the key or file and what to do.
absl::StatusOr<ResolvedModel> ResolveModel(RunnerOptions& options);

// Loads the libraries that register custom ops; the model's code names those
// ops, so they must exist before the model loads. The handles are never
// closed: unloading would unregister ops that loaded models still call.
absl::Status LoadOpLibraries(const std::vector<std::string>& paths);

}  // namespace qinfer::executor
