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

}  // namespace
}  // namespace qinfer::consumer
