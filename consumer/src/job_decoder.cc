#include "qinfer/consumer/job_decoder.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "qinfer/core/utf8.h"
#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::consumer {
namespace {

using nlohmann::json;

// The key when it can serve as an id (UTF-8, so that the record under it
// says the same id), cut to `max_bytes` on a character boundary; else the
// message's coordinates.
std::string DefaultId(const RawMessage& m, size_t max_bytes) {
  if (!m.key.empty() && IsValidUtf8(m.key)) return std::string(Utf8Prefix(m.key, max_bytes));
  return m.origin.topic + "/" + std::to_string(m.origin.partition) + "/" + std::to_string(m.origin.offset);
}

// Largest `attempt` a job may carry: far above any real retry count, far
// below int's range.
constexpr int64_t kMaxAttempt = 1'000'000;

}  // namespace

int JsonNestingDepth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > limit) return limit + 1;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

Outcome FailureForMessage(const RawMessage& m, std::string id, const char* reason, std::string error,
                          size_t input_length) {
  Job stub;
  stub.id = std::move(id);
  stub.payload = std::string(m.value);
  stub.origin = m.origin;
  Outcome out = FailureFor(stub, reason, std::move(error));
  out.input_length = input_length;
  return out;
}

namespace {

// The fast path of DecodeJob. A message it reads is one whose document the
// full path would accept as it stands: an object with "input_ids" (an array
// of 1..max_tokens integers, each written as plain digits without a leading
// zero and in [0, vocab_size)), and "id" and "reply_to" if present (strings
// of 1..max_id_bytes printable ASCII characters without escapes), each key
// once, nothing else but JSON whitespace. For such a message the full path
// ends in the same Job (no policy, attempt 0, nothing truncated). Anything
// else, valid or not, returns nullopt and takes the full path, which then
// says what is wrong with it.
class PlainJobReader {
 public:
  PlainJobReader(std::string_view text, const DecoderLimits& limits)
      : p_(text.data()), end_(text.data() + text.size()), limits_(limits) {}

  // Fills `job`'s id (when the message has one), reply_to and input_ids.
  bool Read(Job& job, bool& has_id) {
    bool seen_ids = false, seen_reply_to = false;
    has_id = false;
    if (!Consume('{')) return false;
    while (true) {
      std::string_view key;
      if (!String(key) || !Consume(':')) return false;
      if (key == "input_ids" && !seen_ids) {
        seen_ids = true;
        if (!Ids(job.input_ids)) return false;
      } else if (key == "id" && !has_id) {
        has_id = true;
        std::string_view id;
        if (!String(id) || id.empty() || id.size() > limits_.max_id_bytes) return false;
        job.id.assign(id);
      } else if (key == "reply_to" && !seen_reply_to) {
        seen_reply_to = true;
        std::string_view reply_to;
        if (!String(reply_to) || reply_to.size() > limits_.max_id_bytes) return false;
        job.reply_to.assign(reply_to);
      } else {
        return false;
      }
      if (Consume(',')) continue;
      if (!Consume('}')) return false;
      SkipSpace();
      return p_ == end_ && seen_ids;
    }
  }

 private:
  void SkipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\t' || *p_ == '\r')) ++p_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  // A string of printable ASCII without escapes.
  bool String(std::string_view& out) {
    if (!Consume('"')) return false;
    const char* begin = p_;
    while (p_ != end_ && *p_ != '"') {
      const auto c = static_cast<unsigned char>(*p_);
      if (c < 0x20 || c >= 0x7f || c == '\\') return false;
      ++p_;
    }
    if (p_ == end_) return false;
    out = std::string_view(begin, size_t(p_ - begin));
    ++p_;
    return true;
  }
  bool Ids(std::vector<int64_t>& ids) {
    if (!Consume('[')) return false;
    ids.clear();
    while (true) {
      SkipSpace();
      const char* begin = p_;
      int64_t v = 0;
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
        if (p_ - begin >= 18) return false;  // far beyond any vocabulary
        v = v * 10 + (*p_ - '0');
        ++p_;
      }
      const size_t digits = size_t(p_ - begin);
      if (digits == 0 || (digits > 1 && *begin == '0')) return false;
      if (v >= limits_.vocab_size || ids.size() == limits_.max_tokens) return false;
      ids.push_back(v);
      if (Consume(',')) continue;
      return Consume(']');
    }
  }

  const char* p_;
  const char* end_;
  const DecoderLimits& limits_;
};

}  // namespace

