#include "qinfer/scheduler/scheduler.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "fakes/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/test_jobs.h"

namespace qinfer::scheduler {
namespace {

using ::qinfer::scheduler::testing::Ids;
using ::qinfer::scheduler::testing::MakeJob;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr milliseconds kDelay{50};

BatchPolicy TestPolicy() { return testing::TestPolicy(kDelay, /*max_queued_jobs=*/100); }

class SchedulerTest : public ::testing::Test {
 protected:
  SchedulerTest() : scheduler_(MakeScheduler(TestPolicy())) {}

  static Scheduler MakeScheduler(BatchPolicy policy) {
    absl::StatusOr<Scheduler> scheduler = Scheduler::Create(std::move(policy));
    EXPECT_TRUE(scheduler.ok()) << scheduler.status();
    return std::move(scheduler).value();
  }

  void Admit(std::string id, size_t length) {
    ASSERT_TRUE(scheduler_.Admit(MakeJob(std::move(id), length), clock_.Now()).ok());
  }

  qinfer::testing::FakeClock clock_;
  Scheduler scheduler_;
};

TEST(SchedulerCreateTest, RejectsAnInvalidPolicy) {
  BatchPolicy policy = TestPolicy();
  policy.caps = {4, 2};
  absl::StatusOr<Scheduler> scheduler = Scheduler::Create(policy);
  EXPECT_EQ(scheduler.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(scheduler.status().message(), HasSubstr("BatchPolicy.caps"));
}

TEST_F(SchedulerTest, ExposesBoundsCapsAndMaxTokensOfThePolicy) {
  EXPECT_THAT(scheduler_.bounds(), ElementsAre(16, 64, 512));
  EXPECT_EQ(scheduler_.num_buckets(), 3);
  EXPECT_EQ(scheduler_.max_tokens(), 512);
  EXPECT_EQ(scheduler_.cap(0), 4);
  EXPECT_EQ(scheduler_.cap(2), 1);
}

TEST_F(SchedulerTest, RejectsJobLongerThanMaxTokensAndLeavesItIntact) {
  Job job = MakeJob("long", 700);
  absl::Status s = scheduler_.Admit(std::move(job), clock_.Now());
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "input length 700 exceeds max_tokens 512");
  // Still usable for the caller's failure record.
  EXPECT_EQ(job.id, "long");  // NOLINT(bugprone-use-after-move): by contract
  EXPECT_EQ(job.length(), 700u);
  EXPECT_EQ(scheduler_.queued_jobs(), 0u);
}

TEST_F(SchedulerTest, AdmitsJobOfExactlyMaxTokens) {
  Admit("max", 512);
  EXPECT_EQ(scheduler_.bucket_depth(2), 1u);
}

TEST_F(SchedulerTest, StampsEnqueuedAtWithNow) {
  const SteadyTime admitted_at = clock_.Now();
  Admit("a", 10);
  clock_.Advance(kDelay);
  std::optional<Batch> batch = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->jobs[0].enqueued_at, admitted_at);
}

TEST_F(SchedulerTest, PutsJobsInTheBucketOfTheirLength) {
  Admit("a", 16);
  Admit("b", 17);
  Admit("c", 64);
  Admit("d", 65);
  EXPECT_EQ(scheduler_.bucket_depth(0), 1u);
  EXPECT_EQ(scheduler_.bucket_depth(1), 2u);
  EXPECT_EQ(scheduler_.bucket_depth(2), 1u);
}

TEST_F(SchedulerTest, CountsQueuedJobsAndTokensThroughAdmitAndDispatch) {
  Admit("a", 10);
  Admit("b", 12);
  Admit("c", 30);
  EXPECT_EQ(scheduler_.queued_jobs(), 3u);
  EXPECT_EQ(scheduler_.queued_tokens(), 52u);
  const size_t bytes16 = MakeJob("a", 10).footprint_bytes() + MakeJob("b", 12).footprint_bytes();
  const size_t bytes64 = MakeJob("c", 30).footprint_bytes();
  EXPECT_EQ(scheduler_.queued_bytes(), bytes16 + bytes64);
  EXPECT_THAT(scheduler_.Stats(), ElementsAre(BucketStats{16, 4, 2, 22, bytes16}, BucketStats{64, 2, 1, 30, bytes64},
                                              BucketStats{512, 1, 0, 0, 0}));

  clock_.Advance(kDelay);
  int batches = 0;
  while (scheduler_.NextBatch(clock_.Now()).has_value()) ++batches;
  EXPECT_GE(batches, 2);
  EXPECT_EQ(scheduler_.queued_jobs(), 0u);
  EXPECT_EQ(scheduler_.queued_tokens(), 0u);
  EXPECT_EQ(scheduler_.queued_bytes(), 0u);
}

TEST_F(SchedulerTest, ReturnsNothingWhenEmpty) {
  EXPECT_FALSE(scheduler_.NextBatch(clock_.Now()).has_value());
  EXPECT_FALSE(scheduler_.NextDeadline().has_value());
}

TEST_F(SchedulerTest, DispatchesFullBucketImmediately) {
  for (int i = 0; i < 4; ++i) Admit("j" + std::to_string(i), 8);
  std::optional<Batch> batch = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->bucket_bound, 16);
  EXPECT_THAT(Ids(*batch), ElementsAre("j0", "j1", "j2", "j3"));
  EXPECT_EQ(scheduler_.queued_jobs(), 0u);
}

