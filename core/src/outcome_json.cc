#include "qinfer/core/outcome_json.h"

#include "qinfer/core/json_scan.h"
#include "qinfer/core/outcome_items_json.h"
#include "qinfer/core/output_encoding.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "qinfer/core/utf8.h"

namespace qinfer {

using nlohmann::json;

namespace {

// The writer below emits the documented JSON of an outcome directly, without
// building a document first: on the recording path every outcome is encoded
// once for the store and its reply, and a DOM of ~20 members (a std::map of
// std::string keys) cost more than the store write itself. The bytes are
// what nlohmann::json's dump() wrote for the same record (members in byte
// order of their keys, the same escapes, integral floats with ".0"), except
// for floats: each output value is written in the shortest form that reads
// back as the same float32 (std::to_chars), rather than as the double it
// widens to (0.1, not 0.10000000149011612).

// Appends `s` as a JSON string: '"' and '\\' escaped, control characters as
// \b \t \n \f \r or \u00XX, everything else verbatim (UTF-8 stays UTF-8).
// Bytes that are not UTF-8 are replaced by U+FFFD, as nlohmann's
// error_handler_t::replace does; records hold no such bytes in practice
// (payloads that are not UTF-8 go to payload_base64).
void AppendString(std::string& out, std::string_view s) {
  // Nearly every string (ids, names, digests) needs no escape: one scan,
  // one copy.
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
    ++i;
  }
  if (i == s.size()) {
    out.push_back('"');
    out.append(s);
    out.push_back('"');
    return;
  }
  if (!IsValidUtf8(s.substr(i))) {
    out += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t plain = 0;  // start of the run of bytes copied as they are
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xf];
    }
  }
  out.append(s.data() + plain, s.size() - plain);
  out += '"';
}

template <typename T>
void AppendInt(std::string& out, T v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, end);
}

// Members of one object, written in the order the caller gives them (the
// callers below give them in byte order of their keys).
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) { out_ += '{'; }
  ~ObjectWriter() { out_ += '}'; }
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;

  // Starts member `key`; the caller appends its value to out().
  std::string& Key(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_.append(key);  // keys are fixed ASCII names
    out_ += "\":";
    return out_;
  }
  void String(std::string_view key, std::string_view v) { AppendString(Key(key), v); }
  template <typename T>
  void Int(std::string_view key, T v) {
    AppendInt(Key(key), v);
  }
  void Double(std::string_view key, double v) { AppendJsonNumber(Key(key), v); }
  void Bool(std::string_view key, bool v) { Key(key) += v ? "true" : "false"; }

 private:
  std::string& out_;
  bool first_ = true;
};

// `values` as a JSON array of integers.
void AppendInts(std::string& out, std::span<const int32_t> values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    AppendInt(out, values[i]);
  }
  out += ']';
}

// `items` as a JSON array of objects, each written by `write(object, item)`.
template <typename T, typename WriteItem>
void AppendObjects(std::string& out, const std::vector<T>& items, WriteItem write) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    ObjectWriter object(out);
    write(object, items[i]);
  }
  out += ']';
}

void AppendOrigin(std::string& out, const Origin& o) {
  ObjectWriter w(out);
  w.Int("offset", o.offset);
  w.Int("partition", o.partition);
  w.String("topic", o.topic);
}

void AppendMeta(std::string& out, const std::string& meta_json) {
  // meta_json came from a parsed message, so it is JSON (the decoder writes
  // it compact, with sorted keys): kept as it is. Never write a record that
  // cannot be read back: text that is not JSON is kept as a string.
  if (json::accept(meta_json)) {
    out += meta_json;
  } else {
    AppendString(out, meta_json);
  }
}

