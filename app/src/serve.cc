#include "serve.h"

#include <httplib.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/str_split.h"
#include "plan.h"
#include "qinfer/consumer/kafka_job_source.h"
#include "qinfer/consumer/offset_tracker.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/recorder.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/scheduler/batch_queue.h"
#include "qinfer/scheduler/policy.h"
#include "qinfer/storage/kafka_outcome_publisher.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::app {
namespace {

using std::chrono::steady_clock;

// The scheduler's queue as the consumer sees it.
class QueueForSource final : public JobQueue {
 public:
  explicit QueueForSource(scheduler::BatchQueue& queue) : queue_(queue) {}
  absl::Status Push(Job job) override { return queue_.Push(std::move(job)); }
  bool IsFull() const override { return queue_.IsFull(); }
  bool HasRoomToResume() const override { return queue_.HasRoomToResume(); }

 private:
  scheduler::BatchQueue& queue_;
};

// Per-bucket figures for the run summary and /metrics.
struct BucketTotals {
  uint64_t batches = 0;
  uint64_t jobs = 0;
  uint64_t real_tokens = 0;
  uint64_t padded_tokens = 0;
};

// Metrics of the running service, declared in one place and built from the
// registry that main owns.
struct ServeMetrics {
  explicit ServeMetrics(prometheus::Registry& r)
      : outcomes(prometheus::BuildCounter()
                     .Name("qinfer_outcomes_total")
                     .Help("Jobs with a durable record, by status and reason")
                     .Register(r)),
        batches(prometheus::BuildCounter()
                    .Name("qinfer_batches_total")
                    .Help("Batches run, by bucket bound")
                    .Register(r)),
        tokens(prometheus::BuildCounter()
                   .Name("qinfer_tokens_total")
                   .Help("Tokens run, real or padded, by bucket bound")
                   .Register(r)),
        queued_jobs(prometheus::BuildGauge()
                        .Name("qinfer_queued_jobs")
                        .Help("Jobs waiting in the scheduler")
                        .Register(r)
                        .Add({})),
        paused(prometheus::BuildGauge()
                   .Name("qinfer_consumer_paused")
                   .Help("1 while the consumer is paused for backpressure")
                   .Register(r)
                   .Add({})),
        ladder(prometheus::BuildCounter()
                   .Name("qinfer_oom_ladder_total")
                   .Help("OOM ladder events by stage: oom (caught), split, cap_lowered, "
                         "fallback (job run on the fallback device), failed (oom record)")
                   .Register(r)),
        device_bytes(prometheus::BuildGauge()
                         .Name("qinfer_device_memory_bytes")
                         .Help("Primary device memory: allocated, peak, reserved, budget")
                         .Register(r)) {}

  // Brings the ladder counters up to the runner's totals.
  void SyncLadder(const executor::RunnerStats& s) {
    std::lock_guard lock(mu);
    const std::pair<const char*, uint64_t> stages[] = {
        {"oom", s.oom_events.load()},         {"split", s.splits.load()},
        {"cap_lowered", s.cap_lowerings.load()}, {"fallback", s.fallback_runs.load()},
        {"failed", s.oom_failures.load()}};
    for (const auto& [stage, total] : stages) {
      uint64_t& seen = ladder_seen[stage];
      if (total > seen) ladder.Add({{"stage", stage}}).Increment(double(total - seen));
      seen = total;
    }
  }

  prometheus::Family<prometheus::Counter>& outcomes;
  prometheus::Family<prometheus::Counter>& batches;
  prometheus::Family<prometheus::Counter>& tokens;
  prometheus::Gauge& queued_jobs;
  prometheus::Gauge& paused;
  prometheus::Family<prometheus::Counter>& ladder;
  prometheus::Family<prometheus::Gauge>& device_bytes;
  std::mutex mu;
  std::map<std::string, uint64_t> ladder_seen;
};

std::atomic<bool> g_stop_requested{false};
void OnSignal(int) { g_stop_requested = true; }

// The executor thread: the only path to the device.
class ExecutorLoop {
 public:
  ExecutorLoop(scheduler::BatchQueue& queue, ModelRunner& runner,
               OutcomeRecorder& recorder, ServeMetrics& metrics,
               std::chrono::seconds drain_timeout)
      : queue_(queue),
        runner_(runner),
        recorder_(recorder),
        metrics_(metrics),
        drain_timeout_(drain_timeout) {}

