// Batch formation inside a bucket: least padding around the oldest job
// (Formation::kLength) against arrival order (Formation::kArrival), the age
// bound and no starvation, all under FakeClock.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fakes/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "qinfer/scheduler/buckets.h"
#include "qinfer/scheduler/scheduler.h"
#include "scheduler/test_jobs.h"

namespace qinfer::scheduler {
namespace {

using ::qinfer::scheduler::testing::Ids;
using ::qinfer::scheduler::testing::MakeJob;
using std::chrono::milliseconds;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

constexpr milliseconds kDelay{50};

// One bucket of bound 64 with cap 4 (plus a 512 bucket of cap 1).
BatchPolicy OneBucketPolicy(Formation formation) {
  BatchPolicy policy;
  policy.bucket_bounds = {64, 512};
  policy.caps = {4, 1};
  policy.max_batch_delay = kDelay;
  policy.max_queued_jobs = 100'000;
  policy.max_queued_tokens = 100'000'000;
  policy.formation = formation;
  return policy;
}

Scheduler MakeScheduler(BatchPolicy policy) {
  absl::StatusOr<Scheduler> scheduler = Scheduler::Create(std::move(policy));
  EXPECT_TRUE(scheduler.ok()) << scheduler.status();
  return std::move(scheduler).value();
}

class FormationTest : public ::testing::Test {
 protected:
  void Admit(Scheduler& s, std::string id, size_t length) {
    ASSERT_TRUE(s.Admit(MakeJob(std::move(id), length), clock_.Now()).ok());
    clock_.Advance(milliseconds(1));
  }
  // The same mixed bucket for several tests: the oldest job (30 tokens), then
  // jobs of 60, 10, 31, 62 and 29 tokens.
  void AdmitMixed(Scheduler& s) {
    AdmitEach(s, {{"oldest30", 30}, {"l60", 60}, {"l10", 10}, {"l31", 31}, {"l62", 62}, {"l29", 29}});
  }
  void AdmitEach(Scheduler& s, const std::vector<std::pair<std::string, size_t>>& jobs) {
    for (const auto& [id, length] : jobs) Admit(s, id, length);
  }
  qinfer::testing::FakeClock clock_;
};

// Sorted by length the bucket holds 10 29 30 31 | 32 60 61 62 (runs of the
// cap, 4); the oldest (30) is in the first run, and 10 would pad more than 8%
// of a row padded to 31, so it waits for a batch of its own length.
TEST_F(FormationTest, LengthTakesTheRunOfSimilarLengthsThatHoldsTheOldestJob) {
  Scheduler s = MakeScheduler(OneBucketPolicy(Formation::kLength));
  AdmitMixed(s);
  Admit(s, "l32", 32);
  Admit(s, "l61", 61);
  std::vector<std::vector<std::string>> batches;
  while (s.queued_jobs() > 0) {
    std::optional<Batch> batch = s.NextBatch(clock_.Now());
    if (batch) {
      batches.push_back(Ids(*batch));
    } else {
      clock_.Advance(kDelay);  // fewer than the cap left: they go by age
    }
  }
  // Arrival order inside each batch. Left: 10 32 60 61 | 62, oldest 60.
  // Left: 10 32 62 (one run), oldest 10, alone within 8%; then 62, then 32.
  EXPECT_THAT(batches, ElementsAre(ElementsAre("oldest30", "l31", "l29"), ElementsAre("l60", "l61"), ElementsAre("l10"),
                                   ElementsAre("l62"), ElementsAre("l32")));
  EXPECT_EQ(s.queued_jobs(), 0u);
}

TEST_F(FormationTest, WithoutAPaddingLimitTheWholeRunGoes) {
  BatchPolicy policy = OneBucketPolicy(Formation::kLength);
  policy.max_padding = 0.5;
  Scheduler s = MakeScheduler(policy);
  AdmitMixed(s);
  std::optional<Batch> batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  // 10 29 30 31 | 60 62: 10 pads 68% of 31, more than 50%.
  EXPECT_THAT(Ids(*batch), ElementsAre("oldest30", "l31", "l29"));
  policy.max_padding = 0.7;
  Scheduler loose = MakeScheduler(policy);
  AdmitMixed(loose);
  batch = loose.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("oldest30", "l10", "l31", "l29"));
}

// 10 29 30 31: 10 pads more than 8% of 31, but the one row adds 21 tokens of
// padding; with 21 allowed it rides along instead of waiting for a batch of
// its own, with 20 it does not.
TEST_F(FormationTest, AShortJobRidesAlongWhenItsPaddingIsWithinTheExtraTokens) {
  BatchPolicy policy = OneBucketPolicy(Formation::kLength);
  policy.extra_padding_tokens = 21;
  Scheduler s = MakeScheduler(policy);
  AdmitMixed(s);
  std::optional<Batch> batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("oldest30", "l10", "l31", "l29"));
  policy.extra_padding_tokens = 20;
  Scheduler tight = MakeScheduler(policy);
  AdmitMixed(tight);
  batch = tight.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("oldest30", "l31", "l29"));
}

