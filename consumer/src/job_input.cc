#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "decoder_internal.h"
#include "qinfer/core/utf8.h"

namespace qinfer::consumer {

std::optional<std::string> ReadIds(const json& ids, size_t count, const DecoderLimits& limits,
                                   std::vector<int64_t>& out) {
  out.reserve(out.size() + count);
  for (size_t i = 0; i < count; ++i) {
    const json& v = ids[i];
    // Accept 7 and 7.0 alike? No: a float id is a client bug worth reporting.
    if (!v.is_number_integer()) return "`input_ids[" + std::to_string(i) + "]` is not an integer";
    const bool is_unsigned = v.is_number_unsigned();
    const int64_t token = is_unsigned ? 0 : v.get<int64_t>();
    if (is_unsigned ? v.get<uint64_t>() >= uint64_t(limits.vocab_size) : (token < 0 || token >= limits.vocab_size)) {
      return "`input_ids[" + std::to_string(i) + "]` = " + v.dump() + " is outside [0, " +
             std::to_string(limits.vocab_size) + ")";
    }
    out.push_back(is_unsigned ? int64_t(v.get<uint64_t>()) : token);
  }
  return std::nullopt;
}

std::optional<std::string> CheckTokenIds(const std::vector<int64_t>& ids, const DecoderLimits& limits) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= limits.vocab_size) {
      return "the tokenizer gave token " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
             ", outside the model's vocabulary [0, " + std::to_string(limits.vocab_size) + ")";
    }
  }
  return std::nullopt;
}

std::string Joined(const std::vector<std::string>& tokens, size_t most) {
  const auto end = tokens.begin() + ptrdiff_t(std::min(most, tokens.size()));
  return absl::StrJoin(tokens.begin(), end, " ") + (tokens.size() > most ? " ..." : "");
}

std::string_view WordPrefix(std::string_view t, size_t max_bytes) {
  const std::string_view within = Utf8Prefix(t, max_bytes);
  if (within.size() < t.size() && (t[within.size()] == ' ' || t[within.size()] == '\n' || t[within.size()] == '\t')) {
    return within;
  }
  const size_t space = within.find_last_of(" \t\n");
  return space == std::string_view::npos || space == 0 ? within : within.substr(0, space);
}

std::variant<tokenizer::Encoding, Outcome> EncodeText(std::string_view t, const std::string* pair,
                                                      std::string_view policy, const DecoderLimits& limits,
                                                      const JobFailure& fail) {
  const bool truncating = policy == policy::kTruncate;
  // A chunked single text has a byte bound of its own.
  const size_t bound = policy == policy::kChunk && pair == nullptr
                           ? std::max(limits.max_text_bytes, limits.max_chunk_text_bytes)
                           : limits.max_text_bytes;
  if (limits.tokenizer == nullptr) {
    return fail(reason::kInvalid,
                "this model has no tokenizer (its manifest names no `tokenizer` file): send `input_ids`", 0);
  }
  if (t.empty()) return fail(reason::kInvalid, "`text` is empty", 0);
  if (pair != nullptr && pair->empty()) return fail(reason::kInvalid, "`text_pair` is empty", 0);
  const size_t bytes = t.size() + (pair != nullptr ? pair->size() : 0);
  if (bytes > bound && truncating && pair == nullptr) {
    const std::string_view part = WordPrefix(t, limits.max_text_bytes);
    absl::StatusOr<tokenizer::Encoding> encoded = limits.tokenizer->Encode(part);
    if (!encoded.ok()) {
      return fail(reason::kInvalid, "`text` cannot be tokenized: " + std::string(encoded.status().message()), 0);
    }
    if (encoded->length() > limits.max_tokens) return *std::move(encoded);
    return fail(reason::kTooLong,
                "`text` is " + std::to_string(t.size()) + " bytes, more than limits.max_text_bytes " +
                    std::to_string(limits.max_text_bytes) + ", and its first " + std::to_string(part.size()) +
                    " bytes give only " + std::to_string(encoded->length()) + " tokens, not more than max_tokens " +
                    std::to_string(limits.max_tokens) +
                    ": truncating that part could keep other tokens than the whole text's; raise "
                    "limits.max_text_bytes",
                encoded->length());
  }
  if (bytes > bound) {
    return fail(reason::kTooLong,
                (pair != nullptr ? "`text` and `text_pair` are " : "`text` is ") + std::to_string(bytes) +
                    " bytes" + (pair != nullptr ? " together" : "") + ", more than " +
                    (bound == limits.max_text_bytes ? "limits.max_text_bytes " : "limits.max_chunk_text_bytes ") +
                    std::to_string(bound) + " (checked before tokenizing; " +
                    (pair != nullptr ? "raise it for longer pairs)"
                                     : "replay it with --policy truncate, which cuts it there, or raise the bound)"),
                0);
  }
  absl::StatusOr<tokenizer::Encoding> encoded =
      pair != nullptr ? limits.tokenizer->Encode(t, *pair) : limits.tokenizer->Encode(t);
  if (!encoded.ok()) {
    return fail(reason::kInvalid, "`text` cannot be tokenized: " + std::string(encoded.status().message()), 0);
  }
  if (encoded->special_tokens_only()) {
    return fail(reason::kInvalid,
                "`text` yields no token besides the tokenizer's special tokens (" + Joined(encoded->Tokens(), 8) +
                    "): nothing of its own to embed",
                encoded->length());
  }
  return *std::move(encoded);
}

