// The outcome store's values (qinfer/core/stored_record.h). A compact value
// is a tag byte, two little-endian uint32 (where the base64 goes in the
// text, how many bytes), the bytes, then the text. JSON text starts with '{',
// so the tag tells the two apart, and a store written before compact values
// reads as it always did.
#include "qinfer/core/stored_record.h"

#include <cstdint>
#include <cstring>
#include <limits>

#include "absl/strings/escaping.h"

namespace qinfer {

namespace {

constexpr char kCompactTag = '\x01';
constexpr size_t kHeader = 1 + 2 * sizeof(uint32_t);

void AppendU32(std::string& out, uint32_t v) {
  char b[sizeof v];
  for (size_t i = 0; i < sizeof v; ++i) b[i] = char((v >> (8 * i)) & 0xff);
  out.append(b, sizeof b);
}

uint32_t ReadU32(const char* p) {
  uint32_t v = 0;
  for (size_t i = 0; i < sizeof v; ++i) v |= uint32_t(uint8_t(p[i])) << (8 * i);
  return v;
}

std::string Base64(std::string_view bytes) { return absl::Base64Escape(absl::string_view(bytes.data(), bytes.size())); }

}  // namespace

std::string_view StoredRecord::Json(std::string& buffer) const {
  if (!output_apart) return json;
  buffer.assign(json.substr(0, output_at));
  buffer += Base64(output_bytes);
  buffer.append(json.substr(output_at));
  return buffer;
}

std::optional<std::string> CompactStoredValue(std::string_view json, std::string_view output_bytes) {
  constexpr std::string_view kKey = "\"output\":\"";
  constexpr size_t kMax = std::numeric_limits<uint32_t>::max();
  if (output_bytes.empty() || json.size() > kMax || output_bytes.size() > kMax) return std::nullopt;
  const size_t key = json.rfind(kKey);
  if (key == std::string_view::npos) return std::nullopt;
  const size_t at = key + kKey.size();
  const size_t length = (output_bytes.size() + 2) / 3 * 4;
  if (at + length >= json.size() || json[at + length] != '"') return std::nullopt;
  if (json.compare(at, length, Base64(output_bytes)) != 0) return std::nullopt;
  std::string value;
  value.reserve(kHeader + output_bytes.size() + json.size() - length);
  value += kCompactTag;
  AppendU32(value, uint32_t(at));
  AppendU32(value, uint32_t(output_bytes.size()));
  value.append(output_bytes);
  value.append(json.substr(0, at));
  value.append(json.substr(at + length));
  return value;
}

std::optional<StoredRecord> ReadStoredValue(std::string_view value) {
  if (!value.empty() && value.front() == '{') return StoredRecord::Text(value);
  if (value.size() < kHeader || value.front() != kCompactTag) return std::nullopt;
  const size_t at = ReadU32(value.data() + 1);
  const size_t bytes = ReadU32(value.data() + 1 + sizeof(uint32_t));
  if (bytes == 0 || bytes > value.size() - kHeader) return std::nullopt;
  StoredRecord r;
  r.output_apart = true;
  r.output_bytes = value.substr(kHeader, bytes);
  r.json = value.substr(kHeader + bytes);
  r.output_at = at;
  // The text around the cut: an object, and the output's empty string.
  if (r.json.empty() || r.json.front() != '{' || at == 0 || at >= r.json.size() || r.json[at - 1] != '"' ||
      r.json[at] != '"') {
    return std::nullopt;
  }
  return r;
}

}  // namespace qinfer
