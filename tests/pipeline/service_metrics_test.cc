// The metrics an instance exports, read back through prometheus-cpp's text
// serializer (what a scrape sees), and the status snapshot's JSON and table.
#include "qinfer/pipeline/service_metrics.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <prometheus/text_serializer.h>

#include <chrono>
#include <sstream>

#include "fakes/fake_sinks.h"
#include "qinfer/core/health.h"
#include "qinfer/core/recorder.h"
#include "qinfer/pipeline/service_snapshot.h"

namespace qinfer::pipeline {
namespace {

std::string Scrape(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

bool HasLine(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

// The value of the sample whose name and labels are `series`; -1 if none.
double Sample(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

Outcome Record(std::string id, bool ok, std::string reason = "") {
  Outcome o;
  o.id = std::move(id);
  o.ok = ok;
  o.reason = std::move(reason);
  return o;
}

// A component's counters as every component declares them (core/stats.h):
// one unlabelled family and one family of two labelled counters.
#define TEST_WIDGET_STATS(STAT)                                        \
  STAT(frames, "qinfer_test_frames_total", "", "Frames seen")          \
  STAT(drops_late, "qinfer_test_drops_total", "why=late", "Drops by why") \
  STAT(drops_bad, "qinfer_test_drops_total", "why=bad", "")

struct WidgetStats {
  QINFER_DECLARE_STATS(TEST_WIDGET_STATS)
};

const StatGroup kGroups[] = {
    {"widget", WidgetStats::kDefs}, {"recorder", RecorderStats::kDefs}, {"store", StoreWriteStats::kDefs}};

ServiceSnapshot Snapshot() {
  ServiceSnapshot s;
  s.version = "0.5.0";
  s.libtorch = "2.8.0";
  s.model = "tiny";
  s.model_digest = "sha256:abc";
  s.device = "cpu-budget:1GiB";
  s.fallback_device = "cpu";
  s.intra_op_threads = 2;
  s.inter_op_threads = 1;
  s.uptime_seconds = 75;
  s.ready = true;
  s.readiness = "ready";
  s.live = true;
  s.liveness = "ok";
  BucketSnapshot b16;
  b16.bound = 16;
  b16.cap = 64;
  b16.queued_jobs = 3;
  b16.queued_bytes = 300;
  b16.batches = 10;
  b16.jobs = 500;
  b16.real_tokens = 900;
  b16.padded_tokens = 1000;
  BucketSnapshot b512;
  b512.bound = 512;
  b512.cap = 2;
  b512.unfit = true;
  s.buckets = {b16, b512};
  s.partitions = {{0, 90, 10}, {1, 50, 0}};
  s.assigned_partitions = 2;
  s.decode_worker_busy_ns = {1'500'000'000, 250'000'000};
  s.records = {{"ok", 500}, {"too_long", 10}};
  s.memory_allocated = 1 << 20;
  s.memory_peak = 3 << 20;
  s.memory_budget = 1 << 30;
  s.stats["widget"] = {{"frames", 510}, {"drops_late", 4}, {"drops_bad", 0}};
  s.stats["recorder"] = {{"publish_retries", 5}, {"undeliverable_permanent", 1}};
  s.stats["store"] = {{"store_errors_results", 0}, {"store_errors_attempts", 2}};
  return s;
}

TEST(ServiceMetricsTest, EveryFixedSeriesIsExportedFromZeroBeforeTheFirstEvent) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  const std::string text = Scrape(registry);
  for (const char* line : {
           "qinfer_outcomes_total{reason=\"\",status=\"ok\"} 0",
           "qinfer_outcomes_total{reason=\"invalid\",status=\"failed\"} 0",
           "qinfer_outcomes_total{reason=\"too_long\",status=\"failed\"} 0",
           "qinfer_outcomes_total{reason=\"oom\",status=\"failed\"} 0",
           "qinfer_outcomes_total{reason=\"model_error\",status=\"failed\"} 0",
           "qinfer_outcomes_total{reason=\"crash\",status=\"failed\"} 0",
           "qinfer_test_frames_total 0",
           "qinfer_test_drops_total{why=\"late\"} 0",
           "qinfer_test_drops_total{why=\"bad\"} 0",
           "qinfer_undeliverable_total{class=\"permanent\"} 0",
           "qinfer_store_errors_total{write=\"results\"} 0",
           "qinfer_store_errors_total{write=\"attempts\"} 0",
           "qinfer_store_errors_total{write=\"plan\"} 0",
           "qinfer_fatal{cause=\"store\"} 0",
           "qinfer_ready 0",
           "qinfer_job_latency_seconds_count 0",
           "qinfer_store_write_seconds_count 0",
       }) {
    EXPECT_TRUE(HasLine(text, line)) << line << " missing from:\n" << text;
  }
}

// The value of an unlabelled sample in a scrape, or -1.
double SampleValue(const std::string& text, const std::string& name) {
  const size_t at = text.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + name.size() + 2));
}

// Grafana's uptime panel is time() - process_start_time_seconds: it must
// hold the real start of the process from the first scrape, before any
// snapshot (during start-up), not 0 until the model has loaded.
// A family of several counters takes its help from the first (core/stats.h).
TEST(ServiceMetricsTest, AComponentsCountersShareAFamilyWithTheFirstOnesHelp) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  const std::string text = Scrape(registry);
  EXPECT_TRUE(HasLine(text, "# HELP qinfer_test_drops_total Drops by why")) << text;
  EXPECT_TRUE(HasLine(text, "# HELP qinfer_test_frames_total Frames seen")) << text;
  EXPECT_EQ(text.find("# HELP qinfer_test_drops_total\n"), std::string::npos) << text;
}

TEST(ServiceMetricsTest, ProcessStartTimeIsTheRealStartFromTheFirstScrape) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  const std::string text = Scrape(registry);
  const double start = SampleValue(text, "process_start_time_seconds");
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  // This test process started at most a few minutes ago (the clock tick and
  // btime's whole seconds allow a little either way).
  EXPECT_GT(start, now - 600) << text;
  EXPECT_LT(start, now + 2) << text;
  EXPECT_GT(SampleValue(text, "process_resident_memory_bytes"), 0) << text;
}

TEST(ServiceMetricsTest, RecordsAreCountedWhenDurableByStatusAndReasonIncludingTheConsumers) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  std::vector<Outcome> batch = {Record("a", true), Record("b", true), Record("c", false, "oom")};
  metrics.OnStored(batch, std::chrono::milliseconds(3));
  std::vector<Outcome> rejected = {Record("d", false, "invalid")};
  metrics.OnStored(rejected, std::chrono::milliseconds(1));
  const std::string text = Scrape(registry);
  EXPECT_TRUE(HasLine(text, "qinfer_outcomes_total{reason=\"\",status=\"ok\"} 2")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_outcomes_total{reason=\"oom\",status=\"failed\"} 1")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_outcomes_total{reason=\"invalid\",status=\"failed\"} 1")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_store_write_seconds_count 2")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_store_write_seconds_sum 0.004")) << text;
  EXPECT_EQ(metrics.records(), (std::map<std::string, uint64_t>{{"ok", 2}, {"oom", 1}, {"invalid", 1}}));
}

