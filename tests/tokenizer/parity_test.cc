// Parity with the Python `tokenizers` library: 2,000 texts of many kinds
// (tests/tokenizer/make_parity.py writes them with the ids Python gives, at
// build time) must get exactly the same ids and character offsets from
// qinfer::tokenizer on all-MiniLM-L6-v2's tokenizer.json: the whole sequence
// (ids and offsets), the truncations at
// 256 and 16, and the overflowing windows at (256, 0), (256, 32) and (16, 4).
// Skipped, with the reason, when the venv cannot run make_parity.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::tokenizer {
namespace {

using Ids = std::vector<int64_t>;
using nlohmann::json;

// The text for a failure message: escaped, at most 120 bytes of it.
std::string Printable(const std::string& text) {
  return json(text.substr(0, 120)).dump(-1, ' ', true, json::error_handler_t::replace) +
         (text.size() > 120 ? "..." : "");
}

std::string Describe(const Ids& got, const Ids& want) {
  const auto [g, w] = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
  std::ostringstream out;
  out << "got " << got.size() << " ids, want " << want.size() << "; first difference at " << (g - got.begin());
  if (g != got.end()) out << " (got " << *g << ")";
  if (w != want.end()) out << " (want " << *w << ")";
  return out.str();
}

class ParityTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef QINFER_TOKENIZER_PARITY_JSON
    GTEST_SKIP() << QINFER_TOKENIZER_PARITY_MISSING;
#else
    std::ifstream in(QINFER_TOKENIZER_PARITY_JSON);
    ASSERT_TRUE(in) << "cannot read " << QINFER_TOKENIZER_PARITY_JSON << " (built by tests/tokenizer/make_parity.py)";
    doc_ = json::parse(in);
    auto tokenizer = Tokenizer::Load(doc_["tokenizer"].get<std::string>());
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    tokenizer_ = std::move(*tokenizer);
#endif
  }

  json doc_;
  std::unique_ptr<Tokenizer> tokenizer_;
};

TEST_F(ParityTest, EveryTextGetsThePythonLibrarysIdsAndOffsets) {
  const json& cases = doc_["cases"];
  ASSERT_GE(cases.size(), 2000u);
  std::map<std::string, int> kinds;
  size_t checked_tokens = 0;
  size_t windowed = 0;
  int failures = 0;
  auto fail = [&](size_t i, const std::string& what, const std::string& detail) {
    if (++failures <= 20) {
      ADD_FAILURE() << "case " << i << " (" << cases[i]["kind"].get<std::string>() << ", "
                    << Printable(cases[i]["text"].get<std::string>()) << "): " << what << ": " << detail;
    }
  };
  auto check_windows = [&](size_t i, const Encoding& encoding, size_t max_length, size_t stride, const char* key) {
    const auto want = cases[i][key].get<std::vector<Ids>>();
    auto got = encoding.Windows(max_length, stride);
    if (!got.ok()) return fail(i, key, got.status().ToString());
    if (got->size() != want.size()) {
      return fail(i, key, "got " + std::to_string(got->size()) + " windows, want " + std::to_string(want.size()));
    }
    for (size_t w = 0; w < want.size(); ++w) {
      if ((*got)[w] != want[w]) {
        return fail(i, std::string(key) + " window " + std::to_string(w), Describe((*got)[w], want[w]));
      }
    }
    if (want.size() > 1) ++windowed;
    auto truncated = encoding.Truncated(max_length);
    if (!truncated.ok()) return fail(i, key, truncated.status().ToString());
    if (*truncated != want.front()) {
      fail(i, "truncated to " + std::to_string(max_length), Describe(*truncated, want.front()));
    }
  };

  for (size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    ++kinds[c["kind"].get<std::string>()];
    auto encoding = tokenizer_->Encode(c["text"].get<std::string>());
    if (!encoding.ok()) {
      fail(i, "Encode", encoding.status().ToString());
      continue;
    }
    const auto want = c["ids"].get<Ids>();
    const Ids got = encoding->Ids();
    if (got != want) fail(i, "ids", Describe(got, want));
    if (encoding->length() != want.size()) fail(i, "length", std::to_string(encoding->length()));
    if (encoding->special_tokens_only() != c["special_only"].get<bool>()) {
      fail(i, "special_tokens_only", encoding->special_tokens_only() ? "true" : "false");
    }
    std::vector<std::pair<uint32_t, uint32_t>> offsets;
    for (const Span& span : encoding->Spans()) offsets.emplace_back(span.start, span.end);
    const auto want_offsets = c["offsets"].get<std::vector<std::pair<uint32_t, uint32_t>>>();
    if (offsets != want_offsets) {
      const auto first = std::mismatch(offsets.begin(), offsets.end(), want_offsets.begin(), want_offsets.end()).first;
      fail(i, "offsets", "first difference at token " + std::to_string(first - offsets.begin()));
    }
    if (c.contains("tokens") && encoding->Tokens() != c["tokens"].get<std::vector<std::string>>()) {
      fail(i, "tokens", "differ");
    }
    check_windows(i, *encoding, 256, 0, "w256_0");
    check_windows(i, *encoding, 256, 32, "w256_32");
    check_windows(i, *encoding, 16, 4, "w16_4");
    checked_tokens += want.size();
  }
  EXPECT_EQ(failures, 0) << "texts whose ids differ from Python's tokenizers "
                         << doc_["tokenizers_version"].get<std::string>() << " (the first 20 are listed above)";
  std::string summary;
  for (const auto& [kind, n] : kinds) summary += " " + kind + "=" + std::to_string(n);
  std::cout << "parity: " << cases.size() << " texts, " << checked_tokens << " tokens, " << windowed
            << " window sets of more than one window;" << summary << "\n";
  // Every kind the generator promises is present, and long texts exercise
  // the windows.
  EXPECT_GE(kinds["long"], 100);
  EXPECT_GE(windowed, 100u);
}

}  // namespace
}  // namespace qinfer::tokenizer
