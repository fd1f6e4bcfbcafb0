// Reading a member of a JSON object as the bytes it stands as, which a
// parse cannot give back (it re-orders keys and re-spaces values): what
// keeps a job's `meta` as its producer wrote it, from the message to the
// record and back.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace qinfer {

// Within `text`, a JSON object known to be valid (it parsed), the text of
// the value of its top-level member `key` as it stands in `text` (the last
// one, as the parse keeps), or nullopt without such a member. A key written
// with escapes is matched as the parse reads it.
std::optional<std::string_view> RawJsonMember(std::string_view text, std::string_view key);

// Calls fn(key, value) for each top-level member of the JSON object in
// `text`, in the order written: `key` as its literal stands (quotes and
// any escapes included), `value` the text of its value. Stops early when fn
// returns false. False when `text` is not an object as far as it was read
// (a scan, not a parse: the caller knows the text is valid JSON).
bool ForEachJsonMember(std::string_view text,
                       const std::function<bool(std::string_view key, std::string_view value)>& fn);

// Appends `v` as records write numbers: the shortest form that reads back
// as the same float (0.1f as 0.1, not the 0.10000000149011612 it widens
// to) or double; an integral value keeps ".0", so that it still reads as a
// float; NaN and Inf, which JSON cannot hold, as null.
void AppendJsonNumber(std::string& out, float v);
void AppendJsonNumber(std::string& out, double v);

// `values` as a JSON array of numbers (each as AppendJsonNumber writes it);
// with `rows` > 0, as an array of `rows` arrays of values.size() / rows
// each (a vector a token). The record writer and the decoders of a stored
// base64 output both write floats so.
void AppendJsonFloats(std::string& out, std::span<const float> values, int rows = 0);

}  // namespace qinfer