  // Runs batches until the queue is closed and drained, or the drain
  // timeout passes after Close (jobs left then are not acked: they run
  // again after a restart).
  void Run() {
    while (true) {
      std::optional<Batch> batch = queue_.WaitNextBatch(std::chrono::milliseconds(100));
      if (batch) {
        RunOne(*batch);
        continue;
      }
      if (!queue_.closed()) continue;
      const auto deadline = steady_clock::now() + drain_timeout_;
      for (Batch& rest : queue_.DrainAll()) {
        if (steady_clock::now() > deadline) {
          log_->warn("event=drain_timeout abandoned_jobs={} (not acked: they run again after restart)",
                     rest.jobs.size());
          continue;
        }
        RunOne(rest);
      }
      return;
    }
  }

  std::map<int, BucketTotals> totals() const {
    std::lock_guard lock(mu_);
    return totals_;
  }

 private:
  void RunOne(const Batch& batch) {
    absl::StatusOr<std::vector<Outcome>> outcomes = runner_.Run(batch);
    std::vector<Outcome> records;
    if (outcomes.ok()) {
      records = *std::move(outcomes);
    } else {
      for (const Job& job : batch.jobs) {
        records.push_back(FailureFor(job, reason::kModelError,
                                     std::string(outcomes.status().message())));
      }
    }
    {
      std::lock_guard lock(mu_);
      BucketTotals& t = totals_[batch.bucket_bound];
      t.batches++;
      t.jobs += batch.jobs.size();
      const std::string bucket = std::to_string(batch.bucket_bound);
      metrics_.batches.Add({{"bucket", bucket}}).Increment();
      for (const Outcome& o : records) {
        if (!o.ok) continue;
        t.real_tokens += o.input_length;
        t.padded_tokens += uint64_t(o.padded_length);
        metrics_.tokens.Add({{"bucket", bucket}, {"kind", "real"}}).Increment(double(o.input_length));
        metrics_.tokens.Add({{"bucket", bucket}, {"kind", "padded"}})
            .Increment(double(o.padded_length));
      }
    }
    for (const Outcome& o : records) {
      metrics_.outcomes.Add({{"status", o.ok ? "ok" : "failed"}, {"reason", o.reason}}).Increment();
    }
    log_->debug("event=batch bucket={} batch={} tokens={}", batch.bucket_bound,
                batch.jobs.size(), batch.total_tokens());
    absl::Status s = recorder_.Record(std::move(records));
    if (!s.ok()) {
      log_->error("event=record_failed bucket={} batch={} error=\"{}\" (jobs stay unacked)",
                  batch.bucket_bound, batch.jobs.size(), std::string(s.message()));
    }
  }

  scheduler::BatchQueue& queue_;
  ModelRunner& runner_;
  OutcomeRecorder& recorder_;
  ServeMetrics& metrics_;
  const std::chrono::seconds drain_timeout_;
  std::shared_ptr<spdlog::logger> log_ = Logger("app");
  mutable std::mutex mu_;
  std::map<int, BucketTotals> totals_;
};

}  // namespace

