// No message and no fault may crash, wedge or silently stall qinfer: each
// fault made with a real mechanism (deep or oversized messages on a real
// broker, a producer that refuses a record, a topic that does not exist, a
// file-size limit on the store, a fenced consumer, a model that returns NaN
// or aborts the process), each run checked for lost jobs, duplicate records
// and offsets committed ahead of their records.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "kafka_test_util.h"
#include "qinfer/core/outcome_json.h"

namespace qinfer::testing {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr int64_t kVocab = 4096;
constexpr int kMaxTokens = 512;
constexpr int64_t kMarker = 4095;  // the NaN / abort marker of the fault models

std::string Job(const std::string& id, const std::vector<int64_t>& ids, const std::string& extra = "") {
  std::string v = R"({"id":")" + id + R"(","input_ids":[)";
  for (size_t i = 0; i < ids.size(); ++i) v += (i ? "," : "") + std::to_string(ids[i]);
  return v + "]" + extra + "}";
}

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class RobustnessTest : public BrokerTest {
 protected:
  std::string Yaml(const std::string& extra = "") { return ServeYaml(brokers_, topic_, group_, store_, extra); }
  void DrainAndStop(ServeProcess& serve, int partitions, seconds timeout = seconds(240)) {
    ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, partitions, timeout))
        << "committed " << CommittedTotal(brokers_, group_, topic_, partitions) << " of "
        << EndOffsetTotal(brokers_, topic_, partitions) << "\n"
        << serve.LogTail();
    ASSERT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();
  }
  Audit Check(int partitions, bool complete) {
    Audit a = AuditRun(brokers_, group_, topic_, partitions, ReadStore(store_));
    ExpectSound(a, complete);
    std::printf("[ audit ] messages=%lld records=%zu committed=%lld lost=%lld committed_ahead=%lld\n",
                (long long)a.messages, a.records, (long long)a.committed, (long long)a.lost,
                (long long)a.committed_ahead);
    return a;
  }
};

TEST_F(RobustnessTest, DeepOversizedAndFatMessagesBecomeInvalidRecordsAndEveryOffsetCommits) {
  CreateTopic(brokers_, topic_, 3);
  const std::string dlq = UniqueName("dlq");
  CreateTopic(brokers_, dlq, 1);
  auto messages = MakeJobs(300, kVocab, kMaxTokens, 11, "ok-");
  // `meta` nested 70,000 levels (140 KB): it used to overflow the stack.
  const std::string deep = Job("deep", {1, 2}, R"(,"meta":)" + std::string(70000, '[') + std::string(70000, ']'));
  // 200 KB, over the 150 KB message bound set below.
  const std::string big = Job("big", std::vector<int64_t>(100000, 7));
  const std::string fat_meta = Job("fat", {3}, R"(,"meta":{"blob":")" + std::string(70000, 'x') + "\"}");
  messages.insert(messages.begin() + 50, {"deep", deep});
  messages.insert(messages.begin() + 150, {"big", big});
  messages.insert(messages.begin() + 250, {"fat", fat_meta});
  Produce(brokers_, topic_, messages);

  ServeProcess serve(dir_.string(), Yaml(),
                     {"--set", "kafka.dead_letter_topic=" + dlq, "--set", "limits.max_message_bytes=150000"});
  DrainAndStop(serve, 3);
  auto records = ReadStore(store_);
  const Outcome& d = records.at("deep");
  EXPECT_EQ(d.reason, reason::kInvalid);
  EXPECT_NE(d.error.find("max_depth 32"), std::string::npos) << d.error;
  EXPECT_TRUE(d.payload == deep) << "the whole payload is kept for replay";
  const Outcome& b = records.at("big");
  EXPECT_EQ(b.reason, reason::kInvalid);
  EXPECT_NE(b.error.find("max_message_bytes 150000"), std::string::npos) << b.error;
  EXPECT_TRUE(b.payload_truncated);
  EXPECT_TRUE(b.payload == big.substr(0, 4096)) << "a bounded prefix";
  EXPECT_EQ(b.origin.topic, topic_) << "and the coordinates of the original";
  EXPECT_GE(b.origin.offset, 0);
  const Outcome& f = records.at("fat");
  EXPECT_EQ(f.reason, reason::kInvalid);
  EXPECT_NE(f.error.find("max_meta_bytes"), std::string::npos) << f.error;
  for (int i = 0; i < 300; ++i) EXPECT_TRUE(records.at("ok-" + std::to_string(i)).ok);
  EXPECT_EQ(EndOffsetTotal(brokers_, dlq, 1), 3) << "each invalid record dead-lettered";
  Check(3, /*complete=*/true);
}

