// Operating an instance: the probes through start-up, a stuck executor and
// a drain; `qinfer status` against a live instance; configurations that
// must stop start-up; and a real Prometheus server scraping /metrics, with
// promtool's lint and deploy/check-deploy.sh over the same scrape.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "kafka_test_util.h"

namespace qinfer::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int64_t kVocab = 4096;
constexpr int kMaxTokens = 512;

std::string Qinfer(const std::string& args) { return std::string(QINFER_BINARY) + " --log-level warn " + args; }

// Polls `path` until its status is `status` (and its body holds `text`);
// returns the last body seen, or "" on timeout.
std::string WaitFor(httplib::Client& http, const std::string& path, int status, const std::string& text,
                    seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto res = http.Get(path); res && res->status == status && res->body.find(text) != std::string::npos) {
      return res->body;
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  return "";
}

void Touch(const std::filesystem::path& p) { std::ofstream(p) << "hold\n"; }

class OpsIntegrationTest : public BrokerTest {};

TEST_F(OpsIntegrationTest, ProbesFollowStartUpAStuckExecutorAndTheDrain) {
  CreateTopic(brokers_, topic_, 1);
  const std::filesystem::path hold = dir_ / "hold";
  Touch(hold);  // start-up waits before it loads the model
  const int port = FreePort();
  ServeProcess serve(
      dir_.string(),
      ServeYaml(brokers_, topic_, group_, store_,
                "http:\n  listen: 127.0.0.1:" + std::to_string(port) + "\nhealth:\n  executor_stall_s: 1\n"),
      WithHoldFile({}, hold));
  httplib::Client http("127.0.0.1", port);
  http.set_connection_timeout(1);

  // Starting: alive, not ready; /metrics already answers.
  EXPECT_NE(WaitFor(http, "/readyz", 503, "not ready: starting", seconds(30)), "") << serve.LogTail();
  EXPECT_EQ(WaitFor(http, "/healthz", 200, "ok", seconds(1)), "ok\n") << "start-up is not a stall";
  auto early = http.Get("/metrics");
  ASSERT_TRUE(early);
  EXPECT_EQ(Sample(early->body, "qinfer_ready"), 0) << early->body;
  // The real start of the process, not 0 until the model has loaded.
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_GT(Sample(early->body, "process_start_time_seconds"), now - 120) << early->body;

  std::filesystem::remove(hold);
  ASSERT_EQ(WaitFor(http, "/readyz", 200, "ready", seconds(120)), "ready\n") << serve.LogTail();

  // A forward pass that hangs: /healthz fails after health.executor_stall_s
  // and recovers when it returns.
  Touch(hold);
  Produce(brokers_, topic_, MakeJobs(5, kVocab, kMaxTokens, 3, "stuck-"));
  const std::string stalled = WaitFor(http, "/healthz", 503, "executor stalled", seconds(30));
  EXPECT_NE(stalled, "") << serve.LogTail();
  EXPECT_NE(stalled.find("health.executor_stall_s = 1 s"), std::string::npos) << stalled;
  std::filesystem::remove(hold);
  EXPECT_EQ(WaitFor(http, "/healthz", 200, "ok", seconds(30)), "ok\n");
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, 1, seconds(60))) << serve.LogTail();

  // Draining: not ready while queued work still runs, then a clean exit.
  Touch(hold);
  Produce(brokers_, topic_, MakeJobs(5, kVocab, kMaxTokens, 4, "drain-"));
  ASSERT_NE(WaitFor(http, "/healthz", 503, "executor stalled", seconds(30)), "") << "the executor holds a batch";
  ASSERT_EQ(::kill(serve.pid(), SIGTERM), 0);
  EXPECT_EQ(WaitFor(http, "/readyz", 503, "not ready: draining", seconds(10)), "not ready: draining\n")
      << serve.LogTail();
  std::filesystem::remove(hold);
  EXPECT_EQ(serve.Wait(seconds(60)), 0) << serve.LogTail();
  EXPECT_EQ(ReadStore(store_).size(), 10u) << "the drained batch was recorded";
}