std::optional<std::string> ReadTypeIds(const json& types, size_t count, const DecoderLimits& limits,
                                       std::vector<int64_t>* out) {
  const int64_t segments = limits.type_ids ? 2 : 1;
  for (size_t i = 0; i < count; ++i) {
    const json& v = types[i];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= segments) {
      return "`token_type_ids[" + std::to_string(i) + "]` = " + v.dump() +
             (limits.type_ids ? " is not 0 or 1" : " is not 0: this model takes no token types");
    }
    if (out != nullptr) out->push_back(v.get<int64_t>());
  }
  return std::nullopt;
}

Decoded KeepIds(Job job, const json& ids, const json* types, const Admission& a, size_t length,
                const DecoderLimits& limits, const JobFailure& fail) {
  // A truncated input that ends with the model's end token keeps it there,
  // where the tokenizer's own truncation puts it.
  const bool keep_end = a.kind == Admission::Kind::kTruncate && limits.end_token_id >= 0 && a.kept >= 2 &&
                        ids.back().is_number_integer() && ids.back() == limits.end_token_id;
  const size_t read = a.kind == Admission::Kind::kChunk ? length : a.kept - (keep_end ? 1 : 0);
  if (auto bad = ReadIds(ids, read, limits, job.input_ids)) return fail(reason::kInvalid, *bad, length);
  if (types != nullptr) {
    std::vector<int64_t>* kept = limits.type_ids ? &job.type_ids : nullptr;
    if (auto bad = ReadTypeIds(*types, read, limits, kept)) return fail(reason::kInvalid, *bad, length);
    if (kept != nullptr && keep_end) kept->push_back(types->back().get<int64_t>());
  }
  if (keep_end) job.input_ids.push_back(limits.end_token_id);
  if (a.kind == Admission::Kind::kChunk) {
    std::vector<Job> windows = SplitIntoWindows(std::move(job), limits.max_tokens, limits.chunk_overlap);
    // Slices of the ids: a later window's first chunk_overlap ids are the previous one's last.
    for (size_t w = 1; w < windows.size() && limits.stitch_rows; ++w) windows[w].keep_from = int(limits.chunk_overlap);
    return windows;
  }
  std::vector<Job> jobs;
  jobs.push_back(std::move(job));
  return jobs;
}

std::vector<TokenSpan> SpansOf(const std::vector<int64_t>& ids, const std::vector<tokenizer::Span>& spans,
                               const DecoderLimits& limits) {
  std::vector<TokenSpan> out;
  out.reserve(spans.size());
  for (size_t i = 0; i < spans.size() && i < ids.size(); ++i) {
    out.push_back({int32_t(spans[i].start), int32_t(spans[i].end), spans[i].special,
                   limits.tokenizer->IdToToken(ids[i])});
  }
  return out;
}

// Each window's rows the stitched whole keeps (Job::keep_from, keep_tail), from
// its spans: its special tokens are those at its ends, and a later window's
// first `overlap` other tokens are the previous window's last (the
// tokenizer's stride; offsets cannot tell, a token may span no characters).
void SetStitching(std::vector<Job>& windows, const std::vector<std::vector<tokenizer::Span>>& spans,
                  size_t overlap) {
  for (size_t w = 0; w < windows.size() && w < spans.size(); ++w) {
    const std::vector<tokenizer::Span>& s = spans[w];
    size_t head = 0, tail = 0;
    while (head < s.size() && s[head].special) ++head;
    while (tail < s.size() - head && s[s.size() - 1 - tail].special) ++tail;
    windows[w].keep_from = w == 0 ? 0 : int(head + std::min(overlap, s.size() - head - tail));
    windows[w].keep_tail = w + 1 == windows.size() ? 0 : int(tail);
  }
}

