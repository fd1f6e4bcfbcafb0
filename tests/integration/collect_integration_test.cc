// `qinfer collect` against the real broker and real RocksDB: two `qinfer
// serve` instances in one consumer group, each with its own store, publish
// results and failures to the shared reply and dead-letter topics; collect
// folds both topics into one store that holds exactly one record per id,
// the same as the instances' stores, also after a run killed with SIGKILL,
// and a restarted collect changes nothing.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "kafka_test_util.h"
#include "qinfer/core/outcome_json.h"

namespace qinfer::testing {
namespace {

using std::chrono::seconds;

constexpr int64_t kVocab = 4096;
constexpr int kMaxTokens = 512;
constexpr int kJobPartitions = 4;
constexpr int kOutPartitions = 2;

std::string TooLongJob(const std::string& id, size_t n) {
  std::string v = R"({"id":")" + id + R"(","input_ids":[)";
  for (size_t t = 0; t < n; ++t) v += (t ? "," : "") + std::to_string((t * 7 + 3) % kVocab);
  return v + "]}";
}

class CollectTest : public BrokerTest {
 protected:
  void SetUp() override {
    BrokerTest::SetUp();
    if (IsSkipped()) return;
    CreateTopic(brokers_, topic_, kJobPartitions);
    replies_ = UniqueName("replies");
    dlq_ = UniqueName("dlq");
    CreateTopic(brokers_, replies_, kOutPartitions);
    CreateTopic(brokers_, dlq_, kOutPartitions);
    collected_ = (dir_ / "collected").string();
    collect_group_ = UniqueName("collect");
  }

  std::vector<std::string> ServeArgs() const {
    return {"--set", "kafka.reply_topic=" + replies_, "--set", "kafka.dead_letter_topic=" + dlq_};
  }

  // `qinfer collect --idle-exit 3` on both topics: (exit status, its log).
  std::pair<int, std::string> Collect(const std::string& group) {
    return RunCommand(std::string(QINFER_BINARY) + " collect --brokers " + brokers_ + " --reply-topic " + replies_ +
                      " --dead-letter-topic " + dlq_ + " --store " + collected_ + " --group " + group +
                      " --idle-exit 3 2>&1");
  }

  std::string Results(const std::string& store) {
    auto [rc, out] = RunCommand(std::string(QINFER_BINARY) + " --log-level warn results --store " + store);
    EXPECT_EQ(rc, 0) << out;
    return out;
  }

  std::string replies_, dlq_, collected_, collect_group_;
};

TEST_F(CollectTest, TwoInstancesResultsAndFailuresEndInOneStoreWithOneRecordPerIdAndARestartChangesNothing) {
  auto jobs = MakeJobs(270, kVocab, kMaxTokens, 47, "ok-");
  std::map<std::string, std::string> want_reason;
  for (int i = 0; i < 10; ++i) {
    const std::string id = "long-" + std::to_string(i);
    jobs.emplace_back(id, TooLongJob(id, 600 + 10 * size_t(i)));
    want_reason[id] = reason::kTooLong;
  }
  for (int i = 0; i < 10; ++i) {
    const std::string id = "bad-" + std::to_string(i);
    // Broken JSON (the key names the job) and ids out of the vocabulary.
    jobs.emplace_back(id, i % 2 ? "{\"input_ids\": [1, 2" : R"({"id":")" + id + R"(","input_ids":[1,99999]})");
    want_reason[id] = reason::kInvalid;
  }
  ASSERT_EQ(jobs.size(), 290u);

  // Both instances join the group before any job exists, so both get work.
  const std::string store_a = (dir_ / "a").string(), store_b = (dir_ / "b").string();
  ServeProcess a(dir_.string(), ServeYaml(brokers_, topic_, group_, store_a), ServeArgs());
  ServeProcess b(dir_.string(), ServeYaml(brokers_, topic_, group_, store_b), ServeArgs());
  const auto deadline = std::chrono::steady_clock::now() + seconds(120);
  while (std::chrono::steady_clock::now() < deadline &&
         (a.Log().find("event=assigned") == std::string::npos || b.Log().find("event=assigned") == std::string::npos)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_NE(a.Log().find("event=assigned"), std::string::npos) << a.LogTail();
  ASSERT_NE(b.Log().find("event=assigned"), std::string::npos) << b.LogTail();
  Produce(brokers_, topic_, jobs);
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, kJobPartitions, seconds(300))) << a.LogTail() << "\n----\n"
                                                                                        << b.LogTail();
  EXPECT_EQ(a.Stop(SIGTERM), 0) << a.LogTail();
  EXPECT_EQ(b.Stop(SIGTERM), 0) << b.LogTail();

  // What the instances hold, each a part: one record per id over both (a job
  // that moved between them in a rebalance may be in both, with one state).
  const auto in_a = ReadStore(store_a);
  const auto in_b = ReadStore(store_b);
  EXPECT_GT(in_a.size(), 0u);
  EXPECT_GT(in_b.size(), 0u);
  std::map<std::string, Outcome> instances = in_a;
  for (const auto& [id, o] : in_b) {
    auto [it, added] = instances.emplace(id, o);
    if (!added) {
      EXPECT_EQ(it->second.ok, o.ok) << id << " has two different final states";
    }
  }
  ASSERT_EQ(instances.size(), jobs.size());