TEST_F(OpsIntegrationTest, StatusPrintsEveryBucketOfALiveInstanceAndItsJson) {
  CreateTopic(brokers_, topic_, 2);
  Produce(brokers_, topic_, MakeJobs(200, kVocab, kMaxTokens, 8, "status-"));
  const int port = FreePort();
  const std::string address = "127.0.0.1:" + std::to_string(port);
  ServeProcess serve(dir_.string(), ServeYaml(brokers_, topic_, group_, store_, "http:\n  listen: " + address + "\n"),
                     {"--set", "kafka.consumer.statistics.interval.ms=500"});
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, 2, seconds(120))) << serve.LogTail();

  auto [json_rc, json_text] = RunCommand(Qinfer("status --json --address " + address));
  ASSERT_EQ(json_rc, 0) << json_text;
  const nlohmann::json status = nlohmann::json::parse(json_text);
  ASSERT_GE(status["buckets"].size(), 5u) << json_text;
  EXPECT_EQ(status["records"]["ok"], 200) << json_text;
  EXPECT_EQ(status["consumer"]["assigned_partitions"], 2) << json_text;

  auto [rc, table] = RunCommand(Qinfer("status --address " + address));
  ASSERT_EQ(rc, 0) << table;
  for (const auto& bucket : status["buckets"]) {
    char row[32];  // the table's bound and cap columns
    std::snprintf(row, sizeof row, "\n  %8d %5d ", bucket["bound"].get<int>(), bucket["cap"].get<int>());
    EXPECT_NE(table.find(row), std::string::npos) << "bucket " << bucket["bound"] << " missing from:\n" << table;
  }
  for (const char* part : {"model   ", "device  cpu", "memory", "records (durable, this run)", "ok             200",
                           "health  ok; ready"}) {
    EXPECT_NE(table.find(part), std::string::npos) << "'" << part << "' missing from:\n" << table;
  }
  ASSERT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();

  auto [gone_rc, gone] = RunCommand(Qinfer("status --address " + address) + " 2>&1");
  EXPECT_EQ(gone_rc, 1);
  EXPECT_NE(gone.find("qinfer status: no instance answers at " + address), std::string::npos) << gone;
}

// Each bad configuration stops start-up with exit code 2 and the message
// docs/guide/configuration.md's "Configuration errors" table documents; what may pass by itself
// (brokers that do not answer, a topic not created yet) exits 75 instead.
TEST_F(OpsIntegrationTest, BadConfigurationsStopStartUpWithTheDocumentedMessage) {
  CreateTopic(brokers_, topic_, 1);
  const std::string base = ServeYaml(brokers_, topic_, group_, store_);
  struct Case {
    const char* name;
    std::string extra;  // YAML appended to a working configuration
    std::string message;
    int code;
  };
  const Case cases[] = {
      {"unknown key", "scheduler:\n  max_batch_sise: 8\n", "unknown configuration key 'scheduler.max_batch_sise'", 2},
      {"wrong type", "scheduler:\n  max_batch_size: eight\n", "scheduler.max_batch_size = 'eight': expected an integer",
       2},
      {"negative budget", "model:\n  device: cpu-budget:-1GiB\n", "device 'cpu-budget:-1GiB'", 2},
      {"unknown device", "model:\n  device: tpu:0\n", "device 'tpu:0' is not one of: cpu, cuda:N, cpu-budget:<size>",
       2},
      {"missing model file", "model:\n  path: " + (dir_ / "no-such-model.pt").string() + "\n",
       "model.path " + (dir_ / "no-such-model.pt").string() + ": no such file", 2},
      {"unknown librdkafka property, brokers unreachable",
       "kafka:\n  brokers: 127.0.0.1:1\n  consumer:\n    fetch.max.bites: 1\n", "kafka.consumer.fetch.max.bites", 2},
      {"unreachable brokers", "kafka:\n  brokers: 127.0.0.1:1\n  startup_wait_s: 2\n",
       "kafka.brokers=127.0.0.1:1: no broker answered within 2000 ms", 75},
      {"missing topic", "kafka:\n  jobs_topic: " + topic_ + "-missing\n", topic_ + "-missing", 75},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::filesystem::path file = dir_ / ("bad-" + std::to_string(n++) + ".yaml");
    std::ofstream(file) << base << c.extra;
    const auto start = std::chrono::steady_clock::now();
    auto [rc, out] = RunCommand(Qinfer("serve --config " + file.string()) + " 2>&1");
    EXPECT_EQ(rc, c.code) << c.name << ":\n" << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << c.name << ": expected '" << c.message << "' in:\n" << out;
    EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(60)) << c.name << " took too long to refuse";
  }
}

