#include "qinfer/core/json_scan.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>

#include <nlohmann/json.hpp>

namespace qinfer {

using nlohmann::json;

namespace {

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The end of the string literal that starts at text[i] (a quote).
// A quote ends it unless an odd number of backslashes stands before it
// (memchr from quote to quote: a base64 vector is a long string).
size_t StringEnd(std::string_view text, size_t i) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  const char* p = begin + i + 1;
  while (p < end) {
    const char* quote = static_cast<const char*>(std::memchr(p, '"', size_t(end - p)));
    if (quote == nullptr) break;
    const char* q = quote;
    while (q > begin + i + 1 && q[-1] == '\\') --q;
    if ((quote - q) % 2 == 0) return size_t(quote - begin) + 1;
    p = quote + 1;
  }
  return text.size();
}

// The end of the JSON value that starts at text[i].
size_t ValueEnd(std::string_view text, size_t i) {
  if (text[i] == '"') return StringEnd(text, i);
  if (text[i] != '{' && text[i] != '[') {
    while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' && !IsJsonSpace(text[i])) ++i;
    return i;
  }
  // An array of numbers (a vector: most of a record's bytes, so searched
  // with memchr): when nothing before the first ']' opens a string, an
  // array or an object, that ']' closes it.
  if (text[i] == '[') {
    const size_t close = text.find(']', i);
    if (close != std::string_view::npos) {
      const char* from = text.data() + i + 1;
      const size_t n = close - i - 1;
      if (!std::memchr(from, '[', n) && !std::memchr(from, '{', n) && !std::memchr(from, '"', n)) return close + 1;
    }
  }
  int depth = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      i = StringEnd(text, i);
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    ++i;
    if (depth == 0) return i;
  }
  return i;
}

}  // namespace

bool ForEachJsonMember(std::string_view text,
                       const std::function<bool(std::string_view key, std::string_view value)>& fn) {
  size_t i = text.find('{');
  if (i == std::string_view::npos) return false;
  ++i;
  auto skip_space = [&] {
    while (i < text.size() && IsJsonSpace(text[i])) ++i;
  };
  skip_space();
  if (i < text.size() && text[i] == '}') return true;
  while (true) {
    skip_space();
    if (i >= text.size() || text[i] != '"') return false;
    const size_t key_end = StringEnd(text, i);
    const std::string_view literal = text.substr(i, key_end - i);
    i = key_end;
    skip_space();
    if (i >= text.size() || text[i] != ':') return false;
    ++i;
    skip_space();
    if (i >= text.size()) return false;
    const size_t value_end = ValueEnd(text, i);
    if (!fn(literal, text.substr(i, value_end - i))) return true;
    i = value_end;
    skip_space();
    if (i < text.size() && text[i] == '}') return true;
    if (i >= text.size() || text[i] != ',') return false;
    ++i;
  }
}

std::optional<std::string_view> RawJsonMember(std::string_view text, std::string_view key) {
  std::optional<std::string_view> found;
  ForEachJsonMember(text, [&](std::string_view literal, std::string_view value) {
    // A key written with escapes is read as the parse reads it.
    const bool same = literal.find('\\') == std::string_view::npos
                          ? literal.substr(1, literal.size() - 2) == key
                          : json::parse(literal, nullptr, false) == json(std::string(key));
    if (same) found = value;
    return true;
  });
  return found;
}

namespace {

template <typename T>
void AppendShortest(std::string& out, T v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[40];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, end);
  if (std::find_if(buf, end, [](char c) { return c == '.' || c == 'e'; }) == end) out += ".0";
}

}  // namespace

void AppendJsonNumber(std::string& out, float v) { AppendShortest(out, v); }
void AppendJsonNumber(std::string& out, double v) { AppendShortest(out, v); }

void AppendJsonFloats(std::string& out, std::span<const float> values, int rows) {
  if (rows > 0) {
    const size_t width = values.size() / size_t(rows);
    out += '[';
    for (size_t row = 0; row < size_t(rows); ++row) {
      if (row > 0) out += ',';
      AppendJsonFloats(out, values.subspan(row * width, width));
    }
    out += ']';
    return;
  }
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    AppendShortest(out, values[i]);
  }
  out += ']';
}

}  // namespace qinfer
