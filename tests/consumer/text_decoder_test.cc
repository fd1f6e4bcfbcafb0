// Text jobs: the decoder tokenizes `text` with the model's tokenizer (a real
// Hugging Face tokenizer, tests/data/tiny-tokenizer.json: BERT's normalizer,
// pre-tokenizer and [CLS] ... [SEP] post-processor over a WordPiece vocabulary
// of 67 tokens; its stored padding and truncation must be ignored), and the
// over-long policies cut where the tokenizer cuts.
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "decoder_paths.h"
#include "qinfer/consumer/job_decoder.h"
#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::consumer {
namespace {

// Ids of the tiny tokenizer.
constexpr int64_t kCls = 2, kSep = 3, kUnk = 1;
constexpr int64_t kZero = 5;  // "zero".."nine" are 5..14
int64_t Word(int n) { return kZero + n; }
const char* kWords[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};

class TextDecoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = tokenizer::Tokenizer::Load(QINFER_TINY_TOKENIZER);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    tokenizer_ = std::move(*loaded);
    limits_.vocab_size = 100;
    limits_.max_tokens = 8;
    limits_.tokenizer = tokenizer_.get();
  }

  Decoded Decode(std::string_view value) const { return DecodeWith(limits_, value); }
  static Decoded DecodeWith(const DecoderLimits& limits, std::string_view value) {
    RawMessage m;
    m.value = value;
    m.origin = {"jobs", 1, 17, 3};
    return DecodeJob(m, limits);
  }
  // {"id":"t","text":"one two ... (n words)"<extra>}
  static std::string Words(int n, const std::string& extra = "") {
    std::string text;
    for (int i = 0; i < n; ++i) text += std::string(i ? " " : "") + kWords[(i + 1) % 10];
    return R"({"id":"t","text":")" + text + "\"" + extra + "}";
  }
  // [CLS] word(1) .. word(n) [SEP], words counted from `first`.
  static std::vector<int64_t> Sequence(int first, int n) {
    std::vector<int64_t> ids{kCls};
    for (int i = first; i < first + n; ++i) ids.push_back(Word((i + 1) % 10));
    ids.push_back(kSep);
    return ids;
  }
  static std::vector<Job> Jobs(const Decoded& d) {
    const auto* jobs = std::get_if<std::vector<Job>>(&d);
    EXPECT_NE(jobs, nullptr) << "expected jobs, got: " << std::get<Outcome>(d).error;
    return jobs ? *jobs : std::vector<Job>();
  }
  static void ExpectFailure(const Decoded& d, const char* reason, std::string_view needle) {
    ASSERT_TRUE(std::holds_alternative<Outcome>(d)) << "expected a failure record";
    const Outcome& o = std::get<Outcome>(d);
    EXPECT_EQ(o.reason, reason) << o.error;
    EXPECT_NE(o.error.find(needle), std::string::npos) << o.error;
    EXPECT_FALSE(o.payload.empty()) << "the payload is kept for replay";
    EXPECT_EQ(o.origin.offset, 17);
  }

  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
  DecoderLimits limits_;
};

TEST_F(TextDecoderTest, ATextBecomesTheTokenizersIdsWithItsSpecialTokens) {
  const std::vector<Job> jobs = Jobs(Decode(R"({"id":"doc-1","text":"One TWO three","reply_to":"r"})"));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].input_ids, (std::vector<int64_t>{kCls, Word(1), Word(2), Word(3), kSep}))
      << "lower-cased by the tokenizer's normalizer; not padded to the 16 its file asks for";
  EXPECT_EQ(jobs[0].id, "doc-1");
  EXPECT_EQ(jobs[0].reply_to, "r");
  EXPECT_TRUE(jobs[0].policy.empty());
  EXPECT_EQ(OutcomeFor(jobs[0]).input_length, 5u) << "input_length counts tokens";
}

TEST_F(TextDecoderTest, AnOverLongTextIsTooLongWithItsTokenCount) {
  const Decoded d = Decode(Words(10));
  ExpectFailure(d, reason::kTooLong, "input length 12 exceeds max_tokens 8");
  EXPECT_EQ(std::get<Outcome>(d).input_length, 12u);
}