  // A first run killed with SIGKILL 3 s in, wherever it was; the run after
  // it continues from what that one committed. (A short session timeout, so
  // the group does not wait 45 s for the dead member.)
  auto [killed_rc, killed_log] =
      RunCommand("timeout -s KILL 3 " + std::string(QINFER_BINARY) + " collect --brokers " + brokers_ +
                 " --reply-topic " + replies_ + " --dead-letter-topic " + dlq_ + " --store " + collected_ +
                 " --group " + collect_group_ + " -X session.timeout.ms=6000 2>&1");
  ASSERT_EQ(killed_rc, 128 + SIGKILL) << killed_log;
  auto [rc, log] = Collect(collect_group_);
  ASSERT_EQ(rc, 0) << log;
  EXPECT_NE(log.find("event=idle_exit"), std::string::npos) << log;
  EXPECT_NE(log.find("unreadable=0"), std::string::npos) << log;
  const auto collected = ReadStore(collected_);  // fails on two records for one id
  ASSERT_EQ(collected.size(), jobs.size());
  size_t results = 0;
  for (const auto& [id, mine] : instances) {
    auto it = collected.find(id);
    ASSERT_NE(it, collected.end()) << id;
    const Outcome& o = it->second;
    ASSERT_EQ(o.ok, mine.ok) << id;
    if (o.ok) {
      ++results;
      EXPECT_EQ(o.output, mine.output) << id;
      EXPECT_EQ(o.model_digest, mine.model_digest) << id;
      EXPECT_FALSE(want_reason.contains(id)) << id;
    } else {
      EXPECT_EQ(o.reason, mine.reason) << id;
      EXPECT_EQ(o.reason, want_reason[id]) << id;
      EXPECT_EQ(o.payload, mine.payload) << id;
      EXPECT_EQ(o.origin.topic, topic_) << id;
      EXPECT_EQ(o.origin.offset, mine.origin.offset) << id;
    }
  }
  EXPECT_EQ(results, 270u);
  // Every reply and dead letter is committed for collect's group.
  EXPECT_EQ(CommittedTotal(brokers_, collect_group_, replies_, kOutPartitions),
            EndOffsetTotal(brokers_, replies_, kOutPartitions));
  EXPECT_EQ(CommittedTotal(brokers_, collect_group_, dlq_, kOutPartitions),
            EndOffsetTotal(brokers_, dlq_, kOutPartitions));
  std::printf("[ collect ] instance stores %zu + %zu records, %lld replies and %lld dead letters -> %zu records\n",
              in_a.size(), in_b.size(), static_cast<long long>(EndOffsetTotal(brokers_, replies_, kOutPartitions)),
              static_cast<long long>(EndOffsetTotal(brokers_, dlq_, kOutPartitions)), collected.size());
  // `results` reads the collected store like an instance's own.
  const std::string counts = Results(collected_);
  EXPECT_EQ(counts, "results 270\nfailures 20\nsuperseded 0\n");
  // And exports like one: a Parquet row a final record.
  const std::string parquet = collected_ + ".parquet";
  auto [parquet_rc, wrote] = RunCommand(std::string(QINFER_BINARY) + " --log-level warn results --store " +
                                        collected_ + " --export " + parquet + " 2>&1");
  EXPECT_EQ(parquet_rc, 0) << wrote;
  EXPECT_NE(wrote.find("wrote 290 records to " + parquet + " (Parquet"), std::string::npos) << wrote;
  std::filesystem::remove(parquet);

  // A restart in the same group: nothing new, nothing changes.
  auto [rc2, log2] = Collect(collect_group_);
  ASSERT_EQ(rc2, 0) << log2;
  EXPECT_NE(log2.find("event=summary"), std::string::npos) << log2;
  EXPECT_NE(log2.find(" messages=0 "), std::string::npos) << log2;
  EXPECT_EQ(ReadStore(collected_), collected);
  EXPECT_EQ(Results(collected_), counts);

  // Everything read again (a fresh group, as after a kill -9 before any
  // commit): writing the same records again leaves the same store.
  auto [rc3, log3] = Collect(UniqueName("collect-again"));
  ASSERT_EQ(rc3, 0) << log3;
  EXPECT_EQ(log3.find(" messages=0 "), std::string::npos) << log3;
  EXPECT_EQ(ReadStore(collected_), collected);
  EXPECT_EQ(Results(collected_), counts);
}

TEST_F(CollectTest, MessagesThatAreNotOutcomesAreSkippedAndCommittedPast) {
  // A reply that is not JSON, a dead letter without headers, then real
  // records after them in the same partitions.
  Outcome result;
  result.id = "r-1";
  result.ok = true;
  result.output = {0.25f, 0.5f};
  result.device = "cpu";
  Produce(brokers_, replies_, {{"x", "not json"}, {"x", OutcomeToJson(result)}});
  Produce(brokers_, dlq_, {{"y", "no headers"}});
  auto [rc, log] = Collect(collect_group_);
  ASSERT_EQ(rc, 0) << log;
  EXPECT_NE(log.find("event=unreadable"), std::string::npos) << log;
  EXPECT_NE(log.find("unreadable=2"), std::string::npos) << log;
  const auto collected = ReadStore(collected_);
  ASSERT_EQ(collected.size(), 1u);
  EXPECT_EQ(collected.at("r-1").output, result.output);
  EXPECT_EQ(CommittedTotal(brokers_, collect_group_, replies_, kOutPartitions), 2);
  EXPECT_EQ(CommittedTotal(brokers_, collect_group_, dlq_, kOutPartitions), 1);
}

}  // namespace
}  // namespace qinfer::testing