TEST_F(RobustnessTest, AFailureRecordTooLargeToPublishIsRecordedAckedAndAnnouncedCompactly) {
  CreateTopic(brokers_, topic_, 1);
  const std::string dlq = UniqueName("dlq");
  CreateTopic(brokers_, dlq, 1);
  auto messages = MakeJobs(100, kVocab, kMaxTokens, 12, "ok-");
  // 600 KB of quotes: not JSON, so an `invalid` record; its dead letter
  // carries the 600 KB, more than this producer's message.max.bytes.
  const std::string quotes(600000, '"');
  messages.insert(messages.begin() + 40, {"quotes", quotes});
  Produce(brokers_, topic_, messages);

  ServeProcess serve(dir_.string(), Yaml(),
                     {"--set", "kafka.dead_letter_topic=" + dlq, "--set", "kafka.producer.message.max.bytes=200000"});
  DrainAndStop(serve, 1);
  auto records = ReadStore(store_);
  const Outcome& q = records.at("quotes");
  EXPECT_EQ(q.reason, reason::kInvalid);
  EXPECT_EQ(q.payload.size(), quotes.size()) << "the store keeps the whole payload";
  EXPECT_NE(q.delivery_error.find("too large"), std::string::npos) << q.delivery_error;
  std::vector<ReadMessage> dead = ReadTopic(brokers_, dlq);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].key, "quotes");
  EXPECT_TRUE(dead[0].value.empty()) << "compact: without the oversized payload";
  EXPECT_EQ(dead[0].headers.at("__qinfer.errors.payload_truncated"), "true");
  EXPECT_EQ(dead[0].headers.at("__qinfer.errors.offset"), "40") << "where the original is";
  EXPECT_EQ(dead[0].headers.at("__qinfer.errors.reason"), reason::kInvalid);
  EXPECT_NE(dead[0].headers.at("__qinfer.errors.delivery_error").find("too large"), std::string::npos);
  EXPECT_NE(serve.Log().find("event=delivery_failed job=quotes class=permanent"), std::string::npos);
  Check(1, /*complete=*/true);
}

TEST_F(RobustnessTest, AReplyToATopicThatDoesNotExistIsRecordedAndAcked) {
  CreateTopic(brokers_, topic_, 2);
  const std::string replies = UniqueName("replies");
  const std::string dlq = UniqueName("dlq");
  CreateTopic(brokers_, replies, 1);
  CreateTopic(brokers_, dlq, 1);
  auto messages = MakeJobs(200, kVocab, kMaxTokens, 13, "r-", replies);
  const std::string nowhere = UniqueName("no-such-topic");
  for (int i = 0; i < 5; ++i) {
    const std::string id = "lost-reply-" + std::to_string(i);
    messages.emplace_back(id, Job(id, {5, 6, 7}, R"(,"reply_to":")" + nowhere + "\""));
  }
  Produce(brokers_, topic_, messages);
  ServeProcess serve(dir_.string(), Yaml(), {"--set", "kafka.dead_letter_topic=" + dlq});
  DrainAndStop(serve, 2);
  auto records = ReadStore(store_);
  for (int i = 0; i < 5; ++i) {
    const Outcome& o = records.at("lost-reply-" + std::to_string(i));
    EXPECT_TRUE(o.ok) << "the result itself stands";
    EXPECT_FALSE(o.delivery_error.empty()) << "and says its reply never arrived";
  }
  EXPECT_EQ(EndOffsetTotal(brokers_, replies, 1), 200);
  std::vector<ReadMessage> dead = ReadTopic(brokers_, dlq);
  ASSERT_EQ(dead.size(), 5u);
  for (const ReadMessage& m : dead) {
    EXPECT_EQ(m.headers.at("__qinfer.errors.reason"), reason::kUndeliverable);
    EXPECT_EQ(m.key.rfind("lost-reply-", 0), 0u) << m.key;
    EXPECT_TRUE(m.value.empty()) << "a notice: the result is in the store";
    EXPECT_FALSE(m.headers.at("__qinfer.errors.delivery_error").empty());
  }
  Check(2, /*complete=*/true);
}

