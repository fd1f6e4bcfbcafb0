// Replay what failed, through the real binary: jobs fail (too long, out of
// memory), `qinfer replay` publishes them again with a policy or device
// override, the service turns them into results, and the store ends with one
// final record per id, the failure kept as history.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "kafka_test_util.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::testing {
namespace {

using std::chrono::seconds;

constexpr int64_t kVocab = 4096;
constexpr int kMaxTokens = 512;

// A job message of `ids`.
std::string Job(const std::string& id, const std::vector<int64_t>& ids) {
  std::string v = R"({"id":")" + id + R"(","input_ids":[)";
  for (size_t i = 0; i < ids.size(); ++i) v += (i ? "," : "") + std::to_string(ids[i]);
  return v + "]}";
}

// The wall clock, in milliseconds since the epoch.
int64_t WallMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// `ms` as RFC 3339 (UTC, whole seconds).
std::string Rfc3339(int64_t ms) {
  const time_t seconds = time_t(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::vector<int64_t> Tokens(size_t n, int seed) {
  std::vector<int64_t> ids(n);
  for (size_t t = 0; t < n; ++t) ids[t] = int64_t((seed * 131 + t * 7 + t * t) % kVocab);
  return ids;
}

class ReplayTest : public BrokerTest {
 protected:
  void SetUp() override {
    BrokerTest::SetUp();
    if (IsSkipped()) return;
    CreateTopic(brokers_, topic_, 2);
    dlq_ = UniqueName("dlq");
    CreateTopic(brokers_, dlq_, 1);
  }

  // Serves everything published so far, then stops cleanly; the log.
  std::string ServeAll(const std::vector<std::string>& args = {}) {
    ServeProcess serve(dir_.string(),
                       ServeYaml(brokers_, topic_, group_, store_, "kafka:\n  dead_letter_topic: " + dlq_ + "\n"),
                       args);
    EXPECT_TRUE(WaitForCommitted(brokers_, group_, topic_, 2, seconds(240))) << serve.LogTail();
    EXPECT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();
    return serve.Log();
  }

  // `qinfer replay <args>` against this broker and jobs topic: (exit
  // status, stdout + stderr).
  std::pair<int, std::string> Replay(const std::string& args) {
    return RunCommand(std::string(QINFER_BINARY) + " --log-level warn replay --no-progress --brokers " + brokers_ +
                      " --topic " + topic_ + " " + args + " 2>&1");
  }

  std::string Results(const std::string& args) {
    auto [rc, out] =
        RunCommand(std::string(QINFER_BINARY) + " --log-level warn results --store " + store_ + " " + args);
    EXPECT_EQ(rc, 0) << out;
    return out;
  }

  std::string dlq_;
};

TEST_F(ReplayTest, TooLongJobsReplayedWithTruncateAllEndAsResultsWithOneRecordPerId) {
  auto jobs = MakeJobs(200, kVocab, kMaxTokens, 31, "ok-");
  std::map<std::string, size_t> long_lengths;
  for (int i = 0; i < 20; ++i) {
    const std::string id = "long-" + std::to_string(i);
    long_lengths[id] = 600 + 15 * size_t(i);
    jobs.emplace_back(id, Job(id, Tokens(long_lengths[id], i)));
  }
  const int64_t before_ms = WallMillis();
  Produce(brokers_, topic_, jobs);
  ServeAll();
  auto first = ReadStore(store_);
  ASSERT_EQ(first.size(), 220u);
  for (const auto& [id, n] : long_lengths) {
    ASSERT_EQ(first.at(id).reason, reason::kTooLong) << id;
  }
  const int64_t published = EndOffsetTotal(brokers_, topic_, 2);
  ASSERT_EQ(published, 220);

  // A record's time, and its dead letter's, is the wall clock's in
  // milliseconds: within a minute of this run. --since and --until select
  // by it, in milliseconds or RFC 3339.
  const int64_t minute = 60000, after_ms = WallMillis();
  for (const auto& [id, o] : first) {
    ASSERT_GE(o.completed_at_ms, before_ms - minute) << id;
    ASSERT_LE(o.completed_at_ms, after_ms + minute) << id;
  }
  const std::vector<ReadMessage> letters = ReadTopic(brokers_, dlq_);
  ASSERT_EQ(letters.size(), 20u);
  for (const ReadMessage& m : letters) {
    const int64_t at = std::atoll(m.headers.at("__qinfer.errors.timestamp").c_str());
    EXPECT_GE(at, before_ms - minute) << m.key;
    EXPECT_LE(at, after_ms + minute) << m.key;
  }
  for (const auto& [from, range, selected] :
       std::vector<std::tuple<std::string, std::string, int>>{
           {"--store " + store_, "--since " + std::to_string(before_ms - minute), 20},
           {"--store " + store_, "--until " + Rfc3339(after_ms + minute), 20},
           {"--store " + store_, "--until " + std::to_string(before_ms - minute), 0},
           {"--store " + store_, "--since " + Rfc3339(after_ms + minute), 0},
           {"--dead-letter-topic " + dlq_, "--since " + std::to_string(before_ms - minute), 20}}) {
    auto [rc, out] = Replay(from + " " + range + " --reason too_long --policy truncate --dry-run");
    EXPECT_EQ(rc, 0) << out;
    const size_t said = out.rfind("replay: dry run");
    EXPECT_NE(out.find("selected " + std::to_string(selected) + ", would send " + std::to_string(selected)),
              std::string::npos)
        << from << " " << range << ": " << (said == std::string::npos ? out : out.substr(said));
  }

  // A dry run lists the 20 and publishes nothing.
  auto [dry_rc, dry] = Replay("--store " + store_ + " --reason too_long --policy truncate --dry-run");
  EXPECT_EQ(dry_rc, 0) << dry;
  EXPECT_NE(dry.find("replay: dry run, nothing published: selected 20, would send 20"), std::string::npos) << dry;
  size_t listed = 0;
  for (const auto& [id, n] : long_lengths) listed += dry.find(id + "\ttoo_long\t{") != std::string::npos;
  EXPECT_EQ(listed, 20u) << dry;
  EXPECT_EQ(EndOffsetTotal(brokers_, topic_, 2), published) << "a dry run publishes nothing";

  // The attempt limit: these would be attempt 1.
  auto [limit_rc, limited] = Replay("--store " + store_ + " --reason too_long --policy truncate --max-attempts 0");
  EXPECT_EQ(limit_rc, 1) << limited;
  EXPECT_NE(limited.find("attempt 1 would pass --max-attempts 0"), std::string::npos) << limited;
  EXPECT_NE(limited.find("sent 0"), std::string::npos) << limited;
  EXPECT_EQ(EndOffsetTotal(brokers_, topic_, 2), published) << "refused: nothing published";

  // Replayed twice before the service runs: 40 messages for 20 ids.
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 2; ++round) {
    auto [rc, out] = Replay("--store " + store_ + " --reason too_long --policy truncate");
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("selected 20, sent 20 to " + topic_ + " (20 acknowledged)"), std::string::npos) << out;
  }
  EXPECT_EQ(EndOffsetTotal(brokers_, topic_, 2), published + 40);
  ServeAll();
  const double seconds_taken = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[ replay ] 20 too_long jobs selected, replayed twice with --policy truncate, 20 results; %.1f s "
      "from the first replay to the stop\n",
      seconds_taken);

