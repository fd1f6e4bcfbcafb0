// Decoding and validation of job messages (docs/design/messages.md).
// Everything is checked here, on the consumer thread, before any tensor is
// built: an out-of-range token id on CUDA is a device-side assert that
// poisons the whole process, not a catchable error.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "qinfer/core/job.h"

namespace qinfer::tokenizer {
class Tokenizer;
}  // namespace qinfer::tokenizer

namespace qinfer::image {
class ImageProcessor;
}  // namespace qinfer::image

namespace qinfer::consumer {

struct DecodeStats;  // decode_pool.h

// Every bound is checked before the work it guards: the byte bound before
// parsing, the nesting bound by a scan before parsing (a parser or a printer
// that recurses per level would overflow the stack on deep input), the meta
// bound on `meta`'s bytes as they stand in the message, before they are
// copied. A violated bound is an `invalid` record.
struct DecoderLimits {
  int64_t vocab_size = 0;  // ids must be in [0, vocab_size)
  size_t max_tokens = 0;   // longer inputs get a `too_long` failure record
  // Largest message value accepted. Default: 1 MiB (Kafka's default
  // message.max.bytes). A larger value's record keeps only the first
  // kPayloadPrefixBytes of it, plus its topic, partition and offset.
  size_t max_message_bytes = size_t{1} << 20;
  // Deepest nesting of arrays and objects in the message. Default: 32.
  int max_depth = 32;
  // Largest `meta`, in bytes as sent. Default: 64 KiB.
  size_t max_meta_bytes = size_t{64} << 10;
  // Longest `id` and `reply_to`. Default: 512 bytes.
  size_t max_id_bytes = 512;
  // What becomes of an input longer than max_tokens (a job's `policy`
  // overrides it): kReject (a `too_long` record), kTruncate (its first
  // max_tokens ids), kChunk (windows of max_tokens overlapping by
  // chunk_overlap, see SplitIntoWindows; at most max_chunks of them) or
  // kLongLane (whole, up to long_lane_max_tokens, alone on the fallback
  // device).
  std::string too_long_policy = "reject";
  size_t chunk_overlap = 0;
  size_t max_chunks = 64;
  bool chunk_allowed = true;        // false: the model's task defines no chunk (classify, rerank)
  size_t long_lane_max_tokens = 0;  // 0: there is no long lane
  // The model's tokenizer, for jobs that carry `text`; not owned, and must
  // outlive every call. nullptr: the model has none, and a `text` job gets
  // an `invalid` record saying so.
  const tokenizer::Tokenizer* tokenizer = nullptr;
  // Longest `text` (with its `text_pair`, together), in bytes, checked
  // before it is tokenized; a longer one is `too_long`. Default: 256 KiB.
  size_t max_text_bytes = size_t{256} << 10;
  // Under policy chunk, a single text of up to this many bytes (past
  // max_text_bytes) is tokenized and windowed; a longer one is `too_long`.
  // Default: 1 MiB.
  size_t max_chunk_text_bytes = size_t{1} << 20;
  // The model's task (TaskSpec::task, named in errors) and its inputs. With
  // `pairs` a job may carry a pair: `text_pair` beside `text` (tokenized as
  // the library tokenizes a pair), or `token_type_ids` beside `input_ids`;
  // without, either is `invalid`, naming the field. `type_ids`: the model
  // takes token types, so a pair's jobs keep theirs (Job::type_ids); without
  // (RoBERTa-like pair models), `token_type_ids` may hold only 0.
  std::string task = "embed";
  bool pairs = false;
  bool type_ids = false;
  // Task tokens: a text job keeps its text and each token's span
  // (Job::text, Job::spans; every window its own), and an `input_ids` job
  // is `invalid` (its results are offsets into a text).
  bool spans = false;
  // The token that ends every sequence of the model's tokenizer (the
  // manifest's `end_token_id`, [SEP] for BERT); -1: none named. An
  // `input_ids` job that ends with it keeps it when truncated, as the
  // tokenizer's own truncation does.
  int64_t end_token_id = -1;
  // The embedding's width (the manifest's dim; 0: unknown): a job's
  // `dimensions` may ask for at most this many of its values.
  size_t dim = 0;
  // The model's prompts by name and its default's name (the manifest's
  // `prompts` and `default_prompt_name`): a text job's prompt (its
  // `prompt_name`'s, else the default's) is joined to its text before it is
  // tokenized, as sentence-transformers' encode(prompt_name=...) joins
  // them; a name not among them is `invalid`. Empty: the model has none.
  std::map<std::string, std::string> prompts{};
  std::string default_prompt_name{};
  // Pooling's include_prompt false: a prompted job's Job::pool_skip is its
  // prompt's length here (the manifest's `prompt_lengths`). Empty: every
  // position is pooled.
  std::map<std::string, int> prompt_lengths{};
  // The service has calibration ranges (output.int8_ranges or the
  // manifest's): a job's `encoding` may be int8 or uint8.
  bool int8_ranges = false;
  // token_embed: chunk windows are stitched by position, so each gets
  // Job::keep_from and keep_tail (from the tokenizer's spans for a text).
  bool stitch_rows = false;
  // The model takes token jobs (`input_ids`, `text`); false for a
  // vision-only model, which refuses them naming the field.
  bool takes_tokens = true;
  // Image jobs (`image`: base64 of the file's bytes or a data: URI;
  // `image_url`: file:// inside image_roots, or http(s)://): the model's
  // image processor (not owned, outlives every call; nullptr: the model
  // takes no images and such a job is `invalid`), and the sequence length
  // an image job runs (the manifest's image.length: Job::length()).
  const image::ImageProcessor* image_processor = nullptr;
  int image_length = 0;
  // An image's bounds, checked on its bytes and on its header before it is
  // decoded: a larger one is `too_large` (under policy resize, one over
  // max_image_pixels is decoded and scaled down to it instead).
  size_t max_image_bytes = size_t{20} << 20;
  int64_t max_image_pixels = 178956970;
  // Directories a file:// image_url may name a file under (canonical,
  // links resolved); empty: file:// URLs are refused.
  std::vector<std::string> image_roots{};
  // http(s):// image_url: the whole fetch's time bound and the most
  // redirects followed. Default: 10 s, 3.
  double image_url_timeout_seconds = 10;
  int image_url_max_redirects = 3;
  // zero_shot: an image job may carry `candidate_labels`; each is put in
  // the job's `hypothesis_template` (default this one, the manifest's)
  // and tokenized. Empty: the model does no zero-shot.
  std::string hypothesis_template{};
  // At most this many candidate labels a job, each of at most this many
  // bytes. Default: 256 and 1 KiB.
  size_t max_candidate_labels = 256;
  size_t max_label_bytes = 1024;
  // The source's decode counters, where image jobs, their failures by
  // reason and their decode time are counted; not owned, may be null.
  DecodeStats* image_stats = nullptr;
};

// Over-long input policies (DecoderLimits::too_long_policy, a job's `policy`).
namespace policy {
inline constexpr const char* kReject = "reject";
inline constexpr const char* kTruncate = "truncate";
inline constexpr const char* kChunk = "chunk";
inline constexpr const char* kLongLane = "long_lane";
// An image over max_image_pixels is decoded and scaled down to it (image
// jobs only).
inline constexpr const char* kResize = "resize";
}  // namespace policy

// True for one of the four over-long policies above (not resize).
bool IsTooLongPolicy(std::string_view name);

// True for a field a job message may carry (docs/design/messages.md); the
// decoder refuses every other by name. `qinfer submit` moves a line's other
// fields into `meta` by it.
bool IsJobField(std::string_view name);

// How much of an over-large message a failure record keeps.
inline constexpr size_t kPayloadPrefixBytes = 4096;

// The deepest nesting of JSON arrays and objects in `text`, counting only
// brackets outside strings; stops counting once `limit` is exceeded (returns
// limit + 1). Linear, no recursion, no allocation. Text that is not JSON
// gets a number too; the parser rejects it afterwards.
int JsonNestingDepth(std::string_view text, int limit);

// One message as read from the source; views stay valid for the call only.
struct RawMessage {
  std::string_view key;  // empty when the message has none
  std::string_view value;
  Origin origin;
};

// What one message becomes: its jobs (one job; under policy chunk, its
// windows in order, see SplitIntoWindows), or a failure record (reason
// `invalid` or `too_long`) that carries the original payload so that
// `replay` can re-publish it.
using Decoded = std::variant<std::vector<Job>, Outcome>;

// Pure function; thread-safe (the tokenizer is). Decoding runs in three
// steps, each of which may end in a failure record:
//  1. the envelope: the bounds that hold before parsing (bytes, NUL, depth),
//     the parse, and every field but the input (id, reply_to, meta, attempt,
//     policy, device, replay_of, truncate_to, dimensions, prompt_name,
//     encoding, top_k);
//  2. the input: exactly one of `input_ids` (its length; with `pairs`,
//     optionally `token_type_ids` of the same length) and `text` (with
//     `pairs`, optionally `text_pair`; bounded by max_text_bytes together,
//     then tokenized with the special tokens, behind the job's prompt where
//     the model has prompts); any other field is refused by name;
//  3. admission by length (Admit): an input longer than limits.max_tokens
//     comes back only under a policy that admits it, with `policy` set to
//     the one applied: truncated (original_length set), as windows (chunk)
//     or whole (long_lane). A text is cut by its tokenizer (the library's
//     truncation and overflow windows, special tokens kept; a pair longest
//     first); input_ids (and their token_type_ids) are cut as they stand,
//     keeping end_token_id at the end when they end with it.
// The common messages, {"id": "...", "input_ids": [...]} and
// {"id": "...", "text": "..."} with at most a "reply_to" besides, of plain
// non-negative integers and of strings without escapes, are read without
// building a JSON document (a text that then fails to tokenize or is refused
// by length takes the other path, which writes its record); everything else
// goes through DecodeJobDocument. The two give the same answer for every
// message (tested, and checked by the decoder's fuzzer).
Decoded DecodeJob(const RawMessage& message, const DecoderLimits& limits);

// DecodeJob with every message parsed into a JSON document (no fast path).
Decoded DecodeJobDocument(const RawMessage& message, const DecoderLimits& limits);

// How an input is admitted (step 3 of DecodeJob).
struct Admission {
  enum class Kind { kWhole, kTruncate, kChunk, kLongLane };
  Kind kind = Kind::kWhole;
  size_t kept = 0;     // tokens the job keeps (kTruncate: fewer than its length)
  size_t windows = 1;  // kChunk: how many
  std::string error;   // non-empty: not admitted, the `too_long` record's error