// Where `name` is on PATH, else "".
std::string Which(const std::string& name) {
  auto [rc, out] = RunCommand("command -v " + name + " 2>/dev/null");
  return rc == 0 && !out.empty() ? out.substr(0, out.find('\n')) : "";
}

// One Prometheus query's scalar result (the sum of a vector), or -1.
double Query(httplib::Client& prometheus, const std::string& promql) {
  auto res = prometheus.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
  if (!res || res->status != 200) return -1;
  const nlohmann::json j = nlohmann::json::parse(res->body, nullptr, false);
  if (j.is_discarded() || j["status"] != "success") return -1;
  const auto& result = j["data"]["result"];
  if (!result.is_array() || result.empty()) return -1;
  double sum = 0;
  for (const auto& sample : result) sum += std::stod(sample["value"][1].get<std::string>());
  return sum;
}

// qinfer's lag of partition 0 from /metrics and from /status, next to
// Kafka's own numbers.
struct ReportedPartition {
  double lag = -1;
  double committed = -1;   // -1: no qinfer_committed_offset sample
  double has_commit = -1;  // qinfer_consumer_has_commit
  nlohmann::json status;   // /status's entry for the partition
};

ReportedPartition Reported(httplib::Client& http) {
  ReportedPartition r;
  if (auto m = http.Get("/metrics"); m && m->status == 200) {
    r.lag = Sample(m->body, "qinfer_consumer_lag", "partition=\"0\"");
    r.committed = Sample(m->body, "qinfer_committed_offset", "partition=\"0\"");
    r.has_commit = Sample(m->body, "qinfer_consumer_has_commit", "partition=\"0\"");
  }
  if (auto st = http.Get("/status"); st && st->status == 200) {
    const nlohmann::json j = nlohmann::json::parse(st->body, nullptr, false);
    if (j.is_object() && j.contains("partitions")) {
      for (const auto& p : j["partitions"]) {
        if (p.value("partition", -1) == 0) r.status = p;
      }
    }
  }
  return r;
}

