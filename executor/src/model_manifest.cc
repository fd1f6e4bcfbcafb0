#include "qinfer/executor/model_manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace qinfer::executor {
namespace {

constexpr const char* kPackageKeys[] = {"cpu/float32",  "cpu/bfloat16",  "cpu/float16",
                                        "cuda/float32", "cuda/bfloat16", "cuda/float16"};

// The aoti fields: `packages` (each key one of kPackageKeys, each value
// {"file", "digest"[, "cpu_capability", "threads", "inductor"]}) and
// `max_batch`. Throws nlohmann::json::exception for a
// field of the wrong type.
absl::Status ReadPackages(const nlohmann::json& j, const std::string& path, ModelManifest& m) {
  const std::string where = "model manifest " + path + ": ";
  if (!j.contains("max_batch") || !j.at("max_batch").is_number_integer() || j.at("max_batch").get<int64_t>() < 1) {
    return absl::InvalidArgumentError(where +
                                      "an aoti export needs max_batch (a positive integer: the batch bound the "
                                      "packages were compiled for)");
  }
  m.max_batch = j.at("max_batch").get<int>();
  if (!j.contains("packages") || !j.at("packages").is_object() || j.at("packages").empty()) {
    return absl::InvalidArgumentError(where + "an aoti export needs a packages object, e.g. {\"cpu/float32\": "
                                      "{\"file\": \"model-cpu-float32.pt2\", \"digest\": \"sha256:...\"}}");
  }
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (const auto& [key, entry] : j.at("packages").items()) {
    if (std::find(std::begin(kPackageKeys), std::end(kPackageKeys), key) == std::end(kPackageKeys)) {
      return absl::InvalidArgumentError(where + "packages key '" + key +
                                        "': expected <device kind>/<dtype> with kind cpu or cuda and dtype "
                                        "float32, bfloat16 or float16");
    }
    const std::string file = entry.at("file").get<std::string>();
    const std::string digest = entry.at("digest").get<std::string>();
    if (file.empty() || digest.rfind("sha256:", 0) != 0) {
      return absl::InvalidArgumentError(where + "packages." + key + " needs a file name and a sha256: digest");
    }
    const std::filesystem::path f(file);
    ModelManifest::Package& p = m.packages[key];
    p.path = f.is_absolute() ? file : (dir / f).string();
    p.digest = digest;
    p.cpu_capability = entry.value("cpu_capability", std::string());
    p.threads = entry.value("threads", 0);
    if (entry.contains("threads") && p.threads < 1) {
      return absl::InvalidArgumentError(where + "packages." + key + ".threads must be a positive integer");
    }
    if (entry.contains("inductor")) p.inductor = entry.at("inductor").dump();
  }
  if (m.packages.count("cpu/float32") == 0) {
    return absl::InvalidArgumentError(where +
                                      "an aoti export needs a cpu/float32 package (model.path names it; the "
                                      "fallback and device overrides run it)");
  }
  return absl::OkStatus();
}

// The task fields (see ModelManifest::task). Throws nlohmann::json::exception
// for a field of the wrong type.
absl::Status ReadTask(const nlohmann::json& j, const std::string& path, ModelManifest& m) {
  const std::string where = "model manifest " + path + ": ";
  TaskSpec& t = m.task;
  t.task = j.value("task", std::string(task::kEmbed));
  if (!IsTask(t.task)) {
    return absl::InvalidArgumentError(where + "task '" + t.task +
                                      "' is not one of embed, classify, rerank, tokens, sparse, token_embed, "
                                      "zero_shot");
  }
  t.labels = j.value("labels", std::vector<std::string>());
  t.activation = j.value("activation", std::string(t.pools() || t.task == task::kTokenEmbed ? activation::kNone
                                                   : t.task == task::kRerank ? activation::kSigmoid
                                                                             : activation::kSoftmax));
  if (t.task == task::kZeroShot && j.contains("zero_shot")) {
    t.activation = j.at("zero_shot").value("activation", std::string(activation::kSoftmax));
  }
  t.pairs = j.value("pairs", t.task == task::kClassify || t.task == task::kRerank);
  const auto inputs = j.value("inputs", std::vector<std::string>{"input_ids", "attention_mask"});
  const std::vector<std::string> two{"input_ids", "attention_mask"};
  const std::vector<std::string> three{"input_ids", "attention_mask", "token_type_ids"};
  const std::vector<std::string> pixels{"pixel_values"};
  if (inputs != two && inputs != three && inputs != pixels) {
    return absl::InvalidArgumentError(where +
                                      "inputs must be [input_ids, attention_mask], [input_ids, attention_mask, "
                                      "token_type_ids] or [pixel_values] (the model's forward arguments, in order)");
  }
  t.type_ids = inputs == three;
  m.takes_tokens = inputs != pixels;
  if (!m.takes_tokens && !j.contains("image")) {
    return absl::InvalidArgumentError(where + "inputs [pixel_values] needs the `image` object (its processor and "
                                      "pixel size)");
  }
  const std::string expected_output = t.pools()                     ? "pooled"
                                      : t.task == task::kTokens     ? "token_logits"
                                      : t.task == task::kTokenEmbed ? "token_embeddings"
                                                                : "logits";
  if (m.output != expected_output) {
    return absl::InvalidArgumentError(where + "output '" + m.output + "' does not fit task " + t.task +
                                      " (expected '" + expected_output + "')");
  }
  if (absl::Status s = t.Check(m.dim); !s.ok()) return absl::InvalidArgumentError(where + std::string(s.message()));
  return absl::OkStatus();
}

// The prompts (see ModelManifest::prompts): an object of strings, for an
// embed model; default_prompt_name one of its names. Throws
// nlohmann::json::exception for a field of the wrong type.
absl::Status ReadPrompts(const nlohmann::json& j, const std::string& path, ModelManifest& m) {
  const std::string where = "model manifest " + path + ": ";
  if (j.contains("prompts") && !j.at("prompts").is_null()) {
    if (!j.at("prompts").is_object()) {
      return absl::InvalidArgumentError(where + "prompts must be an object of name: prompt strings");
    }
    m.prompts = j.at("prompts").get<std::map<std::string, std::string>>();
  }
  if (j.contains("default_prompt_name") && !j.at("default_prompt_name").is_null()) {
    m.default_prompt_name = j.at("default_prompt_name").get<std::string>();
    if (m.prompts.count(m.default_prompt_name) == 0) {
      return absl::InvalidArgumentError(where + "default_prompt_name '" + m.default_prompt_name +
                                        "' is not one of its prompts");
    }
  }
  m.include_prompt = j.value("include_prompt", true);
  if (!m.include_prompt) {
    m.prompt_lengths = j.value("prompt_lengths", std::map<std::string, int>());
    for (const auto& [name, prompt] : m.prompts) {
      auto it = m.prompt_lengths.find(name);
      if (!prompt.empty() && (it == m.prompt_lengths.end() || it->second < 1)) {
        return absl::InvalidArgumentError(where + "include_prompt is false, so prompt_lengths needs a positive "
                                          "length for the prompt '" + name + "' (its tokens left out of pooling)");
      }
    }
  }
  if (!m.prompts.empty() && m.task.task != task::kEmbed) {
    return absl::InvalidArgumentError(where + "prompts are for an embed model (sentence-transformers' encode); "
                                      "this model's task is " + m.task.task);
  }
  return absl::OkStatus();
}

// The `image` object (see ModelManifest::Image); every key known, else
// refused by name. Throws nlohmann::json::exception for a field of the
// wrong type.
absl::Status ReadImage(const nlohmann::json& j, const std::string& path, ModelManifest& m) {
  const std::string where = "model manifest " + path + ": image.";
  const nlohmann::json& o = j.at("image");
  if (!o.is_object()) return absl::InvalidArgumentError(where.substr(0, where.size() - 1) + " must be an object");
  static constexpr const char* kKeys[] = {"processor", "processor_class", "height", "width",
                                          "method",    "length",          "checked_against"};
  for (const auto& [key, value] : o.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return absl::InvalidArgumentError(where + key + " is not a field of `image` (processor, processor_class, "
                                        "height, width, method, length, checked_against)");
    }
  }
  ModelManifest::Image image;
  const std::string processor = o.at("processor").get<std::string>();
  const std::filesystem::path file(processor);
  image.processor_path =
      file.is_absolute() ? processor : (std::filesystem::path(path).parent_path() / file).string();
  image.processor_class = o.value("processor_class", std::string());
  image.height = o.at("height").get<int>();
  image.width = o.at("width").get<int>();
  image.method = o.value("method", std::string("forward"));
  image.length = o.at("length").get<int>();
  image.checked_against = o.value("checked_against", std::string());
  if (image.height < 1 || image.width < 1 || image.height > 8192 || image.width > 8192) {
    return absl::InvalidArgumentError(where + "height and width must be in [1, 8192]");
  }
  if (image.length < 1) return absl::InvalidArgumentError(where + "length must be a positive integer");
  if (image.method != "forward" && image.method != "encode_image") {
    return absl::InvalidArgumentError(where + "method '" + image.method + "' is not forward or encode_image");
  }
  if (image.method == "forward" && m.takes_tokens) {
    return absl::InvalidArgumentError(where + "method forward is the text tower's here (inputs " +
                                      "[input_ids, ...]): a two-tower model's image method is encode_image");
  }
  if (m.format != "torchscript") {
    return absl::UnimplementedError(where.substr(0, where.size() - 1) + ": an image model is served from a "
                                    "TorchScript export (format torchscript), not " + m.format);
  }
  m.image = std::move(image);
  return absl::OkStatus();
}