int Serve(const Config& config, const ServeOptions& options) {
  auto log = Logger("app");
  const auto started = steady_clock::now();
  // Signals set a flag that the main thread watches. Installed first, so a
  // SIGTERM during start-up still means a clean exit.
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  auto runner = LoadRunner(config);
  if (!runner.ok()) {
    log->error("event=start_failed error=\"{}\"", std::string(runner.status().message()));
    return 2;
  }
  const executor::ModelManifest& manifest = (*runner)->manifest();
  auto bounds = BucketBounds(config, manifest);
  if (!bounds.ok()) {
    log->error("event=start_failed error=\"{}\"", std::string(bounds.status().message()));
    return 2;
  }

  storage::RocksDbStoreOptions store_options;
  store_options.sync = config.storage.sync;
  auto store = storage::RocksDbOutcomeStore::Open(config.storage.path, store_options);
  if (!store.ok()) {
    log->error("event=start_failed error=\"storage.path: {}\"", std::string(store.status().message()));
    return 2;
  }

  // Batch caps: from the memory plan where the device has a budget,
  // otherwise from the token budget per batch.
  auto plan = LoadOrCalibratePlan(**runner, **store, config, *bounds, options.recalibrate);
  if (!plan.ok()) {
    log->error("event=start_failed error=\"memory plan: {}\"", std::string(plan.status().message()));
    return 2;
  }
  scheduler::BatchPolicy policy;
  policy.bucket_bounds = *bounds;
  policy.caps = scheduler::CapsFromTokenBudget(policy.bucket_bounds,
                                               config.scheduler.tokens_per_batch,
                                               config.scheduler.max_batch_size);
  std::set<int> unfit;
  if (plan->plan) {
    for (size_t i = 0; i < policy.caps.size(); ++i) {
      const PlanEntry& e = plan->plan->entries[i];
      policy.caps[i] = std::clamp(e.batch_size, 1, config.scheduler.max_batch_size);
      if (!e.fits()) unfit.insert(e.bound);
    }
    (*runner)->SetUnfitBuckets(unfit);
    for (const std::string& line : std::vector<std::string>(absl::StrSplit(FormatPlan(*plan->plan), '\n'))) {
      if (!line.empty()) log->info("plan: {}", line);
    }
  }
  policy.max_batch_delay = config.scheduler.max_batch_delay;
  policy.max_queued_jobs = std::max(config.scheduler.max_queued_jobs,
                                    size_t(*std::max_element(policy.caps.begin(), policy.caps.end())));
  policy.max_queued_tokens = config.scheduler.max_queued_tokens;
  auto sched = scheduler::Scheduler::Create(policy);
  if (!sched.ok()) {
    log->error("event=start_failed error=\"scheduler: {}\"", std::string(sched.status().message()));
    return 2;
  }
  SystemClock clock;
  scheduler::BatchQueue queue(*std::move(sched), clock);
  for (size_t i = 0; i < policy.bucket_bounds.size(); ++i) {
    log->info("event=bucket bound={} cap={}{}", policy.bucket_bounds[i], policy.caps[i],
              unfit.count(policy.bucket_bounds[i]) ? " unfit=true" : "");
  }
  PlanKeeper plan_keeper(plan->plan, **store, queue);
  (*runner)->SetCapListener(&plan_keeper);

  storage::PublisherConfig pub_config;
  pub_config.brokers = config.kafka.brokers;
  pub_config.default_reply_topic = config.kafka.reply_topic;
  pub_config.dead_letter_topic = config.kafka.dead_letter_topic;
  pub_config.properties = config.kafka.producer;
  auto publisher = storage::KafkaOutcomePublisher::Create(pub_config);
  if (!publisher.ok()) {
    log->error("event=start_failed error=\"kafka.producer: {}\"", std::string(publisher.status().message()));
    return 2;
  }

  consumer::OffsetTracker tracker;
  OutcomeRecorder recorder(**store, publisher->get(), tracker, OutcomeRecorder::Options{});
  QueueForSource source_queue(queue);

  consumer::SourceConfig source_config;
  source_config.brokers = config.kafka.brokers;
  source_config.group_id = config.kafka.group_id;
  source_config.topics = {config.kafka.jobs_topic};
  source_config.properties = config.kafka.consumer;
  source_config.limits.vocab_size = manifest.vocab_size;
  source_config.limits.max_tokens = size_t(bounds->back());
  auto source = consumer::KafkaJobSource::Create(source_config, source_queue, recorder, tracker);
  if (!source.ok()) {
    log->error("event=start_failed error=\"{}\"", std::string(source.status().message()));
    return 2;
  }

  prometheus::Registry registry;
  ServeMetrics metrics(registry);

  // HTTP: /healthz (alive), /readyz (model warmed, partitions assigned),
  // /metrics (Prometheus text).
  httplib::Server http;
  std::thread http_thread;
  if (!config.http.listen.empty()) {
    const size_t colon = config.http.listen.rfind(':');
    if (colon == std::string::npos) {
      log->error("event=start_failed error=\"http.listen='{}': expected host:port\"", config.http.listen);
      return 2;
    }
    const std::string host = config.http.listen.substr(0, colon);
    const int port = std::atoi(config.http.listen.c_str() + colon + 1);
    http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok\n", "text/plain");
    });
    const consumer::SourceStats& source_stats = (*source)->stats();
    const executor::RunnerStats& runner_stats = (*runner)->stats();
    executor::DeviceMemory& device_memory = (*runner)->memory();
    http.Get("/readyz", [&source_stats](const httplib::Request&, httplib::Response& res) {
      const bool ready = source_stats.assigned_partitions.load() > 0;
      res.status = ready ? 200 : 503;
      res.set_content(ready ? "ready\n" : "not ready: no partitions assigned\n", "text/plain");
    });
    http.Get("/metrics", [&, &runner_stats = runner_stats, &device_memory = device_memory](
                             const httplib::Request&, httplib::Response& res) {
      metrics.queued_jobs.Set(double(queue.queued_jobs()));
      metrics.paused.Set(source_stats.paused.load() ? 1 : 0);
      metrics.SyncLadder(runner_stats);
      metrics.device_bytes.Add({{"kind", "allocated"}}).Set(double(device_memory.allocated_bytes()));
      metrics.device_bytes.Add({{"kind", "peak"}}).Set(double(device_memory.peak_bytes()));
      metrics.device_bytes.Add({{"kind", "reserved"}}).Set(double(device_memory.reserved_bytes()));
      metrics.device_bytes.Add({{"kind", "budget"}}).Set(double(device_memory.budget_bytes()));
      res.set_content(prometheus::TextSerializer().Serialize(registry.Collect()),
                      "text/plain; version=0.0.4");
    });
    if (!http.bind_to_port(host.c_str(), port)) {
      log->error("event=start_failed error=\"http.listen={}: cannot bind (port in use?); "
                 "set http.listen to a free host:port or to \\\"\\\" to disable\"",
                 config.http.listen);
      return 2;
    }
    http_thread = std::thread([&http] { http.listen_after_bind(); });
    log->info("event=http_listening address={}", config.http.listen);
  }

  std::atomic<bool> stop_fetching{false};
  absl::Status source_status;
  std::thread consumer_thread([&] { source_status = (*source)->Run(stop_fetching); });
  ExecutorLoop loop(queue, **runner, recorder, metrics, config.shutdown.drain_timeout);
  std::thread executor_thread([&] { loop.Run(); });
  log->info("event=serving topic={} group={} store={}", config.kafka.jobs_topic,
            config.kafka.group_id, config.storage.path);

  // Main thread: wait for a signal, a fatal consumer error, or idle exit.
  uint64_t last_messages = 0;
  auto last_activity = steady_clock::now();
  while (!g_stop_requested.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const consumer::SourceStats& st = (*source)->stats();
    if (st.messages.load() != last_messages || tracker.pending() > 0 ||
        queue.queued_jobs() > 0) {
      last_messages = st.messages.load();
      last_activity = steady_clock::now();
    }
    if (options.idle_exit_seconds > 0 && st.messages.load() > 0 &&
        steady_clock::now() - last_activity > std::chrono::seconds(options.idle_exit_seconds)) {
      log->info("event=idle_exit idle_seconds={}", options.idle_exit_seconds);
      break;
    }
  }
  log->info("event=shutdown phase=stop_fetching");
  stop_fetching = true;
  consumer_thread.join();
  queue.Close();
  executor_thread.join();
  log->info("event=shutdown phase=flush");
  if (absl::Status s = recorder.Flush(std::chrono::duration_cast<std::chrono::milliseconds>(
          config.shutdown.drain_timeout));
      !s.ok()) {
    log->warn("event=flush_incomplete error=\"{}\"", std::string(s.message()));
  }
  absl::Status closed = (*source)->Close();
  if (!closed.ok()) log->warn("event=commit_failed error=\"{}\"", std::string(closed.message()));
  if (http_thread.joinable()) {
    http.stop();
    http_thread.join();
  }

  // Summary of this run.
  const double seconds = std::chrono::duration<double>(steady_clock::now() - started).count();
  const RecorderStats& rs = recorder.stats();
  uint64_t jobs = 0, real = 0, padded = 0;
  for (const auto& [bound, t] : loop.totals()) {
    jobs += t.jobs;
    real += t.real_tokens;
    padded += t.padded_tokens;
    log->info("event=bucket_summary bucket={} batches={} mean_batch={:.1f} padding_efficiency={:.3f}",
              bound, t.batches, t.batches ? double(t.jobs) / t.batches : 0.0,
              t.padded_tokens ? double(t.real_tokens) / t.padded_tokens : 0.0);
  }
  log->info("event=summary run_seconds={:.1f} messages={} jobs_run={} rejected={} pauses={} "
            "stored={} published={} acked={} real_tokens={} padded_tokens={}",
            seconds, (*source)->stats().messages.load(), jobs, (*source)->stats().rejected.load(),
            (*source)->stats().pauses.load(),
            rs.stored.load(), rs.published.load(), rs.acked.load(), real, padded);
  const executor::RunnerStats& ladder = (*runner)->stats();
  log->info("event=ladder_summary oom_events={} splits={} cap_lowerings={} fallback_runs={} "
            "oom_failures={} model_errors={}",
            ladder.oom_events.load(), ladder.splits.load(), ladder.cap_lowerings.load(),
            ladder.fallback_runs.load(), ladder.oom_failures.load(), ladder.model_errors.load());
  if (!source_status.ok()) {
    log->error("event=consumer_failed error=\"{}\"", std::string(source_status.message()));
    return 1;
  }
  return 0;
}

}  // namespace qinfer::app
