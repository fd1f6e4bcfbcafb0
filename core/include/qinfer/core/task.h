// The model's task (DESIGN.md, "Tasks"): what a result holds beside the
// model's raw output, and which inputs a job may carry. The manifest names
// the task; the exporter (model/export_hf.py) reads it from the checkpoint
// as the model's library would.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "qinfer/core/job.h"

namespace qinfer {

namespace task {
inline constexpr const char* kEmbed = "embed";        // output: the pooled vector
inline constexpr const char* kClassify = "classify";  // output: one logit per label
inline constexpr const char* kRerank = "rerank";      // output: one logit (a cross-encoder)
// Per-token logits ([L, C] a job): model/export_hf.py exports it and
// check_model.py checks it, but the executor does not serve it yet
// (ModelManifest::Load refuses it by name).
inline constexpr const char* kTokens = "tokens";
}  // namespace task

// How a classifier's logits become scores.
namespace activation {
inline constexpr const char* kNone = "none";
inline constexpr const char* kSoftmax = "softmax";  // single-label: the scores sum to 1
inline constexpr const char* kSigmoid = "sigmoid";  // multi-label, or one logit: each score on its own
}  // namespace activation

// The task part of a model's manifest (fields `task`, `labels`,
// `activation`, `pairs`, `inputs`). A plain value; thread-safe to share.
struct TaskSpec {
  std::string task = task::kEmbed;
  // classify and tokens: the label of each output, in the model's order
  // (the checkpoint's id2label).
  std::vector<std::string> labels;
  std::string activation = activation::kNone;
  // Jobs may carry a pair (`text_pair`, or `token_type_ids` beside
  // `input_ids`): classify (NLI-style classifiers) and rerank.
  bool pairs = false;
  // The model takes token_type_ids as a third input (BERT-like pair models;
  // RoBERTa and DistilBERT take none).
  bool type_ids = false;

  bool is_embed() const { return task == task::kEmbed; }
  // One output row per job whose values are logits (classify, rerank).
  bool has_logits() const { return task == task::kClassify || task == task::kRerank; }
  // Checks the combination against the output width `dim` (0: unknown);
  // the error names the field.
  absl::Status Check(int dim) const;

  friend bool operator==(const TaskSpec&, const TaskSpec&) = default;
};

// True for one of the four task names.
bool IsTask(std::string_view name);

// Sets an ok outcome's task fields from its raw output (the logits):
// classify: `scores` ({label, score} for every label, by score descending,
// ties in label order) and `label` (the first of them); rerank: `score`
// (the logit's sigmoid, sentence-transformers CrossEncoder's default for one
// label). Scores are computed in double and stored as float. embed and
// tokens: nothing. REQUIRES: spec.Check(outcome.output.size()) is OK.
void FinishOutcome(const TaskSpec& spec, Outcome& outcome);

}  // namespace qinfer
