// WithDecodedOutput (qinfer/core/outcome_json.h): a stored record's compact
// output as numbers, changed in the record's own text.
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "qinfer/core/json_scan.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/core/output_encoding.h"

namespace qinfer {

using nlohmann::json;

namespace {

// Erases member `key` of `text`, whose value stands at [value_at, value_at +
// value_size), with the comma before it, as the writer puts a member that is
// never first. False when it is not there so.
bool EraseMember(std::string& text, std::string_view key, size_t value_at, size_t value_size) {
  const std::string member = ",\"" + std::string(key) + "\":";
  if (value_at < member.size() || text.compare(value_at - member.size(), member.size(), member) != 0) return false;
  text.erase(value_at - member.size(), member.size() + value_size);
  return true;
}

// base64's float32 values as `rows` arrays of numbers.
absl::StatusOr<std::string> RowsOfNumbers(std::string_view bytes, int rows) {
  absl::StatusOr<std::vector<float>> values = FloatsOfBase64Output(bytes);
  if (!values.ok()) return values.status();
  if (rows <= 0 || values->size() % size_t(rows) != 0) {
    return absl::InvalidArgumentError("record's `rows` does not divide its output's values");
  }
  std::string out;
  AppendJsonFloats(out, *values, rows);
  return out;
}

}  // namespace

absl::StatusOr<std::string> WithDecodedOutput(std::string text) {
  if (text.find("\"encoding\":") == std::string::npos) return text;  // the common case: nothing to decode
  if (!json::accept(text)) return absl::InvalidArgumentError("record is not JSON");
  const std::optional<std::string_view> enc = RawJsonMember(text, "encoding");
  const std::optional<std::string_view> output = RawJsonMember(text, "output");
  const std::optional<std::string_view> rows = RawJsonMember(text, "rows");
  if (!enc || !output || output->size() < 2 || output->front() != '"') return text;
  const std::string name = json::parse(*enc).get<std::string>();
  std::string bytes;
  const absl::string_view base64(output->data() + 1, output->size() - 2);
  if (!IsOutputEncoding(name) || !absl::Base64Unescape(base64, &bytes)) {
    return absl::InvalidArgumentError("record's `output` is not base64 of its `encoding` " + name);
  }
  absl::StatusOr<std::string> numbers =
      rows ? RowsOfNumbers(bytes, json::parse(*rows).get<int>()) : DecodedOutputJson(bytes, name);
  if (!numbers.ok()) return numbers.status();
  // The members stand in `text` as the writer put them (compact, in byte
  // order of their keys, "encoding" never first): changed in place, the
  // last one first.
  const size_t output_at = size_t(output->data() - text.data()), output_size = output->size();
  const size_t encoding_at = size_t(enc->data() - text.data()), encoding_size = enc->size();
  if (rows && !EraseMember(text, "rows", size_t(rows->data() - text.data()), rows->size())) {
    return absl::InvalidArgumentError("record's `rows` is not where its writer puts it");
  }
  text.replace(output_at, output_size, *numbers);
  if (name == encoding::kBase64 && !EraseMember(text, "encoding", encoding_at, encoding_size)) {
    return absl::InvalidArgumentError("record's `encoding` is not where its writer puts it");
  }
  return text;
}

}  // namespace qinfer
