#include "record_fields.h"

#include <charconv>
#include <cstring>
#include <optional>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "qinfer/core/json_scan.h"
#include "qinfer/core/outcome_items_json.h"
#include "qinfer/core/output_encoding.h"

namespace qinfer::export_parquet {

using nlohmann::json;

std::string_view OutputFormName(OutputForm form) {
  switch (form) {
    case OutputForm::kNone:
      return "none";
    case OutputForm::kFloats:
      return "";
    case OutputForm::kPacked:
      return "packed";
    case OutputForm::kSparse:
      return "sparse";
    case OutputForm::kRows:
      return "rows";
  }
  return "?";
}

namespace {

// The members a record may hold that the table leaves out (docs/design/messages.md,
// "Message formats"): serving detail, the failure's payload and where it came
// from. Any member neither read nor here is refused by name.
constexpr std::string_view kLeftOut[] = {"batch_size", "bucket",  "delivery_error",    "device",
                                         "padded_length", "payload", "payload_base64", "payload_truncated",
                                         "replay_of",  "reply_to", "source",            "timings"};

bool ReadString(std::string_view raw, std::string& out) {
  if (raw.size() < 2 || raw.front() != '"') return false;
  if (raw.find('\\') == std::string_view::npos) {
    out.assign(raw.data() + 1, raw.size() - 2);
    return true;
  }
  json parsed = json::parse(raw, nullptr, false);
  if (!parsed.is_string()) return false;
  out = parsed.get_ref<const std::string&>();
  return true;
}

template <typename T>
bool ReadNumber(std::string_view raw, T& out) {
  const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), out);
  return ec == std::errc() && end == raw.data() + raw.size();
}

// A JSON array of numbers (what the writer writes: no spaces) appended to
// `out`; T float or int32_t.
template <typename T>
bool AppendArray(std::string_view raw, std::vector<T>& out) {
  if (raw.size() < 2 || raw.front() != '[' || raw.back() != ']') return false;
  const char* p = raw.data() + 1;
  const char* end = raw.data() + raw.size() - 1;
  while (p < end) {
    T v;
    const auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc()) return false;
    out.push_back(v);
    p = next;
    if (p < end && *p++ != ',') return false;
  }
  return true;
}

// [[...],[...]]: the rows one after the other; the row count in `rows`.
bool ReadRows(std::string_view raw, std::vector<float>& out, int& rows) {
  if (raw.size() < 2 || raw.front() != '[' || raw.back() != ']') return false;
  rows = 0;
  size_t width = 0;
  size_t i = 1;
  while (i + 1 < raw.size()) {
    const size_t close = raw.find(']', i);
    if (close == std::string_view::npos || raw[i] != '[') return false;
    const size_t before = out.size();
    if (!AppendArray(raw.substr(i, close + 1 - i), out)) return false;
    if (rows > 0 && out.size() - before != width) return false;
    width = out.size() - before;
    ++rows;
    i = close + 1;
    if (i + 1 < raw.size() && raw[i++] != ',') return false;
  }
  return true;
}

bool ReadSparse(std::string_view raw, RecordFields& out) {
  bool indices = false, values = false;
  const bool whole = ForEachJsonMember(raw, [&](std::string_view key, std::string_view value) {
    if (key == "\"indices\"") indices = AppendArray(value, out.indices);
    if (key == "\"values\"") values = AppendArray(value, out.floats);
    return true;
  });
  return whole && indices && values && out.indices.size() == out.floats.size();
}

// The output's text in the form `out.form` says: numbers, or the base64 of
// bytes (`out.encoding`'s), or those bytes themselves where the store kept
// them apart (`apart`, stored_record.h).
bool ReadOutput(std::string_view raw, const std::optional<std::string_view>& apart, RecordFields& out) {
  if (out.form == OutputForm::kSparse) return ReadSparse(raw, out);
  if (out.form == OutputForm::kRows && raw.front() == '[') return ReadRows(raw, out.floats, out.rows);
  if (raw.front() == '[') return AppendArray(raw, out.floats);
  std::string& packed = out.packed;
  std::string_view bytes;
  if (apart) {
    bytes = *apart;
  } else {
    if (!absl::Base64Unescape(absl::string_view(raw.data() + 1, raw.size() - 2), &packed)) return false;
    bytes = packed;
  }
  if (out.encoding != encoding::kBase64) {
    if (apart) packed.assign(bytes);
    return true;
  }
  if (!FloatsOfBase64Output(bytes, out.floats).ok()) return false;
  packed.clear();
  return true;
}

// The form of an output whose text starts `raw` (the encoding and "rows"
// members are read by then: the output is read after the whole record).
OutputForm FormOf(std::string_view raw, const RecordFields& r) {
  if (raw.empty()) return OutputForm::kNone;
  if (raw.front() == '{') return OutputForm::kSparse;
  if (raw.front() == '"') {
    if (r.encoding != encoding::kBase64) return OutputForm::kPacked;
    return r.rows > 0 ? OutputForm::kRows : OutputForm::kFloats;
  }
  return raw.size() > 1 && raw[1] == '[' ? OutputForm::kRows : OutputForm::kFloats;
}