TEST_F(SchedulerTest, HoldsPartialBucketUntilMaxDelay) {
  Admit("a", 8);
  Admit("b", 8);
  EXPECT_FALSE(scheduler_.NextBatch(clock_.Now()).has_value());
  clock_.Advance(kDelay - nanoseconds(1));
  EXPECT_FALSE(scheduler_.NextBatch(clock_.Now()).has_value());
  EXPECT_EQ(scheduler_.queued_jobs(), 2u);
}

TEST_F(SchedulerTest, FlushesPartialBucketWhenMaxDelayElapses) {
  Admit("a", 8);
  Admit("b", 8);
  clock_.Advance(kDelay);
  std::optional<Batch> batch = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->bucket_bound, 16);
  EXPECT_THAT(Ids(*batch), ElementsAre("a", "b"));
}

TEST_F(SchedulerTest, MaxDelayCountsFromTheOldestJob) {
  Admit("a", 8);
  clock_.Advance(milliseconds(30));
  Admit("b", 8);  // fresh, but rides along with the old one
  clock_.Advance(milliseconds(20));
  std::optional<Batch> batch = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("a", "b"));
}

TEST_F(SchedulerTest, DispatchesEveryJobImmediatelyWithZeroMaxDelay) {
  BatchPolicy policy = TestPolicy();
  policy.max_batch_delay = milliseconds(0);
  Scheduler scheduler = MakeScheduler(policy);
  ASSERT_TRUE(scheduler.Admit(MakeJob("a", 8), clock_.Now()).ok());
  std::optional<Batch> batch = scheduler.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("a"));
}

TEST_F(SchedulerTest, TakesAtMostCapJobsPerBatch) {
  for (int i = 0; i < 10; ++i) Admit("j" + std::to_string(i), 8);

  std::optional<Batch> first = scheduler_.NextBatch(clock_.Now());
  std::optional<Batch> second = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(second.has_value());
  EXPECT_THAT(Ids(*first), ElementsAre("j0", "j1", "j2", "j3"));
  EXPECT_THAT(Ids(*second), ElementsAre("j4", "j5", "j6", "j7"));
  // The remaining two are a partial batch: they wait for the delay.
  EXPECT_FALSE(scheduler_.NextBatch(clock_.Now()).has_value());

  clock_.Advance(kDelay);
  std::optional<Batch> third = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(third.has_value());
  EXPECT_THAT(Ids(*third), ElementsAre("j8", "j9"));
  EXPECT_FALSE(scheduler_.NextBatch(clock_.Now()).has_value());
}

TEST_F(SchedulerTest, KeepsFifoOrderWithinABucket) {
  for (int i = 0; i < 7; ++i) {
    Admit("j" + std::to_string(i), 1 + i);  // lengths differ, one bucket
    clock_.Advance(milliseconds(1));
  }
  clock_.Advance(kDelay);
  std::vector<std::string> order;
  while (std::optional<Batch> batch = scheduler_.NextBatch(clock_.Now())) {
    for (const std::string& id : Ids(*batch)) order.push_back(id);
  }
  EXPECT_THAT(order, ElementsAre("j0", "j1", "j2", "j3", "j4", "j5", "j6"));
}