  auto records = ReadStore(store_);  // fails on two records for one id
  ASSERT_EQ(records.size(), 220u);
  for (const auto& [id, n] : long_lengths) {
    const Outcome& o = records.at(id);
    ASSERT_TRUE(o.ok) << id << ": " << o.error;
    EXPECT_EQ(o.policy, "truncate") << id;
    EXPECT_EQ(o.original_length, n) << id;
    EXPECT_EQ(o.input_length, size_t(kMaxTokens)) << id;
    EXPECT_EQ(o.attempt, 1) << id;
    EXPECT_EQ(o.replay_of.topic, topic_) << id;
    EXPECT_EQ(o.replay_of.offset, first.at(id).origin.offset) << id << ": points at the message that failed";
    EXPECT_EQ(o.replay_of.partition, first.at(id).origin.partition) << id;
  }
  EXPECT_EQ(Results(""), "results 220\nfailures 0\nsuperseded 20\n");
  const std::string summary = Results("--summary");
  EXPECT_EQ(summary.rfind("records: 220 results, 0 failures (final states); 20 superseded records", 0), 0u) << summary;
  // One id: the result and its history.
  const nlohmann::json one = nlohmann::json::parse(Results("--id long-3"));
  EXPECT_EQ(one["status"], "ok");
  ASSERT_TRUE(one.contains("history")) << one.dump();
  ASSERT_EQ(one["history"].size(), 1u);
  EXPECT_EQ(one["history"][0]["reason"], "too_long");
  EXPECT_EQ(one["history"][0].value("attempt", 0), 0);