Decoded DecodeJob(const RawMessage& m, const DecoderLimits& limits) {
  // The bounds that hold before any parse: a plain message is within them
  // when the full path's checks below would pass (its nesting depth is 2).
  // A tokens model refuses input_ids (the document path says why).
  if (m.value.size() <= limits.max_message_bytes && limits.max_depth >= 2 && !limits.spans) {
    Job job;
    bool has_id = false;
    if (PlainJobReader(m.value, limits).Read(job, has_id)) {
      if (!has_id) job.id = DefaultId(m, limits.max_id_bytes);
      job.origin = m.origin;
      job.payload = std::string(m.value);
      std::vector<Job> jobs;
      jobs.push_back(std::move(job));
      return jobs;
    }
  }
  return DecodeJobDocument(m, limits);
}

namespace {

// nlohmann's parse error without its "[json.exception...]" prefix and the
// "last read" echo of the payload.
std::string ParseReason(const std::string& what) {
  std::string reason = what;
  if (size_t p = reason.find("] "); reason.rfind("[json.exception", 0) == 0 && p != std::string::npos) {
    reason.erase(0, p + 2);
  }
  if (size_t p = reason.find("; last read"); p != std::string::npos) reason.erase(p);
  return reason;
}

// Step 1: the bounds that hold before parsing, and the parse.
std::optional<Outcome> ParseBounded(const RawMessage& m, const std::string& id, const DecoderLimits& limits,
                                    json& doc) {
  if (m.value.size() > limits.max_message_bytes) {
    RawMessage prefix = m;
    prefix.value = m.value.substr(0, kPayloadPrefixBytes);
    Outcome out =
        FailureForMessage(prefix, id, reason::kInvalid,
                          "message is " + std::to_string(m.value.size()) + " bytes, more than max_message_bytes " +
                              std::to_string(limits.max_message_bytes) + "; the record keeps its first " +
                              std::to_string(prefix.value.size()) + " bytes and its topic, partition and offset",
                          0);
    out.payload_truncated = true;
    return out;
  }
  if (JsonNestingDepth(m.value, limits.max_depth) > limits.max_depth) {
    return FailureForMessage(m, id, reason::kInvalid,
                             "message nests arrays/objects deeper than max_depth " + std::to_string(limits.max_depth),
                             0);
  }
  // JSON has no raw NUL byte; the parser would take one for the end of the
  // input and accept whatever follows it.
  if (m.value.find('\0') != std::string_view::npos) {
    return FailureForMessage(m, id, reason::kInvalid, "message contains a NUL byte", 0);
  }
  try {
    doc = json::parse(m.value);
  } catch (const json::exception& e) {
    // Among them: a string holding a lone surrogate (\ud800), an unescaped
    // control character, bytes that are not UTF-8.
    return FailureForMessage(m, id, reason::kInvalid, "message is not valid JSON: " + ParseReason(e.what()), 0);
  }
  if (!doc.is_object()) {
    return FailureForMessage(m, id, reason::kInvalid, "message is not a JSON object", 0);
  }
  return std::nullopt;
}

// The fields a job may carry (DESIGN.md, "Messages"). Any other is refused
// by name: a field the service ignored would be a wrong answer reported as
// `ok` (a `text_pair` sent to a model that embeds `text` alone, say).
constexpr const char* kJobFields[] = {"id",        "input_ids", "token_type_ids", "text",
                                           "text_pair", "reply_to",  "meta",           "attempt",
                                           "policy",    "device",    "replay_of",      "truncate_to"};

// The fields of `doc` that are not job fields, in the document's order.
std::vector<std::string> UnknownFields(const json& doc) {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : doc.items()) {
    if (std::find(std::begin(kJobFields), std::end(kJobFields), key) == std::end(kJobFields)) unknown.push_back(key);
  }
  return unknown;
}