TEST_F(TextDecoderTest, TruncateKeepsTheSpecialTokensAsTheTokenizerDoes) {
  const std::vector<Job> jobs = Jobs(Decode(Words(10, R"(,"policy":"truncate")")));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].input_ids, Sequence(0, 6)) << "[CLS] + 6 words + [SEP], not the first 8 ids";
  EXPECT_EQ(jobs[0].policy, policy::kTruncate);
  EXPECT_EQ(jobs[0].original_length, 12u);
  // truncate_to cuts the same way.
  const std::vector<Job> cut = Jobs(Decode(Words(4, R"(,"truncate_to":4)")));
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].input_ids, Sequence(0, 2));
  EXPECT_EQ(cut[0].original_length, 6u);
  ExpectFailure(Decode(Words(4, R"(,"truncate_to":2)")), reason::kInvalid, "truncate_to");
}

TEST_F(TextDecoderTest, ChunkWindowsAreTheTokenizersOverflowWindowsWithTheirStride) {
  limits_.chunk_overlap = 2;
  const std::vector<Job> windows = Jobs(Decode(Words(10, R"(,"policy":"chunk")")));
  // 10 words, 6 per window beside [CLS] and [SEP], stride 2: words 0-5, 4-9.
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[0].input_ids, Sequence(0, 6));
  EXPECT_EQ(windows[1].input_ids, Sequence(4, 6));
  for (size_t w = 0; w < windows.size(); ++w) {
    EXPECT_EQ(windows[w].window, int(w));
    EXPECT_EQ(windows[w].windows, 2);
    EXPECT_EQ(windows[w].original_length, 12u);
    EXPECT_EQ(windows[w].policy, policy::kChunk);
    EXPECT_EQ(windows[w].payload.empty(), w != 0) << "only the first window holds the payload";
  }
  limits_.max_chunks = 1;
  ExpectFailure(Decode(Words(10, R"(,"policy":"chunk")")), reason::kTooLong, "needs 2 windows");
  limits_.chunk_overlap = 6;
  ExpectFailure(Decode(Words(10, R"(,"policy":"chunk")")), reason::kTooLong, "room for 6 tokens");
}

TEST_F(TextDecoderTest, LongLaneRunsTheWholeText) {
  limits_.long_lane_max_tokens = 16;
  const std::vector<Job> jobs = Jobs(Decode(Words(10, R"(,"policy":"long_lane")")));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].input_ids, Sequence(0, 10));
  EXPECT_EQ(jobs[0].policy, policy::kLongLane);
}

// Every awkward text has a defined outcome (docs/guide/text-jobs.md, "Awkward texts").
TEST_F(TextDecoderTest, AwkwardTextsGetTheirDocumentedRecords) {
  ExpectFailure(Decode(R"({"text":""})"), reason::kInvalid, "`text` is empty");
  ExpectFailure(Decode(R"({"text":"   \t\n  "})"), reason::kInvalid, "no token besides the tokenizer's special tokens");
  ExpectFailure(Decode(R"({"text":"\u0001\u0002\u007f"})"), reason::kInvalid, "no token besides");
  ExpectFailure(Decode(R"({"text":"[CLS] [SEP]"})"), reason::kInvalid, "([CLS] [CLS] [SEP] [SEP])");
  ExpectFailure(Decode(R"({"text":")" + std::string(5000, 'x') + "\"}"), reason::kInvalid, "[UNK]");
  ExpectFailure(Decode(R"({"text":"a lone \ud800 surrogate"})"), reason::kInvalid, "not valid JSON");
  ExpectFailure(Decode("{\"text\":\"raw \x01 control\"}"), reason::kInvalid, "not valid JSON");
  ExpectFailure(Decode(R"({"text":["one"]})"), reason::kInvalid, "`text` must be a string");
  ExpectFailure(Decode(R"({"text":"one","input_ids":[1]})"), reason::kInvalid, "exactly one of");
  // A pair of surrogates is one character: the tokenizer sees an emoji,
  // which this vocabulary does not know, beside a word it knows.
  const std::vector<Job> emoji = Jobs(Decode(R"({"text":"one \ud83d\ude00"})"));
  ASSERT_EQ(emoji.size(), 1u);
  EXPECT_EQ(emoji[0].input_ids, (std::vector<int64_t>{kCls, Word(1), kUnk, kSep}));
}

TEST_F(TextDecoderTest, APairToAModelWithoutPairsIsRefusedByNameNotAnsweredForItsFirstTextAlone) {
  ExpectFailure(Decode(R"({"id":"q","text":"one two","text_pair":"three"})"), reason::kInvalid,
                "`text_pair`: this model's task is embed, which takes one text per job, not a pair");
  ExpectFailure(Decode(R"({"id":"q","input_ids":[2,6,3,7,3],"token_type_ids":[0,0,0,1,1]})"), reason::kInvalid,
                "`token_type_ids`: this model's task is embed");
  EXPECT_EQ(Jobs(Decode(R"({"id":"q","text":"one two"})")).size(), 1u);
}

