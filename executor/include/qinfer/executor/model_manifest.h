// The manifest that sits beside a model file (model/export_model.py writes
// it): what the executor and the validator need to know about the model.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace qinfer::executor {

struct ModelManifest {
  std::string name;
  std::string digest;  // "sha256:<hex>" of the model file
  int64_t vocab_size = 0;
  int max_tokens = 0;  // the longest input batched in a length bucket
  // The longest input the model's positions accept at all (>= max_tokens):
  // room above max_tokens is what a long lane may use. manifest.json field
  // `max_positions`; default: max_tokens.
  int max_positions = 0;
  int dim = 0;
  std::string output = "pooled";
  std::string format = "torchscript";

  // Reads and checks manifest.json; errors name the file and the field.
  static absl::StatusOr<ModelManifest> Load(const std::string& path);
};

}  // namespace qinfer::executor
