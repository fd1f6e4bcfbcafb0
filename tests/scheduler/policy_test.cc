#include "qinfer/scheduler/policy.h"

#include <chrono>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "qinfer/scheduler/buckets.h"

namespace qinfer::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

BatchPolicy ValidPolicy() {
  BatchPolicy policy;
  policy.bucket_bounds = {16, 64, 512};
  policy.caps = {32, 8, 1};
  policy.max_batch_delay = std::chrono::milliseconds(50);
  policy.max_queued_jobs = 100;
  policy.max_queued_tokens = 10'000;
  return policy;
}

TEST(PolicyTest, CapsFromTokenBudgetDivideTheBudgetByTheBound) {
  EXPECT_THAT(CapsFromTokenBudget({16, 64, 256}, 4096, 1000), ElementsAre(256, 64, 16));
}

TEST(PolicyTest, CapsFromTokenBudgetAreClampedToMaxBatchSize) {
  EXPECT_THAT(CapsFromTokenBudget({16, 64, 256}, 4096, 32), ElementsAre(32, 32, 16));
}

TEST(PolicyTest, CapsFromTokenBudgetAreAtLeastOne) {
  EXPECT_THAT(CapsFromTokenBudget({16, 512, 1024}, 500, 64), ElementsAre(31, 1, 1));
}

TEST(PolicyTest, ValidPolicyPasses) { EXPECT_TRUE(ValidateBatchPolicy(ValidPolicy()).ok()); }

TEST(PolicyTest, DefaultBoundsWithBudgetCapsPass) {
  BatchPolicy policy;
  policy.bucket_bounds = DefaultBucketBounds(300);
  policy.caps = CapsFromTokenBudget(policy.bucket_bounds, 8192, 64);
  policy.max_queued_jobs = 1000;
  policy.max_queued_tokens = 100'000;
  EXPECT_TRUE(ValidateBatchPolicy(policy).ok());
}

TEST(PolicyTest, RejectsInvalidBucketBounds) {
  BatchPolicy policy = ValidPolicy();
  policy.bucket_bounds = {16, 16, 512};
  absl::Status s = ValidateBatchPolicy(policy);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("BatchPolicy.bucket_bounds"));
  EXPECT_THAT(s.message(), HasSubstr("strictly increasing"));
}

TEST(PolicyTest, RejectsEmptyBucketBounds) {
  BatchPolicy policy = ValidPolicy();
  policy.bucket_bounds.clear();
  policy.caps.clear();
  absl::Status s = ValidateBatchPolicy(policy);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("BatchPolicy.bucket_bounds is empty"));
}

TEST(PolicyTest, RejectsCapsThatDoNotMatchTheBuckets) {
  BatchPolicy policy = ValidPolicy();
  policy.caps = {32, 8};
  absl::Status s = ValidateBatchPolicy(policy);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("BatchPolicy.caps has 2 entries"));
  EXPECT_THAT(s.message(), HasSubstr("3 buckets"));
}

TEST(PolicyTest, RejectsCapBelowOne) {
  BatchPolicy policy = ValidPolicy();
  policy.caps[1] = 0;
  absl::Status s = ValidateBatchPolicy(policy);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("BatchPolicy.caps[1] (bucket bound 64)"));
}

TEST(PolicyTest, RejectsNegativeMaxBatchDelay) {
  BatchPolicy policy = ValidPolicy();
  policy.max_batch_delay = std::chrono::milliseconds(-1);
  absl::Status s = ValidateBatchPolicy(policy);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("BatchPolicy.max_batch_delay"));
}

TEST(PolicyTest, AcceptsZeroMaxBatchDelay) {
  BatchPolicy policy = ValidPolicy();
  policy.max_batch_delay = std::chrono::milliseconds(0);
  EXPECT_TRUE(ValidateBatchPolicy(policy).ok());
}

TEST(PolicyTest, RejectsMaxQueuedJobsBelowTheLargestCap) {
  BatchPolicy policy = ValidPolicy();
  policy.max_queued_jobs = 31;
  absl::Status s = ValidateBatchPolicy(policy);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("BatchPolicy.max_queued_jobs is 31"));
  EXPECT_THAT(s.message(), HasSubstr("largest cap is 32"));
}

TEST(PolicyTest, RejectsZeroMaxQueuedJobs) {
  BatchPolicy policy = ValidPolicy();
  policy.max_queued_jobs = 0;
  EXPECT_THAT(ValidateBatchPolicy(policy).message(), HasSubstr("BatchPolicy.max_queued_jobs"));
}

TEST(PolicyTest, RejectsMaxQueuedTokensBelowMaxTokens) {
  BatchPolicy policy = ValidPolicy();
  policy.max_queued_tokens = 511;
  absl::Status s = ValidateBatchPolicy(policy);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("BatchPolicy.max_queued_tokens is 511"));
  EXPECT_THAT(s.message(), HasSubstr("max_tokens is 512"));
}

TEST(PolicyTest, FormationNamesRoundTrip) {
  for (Formation f : {Formation::kLength, Formation::kArrival}) {
    absl::StatusOr<Formation> parsed = ParseFormation(FormationName(f));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, f);
  }
  EXPECT_EQ(BatchPolicy{}.formation, Formation::kLength);
}

TEST(PolicyTest, ParseFormationNamesTheChoicesOnAnUnknownOne) {
  absl::StatusOr<Formation> parsed = ParseFormation("fifo");
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), ::testing::HasSubstr("'fifo'"));
  EXPECT_THAT(parsed.status().message(), ::testing::HasSubstr("length"));
  EXPECT_THAT(parsed.status().message(), ::testing::HasSubstr("arrival"));
}

}  // namespace
}  // namespace qinfer::scheduler