// Issue 20, item 3. With the executor held the queue fills and the consumer
// pauses its partition; jobs produced after that reach no fetch response, so
// librdkafka's statistics keep the high watermark of the pause. qinfer's lag
// must still be Kafka's (high watermark - committed offset) within a
// statistics interval or two, before the first commit (no committed offset:
// its own state, not -1) and after it.
TEST_F(OpsIntegrationTest, TheLagOfAPausedPartitionKeepsUpWithKafkasWatermarkAndCommit) {
  constexpr int kInterval = 500;  // statistics.interval.ms
  CreateTopic(brokers_, topic_, 1);
  const std::filesystem::path hold = dir_ / "hold";
  const int port = FreePort();
  const std::string address = "127.0.0.1:" + std::to_string(port);
  const std::vector<std::string> args =
      WithHoldFile({"--set", "kafka.consumer.statistics.interval.ms=" + std::to_string(kInterval), "--set",
                    "scheduler.max_queued_jobs=100"},
                   hold);
  ServeProcess serve(dir_.string(), ServeYaml(brokers_, topic_, group_, store_, "http:\n  listen: " + address + "\n"),
                     args);
  httplib::Client http("127.0.0.1", port);
  http.set_connection_timeout(1);
  ASSERT_EQ(WaitFor(http, "/readyz", 200, "ready", seconds(120)), "ready\n") << serve.LogTail();

  // Holds the executor, produces `early` jobs, waits for the pause, then
  // produces `late` more that only a watermark query can see.
  int round = 0;
  auto backlog_behind_a_pause = [&](int early, int late) {
    Touch(hold);
    Produce(brokers_, topic_, MakeJobs(early, kVocab, kMaxTokens, 30 + round, "early" + std::to_string(round) + "-"));
    const auto deadline = std::chrono::steady_clock::now() + seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      auto m = http.Get("/metrics");
      if (m && Sample(m->body, "qinfer_consumer_paused") == 1) break;
      std::this_thread::sleep_for(milliseconds(50));
    }
    // Two statistics documents after the pause: what they say stays put.
    std::this_thread::sleep_for(milliseconds(2 * kInterval));
    Produce(brokers_, topic_, MakeJobs(late, kVocab, kMaxTokens, 60 + round, "late" + std::to_string(round) + "-"));
    ++round;
  };
  // Waits until qinfer reports Kafka's lag (and committed offset) for
  // partition 0; returns the last report.
  auto wait_for_kafkas_numbers = [&](int64_t lag, int64_t committed) {
    const auto deadline = std::chrono::steady_clock::now() + milliseconds(4 * kInterval);
    ReportedPartition r;
    do {
      r = Reported(http);
      const bool status_agrees =
          r.status.is_object() && r.status["lag"] == lag &&
          (committed < 0 ? r.status["committed_offset"].is_null() : r.status["committed_offset"] == committed);
      if (r.lag == double(lag) && r.committed == double(committed) && status_agrees) break;
      std::this_thread::sleep_for(milliseconds(50));
    } while (std::chrono::steady_clock::now() < deadline);
    return r;
  };

  // Before the first commit.
  backlog_behind_a_pause(1000, 500);
  EXPECT_EQ(Sample(http.Get("/metrics")->body, "qinfer_consumer_paused"), 1) << serve.LogTail();
  int64_t high = EndOffsetTotal(brokers_, topic_, 1);
  int64_t committed = CommittedOffsets(brokers_, group_, topic_, 1)[0];
  ASSERT_EQ(high, 1500);
  ASSERT_LT(committed, 0) << "Kafka: nothing committed while the executor is held";
  ReportedPartition r = wait_for_kafkas_numbers(high, -1);
  EXPECT_EQ(r.lag, 1500) << "qinfer_consumer_lag: Kafka's high watermark " << high << ", nothing committed";
  EXPECT_EQ(r.committed, -1) << "no qinfer_committed_offset sample before the first commit";
  EXPECT_EQ(r.has_commit, 0);
  EXPECT_EQ(r.status.dump(),
            nlohmann::json({{"committed_offset", nullptr}, {"high_watermark", 1500}, {"lag", 1500}, {"partition", 0}})
                .dump());

  // After it: everything recorded and committed, then a new backlog.
  std::filesystem::remove(hold);
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, 1, seconds(120))) << serve.LogTail();
  r = wait_for_kafkas_numbers(0, 1500);
  EXPECT_EQ(r.lag, 0);
  EXPECT_EQ(r.committed, 1500);
  EXPECT_EQ(r.has_commit, 1);

  backlog_behind_a_pause(1000, 500);
  high = EndOffsetTotal(brokers_, topic_, 1);
  committed = CommittedOffsets(brokers_, group_, topic_, 1)[0];
  ASSERT_EQ(high, 3000);
  ASSERT_EQ(committed, 1500) << "Kafka: nothing more committed while the executor is held";
  r = wait_for_kafkas_numbers(high - committed, committed);
  EXPECT_EQ(r.lag, 1500) << "qinfer_consumer_lag: Kafka's high watermark " << high << " - committed " << committed;
  EXPECT_EQ(r.committed, 1500);
  EXPECT_EQ(r.status["lag"], 1500) << r.status.dump();
  EXPECT_EQ(r.status["high_watermark"], 3000) << r.status.dump();

  // `qinfer status --json` says the same.
  auto [rc, text] = RunCommand(Qinfer("status --json --address " + address));
  ASSERT_EQ(rc, 0) << text;
  const nlohmann::json status = nlohmann::json::parse(text, nullptr, false);
  ASSERT_TRUE(status.is_object()) << text;
  EXPECT_EQ(status["partitions"][0]["lag"], 1500) << text;
  EXPECT_EQ(status["partitions"][0]["committed_offset"], 1500) << text;

  std::filesystem::remove(hold);
  EXPECT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();
}