TEST_F(SchedulerTest, ServesOldPartialBucketBeforeRefilledFullBucket) {
  Admit("old", 40);  // bucket 64, cap 2: stays partial
  // Bucket 16 (cap 4) is refilled and full every millisecond.
  std::vector<int> served;
  bool old_served = false;
  for (int step = 0; step < 200 && !old_served; ++step) {
    clock_.Advance(milliseconds(1));
    for (int i = 0; i < 4; ++i) Admit("s" + std::to_string(step * 4 + i), 8);
    std::optional<Batch> batch = scheduler_.NextBatch(clock_.Now());
    ASSERT_TRUE(batch.has_value());
    served.push_back(batch->bucket_bound);
    old_served = batch->bucket_bound == 64;
    if (old_served) {
      EXPECT_THAT(Ids(*batch), ElementsAre("old"));
    }
  }
  ASSERT_TRUE(old_served);
  // Full batches went first until the old job's delay passed, then it won.
  EXPECT_EQ(served.size(), static_cast<size_t>(kDelay.count()));
}

TEST_F(SchedulerTest, ServesTheReadyBucketWhoseOldestJobIsOldest) {
  Admit("long-a", 100);  // bucket 512, cap 1: full at once
  clock_.Advance(milliseconds(1));
  for (int i = 0; i < 4; ++i) Admit("short" + std::to_string(i), 8);
  // Both buckets are full; the 512 bucket's job arrived first.
  std::optional<Batch> first = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->bucket_bound, 512);
  std::optional<Batch> second = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->bucket_bound, 16);
}

TEST_F(SchedulerTest, BreaksTiesBetweenEquallyOldBucketsByLowerBound) {
  Admit("mid", 40);
  Admit("short", 8);
  clock_.Advance(kDelay);
  std::optional<Batch> first = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->bucket_bound, 16);
  std::optional<Batch> second = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->bucket_bound, 64);
}

TEST_F(SchedulerTest, NextDeadlineIsOldestPartialJobPlusMaxDelay) {
  const SteadyTime t0 = clock_.Now();
  Admit("a", 8);
  clock_.Advance(milliseconds(10));
  Admit("b", 40);
  ASSERT_TRUE(scheduler_.NextDeadline().has_value());
  EXPECT_EQ(*scheduler_.NextDeadline(), t0 + kDelay);

  // Once "a" has gone, the deadline moves to "b"'s.
  clock_.Advance(kDelay);
  std::optional<Batch> batch = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("a"));
  ASSERT_TRUE(scheduler_.NextDeadline().has_value());
  EXPECT_EQ(*scheduler_.NextDeadline(), t0 + milliseconds(10) + kDelay);
}

TEST_F(SchedulerTest, NextDeadlineIsNotInTheFutureWhenABucketIsFull) {
  clock_.Advance(milliseconds(5));
  Admit("long", 100);  // cap 1: full
  ASSERT_TRUE(scheduler_.NextDeadline().has_value());
  EXPECT_LE(*scheduler_.NextDeadline(), clock_.Now());
}

TEST_F(SchedulerTest, NextBatchSucceedsAtNextDeadline) {
  Admit("a", 8);
  clock_.Advance(milliseconds(7));
  Admit("b", 40);
  std::optional<SteadyTime> deadline = scheduler_.NextDeadline();
  ASSERT_TRUE(deadline.has_value());
  EXPECT_FALSE(scheduler_.NextBatch(*deadline - nanoseconds(1)).has_value());
  EXPECT_TRUE(scheduler_.NextBatch(*deadline).has_value());
}

TEST_F(SchedulerTest, ReportsFullAtTheJobBound) {
  BatchPolicy policy = TestPolicy();
  policy.max_queued_jobs = 6;
  Scheduler scheduler = MakeScheduler(policy);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(scheduler.Admit(MakeJob("j", 1), clock_.Now()).ok());
  }
  EXPECT_FALSE(scheduler.IsFull());
  ASSERT_TRUE(scheduler.Admit(MakeJob("j", 1), clock_.Now()).ok());
  EXPECT_TRUE(scheduler.IsFull());
}