TEST_F(RobustnessTest, AReplyToAMissingTopicHoldsItsPartitionForSecondsNotHalfAMinute) {
  // librdkafka by default reports an unknown topic only after it has been
  // missing from the metadata for 30 s; until then the job is not acked and
  // its partition commits nothing past it.
  CreateTopic(brokers_, topic_, 1);
  const std::string dlq = UniqueName("dlq");
  CreateTopic(brokers_, dlq, 1);
  ServeProcess serve(dir_.string(), Yaml(), {"--set", "kafka.dead_letter_topic=" + dlq});
  Produce(brokers_, topic_, MakeJobs(20, kVocab, kMaxTokens, 15, "warm-"));
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, 1, seconds(240))) << serve.LogTail();

  std::vector<std::pair<std::string, std::string>> messages = {
      {"lost", Job("lost", {5, 6, 7}, R"(,"reply_to":")" + UniqueName("no-such-topic") + "\"")}};
  for (const auto& job : MakeJobs(20, kVocab, kMaxTokens, 16, "behind-")) messages.push_back(job);
  const auto start = Clock::now();
  Produce(brokers_, topic_, messages);
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, 1, seconds(90))) << serve.LogTail();
  const double held = SecondsSince(start);
  std::printf("[ reply ] a reply_to naming no topic: the partition committed past it after %.1f s\n", held);
  EXPECT_LT(held, 10.0) << "the partition waited for the unknown topic\n" << serve.LogTail();
  ASSERT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();

  const Outcome lost = ReadStore(store_).at("lost");
  EXPECT_TRUE(lost.ok) << "the result is durable";
  EXPECT_FALSE(lost.delivery_error.empty());
  std::vector<ReadMessage> dead = ReadTopic(brokers_, dlq);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].key, "lost");
  EXPECT_EQ(dead[0].headers.at("__qinfer.errors.reason"), reason::kUndeliverable);
  EXPECT_NE(serve.Log().find("event=delivery_failed job=lost class=permanent"), std::string::npos);
  Check(1, /*complete=*/true);
}

TEST_F(RobustnessTest, ConfiguredTopicsMustExistUnlessCreatedAndUnreachableBrokersFailStartUp) {
  CreateTopic(brokers_, topic_, 1);
  const std::string missing = UniqueName("missing-replies");
  {
    ServeProcess serve(dir_.string(), Yaml(), {"--set", "kafka.reply_topic=" + missing});
    // A topic not yet created may appear: transient, retrying may help (75).
    EXPECT_EQ(serve.Wait(seconds(60)), 75) << serve.LogTail();
    EXPECT_NE(serve.Log().find("topic(s) " + missing + " do not exist"), std::string::npos) << serve.LogTail();
  }
  {
    ServeProcess serve(
        dir_.string(), Yaml(),
        {"--set", "kafka.reply_topic=" + missing, "--set", "kafka.create_topics=true", "--idle-exit", "2"});
    EXPECT_EQ(serve.Wait(seconds(90)), 0) << serve.LogTail();
    EXPECT_NE(serve.Log().find("event=topics_created topics=" + missing), std::string::npos);
    EXPECT_EQ(EndOffsetTotal(brokers_, missing, 1), 0) << "the topic exists now";
  }
  {
    const auto start = Clock::now();
    ServeProcess serve(dir_.string(), ServeYaml("127.0.0.1:1", topic_, group_, store_), {});
    EXPECT_EQ(serve.Wait(seconds(60)), 75) << "a broker not up yet is transient\n" << serve.LogTail();
    EXPECT_NE(serve.Log().find("no broker answered"), std::string::npos) << serve.LogTail();
    EXPECT_LT(SecondsSince(start), 40.0);
  }
}