// A list of scores, entities or tokens (outcome_items_json.h).
template <typename T>
bool ReadObjects(std::string_view raw, std::vector<T>& out) {
  json parsed = json::parse(raw, nullptr, false);
  if (!parsed.is_array()) return false;
  try {
    parsed.get_to(out);
  } catch (const json::exception&) {
    return false;
  }
  return true;
}

bool ReadModel(std::string_view raw, RecordFields& r) {
  bool ok = true;
  ForEachJsonMember(raw, [&](std::string_view key, std::string_view value) {
    if (key == "\"name\"") ok = ok && ReadString(value, r.model_name);
    if (key == "\"digest\"") ok = ok && ReadString(value, r.model_digest);
    return true;
  });
  return ok;
}

void Clear(RecordFields& r) {
  r.ok = false;
  for (std::string* s : {&r.id, &r.reason, &r.error, &r.encoding, &r.label, &r.model_name, &r.model_digest,
                         &r.policy, &r.packed, &r.meta}) {
    s->clear();
  }
  r.input_length = r.completed_at_ms = r.original_length = 0;
  r.attempt = r.windows = r.rows = 0;
  r.score.reset();
  r.form = OutputForm::kNone;
  r.floats.clear();
  r.indices.clear();
  r.has_scores = r.has_entities = r.has_tokens = false;
  r.scores.clear();
  r.entities.clear();
  r.tokens.clear();
}

// One member into `r`: false when its value is not what the writer writes.
// `output` is kept for after the walk (its form needs "encoding" and
// "rows"); a member the record should not have is named in `unknown`.
bool ReadMember(std::string_view key, std::string_view value, bool values, RecordFields& r,
                std::string_view& output, std::string& unknown) {
  if (key == "id") return ReadString(value, r.id);
  if (key == "status") {
    r.ok = value == "\"ok\"";
    return r.ok || value == "\"failed\"";
  }
  if (key == "output") {
    output = value;
    return !value.empty();
  }
  if (key == "encoding") return ReadString(value, r.encoding);
  if (key == "rows") return ReadNumber(value, r.rows) && r.rows > 0;
  if (key == "meta") {
    r.meta.assign(value);
    return true;
  }
  if (key == "scores") return (r.has_scores = true) && (!values || ReadObjects(value, r.scores));
  if (key == "entities") return (r.has_entities = true) && (!values || ReadObjects(value, r.entities));
  if (key == "tokens") return (r.has_tokens = true) && (!values || ReadObjects(value, r.tokens));
  if (key == "score") {
    r.score = 0;
    return !values || ReadNumber(value, *r.score);
  }
  if (key == "label") return ReadString(value, r.label);
  if (key == "policy") return ReadString(value, r.policy);
  if (key == "windows") return ReadNumber(value, r.windows);
  if (key == "original_length") return ReadNumber(value, r.original_length);
  if (!values) return true;
  if (key == "reason") return ReadString(value, r.reason);
  if (key == "error") return ReadString(value, r.error);
  if (key == "input_length") return ReadNumber(value, r.input_length);
  if (key == "completed_at_ms") return ReadNumber(value, r.completed_at_ms);
  if (key == "attempt") return ReadNumber(value, r.attempt);
  if (key == "model") return ReadModel(value, r);
  for (std::string_view left_out : kLeftOut) {
    if (key == left_out) return true;
  }
  unknown.assign(key);
  return false;
}

// The record's id for a message: a member ordered before "id" stops the
// walk before the id is read, so it is looked up then.
const std::string& IdOf(const StoredRecord& record, RecordFields& r) {
  if (r.id.empty()) {
    if (std::optional<std::string_view> raw = RawJsonMember(record.json, "id")) ReadString(*raw, r.id);
  }
  return r.id;
}

}  // namespace

absl::Status ReadRecordFields(const StoredRecord& record, bool values, RecordFields& r) {
  Clear(r);
  std::string_view output;
  std::string bad, unknown;
  const bool whole = ForEachJsonMember(record.json, [&](std::string_view literal, std::string_view value) {
    const std::string_view key = literal.substr(1, literal.size() - 2);
    if (!ReadMember(key, value, values, r, output, unknown)) bad.assign(key);
    return bad.empty();
  });
  if (!unknown.empty()) {
    return absl::InvalidArgumentError("record " + IdOf(record, r) + ": member `" + unknown +
                                      "` is not one a record holds");
  }
  if (bad.empty() && !whole) bad = "(the record is not a JSON object)";
  if (bad.empty() && r.ok != !output.empty()) bad = "output";
  // A compact output's bytes were kept apart, its text cut out where
  // "output" is "" now; a cut anywhere else is read as the whole text.
  std::optional<std::string_view> apart;
  if (bad.empty() && record.output_apart) {
    if (output.data() != record.json.data() + record.output_at - 1 || output != "\"\"") {
      std::string text;
      return ReadRecordFields(StoredRecord::Text(record.Json(text)), values, r);
    }
    apart = record.output_bytes;
  }
  if (bad.empty() && r.ok) {
    r.form = FormOf(output, r);
    if (values && !ReadOutput(output, apart, r)) bad = "output";
  }
  if (!bad.empty()) return absl::InvalidArgumentError("record " + IdOf(record, r) + ": cannot read `" + bad + "`");
  return absl::OkStatus();
}

}  // namespace qinfer::export_parquet