// Step 1, continued: every field but the input. `length` is the input's
// length where known, for the records.
std::optional<Outcome> ReadEnvelope(const RawMessage& m, const json& doc, const DecoderLimits& limits, size_t length,
                                    Job& job) {
  const std::string& id = job.id;
  if (auto it = doc.find("reply_to"); it != doc.end() && !it->is_null()) {
    if (!it->is_string()) {
      return FailureForMessage(m, id, reason::kInvalid, "`reply_to` must be a string", length);
    }
    job.reply_to = it->get<std::string>();
    if (job.reply_to.size() > limits.max_id_bytes) {
      return FailureForMessage(m, id, reason::kInvalid,
                               "`reply_to` is longer than " + std::to_string(limits.max_id_bytes) + " bytes", length);
    }
  }
  if (auto it = doc.find("meta"); it != doc.end() && !it->is_null()) {
    // Bounded by the message size already; `meta` has its own, smaller bound
    // because it is carried through to every record and reply.
    job.meta_json = it->dump();
    if (job.meta_json.size() > limits.max_meta_bytes) {
      return FailureForMessage(m, id, reason::kInvalid,
                               "`meta` is " + std::to_string(job.meta_json.size()) +
                                   " bytes serialised, more than max_meta_bytes " +
                                   std::to_string(limits.max_meta_bytes),
                               length);
    }
  }
  if (auto it = doc.find("attempt"); it != doc.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > kMaxAttempt) {
      return FailureForMessage(m, id, reason::kInvalid,
                               "`attempt` must be an integer in [0, " + std::to_string(kMaxAttempt) + "]", length);
    }
    job.attempt = it->get<int>();
  }
  if (auto it = doc.find("policy"); it != doc.end() && !it->is_null()) {
    if (!it->is_string() || !IsTooLongPolicy(it->get_ref<const std::string&>())) {
      return FailureForMessage(m, id, reason::kInvalid, "`policy` must be one of reject, truncate, chunk, long_lane",
                               length);
    }
    job.policy = it->get<std::string>();
  }
  if (auto it = doc.find("device"); it != doc.end() && !it->is_null()) {
    if (!it->is_string() || it->get_ref<const std::string&>() != "cpu") {
      return FailureForMessage(m, id, reason::kInvalid, "`device` must be \"cpu\" (or absent)", length);
    }
    job.device = "cpu";
  }
  if (auto it = doc.find("replay_of"); it != doc.end() && !it->is_null()) {
    const bool ok = it->is_object() && it->contains("topic") && (*it)["topic"].is_string() &&
                    (*it)["topic"].get_ref<const std::string&>().size() <= limits.max_id_bytes &&
                    it->contains("partition") && (*it)["partition"].is_number_integer() && it->contains("offset") &&
                    (*it)["offset"].is_number_integer();
    if (!ok) {
      return FailureForMessage(m, id, reason::kInvalid,
                               "`replay_of` must be {\"topic\": string, \"partition\": integer, "
                               "\"offset\": integer}",
                               length);
    }
    job.replay_of.topic = (*it)["topic"].get<std::string>();
    job.replay_of.partition = (*it)["partition"].get<int32_t>();
    job.replay_of.offset = (*it)["offset"].get<int64_t>();
  }
  if (auto it = doc.find("truncate_to"); it != doc.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() <= 0 || it->get<int64_t>() > std::numeric_limits<int>::max()) {
      return FailureForMessage(m, id, reason::kInvalid, "`truncate_to` must be a positive integer", length);
    }
    job.truncate_to = it->get<int>();
  }
  return std::nullopt;
}

// Reads ids[0, count) into `out`, each checked against the vocabulary;
// the error says which id is wrong.
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

// The tokenizer's ids are the model's too only within its vocabulary
// (start-up checks the sizes; this keeps a device-side assert impossible).
std::optional<std::string> CheckTokenIds(const std::vector<int64_t>& ids, const DecoderLimits& limits) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= limits.vocab_size) {
      return "the tokenizer gave token " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
             ", outside the model's vocabulary [0, " + std::to_string(limits.vocab_size) + ")";
    }
  }
  return std::nullopt;
}

// The first `most` tokens, for a message.
std::string Joined(const std::vector<std::string>& tokens, size_t most) {
  const auto end = tokens.begin() + ptrdiff_t(std::min(most, tokens.size()));
  return absl::StrJoin(tokens.begin(), end, " ") + (tokens.size() > most ? " ..." : "");
}

}  // namespace

