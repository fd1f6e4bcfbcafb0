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

Decoded DecodeJob(const RawMessage& m, const DecoderLimits& limits) {
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
  if (auto it = doc.find("truncate_to"); it != doc.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() <= 0 ||
        it->get<int64_t>() > std::numeric_limits<int>::max()) {
      return FailureForMessage(m, id, reason::kInvalid,
                     "`truncate_to` must be a positive integer", length);
    }
    job.truncate_to = it->get<int>();
  }

  const size_t kept =
      job.truncate_to > 0 ? std::min(length, size_t(job.truncate_to)) : length;
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
  if (kept > limits.max_tokens) {
    return FailureForMessage(m, id, reason::kTooLong,
                   "input length " + std::to_string(kept) +
                       " exceeds max_tokens " + std::to_string(limits.max_tokens) +
                       "; replay with truncate_to, or raise max_tokens",
                   kept);
  }
  return job;
}

}  // namespace qinfer::consumer