TEST_F(SchedulerTest, ReportsFullAtTheTokenBound) {
  BatchPolicy policy = TestPolicy();
  policy.max_queued_tokens = 1000;
  Scheduler scheduler = MakeScheduler(policy);
  ASSERT_TRUE(scheduler.Admit(MakeJob("a", 500), clock_.Now()).ok());
  ASSERT_TRUE(scheduler.Admit(MakeJob("b", 499), clock_.Now()).ok());
  EXPECT_FALSE(scheduler.IsFull());
  ASSERT_TRUE(scheduler.Admit(MakeJob("c", 1), clock_.Now()).ok());
  EXPECT_TRUE(scheduler.IsFull());
}

TEST_F(SchedulerTest, ReportsFullAtTheByteBoundAndResumesBelowHalfOfIt) {
  // Jobs with a large `meta`, as a message may carry: few jobs and tokens,
  // many bytes.
  auto fat_job = [](std::string id) {
    Job job = MakeJob(std::move(id), 4);
    job.meta_json.assign(100'000, 'm');
    return job;
  };
  const size_t per_job = fat_job("x").footprint_bytes();
  ASSERT_GT(per_job, 100'000u);
  BatchPolicy policy = TestPolicy();
  policy.caps = {1, 1, 1};
  policy.max_queued_bytes = 3 * per_job;
  Scheduler scheduler = MakeScheduler(policy);
  ASSERT_TRUE(scheduler.Admit(fat_job("a"), clock_.Now()).ok());
  ASSERT_TRUE(scheduler.Admit(fat_job("b"), clock_.Now()).ok());
  EXPECT_EQ(scheduler.queued_bytes(), 2 * per_job);
  EXPECT_FALSE(scheduler.IsFull()) << "2 jobs, 8 tokens: only bytes count here";
  ASSERT_TRUE(scheduler.Admit(fat_job("c"), clock_.Now()).ok());
  EXPECT_TRUE(scheduler.IsFull());
  EXPECT_EQ(scheduler.Stats()[0].queued_bytes, 3 * per_job);

  ASSERT_TRUE(scheduler.NextBatch(clock_.Now()).has_value());
  EXPECT_FALSE(scheduler.IsFull());
  EXPECT_FALSE(scheduler.HasRoomToResume()) << "2 of 3: not below half";
  ASSERT_TRUE(scheduler.NextBatch(clock_.Now()).has_value());
  EXPECT_TRUE(scheduler.HasRoomToResume());
  ASSERT_TRUE(scheduler.NextBatch(clock_.Now()).has_value());
  EXPECT_EQ(scheduler.queued_bytes(), 0u);
}

TEST(SchedulerCreateTest, RejectsAByteBoundSmallerThanOneJob) {
  BatchPolicy policy = TestPolicy();
  policy.max_queued_bytes = 1000;
  policy.max_job_bytes = 1 << 20;
  absl::StatusOr<Scheduler> s = Scheduler::Create(policy);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("max_queued_bytes"));
}

TEST_F(SchedulerTest, AdmitsJobsEvenWhenFull) {
  BatchPolicy policy = TestPolicy();
  policy.max_queued_jobs = 4;
  Scheduler scheduler = MakeScheduler(policy);
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(scheduler.Admit(MakeJob("j", 1), clock_.Now()).ok());
  }
  EXPECT_EQ(scheduler.queued_jobs(), 6u);
  EXPECT_TRUE(scheduler.IsFull());
}

TEST_F(SchedulerTest, ResumesOnlyBelowHalfOfTheJobBound) {
  BatchPolicy policy = TestPolicy();
  policy.caps = {1, 1, 1};
  policy.max_queued_jobs = 8;
  Scheduler scheduler = MakeScheduler(policy);
  EXPECT_TRUE(scheduler.HasRoomToResume());
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(scheduler.Admit(MakeJob("j", 1), clock_.Now()).ok());
  }
  ASSERT_TRUE(scheduler.IsFull());

  // Between the thresholds: neither full nor ready to resume.
  std::vector<bool> full, resume;
  while (scheduler.queued_jobs() > 0) {
    ASSERT_TRUE(scheduler.NextBatch(clock_.Now()).has_value());
    full.push_back(scheduler.IsFull());
    resume.push_back(scheduler.HasRoomToResume());
  }
  // queued after each batch: 7 6 5 4 3 2 1 0
  EXPECT_THAT(full, ElementsAre(false, false, false, false, false, false, false, false));
  EXPECT_THAT(resume, ElementsAre(false, false, false, false, true, true, true, true));
}

