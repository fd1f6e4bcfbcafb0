// The outcome store's values (qinfer/core/stored_record.h).
//
// A value StoredValue makes: the tag byte 0x02; a varint, how many bytes of
// a compact output are kept apart (0 for none); where there are some, a
// varint, where their base64 goes in the text, then the bytes; then the
// coded text. In the coded text a byte from 0x20 up, or a tab, line feed or
// carriage return, is itself; each other byte is a code:
//
//   a member name of kFragments      the fragment itself
//   kHexRun, varint n, n bytes       2n lowercase hex digits (a digest)
//   kLiteral, varint n, n bytes      those n bytes as they are (long runs of
//                                    text: a reader copies them unscanned)
//
// JSON text holds no byte below 0x20 but white space (control characters
// in strings are escaped), so the codes never stand for themselves; a
// stretch of text that holds one anyway is written as a literal. Decoding
// undoes every code whatever the text, so the text comes back exactly.
//
// Stores written before hold JSON text as it is ('{') or the tag 0x01, two
// little-endian uint32 (where the base64 goes, how many bytes), the bytes,
// then the text as it is; they read as they always did.
#include "qinfer/core/stored_record.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>

#include "absl/strings/escaping.h"

namespace qinfer {

namespace {

constexpr char kLegacyCompactTag = '\x01';
constexpr char kCodedTag = '\x02';
constexpr size_t kLegacyHeader = 1 + 2 * sizeof(uint32_t);

constexpr uint8_t kHexRun = 0x1e;
constexpr uint8_t kLiteral = 0x1f;
// Text runs this long or longer are written as a literal.
constexpr size_t kLiteralFrom = 32;
// Hex runs shorter than this are left as text.
constexpr size_t kHexFrom = 32;

// The member names OutcomeToJson writes most (every result's, classify's,
// tokens', a failure's), each with its opening quote and its colon, some
// with the value every record has. Part of the stored format: a change is a
// new tag. Where two share a start, the longer comes first.
struct Fragment {
  uint8_t code;
  std::string_view text;
};
constexpr Fragment kFragments[] = {
    {0x01, R"("batch_size":)"},
    {0x02, R"("bucket":)"},
    {0x03, R"("completed_at_ms":)"},
    {0x04, R"("device":)"},
    {0x05, R"("encoding":)"},
    {0x06, R"("id":)"},
    {0x07, R"("input_length":)"},
    {0x08, R"("model":{"digest":"sha256:)"},
    {0x0b, R"("name":)"},
    {0x0c, R"("output":)"},
    {0x0e, R"("padded_length":)"},
    {0x0f, R"("status":"ok")"},
    {0x10, R"("timings":{"queue_seconds":)"},
    {0x11, R"("run_seconds":)"},
    {0x12, R"("meta":)"},
    {0x13, R"("label":)"},
    {0x14, R"("scores":[)"},
    {0x15, R"("score":)"},
    {0x16, R"("start":)"},
    {0x17, R"("end":)"},
    {0x18, R"("text":)"},
    {0x19, R"("token":)"},
    {0x1a, R"("status":"failed")"},
    {0x1b, R"("reason":)"},
    {0x1c, R"("error":)"},
    {0x1d, R"("payload":)"},
};

bool IsText(uint8_t c) { return c >= 0x20 || c == '\t' || c == '\n' || c == '\r'; }

// What each code byte stands for (empty: not a fragment).
const std::array<std::string_view, 32>& FragmentOfCode() {
  static const std::array<std::string_view, 32> table = [] {
    std::array<std::string_view, 32> t{};
    for (const Fragment& f : kFragments) t[f.code] = f.text;
    return t;
  }();
  return table;
}

bool IsHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

void AppendVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += char(uint8_t(v) | 0x80);
    v >>= 7;
  }
  out += char(uint8_t(v));
}