Decoded KeepText(Job job, std::string_view text, const tokenizer::Encoding& encoding, bool pair,
                 const Admission& a, size_t length, const DecoderLimits& limits, const JobFailure& fail) {
  const bool keep_types = pair && limits.type_ids;
  if (limits.spans) job.text = text;
  std::vector<tokenizer::Span> spans;
  if (a.kind == Admission::Kind::kChunk) {
    std::vector<std::vector<tokenizer::Span>> window_spans;
    absl::StatusOr<std::vector<std::vector<int64_t>>> windows =
        encoding.Windows(limits.max_tokens, limits.chunk_overlap,
                         limits.spans || limits.stitch_rows ? &window_spans : nullptr);
    if (!windows.ok()) return fail(reason::kTooLong, std::string(windows.status().message()), length);
    for (const auto& w : *windows) {
      if (auto bad = CheckTokenIds(w, limits)) return fail(reason::kInvalid, *bad, length);
    }
    std::vector<Job> jobs = WindowJobs(std::move(job), std::move(*windows), length);
    for (size_t w = 0; w < jobs.size() && w < window_spans.size() && limits.spans; ++w) {
      jobs[w].spans = SpansOf(jobs[w].input_ids, window_spans[w], limits);
    }
    if (limits.stitch_rows) SetStitching(jobs, window_spans, limits.chunk_overlap);
    for (size_t w = 1; w < jobs.size(); ++w) jobs[w].pool_skip = 0;  // the prompt is in the first window
    return jobs;
  }
  if (a.kind == Admission::Kind::kTruncate) {
    absl::StatusOr<std::vector<int64_t>> cut =
        encoding.Truncated(a.kept, keep_types ? &job.type_ids : nullptr, limits.spans ? &spans : nullptr);
    if (!cut.ok()) return fail(reason::kInvalid, "`truncate_to` " + std::string(cut.status().message()), length);
    job.input_ids = std::move(*cut);
  } else {
    job.input_ids = encoding.Ids();
    if (keep_types) job.type_ids = encoding.TypeIds();
    if (limits.spans) spans = encoding.Spans();
  }
  if (auto bad = CheckTokenIds(job.input_ids, limits)) return fail(reason::kInvalid, *bad, length);
  if (limits.spans) job.spans = SpansOf(job.input_ids, spans, limits);
  std::vector<Job> jobs;
  jobs.push_back(std::move(job));
  return jobs;
}

std::string_view PromptOf(const Job& job, const DecoderLimits& limits) {
  const std::string& name = job.prompt_name.empty() ? limits.default_prompt_name : job.prompt_name;
  if (name.empty()) return {};
  auto it = limits.prompts.find(name);
  return it == limits.prompts.end() ? std::string_view() : std::string_view(it->second);
}

Decoded DecodeText(Job job, std::string_view text, const std::string* pair, const std::string& requested,
                   const DecoderLimits& limits, const JobFailure& fail) {
  // The prompt is joined to the text as a string, then tokenized (a BPE
  // merges across the join), and its tokens count toward the length, as
  // encode(prompt_name=...) does.
  std::string prompted;
  if (const std::string_view prompt = PromptOf(job, limits); !prompt.empty() && !text.empty()) {
    prompted.reserve(prompt.size() + text.size());
    prompted.append(prompt).append(text);
    text = prompted;
    auto skip = limits.prompt_lengths.find(job.prompt_name.empty() ? limits.default_prompt_name : job.prompt_name);
    if (skip != limits.prompt_lengths.end()) job.pool_skip = skip->second;
  }
  auto encoded = EncodeText(text, pair, requested.empty() ? limits.too_long_policy : requested, limits, fail);
  if (auto* failure = std::get_if<Outcome>(&encoded)) return std::move(*failure);
  const tokenizer::Encoding& encoding = std::get<tokenizer::Encoding>(encoded);
  const size_t length = encoding.length();
  const size_t special = limits.tokenizer->added_tokens(pair != nullptr);
  const Admission a = Admit(length, special, size_t(job.truncate_to), requested, limits);
  if (!a.error.empty()) return fail(reason::kTooLong, a.error, a.kept);
  job.policy = a.policy();
  if (a.kind == Admission::Kind::kTruncate) job.original_length = length;
  return KeepText(std::move(job), text, encoding, pair != nullptr, a, length, limits, fail);
}

