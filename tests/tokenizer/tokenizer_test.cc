// qinfer::tokenizer on a tiny WordPiece tokenizer.json that the test writes
// itself (no venv needed), and the checks that need all-MiniLM-L6-v2's
// tokenizer.json (skipped with the reason when the venv lacks it). The
// comparison with the Python library on 2,000 texts is parity_test.cc.
#include "qinfer/tokenizer/tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace qinfer::tokenizer {
namespace {

using ::testing::HasSubstr;
using Ids = std::vector<int64_t>;

// WordPiece with BERT's normalizer, pre-tokenizer and post-processor
// ([CLS] = 2 ... [SEP] = 3). The stored padding (to 16) and truncation (to 4)
// must be ignored by Load.
constexpr const char* kTinyJson = R"json({
  "version": "1.0",
  "truncation": {"direction": "Right", "max_length": 4, "strategy": "LongestFirst", "stride": 0},
  "padding": {"strategy": {"Fixed": 16}, "direction": "Right", "pad_to_multiple_of": null,
              "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
  "added_tokens": [
    {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true},
    {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true},
    {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true},
    {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true},
    {"id": 4, "content": "[MASK]", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true}
  ],
  "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                 "strip_accents": false, "lowercase": true},
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "post_processor": POST_PROCESSOR,
  "decoder": null,
  "model": {
    "type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
    "max_input_chars_per_word": 100,
    "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "hello": 5,
              "world": 6, "a": 7, "b": 8, "c": 9, "d": 10, "e": 11, "f": 12, "##s": 13,
              "!": 14, "café": 15}
  }
})json";
constexpr const char* kBertProcessing =
    R"json({"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]})json";

std::string TinyJson(const std::string& post_processor) {
  std::string json = kTinyJson;
  const std::string marker = "POST_PROCESSOR";
  json.replace(json.find(marker), marker.size(), post_processor);
  return json;
}

class TokenizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) / (std::string("tokenizer_test-") + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& content) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  std::unique_ptr<Tokenizer> Tiny(const std::string& post_processor = kBertProcessing) {
    auto tokenizer = Tokenizer::Load(Write("tokenizer.json", TinyJson(post_processor)));
    EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
    return tokenizer.ok() ? std::move(*tokenizer) : nullptr;
  }

  static Encoding Encode(const Tokenizer& tokenizer, std::string_view text) {
    auto encoding = tokenizer.Encode(text);
    EXPECT_TRUE(encoding.ok()) << encoding.status();
    return std::move(*encoding);
  }

  std::filesystem::path dir_;
};

TEST_F(TokenizerTest, MissingFileIsNotFoundNamingThePath) {
  const std::string path = (dir_ / "absent.json").string();
  auto tokenizer = Tokenizer::Load(path);
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_EQ(tokenizer.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(tokenizer.status().message()), HasSubstr(path));
}

TEST_F(TokenizerTest, DirectoryIsNotFound) {
  auto tokenizer = Tokenizer::Load(dir_.string());
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_EQ(tokenizer.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(TokenizerTest, GarbageFileIsInvalidArgumentNamingThePath) {
  for (const std::string& content : std::vector<std::string>{"not json {", "{}", "", R"({"model": 7})"}) {
    const std::string path = Write("garbage.json", content);
    auto tokenizer = Tokenizer::Load(path);
    ASSERT_FALSE(tokenizer.ok()) << content;
    EXPECT_EQ(tokenizer.status().code(), absl::StatusCode::kInvalidArgument) << content;
    EXPECT_THAT(std::string(tokenizer.status().message()), HasSubstr(path));
  }
}

TEST_F(TokenizerTest, EncodesWithTheSpecialTokensOfThePostProcessor) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->vocab_size(), 16u);
  EXPECT_EQ(tokenizer->added_tokens(), 2u);

  Encoding encoding = Encode(*tokenizer, "Hellos  CAFÉ!");
  EXPECT_EQ(encoding.Ids(), (Ids{2, 5, 13, 15, 14, 3}));
  EXPECT_EQ(encoding.Tokens(), (std::vector<std::string>{"[CLS]", "hello", "##s", "café", "!", "[SEP]"}));
  EXPECT_EQ(encoding.length(), 6u);
  EXPECT_FALSE(encoding.special_tokens_only());
}

