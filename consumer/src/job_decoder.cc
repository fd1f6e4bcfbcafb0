#include "qinfer/consumer/job_decoder.h"

#include <nlohmann/json.hpp>
#include <string>

namespace qinfer::consumer {
namespace {

using nlohmann::json;

std::string DefaultId(const RawMessage& m) {
  if (!m.key.empty()) return std::string(m.key);
  return m.origin.topic + "/" + std::to_string(m.origin.partition) + "/" +
         std::to_string(m.origin.offset);
}

}  // namespace

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
  std::string id = DefaultId(m);
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
  }
  if (auto it = doc.find("meta"); it != doc.end() && !it->is_null()) {
    job.meta_json = it->dump();
  }
  if (auto it = doc.find("attempt"); it != doc.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0) {
      return FailureForMessage(m, id, reason::kInvalid,
                     "`attempt` must be a non-negative integer", length);
    }
    job.attempt = it->get<int>();
  }
  if (auto it = doc.find("truncate_to"); it != doc.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() <= 0) {
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