TEST_F(OpsIntegrationTest, ARealPrometheusScrapesTheCompletedJobsAndALagThatFallsToZero) {
  const std::string prometheus_bin = Which("prometheus");
  const std::string promtool = Which("promtool");
  if (prometheus_bin.empty() || promtool.empty()) {
    GTEST_SKIP() << "prometheus/promtool not installed (Debian package `prometheus`; deploy/setup.sh "
                    "installs it)";
  }
  constexpr int kJobs = 300;
  CreateTopic(brokers_, topic_, 2);
  const std::filesystem::path hold = dir_ / "hold";
  const int port = FreePort();
  const std::vector<std::string> args = WithHoldFile({"--set", "kafka.consumer.statistics.interval.ms=500"}, hold);
  ServeProcess serve(
      dir_.string(),
      ServeYaml(brokers_, topic_, group_, store_, "http:\n  listen: 127.0.0.1:" + std::to_string(port) + "\n"), args);

  const int prom_port = FreePort();
  const std::filesystem::path prom_dir = dir_ / "prometheus";
  std::filesystem::create_directories(prom_dir);
  std::ofstream(prom_dir / "prometheus.yml")
      << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
      << "scrape_configs:\n  - job_name: qinfer\n    static_configs:\n      - targets: ['127.0.0.1:" << port << "']\n";
  // Started through the shell, in the background; killed at the end.
  const std::string pid_file = (prom_dir / "pid").string();
  auto [started_rc, started] = RunCommand(prometheus_bin + " --config.file=" + (prom_dir / "prometheus.yml").string() +
                                          " --storage.tsdb.path=" + (prom_dir / "tsdb").string() +
                                          " --web.listen-address=127.0.0.1:" + std::to_string(prom_port) + " >" +
                                          (prom_dir / "log").string() + " 2>&1 & echo $! > " + pid_file);
  ASSERT_EQ(started_rc, 0) << started;
  struct Killer {
    std::string pid_file;
    ~Killer() { RunCommand("kill $(cat " + pid_file + ") 2>/dev/null; true"); }
  } killer{pid_file};
  httplib::Client prometheus("127.0.0.1", prom_port);
  prometheus.set_connection_timeout(1);
  auto wait_query = [&](const std::string& promql, auto pred, seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    double v = -1;
    while (std::chrono::steady_clock::now() < deadline) {
      v = Query(prometheus, promql);
      if (pred(v)) return v;
      std::this_thread::sleep_for(milliseconds(250));
    }
    return v;
  };
  ASSERT_EQ(wait_query(
                "up{job=\"qinfer\"}", [](double v) { return v == 1; }, seconds(60)),
            1)
      << "Prometheus never scraped the instance\n"
      << serve.LogTail();

  // Jobs arrive while the executor is held: the lag Prometheus sees grows,
  // then falls to 0 once everything is recorded and committed.
  Touch(hold);
  Produce(brokers_, topic_, MakeJobs(kJobs, kVocab, kMaxTokens, 12, "prom-"));
  EXPECT_GT(wait_query(
                "sum(qinfer_consumer_lag)", [](double v) { return v > 0; }, seconds(60)),
            0)
      << serve.LogTail();
  std::filesystem::remove(hold);
  EXPECT_EQ(wait_query(
                "sum(qinfer_outcomes_total{status=\"ok\"})", [](double v) { return v == kJobs; }, seconds(120)),
            kJobs)
      << serve.LogTail();
  EXPECT_EQ(wait_query(
                "sum(qinfer_consumer_lag)", [](double v) { return v == 0; }, seconds(60)),
            0)
      << serve.LogTail();
  EXPECT_EQ(Query(prometheus, "sum(qinfer_messages_consumed_total)"), kJobs);
  EXPECT_EQ(Query(prometheus, "count(qinfer_build_info)"), 1);

  // promtool's lint and the deploy/ check over one scrape.
  httplib::Client http("127.0.0.1", port);
  auto scrape = http.Get("/metrics");
  ASSERT_TRUE(scrape);
  const std::string scrape_file = (dir_ / "scrape.txt").string();
  std::ofstream(scrape_file) << scrape->body;
  auto [lint_rc, lint] = RunCommand(promtool + " check metrics < " + scrape_file + " 2>&1");
  EXPECT_EQ(lint_rc, 0) << lint;
  EXPECT_EQ(lint, "") << "promtool check metrics reports:\n" << lint;
  auto [deploy_rc, deploy] =
      RunCommand(std::string(QINFER_SOURCE_DIR) + "/deploy/check-deploy.sh --scrape " + scrape_file + " 2>&1");
  EXPECT_EQ(deploy_rc, 0) << deploy;
  ASSERT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();
}

}  // namespace
}  // namespace qinfer::testing