// Through the recorder's real path (one store write, then OnStored): a
// write holding several records of one reason counts each of them, so the
// counters equal the store's counts.
TEST(ServiceMetricsTest, AWriteOfSeveralRecordsOfOneReasonCountsEachAsTheStoreHoldsThem) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  testing::EventLog log;
  testing::RecordingStore store(log);
  testing::RecordingAcks acks(log);
  Health health;
  StoreWrites writes(health, {});
  OutcomeRecorder recorder(store, /*publisher=*/nullptr, acks, writes, health,
                           OutcomeRecorder::Options{.observer = &metrics});
  std::vector<Outcome> write;
  for (int i = 0; i < 3; ++i) write.push_back(Record("long-" + std::to_string(i), false, "too_long"));
  for (int i = 0; i < 4; ++i) write.push_back(Record("bad-" + std::to_string(i), false, "invalid"));
  for (int i = 0; i < 2; ++i) write.push_back(Record("ok-" + std::to_string(i), true));
  ASSERT_TRUE(recorder.Record(write).ok());
  ASSERT_TRUE(recorder.Record({Record("long-3", false, "too_long"), Record("long-4", false, "too_long")}).ok());
  ASSERT_EQ(log.events().front(), "put:long-0");

  std::map<std::string, uint64_t> in_store;
  for (const Outcome& o : store.stored) in_store[o.ok ? "ok" : o.reason]++;
  ASSERT_EQ(in_store, (std::map<std::string, uint64_t>{{"ok", 2}, {"too_long", 5}, {"invalid", 4}}));
  const std::string text = Scrape(registry);
  EXPECT_EQ(Sample(text, "qinfer_outcomes_total{reason=\"\",status=\"ok\"}"), in_store["ok"]) << text;
  EXPECT_EQ(Sample(text, "qinfer_outcomes_total{reason=\"too_long\",status=\"failed\"}"), in_store["too_long"]) << text;
  EXPECT_EQ(Sample(text, "qinfer_outcomes_total{reason=\"invalid\",status=\"failed\"}"), in_store["invalid"]) << text;
  EXPECT_EQ(metrics.records(), in_store) << "what /status reports";
}

