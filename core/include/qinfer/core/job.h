// Value types that cross module boundaries: a job, a batch of jobs, and the
// outcome of a job (a result or a failure record). No Kafka, torch or RocksDB
// handles live in them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qinfer/core/clock.h"

namespace qinfer {

// Where a job came from: enough to acknowledge it to its source.
// `epoch` is the source's assignment generation for the partition, so an
// acknowledgement that arrives after a rebalance is recognised as stale.
struct Origin {
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  uint64_t epoch = 0;

  friend bool operator==(const Origin&, const Origin&) = default;
};

// Where an input token lies in the job's text: characters (code points)
// [start, end); `special`: the tokenizer added it ([CLS], [SEP]), so it gets
// no label; `token`: its string in the vocabulary ("##ing").
struct TokenSpan {
  int32_t start = 0;
  int32_t end = 0;
  bool special = false;
  std::string token;
  friend bool operator==(const TokenSpan&, const TokenSpan&) = default;
};

// One inference request, decoded and validated.
struct Job {
  std::string id;
  std::vector<int64_t> input_ids;
  // A pair's segment of each input id (the model's token_type_ids: 0 for
  // the first text, 1 for the second); empty: every token is of segment 0.
  // When set, as long as input_ids.
  std::vector<int64_t> type_ids;
  // Task tokens only (a text job): its text and one span per input id, for
  // the result's offsets and entity texts. Empty otherwise.
  std::string text;
  std::vector<TokenSpan> spans;
  std::string reply_to;   // empty: the configured default reply topic, if any
  // The job's `meta`: its bytes as they stood in the message (compacted
  // onto one line when sent over several); empty when absent.
  std::string meta_json;
  int attempt = 0;        // set by `replay`
  int truncate_to = 0;    // replay override: keep only the first N ids (0: off)
  // embed: the result's first N values, as encode(truncate_dim=N) returns
  // them (after pooling, normalisation and chunk assembly; not normalised
  // again). 0: the whole vector.
  int dimensions = 0;
  // embed with prompts: the job's `prompt_name` ("" = the model's default
  // prompt, if it has one). Its prompt is joined to the text before it is
  // tokenized.
  std::string prompt_name;
  // How the result's `output` is written: the job's `encoding`
  // (output_encoding.h); "" = as configured (output.encoding).
  std::string encoding;
  // sparse: keep the top_k largest weights, as SparseEncoder.encode's
  // max_active_dims does. 0: every non-zero weight.
  int top_k = 0;
  // A model whose pooling leaves the prompt out (include_prompt false): the
  // positions at the start of input_ids that are its prompt's tokens,
  // attended to but not pooled (the executor marks them in the mask). 0:
  // every position is pooled.
  int pool_skip = 0;
  // The over-long policy: in a message, the job's own choice ("" = the
  // configured admission.too_long); once decoded, the one applied ("" when
  // the input was not over-long: truncate, chunk or long_lane).
  std::string policy;
  // Replay override: "" = as configured; "cpu" = run alone on the CPU.
  std::string device;
  Origin replay_of;  // `replay`: where the failure it retries came from
  // > 0 when the submitted input was longer than input_ids (truncate), and
  // in every chunk window: the whole input's length.
  size_t original_length = 0;
  // Chunk windows: window `window` (from 0) of `windows` of one input; the
  // window's result is pooled with its siblings' into one outcome for the
  // job. windows == 0: an ordinary job.
  int window = 0;
  int windows = 0;
  // A chunk window of a token_embed job: the stitched whole keeps its token
  // vectors [keep_from, length() - keep_tail): a later window's leading
  // special tokens and the overlap the previous window holds, an earlier
  // window's trailing special tokens, are left out.
  int keep_from = 0;
  int keep_tail = 0;
  // An image job (`image` or `image_url`): its pixel_values, the image as
  // the model's image processor makes it (3 x pixel_height x pixel_width
  // floats, channels first), and the sequence length the model's image
  // tower runs (the manifest's image.length): its length() for buckets.
  // Empty for a token job.
  std::vector<float> pixels;
  int pixel_height = 0;
  int pixel_width = 0;
  int image_length = 0;
  // zero_shot (an image job with `candidate_labels`): the labels, and each
  // one's hypothesis (the template with the label in it) as the model's
  // tokenizer encodes it. Empty otherwise.
  std::vector<std::string> candidate_labels;
  std::vector<std::vector<int64_t>> label_ids;
  std::string payload;  // the original message value, for failure records
  Origin origin;
  SteadyTime enqueued_at{};

  bool is_image() const { return !pixels.empty(); }
  size_t length() const { return is_image() ? size_t(image_length) : input_ids.size(); }
  // Heap and inline bytes this job holds while queued (ids, payload, meta,
  // strings): what the scheduler's byte bound counts.
  size_t footprint_bytes() const;
  friend bool operator==(const Job&, const Job&) = default;

 private:
  size_t LabelBytes() const;  // candidate_labels' and label_ids' heap bytes
};

// Jobs the scheduler formed from one length bucket.
struct Batch {
  int bucket_bound = 0;  // the bucket's upper bound on length, in tokens
  std::vector<Job> jobs;