std::optional<std::string> CheckPair(bool has_ids, bool has_pair, bool has_types, json::const_iterator ids,
                                     json::const_iterator pair, json::const_iterator types,
                                     const DecoderLimits& limits) {
  if (!has_pair && !has_types) return std::nullopt;
  const char* field = has_pair ? "`text_pair`" : "`token_type_ids`";
  if (has_pair && has_ids) return "`text_pair` goes with `text` (with `input_ids`, send `token_type_ids`)";
  if (has_types && !has_ids) return "`token_type_ids` goes with `input_ids` (with `text`, send `text_pair`)";
  if (!limits.pairs) {
    return std::string(field) + ": this model's task is " + limits.task +
           ", which takes one text per job, not a pair (pairs are for classify and rerank models)";
  }
  if (has_pair && !pair->is_string()) return "`text_pair` must be a string";
  if (has_types && (!types->is_array() || types->size() != ids->size())) {
    return "`token_type_ids` must be an array as long as `input_ids` (" + std::to_string(ids->size()) + ")";
  }
  return std::nullopt;
}

InputFields::InputFields(const json& doc)
    : ids(doc.find("input_ids")),
      text(doc.find("text")),
      pair(doc.find("text_pair")),
      types(doc.find("token_type_ids")),
      image(doc.find("image")),
      image_url(doc.find("image_url")),
      labels(doc.find("candidate_labels")),
      template_(doc.find("hypothesis_template")) {
  has_ids = ids != doc.end();
  has_text = text != doc.end() && !text->is_null();
  has_pair = pair != doc.end() && !pair->is_null();
  has_types = types != doc.end() && !types->is_null();
  has_image = image != doc.end() && !image->is_null();
  has_image_url = image_url != doc.end() && !image_url->is_null();
  has_labels = labels != doc.end() && !labels->is_null();
  has_template = template_ != doc.end() && !template_->is_null();
}

std::optional<std::string> CheckInputs(const InputFields& in, const DecoderLimits& limits) {
  const int inputs = int(in.has_ids) + int(in.has_text) + int(in.has_image) + int(in.has_image_url);
  if (inputs > 1) return "set exactly one of `input_ids`, `text`, `image` and `image_url`";
  if (inputs == 0) {
    return limits.takes_tokens ? "`input_ids` is missing (or send `text`, `image` or `image_url`)"
                               : "`image` is missing (or send `image_url`): this model takes images";
  }
  if (!in.is_image() && (in.has_labels || in.has_template)) {
    return std::string(in.has_labels ? "`candidate_labels`" : "`hypothesis_template`") +
           " goes with an image (`image` or `image_url`): zero-shot labels an image";
  }
  if (in.is_image()) {
    const char* field = in.has_image ? "`image`" : "`image_url`";
    if (limits.image_processor == nullptr) {
      return std::string(field) + ": this model takes no images (its manifest has no image tower): send `text` or "
             "`input_ids`";
    }
    if (!(in.has_image ? in.image : in.image_url)->is_string()) return std::string(field) + " must be a string";
    if ((in.has_image ? in.image : in.image_url)->get_ref<const std::string&>().empty()) {
      return std::string(field) + " is empty";
    }
    if (in.has_pair || in.has_types) {
      return std::string(in.has_pair ? "`text_pair`" : "`token_type_ids`") + " goes with text, not with an image";
    }
    return std::nullopt;
  }
  if (!limits.takes_tokens) {
    return std::string(in.has_ids ? "`input_ids`" : "`text`") +
           ": this model takes images only (a vision model without a text tower): send `image` or `image_url`";
  }
  if (in.has_ids && !in.ids->is_array()) return "`input_ids` must be an array";
  if (in.has_ids && in.ids->empty()) return "`input_ids` is empty";
  if (in.has_text && !in.text->is_string()) return "`text` must be a string";
  if (in.has_ids && limits.spans) {
    return "`input_ids`: this model's task is tokens, whose results are character offsets into the job's text: "
           "send `text`";
  }
  return CheckPair(in.has_ids, in.has_pair, in.has_types, in.ids, in.pair, in.types, limits);
}

Outcome RefusedByLength(const InputFields& in, const Admission& a, size_t length, const DecoderLimits& limits,
                        const JobFailure& fail) {
  std::vector<int64_t> scratch;
  if (auto bad = ReadIds(*in.ids, a.kept, limits, scratch)) return fail(reason::kInvalid, *bad, length);
  if (in.has_types) {
    if (auto bad = ReadTypeIds(*in.types, a.kept, limits, nullptr)) return fail(reason::kInvalid, *bad, length);
  }
  return fail(reason::kTooLong, a.error, a.kept);
}

}  // namespace qinfer::consumer