TEST_F(RobustnessTest, IdleExitFiresOnAnEmptyTopic) {
  CreateTopic(brokers_, topic_, 2);
  const auto start = Clock::now();
  ServeProcess serve(dir_.string(), Yaml(), {"--idle-exit", "2"});
  EXPECT_EQ(serve.Wait(seconds(60)), 0) << serve.LogTail();
  EXPECT_NE(serve.Log().find("event=idle_exit"), std::string::npos);
  std::printf("[ idle  ] exited after %.1f s on an empty topic\n", SecondsSince(start));
}

TEST_F(RobustnessTest, ALastingStoreWriteFailureExitsNonZeroAndARestartLosesNothing) {
  CreateTopic(brokers_, topic_, 3);
  auto jobs = MakeJobs(3000, kVocab, kMaxTokens, 14, "w-");
  Produce(brokers_, topic_, jobs);
  {
    // A disk that fills up: no file of the process may grow past 3 MB, so
    // the store's log write fails partway through the run. Which write meets
    // the limit first (the attempt log before a batch, or a batch's records
    // after it) depends on the machine's timing; the user sees the same
    // either way (tests/pipeline/store_write_failure_test.cc pins each).
    ServeProcess serve(dir_.string(), Yaml(), {}, /*max_file_bytes=*/3 << 20);
    const auto start = Clock::now();
    EXPECT_EQ(serve.Wait(seconds(120)), 1) << "non-zero exit\n" << serve.LogTail();
    std::printf("[ store ] exited after %.1f s\n", SecondsSince(start));
    const std::string log = serve.Log();
    EXPECT_NE(log.find("event=store_error write="), std::string::npos) << serve.LogTail();
    EXPECT_NE(log.find("event=fatal cause=store write="), std::string::npos) << serve.LogTail();
    EXPECT_NE(log.find("event=exit code=1 cause=store"), std::string::npos) << serve.LogTail();
    // The run's summary counts it, whichever write it was.
    int64_t counted = 0;
    for (const char* write : {"store_errors_results", "store_errors_attempts", "store_errors_plan"}) {
      const int64_t n = SummaryField(log, write);
      ASSERT_GE(n, 0) << write << " missing from the summary\n" << serve.LogTail();
      counted += n;
    }
    EXPECT_GT(counted, 0) << serve.LogTail();
  }
  const Audit during = Check(3, /*complete=*/false);
  EXPECT_LT(during.committed, 3000) << "it stopped partway";
  ServeProcess again(dir_.string(), Yaml());
  DrainAndStop(again, 3);
  auto records = ReadStore(store_);
  for (const auto& [id, value] : jobs) ASSERT_TRUE(records.at(id).ok) << id;
  Check(3, /*complete=*/true);
}

