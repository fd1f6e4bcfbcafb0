#include "qinfer/scheduler/batch_queue.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <thread>
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
using std::chrono::steady_clock;
using ::testing::ElementsAre;

BatchPolicy TestPolicy(milliseconds max_batch_delay) {
  return testing::TestPolicy(max_batch_delay, /*max_queued_jobs=*/64);
}

Scheduler MakeScheduler(milliseconds max_batch_delay) {
  absl::StatusOr<Scheduler> scheduler = Scheduler::Create(TestPolicy(max_batch_delay));
  EXPECT_TRUE(scheduler.ok()) << scheduler.status();
  return std::move(scheduler).value();
}

TEST(BatchQueueTest, ReturnsFullBatchWithoutWaiting) {
  qinfer::testing::FakeClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(50)), clock);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(queue.Push(MakeJob("j" + std::to_string(i), 8)).ok());
  }
  std::optional<Batch> batch = queue.WaitNextBatch(milliseconds(0));
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("j0", "j1", "j2", "j3"));
  EXPECT_EQ(queue.queued_jobs(), 0u);
}

TEST(BatchQueueTest, DecidesReadinessByTheInjectedClock) {
  qinfer::testing::FakeClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(50)), clock);
  ASSERT_TRUE(queue.Push(MakeJob("a", 8)).ok());
  EXPECT_FALSE(queue.WaitNextBatch(milliseconds(0)).has_value());
  clock.Advance(milliseconds(50));
  std::optional<Batch> batch = queue.WaitNextBatch(milliseconds(0));
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("a"));
  EXPECT_EQ(batch->jobs[0].enqueued_at + milliseconds(50), clock.Now());
}

