#include "qinfer/core/json_scan.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

namespace qinfer {

using nlohmann::json;

namespace {

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The end of the string literal that starts at text[i] (a quote).
size_t StringEnd(std::string_view text, size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
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

std::optional<std::string_view> RawJsonMember(std::string_view text, std::string_view key) {
  std::optional<std::string_view> found;
  size_t i = text.find('{');
  if (i == std::string_view::npos) return found;
  ++i;
  auto skip_space = [&] {
    while (i < text.size() && IsJsonSpace(text[i])) ++i;
  };
  while (true) {
    skip_space();
    if (i >= text.size() || text[i] != '"') return found;
    const size_t key_end = StringEnd(text, i);
    const std::string_view literal = text.substr(i, key_end - i);
    // A key written with escapes is read as the parse reads it.
    const bool same = literal.find('\\') == std::string_view::npos
                          ? literal.substr(1, literal.size() - 2) == key
                          : json::parse(literal, nullptr, false) == json(std::string(key));
    i = key_end;
    skip_space();
    if (i >= text.size() || text[i] != ':') return found;
    ++i;
    skip_space();
    const size_t value_end = ValueEnd(text, i);
    if (same) found = text.substr(i, value_end - i);
    i = value_end;
    skip_space();
    if (i >= text.size() || text[i] != ',') return found;
    ++i;
  }
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

}  // namespace qinfer