TEST_F(TokenizerTest, IgnoresThePaddingAndTruncationStoredInTheFile) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  // The file pads to 16 and truncates to 4.
  EXPECT_EQ(Encode(*tokenizer, "hello").Ids(), (Ids{2, 5, 3}));
  EXPECT_EQ(Encode(*tokenizer, "a b c d e f").Ids(), (Ids{2, 7, 8, 9, 10, 11, 12, 3}));
}

TEST_F(TokenizerTest, NonUtf8TextIsInvalidArgument) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  for (const std::string& text : std::vector<std::string>{"\xff", "hello \xc3", "\xc0\xaf", "\xed\xa0\x80",
                                                          "\xf4\x90\x80\x80", std::string("a\0\xfe", 3)}) {
    auto encoding = tokenizer->Encode(text);
    ASSERT_FALSE(encoding.ok());
    EXPECT_EQ(encoding.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(encoding.status().message()), HasSubstr("UTF-8"));
  }
  // A NUL is UTF-8, and a control character the normalizer drops ("a\0b"
  // would be one word, "ab").
  EXPECT_EQ(Encode(*tokenizer, std::string("a\0 b", 4)).Ids(), (Ids{2, 7, 8, 3}));
  EXPECT_EQ(Encode(*tokenizer, std::string("a\0b", 3)).Ids(), (Ids{2, 1, 3}));
}

TEST_F(TokenizerTest, TextWithNothingOfItsOwnIsSpecialTokensOnly) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  for (const std::string& text : std::vector<std::string>{"", " ", "   \t\n\r ", "\x01\x7f", std::string(1, '\0'),
                                                          "xyz", "[CLS] [SEP]", "[MASK]"}) {
    Encoding encoding = Encode(*tokenizer, text);
    EXPECT_TRUE(encoding.special_tokens_only()) << "text: " << text;
  }
  EXPECT_EQ(Encode(*tokenizer, "").Ids(), (Ids{2, 3}));
  EXPECT_EQ(Encode(*tokenizer, "xyz").Ids(), (Ids{2, 1, 3}));
  EXPECT_EQ(Encode(*tokenizer, "[CLS] [SEP]").Ids(), (Ids{2, 2, 3, 3}));
  EXPECT_FALSE(Encode(*tokenizer, "[MASK]hello").special_tokens_only());
  EXPECT_FALSE(Encode(*tokenizer, " a ").special_tokens_only());
}

TEST_F(TokenizerTest, TruncatesKeepingTheSpecialTokens) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  Encoding encoding = Encode(*tokenizer, "a b c d e f");
  auto truncated = encoding.Truncated(5);
  ASSERT_TRUE(truncated.ok()) << truncated.status();
  EXPECT_EQ(*truncated, (Ids{2, 7, 8, 9, 3}));
  // One token of content is the least.
  EXPECT_EQ(*encoding.Truncated(3), (Ids{2, 7, 3}));
  // A text that fits is whole.
  EXPECT_EQ(*encoding.Truncated(8), encoding.Ids());
  EXPECT_EQ(*encoding.Truncated(1000), encoding.Ids());
  // Truncation leaves the encoding whole.
  EXPECT_EQ(encoding.length(), 8u);
}