// The run's time by stage, as the summary line reports it: summed over
// buckets and writes.
TEST(ServiceMetricsTest, StagesSumTheForwardPassesStoreWritesAndLatencies) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  for (int bucket : {16, 64}) {
    RecordedBatch b;
    b.bucket = bucket;
    b.jobs = 2;
    b.run_time = std::chrono::milliseconds(bucket);
    b.latencies = {std::chrono::milliseconds(100), std::chrono::milliseconds(300)};
    metrics.OnBatchRecorded(b);
  }
  std::vector<Outcome> two = {Record("a", true), Record("b", true)};
  metrics.OnStored(two, std::chrono::milliseconds(5));
  metrics.OnStored(two, std::chrono::milliseconds(7));
  const ServiceMetrics::StageSeconds s = metrics.Stages();
  EXPECT_NEAR(s.inference, 0.080, 1e-9);
  EXPECT_NEAR(s.store_write, 0.012, 1e-9);
  EXPECT_EQ(s.store_writes, 2u);
  EXPECT_NEAR(s.job_latency, 0.8, 1e-9);
}

TEST(ServiceMetricsTest, ABatchFeedsTheBatchSizeInferenceAndLatencyHistograms) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  RecordedBatch b;
  b.bucket = 32;
  b.jobs = 5;
  b.real_tokens = 100;
  b.padded_tokens = 160;
  b.run_time = std::chrono::milliseconds(20);
  b.latencies = {std::chrono::milliseconds(30), std::chrono::milliseconds(600)};
  metrics.OnBatchRecorded(b);
  const std::string text = Scrape(registry);
  EXPECT_TRUE(HasLine(text, "qinfer_batches_total{bucket=\"32\"} 1")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_tokens_total{bucket=\"32\",kind=\"padded\"} 160")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_batch_size_bucket{bucket=\"32\",le=\"4\"} 0")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_batch_size_bucket{bucket=\"32\",le=\"8\"} 1")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_inference_seconds_sum{bucket=\"32\"} 0.02")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_job_latency_seconds_count 2")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_job_latency_seconds_bucket{le=\"0.05\"} 1")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_job_latency_seconds_bucket{le=\"1\"} 2")) << text;
}

TEST(ServiceMetricsTest, ABatchOfLatenciesCountsAsEachObservedAloneAndBucketsAccumulate) {
  // The latencies of a batch go into the histogram in one update: the same
  // buckets (upper bounds inclusive) and sum as one Observe per job.
  prometheus::Registry batched_registry;
  ServiceMetrics batched(batched_registry);
  prometheus::Registry reference_registry;
  auto& reference = prometheus::BuildHistogram()
                        .Name("qinfer_job_latency_seconds")
                        .Help("reference")
                        .Register(reference_registry)
                        .Add({}, prometheus::Histogram::BucketBoundaries{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                                         0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120});
  const std::vector<std::chrono::nanoseconds> latencies = {std::chrono::microseconds(500), std::chrono::milliseconds(1),
                                                           std::chrono::milliseconds(3), std::chrono::milliseconds(50),
                                                           std::chrono::seconds(200)};
  RecordedBatch b;
  b.bucket = 16;
  b.jobs = latencies.size();
  b.latencies = latencies;
  batched.OnBatchRecorded(b);
  batched.OnBatchRecorded(b);
  for (int round = 0; round < 2; ++round) {
    for (auto latency : latencies) {
      reference.Observe(std::chrono::duration<double>(latency).count());
    }
  }
  auto latency_lines = [](const std::string& text) {
    std::string lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("qinfer_job_latency_seconds_", 0) == 0) lines += line + "\n";
    }
    return lines;
  };
  const std::string got = latency_lines(Scrape(batched_registry));
  EXPECT_FALSE(got.empty());
  EXPECT_EQ(got, latency_lines(Scrape(reference_registry)));
  EXPECT_TRUE(HasLine(Scrape(batched_registry), "qinfer_batches_total{bucket=\"16\"} 2"))
      << "the bucket's series, looked up once, count both batches";
}

