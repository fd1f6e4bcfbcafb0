// A store that cannot be written, whichever write meets it first (issue
// "green on any machine"): the attempt log's write before a batch runs, or
// the results' write after it. The failure is real: the store's write-ahead
// log refuses appends inside RocksDB as a full disk does
// (RocksDbOutcomeStore::OpenRefusingLogWritesForTest). Either way the user sees
// the same things: event=store_error lines naming the write, the counter,
// the store's fatal condition, nothing acked; and a restart on a writable
// store loses nothing.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <sstream>

#include "fakes/fake_clock.h"
#include "fakes/fake_runner.h"
#include "fakes/fake_sinks.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/recorder.h"
#include "qinfer/core/store_writes.h"
#include "qinfer/pipeline/executor_loop.h"
#include "qinfer/storage/rocksdb_outcome_store.h"
#include "qinfer/scheduler/batch_queue.h"

namespace qinfer::pipeline {
namespace {

using testing::EventLog;
using testing::RecordingAcks;
using testing::ScriptedRunner;

constexpr int kJobs = 12;  // three batches of 4

std::vector<Job> Jobs(int n = kJobs) {
  std::vector<Job> jobs;
  for (int i = 0; i < n; ++i) {
    Job job;
    job.id = "j" + std::to_string(i);
    job.input_ids.assign(4, 1);  // one length: batches of the cap
    job.payload = R"({"id":")" + job.id + R"("})";
    job.origin = {"jobs", i % 2, int64_t(i), 1};
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// One life of the process over the store in `dir`.
struct Life {
  Life(const std::string& dir, std::shared_ptr<const std::atomic<bool>> refuse, ScriptedRunner& runner,
       testing::FakeClock& clock, EventLog& log, LoopOptions options)
      : store(storage::RocksDbOutcomeStore::OpenRefusingLogWritesForTest(dir, std::move(refuse)).value()),
        writes(health, {.attempts = 3, .backoff = std::chrono::milliseconds(10), .clock = &clock}),
        acks(log),
        recorder(*store, nullptr, acks, writes, health, {.clock = &clock}),
        queue([&] {
          scheduler::BatchPolicy policy;
          policy.bucket_bounds = {16};
          policy.caps = {4};
          policy.max_batch_delay = std::chrono::hours(1);  // batches of 4: full ones only
          policy.max_queued_jobs = 1000;
          policy.max_queued_tokens = 100000;
          return scheduler::BatchQueue(scheduler::Scheduler::Create(policy).value(), clock);
        }()),
        loop(queue, runner, recorder, store.get(), writes, health, clock, options) {}

  void RunAll(std::vector<Job> jobs) {
    for (Job& j : jobs) ASSERT_TRUE(queue.Push(std::move(j)).ok());
    queue.Close();
    loop.Run();
  }

  std::unique_ptr<storage::RocksDbOutcomeStore> store;
  Health health;
  StoreWrites writes;
  RecordingAcks acks;
  OutcomeRecorder recorder;
  scheduler::BatchQueue queue;
  ExecutorLoop loop;
};

class StoreWriteFailureTest : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) / "store-failure-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    options_.record_queue = GetParam();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // What the user of a life whose store failed sees, and what a restart on
  // a writable store then records.
  void ExpectFailedThenNothingLost(Life& life, const std::string& logged, const char* write) {
    EXPECT_TRUE(life.health.fatal());
    EXPECT_EQ(life.health.cause(), fatal_cause::kStore);
    EXPECT_NE(logged.find(std::string("event=store_error write=") + write), std::string::npos) << logged;
    EXPECT_NE(logged.find(std::string("event=fatal cause=store write=") + write), std::string::npos) << logged;
    EXPECT_EQ(life.writes.stats().total(), 3u) << "each failed try counts once";
    EXPECT_EQ(log_.count("ack:"), 0u) << "nothing acked without a durable record";
    EXPECT_EQ(life.store->CountResults().value(), 0u);
  }

  // `jobs` delivered again (none was acked) to a life whose store is
  // writable: each gets its result.
  void RestartAndExpectEveryRecord(int jobs) {
    refuse_->store(false);
    ScriptedRunner runner;
    EventLog log;
    Life again(dir_, refuse_, runner, clock_, log, options_);
    again.RunAll(Jobs(jobs));
    EXPECT_FALSE(again.health.fatal());
    EXPECT_EQ(again.writes.stats().total(), 0u);
    for (const Job& job : Jobs(jobs)) {
      auto stored = again.store->Get(job.id);
      ASSERT_TRUE(stored.ok() && stored->has_value()) << job.id;
      EXPECT_TRUE((*stored)->ok) << job.id;
    }
    EXPECT_EQ(log.count("ack:"), size_t(jobs));
  }

  std::string dir_;
  std::shared_ptr<std::atomic<bool>> refuse_ = std::make_shared<std::atomic<bool>>(false);
  testing::FakeClock clock_;
  EventLog log_;
  LoopOptions options_;
};

TEST_P(StoreWriteFailureTest, AnAttemptLogWriteThatKeepsFailingIsAStoreErrorAndARestartLosesNothing) {
  std::ostringstream out;
  {
    ScopedLogCapture capture("core", out, LogLevel::kInfo);
    ScriptedRunner runner;
    Life life(dir_, refuse_, runner, clock_, log_, options_);
    refuse_->store(true);  // the first write is the first batch's attempts
    life.RunAll(Jobs());
    EXPECT_TRUE(runner.runs.empty()) << "no batch runs without its attempt durable";
    EXPECT_EQ(life.writes.stats().store_errors_attempts.load(), 3u);
    EXPECT_EQ(life.writes.stats().store_errors_results.load(), 0u);
    ExpectFailedThenNothingLost(life, out.str(), "attempts");
  }
  RestartAndExpectEveryRecord(kJobs);
}

TEST_P(StoreWriteFailureTest, AResultWriteThatKeepsFailingIsAStoreErrorAndARestartLosesNothing) {
  std::ostringstream out;
  {
    ScopedLogCapture capture("core", out, LogLevel::kInfo);
    ScriptedRunner runner;
    // The attempts of the batch are durable; then the disk fills. One batch
    // only: with a record queue a second batch's attempts would race the
    // record thread's write for which fails first.
    runner.before_run = [this](const Batch&) { refuse_->store(true); };
    Life life(dir_, refuse_, runner, clock_, log_, options_);
    life.RunAll(Jobs(4));
    EXPECT_EQ(runner.batch_sizes, std::vector<size_t>{4});
    EXPECT_EQ(life.writes.stats().store_errors_results.load(), 3u);
    EXPECT_EQ(life.writes.stats().store_errors_attempts.load(), 0u);
    ExpectFailedThenNothingLost(life, out.str(), "results");
  }
  RestartAndExpectEveryRecord(4);
}

// Without and with the record queue (the record thread writes results
// while the executor thread writes attempts).
INSTANTIATE_TEST_SUITE_P(RecordQueue, StoreWriteFailureTest, ::testing::Values(size_t{0}, size_t{2}));

}  // namespace
}  // namespace qinfer::pipeline
