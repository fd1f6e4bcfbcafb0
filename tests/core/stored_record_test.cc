// The outcome store's values (qinfer/core/stored_record.h): every record
// coded smaller and given back byte for byte as OutcomeToJson wrote it, a
// compact output kept as its bytes, the forms older stores hold still read,
// and a value that is none of them refused.
#include "qinfer/core/stored_record.h"

#include <gtest/gtest.h>

#include <random>

#include "absl/strings/escaping.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/core/output_encoding.h"

namespace qinfer {
namespace {

const std::string kDigest = "sha256:5b949229234c9ede2681d58d75645c52261f63bae86707872fa2f0174979880d";

Outcome Result(const std::string& encoding, std::string meta = "") {
  Outcome o;
  o.id = "doc-0000001";
  o.ok = true;
  o.output = {0.25f, -1.0f, 0.0f, 3.0f, -0.5f, 2.0f, 1.0f, -7.0f, 0.125f, 9.5f};
  o.model_name = "all-MiniLM-L6-v2";
  o.model_digest = kDigest;
  o.device = "cpu";
  o.bucket = 32;
  o.batch_size = 64;
  o.padded_length = 32;
  o.input_length = 27;
  o.queue_seconds = 0.012345678;
  o.run_seconds = 0.0412;
  o.completed_at_ms = 1700000000123;
  o.meta_json = std::move(meta);
  if (!encoding.empty()) {
    o.output_bytes = EncodeOutput(o.output, encoding, nullptr);
    o.encoding = encoding;
    o.output.clear();
  }
  return o;
}

// The text a stored value gives back (a compact output's base64 put back).
std::string ReadBack(const std::string& value) {
  std::string text, buffer;
  std::optional<StoredRecord> read = ReadStoredValue(value, text);
  if (!read) return "(refused)";
  return std::string(read->Json(buffer));
}

TEST(StoredRecordTest, ACompactOutputIsKeptAsItsBytesAndReadBackAsItsText) {
  for (const char* encoding : {encoding::kBase64, encoding::kUbinary, encoding::kBinary}) {
    for (int rows : {0, 2}) {
      Outcome o = Result(encoding);
      o.output_rows = encoding == std::string(encoding::kBase64) ? rows : 0;
      const std::string json = OutcomeToJson(o);
      const std::string value = StoredValue(json, o.output_bytes);
      const std::string base64 = absl::Base64Escape(o.output_bytes);
      EXPECT_EQ(value.find(base64), std::string::npos) << "the text is cut out";
      EXPECT_NE(value.find(o.output_bytes), std::string::npos) << "the bytes are kept";

      std::string text;
      std::optional<StoredRecord> read = ReadStoredValue(value, text);
      ASSERT_TRUE(read) << encoding;
      EXPECT_TRUE(read->output_apart);
      EXPECT_EQ(read->output_bytes, o.output_bytes);
      EXPECT_EQ(read->json.substr(read->output_at - 10, 11), R"("output":"")");
      EXPECT_EQ(read->json.data(), text.data()) << "decoded into the caller's buffer";
      std::string buffer;
      EXPECT_EQ(read->Json(buffer), json) << "byte for byte";
    }
  }
}

TEST(StoredRecordTest, MemberNamesAndTheDigestAreCodedSmaller) {
  const Outcome o = Result(encoding::kUbinary);
  const std::string json = OutcomeToJson(o);
  const std::string value = StoredValue(json, o.output_bytes);
  for (const char* name : {R"("batch_size":)", R"("completed_at_ms":)", R"("input_length":)",
                           R"("padded_length":)", R"("timings":)", R"("status":)"}) {
    ASSERT_NE(json.find(name), std::string::npos) << name;
    EXPECT_EQ(value.find(name), std::string::npos) << name << " is one byte in the value";
  }
  const std::string hex = kDigest.substr(7);
  EXPECT_EQ(value.find(hex), std::string::npos) << "the digest is its 32 bytes";
  EXPECT_NE(value.find("all-MiniLM-L6-v2"), std::string::npos) << "other text is itself";
  // The names (the fragments), less a byte each, and half the digest's 64
  // hex digits (less the run's code and length) at least.
  const size_t compact = json.size() - absl::Base64Escape(o.output_bytes).size() + o.output_bytes.size();
  EXPECT_LE(value.size() + 120 + 30, compact) << value.size() << " of " << json.size();
  EXPECT_EQ(ReadBack(value), json);
}

TEST(StoredRecordTest, EveryKindOfRecordComesBackByteForByte) {
  std::vector<Outcome> outcomes;
  outcomes.push_back(Result(""));  // JSON numbers: one long literal
  Outcome classify = Result("");
  classify.output = {1.5f, -2.0f};
  classify.label = "POS";
  classify.scores = {{"POS", 0.9f}, {"NEG", 0.1f}};
  outcomes.push_back(classify);
  Outcome tokens = Result("");
  tokens.output.clear();
  tokens.output = {0.0f};
  tokens.entities = std::vector<Entity>{{"LOC", "Lisbon \"old\" town", 3, 20, 0.75f}};
  tokens.tokens = std::vector<TokenLabel>{{"lis", 3, 6, "B-LOC", 0.8f}, {"##bon", 6, 9, "I-LOC", 0.7f}};
  outcomes.push_back(tokens);
  Outcome gpu = Result(encoding::kBase64);
  gpu.device = "cuda:0";
  gpu.model_digest = "sha256:ABCDEF";  // not lowercase hex: text
  outcomes.push_back(gpu);
  Outcome failed;
  failed.id = "a \"quoted\" id";
  failed.reason = "invalid";
  failed.error = "`text` is missing";
  failed.payload = R"({"text2":"\"batch_size\":","status":"ok","x":"0123456789abcdef0123456789abcdef01"})";
  failed.origin = {"jobs", 3, 1234567};
  failed.meta_json = R"({"url":"https://example.com/a\tb","note":"line\nfeed","model":{"digest":"sha256:"}})";
  outcomes.push_back(failed);
  Outcome binary = failed;
  binary.payload = std::string("\x00\x01\x1e\x1f\xff", 5);  // not UTF-8: written as base64
  outcomes.push_back(binary);
  for (const Outcome& o : outcomes) {
    const std::string json = OutcomeToJson(o);
    const std::string value = StoredValue(json, o.output_bytes);
    EXPECT_LT(value.size(), json.size()) << json;
    EXPECT_EQ(ReadBack(value), json);
  }
}

