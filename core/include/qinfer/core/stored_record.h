// A record as the outcome store keeps it (docs/design/storage.md): the JSON
// text OutcomeToJson wrote, coded smaller, and a compact output (a job's
// `encoding`: in the text, the base64 of its bytes) kept as the bytes
// themselves, apart from the text. A reader gets the text back byte for byte.
//
// Why code the text: besides its vector, a record carries about 370 bytes
// of member names, model digest and the like (a MiniLM result: `ubinary`
// bytes are 48 of about 420). The table files' block compression sees that,
// but the write-ahead log, the memtables and the block cache hold values as
// they are. The code (stored_record.cc) swaps the member names a record
// writes for one byte each and a long lowercase hex run (the model's
// digest) for its bytes; it is fixed, part of the stored format.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace qinfer {

// A stored record as a reader gets it: views into the stored value, or into
// the text buffer ReadStoredValue decoded it into.
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
// compact output is `output_bytes` (empty for none): the coded text, with
// that output's base64 cut out and its bytes kept apart when the text's
// last "output" string is exactly their base64.
std::string StoredValue(std::string_view json, std::string_view output_bytes);

// What a stored value holds: a value StoredValue made (its text decoded
// into `text`, which must outlive the record), or one of the forms stores
// written before it hold: JSON text as it is (an object), or a compact
// output apart from the text as it is. nullopt when it is none of these.
std::optional<StoredRecord> ReadStoredValue(std::string_view value, std::string& text);

}  // namespace qinfer