// A pair model (a BERT cross-encoder): the tokenizer's pair encoding, with
// its type ids, as the library's encode(text, pair) gives them (checked
// against Python `tokenizers` on this tokenizer.json).
class PairDecoderTest : public TextDecoderTest {
 protected:
  void SetUp() override {
    TextDecoderTest::SetUp();
    limits_.task = "rerank";
    limits_.pairs = true;
    limits_.type_ids = true;
    limits_.chunk_allowed = false;
    limits_.max_tokens = 12;
  }
};

TEST_F(PairDecoderTest, APairIsTokenizedAsTheLibraryTokenizesAPair) {
  const std::vector<Job> jobs = Jobs(Decode(R"({"id":"q","text":"one two three four five","text_pair":"six seven"})"));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].input_ids, (std::vector<int64_t>{kCls, Word(1), Word(2), Word(3), Word(4), Word(5), kSep, Word(6),
                                                     Word(7), kSep}));
  EXPECT_EQ(jobs[0].type_ids, (std::vector<int64_t>{0, 0, 0, 0, 0, 0, 0, 1, 1, 1}));
  // One text to a pair model: segment 0 throughout, no type ids kept.
  const std::vector<Job> one = Jobs(Decode(R"({"id":"q","text":"one two"})"));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].type_ids.empty());
}

