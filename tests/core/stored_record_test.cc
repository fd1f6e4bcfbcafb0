// The outcome store's values (qinfer/core/stored_record.h): a compact
// output kept as its bytes, every record given back as OutcomeToJson wrote
// it, and a value that is neither form refused.
#include "qinfer/core/stored_record.h"

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/core/output_encoding.h"

namespace qinfer {
namespace {

Outcome Result(const std::string& encoding, std::string meta = "") {
  Outcome o;
  o.id = "doc-1";
  o.ok = true;
  o.output = {0.25f, -1.0f, 0.0f, 3.0f, -0.5f, 2.0f, 1.0f, -7.0f, 0.125f, 9.5f};
  o.model_name = "m";
  o.model_digest = "sha256:d";
  o.input_length = 7;
  o.completed_at_ms = 1700000000123;
  o.meta_json = std::move(meta);
  if (!encoding.empty()) {
    o.output_bytes = EncodeOutput(o.output, encoding, nullptr);
    o.encoding = encoding;
    o.output.clear();
  }
  return o;
}

TEST(StoredRecordTest, ACompactOutputIsKeptAsItsBytesAndReadBackAsItsText) {
  for (const char* encoding : {encoding::kBase64, encoding::kUbinary, encoding::kBinary}) {
    for (int rows : {0, 2}) {
      Outcome o = Result(encoding);
      o.output_rows = encoding == std::string(encoding::kBase64) ? rows : 0;
      const std::string json = OutcomeToJson(o);
      std::optional<std::string> value = CompactStoredValue(json, o.output_bytes);
      ASSERT_TRUE(value) << json;
      const size_t base64 = absl::Base64Escape(o.output_bytes).size();
      EXPECT_EQ(value->size(), json.size() - base64 + o.output_bytes.size() + 9) << encoding;
      EXPECT_EQ(value->find(absl::Base64Escape(o.output_bytes)), std::string::npos) << "the text is cut out";

      std::optional<StoredRecord> read = ReadStoredValue(*value);
      ASSERT_TRUE(read) << encoding;
      EXPECT_TRUE(read->output_apart);
      EXPECT_EQ(read->output_bytes, o.output_bytes);
      EXPECT_EQ(read->json.substr(read->output_at - 10, 11), R"("output":"")");
      std::string buffer;
      EXPECT_EQ(read->Json(buffer), json) << "byte for byte";
    }
  }
}

TEST(StoredRecordTest, ARecordWithoutCompactBytesIsItsText) {
  const Outcome floats = Result("");
  const std::string json = OutcomeToJson(floats);
  EXPECT_FALSE(CompactStoredValue(json, floats.output_bytes));
  std::optional<StoredRecord> read = ReadStoredValue(json);
  ASSERT_TRUE(read);
  EXPECT_FALSE(read->output_apart);
  EXPECT_EQ(read->json.data(), json.data()) << "read in place";
  std::string buffer;
  EXPECT_EQ(read->Json(buffer).data(), json.data()) << "no copy";
}

TEST(StoredRecordTest, TextThatIsNotItsBytesBase64IsStoredAsItIs) {
  const Outcome o = Result(encoding::kBase64);
  const std::string json = OutcomeToJson(o);
  std::string other = o.output_bytes;
  other[0] = char(other[0] ^ 1);
  EXPECT_FALSE(CompactStoredValue(json, other)) << "another vector's bytes";
  EXPECT_FALSE(CompactStoredValue(json, o.output_bytes.substr(1))) << "fewer bytes";
  EXPECT_FALSE(CompactStoredValue(R"({"id":"x","status":"ok"})", o.output_bytes)) << "no output";
}

TEST(StoredRecordTest, MetaThatHoldsAnOutputOfItsOwnReadsBackAsSent) {
  const Outcome plain = Result(encoding::kBase64);
  const std::string base64 = absl::Base64Escape(plain.output_bytes);
  const std::string meta = R"({"a":{"output":")" + base64 + R"("},"b":"\"output\":\")" + base64 + R"(\""})";
  const Outcome o = Result(encoding::kBase64, meta);
  const std::string json = OutcomeToJson(o);
  std::optional<std::string> value = CompactStoredValue(json, o.output_bytes);
  ASSERT_TRUE(value);
  std::optional<StoredRecord> read = ReadStoredValue(*value);
  ASSERT_TRUE(read);
  EXPECT_GT(read->output_at, read->json.find(R"("meta":)")) << "the record's own output is cut, not meta's";
  EXPECT_NE(read->json.find(meta), std::string::npos);
  std::string buffer;
  EXPECT_EQ(read->Json(buffer), json);
}

TEST(StoredRecordTest, AValueOfNeitherFormIsRefused) {
  const Outcome o = Result(encoding::kBase64);
  const std::string value = *CompactStoredValue(OutcomeToJson(o), o.output_bytes);
  EXPECT_TRUE(ReadStoredValue(value));
  EXPECT_FALSE(ReadStoredValue(""));
  EXPECT_FALSE(ReadStoredValue("not json {"));
  EXPECT_FALSE(ReadStoredValue(value.substr(0, 5))) << "a header cut short";
  std::string other_tag = value;
  other_tag[0] = '\x02';
  EXPECT_FALSE(ReadStoredValue(other_tag));
  std::string too_many = value;
  too_many.replace(5, 4, "\xff\xff\xff\x7f");  // the byte count
  EXPECT_FALSE(ReadStoredValue(too_many)) << "more bytes than the value holds";
  std::string cut_elsewhere = value;
  cut_elsewhere[1] = char(cut_elsewhere[1] + 1);  // where the text goes
  EXPECT_FALSE(ReadStoredValue(cut_elsewhere)) << "a place that is not the output's empty string";
}

}  // namespace
}  // namespace qinfer
