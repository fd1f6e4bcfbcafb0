// The configuration's buckets and over-long input settings checked against
// the model (its manifest), before anything is served or replayed.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "config.h"
#include "qinfer/executor/model_manifest.h"

namespace qinfer::app {

// Bucket bounds from the config, defaulting to powers of two up to
// max_tokens; checked against the model's max_tokens.
absl::StatusOr<std::vector<int>> BucketBounds(const Config& config, const executor::ModelManifest& manifest);

// The over-long input settings (admission.*, long_lane.*) against the model
// and the longest bucket: chunk needs task embed or tokens and an overlap below
// max_tokens; a long lane needs a fallback device and a model whose
// positions reach long_lane.max_tokens. Errors say which key to change.
absl::Status CheckAdmission(const Config& config, const executor::ModelManifest& manifest, int max_tokens);

// `qinfer replay --policy chunk` against the model of `config` (model.path,
// when the configuration names one, and its manifest): refused, naming the
// task, when the model's task is classify or rerank (no library defines
// chunk for them). OK for any other policy, and when no manifest can be read
// (the service's admission then says the same for each job).
absl::Status CheckReplayPolicy(const Config& config, const std::string& policy);

}  // namespace qinfer::app