TEST_F(SchedulerTest, ResumesOnlyBelowHalfOfTheTokenBound) {
  BatchPolicy policy = TestPolicy();
  policy.max_queued_tokens = 1000;
  Scheduler scheduler = MakeScheduler(policy);
  ASSERT_TRUE(scheduler.Admit(MakeJob("a", 500), clock_.Now()).ok());
  EXPECT_FALSE(scheduler.HasRoomToResume());  // exactly half: not below
  ASSERT_TRUE(scheduler.Admit(MakeJob("b", 500), clock_.Now()).ok());
  EXPECT_TRUE(scheduler.IsFull());
  ASSERT_TRUE(scheduler.NextBatch(clock_.Now()).has_value());
  EXPECT_FALSE(scheduler.IsFull());
  EXPECT_FALSE(scheduler.HasRoomToResume());
  ASSERT_TRUE(scheduler.NextBatch(clock_.Now()).has_value());
  EXPECT_TRUE(scheduler.HasRoomToResume());
}

TEST_F(SchedulerTest, LoweredCapTakesEffectOnTheNextBatch) {
  for (int i = 0; i < 6; ++i) Admit("j" + std::to_string(i), 8);
  std::optional<Batch> first = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->jobs.size(), 4u);

  ASSERT_TRUE(scheduler_.SetCap(0, 1).ok());
  EXPECT_EQ(scheduler_.cap(0), 1);
  // Two jobs left, cap 1: the bucket is full again without waiting.
  std::optional<Batch> second = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(second.has_value());
  EXPECT_THAT(Ids(*second), ElementsAre("j4"));
  std::optional<Batch> third = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(third.has_value());
  EXPECT_THAT(Ids(*third), ElementsAre("j5"));
}

TEST_F(SchedulerTest, RaisedCapLetsABucketWaitForMoreJobs) {
  for (int i = 0; i < 4; ++i) Admit("j" + std::to_string(i), 8);
  ASSERT_TRUE(scheduler_.SetCap(0, 8).ok());
  EXPECT_FALSE(scheduler_.NextBatch(clock_.Now()).has_value());
  clock_.Advance(kDelay);
  std::optional<Batch> batch = scheduler_.NextBatch(clock_.Now());
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->jobs.size(), 4u);
}

TEST_F(SchedulerTest, SetCapRejectsBadIndexAndCapBelowOne) {
  EXPECT_EQ(scheduler_.SetCap(-1, 2).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(scheduler_.SetCap(3, 2).code(), absl::StatusCode::kInvalidArgument);
  absl::Status s = scheduler_.SetCap(0, 0);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(">= 1"));
  EXPECT_EQ(scheduler_.cap(0), 4);
}

TEST_F(SchedulerTest, DrainReturnsEverythingInBatchesOfAtMostCapOldestFirst) {
  for (int i = 0; i < 5; ++i) Admit("s" + std::to_string(i), 8);  // 16: cap 4
  clock_.Advance(milliseconds(1));
  Admit("m0", 40);   // 64: cap 2
  Admit("l0", 300);  // 512: cap 1
  Admit("l1", 300);

  std::vector<Batch> batches = scheduler_.Drain();
  ASSERT_EQ(batches.size(), 5u);
  EXPECT_THAT(Ids(batches[0]), ElementsAre("s0", "s1", "s2", "s3"));
  EXPECT_THAT(Ids(batches[1]), ElementsAre("s4"));
  EXPECT_THAT(Ids(batches[2]), ElementsAre("m0"));
  EXPECT_EQ(batches[2].bucket_bound, 64);
  EXPECT_THAT(Ids(batches[3]), ElementsAre("l0"));
  EXPECT_THAT(Ids(batches[4]), ElementsAre("l1"));
  EXPECT_EQ(scheduler_.queued_jobs(), 0u);
  EXPECT_EQ(scheduler_.queued_tokens(), 0u);
  EXPECT_FALSE(scheduler_.NextDeadline().has_value());
  EXPECT_TRUE(scheduler_.Drain().empty());
}

}  // namespace
}  // namespace qinfer::scheduler