void AppendResult(std::string& out, const Outcome& o) {
  ObjectWriter w(out);
  if (o.attempt > 0) w.Int("attempt", o.attempt);
  w.Int("batch_size", o.batch_size);
  w.Int("bucket", o.bucket);
  w.Int("completed_at_ms", o.completed_at_ms);
  if (!o.delivery_error.empty()) w.String("delivery_error", o.delivery_error);
  w.String("device", o.device);
  if (!o.encoding.empty()) w.String("encoding", o.encoding);
  if (o.entities) {
    AppendObjects(w.Key("entities"), *o.entities, [](ObjectWriter& entity, const Entity& e) {
      entity.Int("end", e.end);
      entity.String("label", e.label);
      AppendJsonNumber(entity.Key("score"), e.score);
      entity.Int("start", e.start);
      entity.String("text", e.text);
    });
  }
  w.String("id", o.id);
  w.Int("input_length", o.input_length);
  if (!o.label.empty()) w.String("label", o.label);
  if (!o.meta_json.empty()) AppendMeta(w.Key("meta"), o.meta_json);
  {
    ObjectWriter model(w.Key("model"));
    model.String("digest", o.model_digest);
    model.String("name", o.model_name);
  }
  if (o.original_length > 0) w.Int("original_length", o.original_length);
  std::string& output = w.Key("output");
  if (!o.encoding.empty()) {
    output += '"';
    output += absl::Base64Escape(o.output_bytes);
    output += '"';
  } else if (o.sparse_indices) {
    ObjectWriter sparse(output);
    AppendInts(sparse.Key("indices"), std::span<const int32_t>(*o.sparse_indices));
    AppendJsonFloats(sparse.Key("values"), o.output);
  } else {
    AppendJsonFloats(output, o.output, o.output_rows);
  }
  w.Int("padded_length", o.padded_length);
  if (!o.policy.empty()) w.String("policy", o.policy);
  if (!o.replay_of.topic.empty()) AppendOrigin(w.Key("replay_of"), o.replay_of);
  if (!o.reply_to.empty()) w.String("reply_to", o.reply_to);
  // An encoded vector a token: the bytes hold rows x width values.
  if (!o.encoding.empty() && o.output_rows > 0) w.Int("rows", o.output_rows);
  if (o.score) AppendJsonNumber(w.Key("score"), *o.score);
  if (!o.scores.empty()) {
    AppendObjects(w.Key("scores"), o.scores, [](ObjectWriter& entry, const LabelScore& s) {
      entry.String("label", s.label);
      AppendJsonNumber(entry.Key("score"), s.score);
    });
  }
  w.String("status", "ok");
  {
    ObjectWriter timings(w.Key("timings"));
    timings.Double("queue_seconds", o.queue_seconds);
    timings.Double("run_seconds", o.run_seconds);
  }
  if (o.tokens) {
    AppendObjects(w.Key("tokens"), *o.tokens, [](ObjectWriter& token, const TokenLabel& t) {
      token.Int("end", t.end);
      token.String("label", t.label);
      AppendJsonNumber(token.Key("score"), t.score);
      token.Int("start", t.start);
      token.String("token", t.token);
    });
  }
  if (o.windows > 0) w.Int("windows", o.windows);
}

void AppendFailure(std::string& out, const Outcome& o) {
  ObjectWriter w(out);
  if (o.attempt > 0) w.Int("attempt", o.attempt);
  w.Int("completed_at_ms", o.completed_at_ms);
  if (!o.delivery_error.empty()) w.String("delivery_error", o.delivery_error);
  w.String("error", o.error);
  w.String("id", o.id);
  w.Int("input_length", o.input_length);
  if (!o.meta_json.empty()) AppendMeta(w.Key("meta"), o.meta_json);
  if (o.original_length > 0) w.Int("original_length", o.original_length);
  // Bytes that are not UTF-8 cannot be a JSON string; base64 keeps them
  // exactly: the record holds the original message.
  if (IsValidUtf8(o.payload)) {
    w.String("payload", o.payload);
  } else {
    w.String("payload_base64", absl::Base64Escape(o.payload));
  }
  if (o.payload_truncated) w.Bool("payload_truncated", true);
  if (!o.policy.empty()) w.String("policy", o.policy);
  w.String("reason", o.reason);
  if (!o.replay_of.topic.empty()) AppendOrigin(w.Key("replay_of"), o.replay_of);
  if (!o.reply_to.empty()) w.String("reply_to", o.reply_to);
  AppendOrigin(w.Key("source"), o.origin);
  w.String("status", "failed");
  if (o.windows > 0) w.Int("windows", o.windows);
}

}  // namespace

std::string OutcomeToJson(const Outcome& o) {
  std::string out;
  // Room for the whole record, so that it is built without a reallocation.
  size_t labels = o.label.size();
  for (const LabelScore& s : o.scores) labels += 32 + s.label.size();
  if (o.entities) {
    for (const Entity& e : *o.entities) labels += 80 + e.label.size() + e.text.size();
  }
  if (o.tokens) {
    for (const TokenLabel& t : *o.tokens) labels += 80 + t.label.size() + t.token.size();
  }
  out.reserve(320 + 16 * o.output.size() + (o.output_bytes.size() * 4) / 3 + labels + o.id.size() + o.device.size() + o.model_name.size() + o.model_digest.size() +
              o.reply_to.size() + o.delivery_error.size() + o.policy.size() + o.origin.topic.size() +
              o.replay_of.topic.size() + o.error.size() + o.meta_json.size() + (o.payload.size() * 4) / 3 + 4);
  if (o.ok) {
    AppendResult(out, o);
  } else {
    AppendFailure(out, o);
  }
  return out;
}