TEST(ServiceMetricsTest, ASnapshotSetsQueuesCapsLagMemoryAndTotalsWithoutCountingTwice) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  ServiceSnapshot s = Snapshot();
  metrics.SetIdentity(s);
  metrics.Update(s);
  metrics.Update(s);  // a second scrape of the same totals adds nothing
  const std::string text = Scrape(registry);
  for (const char* line : {
           "qinfer_queued_jobs{bucket=\"16\"} 3",
           "qinfer_queued_bytes{bucket=\"16\"} 300",
           "qinfer_batch_cap{bucket=\"512\"} 2",
           "qinfer_padding_efficiency{bucket=\"16\"} 0.9",
           "qinfer_consumer_lag{partition=\"0\"} 10",
           "qinfer_consumer_lag{partition=\"1\"} 0",
           "qinfer_committed_offset{partition=\"0\"} 90",
           "qinfer_assigned_partitions 2",
           "qinfer_ready 1",
           "qinfer_device_memory_bytes{kind=\"budget\"} 1073741824",
           "qinfer_device_memory_bytes{kind=\"peak\"} 3145728",
           "qinfer_test_frames_total 510",
           "qinfer_test_drops_total{why=\"late\"} 4",
           "qinfer_test_drops_total{why=\"bad\"} 0",
           "qinfer_publish_retries_total 5",
           "qinfer_undeliverable_total{class=\"permanent\"} 1",
           "qinfer_build_info{device=\"cpu-budget:1GiB\",libtorch=\"2.8.0\",model=\"tiny\",model_digest=\"sha256:abc\","
           "version=\"0.5.0\"} 1",
           "qinfer_torch_threads{kind=\"intra_op\"} 2",
           "qinfer_decode_worker_busy_seconds_total{worker=\"0\"} 1.5",
           "qinfer_decode_worker_busy_seconds_total{worker=\"1\"} 0.25",
       }) {
    EXPECT_TRUE(HasLine(text, line)) << line << " missing from:\n" << text;
  }
  EXPECT_NE(text.find("\nprocess_resident_memory_bytes "), std::string::npos) << text;
  EXPECT_NE(text.find("\nprocess_open_fds "), std::string::npos) << text;
  EXPECT_EQ(text.find("\nprocess_open_fds 0\n"), std::string::npos) << "the test holds open files";
}

TEST(ServiceMetricsTest, ARevokedPartitionLeavesTheLagSeries) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  ServiceSnapshot s = Snapshot();
  metrics.Update(s);
  s.partitions = {{1, 50, 0}};
  metrics.Update(s);
  const std::string text = Scrape(registry);
  EXPECT_EQ(text.find("qinfer_consumer_lag{partition=\"0\"}"), std::string::npos) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_consumer_lag{partition=\"1\"} 0")) << text;
}

// Before its first commit a partition has no committed offset: no sample an
// alert could read as an offset (librdkafka's -1001), a 0 in
// qinfer_consumer_has_commit, and JSON null; the first commit turns both.
TEST(ServiceMetricsTest, APartitionWithNoCommitHasNoCommittedOffsetSample) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  ServiceSnapshot s = Snapshot();
  s.partitions = {{0, std::nullopt, 1500, 1500}, {1, 50, 0, 50}};
  metrics.Update(s);
  std::string text = Scrape(registry);
  EXPECT_EQ(text.find("qinfer_committed_offset{partition=\"0\"}"), std::string::npos) << text;
  for (const char* line :
       {"qinfer_consumer_has_commit{partition=\"0\"} 0", "qinfer_consumer_lag{partition=\"0\"} 1500",
        "qinfer_consumer_has_commit{partition=\"1\"} 1", "qinfer_committed_offset{partition=\"1\"} 50"}) {
    EXPECT_TRUE(HasLine(text, line)) << line << " missing from:\n" << text;
  }
  auto back = SnapshotFromJson(SnapshotToJson(s));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->partitions[0].committed_offset, std::nullopt);
  EXPECT_EQ(back->partitions[0].high_watermark, 1500);
  EXPECT_EQ(back->partitions[1].committed_offset, 50);
  EXPECT_NE(SnapshotToJson(s).find("\"committed_offset\":null"), std::string::npos) << SnapshotToJson(s);
  EXPECT_NE(FormatSnapshot(s).find("          0       none       1500     1500"), std::string::npos)
      << FormatSnapshot(s);

  s.partitions[0].committed_offset = 1500;
  s.partitions[0].lag = 0;
  metrics.Update(s);
  text = Scrape(registry);
  EXPECT_TRUE(HasLine(text, "qinfer_committed_offset{partition=\"0\"} 1500")) << text;
  EXPECT_TRUE(HasLine(text, "qinfer_consumer_has_commit{partition=\"0\"} 1")) << text;

  s.partitions = {{1, 50, 0, 50}};  // 0 revoked: none of its series stay
  metrics.Update(s);
  text = Scrape(registry);
  EXPECT_EQ(text.find("partition=\"0\""), std::string::npos) << text;
}

