#include "qinfer/pipeline/executor_loop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>

#include "fakes/fake_clock.h"
#include "fakes/fake_runner.h"
#include "fakes/fake_sinks.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/core/output_encoding.h"
#include "qinfer/scheduler/batch_queue.h"

namespace qinfer::pipeline {
namespace {

using ::testing::ElementsAre;
using testing::EventLog;
using testing::MemoryStore;
using testing::RecordingAcks;
using testing::ScriptedRunner;
using testing::SimulatedCrash;
using ::testing::UnorderedElementsAre;
using Events = std::vector<std::string>;

Job MakeJob(std::string id, int64_t offset, size_t length = 4) {
  Job job;
  job.id = std::move(id);
  job.input_ids.assign(length, 1);
  job.payload = R"({"id":")" + job.id + R"("})";
  job.origin = {"jobs", 0, offset, 1};
  return job;
}

scheduler::BatchQueue MakeQueue(const Clock& clock, int cap) {
  scheduler::BatchPolicy policy;
  policy.bucket_bounds = {16};
  policy.caps = {cap};
  policy.max_batch_delay = std::chrono::milliseconds(0);
  policy.max_queued_jobs = 1000;
  policy.max_queued_tokens = 100000;
  return scheduler::BatchQueue(scheduler::Scheduler::Create(policy).value(), clock);
}

// One process lifetime: a queue, a recorder and a loop over durable state
// (store, attempts) that the test keeps across simulated crashes.
class Process {
 public:
  Process(MemoryStore& store, ScriptedRunner& runner, testing::FakeClock& clock, EventLog& log, LoopOptions options,
          int cap = 8, BatchObserver* observer = nullptr)
      : queue_(MakeQueue(clock, cap)),
        acks_(log),
        writes_(health_, {.attempts = 2, .backoff = std::chrono::milliseconds(0), .clock = &clock}),
        recorder_(store, nullptr, acks_, writes_, health_, {.publish_attempts = 1, .clock = &clock}),
        loop_(queue_, runner, recorder_, &store, writes_, health_, clock, options, observer) {}

  void Push(std::vector<Job> jobs) {
    for (Job& j : jobs) ASSERT_TRUE(queue_.Push(std::move(j)).ok());
  }
  // Runs until the queue is drained; returns the job the runner "crashed"
  // on, or "" when it ran to the end.
  std::string RunToEnd() {
    queue_.Close();
    try {
      loop_.Run();
    } catch (const SimulatedCrash& crash) {
      return crash.job;
    }
    return "";
  }

  Health health_;
  scheduler::BatchQueue queue_;
  RecordingAcks acks_;
  StoreWrites writes_;
  OutcomeRecorder recorder_;
  ExecutorLoop loop_;
};

class ExecutorLoopTest : public ::testing::Test {
 protected:
  // The jobs of `all` without a durable record: what Kafka redelivers after
  // a crash (their offsets were never committed).
  std::vector<Job> Unrecorded(const std::vector<Job>& all) {
    std::vector<Job> left;
    for (const Job& j : all) {
      if (!store_.records.contains(j.id)) left.push_back(j);
    }
    return left;
  }