// Reads a varint at p (advanced past it); false when it runs past end or
// past 64 bits.
bool ReadVarint(const char*& p, const char* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const uint8_t b = uint8_t(*p++);
    v |= uint64_t(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

// The text of `literal` as the coded text writes it.
void AppendText(std::string& out, std::string_view literal) {
  if (literal.empty()) return;
  bool plain = literal.size() < kLiteralFrom;
  for (size_t i = 0; plain && i < literal.size(); ++i) plain = IsText(uint8_t(literal[i]));
  if (!plain) {
    out += char(kLiteral);
    AppendVarint(out, literal.size());
  }
  out.append(literal);
}

// The fragment `text` starts with at its quote, if any.
const Fragment* FragmentAt(std::string_view text) {
  if (text.size() < 2) return nullptr;
  for (const Fragment& f : kFragments) {
    if (f.text[1] == text[1] && text.substr(0, f.text.size()) == f.text) return &f;
  }
  return nullptr;
}

// Codes `text` onto `out`: a fragment at a quote, a hex run after a quote
// or a fragment, everything else text.
void AppendCoded(std::string& out, std::string_view text) {
  size_t copied = 0;  // text before this is already in `out`
  size_t at = 0;
  while (at < text.size()) {
    const size_t quote = text.find('"', at);
    if (quote == std::string_view::npos) break;
    size_t hex_at = quote + 1;
    if (const Fragment* f = FragmentAt(text.substr(quote))) {
      AppendText(out, text.substr(copied, quote - copied));
      out += char(f->code);
      copied = hex_at = quote + f->text.size();
    }
    size_t digits = 0;
    while (hex_at + digits < text.size() && IsHexDigit(text[hex_at + digits])) ++digits;
    digits &= ~size_t(1);
    if (digits >= kHexFrom) {
      AppendText(out, text.substr(copied, hex_at - copied));
      out += char(kHexRun);
      AppendVarint(out, digits / 2);
      out += absl::HexStringToBytes(absl::string_view(text.data() + hex_at, digits));
      copied = hex_at + digits;
    }
    at = std::max(copied, quote + 1);
  }
  AppendText(out, text.substr(copied));
}

// Decodes coded text onto `out`; false when it is not coded text.
bool AppendDecoded(std::string& out, std::string_view coded) {
  const std::array<std::string_view, 32>& fragments = FragmentOfCode();
  const char* p = coded.data();
  const char* const end = p + coded.size();
  while (p < end) {
    const char* run = p;
    while (p < end && IsText(uint8_t(*p))) ++p;
    out.append(run, size_t(p - run));
    if (p == end) break;
    const uint8_t code = uint8_t(*p++);
    uint64_t n = 0;
    if (code == kLiteral || code == kHexRun) {
      if (!ReadVarint(p, end, n) || n > uint64_t(end - p)) return false;
      if (code == kLiteral) {
        out.append(p, size_t(n));
      } else {
        out += absl::BytesToHexString(absl::string_view(p, size_t(n)));  // lowercase, as IsHexDigit takes it
      }
      p += n;
    } else if (!fragments[code].empty()) {
      out.append(fragments[code]);
    } else {
      return false;
    }
  }
  return true;
}

uint32_t ReadU32(const char* p) {
  uint32_t v = 0;
  for (size_t i = 0; i < sizeof v; ++i) v |= uint32_t(uint8_t(p[i])) << (8 * i);
  return v;
}

std::string Base64(std::string_view bytes) { return absl::Base64Escape(absl::string_view(bytes.data(), bytes.size())); }

// The characters of the (padded) base64 of n bytes.
size_t Base64Length(size_t n) { return (n + 2) / 3 * 4; }

// Where the base64 of `bytes` is the text's last "output" string: just after
// its opening quote; npos when it is not.
size_t OutputAt(std::string_view json, std::string_view bytes) {
  constexpr std::string_view kKey = "\"output\":\"";
  if (bytes.empty()) return std::string_view::npos;
  const size_t key = json.rfind(kKey);
  if (key == std::string_view::npos) return std::string_view::npos;
  const size_t at = key + kKey.size();
  const size_t length = Base64Length(bytes.size());
  if (at + length >= json.size() || json[at + length] != '"') return std::string_view::npos;
  if (json.compare(at, length, Base64(bytes)) != 0) return std::string_view::npos;
  return at;
}

// A record whose bytes are apart: its text has the output's empty string
// at `at`.
bool CutAt(std::string_view json, size_t at) {
  return !json.empty() && json.front() == '{' && at > 0 && at < json.size() && json[at - 1] == '"' &&
         json[at] == '"';
}

}  // namespace

std::string_view StoredRecord::Json(std::string& buffer) const {
  if (!output_apart) return json;
  buffer.assign(json.substr(0, output_at));
  buffer += Base64(output_bytes);
  buffer.append(json.substr(output_at));
  return buffer;
}

std::string StoredValue(std::string_view json, std::string_view output_bytes) {
  const size_t at = OutputAt(json, output_bytes);
  const bool apart = at != std::string_view::npos;
  const size_t length = apart ? Base64Length(output_bytes.size()) : 0;
  std::string value;
  value.reserve(24 + json.size() - length + (apart ? output_bytes.size() : 0));
  value += kCodedTag;
  if (apart) {
    AppendVarint(value, output_bytes.size());
    AppendVarint(value, at);
    value.append(output_bytes);
    AppendCoded(value, json.substr(0, at));
    AppendCoded(value, json.substr(at + length));
  } else {
    AppendVarint(value, 0);
    AppendCoded(value, json);
  }
  return value;
}

std::optional<StoredRecord> ReadStoredValue(std::string_view value, std::string& text) {
  if (!value.empty() && value.front() == '{') return StoredRecord::Text(value);
  if (!value.empty() && value.front() == kCodedTag) {
    const char* p = value.data() + 1;
    const char* const end = value.data() + value.size();
    uint64_t bytes = 0, at = 0;
    if (!ReadVarint(p, end, bytes)) return std::nullopt;
    if (bytes > 0 && !ReadVarint(p, end, at)) return std::nullopt;
    if (bytes > uint64_t(end - p)) return std::nullopt;
    StoredRecord r;
    r.output_apart = bytes > 0;
    r.output_bytes = std::string_view(p, size_t(bytes));
    r.output_at = size_t(at);
    p += bytes;
    text.clear();
    if (!AppendDecoded(text, std::string_view(p, size_t(end - p)))) return std::nullopt;
    r.json = text;
    if (r.json.empty() || r.json.front() != '{') return std::nullopt;
    if (r.output_apart && !CutAt(r.json, r.output_at)) return std::nullopt;
    return r;
  }
  if (value.size() < kLegacyHeader || value.front() != kLegacyCompactTag) return std::nullopt;
  const size_t at = ReadU32(value.data() + 1);
  const size_t bytes = ReadU32(value.data() + 1 + sizeof(uint32_t));
  if (bytes == 0 || bytes > value.size() - kLegacyHeader) return std::nullopt;
  StoredRecord r;
  r.output_apart = true;
  r.output_bytes = value.substr(kLegacyHeader, bytes);
  r.json = value.substr(kLegacyHeader + bytes);
  r.output_at = at;
  if (!CutAt(r.json, at)) return std::nullopt;
  return r;
}

}  // namespace qinfer