TEST_F(RobustnessTest, AFatalConsumerErrorExitsNonZeroAndAnotherInstanceFinishes) {
  CreateTopic(brokers_, topic_, 2);
  auto jobs = MakeJobs(3000, kVocab, kMaxTokens, 15, "c-");
  Produce(brokers_, topic_, jobs);
  // Static membership: a second member with the same group.instance.id
  // fences the first, which librdkafka reports as a fatal consumer error.
  const std::vector<std::string> same_instance = {"--set", "kafka.consumer.group.instance.id=" + UniqueName("instance"),
                                                  "--set", "scheduler.max_queued_jobs=128"};
  ServeProcess first(dir_.string(), Yaml(), same_instance);
  ASSERT_TRUE(WaitForCommittedAtLeast(brokers_, group_, topic_, 2, 100, seconds(120))) << first.LogTail();
  const std::string store2 = (dir_ / "store2").string();
  ServeProcess second(dir_.string(), ServeYaml(brokers_, topic_, group_, store2), same_instance);
  const auto start = Clock::now();
  EXPECT_EQ(first.Wait(seconds(120)), 1) << first.LogTail();
  std::printf("[ fence ] the fenced instance exited after %.1f s\n", SecondsSince(start));
  EXPECT_NE(first.Log().find("event=fatal cause=consumer"), std::string::npos) << first.LogTail();
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, 2, seconds(240))) << second.LogTail();
  ASSERT_EQ(second.Stop(SIGTERM), 0) << second.LogTail();
  // Each store holds one record per id; together they hold every job.
  auto records = ReadStore(store_);
  for (auto& [id, o] : ReadStore(store2)) records.emplace(id, o);
  Audit a = AuditRun(brokers_, group_, topic_, 2, records);
  ExpectSound(a, /*complete=*/true);
}

TEST_F(RobustnessTest, ANaNOutputIsAModelErrorRecordAndTheStoreStaysReadable) {
  CreateTopic(brokers_, topic_, 1);
  auto messages = MakeJobs(100, kMarker, kMaxTokens, 16, "n-");  // ids below the marker
  for (int i = 0; i < 4; ++i) {
    const std::string id = "nan-" + std::to_string(i);
    messages.emplace_back(id, Job(id, {1, kMarker, 2}));
  }
  Produce(brokers_, topic_, messages);
  ServeProcess serve(dir_.string(), Yaml(),
                     {"--set", std::string("model.path=") + QINFER_TEST_MODEL_NAN_DIR + "/model.pt"});
  DrainAndStop(serve, 1);
  auto records = ReadStore(store_);
  for (int i = 0; i < 4; ++i) {
    const Outcome& o = records.at("nan-" + std::to_string(i));
    EXPECT_EQ(o.reason, reason::kModelError);
    EXPECT_NE(o.error.find("non-finite"), std::string::npos) << o.error;
  }
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(records.at("n-" + std::to_string(i)).ok);
  // Every record reads back through the CLI.
  auto [rc, lines] =
      RunCommand(std::string(QINFER_BINARY) + " --log-level warn results --store " + store_ + " --export - | wc -l");
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(std::atoi(lines.c_str()), 104);
  Check(1, /*complete=*/true);
}

