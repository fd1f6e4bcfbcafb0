// The steps of the full decoding path (job_decoder.h, DecodeJobDocument),
// shared by its three files: job_decoder.cc (the paths and admission),
// job_envelope.cc (step 1: bounds, the parse and every field but the
// input) and job_input.cc (steps 2 and 3: the input, its tokens, and what
// the admitted job keeps). Private to consumer/.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "qinfer/consumer/job_decoder.h"
#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::consumer {

using nlohmann::json;

// Largest `attempt` a job may carry: far above any real retry count, far
// below int's range.
inline constexpr int64_t kMaxAttempt = 1'000'000;

// The key when it can serve as an id (UTF-8, so that the record under it
// says the same id), cut to `max_bytes` on a character boundary; else (or
// when not even its first character fits) the message's coordinates.
std::string DefaultId(const RawMessage& m, size_t max_bytes);

// nlohmann's parse error without its "[json.exception...]" prefix and the
// "last read" echo of the payload.
std::string ParseReason(const std::string& what);

// Step 1: the bounds that hold before parsing, and the parse.
std::optional<Outcome> ParseBounded(const RawMessage& m, const std::string& id, const DecoderLimits& limits,
                                    json& doc);

// The fields of `doc` that are not job fields, in the document's order.
std::vector<std::string> UnknownFields(const json& doc);

// The refusal of a document with fields a job does not have, naming them
// (each cut to 64 bytes, at most 8 of them: bounded whatever the message
// holds) and the fields a job has; nullopt when there are none.
std::optional<std::string> UnknownFieldsError(const json& doc);

// The job's `id`, into `id` when the document has one; the refusal when it
// is not a non-empty string within limits.max_id_bytes.
std::optional<std::string> ReadId(const json& doc, const DecoderLimits& limits, std::string& id);


// Step 1, continued: every field but the input. `length` is the input's
// length where known, for the records.
std::optional<Outcome> ReadEnvelope(const RawMessage& m, const json& doc, const DecoderLimits& limits, size_t length,
                                    Job& job);

// The fields that shape an embedding (`dimensions`, `prompt_name`,
// `encoding`, a sparse one's `top_k`), into `job`; the refusal naming the first that is wrong.
std::optional<std::string> ReadEmbedFields(const json& doc, const DecoderLimits& limits, Job& job);

// A job's `dimensions`: the refusal naming it unless the model embeds and it
// is a positive integer no larger than the embedding (limits.dim).
std::optional<std::string> DimensionsError(const json& value, const DecoderLimits& limits);

// A job's `encoding`: the refusal naming it unless it is one of the
// output encodings, a compact one only for an embed model, int8 / uint8
// only with limits.int8_ranges.
std::optional<std::string> EncodingError(const json& value, const DecoderLimits& limits);

// A job's `prompt_name`: the refusal naming it (and the model's prompts)
// unless it is a string that names one of limits.prompts.
std::optional<std::string> PromptNameError(const json& value, const DecoderLimits& limits);

// The prompt a text job's text goes behind: its `prompt_name`'s, else the
// model's default's; empty when there is none.
std::string_view PromptOf(const Job& job, const DecoderLimits& limits);

// The failure records of one job once its envelope is read: they carry its
// attempt and replay_of, so that a replay that fails again is told apart
// from the failure it retried.
class JobFailure {
 public:
  // The job's envelope (id, attempt, replay_of and `meta`, as the bytes it
  // arrived as) goes on every record it makes, as on the executor's.
  JobFailure(const RawMessage& m, const Job& job)
      : m_(m), id_(job.id), meta_json_(job.meta_json), attempt_(job.attempt), replay_of_(job.replay_of) {}
  Outcome operator()(const char* why, std::string error, size_t length) const {
    Outcome out = FailureForMessage(m_, id_, why, std::move(error), length);
    out.attempt = attempt_;
    out.replay_of = replay_of_;
    out.meta_json = meta_json_;
    return out;
  }

 private:
  const RawMessage& m_;
  std::string id_;
  std::string meta_json_;
  int attempt_;
  Origin replay_of_;
};

// The input fields of a job document (step 2), found once.
struct InputFields {
  explicit InputFields(const json& doc);
  json::const_iterator ids, text, pair, types, image, image_url, labels, template_;
  bool has_ids = false, has_text = false, has_pair = false, has_types = false;
  bool has_image = false, has_image_url = false, has_labels = false, has_template = false;
  bool is_image() const { return has_image || has_image_url; }
};

