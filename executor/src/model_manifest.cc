#include "qinfer/executor/model_manifest.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace qinfer::executor {

absl::StatusOr<ModelManifest> ModelManifest::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot open model manifest " + path);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError("model manifest " + path + " is not a JSON object");
  }
  ModelManifest m;
  try {
    m.name = j.value("name", std::string("model"));
    m.digest = j.value("digest", std::string());
    m.vocab_size = j.at("vocab_size").get<int64_t>();
    m.max_tokens = j.at("max_tokens").get<int>();
    m.max_positions = j.value("max_positions", m.max_tokens);
    m.dim = j.value("dim", 0);
    m.output = j.value("output", std::string("pooled"));
    m.format = j.value("format", std::string("torchscript"));
    m.normalized = j.value("normalized", false);
    m.end_token_id = j.value("end_token_id", int64_t{-1});
    const std::string tokenizer = j.value("tokenizer", std::string());
    if (!tokenizer.empty()) {
      const std::filesystem::path file(tokenizer);
      m.tokenizer_path = file.is_absolute() ? tokenizer : (std::filesystem::path(path).parent_path() / file).string();
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError("model manifest " + path + ": " + e.what());
  }
  if (m.vocab_size <= 0 || m.max_tokens <= 0) {
    return absl::InvalidArgumentError("model manifest " + path + ": vocab_size and max_tokens must be positive");
  }
  if (m.max_positions < m.max_tokens) {
    return absl::InvalidArgumentError(
        "model manifest " + path + ": max_positions " + std::to_string(m.max_positions) + " is below max_tokens " +
        std::to_string(m.max_tokens) +
        ": the model must accept every length it serves; set max_positions >= max_tokens, "
        "or drop it (default: max_tokens)");
  }
  if (m.format != "torchscript") {
    return absl::UnimplementedError("model manifest " + path + ": format '" + m.format +
                                    "' is not supported (only 'torchscript')");
  }
  if (m.end_token_id >= m.vocab_size) {
    return absl::InvalidArgumentError("model manifest " + path + ": end_token_id " + std::to_string(m.end_token_id) +
                                      " is outside the vocabulary [0, " + std::to_string(m.vocab_size) + ")");
  }
  if (m.output != "pooled") {
    return absl::UnimplementedError("model manifest " + path + ": output '" + m.output +
                                    "' is not supported (only 'pooled')");
  }
  return m;
}

}  // namespace qinfer::executor