TEST_F(PairDecoderTest, TruncateCutsAPairLongestFirstAsTheLibraryDoes) {
  limits_.max_tokens = 8;
  const std::vector<Job> jobs =
      Jobs(Decode(R"({"id":"q","text":"one two three four five","text_pair":"six seven","policy":"truncate"})"));
  ASSERT_EQ(jobs.size(), 1u);
  // Python: Tokenizer.from_file(...).enable_truncation(8); encode(text, pair).
  EXPECT_EQ(jobs[0].input_ids, (std::vector<int64_t>{kCls, Word(1), Word(2), Word(3), kSep, Word(6), Word(7), kSep}));
  EXPECT_EQ(jobs[0].type_ids, (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(jobs[0].original_length, 10u);
  EXPECT_EQ(jobs[0].policy, "truncate");
}

TEST_F(PairDecoderTest, AwkwardPairsGetTheirDocumentedRecords) {
  ExpectFailure(Decode(R"({"text":"one","text_pair":""})"), reason::kInvalid, "`text_pair` is empty");
  ExpectFailure(Decode(R"({"text":"one","text_pair":7})"), reason::kInvalid, "`text_pair` must be a string");
  ExpectFailure(Decode(R"({"text":"one","text_pair":["two"]})"), reason::kInvalid, "`text_pair` must be a string");
  ExpectFailure(Decode(R"({"text_pair":"two"})"), reason::kInvalid, "`input_ids` is missing (or send `text`, `image` or `image_url`)");
  ExpectFailure(Decode(R"({"input_ids":[2,6,3],"text_pair":"two"})"), reason::kInvalid,
                "`text_pair` goes with `text` (with `input_ids`, send `token_type_ids`)");
  ExpectFailure(Decode(R"({"text":"one","token_type_ids":[0,0,0]})"), reason::kInvalid,
                "`token_type_ids` goes with `input_ids`");
  // The byte bound holds for the two texts together.
  limits_.max_text_bytes = 10;
  ExpectFailure(Decode(R"({"text":"one two","text_pair":"three"})"), reason::kTooLong,
                "`text` and `text_pair` are 12 bytes together, more than limits.max_text_bytes 10");
  EXPECT_EQ(Jobs(Decode(R"({"text":"one two","text_pair":"six"})")).size(), 1u);
  // chunk is not defined for a pair model's task.
  limits_.max_text_bytes = 1000;
  limits_.max_tokens = 6;
  ExpectFailure(Decode(R"({"text":"one two three four five","text_pair":"six","policy":"chunk"})"), reason::kTooLong,
                "policy chunk is not defined for task rerank");
}

// Under truncate a single text over the byte bound is cut there; a pair is
// not: cutting it could drop its second text (an `ok` record scoring a
// different input). It stays too_long, whether truncate is the service's
// policy or the job's own, and whatever its token count would be.
TEST_F(PairDecoderTest, APairOverTheByteBoundStaysTooLongUnderTruncate) {
  limits_.max_text_bytes = 10;
  for (const char* policy_source : {"config", "job"}) {
    SCOPED_TRACE(policy_source);
    const bool from_job = std::string(policy_source) == "job";
    limits_.too_long_policy = from_job ? policy::kReject : policy::kTruncate;
    const std::string own = from_job ? R"(,"policy":"truncate")" : "";
    for (const char* pair : {R"("text":"one two three","text_pair":"six")",          // the first text alone is over
                             R"("text":"one two","text_pair":"three four five six seven")",  // the pair is
                             R"("text":"one","text_pair":"two three four five six seven eight nine")"}) {
      const Decoded d = Decode(std::string(R"({"id":"p",)") + pair + own + "}");
      ExpectFailure(d, reason::kTooLong, "more than limits.max_text_bytes 10");
      ASSERT_TRUE(std::holds_alternative<Outcome>(d));
      EXPECT_NE(std::get<Outcome>(d).error.find("`text` and `text_pair` are"), std::string::npos)
          << std::get<Outcome>(d).error;
    }
    // Within the bound, truncate cuts the pair longest-first, both texts kept.
    limits_.max_text_bytes = 1000;
    limits_.max_tokens = 6;
    const std::vector<Job> cut = Jobs(Decode(std::string(R"({"id":"p","text":"one two","text_pair":"three four")") + own + "}"));
    ASSERT_EQ(cut.size(), 1u);
    EXPECT_EQ(cut[0].input_ids.back(), kSep);
    EXPECT_EQ(std::count(cut[0].input_ids.begin(), cut[0].input_ids.end(), kSep), 2) << "both texts kept";
    limits_.max_text_bytes = 10;
    limits_.max_tokens = 12;
  }
}

TEST_F(PairDecoderTest, TokenTypeIdsGoWithInputIdsAndAreCheckedAndCut) {
  const std::vector<Job> jobs = Jobs(Decode(R"({"input_ids":[2,6,3,7,3],"token_type_ids":[0,0,0,1,1]})"));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].type_ids, (std::vector<int64_t>{0, 0, 0, 1, 1}));
  ExpectFailure(Decode(R"({"input_ids":[2,6,3],"token_type_ids":[0,0]})"), reason::kInvalid,
                "`token_type_ids` must be an array as long as `input_ids` (3)");
  ExpectFailure(Decode(R"({"input_ids":[2,6,3],"token_type_ids":"0"})"), reason::kInvalid, "as long as");
  ExpectFailure(Decode(R"({"input_ids":[2,6,3],"token_type_ids":[0,2,0]})"), reason::kInvalid,
                "`token_type_ids[1]` = 2 is not 0 or 1");
  // Truncated as the ids are, the end token keeping its own type.
  limits_.end_token_id = kSep;
  limits_.max_tokens = 4;
  const std::vector<Job> cut =
      Jobs(Decode(R"({"input_ids":[2,6,3,7,8,3],"token_type_ids":[0,0,0,1,1,1],"policy":"truncate"})"));
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].input_ids, (std::vector<int64_t>{2, 6, 3, 3}));
  EXPECT_EQ(cut[0].type_ids, (std::vector<int64_t>{0, 0, 0, 1}));
  // A bad type id says more than the length: `invalid` wins over `too_long`.
  ExpectFailure(Decode(R"({"input_ids":[2,6,3,7,8,3],"token_type_ids":[0,0,0,1,5,1]})"), reason::kInvalid,
                "`token_type_ids[4]` = 5");
  // A pair model without token types (RoBERTa-like): only 0, and none kept.
  limits_.type_ids = false;
  limits_.max_tokens = 12;
  ExpectFailure(Decode(R"({"input_ids":[2,6,3],"token_type_ids":[0,1,0]})"), reason::kInvalid,
                "`token_type_ids[1]` = 1 is not 0: this model takes no token types");
  const std::vector<Job> zeros = Jobs(Decode(R"({"input_ids":[2,6,3],"token_type_ids":[0,0,0]})"));
  ASSERT_EQ(zeros.size(), 1u);
  EXPECT_TRUE(zeros[0].type_ids.empty());
  const std::vector<Job> text = Jobs(Decode(R"({"text":"one","text_pair":"two"})"));
  ASSERT_EQ(text.size(), 1u);
  EXPECT_TRUE(text[0].type_ids.empty());
}

TEST_F(TextDecoderTest, ATextOverTheByteBoundIsTooLongBeforeItIsTokenized) {
  limits_.max_text_bytes = 10;
  ExpectFailure(Decode(R"({"text":"one two three"})"), reason::kTooLong, "more than limits.max_text_bytes 10");
  EXPECT_TRUE(std::holds_alternative<std::vector<Job>>(Decode(R"({"text":"one two"})")));
}

