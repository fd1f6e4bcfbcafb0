// The model's task (docs/design/messages.md, "Tasks"): what a result holds beside the
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
inline constexpr const char* kTokens = "tokens";      // output: one logit per label per token
// output: one weight per vocabulary entry (SPLADE's pooled MLM logits),
// written sparse: the non-zero ones by index
inline constexpr const char* kSparse = "sparse";
// output: one vector per token of the job (specials as the tokenizer adds
// them), as encode(output_value="token_embeddings") returns them
inline constexpr const char* kTokenEmbed = "token_embed";
// A two-tower image-text model (CLIP, SigLIP): an image job with
// `candidate_labels` gets one score per label, as the
// zero-shot-image-classification pipeline computes them from the towers'
// features; any other job gets its tower's features, as embed does.
inline constexpr const char* kZeroShot = "zero_shot";
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

  // Plain jobs' results are embeddings (embed; zero_shot without labels).
  bool is_embed() const { return task == task::kEmbed || task == task::kZeroShot; }
  // One vector per job whose values are compared by cosine (embed, sparse,
  // zero_shot's features).
  bool pools() const { return is_embed() || task == task::kSparse; }
  // The model's output has a row per token ([B, L, C]): tokens, token_embed.
  bool per_token() const { return task == task::kTokens || task == task::kTokenEmbed; }
  // Policy chunk is defined: embed pools its windows' vectors, tokens
  // stitches its windows' entities, token_embed its windows' token vectors
  // (by position, the overlap once); classify, rerank and sparse have none.
  bool chunks() const { return task == task::kEmbed || task == task::kTokens || task == task::kTokenEmbed; }
  // One output row per job whose values are logits (classify, rerank).
  bool has_logits() const { return task == task::kClassify || task == task::kRerank; }
  // Checks the combination against the output width `dim` (0: unknown);
  // the error names the field.
  absl::Status Check(int dim) const;

  friend bool operator==(const TaskSpec&, const TaskSpec&) = default;
};

// True for one of the seven task names.
bool IsTask(std::string_view name);

// Sets an ok outcome's task fields from its raw output (the logits):
// classify: `scores` ({label, score} for every label, by score descending,
// ties in label order) and `label` (the first of them); rerank: `score`
// (the logit's sigmoid, sentence-transformers CrossEncoder's default for one
// label); tokens (output: one row of labels.size() logits per span, the
// spans the job's): each token's softmax and its top label (`tokens`,
// special tokens left out), and the `entities` of transformers'
// token-classification pipeline with aggregation "simple" (adjacent tokens
// merged unless a B- tag starts a new one; the entity's label without its
// B-/I- prefix, its score the mean of its tokens', "O" left out), the raw
// logits dropped; zero_shot with candidate labels (output: one logit a
// label): `scores` by the activation (softmax or sigmoid) and `label`, as
// classify's, the logits dropped; sparse: the non-zero weights of the dense output, by index
// (`output` their values, `sparse_indices` their indices). Scores are
// computed in double and stored as float; token_embed: `output_rows`, the
// job's tokens (its output one vector a token). embed: nothing. The in-flight text and spans are dropped either way, a failure's
// included. A tokens output that does not fit its spans is a model_error.
// REQUIRES: spec.Check(...) is OK.
void FinishOutcome(const TaskSpec& spec, Outcome& outcome);

// The entities of a chunked text's windows as one list, as the pipeline
// merges the windows of a strided input: by start (stable), an entity that
// starts inside the previous kept one replaces it when it is longer, or as
// long with a higher score, and is dropped otherwise.
std::vector<Entity> MergeWindowEntities(std::vector<Entity> entities);

}  // namespace qinfer