// The `zero_shot` object (see ModelManifest::ZeroShot), for task zero_shot.
absl::Status ReadZeroShot(const nlohmann::json& j, const std::string& path, ModelManifest& m) {
  const std::string where = "model manifest " + path + ": ";
  if (m.task.task != task::kZeroShot) {
    if (j.contains("zero_shot")) {
      return absl::InvalidArgumentError(where + "zero_shot is for task zero_shot, not " + m.task.task);
    }
    return absl::OkStatus();
  }
  if (!j.contains("zero_shot") || !m.image || !m.takes_tokens || m.tokenizer_path.empty()) {
    return absl::InvalidArgumentError(where + "task zero_shot needs a text tower with its tokenizer, an `image` "
                                      "object and the `zero_shot` object");
  }
  const nlohmann::json& o = j.at("zero_shot");
  static constexpr const char* kKeys[] = {"logit_scale",   "logit_bias",   "activation",
                                          "hypothesis_template", "text_padding", "text_max_length"};
  for (const auto& [key, value] : o.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return absl::InvalidArgumentError(where + "zero_shot." + key + " is not a field of `zero_shot`");
    }
  }
  ModelManifest::ZeroShot z;
  z.logit_scale = o.at("logit_scale").get<double>();
  z.logit_bias = o.value("logit_bias", 0.0);
  z.hypothesis_template = o.value("hypothesis_template", z.hypothesis_template);
  z.text_padding = o.value("text_padding", z.text_padding);
  z.text_max_length = o.value("text_max_length", 0);
  if (z.hypothesis_template.find("{}") == std::string::npos) {
    return absl::InvalidArgumentError(where + "zero_shot.hypothesis_template must hold {} (where the label goes)");
  }
  if (z.text_padding != "longest" && !(z.text_padding == "max_length" && z.text_max_length > 0)) {
    return absl::InvalidArgumentError(where + "zero_shot.text_padding must be longest, or max_length with a "
                                      "positive text_max_length");
  }
  m.zero_shot = std::move(z);
  return absl::OkStatus();
}

}  // namespace

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
    m.vocab_size = j.value("vocab_size", int64_t{0});
    m.max_tokens = j.value("max_tokens", 0);
    m.max_positions = j.value("max_positions", m.max_tokens);
    m.dim = j.value("dim", 0);
    m.output = j.value("output", std::string("pooled"));
    m.format = j.value("format", std::string("torchscript"));
    m.torch_version = j.value("torch_version", std::string());
    m.normalized = j.value("normalized", false);
    m.end_token_id = j.value("end_token_id", int64_t{-1});
    const std::string tokenizer = j.value("tokenizer", std::string());
    if (!tokenizer.empty()) {
      const std::filesystem::path file(tokenizer);
      m.tokenizer_path = file.is_absolute() ? tokenizer : (std::filesystem::path(path).parent_path() / file).string();
    }
    if (m.format == "aoti") {
      if (absl::Status s = ReadPackages(j, path, m); !s.ok()) return s;
    }
    if (absl::Status s = ReadTask(j, path, m); !s.ok()) return s;
    m.max_text_tokens = m.max_tokens;
    if (j.contains("image")) {
      if (absl::Status s = ReadImage(j, path, m); !s.ok()) return s;
      // Every image job is image.length long: the buckets reach it, while
      // a text stays within its tower's max_text_tokens.
      m.max_text_tokens = m.takes_tokens ? m.max_tokens : 0;
      m.max_tokens = std::max(m.max_tokens, m.image->length);
      m.max_positions = std::max(m.max_positions, m.image->length);
    }
    if (absl::Status s = ReadZeroShot(j, path, m); !s.ok()) return s;
    if (absl::Status s = ReadPrompts(j, path, m); !s.ok()) return s;
    if (j.contains("int8_ranges") && !j.at("int8_ranges").is_null()) {
      auto ranges = QuantizationRangesFromJson(j.at("int8_ranges").dump(), "model manifest " + path + ": int8_ranges");
      if (!ranges.ok()) return ranges.status();
      m.int8_ranges = *std::move(ranges);
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError("model manifest " + path + ": " + e.what());
  }
  if ((m.takes_tokens && m.vocab_size <= 0) || m.max_tokens <= 0) {
    return absl::InvalidArgumentError("model manifest " + path + ": vocab_size and max_tokens must be positive");
  }
  if (m.max_positions < m.max_tokens) {
    return absl::InvalidArgumentError(
        "model manifest " + path + ": max_positions " + std::to_string(m.max_positions) + " is below max_tokens " +
        std::to_string(m.max_tokens) +
        ": the model must accept every length it serves; set max_positions >= max_tokens, "
        "or drop it (default: max_tokens)");
  }
  if (m.format != "torchscript" && m.format != "aoti") {
    return absl::UnimplementedError("model manifest " + path + ": format '" + m.format +
                                    "' is not supported (expected 'torchscript' or 'aoti')");
  }
  if (m.end_token_id >= m.vocab_size) {
    return absl::InvalidArgumentError("model manifest " + path + ": end_token_id " + std::to_string(m.end_token_id) +
                                      " is outside the vocabulary [0, " + std::to_string(m.vocab_size) + ")");
  }
  return m;
}

}  // namespace qinfer::executor