TEST(StoredRecordTest, AnyTextComesBackExactly) {
  // Text that is not JSON at all, from pieces that meet every code: the
  // fragments, hex runs of every length, control bytes (codes themselves),
  // quotes, and long runs.
  const std::vector<std::string> pieces = {
      R"("batch_size":)", R"("model":{"digest":"sha256:)", R"("scores":[)", R"("score":)", R"("status":"ok")",
      R"("status":"failed")", "\"", "\\\"", "0123456789abcdef", "ABCDEF", "a", "{", "}", ",", ":",
      std::string(1, '\0'), "\x01", "\x1e", "\x1f", "\t", "\n", "\r", "\x7f", "\xc3\xa9", std::string(40, 'x'),
      "0.123456789,", R"("name":)", R"("payload":)"};
  std::mt19937 random(7);
  for (int round = 0; round < 3000; ++round) {
    std::string text = "{";
    const int n = int(random() % 40);
    for (int i = 0; i < n; ++i) text += pieces[random() % pieces.size()];
    const std::string value = StoredValue(text, "");
    ASSERT_EQ(ReadBack(value), text) << absl::CEscape(text);
  }
}

TEST(StoredRecordTest, TextThatIsNotItsBytesBase64IsCodedWhole) {
  const Outcome o = Result(encoding::kBase64);
  const std::string json = OutcomeToJson(o);
  std::string other = o.output_bytes;
  other[0] = char(other[0] ^ 1);
  for (const std::string& bytes : {other, o.output_bytes.substr(1)}) {
    const std::string value = StoredValue(json, bytes);
    std::string text;
    std::optional<StoredRecord> read = ReadStoredValue(value, text);
    ASSERT_TRUE(read);
    EXPECT_FALSE(read->output_apart) << "another vector's bytes, or fewer";
    EXPECT_EQ(read->json, json);
  }
  EXPECT_EQ(ReadBack(StoredValue(R"({"id":"x","status":"ok"})", o.output_bytes)), R"({"id":"x","status":"ok"})")
      << "no output";
}