TEST_F(TextDecoderTest, TheByteBoundHoldsAtItsExactEdge) {
  limits_.max_text_bytes = 13;
  EXPECT_EQ(Jobs(Decode(R"({"text":"one two three"})")).size(), 1u) << "13 bytes: at the bound";
  ExpectFailure(Decode(R"({"text":"one two threes"})"), reason::kTooLong,
                "`text` is 14 bytes, more than limits.max_text_bytes 13");
}

// Under truncate, a text over the byte bound is cut there (before a word)
// and tokenized: what the job keeps is what truncating the whole text keeps.
TEST_F(TextDecoderTest, TruncateCutsATextOverTheByteBoundAndKeepsWhatTheWholeTextWouldKeep) {
  limits_.max_tokens = 4;
  const std::string text = R"({"id":"t","text":"one two three four five six seven","policy":"truncate"})";
  const std::vector<Job> whole = Jobs(Decode(text));
  ASSERT_EQ(whole.size(), 1u);
  limits_.max_text_bytes = 20;  // "one two three four f|ive ..."
  const std::vector<Job> cut = Jobs(Decode(text));
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].input_ids, whole[0].input_ids);
  EXPECT_EQ(cut[0].input_ids, (std::vector<int64_t>{kCls, Word(1), Word(2), kSep}));
  EXPECT_EQ(cut[0].policy, "truncate");
  // Without truncate it stays too_long, and says how to replay it.
  ExpectFailure(Decode(R"({"text":"one two three four five six seven"})"), reason::kTooLong,
                "replay it with --policy truncate");
  // A cut part of max_tokens tokens or fewer could be kept otherwise: too_long.
  limits_.max_tokens = 8;
  limits_.max_text_bytes = 10;  // "one two th|ree ..." -> "one two": 4 tokens
  const Decoded short_part = Decode(R"({"text":"one two three four five","policy":"truncate"})");
  ExpectFailure(short_part, reason::kTooLong, "its first 7 bytes give only 4 tokens, not more than max_tokens 8");
  EXPECT_EQ(std::get<Outcome>(short_part).input_length, 4u);
}

// A tokens model: a text job keeps its text and each token's span; each
// chunk window its own spans, offsets into the whole text.
TEST_F(TextDecoderTest, ATokensModelKeepsTheTextAndEveryTokensSpan) {
  limits_.task = "tokens";
  limits_.spans = true;
  const std::vector<Job> jobs = Jobs(Decode(R"({"id":"t","text":"one two"})"));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].text, "one two");
  EXPECT_EQ(jobs[0].spans, (std::vector<TokenSpan>{
                               {0, 0, true, "[CLS]"}, {0, 3, false, "one"}, {4, 7, false, "two"}, {0, 0, true, "[SEP]"}}));
  ExpectFailure(Decode(R"({"input_ids":[2,6,3]})"), reason::kInvalid,
                "`input_ids`: this model's task is tokens, whose results are character offsets");
  limits_.max_tokens = 4;
  limits_.chunk_overlap = 1;
  const std::vector<Job> windows = Jobs(Decode(R"({"id":"t","text":"one two three four","policy":"chunk"})"));
  ASSERT_EQ(windows.size(), 3u);
  for (const Job& w : windows) {
    ASSERT_EQ(w.spans.size(), w.input_ids.size());
    EXPECT_EQ(w.text, "one two three four");
  }
  EXPECT_EQ(windows[1].spans[1], (TokenSpan{4, 7, false, "two"})) << "window 2 starts with the overlap";
  EXPECT_EQ(windows[2].spans[2], (TokenSpan{14, 18, false, "four"}));
  // Truncated: the spans of what is kept.
  const std::vector<Job> cut = Jobs(Decode(R"({"id":"t","text":"one two three four","policy":"truncate"})"));
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].spans.size(), 4u);
  EXPECT_EQ(cut[0].spans[2], (TokenSpan{4, 7, false, "two"}));
}

// token_embed: each chunk window says which of its token vectors the
// stitched whole keeps (keep_from: a later window's [CLS] and the overlap;
// keep_tail: an earlier window's [SEP]), so every token is there once; the
// text and spans are not kept. Slices of input_ids keep all but the overlap.
TEST_F(TextDecoderTest, ATokenEmbedModelsWindowsSayWhatTheStitchedWholeKeeps) {
  limits_.task = "token_embed";
  limits_.stitch_rows = true;
  limits_.chunk_overlap = 2;
  const std::vector<Job> windows = Jobs(Decode(Words(10, R"(,"policy":"chunk")")));
  // [CLS] words 0-5 [SEP] | [CLS] words 4-9 [SEP]: 1 + 6 + (6 - 2) + 1 = 12 tokens, the whole text's.
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[0].keep_from, 0);
  EXPECT_EQ(windows[0].keep_tail, 1);
  EXPECT_EQ(windows[1].keep_from, 3);
  EXPECT_EQ(windows[1].keep_tail, 0);
  EXPECT_TRUE(windows[0].spans.empty() && windows[0].text.empty());
  size_t kept = 0;
  for (const Job& w : windows) kept += w.length() - size_t(w.keep_from + w.keep_tail);
  EXPECT_EQ(kept, windows[0].original_length);
  const std::vector<Job> ids = Jobs(Decode(R"({"input_ids":[1,2,3,4,5,6,7,8,9,10,11,12],"policy":"chunk"})"));
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[1].keep_from, 2);
  EXPECT_EQ(ids[0].keep_tail + ids[1].keep_tail, 0);
}

