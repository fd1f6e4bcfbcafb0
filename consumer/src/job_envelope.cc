#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "decoder_internal.h"
#include "qinfer/core/json_scan.h"
#include "qinfer/core/output_encoding.h"
#include "qinfer/core/utf8.h"

namespace qinfer::consumer {

std::string DefaultId(const RawMessage& m, size_t max_bytes) {
  if (!m.key.empty() && IsValidUtf8(m.key)) {
    const std::string_view prefix = Utf8Prefix(m.key, max_bytes);
    if (!prefix.empty()) return std::string(prefix);
  }
  return m.origin.topic + "/" + std::to_string(m.origin.partition) + "/" + std::to_string(m.origin.offset);
}



std::string ParseReason(const std::string& what) {
  std::string reason = what;
  if (size_t p = reason.find("] "); reason.rfind("[json.exception", 0) == 0 && p != std::string::npos) {
    reason.erase(0, p + 2);
  }
  if (size_t p = reason.find("; last read"); p != std::string::npos) reason.erase(p);
  return reason;
}

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

// The fields a job may carry (docs/design/messages.md). Any other is refused
// by name: a field the service ignored would be a wrong answer reported as
// `ok` (a `text_pair` sent to a model that embeds `text` alone, say).
constexpr const char* kJobFields[] = {"id",          "input_ids",        "token_type_ids",      "text",
                                      "text_pair",   "image",            "image_url",           "candidate_labels",
                                      "hypothesis_template", "reply_to", "meta",                "attempt",
                                      "policy",      "device",           "replay_of",           "truncate_to",
                                      "dimensions",  "prompt_name",      "encoding",            "top_k"};

bool IsJobField(std::string_view name) {
  return std::find(std::begin(kJobFields), std::end(kJobFields), name) != std::end(kJobFields);
}

std::vector<std::string> UnknownFields(const json& doc) {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : doc.items()) {
    if (!IsJobField(key)) unknown.push_back(key);
  }
  return unknown;
}

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
    // because it is carried through to every record and reply. It is kept
    // as the bytes it arrived as, measured before they are copied; a meta
    // written over several lines is kept on one (compact), so that a
    // record stays one line.
    const std::optional<std::string_view> raw = RawJsonMember(m.value, "meta");
    const size_t size = raw ? raw->size() : 0;
    if (size > limits.max_meta_bytes) {
      return FailureForMessage(m, id, reason::kInvalid,
                               "`meta` is " + std::to_string(size) + " bytes, more than max_meta_bytes " +
                                   std::to_string(limits.max_meta_bytes),
                               length);
    }
    if (raw && raw->find_first_of("\r\n") == std::string_view::npos) {
      job.meta_json = std::string(*raw);
    } else {
      job.meta_json = it->dump();
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
    if (!it->is_string() || !(IsTooLongPolicy(it->get_ref<const std::string&>()) ||
                              it->get_ref<const std::string&>() == policy::kResize)) {
      return FailureForMessage(m, id, reason::kInvalid,
                               "`policy` must be one of reject, truncate, chunk, long_lane (over-long inputs) or "
                               "resize (images over limits.max_image_pixels)",
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
  if (auto bad = ReadEmbedFields(doc, limits, job)) return FailureForMessage(m, id, reason::kInvalid, *bad, length);
  return std::nullopt;
}

std::optional<std::string> ReadEmbedFields(const json& doc, const DecoderLimits& limits, Job& job) {
  if (auto it = doc.find("dimensions"); it != doc.end() && !it->is_null()) {
    if (auto bad = DimensionsError(*it, limits)) return bad;
    job.dimensions = it->get<int>();
  }
  if (auto it = doc.find("prompt_name"); it != doc.end() && !it->is_null()) {
    if (auto bad = PromptNameError(*it, limits)) return bad;
    job.prompt_name = it->get<std::string>();
  }
  if (auto it = doc.find("encoding"); it != doc.end() && !it->is_null()) {
    if (auto bad = EncodingError(*it, limits)) return bad;
    job.encoding = it->get<std::string>();
  }
  if (auto it = doc.find("top_k"); it != doc.end() && !it->is_null()) {
    if (limits.task != "sparse") {
      return "`top_k`: this model's task is " + limits.task +
             "; top_k keeps a sparse embedding's largest weights (SparseEncoder's max_active_dims): send the job "
             "without it";
    }
    if (!it->is_number_integer() || it->get<int64_t>() <= 0 || it->get<int64_t>() > std::numeric_limits<int>::max()) {
      return "`top_k` must be a positive integer (how many of the largest weights are kept)";
    }
    job.top_k = it->get<int>();
  }
  return std::nullopt;
}

std::optional<std::string> EncodingError(const json& value, const DecoderLimits& limits) {
  if (!value.is_string() || !IsOutputEncoding(value.get_ref<const std::string&>())) {
    return "`encoding` must be one of " + OutputEncodingNames();
  }
  const std::string& name = value.get_ref<const std::string&>();
  const bool token_base64 = limits.task == "token_embed" && name == encoding::kBase64;
  const bool embeds = limits.task == "embed" || limits.task == "zero_shot";
  if (name != encoding::kFloat && !embeds && !token_base64) {
    return "`encoding` " + name + ": this model's task is " + limits.task +
           (limits.task == "token_embed" ? "; its vectors are written as float or base64"
                                         : "; the compact encodings are for embeddings: send float or leave it out");
  }
  if (NeedsRanges(name) && !limits.int8_ranges) {
    return "`encoding` " + name +
           " needs calibration ranges (output.int8_ranges, or the model package's int8_ranges), and this "
           "service has none: ranges taken from a batch would make a result depend on its batch";
  }
  return std::nullopt;
}

std::optional<std::string> PromptNameError(const json& value, const DecoderLimits& limits) {
  if (limits.prompts.empty()) {
    return "`prompt_name`: this model has no prompts (its manifest lists none): send the job without it";
  }
  std::string names;
  for (const auto& [name, prompt] : limits.prompts) names += (names.empty() ? "" : ", ") + name;
  if (!value.is_string()) return "`prompt_name` must be a string, one of this model's prompts: " + names;
  if (limits.prompts.count(value.get_ref<const std::string&>()) == 0) {
    return "`prompt_name` '" + std::string(Utf8Prefix(value.get_ref<const std::string&>(), 64)) +
           "' is not one of this model's prompts: " + names + " (names are case-sensitive)";
  }
  return std::nullopt;
}

std::optional<std::string> DimensionsError(const json& value, const DecoderLimits& limits) {
  if (limits.task != "embed" && limits.task != "zero_shot") {
    return "`dimensions`: this model's task is " + limits.task +
           "; dimensions cut an embedding (encode(truncate_dim=...)): send the job without it";
  }
  if (!value.is_number_integer() || value.get<int64_t>() <= 0) {
    return "`dimensions` must be a positive integer (the embedding's first N values)";
  }
  if (limits.dim > 0 && uint64_t(value.get<int64_t>()) > limits.dim) {
    return "`dimensions` " + std::to_string(value.get<int64_t>()) + " is more than the model's " +
           std::to_string(limits.dim) + " dimensions";
  }
  return std::nullopt;
}

std::optional<std::string> UnknownFieldsError(const json& doc) {
  std::vector<std::string> unknown = UnknownFields(doc);
  if (unknown.empty()) return std::nullopt;
  const size_t named = std::min<size_t>(unknown.size(), 8);
  std::string error = unknown.size() == 1 ? "unknown field " : "unknown fields ";
  error += absl::StrJoin(unknown.begin(), unknown.begin() + ptrdiff_t(named), ", ",
                         [](std::string* out, const std::string& key) {
                           out->append("`").append(Utf8Prefix(key, 64)).append("`");
                         });
  if (named < unknown.size()) absl::StrAppend(&error, " and ", unknown.size() - named, " more");
  absl::StrAppend(&error, " (a job has ", absl::StrJoin(kJobFields, ", "), ")");
  return error;
}

std::optional<std::string> ReadId(const json& doc, const DecoderLimits& limits, std::string& id) {
  auto it = doc.find("id");
  if (it == doc.end()) return std::nullopt;
  if (!it->is_string() || it->get_ref<const std::string&>().empty()) return "`id` must be a non-empty string";
  if (it->get_ref<const std::string&>().size() > limits.max_id_bytes) {
    return "`id` is longer than " + std::to_string(limits.max_id_bytes) + " bytes";
  }
  id = it->get<std::string>();
  return std::nullopt;
}

}  // namespace qinfer::consumer