std::string OutcomeWithHistoryToJson(const Outcome& outcome, std::span<const Outcome> history) {
  if (history.empty()) return OutcomeToJson(outcome);
  // Not on the recording path (`results --id`): a document is fine here.
  json j = json::parse(OutcomeToJson(outcome));
  json& records = j["history"] = json::array();
  for (const Outcome& o : history) records.push_back(json::parse(OutcomeToJson(o)));
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void from_json(const json& j, LabelScore& s) {
  j.at("label").get_to(s.label);
  j.at("score").get_to(s.score);
}

namespace {

// An entity or a token: a labelled, scored span and its text under `text_key`.
template <typename T, std::string T::*kText>
void ReadSpan(const json& j, T& span, const char* text_key) {
  j.at("end").get_to(span.end);
  j.at("label").get_to(span.label);
  j.at("score").get_to(span.score);
  j.at("start").get_to(span.start);
  j.at(text_key).get_to(span.*kText);
}

}  // namespace

void from_json(const json& j, Entity& e) { ReadSpan<Entity, &Entity::text>(j, e, "text"); }
void from_json(const json& j, TokenLabel& t) { ReadSpan<TokenLabel, &TokenLabel::token>(j, t, "token"); }

namespace {

// A result's own fields (the record's "ok" side). Throws json::exception;
// false when an encoded output is not base64 of a known encoding.
bool ReadResult(const json& j, Outcome& o) {
  o.encoding = j.value("encoding", std::string());
  if (o.encoding.empty() && j.at("output").is_object()) {
    o.sparse_indices = j["output"].at("indices").get<std::vector<int32_t>>();
    o.output = j["output"].at("values").get<std::vector<float>>();
  } else if (o.encoding.empty() && !j.at("output").empty() && j["output"].front().is_array()) {
    for (const json& row : j["output"]) {
      const std::vector<float> values = row.get<std::vector<float>>();
      o.output.insert(o.output.end(), values.begin(), values.end());
    }
    o.output_rows = int(j["output"].size());
  } else if (o.encoding.empty()) {
    o.output = j.at("output").get<std::vector<float>>();
  } else if (!IsOutputEncoding(o.encoding) || o.encoding == encoding::kFloat ||
             !absl::Base64Unescape(j.at("output").get<std::string>(), &o.output_bytes)) {
    return false;
  } else {
    o.output_rows = j.value("rows", 0);
  }
  o.label = j.value("label", std::string());
  if (j.contains("score")) o.score = j["score"].get<float>();
  if (j.contains("entities")) o.entities = j["entities"].get<std::vector<Entity>>();
  if (j.contains("tokens")) o.tokens = j["tokens"].get<std::vector<TokenLabel>>();
  if (j.contains("scores")) o.scores = j["scores"].get<std::vector<LabelScore>>();
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
  return true;
}

// A failure record's own fields. Throws json::exception; false when the
// payload is not base64.
bool ReadFailure(const json& j, Outcome& o) {
  o.reason = j.at("reason").get<std::string>();
  o.error = j.value("error", std::string());
  if (j.contains("payload_base64")) {
    if (!absl::Base64Unescape(j["payload_base64"].get<std::string>(), &o.payload)) return false;
  } else {
    o.payload = j.value("payload", std::string());
  }
  o.payload_truncated = j.value("payload_truncated", false);
  if (j.contains("source")) {
    o.origin.topic = j["source"].value("topic", std::string());
    o.origin.partition = j["source"].value("partition", -1);
    o.origin.offset = j["source"].value("offset", int64_t{-1});
  }
  return true;
}

}  // namespace

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
    if (j.contains("meta")) {
      // As it was stored: the producer's bytes (the job's `meta`).
      const std::optional<std::string_view> raw = RawJsonMember(text, "meta");
      o.meta_json = raw ? std::string(*raw) : j["meta"].dump();
    }
    if (o.ok) {
      if (!ReadResult(j, o)) {
        return absl::InvalidArgumentError("bad outcome JSON: `output` is not base64 of its `encoding` (" +
                                          OutputEncodingNames() + " but float)");
      }
    } else if (!ReadFailure(j, o)) {
      return absl::InvalidArgumentError("bad outcome JSON: payload_base64 is not base64");
    }
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(std::string("bad outcome JSON: ") + e.what());
  }
  return o;
}

}  // namespace qinfer