TEST(BatchQueueTest, ReturnsNothingAfterMaxWaitWhenNothingIsReady) {
  SystemClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(10'000)), clock);
  ASSERT_TRUE(queue.Push(MakeJob("a", 8)).ok());
  const auto start = steady_clock::now();
  EXPECT_FALSE(queue.WaitNextBatch(milliseconds(30)).has_value());
  const auto waited = steady_clock::now() - start;
  EXPECT_GE(waited, milliseconds(30));
  EXPECT_LT(waited, milliseconds(5'000));
  EXPECT_EQ(queue.queued_jobs(), 1u);
}

TEST(BatchQueueTest, WakesAtTheDeadlineOfAPartialBatch) {
  SystemClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(30)), clock);
  const auto start = steady_clock::now();
  ASSERT_TRUE(queue.Push(MakeJob("a", 8)).ok());
  std::optional<Batch> batch = queue.WaitNextBatch(milliseconds(10'000));
  const auto waited = steady_clock::now() - start;
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("a"));
  EXPECT_GE(waited, milliseconds(30));
  EXPECT_LT(waited, milliseconds(5'000));
}

TEST(BatchQueueTest, WakesTheWaiterWhenAPushFillsABucket) {
  SystemClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(60'000)), clock);
  std::thread pusher([&] {
    std::this_thread::sleep_for(milliseconds(20));
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(queue.Push(MakeJob("j" + std::to_string(i), 8)).ok());
    }
  });
  const auto start = steady_clock::now();
  std::optional<Batch> batch = queue.WaitNextBatch(milliseconds(10'000));
  const auto waited = steady_clock::now() - start;
  pusher.join();
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->jobs.size(), 4u);
  EXPECT_LT(waited, milliseconds(5'000));
}

TEST(BatchQueueTest, WakesOnlyWhenAPushBringsTheDeadlineForward) {
  // The bucket of length 8 holds 4 a batch (test_jobs.h): the first job sets
  // the deadline, the next two change nothing a waiter would act on, the
  // fourth fills the bucket.
  qinfer::testing::FakeClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(60'000)), clock);
  ASSERT_TRUE(queue.Push(MakeJob("a", 8)).ok());
  EXPECT_EQ(queue.wake_ups(), 1u);
  ASSERT_TRUE(queue.Push(MakeJob("b", 8)).ok());
  ASSERT_TRUE(queue.Push(MakeJob("c", 8)).ok());
  EXPECT_EQ(queue.wake_ups(), 1u);
  ASSERT_TRUE(queue.Push(MakeJob("d", 8)).ok());
  EXPECT_EQ(queue.wake_ups(), 2u);
  std::optional<Batch> batch = queue.WaitNextBatch(milliseconds(0));
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("a", "b", "c", "d"));
}

TEST(BatchQueueTest, WakesTheWaiterWhenALoweredCapMakesABucketReady) {
  SystemClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(60'000)), clock);
  ASSERT_TRUE(queue.Push(MakeJob("a", 8)).ok());
  std::thread lowerer([&] {
    std::this_thread::sleep_for(milliseconds(20));
    EXPECT_TRUE(queue.SetCap(0, 1).ok());
  });
  const auto start = steady_clock::now();
  std::optional<Batch> batch = queue.WaitNextBatch(milliseconds(10'000));
  const auto waited = steady_clock::now() - start;
  lowerer.join();
  ASSERT_TRUE(batch.has_value());
  EXPECT_THAT(Ids(*batch), ElementsAre("a"));
  EXPECT_EQ(queue.cap(0), 1);
  EXPECT_LT(waited, milliseconds(5'000));
}

TEST(BatchQueueTest, CloseWakesAWaiterPromptly) {
  SystemClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(60'000)), clock);
  ASSERT_TRUE(queue.Push(MakeJob("a", 8)).ok());
  std::thread closer([&] {
    std::this_thread::sleep_for(milliseconds(20));
    queue.Close();
  });
  const auto start = steady_clock::now();
  std::optional<Batch> batch = queue.WaitNextBatch(milliseconds(10'000));
  const auto waited = steady_clock::now() - start;
  closer.join();
  EXPECT_FALSE(batch.has_value());
  EXPECT_LT(waited, milliseconds(5'000));
  EXPECT_TRUE(queue.closed());
  // Nothing was lost: the job is still there for DrainAll.
  std::vector<Batch> rest = queue.DrainAll();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_THAT(Ids(rest[0]), ElementsAre("a"));
}

TEST(BatchQueueTest, NeverBlocksAfterClose) {
  SystemClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(60'000)), clock);
  queue.Close();
  const auto start = steady_clock::now();
  EXPECT_FALSE(queue.WaitNextBatch(milliseconds(10'000)).has_value());
  EXPECT_LT(steady_clock::now() - start, milliseconds(5'000));
}

TEST(BatchQueueTest, RefusesPushAfterCloseAndLeavesTheJobIntact) {
  qinfer::testing::FakeClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(50)), clock);
  queue.Close();
  Job job = MakeJob("late", 8);
  absl::Status s = queue.Push(std::move(job));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(job.id, "late");  // NOLINT(bugprone-use-after-move): by contract
  EXPECT_EQ(job.length(), 8u);
  EXPECT_EQ(queue.queued_jobs(), 0u);
}

TEST(BatchQueueTest, RefusesTooLongJobAndLeavesItIntact) {
  qinfer::testing::FakeClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(50)), clock);
  Job job = MakeJob("long", 513);
  absl::Status s = queue.Push(std::move(job));
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "input length 513 exceeds max_tokens 512");
  EXPECT_EQ(job.length(), 513u);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(queue.max_tokens(), 512);
  EXPECT_THAT(queue.bounds(), ElementsAre(16, 64, 512));
}

TEST(BatchQueueTest, ReportsBackpressureFromTheScheduler) {
  qinfer::testing::FakeClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(50)), clock);  // 64 jobs max
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(queue.Push(MakeJob("j", 1)).ok());
  EXPECT_TRUE(queue.IsFull());
  EXPECT_FALSE(queue.HasRoomToResume());
  EXPECT_EQ(queue.queued_tokens(), 64u);
  EXPECT_EQ(queue.Stats()[0].queued_jobs, 64u);
  for (int i = 0; i < 9; ++i) {
    ASSERT_TRUE(queue.WaitNextBatch(milliseconds(0)).has_value());
  }
  EXPECT_EQ(queue.queued_jobs(), 28u);
  EXPECT_FALSE(queue.IsFull());
  EXPECT_TRUE(queue.HasRoomToResume());
}

// A consumer thread pushes jobs of mixed lengths (pausing while the queue is
// full, as the Kafka consumer pauses its partitions) while this thread pulls
// batches: every job comes out exactly once, within its bucket's cap.
TEST(BatchQueueTest, DeliversEveryPushedJobExactlyOnceAcrossThreads) {
  constexpr int kJobs = 2000;
  constexpr size_t kLengths[] = {1, 16, 17, 64, 65, 512, 3, 40};
  SystemClock clock;
  BatchQueue queue(MakeScheduler(milliseconds(2)), clock);

  std::atomic<bool> producer_failed{false};
  std::thread producer([&] {
    bool paused = false;
    for (int i = 0; i < kJobs; ++i) {
      while (true) {
        if (paused && queue.HasRoomToResume()) paused = false;
        if (!paused && queue.IsFull()) paused = true;
        if (!paused) break;
        std::this_thread::sleep_for(milliseconds(1));
      }
      const size_t length = kLengths[i % std::size(kLengths)];
      if (!queue.Push(MakeJob(std::to_string(i), length)).ok()) {
        producer_failed = true;
      }
    }
  });

  std::multiset<std::string> seen;
  size_t max_queued_seen = 0;
  const auto give_up = steady_clock::now() + std::chrono::seconds(30);
  while (seen.size() < static_cast<size_t>(kJobs) && steady_clock::now() < give_up) {
    max_queued_seen = std::max(max_queued_seen, queue.queued_jobs());
    std::optional<Batch> batch = queue.WaitNextBatch(milliseconds(100));
    if (!batch) continue;
    const int bucket = static_cast<int>(std::find(queue.bounds().begin(), queue.bounds().end(), batch->bucket_bound) -
                                        queue.bounds().begin());
    ASSERT_LT(bucket, 3);
    EXPECT_LE(batch->jobs.size(), static_cast<size_t>(queue.cap(bucket)));
    EXPECT_FALSE(batch->jobs.empty());
    for (const Job& job : batch->jobs) {
      EXPECT_LE(job.length(), static_cast<size_t>(batch->bucket_bound));
      seen.insert(job.id);
    }
  }
  producer.join();

  EXPECT_FALSE(producer_failed);
  EXPECT_EQ(seen.size(), static_cast<size_t>(kJobs));
  for (int i = 0; i < kJobs; ++i) {
    EXPECT_EQ(seen.count(std::to_string(i)), 1u) << "job " << i;
  }
  EXPECT_EQ(queue.queued_jobs(), 0u);
  EXPECT_TRUE(queue.DrainAll().empty());
  // Backpressure held: the only pusher checks IsFull() before each push, so
  // the queue never exceeds max_queued_jobs.
  EXPECT_LE(max_queued_seen, 64u);
}

}  // namespace
}  // namespace qinfer::scheduler
