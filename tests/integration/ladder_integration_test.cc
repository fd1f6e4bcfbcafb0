// The memory plan and the OOM ladder through the real binary: `qinfer plan`
// persistence, and `qinfer serve` on a budgeted CPU device whose allocations
// really fail inside the model's forward pass.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "kafka_test_util.h"
#include "qinfer/core/memory_plan.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::testing {
namespace {

using std::chrono::seconds;

constexpr int64_t kVocab = 4096;
constexpr int kMaxTokens = 512;

class PlanCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / UniqueName("qinfer-plan");
    std::filesystem::create_directories(dir_);
    config_ = (dir_ / "qinfer.yaml").string();
    std::ofstream(config_) << "model:\n  path: " << QINFER_TEST_MODEL_DIR << "/model.pt\n"
                           << "storage:\n  path: " << (dir_ / "store").string() << "\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::pair<int, std::string> Plan(const std::string& args) {
    return RunCommand(std::string(QINFER_BINARY) + " --log-level warn plan --config " + config_ + " " + args + " 2>&1");
  }
  std::filesystem::path dir_;
  std::string config_;
};

TEST_F(PlanCliTest, ARestartReusesTheStoredPlanAndAChangedBudgetRecalibrates) {
  auto [rc1, first] = Plan("--set model.device=cpu-budget:128MiB");
  ASSERT_EQ(rc1, 0) << first;
  EXPECT_EQ(first.rfind("calibrated", 0), 0u) << first;
  EXPECT_NE(first.find("tokens/batch"), std::string::npos) << "prints the table";

  auto [rc2, second] = Plan("--set model.device=cpu-budget:128MiB");
  ASSERT_EQ(rc2, 0) << second;
  EXPECT_EQ(second.rfind("reused the stored plan", 0), 0u) << second;
  // Same plan: the table lines after the first line match.
  EXPECT_EQ(first.substr(first.find('\n')), second.substr(second.find('\n')));

  auto [rc3, changed] = Plan("--set model.device=cpu-budget:96MiB");
  ASSERT_EQ(rc3, 0) << changed;
  EXPECT_EQ(changed.rfind("calibrated", 0), 0u) << "a changed budget recalibrates: " << changed;

  auto [rc4, forced] = Plan("--set model.device=cpu-budget:128MiB --recalibrate");
  ASSERT_EQ(rc4, 0) << forced;
  EXPECT_EQ(forced.rfind("calibrated", 0), 0u) << forced;
}

TEST_F(PlanCliTest, PlainCpuHasNoBudgetAndSaysSo) {
  auto [rc, out] = Plan("--set model.device=cpu");
  EXPECT_EQ(rc, 2);
  EXPECT_NE(out.find("no memory budget"), std::string::npos) << out;
}

// key=value fields of the last log line holding `event`, e.g.
// LogFields(log, "event=ladder_summary")["oom_events"]; empty when absent.
std::map<std::string, int64_t> LogFields(const std::string& log, const std::string& event) {
  std::map<std::string, int64_t> fields;
  const size_t at = log.rfind(event + " ");
  if (at == std::string::npos) return fields;
  std::istringstream line(log.substr(at, log.find('\n', at) - at));
  std::string kv;
  while (line >> kv) {
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) fields[kv.substr(0, eq)] = std::atoll(kv.c_str() + eq + 1);
  }
  return fields;
}

// The caps the service started with: bucket bound -> cap, from its
// `event=bucket bound=B cap=C` lines.
std::map<int, int> StartCaps(const std::string& log) {
  std::map<int, int> caps;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    const size_t at = line.find("event=bucket bound=");
    if (at == std::string::npos) continue;
    int bound = 0, cap = 0;
    if (std::sscanf(line.c_str() + at, "event=bucket bound=%d cap=%d", &bound, &cap) == 2) {
      caps[bound] = cap;
    }
  }
  return caps;
}

// `count` jobs of 200-256 tokens: all in bucket 256.
std::vector<std::pair<std::string, std::string>> LongJobs(int count) {
  std::vector<std::pair<std::string, std::string>> jobs;
  for (int i = 0; i < count; ++i) {
    const std::string id = "long-" + std::to_string(i);
    std::string v = R"({"id":")" + id + R"(","input_ids":[)";
    const int n = 200 + (i * 37) % 57;
    for (int t = 0; t < n; ++t) v += (t ? "," : "") + std::to_string((i * 131 + t * 7) % kVocab);
    jobs.emplace_back(id, v + "]}");
  }
  return jobs;
}

class LadderIntegrationTest : public BrokerTest {
 protected:
  void SetUp() override {
    BrokerTest::SetUp();
    if (!IsSkipped()) CreateTopic(brokers_, topic_, 3);
  }