// Step 2's first checks: exactly one of input_ids, text, image and
// image_url, each of its type and not empty, each only for a model that
// takes it, a pair's second part where the model takes pairs (CheckPair),
// and candidate_labels and hypothesis_template only with an image.
std::optional<std::string> CheckInputs(const InputFields& in, const DecoderLimits& limits);

// The record of an input_ids job whose length the admission refused
// (`a.error`): a bad id or token type says more than the length, so
// `invalid` wins over `too_long`. (A text's is DecodeText's.)
Outcome RefusedByLength(const InputFields& in, const Admission& a, size_t length, const DecoderLimits& limits,
                        const JobFailure& fail);

// Reads ids[0, count) into `out`, each checked against the vocabulary;
// the error says which id is wrong.
std::optional<std::string> ReadIds(const json& ids, size_t count, const DecoderLimits& limits,
                                   std::vector<int64_t>& out);

// The tokenizer's ids are the model's too only within its vocabulary
// (start-up checks the sizes; this keeps a device-side assert impossible).
std::optional<std::string> CheckTokenIds(const std::vector<int64_t>& ids, const DecoderLimits& limits);

// The first `most` tokens, for a message.
std::string Joined(const std::vector<std::string>& tokens, size_t most);

// The longest prefix of `t` within `max_bytes` that ends before a space, tab
// or newline (so that no word is cut and the prefix's tokens are the first
// tokens of the whole text); where the bound holds no such break, the longest
// prefix that ends on a character boundary.
std::string_view WordPrefix(std::string_view t, size_t max_bytes);

// Step 2 for a text: the tokenizer's encoding of `t` (and of the pair's
// second text `pair`, when not null), after the byte bound. With
// `truncating` (the job's policy is truncate), a single text over the bound
// is cut at it (WordPrefix) and tokenized: what truncate keeps of it is what
// the library keeps of the whole text, as long as the part tokenized still
// has more than max_tokens tokens (else it is `too_long`, as a text over the
// bound is under every other policy).
std::variant<tokenizer::Encoding, Outcome> EncodeText(std::string_view t, const std::string* pair,
                                                      std::string_view policy, const DecoderLimits& limits,
                                                      const JobFailure& fail);

// token_type_ids[0, count) into `out` (when not null): each 0 or 1, only 0
// for a model that takes no token types; the error says which is wrong.
std::optional<std::string> ReadTypeIds(const json& types, size_t count, const DecoderLimits& limits,
                                       std::vector<int64_t>* out);

// Step 3 for input_ids: the ids the admitted job keeps (all of them for a
// chunked one, which becomes its windows), and their token types when the
// job has them and the model takes them.
Decoded KeepIds(Job job, const json& ids, const json* types, const Admission& a, size_t length,
                const DecoderLimits& limits, const JobFailure& fail);

// Step 3 for a text: the tokens of its encoding the admitted job keeps, or
// its windows; a pair's token types when the model takes them.
// The spans of `ids` (the tokenizer's, with each token's string), for a
// tokens model.
std::vector<TokenSpan> SpansOf(const std::vector<int64_t>& ids, const std::vector<tokenizer::Span>& spans,
                               const DecoderLimits& limits);

Decoded KeepText(Job job, std::string_view text, const tokenizer::Encoding& encoding, bool pair,
                 const Admission& a, size_t length, const DecoderLimits& limits, const JobFailure& fail);

// Steps 2 and 3 for a text job whose envelope is read (`job.policy` cleared,
// `requested` the policy it asked for, empty for none): EncodeText, the
// admission by length, then KeepText; or the record saying why not.
Decoded DecodeText(Job job, std::string_view text, const std::string* pair, const std::string& requested,
                   const DecoderLimits& limits, const JobFailure& fail);

// Steps 2 and 3 for an image job whose envelope is read (`requested`: the
// policy it asked for, resize or none): its bytes (base64, a data: URI, a
// file under limits.image_roots or an http(s) URL), bounded in bytes, its
// header checked against max_image_pixels before it is decoded, then
// decoded and prepared by the model's image processor into Job::pixels; a
// zero-shot job's candidate labels tokenized into its hypotheses. Or the
// record saying why not (too_large for a bound, invalid otherwise, naming
// the field).
Decoded DecodeImage(Job job, const InputFields& in, const std::string& requested, const DecoderLimits& limits,
                    const JobFailure& fail);

// Step 2 for a pair: its second part goes with its first, the model takes
// pairs, and the part has the right type and length. Messages name the
// field.
std::optional<std::string> CheckPair(bool has_ids, bool has_pair, bool has_types, json::const_iterator ids,
                                     json::const_iterator pair, json::const_iterator types,
                                     const DecoderLimits& limits);

}  // namespace qinfer::consumer