TEST(ServiceSnapshotTest, JsonReadsBackToTheSameSnapshot) {
  const ServiceSnapshot s = Snapshot();
  auto back = SnapshotFromJson(SnapshotToJson(s));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(SnapshotToJson(*back), SnapshotToJson(s));
  EXPECT_EQ(back->buckets.size(), 2u);
  EXPECT_EQ(back->partitions[0].lag, 10);
  EXPECT_EQ(back->decode_worker_busy_ns, s.decode_worker_busy_ns);
  EXPECT_FALSE(SnapshotFromJson("{\"version\": 1}").ok());
  EXPECT_FALSE(SnapshotFromJson("not json").ok());
}

TEST(ServiceSnapshotTest, TheTableNamesEveryBucketTheMemoryLagAndFailures) {
  const std::string table = FormatSnapshot(Snapshot());
  for (const char* part : {"qinfer 0.5.0  up 1m15s", "device  cpu-budget:1GiB  fallback cpu", "ready",
                           "      16    64        3", "     512     2", "(unfit", "0.900", "budget 1.0 GiB",
                           "partition", "too_long       10", "ok             500", "widget  drops_late 4  frames 510",
                           "recorder  publish_retries 5  undeliverable_permanent 1"}) {
    EXPECT_NE(table.find(part), std::string::npos) << "'" << part << "' missing from:\n" << table;
  }
}

// MKL's kernel path: a gauge by model.mkl_dispatch, /status's "mkl" entry
// read back, a line of the table that says when the kernels are generic;
// none of them from the JSON of an instance that did not report it.
TEST(ServiceSnapshotTest, MklsKernelPathIsExportedAndReadBack) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  ServiceSnapshot s = Snapshot();
  s.mkl_dispatch = "vendor";
  s.mkl_kernel_path = 0;
  metrics.SetIdentity(s);
  EXPECT_TRUE(HasLine(Scrape(registry), "qinfer_mkl_kernel_path{dispatch=\"vendor\"} 0")) << Scrape(registry);
  auto back = SnapshotFromJson(SnapshotToJson(s));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->mkl_dispatch, "vendor");
  EXPECT_EQ(back->mkl_kernel_path, 0);
  EXPECT_NE(FormatSnapshot(s).find("mkl     dispatch vendor  kernel path 0 (generic)"), std::string::npos)
      << FormatSnapshot(s);

  nlohmann::json older = nlohmann::json::parse(SnapshotToJson(s));
  older.erase("mkl");
  auto old_back = SnapshotFromJson(older.dump());
  ASSERT_TRUE(old_back.ok()) << old_back.status();
  EXPECT_EQ(old_back->mkl_kernel_path, -1);
  EXPECT_EQ(FormatSnapshot(*old_back).find("mkl "), std::string::npos);
}