// Under chunk, a single text has a byte bound of its own: past
// max_text_bytes it is tokenized and windowed, up to max_chunk_text_bytes.
TEST_F(TextDecoderTest, ChunkWindowsATextOverTheByteBoundUpToItsOwnBound) {
  limits_.max_tokens = 4;
  limits_.max_text_bytes = 10;
  limits_.max_chunk_text_bytes = 40;
  const std::string text = R"({"id":"t","text":"one two three four five six seven","policy":"chunk"})";  // 33 bytes
  const std::vector<Job> windows = Jobs(Decode(text));
  ASSERT_EQ(windows.size(), 4u);
  EXPECT_EQ(windows[0].input_ids, (std::vector<int64_t>{kCls, Word(1), Word(2), kSep}));
  EXPECT_EQ(windows[0].original_length, 9u);
  limits_.max_chunk_text_bytes = 30;
  ExpectFailure(Decode(text), reason::kTooLong, "`text` is 33 bytes, more than limits.max_chunk_text_bytes 30");
  // A pair has no such bound (and no chunk).
  ExpectFailure(Decode(R"({"text":"one two three","text_pair":"four","policy":"truncate"})"), reason::kInvalid,
                "`text_pair`: this model's task is embed");
}

// DecodeJob reads {"id", "text", "reply_to"} messages without a JSON
// document; whatever such a message gives (jobs, a cut, windows, spans, or a
// record saying why not), DecodeJobDocument gives the same.
TEST_F(TextDecoderTest, PlainTextMessagesDecodeAsTheDocumentPathDecodesThem) {
  const std::vector<std::string> values = {
      R"({"id":"t","text":"one two three"})",
      R"({"text":"one two three"})",
      R"( { "id" : "t" , "reply_to" : "r1" , "text" : "four five" } )",
      R"({"text":"one two","id":"late"})",
      "{\"text\":\"caf\xc3\xa9 \xe4\xb8\x80 one\"}",           // UTF-8 beyond ASCII
      "{\"text\":\"one \xff\xfe two\"}",                       // not UTF-8
      "{\"text\":\"one \xed\xa0\x80 two\"}",                  // a UTF-16 surrogate in UTF-8
      "{\"text\":\"one\x7f two\"}",                             // DEL is not a control character in JSON
      "{\"text\":\"one\x01two\"}",                              // a raw control character
      R"({"text":"one\ntwo"})",                                  // an escape
      R"({"text":""})",
      R"({"text":"   "})",
      R"({"text":"[CLS] [SEP]"})",
      R"({"text":"zzzz qqqq"})",
      R"({"text":null})",
      R"({"text":"one","text":"two"})",
      R"({"text":"one","input_ids":[2,6,3]})",
      R"({"id":"","text":"one"})",
      R"({"text":"one two three four five six seven eight nine zero one two"})",
      R"({"text":"one two three four five six seven eight nine zero one two three four five six seven eight"})",
      R"({"text":"one two","meta":{}})",
      R"({"text":"one two"} x)",
      R"({"text":"one two")",
  };
  std::vector<std::pair<std::string, DecoderLimits>> settings;
  settings.emplace_back("reject", limits_);
  DecoderLimits truncate = limits_;
  truncate.too_long_policy = "truncate";
  settings.emplace_back("truncate", truncate);
  DecoderLimits chunk = limits_;
  chunk.too_long_policy = "chunk";
  chunk.chunk_overlap = 2;
  settings.emplace_back("chunk", chunk);
  DecoderLimits few_chunks = chunk;
  few_chunks.max_chunks = 2;
  settings.emplace_back("chunk, 2 windows at most", few_chunks);
  DecoderLimits no_chunk = chunk;
  no_chunk.chunk_allowed = false;
  settings.emplace_back("chunk not defined", no_chunk);
  DecoderLimits lane = limits_;
  lane.too_long_policy = "long_lane";
  lane.long_lane_max_tokens = 16;
  settings.emplace_back("long_lane", lane);
  DecoderLimits spans = limits_;
  spans.task = "tokens";
  spans.spans = true;
  settings.emplace_back("tokens", spans);
  DecoderLimits bytes = truncate;
  bytes.max_text_bytes = 20;
  settings.emplace_back("truncate over 20 bytes", bytes);
  DecoderLimits vocab = limits_;
  vocab.vocab_size = 10;
  settings.emplace_back("vocabulary of 10", vocab);
  DecoderLimits none = limits_;
  none.tokenizer = nullptr;
  settings.emplace_back("no tokenizer", none);
  size_t jobs = 0;
  for (const auto& [name, limits] : settings) {
    for (const std::string& value : values) {
      RawMessage m;
      m.key = "k";
      m.value = value;
      m.origin = {"jobs", 1, 17, 3};
      const Decoded full = ExpectPathsAgree(m, limits, name + ": " + value);
      jobs += std::holds_alternative<std::vector<Job>>(full) ? 1 : 0;
    }
  }
  EXPECT_GE(jobs, 40u) << "most messages are jobs under most settings";
}