// A pair as the library encodes it: [CLS] text [SEP] pair [SEP], type ids 0
// then 1; truncated longest first (values from Python `tokenizers` on the same
// tokenizer.json: encode("a b c d e f", "a b") with enable_truncation(7), (5)).
TEST_F(TokenizerTest, APairIsEncodedAndTruncatedAsTheLibraryDoes) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->added_tokens(/*pair=*/true), 3u);
  auto encoded = tokenizer->Encode("a b c d e f", "a b");
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(encoded->Ids(), (Ids{2, 7, 8, 9, 10, 11, 12, 3, 7, 8, 3}));
  EXPECT_EQ(encoded->TypeIds(), (Ids{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}));
  Ids types;
  EXPECT_EQ(*encoded->Truncated(7, &types), (Ids{2, 7, 8, 3, 7, 8, 3}));
  EXPECT_EQ(types, (Ids{0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(*encoded->Truncated(5, &types), (Ids{2, 7, 3, 7, 3}));
  EXPECT_EQ(types, (Ids{0, 0, 0, 1, 1}));
  EXPECT_FALSE(encoded->Truncated(3).ok()) << "no room beside a pair's 3 special tokens";
  // A pair is truncated, never windowed.
  EXPECT_EQ(encoded->Windows(7, 1).status().code(), absl::StatusCode::kInvalidArgument);
  // One text: every type id 0.
  EXPECT_EQ(Encode(*tokenizer, "a b").TypeIds(), (Ids{0, 0, 0, 0}));
  EXPECT_FALSE(tokenizer->Encode("a", "\xff").ok()) << "a pair's second text must be UTF-8 too";
}

// Spans are character (code point) offsets, as Python's tokenizers gives
// them ("café" is 4 characters, 5 bytes), special tokens marked and (0, 0).
TEST_F(TokenizerTest, SpansAreCharacterOffsetsIntoTheTextWithSpecialTokensMarked) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  Encoding encoding = Encode(*tokenizer, "café a bs");
  EXPECT_EQ(encoding.Ids(), (Ids{2, 15, 7, 8, 13, 3}));
  const std::vector<Span> want{{0, 0, true}, {0, 4, false}, {5, 6, false}, {7, 8, false}, {8, 9, false}, {0, 0, true}};
  EXPECT_EQ(encoding.Spans(), want);
  std::vector<Span> spans;
  EXPECT_EQ(*encoding.Truncated(4, nullptr, &spans), (Ids{2, 15, 7, 3}));
  EXPECT_EQ(spans, (std::vector<Span>{want[0], want[1], want[2], want[5]}));
  std::vector<std::vector<Span>> windows;
  ASSERT_TRUE(encoding.Windows(4, 1, &windows).ok());
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(windows[1], (std::vector<Span>{want[0], want[2], want[3], want[5]})) << "offsets into the whole text";
  EXPECT_EQ(tokenizer->IdToToken(13), "##s");
  EXPECT_EQ(tokenizer->IdToToken(15), "café");
  EXPECT_EQ(tokenizer->IdToToken(9999), "");
}

TEST_F(TokenizerTest, WindowsOverlapByTheStrideEachWithItsSpecialTokens) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  Encoding encoding = Encode(*tokenizer, "a b c d e f");
  // What Python's tokenizers gives with enable_truncation(max_length=5, stride=1).
  auto windows = encoding.Windows(5, 1);
  ASSERT_TRUE(windows.ok()) << windows.status();
  EXPECT_EQ(*windows, (std::vector<Ids>{{2, 7, 8, 9, 3}, {2, 9, 10, 11, 3}, {2, 11, 12, 3}}));
  EXPECT_EQ(*encoding.Windows(5, 0), (std::vector<Ids>{{2, 7, 8, 9, 3}, {2, 10, 11, 12, 3}}));
  EXPECT_EQ(*encoding.Windows(3, 0),
            (std::vector<Ids>{{2, 7, 3}, {2, 8, 3}, {2, 9, 3}, {2, 10, 3}, {2, 11, 3}, {2, 12, 3}}));
  // A text that fits is one window.
  EXPECT_EQ(*encoding.Windows(8, 5), (std::vector<Ids>{encoding.Ids()}));
  EXPECT_EQ(*Encode(*tokenizer, "").Windows(3, 0), (std::vector<Ids>{{2, 3}}));
}

TEST_F(TokenizerTest, LengthsWithoutRoomForContentAreInvalidArgument) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  Encoding encoding = Encode(*tokenizer, "a b c d e f");
  for (const size_t max_length : {0, 1, 2}) {
    auto truncated = encoding.Truncated(max_length);
    ASSERT_FALSE(truncated.ok()) << max_length;
    EXPECT_EQ(truncated.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(truncated.status().message()), HasSubstr("max_length"));
    auto windows = encoding.Windows(max_length, 0);
    ASSERT_FALSE(windows.ok()) << max_length;
    EXPECT_EQ(windows.status().code(), absl::StatusCode::kInvalidArgument);
  }
  // The stride must be below the room for content (5 - 2 special tokens),
  // even when the text fits.
  for (const size_t stride : {3, 4, 100}) {
    auto windows = encoding.Windows(5, stride);
    ASSERT_FALSE(windows.ok()) << stride;
    EXPECT_EQ(windows.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(windows.status().message()), HasSubstr("stride"));
    EXPECT_FALSE(encoding.Windows(1000, 998).ok());
  }
  EXPECT_TRUE(encoding.Windows(5, 2).ok());
  EXPECT_TRUE(encoding.Windows(1000, 997).ok());
}

