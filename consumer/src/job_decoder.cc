#include "qinfer/consumer/job_decoder.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "qinfer/core/utf8.h"

namespace qinfer::consumer {
namespace {

using nlohmann::json;

// The key when it can serve as an id (UTF-8, so that the record under it
// says the same id), cut to `max_bytes` on a character boundary; else the
// message's coordinates.
std::string DefaultId(const RawMessage& m, size_t max_bytes) {
  if (!m.key.empty() && IsValidUtf8(m.key)) return std::string(Utf8Prefix(m.key, max_bytes));
  return m.origin.topic + "/" + std::to_string(m.origin.partition) + "/" +
         std::to_string(m.origin.offset);
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
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[': case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > limit) return limit + 1;
        }
        break;
      case ']': case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return deepest;
}

Outcome FailureForMessage(const RawMessage& m, std::string id,
                          const char* reason, std::string error,
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
  if (m.value.size() <= limits.max_message_bytes && limits.max_depth >= 2) {
    Job job;
    bool has_id = false;
    if (PlainJobReader(m.value, limits).Read(job, has_id)) {
      if (!has_id) job.id = DefaultId(m, limits.max_id_bytes);
      job.origin = m.origin;
      job.payload = std::string(m.value);
      return job;
    }
  }
  return DecodeJobDocument(m, limits);
}

Decoded DecodeJobDocument(const RawMessage& m, const DecoderLimits& limits) {
  std::string id = DefaultId(m, limits.max_id_bytes);
  if (m.value.size() > limits.max_message_bytes) {
    RawMessage prefix = m;
    prefix.value = m.value.substr(0, kPayloadPrefixBytes);
    Outcome out = FailureForMessage(
        prefix, id, reason::kInvalid,
        "message is " + std::to_string(m.value.size()) + " bytes, more than max_message_bytes " +
            std::to_string(limits.max_message_bytes) + "; the record keeps its first " +
            std::to_string(prefix.value.size()) + " bytes and its topic, partition and offset",
        0);
    out.payload_truncated = true;
    return out;
  }
  if (JsonNestingDepth(m.value, limits.max_depth) > limits.max_depth) {
    return FailureForMessage(m, id, reason::kInvalid,
                             "message nests arrays/objects deeper than max_depth " +
                                 std::to_string(limits.max_depth),
                             0);
  }
  // JSON has no raw NUL byte; the parser would take one for the end of the
  // input and accept whatever follows it.
  if (m.value.find('\0') != std::string_view::npos) {
    return FailureForMessage(m, id, reason::kInvalid, "message contains a NUL byte", 0);
  }
  json doc = json::parse(m.value, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return FailureForMessage(m, id, reason::kInvalid, "message is not valid JSON", 0);
  }
  if (!doc.is_object()) {
    return FailureForMessage(m, id, reason::kInvalid, "message is not a JSON object", 0);
  }
  if (auto it = doc.find("id"); it != doc.end()) {
    if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
      return FailureForMessage(m, id, reason::kInvalid, "`id` must be a non-empty string", 0);
    }
    if (it->get_ref<const std::string&>().size() > limits.max_id_bytes) {
      return FailureForMessage(m, id, reason::kInvalid,
                               "`id` is longer than " + std::to_string(limits.max_id_bytes) +
                                   " bytes",
                               0);
    }
    id = it->get<std::string>();
  }

  auto ids = doc.find("input_ids");
  if (ids == doc.end()) {
    return FailureForMessage(m, id, reason::kInvalid, "`input_ids` is missing", 0);
  }
  if (!ids->is_array()) {
    return FailureForMessage(m, id, reason::kInvalid, "`input_ids` must be an array", 0);
  }
  const size_t length = ids->size();
  if (length == 0) {
    return FailureForMessage(m, id, reason::kInvalid, "`input_ids` is empty", 0);
  }

  Job job;
  job.id = id;
  job.origin = m.origin;
  job.payload = std::string(m.value);