  // Nothing is left to replay.
  auto [again_rc, again] = Replay("--store " + store_ + " --reason too_long --policy truncate");
  EXPECT_EQ(again_rc, 0) << again;
  EXPECT_NE(again.find("selected 0, sent 0"), std::string::npos) << again;
}

TEST_F(ReplayTest, LongDocumentsReplayedFromTheDeadLetterTopicWithChunkBecomeOnePooledResultEach) {
  // Documents made of one 512-token window repeated 2 or 3 times, and one of
  // 1,100 varied tokens; the service rejects them as too long.
  const std::vector<int64_t> window = Tokens(kMaxTokens, 5);
  std::vector<std::pair<std::string, std::string>> jobs = MakeJobs(100, kVocab, kMaxTokens, 32, "ok-");
  for (int copies : {2, 3}) {
    std::vector<int64_t> doc;
    for (int c = 0; c < copies; ++c) doc.insert(doc.end(), window.begin(), window.end());
    jobs.emplace_back("repeat-" + std::to_string(copies), Job("repeat-" + std::to_string(copies), doc));
  }
  jobs.emplace_back("varied", Job("varied", Tokens(1100, 9)));
  Produce(brokers_, topic_, jobs);
  ServeAll();
  ASSERT_EQ(EndOffsetTotal(brokers_, dlq_, 1), 3) << "three dead letters";

  auto [rc, out] = Replay("--dead-letter-topic " + dlq_ + " --reason too_long --from-offset 0 --policy chunk");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("selected 3, sent 3"), std::string::npos) << out;
  ServeAll();

  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), 103u);
  executor::RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  auto reference = executor::TorchModelRunner::Load(options);
  ASSERT_TRUE(reference.ok()) << reference.status();
  auto alone = (*reference)->Forward({window});
  ASSERT_TRUE(alone.ok()) << alone.status();
  for (int copies : {2, 3}) {
    const Outcome& o = records.at("repeat-" + std::to_string(copies));
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.policy, "chunk");
    EXPECT_EQ(o.windows, copies);
    EXPECT_EQ(o.input_length, size_t(copies * kMaxTokens));
    ASSERT_EQ(o.output.size(), (*alone)[0].size());
    for (size_t d = 0; d < o.output.size(); ++d) {
      ASSERT_NEAR(o.output[d], (*alone)[0][d], 1e-5) << "dim " << d << " of " << copies << " copies";
    }
  }
  const Outcome& varied = records.at("varied");
  ASSERT_TRUE(varied.ok) << varied.error;
  EXPECT_EQ(varied.windows, 3);
  EXPECT_EQ(varied.input_length, 1100u);
  EXPECT_EQ(varied.attempt, 1);
}

