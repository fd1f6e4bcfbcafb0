// The /status and /metrics snapshot, built from the modules' stats alone:
// no Kafka, torch or model (the test links no torch).
#include "serve_snapshot.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"

namespace qinfer::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class FixedMemory final : public executor::DeviceMemory {
 public:
  int64_t allocated_bytes() const override { return 100; }
  int64_t peak_bytes() const override { return 300; }
  int64_t reserved_bytes() const override { return 200; }
  void ResetPeak() override {}
  int64_t budget_bytes() const override { return 1000; }
  void ReleaseCache() override {}
  uint64_t refused_allocations() const override { return 0; }
};

// The modules' figures, every one of them distinct so that a mix-up shows.
class ServeSnapshotTest : public ::testing::Test {
 protected:
  ServeSnapshotTest() {
    identity_.version = "1.2.3";
    identity_.libtorch = "2.5.0";
    identity_.model = "tiny";
    identity_.model_digest = "sha256:abc";
    identity_.device = "cpu-budget:1GiB";
    identity_.fallback_device = "cpu";
    identity_.intra_op_threads = 4;
    identity_.inter_op_threads = 2;
    health_.Beat(clock_.Now());
    source_.messages = 11;
    source_.rejected = 12;
    source_.replays = 13;
    source_.pauses = 14;
    source_.assigned_partitions = 2;
    source_.paused = true;
    runner_.oom_events = 21;
    runner_.splits = 22;
    runner_.cap_lowerings = 23;
    runner_.fallback_runs = 24;
    runner_.oom_failures = 25;
    runner_.override_runs = 26;
    recorder_.store_errors = 31;
    recorder_.publish_retries = 32;
    recorder_.undeliverable_permanent = 33;
    recorder_.undeliverable_exhausted = 34;
    recorder_.dead_letter_notices = 35;
    loop_.crash_isolated = 41;
    loop_.abandoned = 42;
  }

  pipeline::ServiceSnapshot Build(std::vector<scheduler::BucketStats> buckets = {},
                                  std::map<int, pipeline::BucketTotals> totals = {},
                                  std::vector<consumer::PartitionProgress> partitions = {}) {
    return BuildSnapshot({.identity = identity_,
                          .uptime = milliseconds(2500),
                          .health = health_,
                          .now = clock_.Now(),
                          .stall = seconds(5),
                          .buckets = std::move(buckets),
                          .totals = std::move(totals),
                          .unfit = unfit_,
                          .partitions = std::move(partitions),
                          .source = source_,
                          .records = {{"ok", 7}, {"too_long", 2}},
                          .memory = memory_,
                          .runner = runner_,
                          .cpu_block_cache = {.hits = 9, .misses = 3, .released = 1, .held_bytes = 5 << 20,
                                              .free_bytes = 2 << 20, .limit_bytes = 512 << 20},
                          .recorder = recorder_,
                          .loop = loop_});
  }

  testing::FakeClock clock_;
  pipeline::ServiceSnapshot identity_;
  Health health_;
  std::set<int> unfit_;
  consumer::SourceStats source_;
  FixedMemory memory_;
  executor::RunnerStats runner_;
  RecorderStats recorder_;
  pipeline::LoopStats loop_;
};

TEST_F(ServeSnapshotTest, TheIdentityIsCopiedAndTheUptimeIsInSeconds) {
  const pipeline::ServiceSnapshot s = Build();
  EXPECT_EQ(s.version, "1.2.3");
  EXPECT_EQ(s.libtorch, "2.5.0");
  EXPECT_EQ(s.model, "tiny");
  EXPECT_EQ(s.model_digest, "sha256:abc");
  EXPECT_EQ(s.device, "cpu-budget:1GiB");
  EXPECT_EQ(s.fallback_device, "cpu");
  EXPECT_EQ(s.intra_op_threads, 4);
  EXPECT_EQ(s.inter_op_threads, 2);
  EXPECT_DOUBLE_EQ(s.uptime_seconds, 2.5);
}

TEST_F(ServeSnapshotTest, EachBucketHasItsQueueItsTotalsAndWhetherItRunsAlone) {
  unfit_ = {512};
  const pipeline::ServiceSnapshot s =
      Build({{.bound = 64, .cap = 32, .queued_jobs = 3, .queued_tokens = 90, .queued_bytes = 900},
             {.bound = 128, .cap = 16},
             {.bound = 512, .cap = 1, .queued_jobs = 1, .queued_tokens = 400, .queued_bytes = 4000}},
            {{64, {.batches = 5, .jobs = 40, .real_tokens = 1000, .padded_tokens = 1280}},
             {512, {.batches = 1, .jobs = 1, .real_tokens = 450, .padded_tokens = 512}}});
  ASSERT_EQ(s.buckets.size(), 3u);
  const pipeline::BucketSnapshot& a = s.buckets[0];
  EXPECT_EQ(a.bound, 64);
  EXPECT_EQ(a.cap, 32);
  EXPECT_FALSE(a.unfit);
  EXPECT_EQ(a.queued_jobs, 3u);
  EXPECT_EQ(a.queued_bytes, 900u);
  EXPECT_EQ(a.batches, 5u);
  EXPECT_EQ(a.jobs, 40u);
  EXPECT_EQ(a.real_tokens, 1000u);
  EXPECT_EQ(a.padded_tokens, 1280u);
  const pipeline::BucketSnapshot& b = s.buckets[1];
  EXPECT_EQ(b.bound, 128);
  EXPECT_EQ(b.batches, 0u) << "no totals: no batch yet";
  EXPECT_EQ(b.padded_tokens, 0u);
  EXPECT_TRUE(s.buckets[2].unfit);
  EXPECT_EQ(s.buckets[2].batches, 1u);
}