TEST_F(RobustnessTest, ACrashLoopIsIsolatedAndItsPartitionMovesOn) {
  CreateTopic(brokers_, topic_, 2);
  auto messages = MakeJobs(400, kMarker, kMaxTokens, 17, "p-");  // ids below the marker
  messages.insert(messages.begin() + 100, {"poison-a", Job("poison-a", {1, 2, kMarker})});
  messages.insert(messages.begin() + 300, {"poison-b", Job("poison-b", {kMarker})});
  Produce(brokers_, topic_, messages);
  // Static membership lets a restarted instance take its partitions back at
  // once, as a supervisor's restart would.
  const std::string yaml = Yaml("recovery:\n  max_attempts: 3\n");
  const std::vector<std::string> args = {
      "--set",       std::string("model.path=") + QINFER_TEST_MODEL_ABORT_DIR + "/model.pt",
      "--set",       std::string("model.op_libraries=") + QINFER_TEST_OPS_LIBRARY,
      "--set",       "kafka.consumer.group.instance.id=" + UniqueName("crashy"),
      "--idle-exit", "3"};
  const auto start = Clock::now();
  int lives = 0, crashes = 0;
  for (; lives < 10; ++lives) {
    ServeProcess serve(dir_.string(), yaml, args);
    const int rc = serve.Wait(seconds(180));
    if (rc == 0) break;
    ASSERT_EQ(rc, 128 + SIGABRT) << "the model aborts the process\n" << serve.LogTail();
    ++crashes;
  }
  const double took = SecondsSince(start);
  std::printf("[ crash ] %d crashes, %d lives, %.1f s until both poison jobs were isolated\n", crashes, lives + 1,
              took);
  EXPECT_LE(crashes, 6) << "at most max_attempts crashes per poison job";
  EXPECT_GE(crashes, 3);
  auto records = ReadStore(store_);
  for (const char* id : {"poison-a", "poison-b"}) {
    const Outcome& o = records.at(id);
    EXPECT_EQ(o.reason, reason::kCrash) << id;
    EXPECT_FALSE(o.payload.empty()) << "replayable";
  }
  for (int i = 0; i < 400; ++i) EXPECT_TRUE(records.at("p-" + std::to_string(i)).ok);
  Check(2, /*complete=*/true);
}

// recovery.max_attempts reaches the executor loop end to end, at values other
// than its default 3: a job that takes the process down is isolated after
// exactly 1, and after exactly 5, crashes.
TEST_F(RobustnessTest, ACrashingJobIsIsolatedAfterExactlyMaxAttemptsCrashes) {
  for (const int max_attempts : {1, 5}) {
    SCOPED_TRACE("recovery.max_attempts " + std::to_string(max_attempts));
    topic_ = UniqueName("jobs");
    group_ = UniqueName("group");
    store_ = (dir_ / ("store-" + std::to_string(max_attempts))).string();
    CreateTopic(brokers_, topic_, 1);
    // The poison job is alone in its bucket, so it runs alone: with one
    // attempt allowed, a batch-mate of a crash would be isolated too.
    std::vector<std::pair<std::string, std::string>> messages;
    for (int i = 0; i < 20; ++i) {
      const std::string id = "p-" + std::to_string(i);
      messages.emplace_back(id, Job(id, {1, 2 + i, 3}));
    }
    std::vector<int64_t> poison(300, 7);
    poison.back() = kMarker;
    messages.insert(messages.begin() + 10, {"poison", Job("poison", poison)});
    Produce(brokers_, topic_, messages);
    const std::string yaml = Yaml("recovery:\n  max_attempts: " + std::to_string(max_attempts) + "\n");
    const std::vector<std::string> args = {
        "--set",       std::string("model.path=") + QINFER_TEST_MODEL_ABORT_DIR + "/model.pt",
        "--set",       std::string("model.op_libraries=") + QINFER_TEST_OPS_LIBRARY,
        "--set",       "kafka.consumer.group.instance.id=" + UniqueName("crashy"),
        "--idle-exit", "2"};
    int crashes = 0;
    for (int lives = 0; lives < max_attempts + 3; ++lives) {
      ServeProcess serve(dir_.string(), yaml, args);
      const int rc = serve.Wait(seconds(120));
      if (rc == 0) break;
      ASSERT_EQ(rc, 128 + SIGABRT) << "the model aborts the process\n" << serve.LogTail();
      ++crashes;
    }
    EXPECT_EQ(crashes, max_attempts);
    auto records = ReadStore(store_);
    const Outcome& o = records.at("poison");
    EXPECT_EQ(o.reason, reason::kCrash);
    EXPECT_NE(o.error.find("died " + std::to_string(max_attempts) + " times"), std::string::npos) << o.error;
    for (int i = 0; i < 20; ++i) EXPECT_TRUE(records.at("p-" + std::to_string(i)).ok);
    Check(1, /*complete=*/true);
  }
}

}  // namespace
}  // namespace qinfer::testing
