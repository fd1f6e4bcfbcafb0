// A record as the outcome store keeps it (DESIGN.md, "Storage"): the JSON
// text OutcomeToJson wrote, except that a compact output (a job's
// `encoding`: in the text, the base64 of its bytes) is kept as the bytes
// themselves, apart from the text. Bytes are three quarters of their base64,
// and a reader that wants the bytes (the Parquet export) takes them without
// decoding; a reader that wants the text gets it back byte for byte.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace qinfer {

// A stored record as a reader gets it: views into the stored value.
struct StoredRecord {
  // The record's text. When `output_apart`, its "output" is the empty
  // string, and the base64 of `output_bytes` belongs at `output_at` (just
  // after the opening quote).
  std::string_view json;
  bool output_apart = false;
  size_t output_at = 0;
  std::string_view output_bytes;

  // A record stored as its text.
  static StoredRecord Text(std::string_view json) {
    StoredRecord r;
    r.json = json;
    return r;
  }

  // The record as OutcomeToJson wrote it: `json` itself, or the text with
  // its output's base64 put back, made in `buffer`.
  std::string_view Json(std::string& buffer) const;
};

// The value to store for `json` (OutcomeToJson's bytes) of an outcome whose
// compact output is `output_bytes`: the text with that output's base64 cut
// out and its bytes kept apart. nullopt, to store `json` as it is, when
// there are no bytes, or the text's last "output" string is not exactly
// their base64 (the value always gives back the very text it was made of).
std::optional<std::string> CompactStoredValue(std::string_view json, std::string_view output_bytes);

// What a stored value holds: JSON text as it is (an object), or a value
// CompactStoredValue made. nullopt when it is neither.
std::optional<StoredRecord> ReadStoredValue(std::string_view value);

}  // namespace qinfer