TEST_F(ServeSnapshotTest, TheConsumersFiguresAndPartitionsAreCopied) {
  const pipeline::ServiceSnapshot s =
      Build({}, {},
            {{.partition = 0, .committed_offset = 17, .low_watermark = 3, .high_watermark = 20, .lag = 3},
             {.partition = 1, .committed_offset = std::nullopt, .high_watermark = 9, .lag = 9}});
  ASSERT_EQ(s.partitions.size(), 2u);
  EXPECT_EQ(s.partitions[0].partition, 0);
  EXPECT_EQ(s.partitions[0].committed_offset, 17);
  EXPECT_EQ(s.partitions[0].lag, 3);
  EXPECT_EQ(s.partitions[0].high_watermark, 20);
  EXPECT_EQ(s.partitions[1].committed_offset, std::nullopt) << "nothing committed yet";
  EXPECT_EQ(s.partitions[1].lag, 9);
  EXPECT_EQ(s.assigned_partitions, 2);
  EXPECT_TRUE(s.paused);
  EXPECT_EQ(s.messages, 11u);
  EXPECT_EQ(s.rejected, 12u);
  EXPECT_EQ(s.replays, 13u);
  EXPECT_EQ(s.pauses, 14u);
  EXPECT_EQ(s.records, (std::map<std::string, uint64_t>{{"ok", 7}, {"too_long", 2}}));
}

TEST_F(ServeSnapshotTest, MemoryTheLadderAndTheDegradedModesAreReportedByName) {
  const pipeline::ServiceSnapshot s = Build();
  EXPECT_EQ(s.memory_allocated, 100u);
  EXPECT_EQ(s.memory_reserved, 200u);
  EXPECT_EQ(s.memory_peak, 300u);
  EXPECT_EQ(s.memory_budget, 1000u);
  EXPECT_EQ(
      s.ladder,
      (std::map<std::string, uint64_t>{
          {"oom", 21}, {"split", 22}, {"cap_lowered", 23}, {"fallback", 24}, {"failed", 25}, {"device_override", 26}}));
  EXPECT_EQ(s.degraded, (std::map<std::string, uint64_t>{{"store_errors", 31},
                                                         {"publish_retries", 32},
                                                         {"undeliverable_permanent", 33},
                                                         {"undeliverable_exhausted", 34},
                                                         {"dead_letter_notices", 35},
                                                         {"crash_isolated", 41},
                                                         {"abandoned", 42}}));
  EXPECT_EQ(s.cpu_block_cache, (std::map<std::string, uint64_t>{{"held_bytes", 5 << 20},
                                                                {"free_bytes", 2 << 20},
                                                                {"limit_bytes", 512 << 20},
                                                                {"hits", 9},
                                                                {"misses", 3},
                                                                {"released", 1}}));
}

TEST_F(ServeSnapshotTest, ReadinessFollowsStartUpAndTheAssignedPartitions) {
  pipeline::ServiceSnapshot s = Build();
  EXPECT_FALSE(s.ready);
  EXPECT_EQ(s.readiness, "not ready: starting (loading the model, memory plan)");
  EXPECT_TRUE(s.live);
  EXPECT_EQ(s.liveness, "ok");
  health_.SetStarted();
  s = Build();
  EXPECT_TRUE(s.ready);
  EXPECT_EQ(s.readiness, "ready");
  source_.assigned_partitions = 0;
  s = Build();
  EXPECT_FALSE(s.ready);
  EXPECT_EQ(s.readiness, "not ready: no partitions assigned");
}

TEST_F(ServeSnapshotTest, AStalledExecutorIsNotLiveAndItsHeartbeatAgeShows) {
  health_.SetStarted();
  clock_.Advance(seconds(7));
  const pipeline::ServiceSnapshot s = Build();
  EXPECT_DOUBLE_EQ(s.heartbeat_age_seconds, 7.0);
  EXPECT_FALSE(s.live);
  EXPECT_NE(s.liveness.find("executor stalled"), std::string::npos) << s.liveness;
  EXPECT_NE(s.liveness.find("health.executor_stall_s = 5 s"), std::string::npos) << s.liveness;
}

TEST_F(ServeSnapshotTest, AFatalConditionNamesItsCause) {
  EXPECT_EQ(Build().fatal_cause, "");
  health_.SetStarted();
  health_.RaiseFatal(fatal_cause::kStore, "disk full");
  const pipeline::ServiceSnapshot s = Build();
  EXPECT_EQ(s.fatal_cause, "store");
  EXPECT_FALSE(s.ready);
  EXPECT_EQ(s.readiness, "not ready: fatal: store");
  EXPECT_FALSE(s.live);
}

}  // namespace
}  // namespace qinfer::app