// The start-up precision probe's figures: a gauge by dtype, /status's
// "precision" entry read back, a line of the table; none of them without a
// probe (float32).
TEST(ServiceSnapshotTest, ThePrecisionProbeIsExportedOnlyWhenItRan) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  ServiceSnapshot s = Snapshot();
  metrics.SetIdentity(s);
  EXPECT_EQ(Scrape(registry).find("qinfer_precision_min_cosine{"), std::string::npos);
  EXPECT_EQ(SnapshotToJson(s).find("\"precision\""), std::string::npos);
  EXPECT_EQ(FormatSnapshot(s).find("precision"), std::string::npos);

  s.precision_dtype = "bfloat16";
  s.precision_min_cosine = 0.99995;
  s.precision_rows = 12;
  s.precision_floor = 0.999;
  metrics.SetIdentity(s);
  EXPECT_DOUBLE_EQ(Sample(Scrape(registry), "qinfer_precision_min_cosine{dtype=\"bfloat16\"}"), 0.99995);
  auto back = SnapshotFromJson(SnapshotToJson(s));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->precision_dtype, "bfloat16");
  EXPECT_DOUBLE_EQ(back->precision_min_cosine, 0.99995);
  EXPECT_EQ(back->precision_rows, 12);
  EXPECT_DOUBLE_EQ(back->precision_floor, 0.999);
  const std::string table = FormatSnapshot(s);
  EXPECT_NE(table.find("precision  bfloat16  min cosine 0.999950 to float32 over 12 probe rows (floor 0.999)"),
            std::string::npos)
      << table;

  // A scored task's probe: its score difference, labels changed and bound.
  prometheus::Registry scored_registry;
  ServiceMetrics scored_metrics(scored_registry, kGroups);
  s.precision_scores = true;
  s.precision_max_score_diff = 0.0031;
  s.precision_label_changes = 0;
  s.precision_bound = 0.01;
  scored_metrics.SetIdentity(s);
  const std::string scrape = Scrape(scored_registry);
  EXPECT_DOUBLE_EQ(Sample(scrape, "qinfer_precision_max_score_diff{dtype=\"bfloat16\"}"), 0.0031);
  EXPECT_EQ(scrape.find("qinfer_precision_min_cosine{"), std::string::npos) << "no cosine was measured";
  auto scored = SnapshotFromJson(SnapshotToJson(s));
  ASSERT_TRUE(scored.ok()) << scored.status();
  EXPECT_TRUE(scored->precision_scores);
  EXPECT_DOUBLE_EQ(scored->precision_max_score_diff, 0.0031);
  EXPECT_EQ(scored->precision_label_changes, 0);
  EXPECT_DOUBLE_EQ(scored->precision_bound, 0.01);
  EXPECT_EQ(SnapshotToJson(s).find("min_cosine"), std::string::npos);
  const std::string scored_table = FormatSnapshot(s);
  EXPECT_NE(scored_table.find("precision  bfloat16  scores within 0.003100 of float32's, 0 top labels changed, "
                              "over 12 probe rows (bound 0.01)"),
            std::string::npos)
      << scored_table;
}

// The CPU allocator's large-block cache: bytes by kind and blocks by
// result, /status's "cpu_block_cache" read back, a line of the table.
TEST(ServiceSnapshotTest, TheCpuBlockCacheIsExportedReadBackAndShown) {
  prometheus::Registry registry;
  ServiceMetrics metrics(registry, kGroups);
  ServiceSnapshot s = Snapshot();
  s.cpu_block_cache = {{"held_bytes", 5 << 20}, {"free_bytes", 2 << 20}, {"limit_bytes", 512 << 20},
                       {"hits", 9},             {"misses", 3},           {"released", 1}};
  metrics.Update(s);
  const std::string text = Scrape(registry);
  EXPECT_DOUBLE_EQ(Sample(text, "qinfer_cpu_block_cache_bytes{kind=\"held\"}"), double(5 << 20)) << text;
  EXPECT_DOUBLE_EQ(Sample(text, "qinfer_cpu_block_cache_bytes{kind=\"limit\"}"), double(512 << 20)) << text;
  EXPECT_DOUBLE_EQ(Sample(text, "qinfer_cpu_block_cache_blocks_total{result=\"hit\"}"), 9) << text;
  EXPECT_DOUBLE_EQ(Sample(text, "qinfer_cpu_block_cache_blocks_total{result=\"released\"}"), 1) << text;
  auto back = SnapshotFromJson(SnapshotToJson(s));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->cpu_block_cache, s.cpu_block_cache);
  const std::string table = FormatSnapshot(s);
  EXPECT_NE(table.find("cpu block cache  held 5.0 MiB (free 2.0 MiB) of 512.0 MiB  hits 9  misses 3  released 1"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace qinfer::pipeline