  if (auto it = doc.find("reply_to"); it != doc.end() && !it->is_null()) {
    if (!it->is_string()) {
      return FailureForMessage(m, id, reason::kInvalid, "`reply_to` must be a string", length);
    }
    job.reply_to = it->get<std::string>();
    if (job.reply_to.size() > limits.max_id_bytes) {
      return FailureForMessage(m, id, reason::kInvalid,
                               "`reply_to` is longer than " +
                                   std::to_string(limits.max_id_bytes) + " bytes",
                               length);
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
                     "`attempt` must be an integer in [0, " + std::to_string(kMaxAttempt) + "]",
                     length);
    }
    job.attempt = it->get<int>();
  }
  if (auto it = doc.find("policy"); it != doc.end() && !it->is_null()) {
    if (!it->is_string() || !IsTooLongPolicy(it->get_ref<const std::string&>())) {
      return FailureForMessage(m, id, reason::kInvalid,
                               "`policy` must be one of reject, truncate, chunk, long_lane", length);
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
                    it->contains("partition") && (*it)["partition"].is_number_integer() &&
                    it->contains("offset") && (*it)["offset"].is_number_integer();
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
    if (!it->is_number_integer() || it->get<int64_t>() <= 0 ||
        it->get<int64_t>() > std::numeric_limits<int>::max()) {
      return FailureForMessage(m, id, reason::kInvalid,
                     "`truncate_to` must be a positive integer", length);
    }
    job.truncate_to = it->get<int>();
  }

  // Failures from here on carry the job's attempt and replay_of, so that a
  // replay that fails again is told apart from the failure it retried.
  auto too_long = [&](std::string error, size_t n) {
    Outcome out = FailureForMessage(m, id, reason::kTooLong, std::move(error), n);
    out.attempt = job.attempt;
    out.replay_of = job.replay_of;
    return out;
  };
  // The policy for an over-long input: the job's own, else the configured
  // one. Decided before the ids are read, so a truncated input's tail is
  // never parsed into memory.
  const std::string applied = job.policy.empty() ? limits.too_long_policy : job.policy;
  job.policy.clear();  // from here: the policy applied, if any
  size_t kept = job.truncate_to > 0 ? std::min(length, size_t(job.truncate_to)) : length;
  bool admitted = kept <= limits.max_tokens;
  if (kept < length) {
    job.original_length = length;
    job.policy = policy::kTruncate;
  }
  if (!admitted) {
    admitted = true;
    if (applied == policy::kTruncate) {
      kept = limits.max_tokens;
      job.original_length = length;
      job.policy = policy::kTruncate;
    } else if (applied == policy::kChunk) {
      const size_t windows = WindowCount(kept, limits.max_tokens, limits.chunk_overlap);
      if (!limits.chunk_allowed) {
        return too_long("input length " + std::to_string(kept) + " exceeds max_tokens " +
                                     std::to_string(limits.max_tokens) +
                                     " and policy chunk needs a model with pooled output",
                                 kept);
      }
      if (windows > limits.max_chunks) {
        return too_long("input length " + std::to_string(kept) + " needs " +
                                     std::to_string(windows) + " windows of " +
                                     std::to_string(limits.max_tokens) + ", more than max_chunks " +
                                     std::to_string(limits.max_chunks),
                                 kept);
      }
      job.policy = policy::kChunk;
    } else if (applied == policy::kLongLane) {
      if (kept > limits.long_lane_max_tokens) {
        return too_long(
            "input length " + std::to_string(kept) +
                (limits.long_lane_max_tokens == 0
                     ? " exceeds max_tokens " + std::to_string(limits.max_tokens) +
                           " and this service has no long lane (long_lane.max_tokens is 0)"
                     : " exceeds long_lane.max_tokens " + std::to_string(limits.long_lane_max_tokens)),
            kept);
      }
      job.policy = policy::kLongLane;
    } else {
      admitted = false;
    }
  }
  job.input_ids.reserve(kept);
  for (size_t i = 0; i < kept; ++i) {
    const json& v = (*ids)[i];
    // Accept 7 and 7.0 alike? No: a float id is a client bug worth reporting.
    if (!v.is_number_integer()) {
      return FailureForMessage(m, id, reason::kInvalid,
                     "`input_ids[" + std::to_string(i) + "]` is not an integer",
                     length);
    }
    const bool is_unsigned = v.is_number_unsigned();
    const int64_t token = is_unsigned ? 0 : v.get<int64_t>();
    if (is_unsigned ? v.get<uint64_t>() >= uint64_t(limits.vocab_size)
                    : (token < 0 || token >= limits.vocab_size)) {
      return FailureForMessage(m, id, reason::kInvalid,
                     "`input_ids[" + std::to_string(i) + "]` = " + v.dump() +
                         " is outside [0, " + std::to_string(limits.vocab_size) +
                         ")",
                     length);
    }
    job.input_ids.push_back(is_unsigned ? int64_t(v.get<uint64_t>()) : token);
  }
  if (!admitted) {
    return too_long("input length " + std::to_string(kept) +
                       " exceeds max_tokens " + std::to_string(limits.max_tokens) +
                       "; replay it with --policy truncate, chunk or long_lane",
                   kept);
  }
  return job;
}

bool IsTooLongPolicy(std::string_view name) {
  return name == policy::kReject || name == policy::kTruncate || name == policy::kChunk ||
         name == policy::kLongLane;
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
  std::vector<Job> windows;
  windows.reserve(count);
  std::vector<int64_t> ids = std::move(job.input_ids);
  std::string payload = std::move(job.payload);
  for (size_t w = 0; w < count; ++w) {
    Job part = job;
    const size_t begin = w * step;
    const size_t end = std::min(length, begin + window);
    part.input_ids.assign(ids.begin() + ptrdiff_t(begin), ids.begin() + ptrdiff_t(end));
    part.window = int(w);
    part.windows = int(count);
    part.original_length = length;
    if (w == 0) part.payload = std::move(payload);
    windows.push_back(std::move(part));
  }
  return windows;
}

}  // namespace qinfer::consumer