TEST_F(TokenizerTest, WithoutAPostProcessorNothingIsAdded) {
  auto tokenizer = Tiny("null");
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->added_tokens(), 0u);
  Encoding encoding = Encode(*tokenizer, "a b c");
  EXPECT_EQ(encoding.Ids(), (Ids{7, 8, 9}));
  EXPECT_EQ(*encoding.Truncated(1), (Ids{7}));
  EXPECT_EQ(*encoding.Windows(2, 1), (std::vector<Ids>{{7, 8}, {8, 9}}));
  EXPECT_FALSE(encoding.Truncated(0).ok());
  Encoding empty = Encode(*tokenizer, "");
  EXPECT_EQ(empty.length(), 0u);
  EXPECT_TRUE(empty.special_tokens_only());
}

TEST_F(TokenizerTest, EncodingOutlivesItsTokenizerAndMoves) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  Encoding encoding = Encode(*tokenizer, "a b c d e f");
  tokenizer.reset();
  EXPECT_EQ(*encoding.Truncated(5), (Ids{2, 7, 8, 9, 3}));

  Encoding moved = std::move(encoding);
  EXPECT_EQ(moved.length(), 8u);
  EXPECT_EQ(encoding.length(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_TRUE(encoding.Ids().empty());

  auto other = Tiny();
  ASSERT_NE(other, nullptr);
  moved = Encode(*other, "hello");
  EXPECT_EQ(moved.Ids(), (Ids{2, 5, 3}));
}

TEST_F(TokenizerTest, EncodesOnManyThreadsAtOnce) {
  auto tokenizer = Tiny();
  ASSERT_NE(tokenizer, nullptr);
  std::vector<std::vector<Ids>> results(4);
  std::vector<std::thread> threads;
  for (auto& result : results) {
    threads.emplace_back([&tokenizer, &result] {
      for (int i = 0; i < 500; ++i) {
        auto encoding = tokenizer->Encode(i % 2 ? "hello world" : "a b c d e f");
        result.push_back(encoding.ok() ? encoding->Ids() : Ids{});
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) {
    ASSERT_EQ(result.size(), 500u);
    for (int i = 0; i < 500; ++i) {
      EXPECT_EQ(result[i], i % 2 ? (Ids{2, 5, 6, 3}) : (Ids{2, 7, 8, 9, 10, 11, 12, 3}));
    }
  }
}

// all-MiniLM-L6-v2's tokenizer.json: BERT's uncased WordPiece, padding to 128
// and truncation to 128 stored in the file.
class MiniLmTokenizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef QINFER_MINILM_TOKENIZER
    auto tokenizer = Tokenizer::Load(QINFER_MINILM_TOKENIZER);
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    tokenizer_ = std::move(*tokenizer);
#else
    GTEST_SKIP() << QINFER_TOKENIZER_PARITY_MISSING;
#endif
  }

  Encoding Encode(std::string_view text) {
    auto encoding = tokenizer_->Encode(text);
    EXPECT_TRUE(encoding.ok()) << encoding.status();
    return std::move(*encoding);
  }

  std::unique_ptr<Tokenizer> tokenizer_;
};

TEST_F(MiniLmTokenizerTest, IsBertUncasedWithoutItsStoredPaddingAndTruncation) {
  EXPECT_EQ(tokenizer_->vocab_size(), 30522u);
  EXPECT_EQ(tokenizer_->added_tokens(), 2u);
  Encoding hello = Encode("Hello, world!");
  EXPECT_EQ(hello.Tokens(), (std::vector<std::string>{"[CLS]", "hello", ",", "world", "!", "[SEP]"}));
  EXPECT_EQ(hello.Ids(), (Ids{101, 7592, 1010, 2088, 999, 102}));
  std::string long_text;
  for (int i = 0; i < 300; ++i) long_text += "word ";
  EXPECT_EQ(Encode(long_text).length(), 302u);
}

TEST_F(MiniLmTokenizerTest, SpecialTokensOnlyForTextsWithNothingOfTheirOwn) {
  for (const std::string& text : std::vector<std::string>{"", "   ", "\t\n", "\x01\x02\x7f", "\u200b", "[CLS]",
                                                          "[SEP] [MASK] [PAD] [UNK]", std::string(101, 'a')}) {
    EXPECT_TRUE(Encode(text).special_tokens_only()) << "text: " << text;
  }
  EXPECT_EQ(Encode("[CLS]").Ids(), (Ids{101, 101, 102}));
  EXPECT_EQ(Encode(std::string(101, 'a')).Ids(), (Ids{101, 100, 102}));
  EXPECT_FALSE(Encode("[cls]").special_tokens_only());
  EXPECT_FALSE(Encode(std::string(100, 'a')).special_tokens_only());
}

}  // namespace
}  // namespace qinfer::tokenizer