  // The policy an admitted job carries: "" whole, else truncate, chunk or
  // long_lane.
  const char* policy() const {
    switch (kind) {
      case Kind::kTruncate:
        return policy::kTruncate;
      case Kind::kChunk:
        return policy::kChunk;
      case Kind::kLongLane:
        return policy::kLongLane;
      default:
        return "";
    }
  }
};

// Admission of an input of `length` tokens, `special` of which are the
// tokens a tokenizer adds to every sequence (0 for input_ids): a
// `truncate_to` > 0 cuts first; then an input over limits.max_tokens
// follows `policy` ("" = limits.too_long_policy). Windows of a text hold
// max_tokens - special tokens of its own each, overlapping by
// limits.chunk_overlap. Pure.
Admission Admit(size_t length, size_t special, size_t truncate_to, std::string_view policy,
                const DecoderLimits& limits);

// The number of windows of at most `window` tokens, each starting
// `window - overlap` after the previous one, that cover `length` tokens.
// REQUIRES: overlap < window.
size_t WindowCount(size_t length, size_t window, size_t overlap);

// Splits `job` into WindowCount(...) jobs of at most `window` tokens. Each
// keeps the job's id, origin and fields, with `window`/`windows` set and
// original_length = the whole input's length; only window 0 keeps the
// payload (for the failure record, should one be needed).
std::vector<Job> SplitIntoWindows(Job job, size_t window, size_t overlap);

// `job` as one job per window of `windows` (the tokens of each), with the
// fields SplitIntoWindows sets; original_length = `original_length`.
std::vector<Job> WindowJobs(Job job, std::vector<std::vector<int64_t>> windows, size_t original_length);

// A failure record for `message` (its payload and origin kept for replay).
Outcome FailureForMessage(const RawMessage& message, std::string id, const char* reason, std::string error,
                          size_t input_length);

}  // namespace qinfer::consumer