// The extra tokens bound the padding the shorter jobs add in all, taken
// longest first, and the cap still holds: a batch of 50 (8% keeps 46 and up)
// with 13 extra tokens takes 44 (6) and 43 (7 more) but not 42 (8 more); with
// 100 it takes the two oldest 42s and stops at the cap.
TEST_F(FormationTest, ShorterJobsJoinLongestFirstWithinTheExtraTokensInAllAndTheCap) {
  BatchPolicy policy = OneBucketPolicy(Formation::kLength);
  policy.caps = {6, 1};
  policy.extra_padding_tokens = 13;
  auto admit = [&](Scheduler& s) {
    AdmitEach(s, {{"l50", 50}, {"l42a", 42}, {"l43", 43}, {"l49", 49}, {"l42b", 42}, {"l44", 44}, {"l42c", 42}});
  };
  Scheduler s = MakeScheduler(policy);
  admit(s);
  clock_.Advance(kDelay);  // 7 jobs over a cap of 6: the first batch is full anyway
  std::optional<Batch> batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), UnorderedElementsAre("l50", "l49", "l44", "l43"));
  policy.extra_padding_tokens = 100;
  Scheduler loose = MakeScheduler(policy);
  admit(loose);
  batch = loose.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), UnorderedElementsAre("l50", "l49", "l44", "l43", "l42a", "l42b"));
  batch = loose.NextBatch(clock_.Now() + kDelay);
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("l42c"));
}

TEST_F(FormationTest, ArrivalTakesTheCapOldestWhateverTheirLengths) {
  Scheduler s = MakeScheduler(OneBucketPolicy(Formation::kArrival));
  AdmitMixed(s);
  std::optional<Batch> batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("oldest30", "l60", "l10", "l31"));
  clock_.Advance(kDelay);
  batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("l62", "l29"));
}

TEST_F(FormationTest, TheOldestGoesFirstEvenWhenNoOtherJobIsCloseInLength) {
  Scheduler s = MakeScheduler(OneBucketPolicy(Formation::kLength));
  Admit(s, "old60", 60);
  for (int i = 0; i < 8; ++i) Admit(s, "s" + std::to_string(40 + i), size_t(40 + i));
  std::optional<Batch> batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("old60"));
  // Then the oldest left (40) with the lengths within 8% above it: 40..43.
  batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("s40", "s41", "s42", "s43"));
}

TEST_F(FormationTest, LengthTakesTheOldestOfEachLengthFirst) {
  Scheduler s = MakeScheduler(OneBucketPolicy(Formation::kLength));
  for (int i = 0; i < 6; ++i) Admit(s, "a" + std::to_string(i), 20);
  std::optional<Batch> batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("a0", "a1", "a2", "a3"));
}

TEST_F(FormationTest, APartialBucketGoesAtItsAgeBound) {
  Scheduler s = MakeScheduler(OneBucketPolicy(Formation::kLength));
  Admit(s, "a", 50);
  Admit(s, "b", 48);
  Admit(s, "c", 20);
  EXPECT_FALSE(s.NextBatch(clock_.Now()).has_value());
  ASSERT_TRUE(s.NextDeadline().has_value());
  clock_.Advance(*s.NextDeadline() - clock_.Now());
  std::optional<Batch> batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("a", "b"));
  // The job left out goes at its own age bound, 2 ms later.
  EXPECT_FALSE(s.NextBatch(clock_.Now()).has_value());
  clock_.Advance(milliseconds(2));
  batch = s.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("c"));
}

// A bucket that keeps receiving short jobs never starves the long one queued
// among them: every batch takes the bucket's oldest job, so it leaves as soon
// as the jobs queued before it have.
TEST_F(FormationTest, ALongJobAmongEndlessShortOnesLeavesOnceItIsOldest) {
  Scheduler s = MakeScheduler(OneBucketPolicy(Formation::kLength));
  for (int i = 0; i < 8; ++i) Admit(s, "pre" + std::to_string(i), 10);
  Admit(s, "long", 64);
  int batches_until_long = 0;
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 4; ++i) Admit(s, "r" + std::to_string(round * 4 + i), 10);
    std::optional<Batch> batch = s.NextBatch(clock_.Now());
    ASSERT_TRUE(batch.has_value());
    ++batches_until_long;
    const std::vector<std::string> ids = Ids(*batch);
    if (std::find(ids.begin(), ids.end(), "long") != ids.end()) break;
    ASSERT_LT(round, 19) << "the long job never left";
  }
  // 8 older jobs at 4 a batch, then the long one.
  EXPECT_EQ(batches_until_long, 3);
}