// A model's prompts (manifest `prompts`, `default_prompt_name`): the job's
// prompt is joined to its text as a string and the whole is tokenized, so
// its tokens count toward max_tokens; a job without `prompt_name` gets the
// default's, on the plain-message fast path too; an empty prompt is none.
TEST_F(TextDecoderTest, APromptIsJoinedToTheTextBeforeItIsTokenized) {
  DecoderLimits limits = limits_;
  limits.prompts = {{"query", "nine eight "}, {"document", ""}, {"Short", "seven"}};
  limits.default_prompt_name = "query";
  const std::vector<int64_t> query{kCls, Word(9), Word(8), Word(1), Word(2), kSep};
  EXPECT_EQ(Jobs(DecodeWith(limits, R"({"id":"a","text":"one two"})"))[0].input_ids, query)
      << "the default prompt, on the fast path";
  EXPECT_EQ(Jobs(DecodeWith(limits, R"({"id":"a","text":"one two","reply_to":"r","meta":{}})"))[0].input_ids,
            query)
      << "the default prompt, on the document path";
  EXPECT_EQ(Jobs(DecodeWith(limits, R"({"id":"a","text":"one two","prompt_name":"document"})"))[0].input_ids,
            (std::vector<int64_t>{kCls, Word(1), Word(2), kSep}))
      << "an empty prompt is how a job asks for none";
  const std::vector<int64_t> joined =
      Jobs(DecodeWith(limits, R"({"id":"a","text":"one two","prompt_name":"Short"})"))[0].input_ids;
  EXPECT_NE(joined, (std::vector<int64_t>{kCls, Word(7), Word(1), Word(2), kSep}))
      << "joined as strings: 'sevenone' is one word (its word pieces), not 'seven' and 'one'";
  EXPECT_EQ(joined, tokenizer_->Encode("sevenone two")->Ids());
  EXPECT_EQ(Jobs(DecodeWith(limits, R"({"id":"a","text":"one two","prompt_name":"Short"})"))[0].prompt_name, "Short");
  ExpectFailure(DecodeWith(limits, R"({"id":"a","text":"one two three four five"})"), reason::kTooLong,
                "max_tokens 8");  // 2 + 5 words + 2 specials: the prompt counts

  ExpectFailure(DecodeWith(limits, R"({"id":"a","text":"one","prompt_name":"short"})"), reason::kInvalid,
                "`prompt_name` 'short' is not one of this model's prompts: Short, document, query");
  ExpectFailure(DecodeWith(limits, R"({"id":"a","text":"one","prompt_name":3})"), reason::kInvalid,
                "`prompt_name` must be a string");
  ExpectFailure(DecodeWith(limits, R"({"id":"a","input_ids":[2,6,3],"prompt_name":"query"})"), reason::kInvalid,
                "`prompt_name` goes with `text`");
  EXPECT_EQ(Jobs(DecodeWith(limits, R"({"id":"a","input_ids":[2,6,3]})"))[0].input_ids,
            (std::vector<int64_t>{2, 6, 3}))
      << "input_ids are the model's input as sent: no prompt is added to them";
  ExpectFailure(Decode(R"({"id":"a","text":"one","prompt_name":"query"})"), reason::kInvalid,
                "`prompt_name`: this model has no prompts");
  EXPECT_EQ(Jobs(DecodeWith(limits, R"({"id":"a","text":"one two"})"))[0].pool_skip, 0)
      << "a model that pools its prompt's tokens (include_prompt true) marks none";

  // include_prompt false: the prompt's length (the manifest's prompt_lengths) is left out of pooling, in
  // the first window only.
  limits.prompt_lengths = {{"query", 3}, {"Short", 1}};
  EXPECT_EQ(Jobs(DecodeWith(limits, R"({"id":"a","text":"one two"})"))[0].pool_skip, 3);
  EXPECT_EQ(Jobs(DecodeWith(limits, R"({"id":"a","text":"one two","prompt_name":"document"})"))[0].pool_skip, 0);
  const std::vector<Job> windows =
      Jobs(DecodeWith(limits, R"({"id":"a","text":"one two three four five six seven","policy":"chunk"})"));
  ASSERT_GT(windows.size(), 1u);
  EXPECT_EQ(windows[0].pool_skip, 3);
  for (size_t w = 1; w < windows.size(); ++w) EXPECT_EQ(windows[w].pool_skip, 0) << w;
}