TEST_F(ReplayTest, AStaleDeadLetterNeverReplacesALaterResultAndTheStoreNumbersItsReplay) {
  // One too-long job through four tries: attempt 0 too long; replayed with
  // `reject` (too long again, attempt 1); replayed with `chunk` (a result,
  // attempt 2). Then its attempt-0 dead letter is replayed with `truncate`.
  const std::string id = "long";
  auto jobs = MakeJobs(20, kVocab, kMaxTokens, 35, "ok-");
  jobs.emplace_back(id, Job(id, Tokens(700, 3)));
  Produce(brokers_, topic_, jobs);
  ServeAll();
  ASSERT_EQ(ReadStore(store_).at(id).reason, reason::kTooLong);
  for (const char* policy : {"reject", "chunk"}) {
    auto [rc, out] = Replay("--store " + store_ + " --id " + id + " --policy " + policy);
    ASSERT_EQ(rc, 0) << out;
    ServeAll();
  }
  const Outcome chunked = ReadStore(store_).at(id);
  ASSERT_TRUE(chunked.ok) << chunked.error;
  ASSERT_EQ(chunked.attempt, 2);
  ASSERT_EQ(chunked.policy, "chunk");

  // The letter alone says attempt 0: its replay is attempt 1, older than the
  // result, which stays; the late result is kept as history.
  auto [stale_rc, stale] = Replay("--dead-letter-topic " + dlq_ + " --to-offset 0 --id " + id + " --policy truncate");
  ASSERT_EQ(stale_rc, 0) << stale;
  ServeAll();
  Outcome kept = ReadStore(store_).at(id);
  EXPECT_TRUE(kept.ok);
  EXPECT_EQ(kept.attempt, 2) << "an older attempt never replaces a newer record";
  EXPECT_EQ(kept.policy, "chunk");

  // With the store, the replay is numbered after the current record: attempt
  // 3, which supersedes the chunked result.
  auto [rc, out] = Replay("--dead-letter-topic " + dlq_ + " --store " + store_ + " --to-offset 0 --id " + id +
                          " --policy truncate --dry-run");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"attempt\":3"), std::string::npos) << out;
  std::tie(rc, out) =
      Replay("--dead-letter-topic " + dlq_ + " --store " + store_ + " --to-offset 0 --id " + id + " --policy truncate");
  ASSERT_EQ(rc, 0) << out;
  ServeAll();
  const Outcome truncated = ReadStore(store_).at(id);
  EXPECT_TRUE(truncated.ok) << truncated.error;
  EXPECT_EQ(truncated.attempt, 3);
  EXPECT_EQ(truncated.policy, "truncate");
  const nlohmann::json one = nlohmann::json::parse(Results("--id " + id));
  ASSERT_TRUE(one.contains("history")) << one.dump();
  std::vector<std::pair<int, std::string>> history;
  for (const auto& h : one["history"]) {
    history.emplace_back(h.value("attempt", 0),
                         h.value("status", "") == "ok" ? h.value("policy", "") : h.value("reason", ""));
  }
  EXPECT_EQ(history,
            (std::vector<std::pair<int, std::string>>{{0, "too_long"}, {1, "too_long"}, {1, "truncate"}, {2, "chunk"}}))
      << one.dump();
}

