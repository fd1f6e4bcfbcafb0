// The manifest that sits beside a model file (model/export_model.py writes
// it): what the executor and the validator need to know about the model.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "qinfer/core/output_encoding.h"
#include "qinfer/core/task.h"

namespace qinfer::executor {

struct ModelManifest {
  std::string name;
  std::string digest;  // "sha256:<hex>" of the model file
  int64_t vocab_size = 0;
  int max_tokens = 0;  // the longest input batched in a length bucket
  // The longest text the text tower takes in a bucket: max_tokens, unless
  // the model has an image tower whose image.length is longer (then
  // max_tokens is that, so that the buckets reach it); 0 for a vision-only
  // model.
  int max_text_tokens = 0;
  // The longest input the model's positions accept at all (>= max_tokens):
  // room above max_tokens is what a long lane may use. manifest.json field
  // `max_positions`; default: max_tokens.
  int max_positions = 0;
  int dim = 0;  // the output's width: the pooled vector's, or one per label
  // "pooled" (task embed) or "logits" (classify, rerank): one row per job;
  // "token_logits" (tokens): [B, L, dim], one row of dim per token.
  std::string output = "pooled";
  // The model's task and its inputs (manifest fields `task`, default embed;
  // `labels`; `activation`, default by task; `pairs`, default true for
  // classify and rerank; `inputs`, default [input_ids, attention_mask], with
  // token_type_ids the model's third input).
  TaskSpec task;
  // The model file's format: "torchscript" (model.path is a TorchScript
  // file) or "aoti" (AOTInductor packages, see `packages`); another is
  // refused by name at load.
  std::string format = "torchscript";
  // One AOTInductor package of an aoti export.
  struct Package {
    std::string path;    // manifest field `file`, resolved against the manifest's directory
    std::string digest;  // "sha256:<hex>" of that file
    // What a CPU package's compiled code was made for (model/aoti_export.py
    // writes both; empty / 0 when absent, e.g. a package check_model.py
    // took in, and then not checked): the CPU capability as CpuCapability()
    // names it, and the OpenMP threads Inductor wrote into its loops.
    std::string cpu_capability;
    int threads = 0;
    std::string inductor;  // the Inductor options it was compiled with, as JSON ("" when absent)
  };
  // aoti: the packages, keyed "<device kind>/<dtype>" (cpu or cuda;
  // float32, bfloat16 or float16), manifest field `packages`. model.path
  // names the cpu/float32 one, which every aoti export has. Empty for
  // torchscript.
  std::map<std::string, Package> packages;
  // aoti: the largest batch the packages were compiled for (manifest field
  // `max_batch`, required); 0 for torchscript: no bound.
  int max_batch = 0;
  // The torch version that exported the model (manifest field
  // `torch_version`; empty when absent). An aoti export is served only by
  // the same libtorch (TorchModelRunner::Load checks).
  std::string torch_version;
  // The outputs are unit-length vectors (manifest field `normalized`): a
  // result pooled from chunk windows is scaled back to unit length.
  bool normalized = false;
  // The model's own tokenizer: the path of its tokenizer.json (manifest
  // field `tokenizer`, a file name relative to the manifest's directory);
  // empty when the manifest names none, and the model takes input_ids only.
  std::string tokenizer_path;
  // The token that ends every sequence of that tokenizer ([SEP] for BERT;
  // manifest field `end_token_id`); -1 when not named. A truncated
  // input_ids job that ends with it keeps it.
  int64_t end_token_id = -1;
  // embed (a sentence-transformers model's prompts, manifest fields
  // `prompts` and `default_prompt_name`): each prompt by its name, joined
  // to a text job's text before tokenizing, as encode(prompt_name=...)
  // does; a job names one in `prompt_name`, and one without gets the
  // default's (none when default_prompt_name is empty). Empty: the model
  // has no prompts.
  std::map<std::string, std::string> prompts;
  std::string default_prompt_name;
  // Pooling's include_prompt (manifest fields `include_prompt`, default
  // true, and `prompt_lengths`): false leaves a prompted job's first
  // prompt_lengths[name] positions out of the pooled vector (the executor
  // marks them 2 in the attention mask; the exported model attends to them
  // and pools the positions marked 1). Every non-empty prompt has a length.
  bool include_prompt = true;
  std::map<std::string, int> prompt_lengths;
  // embed: the int8 / uint8 output encodings' calibration ranges (manifest
  // field `int8_ranges`, [[min, ...], [max, ...]]); none: those encodings
  // need output.int8_ranges.
  std::optional<QuantizationRanges> int8_ranges;
  // A model with an image tower (manifest object `image`): image jobs are
  // prepared by its image processor and run by `method`.
  struct Image {
    // The image processor's JSON (field `processor`, a file relative to the
    // manifest's directory: the checkpoint's preprocessor_config.json) and
    // its class, as the exporter read them.
    std::string processor_path;
    std::string processor_class;
    // The pixel_values shape every image becomes: [3, height, width].
    int height = 0;
    int width = 0;
    // The TorchScript method that takes pixel_values float32 [B, 3, H, W]
    // and returns [B, dim]: "forward" (a vision-only model) or
    // "encode_image" (a two-tower model, whose forward is the text tower).
    std::string method = "forward";
    // The sequence length the image tower runs (patches and class tokens):
    // an image job's length, for buckets and the memory plan.
    int length = 0;
    // What the exporter checked the preprocessing against (for /status).
    std::string checked_against;
  };
  std::optional<Image> image;
  // The model takes token jobs (`inputs` starts with input_ids): false for
  // a vision-only model (`inputs` [pixel_values]), whose vocab_size is 0.
  bool takes_tokens = true;
  // zero_shot (manifest object `zero_shot`): how the two towers' features
  // become a label's logit, as the zero-shot-image-classification pipeline
  // computes it: logit_scale * cos(image, text) + logit_bias, then the
  // task's activation over the labels (softmax for CLIP, sigmoid for
  // SigLIP). The labels are tokenized as hypothesis_template with the label
  // in place of {}, padded as text_padding says ("longest", or
  // "max_length" to text_max_length, as SigLIP's pipeline pads).
  struct ZeroShot {
    double logit_scale = 1;
    double logit_bias = 0;
    std::string hypothesis_template = "This is a photo of {}.";
    std::string text_padding = "longest";
    int text_max_length = 0;
  };
  std::optional<ZeroShot> zero_shot;

  // The longest text a bucket reaching `max_tokens` takes: a two-tower
  // model's text tower stops at its max_text_tokens.
  int TextTokensWithin(int max_tokens) const {
    return image && takes_tokens && max_text_tokens < max_tokens ? max_text_tokens : max_tokens;
  }

  // Reads and checks manifest.json; errors name the file and the field.
  static absl::StatusOr<ModelManifest> Load(const std::string& path);
};

}  // namespace qinfer::executor
