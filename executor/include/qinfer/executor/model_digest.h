// The digest of a model file, as its manifest states it: "sha256:<hex>"
// (model/qinfer_model.py's write_manifest computes the same).
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace qinfer::executor {

// "sha256:<64 lowercase hex digits>" of the bytes of `path`, read once.
// Errors: NotFound when the file cannot be opened, DataLoss on a read error;
// both name the file. Thread-safe.
absl::StatusOr<std::string> FileDigest(const std::string& path);

}  // namespace qinfer::executor
