// The OOM ladder's plan write (PlanKeeper, plan.h): a lowered cap goes to
// the scheduler and into the stored plan, through the store-error path of
// every store write (StoreWrites), on a real store whose write-ahead log
// refuses appends as a full disk does.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <sstream>

#include "fakes/fake_clock.h"
#include "plan.h"
#include "qinfer/core/logging.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::app {
namespace {

MemoryPlan Plan() {
  MemoryPlan plan;
  plan.model_digest = "sha256:d";
  plan.device = "cpu-budget:96MiB";
  plan.dtype = "float32";
  plan.budget_bytes = 96 << 20;
  plan.max_batch_size = 64;
  plan.bounds = {64, 256};
  plan.entries = {{64, 32, 1 << 20, 0.5, 0}, {256, 8, 4 << 20, 0.5, 0}};
  plan.created_at_ms = 1765000000000;
  return plan;
}

scheduler::BatchQueue Queue(const Clock& clock) {
  scheduler::BatchPolicy policy;
  policy.bucket_bounds = {64, 256};
  policy.caps = {32, 8};
  policy.max_queued_jobs = 1000;
  policy.max_queued_tokens = 100000;
  return scheduler::BatchQueue(scheduler::Scheduler::Create(policy).value(), clock);
}

class PlanKeeperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (std::filesystem::temp_directory_path() / "qinfer-plan-keeper-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The plan the store holds under Plan()'s key.
  MemoryPlan Stored(const storage::RocksDbOutcomeStore& store) {
    auto json = store.GetMeta(Plan().Key());
    EXPECT_TRUE(json.ok() && json->has_value()) << json.status();
    if (!json.ok() || !json->has_value()) return {};
    return PlanFromJson(**json).value_or(MemoryPlan{});
  }

  std::filesystem::path dir_;
};

// Lowered on a writable store: the scheduler's cap and the stored plan's
// (with the cap it was lowered from); then on a full disk: each try one
// `event=store_error write=plan` line and one count of
// qinfer_store_errors_total{write="plan"}, retried with the backoff, then
// the store's fatal condition, and the stored plan as it was.
TEST_F(PlanKeeperTest, APlanWriteGoesThroughTheStoreErrorPathAndALastingFailureIsFatal) {
  auto refuse = std::make_shared<std::atomic<bool>>(false);
  auto store = storage::RocksDbOutcomeStore::OpenRefusingLogWritesForTest((dir_ / "store").string(), refuse);
  ASSERT_TRUE(store.ok()) << store.status();
  testing::FakeClock clock;
  Health health;
  StoreWrites writes(health, {.attempts = 3, .backoff = std::chrono::milliseconds(100), .clock = &clock});
  scheduler::BatchQueue queue = Queue(clock);
  PlanKeeper keeper(Plan(), **store, writes, queue);

  keeper.OnCapLowered(256, 6, 8);
  EXPECT_EQ(queue.cap(1), 6);
  MemoryPlan stored = Stored(**store);
  ASSERT_EQ(stored.entries.size(), 2u);
  EXPECT_EQ(stored.entries[1].batch_size, 6);
  EXPECT_EQ(stored.entries[1].lowered_from, 8);
  EXPECT_EQ(writes.stats().total(), 0u);

  std::ostringstream out;
  {
    ScopedLogCapture capture("core", out, LogLevel::kInfo);
    refuse->store(true);
    keeper.OnCapLowered(256, 4, 6);
    refuse->store(false);
  }
  EXPECT_EQ(queue.cap(1), 4) << "the scheduler's cap is lowered whatever the store does";
  EXPECT_EQ(writes.stats().store_errors_plan.load(), 3u) << "each failed try counts once";
  EXPECT_EQ(writes.stats().total(), 3u);
  EXPECT_EQ(clock.slept(), std::chrono::milliseconds(100 + 200)) << "retried with the backoff";
  const std::string logged = out.str();
  for (int attempt = 1; attempt <= 3; ++attempt) {
    EXPECT_NE(logged.find("event=store_error write=plan attempt=" + std::to_string(attempt) + " of=3"),
              std::string::npos)
        << logged;
  }
  EXPECT_NE(logged.find("event=fatal cause=store write=plan"), std::string::npos) << logged;
  EXPECT_TRUE(health.fatal());
  EXPECT_EQ(health.cause(), fatal_cause::kStore);
  EXPECT_EQ(Stored(**store).entries[1].batch_size, 6) << "the failed write wrote nothing";
}

}  // namespace
}  // namespace qinfer::app