  // Publishes `jobs`, serves them with `args`, stops cleanly, returns the
  // store's records and the service log.
  std::pair<std::map<std::string, Outcome>, std::string> Serve(
      const std::vector<std::pair<std::string, std::string>>& jobs, const std::vector<std::string>& args) {
    Produce(brokers_, topic_, jobs);
    ServeProcess serve(dir_.string(), ServeYaml(brokers_, topic_, group_, store_), args);
    EXPECT_TRUE(WaitForCommitted(brokers_, group_, topic_, 3, seconds(300))) << serve.LogTail();
    EXPECT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();
    return {ReadStore(store_), serve.Log()};
  }
};

TEST_F(LadderIntegrationTest, CapsThatOomAreSplitLoweredAndNothingIsLost) {
  // No plan, caps from a generous token budget: 64 jobs of 256 tokens do not
  // fit 96 MiB, so the first long batches run out of memory. Arrival order
  // keeps those batches full (length formation would cut them into runs of
  // near-equal lengths, too small to run out of memory).
  auto jobs = MakeJobs(1500, kVocab, kMaxTokens, 11, "l-");
  auto [records, log] = Serve(jobs, {"--set", "model.device=cpu-budget:96MiB", "--set", "memory.plan=false", "--set",
                                     "scheduler.tokens_per_batch=1000000", "--set", "model.fallback_device=none",
                                     "--set", "scheduler.formation=arrival"});
  ASSERT_EQ(records.size(), jobs.size()) << log;
  for (const auto& [id, value] : jobs) {
    ASSERT_TRUE(records.at(id).ok) << id << ": " << records.at(id).error;
  }
  auto ladder = LogFields(log, "event=ladder_summary");
  ASSERT_FALSE(ladder.empty()) << "the run ends with its ladder summary";
  EXPECT_GT(ladder["oom_events"], 0);
  EXPECT_GT(ladder["splits"], 0);
  EXPECT_GT(ladder["cap_lowerings"], 0);
  // Once a cap is lowered the scheduler forms smaller batches: the OOMs stop
  // after a few. Without the lowered cap reaching the scheduler every later
  // long batch would run out of memory again.
  EXPECT_LE(ladder["cap_lowerings"], 6) << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
  EXPECT_LE(ladder["oom_events"], 20);
}

TEST_F(LadderIntegrationTest, ALoweredCapStopsFurtherOomsInItsBucket) {
  // 640 jobs of 200-256 tokens: ten batches of 64 in bucket 256 if the cap
  // stayed where it was, and 64 x 256 does not fit 96 MiB.
  auto jobs = LongJobs(640);
  auto [records, log] = Serve(jobs, {"--set", "model.device=cpu-budget:96MiB", "--set", "memory.plan=false", "--set",
                                     "scheduler.tokens_per_batch=1000000", "--set", "model.fallback_device=none",
                                     "--set", "scheduler.max_batch_delay_ms=200"});
  ASSERT_EQ(records.size(), jobs.size());
  for (const auto& [id, o] : records) ASSERT_TRUE(o.ok) << id << ": " << o.error;
  auto ladder = LogFields(log, "event=ladder_summary");
  ASSERT_FALSE(ladder.empty());
  EXPECT_GE(ladder["cap_lowerings"], 1);
  // The scheduler hears of the lowered cap at once: the OOMs stop after the
  // first batches instead of recurring in every batch of the bucket.
  EXPECT_LE(ladder["oom_events"], 4) << "oom_events=" << ladder["oom_events"];
}

TEST_F(LadderIntegrationTest, ALoweredCapIsStoredInThePlanAndQinferPlanShowsIt) {
  // A stored plan that promises more than the device holds (measured while
  // the device had more room, say): bucket 256 gets the largest batch.
  const std::string config = (dir_ / "plan.yaml").string();
  std::ofstream(config) << ServeYaml(brokers_, topic_, group_, store_);
  const std::string plan_cmd = std::string(QINFER_BINARY) + " --log-level warn plan --config " + config +
                               " --set model.device=cpu-budget:96MiB 2>&1";
  auto [rc, first] = RunCommand(plan_cmd);
  ASSERT_EQ(rc, 0) << first;
  const size_t key_at = first.find("(key ");
  ASSERT_NE(key_at, std::string::npos) << first;
  const std::string key = first.substr(key_at + 5, first.find(')', key_at) - key_at - 5);
  int planned = 0;
  {
    auto store = storage::RocksDbOutcomeStore::Open(store_, {});
    ASSERT_TRUE(store.ok()) << store.status();
    auto stored = (*store)->GetMeta(key);
    ASSERT_TRUE(stored.ok() && stored->has_value()) << key;
    auto plan = PlanFromJson(**stored);
    ASSERT_TRUE(plan.ok()) << plan.status();
    // Calibrated just now: created_at_ms is the wall clock's, in milliseconds.
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    EXPECT_GE(plan->created_at_ms, now_ms - 600000) << "within the ten minutes before";
    EXPECT_LE(plan->created_at_ms, now_ms + 60000);
    PlanEntry& e =
        plan->entries[size_t(std::find(plan->bounds.begin(), plan->bounds.end(), 256) - plan->bounds.begin())];
    planned = e.batch_size;
    ASSERT_LT(planned, 64) << "64 x 256 tokens does not fit 96 MiB";
    e.batch_size = 64;
    ASSERT_TRUE((*store)->PutMeta(key, PlanToJson(*plan)).ok());
  }

  auto jobs = LongJobs(320);
  auto [records, log] = Serve(jobs, {"--set", "model.device=cpu-budget:96MiB", "--set", "model.fallback_device=none",
                                     "--set", "scheduler.max_batch_delay_ms=200"});
  ASSERT_EQ(records.size(), jobs.size());
  for (const auto& [id, o] : records) ASSERT_TRUE(o.ok) << id << ": " << o.error;
  EXPECT_NE(log.find("event=plan_reused"), std::string::npos) << "the service runs under the stored plan";
  EXPECT_EQ(StartCaps(log).at(256), 64);
  auto ladder = LogFields(log, "event=ladder_summary");
  ASSERT_FALSE(ladder.empty());
  EXPECT_GE(ladder["cap_lowerings"], 1);

  // The next start, and `qinfer plan`, find the lowered cap in the store.
  auto [rc2, after] = RunCommand(plan_cmd);
  ASSERT_EQ(rc2, 0) << after;
  EXPECT_EQ(after.rfind("reused the stored plan", 0), 0u) << after;
  std::istringstream table(after);
  std::string line;
  int shown = -1;
  while (std::getline(table, line)) {
    int bound = 0, batch = 0;
    if (std::sscanf(line.c_str(), "%d %d", &bound, &batch) == 2 && bound == 256) {
      shown = batch;
      EXPECT_NE(line.find("lowered from 64 after an OOM"), std::string::npos) << line;
    }
  }
  EXPECT_GE(shown, 1) << after;
  EXPECT_LT(shown, 64) << after;
}