TEST_F(TextDecoderTest, AModelWithoutATokenizerRefusesText) {
  limits_.tokenizer = nullptr;
  ExpectFailure(Decode(R"({"text":"one"})"), reason::kInvalid, "this model has no tokenizer");
  EXPECT_TRUE(std::holds_alternative<std::vector<Job>>(Decode(R"({"input_ids":[2,6,3]})")));
}

TEST_F(TextDecoderTest, ATokenOutsideTheModelsVocabularyIsInvalid) {
  limits_.vocab_size = 10;  // the tokenizer's "nine" is 14
  ExpectFailure(Decode(R"({"text":"nine"})"), reason::kInvalid, "outside the model's vocabulary");
}

TEST_F(TextDecoderTest, ReplayFieldsOfATextJobAreCarriedIntoItsFailures) {
  const Decoded d = Decode(Words(10, R"(,"attempt":2,"replay_of":{"topic":"jobs","partition":0,"offset":5})"));
  ExpectFailure(d, reason::kTooLong, "exceeds max_tokens");
  EXPECT_EQ(std::get<Outcome>(d).attempt, 2);
  EXPECT_EQ(std::get<Outcome>(d).replay_of.offset, 5);
}

// input_ids jobs: a truncated input that ends with the model's end token
// (the manifest's end_token_id) keeps it, as the tokenizer's truncation does.
TEST_F(TextDecoderTest, TruncatedIdsKeepTheModelsEndToken) {
  limits_.end_token_id = kSep;
  limits_.too_long_policy = policy::kTruncate;
  const std::vector<Job> jobs = Jobs(Decode(R"({"input_ids":[2,6,7,8,9,10,11,12,13,14,5,3]})"));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].input_ids, Sequence(0, 6)) << "the same ids as the text's truncation";
  EXPECT_EQ(jobs[0].original_length, 12u);
  // An input that does not end with it is cut as it stands.
  const std::vector<Job> plain = Jobs(Decode(R"({"input_ids":[2,6,7,8,9,10,11,12,13,14,5]})"));
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].input_ids, (std::vector<int64_t>{2, 6, 7, 8, 9, 10, 11, 12}));
}

}  // namespace
}  // namespace qinfer::consumer

namespace qinfer::consumer {
namespace {

// One definition of "valid": DecodeJob's fast path and DecodeJobDocument
// agree on every seed of the decoder's fuzz corpus (tests/fuzz/corpus, laid
// out as the fuzzer reads it: key length, limits selector, key, value),
// under the default limits with the tiny tokenizer.
TEST(DecoderPathsTest, TheFastPathAndTheDocumentPathAgreeOnTheFuzzCorpus) {
  auto tokenizer = tokenizer::Tokenizer::Load(QINFER_TINY_TOKENIZER);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  DecoderLimits limits;
  limits.vocab_size = 4096;
  limits.max_tokens = 512;
  limits.tokenizer = tokenizer->get();
  limits.end_token_id = 3;
  size_t seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(QINFER_FUZZ_CORPUS)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string_view rest(bytes), key;
    if (rest.size() >= 2) {
      const size_t k = std::min<size_t>(static_cast<uint8_t>(rest[0]), rest.size() - 2);
      key = rest.substr(2, k);
      rest.remove_prefix(2 + k);
    }
    RawMessage m{key, rest, Origin{"jobs", 3, 42, 7}};
    ExpectPathsAgree(m, limits, entry.path().filename().string());
    ++seeds;
  }
  EXPECT_GE(seeds, 30u) << "the corpus is there";
}

}  // namespace
}  // namespace qinfer::consumer
