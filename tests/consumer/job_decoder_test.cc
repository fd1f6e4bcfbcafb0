#include "qinfer/consumer/job_decoder.h"

#include <gtest/gtest.h>

namespace qinfer::consumer {
namespace {

constexpr DecoderLimits kLimits{/*vocab_size=*/100, /*max_tokens=*/8};

Decoded DecodeValue(std::string_view value, std::string_view key = "") {
  RawMessage m;
  m.key = key;
  m.value = value;
  m.origin = {"jobs", 2, 41, 7};
  return DecodeJob(m, kLimits);
}

// Asserts `d` is a failure with `reason` whose error mentions `needle`.
void ExpectFailure(const Decoded& d, const char* reason, std::string_view needle) {
  ASSERT_TRUE(std::holds_alternative<Outcome>(d)) << "expected a failure record";
  const Outcome& o = std::get<Outcome>(d);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.reason, reason);
  EXPECT_NE(o.error.find(needle), std::string::npos) << o.error;
  EXPECT_EQ(o.origin.offset, 41);
  EXPECT_FALSE(o.payload.empty()) << "the payload is kept for replay";
}

TEST(JobDecoderTest, DecodesAValidJobWithAllFields) {
  Decoded d = DecodeValue(
      R"({"id":"doc-42","input_ids":[1,2,99],"reply_to":"r","meta":{"a":[1,2]},"attempt":2})");
  ASSERT_TRUE(std::holds_alternative<Job>(d));
  const Job& job = std::get<Job>(d);
  EXPECT_EQ(job.id, "doc-42");
  EXPECT_EQ(job.input_ids, (std::vector<int64_t>{1, 2, 99}));
  EXPECT_EQ(job.reply_to, "r");
  EXPECT_EQ(job.meta_json, R"({"a":[1,2]})");
  EXPECT_EQ(job.attempt, 2);
  EXPECT_EQ(job.origin, (Origin{"jobs", 2, 41, 7}));
}

TEST(JobDecoderTest, IdDefaultsToKeyThenToTopicPartitionOffset) {
  EXPECT_EQ(std::get<Job>(DecodeValue(R"({"input_ids":[1]})", "k-1")).id, "k-1");
  EXPECT_EQ(std::get<Job>(DecodeValue(R"({"input_ids":[1]})")).id, "jobs/2/41");
}

TEST(JobDecoderTest, RejectsNonJson) { ExpectFailure(DecodeValue("{oops"), reason::kInvalid, "not valid JSON"); }

TEST(JobDecoderTest, RejectsNonObject) {
  ExpectFailure(DecodeValue("[1,2]"), reason::kInvalid, "not a JSON object");
}

TEST(JobDecoderTest, RejectsMissingInputIds) {
  ExpectFailure(DecodeValue(R"({"id":"x"})"), reason::kInvalid, "missing");
}

TEST(JobDecoderTest, RejectsInputIdsThatAreNotAnArray) {
  ExpectFailure(DecodeValue(R"({"input_ids":"1 2 3"})"), reason::kInvalid, "must be an array");
}

TEST(JobDecoderTest, RejectsEmptyInputIds) {
  ExpectFailure(DecodeValue(R"({"input_ids":[]})"), reason::kInvalid, "empty");
}

TEST(JobDecoderTest, RejectsNegativeId) {
  ExpectFailure(DecodeValue(R"({"input_ids":[1,-3]})"), reason::kInvalid, "input_ids[1]");
}

TEST(JobDecoderTest, RejectsIdAtOrAboveVocabSize) {
  ExpectFailure(DecodeValue(R"({"input_ids":[100]})"), reason::kInvalid, "outside [0, 100)");
  ExpectFailure(DecodeValue(R"({"input_ids":[18446744073709551615]})"), reason::kInvalid,
                "outside");
}

TEST(JobDecoderTest, RejectsNonIntegerIds) {
  ExpectFailure(DecodeValue(R"({"input_ids":[1,2.5]})"), reason::kInvalid, "not an integer");
  ExpectFailure(DecodeValue(R"({"input_ids":["7"]})"), reason::kInvalid, "not an integer");
}

TEST(JobDecoderTest, RejectsBadOptionalFields) {
  ExpectFailure(DecodeValue(R"({"id":5,"input_ids":[1]})"), reason::kInvalid, "`id`");
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"reply_to":3})"), reason::kInvalid, "reply_to");
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"attempt":-1})"), reason::kInvalid, "attempt");
}

TEST(JobDecoderTest, RejectsTooLongWithItsLength) {
  Decoded d = DecodeValue(R"({"id":"long","input_ids":[1,1,1,1,1,1,1,1,1]})");
  ExpectFailure(d, reason::kTooLong, "exceeds max_tokens 8");
  EXPECT_EQ(std::get<Outcome>(d).id, "long");
  EXPECT_EQ(std::get<Outcome>(d).input_length, 9u);
}

