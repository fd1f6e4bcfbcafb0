#include "qinfer/scheduler/buckets.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace qinfer::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(BucketsTest, DefaultBoundsArePowersOfTwoUpToMaxTokens) {
  EXPECT_THAT(DefaultBucketBounds(512), ElementsAre(16, 32, 64, 128, 256, 512));
}

TEST(BucketsTest, DefaultBoundsEndAtMaxTokensWhenItIsNotAPowerOfTwo) {
  EXPECT_THAT(DefaultBucketBounds(300), ElementsAre(16, 32, 64, 128, 256, 300));
}

TEST(BucketsTest, DefaultBoundsAreOneBucketWhenMaxTokensIsBelowTheMinimum) {
  EXPECT_THAT(DefaultBucketBounds(10), ElementsAre(10));
  EXPECT_THAT(DefaultBucketBounds(16), ElementsAre(16));
}

TEST(BucketsTest, DefaultBoundsHonourACustomMinimum) {
  EXPECT_THAT(DefaultBucketBounds(100, 32), ElementsAre(32, 64, 100));
}

TEST(BucketsTest, DefaultBoundsAreEmptyForNonPositiveMaxTokens) { EXPECT_TRUE(DefaultBucketBounds(0).empty()); }

TEST(BucketsTest, DefaultBoundsPassValidation) {
  for (int max_tokens : {1, 16, 17, 300, 512, 8192}) {
    EXPECT_TRUE(ValidateBucketBounds(DefaultBucketBounds(max_tokens), max_tokens).ok()) << "max_tokens=" << max_tokens;
  }
}

TEST(BucketsTest, LengthEqualToABoundGoesToThatBucket) {
  const std::vector<int> bounds = DefaultBucketBounds(512);
  EXPECT_EQ(BucketIndexFor(bounds, 16), 0);
  EXPECT_EQ(BucketIndexFor(bounds, 32), 1);
  EXPECT_EQ(BucketIndexFor(bounds, 512), 5);
}

TEST(BucketsTest, LengthOneAboveABoundGoesToTheNextBucket) {
  const std::vector<int> bounds = DefaultBucketBounds(512);
  EXPECT_EQ(BucketIndexFor(bounds, 17), 1);
  EXPECT_EQ(BucketIndexFor(bounds, 33), 2);
  EXPECT_EQ(BucketIndexFor(bounds, 257), 5);
}

TEST(BucketsTest, ShortAndEmptyInputsGoToTheFirstBucket) {
  const std::vector<int> bounds = DefaultBucketBounds(512);
  EXPECT_EQ(BucketIndexFor(bounds, 0), 0);
  EXPECT_EQ(BucketIndexFor(bounds, 1), 0);
}

TEST(BucketsTest, LengthAboveTheLastBoundHasNoBucket) {
  EXPECT_EQ(BucketIndexFor(DefaultBucketBounds(512), 513), -1);
  EXPECT_EQ(BucketIndexFor(DefaultBucketBounds(300), 301), -1);
  EXPECT_EQ(BucketIndexFor(DefaultBucketBounds(300), 300), 5);
}

TEST(BucketsTest, ValidationRejectsEmptyBounds) {
  absl::Status s = ValidateBucketBounds({}, 512);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("empty"));
}

TEST(BucketsTest, ValidationRejectsNonPositiveBound) {
  absl::Status s = ValidateBucketBounds({0, 16, 512}, 512);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("must be positive"));
}

TEST(BucketsTest, ValidationRejectsBoundsThatAreNotStrictlyIncreasing) {
  absl::Status repeated = ValidateBucketBounds({16, 64, 64, 512}, 512);
  EXPECT_EQ(repeated.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(repeated.message(), HasSubstr("strictly increasing"));
  EXPECT_THAT(repeated.message(), HasSubstr("#2 (64)"));

  absl::Status decreasing = ValidateBucketBounds({16, 128, 64, 512}, 512);
  EXPECT_THAT(decreasing.message(), HasSubstr("strictly increasing"));
}

TEST(BucketsTest, ValidationRejectsLastBoundOtherThanMaxTokens) {
  absl::Status s = ValidateBucketBounds({16, 32, 256}, 512);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("last bucket bound is 256"));
  EXPECT_THAT(s.message(), HasSubstr("max_tokens is 512"));
}

}  // namespace
}  // namespace qinfer::scheduler
