#include "qinfer/core/outcome_json.h"

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "qinfer/core/utf8.h"

namespace qinfer {

using nlohmann::json;

namespace {

json ToJson(const Outcome& o) {
  json j;
  j["id"] = o.id;
  j["completed_at_ms"] = o.completed_at_ms;
  if (o.ok) {
    j["status"] = "ok";
    j["output"] = o.output;
    j["device"] = o.device;
    j["bucket"] = o.bucket;
    j["batch_size"] = o.batch_size;
    j["padded_length"] = o.padded_length;
    j["input_length"] = o.input_length;
    j["model"] = {{"name", o.model_name}, {"digest", o.model_digest}};
    j["timings"] = {{"queue_seconds", o.queue_seconds},
                    {"run_seconds", o.run_seconds}};
  } else {
    j["status"] = "failed";
    j["reason"] = o.reason;
    j["error"] = o.error;
    j["input_length"] = o.input_length;
    // Bytes that are not UTF-8 cannot be a JSON string; base64 keeps them
    // exactly: the record holds the original message.
    if (IsValidUtf8(o.payload)) {
      j["payload"] = o.payload;
    } else {
      j["payload_base64"] = absl::Base64Escape(o.payload);
    }
    if (o.payload_truncated) j["payload_truncated"] = true;
    j["source"] = {{"topic", o.origin.topic},
                   {"partition", o.origin.partition},
                   {"offset", o.origin.offset}};
  }
  if (o.attempt > 0) j["attempt"] = o.attempt;
  if (!o.replay_of.topic.empty()) {
    j["replay_of"] = {{"topic", o.replay_of.topic},
                      {"partition", o.replay_of.partition},
                      {"offset", o.replay_of.offset}};
  }
  if (!o.policy.empty()) j["policy"] = o.policy;
  if (o.original_length > 0) j["original_length"] = o.original_length;
  if (o.windows > 0) j["windows"] = o.windows;
  if (!o.delivery_error.empty()) j["delivery_error"] = o.delivery_error;
  if (!o.reply_to.empty()) j["reply_to"] = o.reply_to;
  if (!o.meta_json.empty()) {
    // meta_json came from a parsed message, so it parses; keep it verbatim
    // in structure rather than as an escaped string.
    json meta = json::parse(o.meta_json, nullptr, /*allow_exceptions=*/false);
    // Never write a record that cannot be read back: text that is not JSON
    // is kept as a string.
    j["meta"] = meta.is_discarded() ? json(o.meta_json) : std::move(meta);
  }
  return j;
}

std::string Dump(const json& j) {
  // Every string in a record is UTF-8 (parsed JSON, checked keys, base64);
  // should one not be, it is replaced rather than thrown on.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string OutcomeToJson(const Outcome& o) { return Dump(ToJson(o)); }

std::string OutcomeWithHistoryToJson(const Outcome& outcome,
                                     std::span<const Outcome> history) {
  json j = ToJson(outcome);
  if (!history.empty()) {
    json& records = j["history"] = json::array();
    for (const Outcome& o : history) records.push_back(ToJson(o));
  }
  return Dump(j);
}

absl::StatusOr<Outcome> OutcomeFromJson(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError("outcome is not a JSON object");
  }
  Outcome o;
  try {
    o.id = j.at("id").get<std::string>();
    o.completed_at_ms = j.value("completed_at_ms", int64_t{0});
    const std::string status = j.at("status").get<std::string>();
    o.ok = status == "ok";
    o.input_length = j.value("input_length", size_t{0});
    o.attempt = j.value("attempt", 0);
    o.reply_to = j.value("reply_to", std::string());
    o.delivery_error = j.value("delivery_error", std::string());
    if (j.contains("replay_of")) {
      o.replay_of.topic = j["replay_of"].value("topic", std::string());
      o.replay_of.partition = j["replay_of"].value("partition", -1);
      o.replay_of.offset = j["replay_of"].value("offset", int64_t{-1});
    }
    o.policy = j.value("policy", std::string());
    o.original_length = j.value("original_length", size_t{0});
    o.windows = j.value("windows", 0);
    if (j.contains("meta")) o.meta_json = j["meta"].dump();
    if (o.ok) {
      o.output = j.at("output").get<std::vector<float>>();
      o.device = j.value("device", std::string());
      o.bucket = j.value("bucket", 0);
      o.batch_size = j.value("batch_size", 0);
      o.padded_length = j.value("padded_length", 0);
      if (j.contains("model")) {
        o.model_name = j["model"].value("name", std::string());
        o.model_digest = j["model"].value("digest", std::string());
      }
      if (j.contains("timings")) {
        o.queue_seconds = j["timings"].value("queue_seconds", 0.0);
        o.run_seconds = j["timings"].value("run_seconds", 0.0);
      }
    } else {
      o.reason = j.at("reason").get<std::string>();
      o.error = j.value("error", std::string());
      if (j.contains("payload_base64")) {
        if (!absl::Base64Unescape(j["payload_base64"].get<std::string>(), &o.payload)) {
          return absl::InvalidArgumentError("bad outcome JSON: payload_base64 is not base64");
        }
      } else {
        o.payload = j.value("payload", std::string());
      }
      o.payload_truncated = j.value("payload_truncated", false);
      if (j.contains("source")) {
        o.origin.topic = j["source"].value("topic", std::string());
        o.origin.partition = j["source"].value("partition", -1);
        o.origin.offset = j["source"].value("offset", int64_t{-1});
      }
    }
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(std::string("bad outcome JSON: ") + e.what());
  }
  return o;
}

}  // namespace qinfer