TEST(JobDecoderTest, TruncateToOverrideShortensTheInput) {
  Decoded d = DecodeValue(R"({"input_ids":[1,2,3,4,5,6,7,8,9,10],"truncate_to":4})");
  ASSERT_TRUE(std::holds_alternative<Job>(d));
  EXPECT_EQ(std::get<Job>(d).input_ids, (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(JobDecoderBoundsTest, RejectsNestingDeeperThanTheBoundBeforeParsing) {
  // 100,000 levels in 200 KB: parsing or printing it recursively would
  // overflow the stack.
  const std::string deep = R"({"input_ids":[1],"meta":)" + std::string(100000, '[') +
                           std::string(100000, ']') + "}";
  ExpectFailure(DecodeValue(deep), reason::kInvalid, "deeper than max_depth 32");
  EXPECT_EQ(std::get<Outcome>(DecodeValue(deep)).payload, deep) << "kept whole for replay";
}

TEST(JobDecoderBoundsTest, AcceptsNestingAtTheBound) {
  DecoderLimits limits = kLimits;
  limits.max_depth = 4;
  RawMessage m;
  m.value = R"({"input_ids":[1],"meta":{"a":[{"b":1}]}})";  // depth 4
  EXPECT_TRUE(std::holds_alternative<Job>(DecodeJob(m, limits)));
  m.value = R"({"input_ids":[1],"meta":{"a":[{"b":[1]}]}})";  // depth 5
  EXPECT_TRUE(std::holds_alternative<Outcome>(DecodeJob(m, limits)));
}

TEST(JobDecoderBoundsTest, NestingDepthIgnoresBracketsInsideStrings) {
  EXPECT_EQ(JsonNestingDepth(R"({"a":"[[[[{{{{\"]]]"})", 10), 1);
  EXPECT_EQ(JsonNestingDepth(R"([[["x"]]])", 10), 3);
  EXPECT_EQ(JsonNestingDepth(std::string(1000, '['), 10), 11) << "stops at limit + 1";
  EXPECT_EQ(JsonNestingDepth("", 10), 0);
}

TEST(JobDecoderBoundsTest, AnOversizedMessageKeepsABoundedPrefixAndItsCoordinates) {
  DecoderLimits limits = kLimits;
  limits.max_message_bytes = 10000;
  const std::string big = R"({"input_ids":[)" + std::string(20000, '1') + "]}";
  RawMessage m;
  m.value = big;
  m.origin = {"jobs", 2, 41, 7};
  Decoded d = DecodeJob(m, limits);
  ASSERT_TRUE(std::holds_alternative<Outcome>(d));
  const Outcome& o = std::get<Outcome>(d);
  EXPECT_EQ(o.reason, reason::kInvalid);
  EXPECT_NE(o.error.find("more than max_message_bytes 10000"), std::string::npos) << o.error;
  EXPECT_TRUE(o.payload_truncated);
  EXPECT_EQ(o.payload, big.substr(0, kPayloadPrefixBytes));
  EXPECT_EQ(o.origin, (Origin{"jobs", 2, 41, 7}));
  EXPECT_EQ(o.id, "jobs/2/41");
}

TEST(JobDecoderBoundsTest, RejectsAMetaLargerThanItsBound) {
  DecoderLimits limits = kLimits;
  limits.max_meta_bytes = 100;
  const std::string fat = R"({"input_ids":[1],"meta":{"s":")" + std::string(200, 'x') + R"("}})";
  const std::string slim = R"({"input_ids":[1],"meta":{"s":")" + std::string(50, 'x') + R"("}})";
  RawMessage m;
  m.value = fat;
  Decoded d = DecodeJob(m, limits);
  ASSERT_TRUE(std::holds_alternative<Outcome>(d));
  EXPECT_NE(std::get<Outcome>(d).error.find("max_meta_bytes 100"), std::string::npos);
  m.value = slim;
  EXPECT_TRUE(std::holds_alternative<Job>(DecodeJob(m, limits)));
}

TEST(JobDecoderBoundsTest, RejectsOverlongIdsAndReplyTopicsAndCutsAnOverlongKey) {
  const std::string long_id(600, 'i');
  ExpectFailure(DecodeValue(R"({"id":")" + long_id + R"(","input_ids":[1]})"), reason::kInvalid,
                "`id` is longer than 512 bytes");
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"reply_to":")" + long_id + R"("})"),
                reason::kInvalid, "`reply_to` is longer than 512 bytes");
  const Outcome o = std::get<Outcome>(DecodeValue("not json", long_id));
  EXPECT_EQ(o.id.size(), 512u) << "a record's id stays bounded too";
}

TEST(JobDecoderBoundsTest, RejectsANulByteWhateverFollowsIt) {
  const std::string value = std::string(R"({"input_ids":[4]})") + '\0' + "\xff trailing";
  ExpectFailure(DecodeValue(value), reason::kInvalid, "NUL byte");
}

TEST(JobDecoderBoundsTest, RejectsAttemptAndTruncateToBeyondTheirRange) {
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"attempt":2147483648})"), reason::kInvalid,
                "`attempt` must be an integer in [0, 1000000]");
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"truncate_to":4294967295})"), reason::kInvalid,
                "`truncate_to` must be a positive integer");
}

TEST(JobDecoderBoundsTest, AKeyThatIsNotUtf8IsNotUsedAsTheId) {
  EXPECT_EQ(std::get<Job>(DecodeValue(R"({"input_ids":[1]})", "\xff\xfe")).id, "jobs/2/41");
  // A long key is cut on a character boundary, never inside one.
  const std::string key = std::string(511, 'k') + "\xc3\xa9";
  EXPECT_EQ(std::get<Job>(DecodeValue(R"({"input_ids":[1]})", key)).id, std::string(511, 'k'));
}

}  // namespace
}  // namespace qinfer::consumer