TEST_F(ReplayTest, MistakesOnTheCommandLineAreRefusedByName) {
  // A store with one too_long failure, written directly: no service needed.
  {
    auto store = storage::RocksDbOutcomeStore::Open(store_);
    ASSERT_TRUE(store.ok()) << store.status();
    Outcome f;
    f.id = "f1";
    f.reason = reason::kTooLong;
    f.error = "too long";
    f.payload = Job("f1", Tokens(600, 1));
    f.origin = {topic_, 0, 7, 0};
    ASSERT_TRUE((*store)->Put(std::vector<Outcome>{f}).ok());
  }
  const std::string from = "--store " + store_ + " ";

  auto [typo_rc, typo] = Replay(from + "--reason too-long --dry-run");
  EXPECT_EQ(typo_rc, 2) << typo;
  EXPECT_NE(typo.find("--reason too-long: expected invalid, too_long, too_large, oom, model_error, crash or "
                       "undeliverable"),
            std::string::npos)
      << typo;
  auto [policy_rc, policy] = Replay(from + "--policy trunc --dry-run");
  EXPECT_EQ(policy_rc, 2) << policy;
  EXPECT_NE(policy.find("--policy trunc: expected truncate, chunk, long_lane or reject"), std::string::npos) << policy;

  auto [none_rc, none] = Replay(from + "--id nope --id nada --dry-run");
  EXPECT_EQ(none_rc, 1) << "no id matched: " << none;
  EXPECT_NE(none.find("2 of 2 requested ids selected no failure record"), std::string::npos) << none;
  EXPECT_NE(none.find(" nada nope"), std::string::npos) << none;
  auto [some_rc, some] = Replay(from + "--id f1 --id nope --dry-run");
  EXPECT_EQ(some_rc, 0) << some;
  EXPECT_NE(some.find("1 of 2 requested ids selected no failure record (no such id, or none that matches the "
                      "selection): nope\n"),
            std::string::npos)
      << some;

  const std::string missing = UniqueName("no-such-jobs");
  const auto start = std::chrono::steady_clock::now();
  auto [topic_rc, topic] = RunCommand(std::string(QINFER_BINARY) + " --log-level warn replay --no-progress --brokers " +
                                      brokers_ + " --topic " + missing + " " + from + " 2>&1");
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(topic_rc, 2) << topic;
  EXPECT_NE(topic.find("--topic " + missing + ": the topic does not exist on " + brokers_), std::string::npos) << topic;
  EXPECT_LT(waited, 15.0) << "checked before sending, not found out by a delivery timeout";
  EXPECT_EQ(topic.find("selected"), std::string::npos) << "nothing was read or sent: " << topic;

  // At the default log level the store's open and close are not reported.
  auto [quiet_rc, quiet] = RunCommand(std::string(QINFER_BINARY) + " replay --no-progress " + from + "--dry-run 2>&1");
  EXPECT_EQ(quiet_rc, 0) << quiet;
  EXPECT_EQ(quiet.find("event=store_opened"), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find("event=store_closed"), std::string::npos) << quiet;

  auto [help_rc, help] = RunCommand(std::string(QINFER_BINARY) + " replay --help 2>&1");
  EXPECT_EQ(help_rc, 0) << help;
  for (const char* text : {"--brokers TEXT=127.0.0.1:9092", "--topic TEXT=jobs", "--max-attempts INT=3",
                           "long_lane or reject", "replay invalid records too", "crash, undeliverable"}) {
    EXPECT_NE(help.find(text), std::string::npos) << text << " in\n" << help;
  }
}

TEST_F(ReplayTest, AnUndeliverableNoticeIsRefusedAsAResultWhoseReplyWasLost) {
  // A result whose reply_to names no topic: a notice on the dead-letter topic.
  std::string lost = Job("lost", Tokens(10, 2));
  lost.insert(lost.size() - 1, R"(,"reply_to":")" + UniqueName("no-such-replies") + "\"");
  Produce(brokers_, topic_, {{"lost", lost}});
  ServeAll();
  ASSERT_TRUE(ReadStore(store_).at("lost").ok);
  ASSERT_EQ(EndOffsetTotal(brokers_, dlq_, 1), 1) << "the notice";
  auto [rc, out] = Replay("--dead-letter-topic " + dlq_ + " --from-offset 0");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("job lost has a result: this is an undeliverable notice, its reply"), std::string::npos) << out;
  EXPECT_EQ(out.find("keeps only a prefix"), std::string::npos) << out;
  EXPECT_NE(out.find("selected 1, sent 0"), std::string::npos) << out;
  EXPECT_NE(out.find("undeliverable=1"), std::string::npos) << out;
}