TEST_F(LadderIntegrationTest, UnderAMemoryPlanNothingRunsOutOfMemoryAndNoBatchExceedsItsCap) {
  auto jobs = MakeJobs(1500, kVocab, kMaxTokens, 14, "p-");
  auto [records, log] = Serve(jobs, {"--set", "model.device=cpu-budget:128MiB", "--set", "model.fallback_device=none"});
  ASSERT_EQ(records.size(), jobs.size());
  const std::map<int, int> caps = StartCaps(log);
  ASSERT_EQ(caps.size(), 6u) << "one cap per bucket, 16 to 512";
  EXPECT_LT(caps.at(512), caps.at(16)) << "the plan gives long buckets smaller batches";
  std::map<int, int> largest;
  for (const auto& [id, o] : records) {
    ASSERT_TRUE(o.ok) << id << ": " << o.error;
    ASSERT_LE(o.batch_size, caps.at(o.bucket)) << id << " in bucket " << o.bucket;
    largest[o.bucket] = std::max(largest[o.bucket], o.batch_size);
  }
  EXPECT_GT(largest[32], 8) << "short jobs are batched";
  auto ladder = LogFields(log, "event=ladder_summary");
  ASSERT_FALSE(ladder.empty());
  EXPECT_EQ(ladder["oom_events"], 0) << "a measured plan leaves no room for an OOM";
  EXPECT_EQ(ladder["cap_lowerings"], 0);
}

TEST_F(LadderIntegrationTest, LongJobsThatDoNotFitCompleteOnTheCpuFallback) {
  auto jobs = MakeJobs(600, kVocab, kMaxTokens, 12, "f-");
  auto [records, log] = Serve(jobs, {"--set", "model.device=cpu-budget:10MiB", "--set", "model.fallback_device=cpu"});
  ASSERT_EQ(records.size(), jobs.size()) << log;
  int on_fallback = 0;
  for (const auto& [id, value] : jobs) {
    const Outcome& o = records.at(id);
    ASSERT_TRUE(o.ok) << id << ": " << o.error;
    if (o.device == "cpu") {
      ++on_fallback;
      EXPECT_EQ(o.batch_size, 1);
    } else {
      EXPECT_EQ(o.device, "cpu-budget:10MiB");
    }
  }
  EXPECT_GT(on_fallback, 0) << "the longest jobs do not fit 10 MiB";
  EXPECT_LT(on_fallback, int(jobs.size())) << "short jobs still run on the primary device";
}

TEST_F(LadderIntegrationTest, WithoutFallbackJobsThatDoNotFitGetReplayableOomRecords) {
  auto jobs = MakeJobs(600, kVocab, kMaxTokens, 13, "n-");
  auto [records, log] = Serve(jobs, {"--set", "model.device=cpu-budget:10MiB", "--set", "model.fallback_device=none"});
  ASSERT_EQ(records.size(), jobs.size()) << log;
  int oom = 0;
  for (const auto& [id, value] : jobs) {
    const Outcome& o = records.at(id);
    if (o.ok) continue;
    EXPECT_EQ(o.reason, reason::kOom) << id << ": " << o.error;
    EXPECT_EQ(o.payload, value) << "the original payload is kept for replay";
    ++oom;
  }
  EXPECT_GT(oom, 0);
  EXPECT_LT(oom, int(jobs.size()));
}

}  // namespace
}  // namespace qinfer::testing