  EventLog log_;
  MemoryStore store_{log_};
  ScriptedRunner runner_;
  testing::FakeClock clock_;
  LoopOptions options_ = [] {
    LoopOptions o;
    o.drain_timeout = std::chrono::seconds(30);
    o.max_attempts = 3;
    return o;
  }();
};

TEST_F(ExecutorLoopTest, RecordsEveryJobThenAcksItAndForgetsItsAttempts) {
  Process p(store_, runner_, clock_, log_, options_);
  p.Push({MakeJob("a", 1), MakeJob("b", 2)});
  EXPECT_EQ(p.RunToEnd(), "");
  EXPECT_EQ(log_.events(), (Events{"put:a", "put:b", "ack:1", "ack:2"}));
  EXPECT_TRUE(store_.records.at("a").ok);
  EXPECT_TRUE(store_.attempts.empty()) << "an outcome's write forgets its attempts";
  EXPECT_EQ(p.loop_.stats().jobs_run.load(), 2u);
  EXPECT_EQ(p.loop_.totals().at(16).jobs, 2u);
}

TEST_F(ExecutorLoopTest, RecordsTheAttemptBeforeTheModelRuns) {
  std::vector<int> seen;
  runner_.before_run = [&](const Batch& b) { seen = store_.Attempts(std::vector<Origin>{b.jobs[0].origin}).value(); };
  Process p(store_, runner_, clock_, log_, options_);
  p.Push({MakeJob("a", 1)});
  p.RunToEnd();
  EXPECT_EQ(seen, std::vector<int>{1});
}

TEST_F(ExecutorLoopTest, ARunnerErrorBecomesAModelErrorRecordForEachJobOfTheBatch) {
  runner_.fail_with = absl::FailedPreconditionError("model not loaded");
  Process p(store_, runner_, clock_, log_, options_);
  p.Push({MakeJob("a", 1), MakeJob("b", 2)});
  p.RunToEnd();
  for (const char* id : {"a", "b"}) {
    EXPECT_FALSE(store_.records.at(id).ok);
    EXPECT_EQ(store_.records.at(id).reason, reason::kModelError);
    EXPECT_EQ(store_.records.at(id).error, "model not loaded");
  }
  EXPECT_EQ(log_.events(), (Events{"put:a", "put:b", "ack:1", "ack:2"}));
}

TEST_F(ExecutorLoopTest, APoisonJobIsIsolatedAloneAndGetsACrashRecordAfterMaxAttempts) {
  runner_.crash_on = {"poison"};
  const std::vector<Job> jobs = {MakeJob("a", 1), MakeJob("b", 2), MakeJob("poison", 3), MakeJob("c", 4)};
  std::vector<std::string> crashes;
  // A supervisor: restart after each crash, with what has no record yet.
  for (int life = 0; life < 6; ++life) {
    Process p(store_, runner_, clock_, log_, options_);
    p.Push(Unrecorded(jobs));
    const std::string crashed = p.RunToEnd();
    if (crashed.empty()) break;
    crashes.push_back(crashed);
  }
  // Life 1: the batch of four dies. Life 2: all four are suspects and run
  // alone; a and b succeed, poison dies (attempt 2) before c runs. Life 3:
  // c succeeds alone, poison dies (attempt 3). Life 4: crash record.
  EXPECT_THAT(crashes, ElementsAre("poison", "poison", "poison"));
  EXPECT_EQ(runner_.runs.at("poison"), 3);
  EXPECT_EQ(runner_.runs.at("a"), 2) << "once in the batch that died, once alone";
  ASSERT_EQ(store_.records.size(), 4u);
  for (const char* id : {"a", "b", "c"}) EXPECT_TRUE(store_.records.at(id).ok) << id;
  const Outcome& poison = store_.records.at("poison");
  EXPECT_FALSE(poison.ok);
  EXPECT_EQ(poison.reason, reason::kCrash);
  EXPECT_EQ(poison.payload, jobs[2].payload) << "kept for replay";
  EXPECT_EQ(poison.origin.offset, 3);
  EXPECT_THAT(runner_.batch_sizes, ElementsAre(4, 1, 1, 1, 1, 1)) << "after the first crash every suspect runs alone";
  EXPECT_EQ(store_.attempts.size(), 1u) << "only the crash record keeps its count";

  // Its offset may not have been committed before the process stopped: a
  // redelivery is isolated again, never run.
  Process again(store_, runner_, clock_, log_, options_);
  again.Push({jobs[2]});
  EXPECT_EQ(again.RunToEnd(), "");
  EXPECT_EQ(runner_.runs.at("poison"), 3);
  EXPECT_EQ(store_.records.at("poison").reason, reason::kCrash);
}

TEST_F(ExecutorLoopTest, AStoreThatKeepsFailingIsFatalAndNothingMoreIsRunOrAcked) {
  store_.failures_left = 1000;
  Process p(store_, runner_, clock_, log_, options_, /*cap=*/1);
  p.Push({MakeJob("a", 1), MakeJob("b", 2), MakeJob("c", 3)});
  EXPECT_EQ(p.RunToEnd(), "");
  EXPECT_TRUE(p.health_.fatal());
  EXPECT_EQ(p.health_.cause(), fatal_cause::kStore);
  EXPECT_EQ(runner_.batch_sizes.size(), 1u) << "only the batch whose write failed ran";
  EXPECT_EQ(p.loop_.stats().abandoned.load(), 2u);
  for (const std::string& e : log_.events()) EXPECT_EQ(e.rfind("ack:", 0), std::string::npos) << e;
  EXPECT_TRUE(p.queue_.closed());
  EXPECT_EQ(p.queue_.queued_jobs(), 0u);
}

TEST_F(ExecutorLoopTest, WithARecordQueueTheNextBatchesRunWhileTheLastIsWrittenAndAreWrittenTogether) {
  options_.record_queue = 2;
  std::atomic<int> batches_run{0}, writes{0};
  runner_.before_run = [&](const Batch& b) {
    // b and c run once a's write has begun: a is written alone.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (b.jobs[0].id != "a" && writes.load() == 0 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    batches_run++;
  };
  std::atomic<bool> overlapped{false};
  store_.before_put = [&] {
    // The first write waits until the model has run both later batches,
    // and their outcomes wait in the record queue.
    if (writes++ > 0) return;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (batches_run.load() < 3 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    overlapped = batches_run.load() >= 3;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // c's outcomes reach the queue
  };
  Process p(store_, runner_, clock_, log_, options_, /*cap=*/1);
  p.Push({MakeJob("a", 1), MakeJob("b", 2), MakeJob("c", 3)});
  EXPECT_EQ(p.RunToEnd(), "");
  EXPECT_TRUE(overlapped.load()) << "batches b and c ran while a's record was being written";
  EXPECT_EQ(log_.events(), (Events{"put:a", "ack:1", "put:b", "put:c", "ack:2", "ack:3"}))
      << "in order, each acked only after its write; b and c, waiting together, in one write; all recorded "
         "when Run returns";
  EXPECT_EQ(writes.load(), 2);
  EXPECT_TRUE(store_.attempts.empty());
  EXPECT_EQ(p.loop_.totals().at(16).batches, 3u) << "each batch counted once durable";
  EXPECT_EQ(p.loop_.totals().at(16).jobs, 3u);
  EXPECT_EQ(p.loop_.stats().abandoned.load(), 0u);
}

TEST_F(ExecutorLoopTest, WithARecordQueueACrashCountsOnlyAgainstTheJobsThatWereRunning) {
  options_.record_queue = 2;
  runner_.crash_on = {"poison"};
  std::atomic<bool> crashing{false};
  std::vector<int> when_poison_ran;
  runner_.before_run = [&](const Batch& b) {
    if (b.jobs[0].id != "poison") return;
    when_poison_ran =
        store_.Attempts(std::vector<Origin>{{"jobs", 0, 1, 1}, {"jobs", 0, 2, 1}, {"jobs", 0, 3, 1}}).value();
    crashing = true;
  };
  store_.before_put = [&] {
    // No record is written before the poison job runs: a and b have run,
    // but their results are not durable when the process dies.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!crashing.load() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  Process p(store_, runner_, clock_, log_, options_, /*cap=*/1);
  p.Push({MakeJob("a", 1), MakeJob("b", 2), MakeJob("poison", 3)});
  EXPECT_EQ(p.RunToEnd(), "poison");
  EXPECT_EQ(when_poison_ran, (std::vector<int>{0, 0, 1}))
      << "a and b had finished their runs: the poison batch's attempt write forgot them";
  EXPECT_EQ(store_.attempts, (std::map<std::string, int>{{"jobs/0/3", 1}}))
      << "only the job that was running is counted";
}

TEST_F(ExecutorLoopTest, WithARecordQueueAStoreThatKeepsFailingLeavesEveryOtherJobUnacked) {
  options_.record_queue = 1;
  store_.failures_left = 1000;
  Process p(store_, runner_, clock_, log_, options_, /*cap=*/1);
  p.Push({MakeJob("a", 1), MakeJob("b", 2), MakeJob("c", 3), MakeJob("d", 4)});
  EXPECT_EQ(p.RunToEnd(), "");
  EXPECT_TRUE(p.health_.fatal());
  EXPECT_EQ(p.health_.cause(), fatal_cause::kStore);
  for (const std::string& e : log_.events()) EXPECT_EQ(e.rfind("ack:", 0), std::string::npos) << e;
  EXPECT_TRUE(store_.records.empty());
  EXPECT_EQ(p.loop_.stats().abandoned.load(), 3u)
      << "every job but the one whose write failed is counted as abandoned, once";
  EXPECT_EQ(p.queue_.queued_jobs(), 0u);
}

TEST_F(ExecutorLoopTest, TheDrainTimeoutLeavesTheRestUnacked) {
  options_.drain_timeout = std::chrono::milliseconds(2500);
  runner_.before_run = [&](const Batch&) { clock_.Advance(std::chrono::seconds(1)); };
  Process p(store_, runner_, clock_, log_, options_, /*cap=*/1);
  p.Push({MakeJob("a", 1), MakeJob("b", 2), MakeJob("c", 3), MakeJob("d", 4), MakeJob("e", 5)});
  p.RunToEnd();
  // Batches start at +0 s, +1 s, +2 s (within 2.5 s); +3 s is past it.
  EXPECT_EQ(store_.records.size(), 3u);
  EXPECT_EQ(p.loop_.stats().abandoned.load(), 2u);
  EXPECT_EQ(log_.events(), (Events{"put:a", "ack:1", "put:b", "ack:2", "put:c", "ack:3"}));
}

TEST_F(ExecutorLoopTest, TheObserverCountsOnlyDurableOutcomesByStatusAndReason) {
  struct Counting : BatchObserver {
    void OnBatchRecorded(const RecordedBatch& b) override { seen.push_back(b); }
    std::vector<RecordedBatch> seen;
  } observer;
  runner_.crash_on = {};
  Process p(store_, runner_, clock_, log_, options_, /*cap=*/8, &observer);
  p.Push({MakeJob("a", 1, 4), MakeJob("b", 2, 4)});
  p.RunToEnd();
  ASSERT_EQ(observer.seen.size(), 1u);
  EXPECT_EQ(observer.seen[0].ok, 2u);
  EXPECT_EQ(observer.seen[0].real_tokens, 8u);
  EXPECT_EQ(observer.seen[0].jobs, 2u);

  store_.failures_left = 1000;
  Process q(store_, runner_, clock_, log_, options_, /*cap=*/8, &observer);
  q.Push({MakeJob("x", 7)});
  q.RunToEnd();
  EXPECT_EQ(observer.seen.size(), 1u) << "a batch whose write failed is not counted";
}

TEST_F(ExecutorLoopTest, TheObserverGetsTheRunTimeAndEachJobsLatencyFromArrivalToRecord) {
  struct Counting : BatchObserver {
    void OnBatchRecorded(const RecordedBatch& b) override { seen.push_back(b); }
    std::vector<RecordedBatch> seen;
  } observer;
  Process p(store_, runner_, clock_, log_, options_, /*cap=*/8, &observer);
  p.Push({MakeJob("a", 1)});  // arrives now
  clock_.Advance(std::chrono::milliseconds(200));
  p.Push({MakeJob("b", 2)});  // arrives 200 ms later
  clock_.Advance(std::chrono::milliseconds(100));
  runner_.before_run = [this](const Batch&) { clock_.Advance(std::chrono::milliseconds(40)); };
  p.RunToEnd();
  ASSERT_EQ(observer.seen.size(), 1u);
  EXPECT_EQ(observer.seen[0].run_time, std::chrono::milliseconds(40));
  EXPECT_EQ(observer.seen[0].latencies,
            (std::vector<std::chrono::nanoseconds>{std::chrono::milliseconds(340), std::chrono::milliseconds(140)}));
}

TEST_F(ExecutorLoopTest, TheBeforeBatchHookRunsBeforeEachBatchWithoutAHeartbeat) {
  LoopOptions options = options_;
  options.drain_timeout = std::chrono::hours(1);
  int calls = 0;
  Process* process = nullptr;
  options.before_batch = [&] {
    ++calls;
    // A hook that hangs for 3 minutes: the heartbeat stays where it was, so
    // the liveness probe fails.
    const SteadyTime beat = process->health_.last_beat();
    clock_.Advance(std::chrono::minutes(3));
    EXPECT_EQ(process->health_.last_beat(), beat);
    EXPECT_FALSE(Liveness(process->health_, clock_.Now(), std::chrono::seconds(120)).ok);
  };
  Process p(store_, runner_, clock_, log_, options, /*cap=*/1);
  process = &p;
  p.health_.SetStarted();
  p.Push({MakeJob("a", 1), MakeJob("b", 2)});
  p.RunToEnd();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(store_.records.size(), 2u);
}

TEST_F(ExecutorLoopTest, AChunkedJobIsRecordedAndAckedOnceAfterItsLastWindow) {
  // Three windows of one message in three batches (cap 1): one attempt per
  // life, not per window, so the later windows are not taken for suspects.
  Job doc = MakeJob("doc", 7, 20);
  std::vector<Job> windows;
  for (int w = 0; w < 3; ++w) {
    Job part = doc;
    part.input_ids.assign(w < 2 ? 8 : 4, 1);
    part.window = w;
    part.windows = 3;
    part.original_length = 20;
    if (w > 0) part.payload.clear();
    windows.push_back(part);
  }
  Process p(store_, runner_, clock_, log_, options_, /*cap=*/1);
  p.Push(windows);
  EXPECT_EQ(p.RunToEnd(), "");
  EXPECT_EQ(runner_.batch_sizes, (std::vector<size_t>{1, 1, 1}));
  EXPECT_EQ(log_.events(), (Events{"put:doc", "ack:7"}));
  const Outcome& o = store_.records.at("doc");
  ASSERT_TRUE(o.ok);
  EXPECT_EQ(o.windows, 3);
  EXPECT_EQ(o.input_length, 20u);
  ASSERT_EQ(o.output.size(), 1u);
  EXPECT_FLOAT_EQ(o.output[0], (8.0f * 8 + 8.0f * 8 + 4.0f * 4) / 20.0f);
  EXPECT_EQ(p.loop_.stats().suspects_run_alone.load(), 0u);
  EXPECT_EQ(p.loop_.stats().crash_isolated.load(), 0u);
  EXPECT_TRUE(store_.attempts.empty());
}

// A finished result is written in its job's `encoding`, else the loop's
// (output.encoding): after its `dimensions` cut and, for a chunked job,
// once, after its windows are pooled.
TEST_F(ExecutorLoopTest, EachResultIsWrittenInItsJobsEncodingElseTheConfiguredOne) {
  options_.encoding = encoding::kUbinary;
  Job base64 = MakeJob("base64", 1, 4);
  base64.encoding = encoding::kBase64;
  Job plain = MakeJob("float", 2, 4);
  plain.encoding = encoding::kFloat;
  Job configured = MakeJob("configured", 3, 4);
  Job int8 = MakeJob("int8", 4, 4);
  int8.encoding = encoding::kInt8;  // the decoder refuses this without ranges; the loop says so too
  std::vector<Job> jobs = {base64, plain, configured, int8};
  for (int w = 0; w < 2; ++w) {
    Job part = MakeJob("chunked", 5, 8);
    part.encoding = encoding::kBase64;
    part.window = w;
    part.windows = 2;
    part.original_length = 16;
    jobs.push_back(part);
  }
  Process p(store_, runner_, clock_, log_, options_);
  p.Push(jobs);
  EXPECT_EQ(p.RunToEnd(), "");
  const float four = 4.0f, eight = 8.0f;
  EXPECT_EQ(store_.records.at("base64").encoding, "base64");
  EXPECT_EQ(store_.records.at("base64").output_bytes, std::string(reinterpret_cast<const char*>(&four), 4));
  EXPECT_TRUE(store_.records.at("base64").output.empty());
  EXPECT_EQ(store_.records.at("float").encoding, "");
  EXPECT_EQ(store_.records.at("float").output, std::vector<float>{4.0f});
  EXPECT_EQ(store_.records.at("configured").encoding, "ubinary");
  EXPECT_EQ(store_.records.at("configured").output_bytes, std::string(1, char(0x80)));
  EXPECT_FALSE(store_.records.at("int8").ok);
  EXPECT_EQ(store_.records.at("int8").reason, reason::kInvalid);
  EXPECT_EQ(store_.records.at("int8").error, "`encoding` int8: no calibration ranges cover this output");
  EXPECT_EQ(store_.records.at("chunked").windows, 2);
  EXPECT_EQ(store_.records.at("chunked").output_bytes, std::string(reinterpret_cast<const char*>(&eight), 4));
}

// A sparse result keeps its non-zero weights by index, and a job's `top_k`
// its k largest (a tie at the k-th to the lower index), still by index.
TEST_F(ExecutorLoopTest, ASparseResultKeepsItsNonZeroWeightsAndAJobsTopK) {
  options_.task.task = task::kSparse;
  runner_.output_of = [](const Job&) { return std::vector<float>{0, 3, 0, 2, 3, 2, 0}; };
  std::vector<Job> jobs;
  for (int k : {0, 2, 3, 9}) {
    Job job = MakeJob("k" + std::to_string(k), k + 1);
    job.top_k = k;
    jobs.push_back(job);
  }
  Process p(store_, runner_, clock_, log_, options_);
  p.Push(jobs);
  EXPECT_EQ(p.RunToEnd(), "");
  const auto kept = [&](const char* id) {
    const Outcome& o = store_.records.at(id);
    EXPECT_EQ(o.sparse_indices->size(), o.output.size());
    return std::pair(*o.sparse_indices, o.output);
  };
  using Kept = std::pair<std::vector<int32_t>, std::vector<float>>;
  EXPECT_EQ(kept("k0"), (Kept{{1, 3, 4, 5}, {3, 2, 3, 2}})) << "every non-zero weight";
  EXPECT_EQ(kept("k2"), (Kept{{1, 4}, {3, 3}}));
  EXPECT_EQ(kept("k3"), (Kept{{1, 3, 4}, {3, 2, 3}})) << "the tie at the third goes to index 3, not 5";
  EXPECT_EQ(kept("k9"), (Kept{{1, 3, 4, 5}, {3, 2, 3, 2}})) << "fewer non-zero weights than k: all of them";
}

// A result of a vector a token over limits.max_result_bytes becomes a
// too_long record that says how many tokens fit; the jobs around it get
// their results.
TEST_F(ExecutorLoopTest, ATokenEmbedResultOverTheResultBoundIsATooLongRecord) {
  options_.task.task = task::kTokenEmbed;
  options_.max_result_bytes = 8192;
  runner_.output_of = [](const Job& job) {
    std::vector<float> rows;
    for (size_t t = 0; t < job.length(); ++t) {
      for (int d = 0; d < 64; ++d) rows.push_back(0.123456f * float(d + 1) / float(t + 1));
    }
    return rows;
  };
  Process p(store_, runner_, clock_, log_, options_);
  p.Push({MakeJob("short", 1, 4), MakeJob("long", 2, 16), MakeJob("after", 3, 2)});
  EXPECT_EQ(p.RunToEnd(), "");
  EXPECT_EQ(store_.records.at("short").output_rows, 4);
  EXPECT_EQ(store_.records.at("after").output_rows, 2);
  const Outcome& long_one = store_.records.at("long");
  ASSERT_FALSE(long_one.ok);
  EXPECT_EQ(long_one.reason, reason::kTooLong);
  EXPECT_NE(long_one.error.find("(16 tokens' vectors of 64 values as JSON numbers), more than "
                                "limits.max_result_bytes 8192: replay it with --truncate-to N"),
            std::string::npos)
      << long_one.error;
  EXPECT_NE(long_one.error.find("or send it with `encoding` base64"), std::string::npos) << long_one.error;
  EXPECT_EQ(long_one.payload, R"({"id":"long"})") << "the payload, for the replay";
  EXPECT_EQ(log_.events().back(), "ack:3") << "every job acked, the refused one included";
}

// The result bound holds a record as the store gets it, whatever its
// encoding: a token_embed result in base64 (5.3 bytes a value, not about
// 12) is measured as written, the wall time the recorder stamps on it
// included. At a bound of the record's own size it is a result; one byte
// less, a too_long record saying so.
TEST_F(ExecutorLoopTest, ABase64TokenEmbedResultIsBoundAsItsRecordIsStored) {
  options_.task.task = task::kTokenEmbed;
  runner_.output_of = [](const Job& job) {
    std::vector<float> rows;
    for (size_t t = 0; t < job.length(); ++t) {
      for (int d = 0; d < 64; ++d) rows.push_back(0.123456f * float(d + 1) / float(t + 1));
    }
    return rows;
  };
  auto run = [&](const std::string& id, int64_t offset, size_t bound) {
    options_.max_result_bytes = bound;
    Job job = MakeJob(id, offset, 16);
    job.encoding = encoding::kBase64;
    Process p(store_, runner_, clock_, log_, options_);
    p.Push({job});
    EXPECT_EQ(p.RunToEnd(), "");
    return store_.records.at(id);
  };
  const Outcome measured = run("b64-0", 1, size_t{1} << 20);
  ASSERT_TRUE(measured.ok) << measured.error;
  ASSERT_EQ(measured.encoding, encoding::kBase64);
  const size_t size = OutcomeToJson(measured).size();
  ASSERT_LT(size, 16 * 64 * 8) << "as base64, the record is under what its values take as JSON numbers";

  const Outcome at_bound = run("b64-1", 2, size);
  EXPECT_TRUE(at_bound.ok) << at_bound.error;
  EXPECT_EQ(OutcomeToJson(at_bound).size(), size);
  const Outcome over = run("b64-2", 3, size - 1);
  ASSERT_FALSE(over.ok) << "a record of " << OutcomeToJson(over).size() << " bytes under a bound of " << size - 1;
  EXPECT_EQ(over.reason, reason::kTooLong);
  EXPECT_NE(over.error.find("(16 tokens' vectors of 64 values as base64), more than limits.max_result_bytes " +
                            std::to_string(size - 1)),
            std::string::npos)
      << over.error;
  EXPECT_TRUE(over.output_bytes.empty() && over.encoding.empty());
}

// limits.max_result_bytes bounds every result's record, not only a vector a
// token: a pooled vector as JSON numbers whose id is all escapes (each byte 6
// in the record) is a result at a bound of its record's size and too_long
// one byte under, with no result fields left on the failure.
TEST_F(ExecutorLoopTest, EveryResultIsBoundAsItsRecordIsStored) {
  runner_.output_of = [](const Job&) {
    std::vector<float> v;
    for (int d = 0; d < 96; ++d) v.push_back(-0.123456789f * float(d + 1));
    return v;
  };
  auto run = [&](const std::string& id, int64_t offset, size_t bound) {
    options_.max_result_bytes = bound;
    Process p(store_, runner_, clock_, log_, options_);
    p.Push({MakeJob(id, offset)});
    EXPECT_EQ(p.RunToEnd(), "");
    return store_.records.at(id);
  };
  const std::string escapes(200, '\x01');
  const Outcome measured = run(escapes + "0", 1, size_t{1} << 20);
  ASSERT_TRUE(measured.ok) << measured.error;
  const size_t size = OutcomeToJson(measured).size();
  ASSERT_GT(size, 5 * escapes.size()) << "the id's bytes are written as escapes";

  const Outcome at_bound = run(escapes + "1", 2, size);
  EXPECT_TRUE(at_bound.ok) << at_bound.error;
  EXPECT_EQ(OutcomeToJson(at_bound).size(), size);
  std::ostringstream logged;
  Outcome over;
  {
    ScopedLogCapture capture("pipeline", logged, LogLevel::kWarn);
    over = run(escapes + "2", 3, size - 1);
  }
  ASSERT_FALSE(over.ok) << "a record of " << OutcomeToJson(over).size() << " bytes under a bound of " << size - 1;
  EXPECT_NE(logged.str().find("event=result_too_large job="), std::string::npos) << logged.str();
  EXPECT_NE(logged.str().find(" bytes=" + std::to_string(size) + " measured=true max_result_bytes=" +
                              std::to_string(size - 1)),
            std::string::npos)
      << logged.str();
  EXPECT_EQ(over.reason, reason::kTooLong);
  EXPECT_NE(over.error.find("the result would be " + std::to_string(size) + " bytes, more than "
                            "limits.max_result_bytes " + std::to_string(size - 1)),
            std::string::npos)
      << over.error;
  EXPECT_TRUE(over.output.empty() && over.output_bytes.empty() && over.label.empty() && over.scores.empty());
}

TEST_F(ExecutorLoopTest, AChunkedJobThatCrashesIsIsolatedAfterMaxAttemptsLives) {
  // Each life reads the message again and runs its windows; the process
  // dies on the last one. The count rises once per life.
  runner_.crash_on = {"doc"};
  Job doc = MakeJob("doc", 7, 8);
  doc.windows = 2;
  doc.original_length = 16;
  Job second = doc;
  second.window = 1;
  second.payload.clear();
  int lives = 0;
  for (; lives < 6 && !store_.records.contains("doc"); ++lives) {
    Process p(store_, runner_, clock_, log_, options_, /*cap=*/1);
    p.Push({doc, second});
    p.RunToEnd();
  }
  EXPECT_EQ(lives, 4) << "three crashes, then the crash record";
  const Outcome& o = store_.records.at("doc");
  EXPECT_EQ(o.reason, reason::kCrash);
  EXPECT_EQ(o.error.rfind("window 1 of 2: the process died 3 times", 0), 0u) << o.error;
  EXPECT_EQ(o.payload, doc.payload) << "the whole message, for replay";
}

}  // namespace
}  // namespace qinfer::pipeline
