#include "model_load.h"

#include <filesystem>

#include "qinfer/core/logging.h"

namespace qinfer::app {

bool FallsBackToCpu(const Config& config) {
  return config.model.fallback_device == "cpu" ||
         (config.model.fallback_device == "auto" && config.model.device != "cpu");
}

absl::StatusOr<executor::RunnerOptions> RunnerOptionsFrom(const Config& config) {
  executor::RunnerOptions o;
  o.model_path = config.model.path;
  o.manifest_path = config.model.manifest;
  o.device = config.model.device;
  o.intra_op_threads = config.model.threads;
  o.mkl_dispatch = config.model.mkl_dispatch;
  o.autocast = config.model.autocast;
  o.op_libraries = config.model.op_libraries;
  if (FallsBackToCpu(config)) o.fallback_device = "cpu";
  o.cuda_memory_fraction = config.memory.cuda_memory_fraction;
  o.cap_margin = config.memory.margin;
  if (!config.memory.cuda_budget.empty()) {
    auto bytes = executor::ParseBytes(config.memory.cuda_budget);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError("memory.cuda_budget: " + std::string(bytes.status().message()));
    }
    o.cuda_budget_bytes = *bytes;
  }
  absl::StatusOr<int64_t> cache = ParseSizeOrZero(config.memory.cpu_block_cache);
  if (!cache.ok()) {
    return absl::InvalidArgumentError("memory.cpu_block_cache: " + std::string(cache.status().message()));
  }
  o.cpu_block_cache_bytes = *cache;
  return o;
}

absl::StatusOr<std::unique_ptr<executor::TorchModelRunner>> LoadRunner(const Config& config) {
  absl::StatusOr<executor::RunnerOptions> options = RunnerOptionsFrom(config);
  if (!options.ok()) return options.status();
  return executor::TorchModelRunner::Load(*options);
}

absl::StatusOr<std::unique_ptr<tokenizer::Tokenizer>> LoadTokenizer(const Config& config,
                                                                    const executor::ModelManifest& manifest,
                                                                    int max_tokens) {
  if (manifest.tokenizer_path.empty()) return std::unique_ptr<tokenizer::Tokenizer>();
  auto loaded = tokenizer::Tokenizer::Load(manifest.tokenizer_path);
  if (!loaded.ok()) {
    return absl::InvalidArgumentError("the model manifest's tokenizer: " + std::string(loaded.status().message()));
  }
  const tokenizer::Tokenizer& t = **loaded;
  if (t.vocab_size() > size_t(manifest.vocab_size)) {
    return absl::InvalidArgumentError("tokenizer " + manifest.tokenizer_path + " has " +
                                      std::to_string(t.vocab_size()) + " tokens, more than the model's vocab_size " +
                                      std::to_string(manifest.vocab_size) + ": not this model's tokenizer?");
  }
  const size_t room = size_t(max_tokens) > t.added_tokens() ? size_t(max_tokens) - t.added_tokens() : 0;
  if (room == 0) {
    return absl::InvalidArgumentError("max_tokens " + std::to_string(max_tokens) + " leaves no room beside the " +
                                      std::to_string(t.added_tokens()) + " special tokens of tokenizer " +
                                      manifest.tokenizer_path + ": raise scheduler.max_tokens");
  }
  if (config.admission.too_long == "chunk" && size_t(config.admission.chunk_overlap) >= room) {
    return absl::InvalidArgumentError("admission.chunk_overlap=" + std::to_string(config.admission.chunk_overlap) +
                                      " must be below " + std::to_string(room) + ": a text's window holds max_tokens " +
                                      std::to_string(max_tokens) + " less its " + std::to_string(t.added_tokens()) +
                                      " special tokens");
  }
  return loaded;
}

absl::StatusOr<std::unique_ptr<image::ImageProcessor>> LoadImageProcessor(const Config& config,
                                                                          const executor::ModelManifest& manifest) {
  for (const std::string& root : config.inputs.image_roots) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) {
      return absl::InvalidArgumentError("inputs.image_roots: " + root + " is not a directory");
    }
  }
  if (!manifest.image) return std::unique_ptr<image::ImageProcessor>();
  absl::StatusOr<image::ImageProcessor> processor = image::ImageProcessor::FromFile(manifest.image->processor_path);
  if (!processor.ok()) {
    return absl::InvalidArgumentError("model manifest image.processor " + manifest.image->processor_path + ": " +
                                      std::string(processor.status().message()));
  }
  if (processor->out_height() != manifest.image->height || processor->out_width() != manifest.image->width) {
    return absl::InvalidArgumentError(
        "model manifest image.processor " + manifest.image->processor_path + " makes " +
        std::to_string(processor->out_height()) + "x" + std::to_string(processor->out_width()) +
        " pixel values, the manifest's image says " + std::to_string(manifest.image->height) + "x" +
        std::to_string(manifest.image->width));
  }
  Logger("app").Info("event=image_processor file=%v pixels=%vx%v length=%v method=%v checked_against=\"%v\"",
                     manifest.image->processor_path, manifest.image->height, manifest.image->width,
                     manifest.image->length, manifest.image->method, manifest.image->checked_against);
  return std::make_unique<image::ImageProcessor>(*std::move(processor));
}

}  // namespace qinfer::app
