// The /status and /metrics snapshot, built from the modules' stats alone:
// no Kafka, torch or model (the test links no torch).
#include "serve_snapshot.h"

#include <gtest/gtest.h>


#include <prometheus/registry.h>

#include <algorithm>
#include <fstream>
#include <prometheus/text_serializer.h>
#include <set>

#include "fakes/fake_clock.h"
#include "qinfer/pipeline/service_metrics.h"

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
    store_.store_errors_attempts = 31;
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
                          .decode = decode_,
                          .records = {{"ok", 7}, {"too_long", 2}},
                          .memory = memory_,
                          .runner = runner_,
                          .cpu_block_cache = {.hits = 9, .misses = 3, .released = 1, .held_bytes = 5 << 20,
                                              .free_bytes = 2 << 20, .limit_bytes = 512 << 20},
                          .recorder = recorder_,
                          .store = store_,
                          .loop = loop_});
  }

  // Every family /metrics exports, each with a series: a bucket with a
  // batch, a partition with a commit, a precision probe of each kind, MKL's
  // kernel path, a pool's worker.
  std::vector<prometheus::MetricFamily> ScrapeEveryFamily() {
    prometheus::Registry registry;
    pipeline::ServiceMetrics metrics(registry, ServiceStatGroups());
    decode_.workers = 1;
    identity_.precision_dtype = "bfloat16";
    identity_.mkl_dispatch = "isa";
    identity_.mkl_kernel_path = 7;
    const pipeline::ServiceSnapshot s =
        Build({{.bound = 64, .cap = 32, .queued_jobs = 3, .queued_tokens = 90, .queued_bytes = 900}}, {},
              {{.partition = 0, .committed_offset = 17, .low_watermark = 0, .high_watermark = 20, .lag = 3}});
    metrics.SetIdentity(s);
    pipeline::ServiceSnapshot scored = s;  // a classify model's probe: its own gauge
    scored.precision_scores = true;
    metrics.SetIdentity(scored);
    metrics.Update(s);
    pipeline::RecordedBatch batch;
    batch.bucket = 64;
    batch.jobs = 1;
    metrics.OnBatchRecorded(batch);
    return registry.Collect();
  }

  testing::FakeClock clock_;
  pipeline::ServiceSnapshot identity_;
  Health health_;
  std::set<int> unfit_;
  consumer::SourceStats source_;
  consumer::DecodeStats decode_;
  FixedMemory memory_;
  executor::RunnerStats runner_;
  RecorderStats recorder_;
  StoreWriteStats store_;
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
  EXPECT_EQ(s.stats.at("consumer"),
            (std::map<std::string, uint64_t>{
                {"messages", 11},
                {"rejected", 12},
                {"replays", 13},
                {"pauses", 14},
                {"full_waits", 0},
                {"refused", 0},
                {"offset_stores", 0},
                {"offset_store_ns", 0}}));
  EXPECT_EQ(s.records, (std::map<std::string, uint64_t>{{"ok", 7}, {"too_long", 2}}));
}