TEST(StoredRecordTest, MetaThatHoldsAnOutputOfItsOwnReadsBackAsSent) {
  const Outcome plain = Result(encoding::kBase64);
  const std::string base64 = absl::Base64Escape(plain.output_bytes);
  const std::string meta = R"({"a":{"output":")" + base64 + R"("},"b":"\"output\":\")" + base64 + R"(\""})";
  const Outcome o = Result(encoding::kBase64, meta);
  const std::string json = OutcomeToJson(o);
  const std::string value = StoredValue(json, o.output_bytes);
  std::string text;
  std::optional<StoredRecord> read = ReadStoredValue(value, text);
  ASSERT_TRUE(read);
  EXPECT_GT(read->output_at, read->json.find(R"("meta":)")) << "the record's own output is cut, not meta's";
  EXPECT_NE(read->json.find(meta), std::string::npos);
  std::string buffer;
  EXPECT_EQ(read->Json(buffer), json);
}

TEST(StoredRecordTest, TheFormsOlderStoresHoldStillRead) {
  // JSON text as it is: read in place.
  const Outcome floats = Result("");
  const std::string json = OutcomeToJson(floats);
  std::string text;
  std::optional<StoredRecord> read = ReadStoredValue(json, text);
  ASSERT_TRUE(read);
  EXPECT_FALSE(read->output_apart);
  EXPECT_EQ(read->json.data(), json.data()) << "read in place";
  // A compact output apart, the text as it is: tag 1, where (uint32 LE), how
  // many bytes (uint32 LE), the bytes, the text.
  const Outcome o = Result(encoding::kUbinary);
  const std::string whole = OutcomeToJson(o);
  const std::string base64 = absl::Base64Escape(o.output_bytes);
  const size_t at = whole.rfind(base64);
  auto u32 = [](uint32_t v) { return std::string{char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; };
  const std::string legacy = "\x01" + u32(uint32_t(at)) + u32(uint32_t(o.output_bytes.size())) + o.output_bytes +
                             whole.substr(0, at) + whole.substr(at + base64.size());
  read = ReadStoredValue(legacy, text);
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->output_apart);
  EXPECT_EQ(read->output_bytes, o.output_bytes);
  EXPECT_EQ(ReadBack(legacy), whole);
  std::string cut_elsewhere = legacy;
  cut_elsewhere[1] = char(cut_elsewhere[1] + 1);
  EXPECT_FALSE(ReadStoredValue(cut_elsewhere, text)) << "a place that is not the output's empty string";
}

TEST(StoredRecordTest, AValueOfNoFormIsRefused) {
  const Outcome o = Result(encoding::kBase64);
  const std::string value = StoredValue(OutcomeToJson(o), o.output_bytes);
  std::string text;
  ASSERT_TRUE(ReadStoredValue(value, text));
  ASSERT_EQ(value[0], '\x02');
  EXPECT_FALSE(ReadStoredValue("", text));
  EXPECT_FALSE(ReadStoredValue("not json {", text));
  EXPECT_FALSE(ReadStoredValue("\x03{}", text)) << "an unknown tag";
  EXPECT_FALSE(ReadStoredValue(value.substr(0, 1), text)) << "no header";
  EXPECT_FALSE(ReadStoredValue(std::string("\x02\x80", 2), text)) << "a varint cut short";
  EXPECT_FALSE(ReadStoredValue(std::string("\x02\x7f\x01", 3) + "{}", text)) << "more bytes than the value holds";
  EXPECT_FALSE(ReadStoredValue(std::string("\x02\x00", 2) + "{\x1f\x05" + "ab", text)) << "a literal past the end";
  EXPECT_FALSE(ReadStoredValue(std::string("\x02\x00", 2) + "{\x1e\x40" + "ab", text)) << "a hex run past the end";
  EXPECT_FALSE(ReadStoredValue(std::string("\x02\x00{\x00}", 4), text)) << "a byte that is no code";
  EXPECT_FALSE(ReadStoredValue(std::string("\x02\x00", 2) + "[1]", text)) << "text that is not an object";
  EXPECT_TRUE(ReadStoredValue(std::string("\x02\x00", 2) + "{\x06\"x\"}", text));
  EXPECT_EQ(text, R"({"id":"x"})");
  // The bytes' place must be the output's empty string.
  std::string elsewhere = value;
  ASSERT_LT(uint8_t(elsewhere[1]), 0x80);      // one byte: how many bytes
  ASSERT_GT(uint8_t(elsewhere[2]) & 0x7f, 0);  // where: its low seven bits
  elsewhere[2] = char(elsewhere[2] - 1);
  EXPECT_FALSE(ReadStoredValue(elsewhere, text)) << "a place that is not the output's empty string";
}

}  // namespace
}  // namespace qinfer