Admission Admit(size_t length, size_t special, size_t truncate_to, std::string_view policy,
                const DecoderLimits& limits) {
  const std::string applied(policy.empty() ? std::string_view(limits.too_long_policy) : policy);
  Admission a;
  a.kept = truncate_to > 0 ? std::min(length, truncate_to) : length;
  if (a.kept < length) a.kind = Admission::Kind::kTruncate;
  if (a.kept <= limits.max_tokens) return a;
  const std::string over = "input length " + std::to_string(a.kept);
  if (applied == policy::kTruncate) {
    a.kind = Admission::Kind::kTruncate;
    a.kept = limits.max_tokens;
  } else if (applied == policy::kChunk) {
    if (!limits.chunk_allowed) {
      a.error = over + " exceeds max_tokens " + std::to_string(limits.max_tokens) + "; policy chunk is not defined for " +
                "task " + limits.task + " (no library pools its windows): replay it with --policy truncate or long_lane";
      return a;
    }
    // A window of a text holds max_tokens - special tokens of its own.
    const size_t room = limits.max_tokens - std::min(special, limits.max_tokens);
    if (room <= limits.chunk_overlap) {
      a.error = over + " exceeds max_tokens " + std::to_string(limits.max_tokens) + "; a window has room for " +
                std::to_string(room) + " tokens beside its " + std::to_string(special) +
                " special tokens, not more than admission.chunk_overlap " + std::to_string(limits.chunk_overlap);
      return a;
    }
    a.windows = WindowCount(a.kept - std::min(special, a.kept), room, limits.chunk_overlap);
    if (a.windows > limits.max_chunks) {
      a.error = over + " needs " + std::to_string(a.windows) + " windows of " + std::to_string(limits.max_tokens) +
                ", more than max_chunks " + std::to_string(limits.max_chunks);
      return a;
    }
    a.kind = Admission::Kind::kChunk;
  } else if (applied == policy::kLongLane) {
    if (a.kept > limits.long_lane_max_tokens) {
      a.error = over + (limits.long_lane_max_tokens == 0
                            ? " exceeds max_tokens " + std::to_string(limits.max_tokens) +
                                  " and this service has no long lane (long_lane.max_tokens is 0)"
                            : " exceeds long_lane.max_tokens " + std::to_string(limits.long_lane_max_tokens));
      return a;
    }
    a.kind = Admission::Kind::kLongLane;
  } else {
    a.error = over + " exceeds max_tokens " + std::to_string(limits.max_tokens) +
              "; replay it with --policy truncate, chunk or long_lane";
  }
  return a;
}

namespace {

// The failure records of one job once its envelope is read: they carry its
// attempt and replay_of, so that a replay that fails again is told apart
// from the failure it retried.
class JobFailure {
 public:
  JobFailure(const RawMessage& m, const Job& job)
      : m_(m), id_(job.id), attempt_(job.attempt), replay_of_(job.replay_of) {}
  Outcome operator()(const char* why, std::string error, size_t length) const {
    Outcome out = FailureForMessage(m_, id_, why, std::move(error), length);
    out.attempt = attempt_;
    out.replay_of = replay_of_;
    return out;
  }