TEST_F(FormationTest, DrainUsesTheSameFormation) {
  Scheduler s = MakeScheduler(OneBucketPolicy(Formation::kLength));
  Admit(s, "a", 40);
  Admit(s, "b", 5);
  Admit(s, "c", 41);
  Admit(s, "d", 5);
  Admit(s, "e", 42);
  Admit(s, "f", 43);
  std::vector<Batch> batches = s.Drain();
  std::vector<std::vector<std::string>> ids;
  for (const Batch& batch : batches) ids.push_back(Ids(batch));
  // 5 5 40 41 | 42 43: the oldest (40) and 41 within 8% of each other.
  EXPECT_THAT(ids, ElementsAre(ElementsAre("a", "c"), ElementsAre("b", "d"), ElementsAre("e", "f")));
}

// Lengths drawn from a long-tailed (log-normal) distribution, admitted as a
// backlog into power-of-two buckets and dispatched until empty.
struct Dispatched {
  double padding_efficiency = 0;  // real / padded tokens
  std::multiset<std::string> ids;
};

Dispatched RunBacklog(Formation formation, int jobs, int new_per_batch, size_t extra_padding_tokens = 0) {
  BatchPolicy policy;
  policy.extra_padding_tokens = extra_padding_tokens;
  policy.bucket_bounds = DefaultBucketBounds(512);
  policy.caps = std::vector<int>(policy.bucket_bounds.size(), 16);
  policy.max_batch_delay = kDelay;
  policy.max_queued_jobs = 100'000;
  policy.max_queued_tokens = 100'000'000;
  policy.formation = formation;
  Scheduler s = MakeScheduler(policy);
  qinfer::testing::FakeClock clock;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(std::log(60.0), 1.0);
  int admitted = 0;
  auto admit = [&](int n) {
    for (int i = 0; i < n && admitted < jobs; ++i, ++admitted) {
      const size_t length = size_t(std::clamp(std::lround(std::exp(normal(rng))), 1L, 512L));
      EXPECT_TRUE(s.Admit(MakeJob("j" + std::to_string(admitted), length), clock.Now()).ok());
      clock.Advance(milliseconds(1));
    }
  };
  admit(jobs / 2);  // the backlog
  Dispatched out;
  double real = 0;
  double padded = 0;
  while (s.queued_jobs() > 0) {
    std::optional<Batch> batch = s.NextBatch(clock.Now());
    if (!batch) {
      clock.Advance(kDelay);
      continue;
    }
    size_t longest = 0;
    for (const Job& job : batch->jobs) {
      real += double(job.length());
      longest = std::max(longest, job.length());
      out.ids.insert(job.id);
    }
    padded += double(longest * batch->jobs.size());
    admit(new_per_batch);  // the stream goes on while batches run
  }
  out.padding_efficiency = real / padded;
  return out;
}

TEST(FormationBacklogTest, LengthPadsFarLessThanArrivalAndLosesNoJob) {
  constexpr int kJobs = 20'000;
  const Dispatched length = RunBacklog(Formation::kLength, kJobs, 16);
  const Dispatched arrival = RunBacklog(Formation::kArrival, kJobs, 16);
  std::multiset<std::string> expected;
  for (int i = 0; i < kJobs; ++i) expected.insert("j" + std::to_string(i));
  EXPECT_EQ(length.ids, expected);
  EXPECT_EQ(arrival.ids, expected);
  EXPECT_GE(length.padding_efficiency, 0.95) << "arrival: " << arrival.padding_efficiency;
  RecordProperty("length_padding_efficiency", std::to_string(length.padding_efficiency));
  RecordProperty("arrival_padding_efficiency", std::to_string(arrival.padding_efficiency));
  EXPECT_LT(arrival.padding_efficiency, 0.85);
}

// Shorter jobs riding along lose none and keep the padding low over a
// backlog: each batch adds at most 32 padded tokens to its 16 rows.
TEST(FormationBacklogTest, ExtraPaddingTokensLoseNoJobAndKeepPaddingLow) {
  constexpr int kJobs = 20'000;
  const Dispatched length = RunBacklog(Formation::kLength, kJobs, 16, 32);
  std::multiset<std::string> expected;
  for (int i = 0; i < kJobs; ++i) expected.insert("j" + std::to_string(i));
  EXPECT_EQ(length.ids, expected);
  EXPECT_GE(length.padding_efficiency, 0.95);
  RecordProperty("padding_efficiency", std::to_string(length.padding_efficiency));
}

}  // namespace
}  // namespace qinfer::scheduler