  size_t total_tokens() const;
  friend bool operator==(const Batch&, const Batch&) = default;
};

// Failure reasons, a small fixed set (they become metric labels).
namespace reason {
inline constexpr const char* kInvalid = "invalid";
inline constexpr const char* kTooLong = "too_long";
// An image over limits.max_image_bytes or limits.max_image_pixels (read
// from its header, before it is decoded).
inline constexpr const char* kTooLarge = "too_large";
inline constexpr const char* kOom = "oom";
inline constexpr const char* kModelError = "model_error";
// The process died K times while the job was running (see AttemptLog).
inline constexpr const char* kCrash = "crash";
// Dead-letter notices only: the job has a result, but its reply could not be
// delivered.
inline constexpr const char* kUndeliverable = "undeliverable";
}  // namespace reason

// An entity of a tokens result: adjacent tokens of one type merged as the
// token-classification pipeline's "simple" aggregation merges them; `text`
// is the job's text[start:end] (code points).
struct Entity {
  std::string label;
  std::string text;
  int32_t start = 0;
  int32_t end = 0;
  float score = 0;  // the mean of its tokens' scores
  friend bool operator==(const Entity&, const Entity&) = default;
};

// One token of a tokens result (special tokens left out).
struct TokenLabel {
  std::string token;
  int32_t start = 0;
  int32_t end = 0;
  std::string label;
  float score = 0;
  friend bool operator==(const TokenLabel&, const TokenLabel&) = default;
};

// One label's score in a classify result.
struct LabelScore {
  std::string label;
  float score = 0;
  friend bool operator==(const LabelScore&, const LabelScore&) = default;
};

// What became of one job: either `ok` with an output, or a failure record.
struct Outcome {
  std::string id;
  bool ok = false;
  // ok: the model output for this job (embed: the pooled vector; classify
  // and rerank: the logits).
  std::vector<float> output;
  // ok, when `output` is written in a compact encoding (output_encoding.h;
  // "" = JSON numbers): its name, and the output as its bytes (`output`
  // then empty).
  std::string encoding;
  std::string output_bytes;
  // ok, task sparse: the index of each value of `output` (ascending); the
  // record writes the two as "output": {"indices", "values"}.
  std::optional<std::vector<int32_t>> sparse_indices;
  // ok, task token_embed: `output` holds this many vectors (one a token),
  // one after the other; the record writes them as an array of arrays.
  // 0: one vector.
  int output_rows = 0;
  // ok, by the model's task (see task.h, FinishOutcome): classify's top
  // `label` and every label's `scores`, by score descending; rerank's
  // `score`. Empty for embed.
  std::string label;
  std::vector<LabelScore> scores;
  std::optional<float> score;
  // Task tokens: the entities, and every token's label (left out of a
  // chunked text's result). The raw per-token logits are not kept.
  std::optional<std::vector<Entity>> entities;
  std::optional<std::vector<TokenLabel>> tokens;
  // Task tokens, in flight (never written): the job's text and spans, for
  // FinishOutcome.
  std::string text;
  std::vector<TokenSpan> spans;
  // zero_shot, in flight: the job's candidate labels, one logit each in
  // `output` until FinishOutcome scores them.
  std::vector<std::string> candidate_labels;
  std::string device;     // e.g. "cpu", "cuda:0"
  int bucket = 0;         // bucket bound, tokens
  int batch_size = 0;     // jobs in the batch that ran it
  int padded_length = 0;  // the batch's padded length, tokens
  std::string model_name;
  std::string model_digest;
  double queue_seconds = 0;     // enqueue to batch start
  double run_seconds = 0;       // the batch's forward pass
  // Wall clock (Clock::WallMillis): the OutcomeRecorder stamps an outcome
  // that has none as it goes to the store; 0 until then.
  int64_t completed_at_ms = 0;
  // failure: reason (see `reason`), readable error, the input length.
  std::string reason;
  std::string error;
  size_t input_length = 0;
  // Both: passed through from the job.
  std::string reply_to;
  std::string meta_json;
  std::string payload;  // failures only: the original message value
  // Failures only: `payload` is a prefix of a message too large to carry;
  // the original stays at origin's topic/partition/offset.
  bool payload_truncated = false;
  int attempt = 0;
  Origin origin;
  Origin replay_of;  // see Job::replay_of
  // How an over-long input was admitted: "" (it was not over-long),
  // "truncate" (original_length tokens cut to input_length), "chunk"
  // (`windows` windows pooled into one output) or "long_lane".
  std::string policy;
  size_t original_length = 0;
  int windows = 0;
  // Set when the outcome's reply or dead-letter message could not be
  // delivered (a permanent Kafka error, or retries spent): the error.
  std::string delivery_error;

  friend bool operator==(const Outcome&, const Outcome&) = default;
};

// What every outcome of `job` carries from it: id, input length, reply
// topic, meta, attempt, origin, replay_of and how it was admitted.
Outcome OutcomeFor(const Job& job);

// A failure record for `job` (OutcomeFor plus its payload).
Outcome FailureFor(const Job& job, std::string reason, std::string error);

}  // namespace qinfer