 private:
  const RawMessage& m_;
  std::string id_;
  int attempt_;
  Origin replay_of_;
};

// The longest prefix of `t` within `max_bytes` that ends before a space, tab
// or newline (so that no word is cut and the prefix's tokens are the first
// tokens of the whole text); where the bound holds no such break, the longest
// prefix that ends on a character boundary.
std::string_view WordPrefix(std::string_view t, size_t max_bytes) {
  const std::string_view within = Utf8Prefix(t, max_bytes);
  if (within.size() < t.size() && (t[within.size()] == ' ' || t[within.size()] == '\n' || t[within.size()] == '\t')) {
    return within;
  }
  const size_t space = within.find_last_of(" \t\n");
  return space == std::string_view::npos || space == 0 ? within : within.substr(0, space);
}

// Step 2 for a text: the tokenizer's encoding of `t` (and of the pair's
// second text `pair`, when not null), after the byte bound. With
// `truncating` (the job's policy is truncate), a single text over the bound
// is cut at it (WordPrefix) and tokenized: what truncate keeps of it is what
// the library keeps of the whole text, as long as the part tokenized still
// has more than max_tokens tokens (else it is `too_long`, as a text over the
// bound is under every other policy).
std::variant<tokenizer::Encoding, Outcome> EncodeText(const std::string& t, const std::string* pair,
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

// token_type_ids[0, count) into `out` (when not null): each 0 or 1, only 0
// for a model that takes no token types; the error says which is wrong.
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

// Step 3 for input_ids: the ids the admitted job keeps (all of them for a
// chunked one, which becomes its windows), and their token types when the
// job has them and the model takes them.
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
  if (a.kind == Admission::Kind::kChunk)
    return SplitIntoWindows(std::move(job), limits.max_tokens, limits.chunk_overlap);
  std::vector<Job> jobs;
  jobs.push_back(std::move(job));
  return jobs;
}

// Step 3 for a text: the tokens of its encoding the admitted job keeps, or
// its windows; a pair's token types when the model takes them.
// The spans of `ids` (the tokenizer's, with each token's string), for a
// tokens model.
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

Decoded KeepText(Job job, const std::string& text, const tokenizer::Encoding& encoding, bool pair,
                 const Admission& a, size_t length, const DecoderLimits& limits, const JobFailure& fail) {
  const bool keep_types = pair && limits.type_ids;
  if (limits.spans) job.text = text;
  std::vector<tokenizer::Span> spans;
  if (a.kind == Admission::Kind::kChunk) {
    std::vector<std::vector<tokenizer::Span>> window_spans;
    absl::StatusOr<std::vector<std::vector<int64_t>>> windows =
        encoding.Windows(limits.max_tokens, limits.chunk_overlap, limits.spans ? &window_spans : nullptr);
    if (!windows.ok()) return fail(reason::kTooLong, std::string(windows.status().message()), length);
    for (const auto& w : *windows) {
      if (auto bad = CheckTokenIds(w, limits)) return fail(reason::kInvalid, *bad, length);
    }
    std::vector<Job> jobs = WindowJobs(std::move(job), std::move(*windows), length);
    for (size_t w = 0; w < jobs.size() && w < window_spans.size(); ++w) {
      jobs[w].spans = SpansOf(jobs[w].input_ids, window_spans[w], limits);
    }
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

// Step 2 for a pair: its second part goes with its first, the model takes
// pairs, and the part has the right type and length. Messages name the
// field.
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

}  // namespace

Decoded DecodeJobDocument(const RawMessage& m, const DecoderLimits& limits) {
  Job job;
  job.id = DefaultId(m, limits.max_id_bytes);
  json doc;
  if (auto failure = ParseBounded(m, job.id, limits, doc)) return *std::move(failure);
  if (auto it = doc.find("id"); it != doc.end()) {
    if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
      return FailureForMessage(m, job.id, reason::kInvalid, "`id` must be a non-empty string", 0);
    }
    if (it->get_ref<const std::string&>().size() > limits.max_id_bytes) {
      return FailureForMessage(m, job.id, reason::kInvalid,
                               "`id` is longer than " + std::to_string(limits.max_id_bytes) + " bytes", 0);
    }
    job.id = it->get<std::string>();
  }
  const std::string& id = job.id;
  if (std::vector<std::string> unknown = UnknownFields(doc); !unknown.empty()) {
    // Named, each cut to 64 bytes and at most 8 of them: the error is bounded
    // whatever the message holds.
    const size_t named = std::min<size_t>(unknown.size(), 8);
    std::string error = unknown.size() == 1 ? "unknown field " : "unknown fields ";
    error += absl::StrJoin(unknown.begin(), unknown.begin() + ptrdiff_t(named), ", ",
                           [](std::string* out, const std::string& key) {
                             out->append("`").append(Utf8Prefix(key, 64)).append("`");
                           });
    if (named < unknown.size()) absl::StrAppend(&error, " and ", unknown.size() - named, " more");
    absl::StrAppend(&error, " (a job has ", absl::StrJoin(kJobFields, ", "), ")");
    return FailureForMessage(m, id, reason::kInvalid, std::move(error), 0);
  }

  // Step 2 (its presence first, so that the envelope's errors carry the
  // input's length): exactly one of input_ids and text.
  auto ids = doc.find("input_ids");
  auto text = doc.find("text");
  auto pair = doc.find("text_pair");
  auto types = doc.find("token_type_ids");
  const bool has_ids = ids != doc.end(), has_text = text != doc.end() && !text->is_null();
  const bool has_pair = pair != doc.end() && !pair->is_null(), has_types = types != doc.end() && !types->is_null();
  if (has_ids && has_text) {
    return FailureForMessage(m, id, reason::kInvalid, "set exactly one of `input_ids` and `text`, not both", 0);
  }
  if (!has_ids && !has_text) {
    return FailureForMessage(m, id, reason::kInvalid, "`input_ids` is missing (or send `text`)", 0);
  }
  if (has_ids && !ids->is_array()) {
    return FailureForMessage(m, id, reason::kInvalid, "`input_ids` must be an array", 0);
  }
  if (has_ids && ids->empty()) {
    return FailureForMessage(m, id, reason::kInvalid, "`input_ids` is empty", 0);
  }
  if (has_text && !text->is_string()) {
    return FailureForMessage(m, id, reason::kInvalid, "`text` must be a string", 0);
  }
  if (has_ids && limits.spans) {
    return FailureForMessage(m, id, reason::kInvalid,
                             "`input_ids`: this model's task is tokens, whose results are character offsets into "
                             "the job's text: send `text`",
                             0);
  }
  if (std::optional<std::string> bad = CheckPair(has_ids, has_pair, has_types, ids, pair, types, limits)) {
    return FailureForMessage(m, id, reason::kInvalid, *std::move(bad), 0);
  }
  job.origin = m.origin;
  job.payload = std::string(m.value);
  if (auto failure = ReadEnvelope(m, doc, limits, has_ids ? ids->size() : 0, job)) {
    return *std::move(failure);
  }
  const JobFailure fail(m, job);
  const std::string requested = std::move(job.policy);
  job.policy.clear();  // from here: the policy applied, if any

  // Step 2: the input's length (a text is tokenized here).
  std::optional<tokenizer::Encoding> encoding;
  size_t length = 0, special = 0;
  if (has_ids) {
    length = ids->size();
  } else {
    auto encoded = EncodeText(text->get_ref<const std::string&>(),
                              has_pair ? &pair->get_ref<const std::string&>() : nullptr,
                              requested.empty() ? limits.too_long_policy : requested, limits, fail);
    if (auto* failure = std::get_if<Outcome>(&encoded)) return std::move(*failure);
    encoding = std::get<tokenizer::Encoding>(std::move(encoded));
    length = encoding->length();
    special = limits.tokenizer->added_tokens(has_pair);
  }

  // Step 3: admission by length, then the tokens the job keeps.
  const Admission a = Admit(length, special, size_t(job.truncate_to), requested, limits);
  if (!a.error.empty()) {
    // A bad id says more than the length: `invalid` wins over `too_long`.
    std::vector<int64_t> scratch;
    if (has_ids) {
      if (auto bad = ReadIds(*ids, a.kept, limits, scratch)) return fail(reason::kInvalid, *bad, length);
      if (has_types) {
        if (auto bad = ReadTypeIds(*types, a.kept, limits, nullptr)) return fail(reason::kInvalid, *bad, length);
      }
    }
    return fail(reason::kTooLong, a.error, a.kept);
  }
  if (a.kind == Admission::Kind::kTruncate) {
    job.original_length = length;
    job.policy = policy::kTruncate;
  } else if (a.kind == Admission::Kind::kChunk) {
    job.policy = policy::kChunk;
  } else if (a.kind == Admission::Kind::kLongLane) {
    job.policy = policy::kLongLane;
  }
  if (has_ids) return KeepIds(std::move(job), *ids, has_types ? &*types : nullptr, a, length, limits, fail);
  return KeepText(std::move(job), text->get_ref<const std::string&>(), *encoding, has_pair, a, length, limits, fail);
}

bool IsTooLongPolicy(std::string_view name) {
  return name == policy::kReject || name == policy::kTruncate || name == policy::kChunk || name == policy::kLongLane;
}

size_t WindowCount(size_t length, size_t window, size_t overlap) {
  if (length <= window) return 1;
  const size_t step = window - overlap;
  return 1 + (length - window + step - 1) / step;
}

std::vector<Job> SplitIntoWindows(Job job, size_t window, size_t overlap) {
  const size_t length = job.length();
  const size_t count = WindowCount(length, window, overlap);
  const size_t step = window - overlap;
  std::vector<std::vector<int64_t>> parts(count);
  for (size_t w = 0; w < count; ++w) {
    const size_t begin = w * step;
    const size_t end = std::min(length, begin + window);
    parts[w].assign(job.input_ids.begin() + ptrdiff_t(begin), job.input_ids.begin() + ptrdiff_t(end));
  }
  return WindowJobs(std::move(job), std::move(parts), length);
}

std::vector<Job> WindowJobs(Job job, std::vector<std::vector<int64_t>> parts, size_t original_length) {
  const size_t count = parts.size();
  std::vector<Job> windows;
  windows.reserve(count);
  std::string payload = std::move(job.payload);
  job.input_ids.clear();
  for (size_t w = 0; w < count; ++w) {
    Job part = job;
    part.input_ids = std::move(parts[w]);
    part.window = int(w);
    part.windows = int(count);
    part.original_length = original_length;
    if (w == 0) part.payload = std::move(payload);
    windows.push_back(std::move(part));
  }
  return windows;
}

}  // namespace qinfer::consumer