TEST_F(ReplayTest, OomFailuresReplayedOnTheCpuAllEndAsResults) {
  // 10 MiB and no fallback: the longest jobs cannot run anywhere.
  const std::vector<std::string> tiny = {"--set", "model.device=cpu-budget:10MiB", "--set",
                                         "model.fallback_device=none"};
  auto jobs = MakeJobs(300, kVocab, kMaxTokens, 33, "m-");
  Produce(brokers_, topic_, jobs);
  ServeAll(tiny);
  std::set<std::string> oom;
  for (const auto& [id, o] : ReadStore(store_)) {
    if (!o.ok) {
      ASSERT_EQ(o.reason, reason::kOom) << id << ": " << o.error;
      oom.insert(id);
    }
  }
  ASSERT_FALSE(oom.empty()) << "the longest jobs do not fit 10 MiB";
  auto [rc, out] = Replay("--store " + store_ + " --reason oom --device cpu");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("selected " + std::to_string(oom.size()) + ", sent " + std::to_string(oom.size())),
            std::string::npos)
      << out;
  const std::string log = ServeAll(tiny);
  EXPECT_NE(log.find(" override_runs=" + std::to_string(oom.size())), std::string::npos)
      << "each replayed job ran alone on the CPU";
  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), 300u);
  for (const std::string& id : oom) {
    const Outcome& o = records.at(id);
    ASSERT_TRUE(o.ok) << id << ": " << o.error;
    EXPECT_EQ(o.device, "cpu") << id;
    EXPECT_EQ(o.batch_size, 1) << id;
  }
  for (const auto& [id, o] : records) EXPECT_TRUE(o.ok) << id;
}

TEST_F(ReplayTest, TheLongLaneRunsLongInputsAloneOnTheFallbackWhereTheModelAllowsIt) {
  // The default model's positions end at its max_tokens: no long lane.
  {
    ServeProcess refused(dir_.string(), ServeYaml(brokers_, topic_, group_, store_),
                         {"--set", "long_lane.max_tokens=1024", "--set", "model.fallback_device=cpu"});
    EXPECT_EQ(refused.Wait(seconds(60)), 2) << refused.LogTail();
    EXPECT_NE(refused.Log().find("long_lane.max_tokens=1024: the model's positions allow at most 512 tokens"),
              std::string::npos)
        << refused.LogTail();
  }
  // A model with 1,024 positions, served at 512, the lane up to 1,024, and
  // long_lane as the configured policy (no replay needed).
  auto jobs = MakeJobs(100, kVocab, kMaxTokens, 34, "ok-");
  for (int i = 0; i < 5; ++i) {
    const std::string id = "lane-" + std::to_string(i);
    jobs.emplace_back(id, Job(id, Tokens(600 + 100 * size_t(i), i)));
  }
  jobs.emplace_back("too-long-even-so", Job("too-long-even-so", Tokens(1100, 7)));
  Produce(brokers_, topic_, jobs);
  const std::string long_model = std::string(QINFER_TEST_MODEL_LONG_DIR) + "/model.pt";
  ServeAll({"--set", "model.path=" + long_model, "--set", "long_lane.max_tokens=1024", "--set",
            "admission.too_long=long_lane", "--set", "model.fallback_device=cpu"});
  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), jobs.size());
  executor::RunnerOptions options;
  options.model_path = long_model;
  auto reference = executor::TorchModelRunner::Load(options);
  ASSERT_TRUE(reference.ok()) << reference.status();
  for (int i = 0; i < 5; ++i) {
    const Outcome& o = records.at("lane-" + std::to_string(i));
    ASSERT_TRUE(o.ok) << o.id << ": " << o.error;
    EXPECT_EQ(o.policy, "long_lane");
    EXPECT_EQ(o.bucket, 1024);
    EXPECT_EQ(o.batch_size, 1);
    EXPECT_EQ(o.input_length, 600 + 100 * size_t(i));
    auto alone = (*reference)->Forward({Tokens(600 + 100 * size_t(i), i)});
    ASSERT_TRUE(alone.ok()) << alone.status();
    for (size_t d = 0; d < o.output.size(); ++d) ASSERT_NEAR(o.output[d], (*alone)[0][d], 1e-4) << o.id;
  }
  const Outcome& over = records.at("too-long-even-so");
  EXPECT_EQ(over.reason, reason::kTooLong);
  EXPECT_NE(over.error.find("exceeds long_lane.max_tokens 1024"), std::string::npos) << over.error;
  for (const auto& [id, value] : jobs) {
    if (id.rfind("ok-", 0) == 0) {
      EXPECT_TRUE(records.at(id).ok) << id;
    }
  }
}

}  // namespace
}  // namespace qinfer::testing