// Each worker of the tokenizer pool has its own busy time, and only the
// pool's workers are reported.
TEST_F(ServeSnapshotTest, EachTokenizerWorkerReportsItsBusyTime) {
  EXPECT_TRUE(Build().decode_worker_busy_ns.empty()) << "no pool, no worker";
  decode_.workers = 2;
  decode_.worker_busy_ns[0] = 3'000'000'000;
  decode_.worker_busy_ns[1] = 500'000'000;
  decode_.worker_busy_ns[2] = 7;  // not a worker of this pool
  EXPECT_EQ(Build().decode_worker_busy_ns, (std::vector<uint64_t>{3'000'000'000, 500'000'000}));
  EXPECT_NE(pipeline::SnapshotToJson(Build()).find("\"decode_worker_busy_seconds\":[3.0,0.5]"), std::string::npos)
      << pipeline::SnapshotToJson(Build());
}

TEST_F(ServeSnapshotTest, MemoryTheLadderAndTheDegradedModesAreReportedByName) {
  const pipeline::ServiceSnapshot s = Build();
  EXPECT_EQ(s.memory_allocated, 100u);
  EXPECT_EQ(s.memory_reserved, 200u);
  EXPECT_EQ(s.memory_peak, 300u);
  EXPECT_EQ(s.memory_budget, 1000u);
  EXPECT_EQ(s.stats.at("runner"), (std::map<std::string, uint64_t>{{"oom_events", 21},
                                                                    {"splits", 22},
                                                                    {"cap_lowerings", 23},
                                                                    {"fallback_runs", 24},
                                                                    {"oom_failures", 25},
                                                                    {"model_errors", 0},
                                                                    {"override_runs", 26}}));
  EXPECT_EQ(s.stats.at("recorder"), (std::map<std::string, uint64_t>{{"stored", 0},
                                                                      {"published", 0},
                                                                      {"acked", 0},
                                                                      {"publish_retries", 32},
                                                                      {"undeliverable_permanent", 33},
                                                                      {"undeliverable_exhausted", 34},
                                                                      {"dead_letter_notices", 35},
                                                                      {"ack_ns", 0}}));
  EXPECT_EQ(s.stats.at("store"), (std::map<std::string, uint64_t>{
                                    {"store_errors_results", 0}, {"store_errors_attempts", 31}, {"store_errors_plan", 0}}));
  EXPECT_EQ(s.stats.at("loop"), (std::map<std::string, uint64_t>{{"batches", 0},
                                                                  {"jobs_run", 0},
                                                                  {"suspects_run_alone", 0},
                                                                  {"crash_isolated", 41},
                                                                  {"abandoned", 42}}));
  EXPECT_EQ(s.cpu_block_cache, (std::map<std::string, uint64_t>{{"held_bytes", 5 << 20},
                                                                {"free_bytes", 2 << 20},
                                                                {"limit_bytes", 512 << 20},
                                                                {"hits", 9},
                                                                {"misses", 3},
                                                                {"released", 1}}));
}

// Every counter a component declares (core/stats.h) reaches /status under its
// name and /metrics as its family and label, with its own value.
TEST_F(ServeSnapshotTest, EveryDeclaredCounterReachesStatusAndMetrics) {
  auto counter = [this](const std::string& component, const char* name) -> std::atomic<uint64_t>* {
    if (component == "consumer") return source_.Find(name);
    if (component == "decode") return decode_.Find(name);
    if (component == "recorder") return recorder_.Find(name);
    if (component == "store") return store_.Find(name);
    if (component == "loop") return loop_.Find(name);
    if (component == "runner") return runner_.Find(name);
    return nullptr;
  };
  uint64_t value = 1000;
  size_t declared = 0;
  for (const StatGroup& group : ServiceStatGroups()) {
    for (const StatDef& def : group.defs) {
      std::atomic<uint64_t>* c = counter(group.component, def.name);
      ASSERT_NE(c, nullptr) << group.component << "." << def.name << ": the group has no such counter";
      c->store(++value);
      ++declared;
    }
  }
  EXPECT_GE(declared, 25u);
  const pipeline::ServiceSnapshot s = Build();
  const std::string status = pipeline::SnapshotToJson(s);
  prometheus::Registry registry;
  pipeline::ServiceMetrics metrics(registry, ServiceStatGroups());
  metrics.Update(s);
  const std::string scrape = prometheus::TextSerializer().Serialize(registry.Collect());
  value = 1000;
  for (const StatGroup& group : ServiceStatGroups()) {
    for (const StatDef& def : group.defs) {
      const uint64_t want = ++value;
      EXPECT_EQ(s.stats.at(group.component).at(def.name), want) << group.component << "." << def.name;
      EXPECT_NE(status.find("\"" + std::string(def.name) + "\":" + std::to_string(want)), std::string::npos)
          << def.name << " missing from /status: " << status;
      std::string series = def.metric;
      if (const std::string label = def.label; !label.empty()) {
        const size_t eq = label.find('=');
        series += "{" + label.substr(0, eq) + "=\"" + label.substr(eq + 1) + "\"}";
      }
      // A count of nanoseconds is exported in seconds (core/stats.h).
      const double exported = std::string_view(def.name).ends_with("_ns") ? double(want) * 1e-9 : double(want);
      const size_t at = scrape.find("\n" + series + " ");
      ASSERT_NE(at, std::string::npos) << series << " missing from /metrics:\n" << scrape;
      EXPECT_DOUBLE_EQ(std::stod(scrape.substr(at + series.size() + 2)), exported) << series;
      EXPECT_NE(scrape.find("# HELP " + std::string(def.metric) + " "), std::string::npos) << def.metric;
    }
  }
}

// The metric tables of docs/operations/metrics.md ("Counters:", "Gauges:",
// "Histograms" under "## Metrics"): each family by name and type.
std::map<std::string, std::string> DocumentedMetrics() {
  std::ifstream in(QINFER_OPERATIONS_MD);
  std::map<std::string, std::string> documented;
  std::string line, type;
  bool in_metrics = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_metrics = line == "## Metrics";
    if (!in_metrics) continue;
    if (line.rfind("Counters", 0) == 0) type = "counter";
    if (line.rfind("Gauges", 0) == 0) type = "gauge";
    if (line.rfind("Histograms", 0) == 0) type = "histogram";
    if (line.rfind("| `", 0) != 0) continue;
    const size_t end = line.find_first_of("{`", 3);
    documented[line.substr(3, end - 3)] = type;
  }
  return documented;
}

// A metric the service exports is in the operator's tables, and the tables
// name no metric that is not exported, each with its type.
TEST_F(ServeSnapshotTest, TheDocumentedMetricsAreExactlyTheExportedOnes) {
  std::map<std::string, std::string> exported;
  for (const prometheus::MetricFamily& family : ScrapeEveryFamily()) {
    const char* type = family.type == prometheus::MetricType::Counter     ? "counter"
                       : family.type == prometheus::MetricType::Gauge     ? "gauge"
                       : family.type == prometheus::MetricType::Histogram ? "histogram"
                                                                           : "other";
    exported[family.name] = type;
  }
  const std::map<std::string, std::string> documented = DocumentedMetrics();
  ASSERT_GE(documented.size(), 20u) << "the tables were not found in " << QINFER_OPERATIONS_MD;
  for (const auto& [name, type] : exported) {
    auto it = documented.find(name);
    EXPECT_TRUE(it != documented.end()) << name << " (" << type << ") is exported but not in docs/operations/metrics.md";
    if (it != documented.end()) {
      EXPECT_EQ(it->second, type) << name << ": listed under the wrong table";
    }
  }
  for (const auto& [name, type] : documented) {
    EXPECT_TRUE(exported.contains(name)) << name << " is in docs/operations/metrics.md but not exported";
  }
}

// /metrics exports exactly the declared families (core/stats.h): the
// service's list (QINFER_SERVICE_METRICS) and the components' counters, each
// with its declared type, help and label keys; no family is registered by
// hand beside them.
TEST_F(ServeSnapshotTest, MetricsExportsExactlyTheDeclaredFamiliesWithTheirTypeHelpAndLabels) {
  struct Family {
    MetricType type;
    std::string help;
    std::set<std::string> labels;
    bool operator==(const Family&) const = default;
  };
  auto keys = [](std::string_view list) {  // "a,b"
    std::set<std::string> out;
    while (!list.empty()) {
      const size_t comma = std::min(list.find(','), list.size());
      out.emplace(list.substr(0, comma));
      list.remove_prefix(std::min(comma + 1, list.size()));
    }
    return out;
  };
  std::map<std::string, Family> declared;
  for (const MetricDef& def : pipeline::kServiceMetricDefs) {
    ASSERT_TRUE(declared.emplace(def.metric, Family{def.type, def.help, keys(def.labels)}).second)
        << def.metric << " is declared twice";
  }
  for (const StatGroup& group : ServiceStatGroups()) {
    for (const StatDef& def : group.defs) {
      auto [it, first] = declared.try_emplace(def.metric, Family{MetricType::kCounter, def.help, {}});
      ASSERT_TRUE(first || it->second.type == MetricType::kCounter) << def.metric << " is declared twice";
      const std::string_view label = def.label;
      if (!label.empty()) it->second.labels.emplace(label.substr(0, label.find('=')));
    }
  }
  std::map<std::string, Family> exported;
  for (const prometheus::MetricFamily& family : ScrapeEveryFamily()) {
    Family& f = exported[family.name];
    f.type = family.type == prometheus::MetricType::Counter ? MetricType::kCounter
             : family.type == prometheus::MetricType::Gauge ? MetricType::kGauge
                                                             : MetricType::kHistogram;
    ASSERT_TRUE(family.type != prometheus::MetricType::Summary && family.type != prometheus::MetricType::Untyped)
        << family.name;
    f.help = family.help;
    for (const prometheus::ClientMetric& m : family.metric) {
      for (const prometheus::ClientMetric::Label& l : m.label) f.labels.insert(l.name);
    }
  }
  EXPECT_GE(declared.size(), 50u);
  for (const auto& [name, family] : declared) {
    auto it = exported.find(name);
    ASSERT_TRUE(it != exported.end()) << name << " is declared but not exported";
    EXPECT_EQ(int(it->second.type), int(family.type)) << name;
    EXPECT_EQ(it->second.help, family.help) << name;
    EXPECT_EQ(it->second.labels, family.labels) << name;
  }
  for (const auto& [name, family] : exported) {
    EXPECT_TRUE(declared.contains(name)) << name << " is exported but declared in no list";
  }
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
