// The model and its tokenizer, loaded as configured: shared by `serve` and
// `plan`.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "config.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/image/processor.h"
#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::app {

// Whether the configuration runs what the primary device cannot on the CPU
// (model.fallback_device cpu, or auto with a primary device other than the
// CPU).
bool FallsBackToCpu(const Config& config);

// The runner's options as configured (device, fallback, autocast, CUDA
// caps): a pure translation, beside the serve_options.h ones because it
// needs the executor's size parser. Errors name memory.cuda_budget.
absl::StatusOr<executor::RunnerOptions> RunnerOptionsFrom(const Config& config);

// The runner as configured (RunnerOptionsFrom), loaded.
absl::StatusOr<std::unique_ptr<executor::TorchModelRunner>> LoadRunner(const Config& config);

// The model's tokenizer when its manifest names one (nullptr when it names
// none: the model takes input_ids only), checked against the model: its ids
// must lie in the model's vocabulary, and a chunk window must have room for
// admission.chunk_overlap tokens beside the special tokens. Errors name the
// file, or the key to change.
absl::StatusOr<std::unique_ptr<tokenizer::Tokenizer>> LoadTokenizer(const Config& config,
                                                                    const executor::ModelManifest& manifest,
                                                                    int max_tokens);

// The model's image processor when its manifest has an image tower
// (nullptr when not: the model takes no images), read from the file the
// manifest names; and each of inputs.image_roots an existing directory.
// Errors name the file or the key.
absl::StatusOr<std::unique_ptr<image::ImageProcessor>> LoadImageProcessor(const Config& config,
                                                                          const executor::ModelManifest& manifest);

}  // namespace qinfer::app
