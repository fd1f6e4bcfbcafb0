#include "serve.h"

#include <httplib.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_split.h"
#include "http_front_end.h"
#include "plan.h"
#include "qinfer/consumer/kafka_job_source.h"
#include "qinfer/consumer/kafka_topics.h"
#include "qinfer/consumer/offset_tracker.h"
#include "qinfer/core/health.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/recorder.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/pipeline/executor_loop.h"
#include "qinfer/pipeline/run_control.h"
#include "qinfer/pipeline/service_metrics.h"
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

std::atomic<bool> g_stop_requested{false};
void OnSignal(int) { g_stop_requested = true; }

// QINFER_TEST_HOLD_FILE (tests only): while that file exists, start-up
// waits before it loads the model and the executor waits before each batch,
// as a forward pass that hangs would. Returns "" when unset.
std::string HoldFile() {
  const char* path = std::getenv("QINFER_TEST_HOLD_FILE");
  return path == nullptr ? std::string() : std::string(path);
}

void WaitWhileExists(const std::string& path, const std::atomic<bool>& give_up) {
  if (path.empty()) return;
  while (std::filesystem::exists(path) && !give_up.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// What the HTTP handlers read: the health probes from the start, the
// service's figures once it is built. Thread-safe.
class LiveView {
 public:
  void Set(std::function<pipeline::ServiceSnapshot()> snapshot) {
    std::lock_guard lock(mu_);
    snapshot_ = std::move(snapshot);
  }
  // nullopt while the service is still being built.
  std::optional<pipeline::ServiceSnapshot> Snapshot() const {
    std::lock_guard lock(mu_);
    if (!snapshot_) return std::nullopt;
    return snapshot_();
  }

 private:
  mutable std::mutex mu_;
  std::function<pipeline::ServiceSnapshot()> snapshot_;
};

// One line of a `start_failed` event, and the start-up exit code: by
// default kExitConfig (retrying will not help).
int StartFailed(const std::string& what, int code = kExitConfig) {
  Logger("app").Error("event=start_failed exit=%v error=\"%v\"", code, what);
  return code;
}

// A SIGTERM (or SIGINT) during start-up: nothing was consumed yet, so the
// process just ends, with 0.
int StartAbandoned(const char* phase) {
  Logger("app").Info("event=start_abandoned phase=%v (a signal during start-up)", phase);
  return kExitOk;
}

// Bounds start-up's answer to a signal. Start-up checks the signal flag
// between its steps, but a step (a model load, a calibration, the wait for
// the brokers) cannot be interrupted; once a signal has come, this guard's
// thread ends the process if start-up has not returned within `bound`
// (shutdown.drain_timeout_s), so that a supervisor's grace period above
// the drain bound is never exceeded in any phase. Nothing durable is at
// stake before the consumer starts: the store's writes so far (a memory
// plan) are in its log.
class StartUpGuard {
 public:
  explicit StartUpGuard(std::chrono::nanoseconds bound) : thread_([this, bound] { Watch(bound); }) {}
  ~StartUpGuard() { Done(); }
  // Start-up is over (served, failed or abandoned): the guard stands down.
  void Done() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Watch(std::chrono::nanoseconds bound) {
    std::unique_lock lock(mu_);
    // The handler only sets a flag: poll it.
    while (!done_ && !g_stop_requested.load()) cv_.wait_for(lock, std::chrono::milliseconds(20));
    if (done_) return;
    if (cv_.wait_for(lock, bound, [this] { return done_; })) return;
    Logger("app").Warn("event=start_abandoned forced=true: start-up did not return within "
                       "shutdown.drain_timeout_s = %v s of the signal; exiting now",
                       std::chrono::duration_cast<std::chrono::seconds>(bound).count());
    FlushAllLogs();
    std::_Exit(0);
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace

int Serve(const Config& config, const ServeOptions& options) {
  auto log = Logger("app");
  const auto started = steady_clock::now();
  // Signals set a flag that the main thread watches. Installed first, so a
  // SIGTERM during start-up still means a clean exit. A file-size limit
  // (RLIMIT_FSIZE) then fails the write that crosses it instead of killing
  // the process: a store that cannot be written is a fatal condition with a
  // bounded drain, not a crash.
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGXFSZ, SIG_IGN);

  // Every local setting is checked before any network step, so that a
  // mistake in them is never reported as unreachable brokers (exit 75).
  for (const auto& [section, properties] : {std::pair{"kafka.consumer.", &config.kafka.consumer},
                                            std::pair{"kafka.producer.", &config.kafka.producer}}) {
    if (absl::Status s = consumer::CheckProperties(*properties, section); !s.ok()) {
      return StartFailed(std::string(s.message()));
    }
  }

  SystemClock clock;
  Health health;
  health.SetStartupDeadline(clock.Now(), config.health.startup_timeout);
  health.Beat(clock.Now());

  // HTTP first, so that /healthz and /readyz answer during start-up (not
  // ready while the model loads and the plan calibrates).
  prometheus::Registry registry;
  pipeline::ServiceMetrics metrics(registry);
  LiveView view;
  const std::chrono::nanoseconds stall = config.health.executor_stall;
  HttpFrontEnd http;
  // The consumer's figures, once it exists.
  std::atomic<const consumer::SourceStats*> consumer_stats{nullptr};
  auto assigned = [&consumer_stats] {
    const consumer::SourceStats* s = consumer_stats.load();
    return s == nullptr ? 0 : s->assigned_partitions.load();
  };
  if (!config.http.listen.empty()) {
    // LoadConfig checked it; a Config built otherwise is checked here.
    absl::StatusOr<ListenAddress> address = ParseListenAddress(config.http.listen);
    if (!address.ok()) return StartFailed(std::string(address.status().message()));
    const std::string host = address->host;
    const int port = address->port;
    auto answer = [](httplib::Response& res, const ProbeResult& probe) {
      res.status = probe.ok ? 200 : 503;
      res.set_content(probe.text + "\n", "text/plain");
    };
    httplib::Server& server = http.server();
    server.Get("/healthz", [&](const httplib::Request&, httplib::Response& res) {
      answer(res, Liveness(health, clock.Now(), stall));
    });
    server.Get("/readyz", [&](const httplib::Request&, httplib::Response& res) {
      answer(res, Readiness(health, assigned()));
    });
    server.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
      if (auto snapshot = view.Snapshot()) {
        metrics.Update(*snapshot);
      } else {
        metrics.UpdateProcess();
      }
      res.set_content(prometheus::TextSerializer().Serialize(registry.Collect()),
                      "text/plain; version=0.0.4");
    });
    server.Get("/status", [&](const httplib::Request&, httplib::Response& res) {
      auto snapshot = view.Snapshot();
      if (!snapshot) {
        res.status = 503;
        res.set_content("{\"error\":\"" + Readiness(health, 0).text + "\"}", "application/json");
        return;
      }
      res.set_content(pipeline::SnapshotToJson(*snapshot), "application/json");
    });
    if (!http.Start(host, port).ok()) {
      return StartFailed("http.listen=" + config.http.listen +
                         ": cannot bind (port in use?); set http.listen to a free host:port or "
                         "to \\\"\\\" to disable");
    }
    log.Info("event=http_listening address=%v", config.http.listen);
  }
  // Stops the HTTP server on every return from here on (invoked early at
  // the end of a run, before the objects the handlers read are destroyed).
  // HttpFrontEnd::Stop is safe however early this runs.
  absl::Cleanup stop_http = [&] { http.Stop(); };
  StartUpGuard guard(config.shutdown.drain_timeout);
  const std::string hold_file = HoldFile();
  WaitWhileExists(hold_file, g_stop_requested);
  if (g_stop_requested) return StartAbandoned("before_model_load");

  // ---- build
  auto runner = LoadRunner(config);
  if (!runner.ok()) return StartFailed(std::string(runner.status().message()));
  if (g_stop_requested) return StartAbandoned("model_loaded");
  const executor::ModelManifest& manifest = (*runner)->manifest();
  auto bounds = BucketBounds(config, manifest);
  if (!bounds.ok()) return StartFailed(std::string(bounds.status().message()));
  if (absl::Status s = CheckAdmission(config, manifest, bounds->back()); !s.ok()) {
    return StartFailed(std::string(s.message()));
  }
  auto text_tokenizer = LoadTokenizer(config, manifest, bounds->back());
  if (!text_tokenizer.ok()) return StartFailed(std::string(text_tokenizer.status().message()));

  storage::RocksDbStoreOptions store_options;
  store_options.sync = config.storage.sync;
  auto store = storage::RocksDbOutcomeStore::Open(config.storage.path, store_options);
  if (!store.ok()) return StartFailed("storage.path: " + std::string(store.status().message()));

  // Batch caps: from the memory plan where the device has a budget,
  // otherwise from the token budget per batch.
  auto plan = LoadOrCalibratePlan(**runner, **store, config, *bounds, options.recalibrate);
  if (!plan.ok()) return StartFailed("memory plan: " + std::string(plan.status().message()));
  if (g_stop_requested) return StartAbandoned("memory_plan");
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
    for (const std::string& line : std::vector<std::string>(absl::StrSplit(FormatPlan(*plan->plan), '\n'))) {
      if (!line.empty()) log.Info("plan: %v", line);
    }
  }
  if (config.long_lane.max_tokens > 0) {
    // The long lane: one bucket above max_tokens whose jobs run one at a
    // time on the fallback device.
    policy.bucket_bounds.push_back(config.long_lane.max_tokens);
    policy.caps.push_back(1);
    unfit.insert(config.long_lane.max_tokens);
  }
  (*runner)->SetUnfitBuckets(unfit);
  policy.max_batch_delay = config.scheduler.max_batch_delay;
  policy.formation = config.scheduler.formation;
  policy.max_padding = config.scheduler.max_padding;
  policy.max_queued_jobs = std::max(config.scheduler.max_queued_jobs,
                                    size_t(*std::max_element(policy.caps.begin(), policy.caps.end())));
  policy.max_queued_tokens = config.scheduler.max_queued_tokens;
  policy.max_queued_bytes = config.scheduler.max_queued_bytes;
  // A job holds its payload and, parsed, about as much again.
  policy.max_job_bytes = 2 * config.limits.max_message_bytes;
  auto sched = scheduler::Scheduler::Create(policy);
  if (!sched.ok()) {
    return StartFailed("scheduler (scheduler.max_queued_bytes, limits.max_message_bytes): " +
                       std::string(sched.status().message()));
  }
  scheduler::BatchQueue queue(*std::move(sched), clock);
  for (size_t i = 0; i < policy.bucket_bounds.size(); ++i) {
    log.Info("event=bucket bound=%v cap=%v%v", policy.bucket_bounds[i], policy.caps[i],
             unfit.count(policy.bucket_bounds[i]) ? " unfit=true" : "");
  }
  PlanKeeper plan_keeper(plan->plan, **store, queue);
  (*runner)->SetCapListener(&plan_keeper);

  // Every topic the configuration names must exist: a missing one would fail
  // each delivery to it, job after job.
  consumer::TopicCheck topics;
  topics.brokers = config.kafka.brokers;
  topics.properties = config.kafka.producer;
  topics.topics = {config.kafka.jobs_topic, config.kafka.reply_topic,
                   config.kafka.dead_letter_topic};
  topics.create = config.kafka.create_topics;
  topics.partitions = config.kafka.topic_partitions;
  topics.timeout = config.kafka.startup_wait;
  if (absl::Status s = consumer::EnsureTopics(topics); !s.ok()) {
    // Brokers that do not answer (yet) and topics not created yet may pass
    // by themselves: a code of their own, so that a supervisor retries
    // them and a reader does not take them for a bad configuration.
    if (absl::IsUnavailable(s)) {
      return StartFailed(std::string(s.message()) + " [kafka.startup_wait_s = " +
                             std::to_string(config.kafka.startup_wait.count()) + "]",
                         kExitTransient);
    }
    return StartFailed(std::string(s.message()), absl::IsNotFound(s) ? kExitTransient : kExitConfig);
  }
  if (g_stop_requested) return StartAbandoned("topics_checked");

  storage::PublisherConfig pub_config;
  pub_config.brokers = config.kafka.brokers;
  pub_config.default_reply_topic = config.kafka.reply_topic;
  pub_config.dead_letter_topic = config.kafka.dead_letter_topic;
  pub_config.properties = config.kafka.producer;
  // Shutdown flushes within shutdown.drain_timeout_s before the publisher
  // goes; what is still in flight then is cancelled after this short wait.
  pub_config.close_timeout = std::chrono::milliseconds(1000);
  auto publisher = storage::KafkaOutcomePublisher::Create(pub_config);
  if (!publisher.ok()) return StartFailed("kafka.producer: " + std::string(publisher.status().message()));

  consumer::OffsetTracker tracker;
  OutcomeRecorder::Options recorder_options;
  recorder_options.observer = &metrics;
  OutcomeRecorder recorder(**store, publisher->get(), tracker, health, recorder_options);
  QueueForSource source_queue(queue);

  consumer::SourceConfig source_config;
  source_config.brokers = config.kafka.brokers;
  source_config.group_id = config.kafka.group_id;
  source_config.topics = {config.kafka.jobs_topic};
  source_config.properties = config.kafka.consumer;
  source_config.limits.vocab_size = manifest.vocab_size;
  source_config.limits.max_tokens = size_t(bounds->back());
  source_config.limits.max_message_bytes = config.limits.max_message_bytes;
  source_config.limits.max_depth = config.limits.max_depth;
  source_config.limits.max_meta_bytes = config.limits.max_meta_bytes;
  source_config.limits.too_long_policy = config.admission.too_long;
  source_config.limits.chunk_overlap = size_t(config.admission.chunk_overlap);
  source_config.limits.max_chunks = size_t(config.admission.max_chunks);
  source_config.limits.chunk_allowed = manifest.output == "pooled";
  source_config.limits.long_lane_max_tokens = size_t(config.long_lane.max_tokens);
  source_config.limits.tokenizer = text_tokenizer->get();
  source_config.limits.max_text_bytes = config.limits.max_text_bytes;
  source_config.limits.end_token_id = manifest.end_token_id;
  auto source = consumer::KafkaJobSource::Create(source_config, source_queue, recorder, tracker);
  if (!source.ok()) return StartFailed(std::string(source.status().message()));
  consumer_stats = &(*source)->stats();
  absl::Cleanup forget_consumer = [&consumer_stats] { consumer_stats = nullptr; };

  pipeline::LoopOptions loop_options;
  loop_options.drain_timeout = config.shutdown.drain_timeout;
  loop_options.max_attempts = config.recovery.max_attempts;
  loop_options.normalize_pooled = manifest.normalized;
  // Store writes, replies and acks on a thread of their own, so that the
  // model runs while the previous batch is written.
  loop_options.record_queue = 2;
  if (!hold_file.empty()) {
    // Not released by SIGTERM: a test holds the drain with it.
    static const std::atomic<bool> never{false};
    loop_options.before_batch = [&hold_file] { WaitWhileExists(hold_file, never); };
  }
  pipeline::ExecutorLoop loop(queue, **runner, recorder, store->get(), health, clock, loop_options,
                              &metrics);

  const consumer::SourceStats& source_stats = (*source)->stats();
  const executor::RunnerStats& runner_stats = (*runner)->stats();
  executor::DeviceMemory& device_memory = (*runner)->memory();

  // What /metrics and /status report.
  pipeline::ServiceSnapshot identity;
  identity.version = QINFER_VERSION;
  identity.libtorch = executor::TorchVersion();
  identity.model = manifest.name;
  identity.model_digest = manifest.digest;
  identity.device = config.model.device;
  identity.fallback_device = (*runner)->has_fallback() ? "cpu" : "";
  const executor::TorchThreads threads = executor::CurrentTorchThreads();
  identity.intra_op_threads = threads.intra_op;
  identity.inter_op_threads = threads.inter_op;
  metrics.SetIdentity(identity);
  log.Info("event=torch_threads intra_op=%v inter_op=%v (model.threads=%v)", threads.intra_op,
           threads.inter_op, config.model.threads);
  view.Set([&, identity]() {
    pipeline::ServiceSnapshot s = identity;
    s.uptime_seconds = std::chrono::duration<double>(steady_clock::now() - started).count();
    const ProbeResult ready = Readiness(health, source_stats.assigned_partitions.load());
    const ProbeResult live = Liveness(health, clock.Now(), stall);
    s.ready = ready.ok;
    s.readiness = ready.text;
    s.live = live.ok;
    s.liveness = live.text;
    s.heartbeat_age_seconds = std::chrono::duration<double>(clock.Now() - health.last_beat()).count();
    if (health.fatal()) s.fatal_cause = health.cause();
    const std::map<int, pipeline::BucketTotals> totals = loop.totals();
    for (const scheduler::BucketStats& b : queue.Stats()) {
      pipeline::BucketSnapshot bucket;
      bucket.bound = b.bound;
      bucket.cap = b.cap;
      bucket.unfit = unfit.contains(b.bound);
      bucket.queued_jobs = b.queued_jobs;
      bucket.queued_bytes = b.queued_bytes;
      if (auto t = totals.find(b.bound); t != totals.end()) {
        bucket.batches = t->second.batches;
        bucket.jobs = t->second.jobs;
        bucket.real_tokens = t->second.real_tokens;
        bucket.padded_tokens = t->second.padded_tokens;
      }
      s.buckets.push_back(bucket);
    }
    for (const consumer::PartitionProgress& p : (*source)->partitions()) {
      s.partitions.push_back({p.partition, p.committed_offset, p.lag, p.high_watermark});
    }
    s.assigned_partitions = source_stats.assigned_partitions.load();
    s.paused = source_stats.paused.load();
    s.messages = source_stats.messages.load();
    s.replays = source_stats.replays.load();
    s.rejected = source_stats.rejected.load();
    s.pauses = source_stats.pauses.load();
    s.records = metrics.records();
    s.memory_allocated = device_memory.allocated_bytes();
    s.memory_reserved = device_memory.reserved_bytes();
    s.memory_peak = device_memory.peak_bytes();
    s.memory_budget = device_memory.budget_bytes();
    s.ladder = {{"oom", runner_stats.oom_events.load()},
                {"split", runner_stats.splits.load()},
                {"cap_lowered", runner_stats.cap_lowerings.load()},
                {"fallback", runner_stats.fallback_runs.load()},
                {"failed", runner_stats.oom_failures.load()},
                {"device_override", runner_stats.override_runs.load()}};
    const RecorderStats& rs = recorder.stats();
    const pipeline::LoopStats& ls = loop.stats();
    s.degraded = {{"store_errors", rs.store_errors.load()},
                  {"publish_retries", rs.publish_retries.load()},
                  {"undeliverable_permanent", rs.undeliverable_permanent.load()},
                  {"undeliverable_exhausted", rs.undeliverable_exhausted.load()},
                  {"dead_letter_notices", rs.dead_letter_notices.load()},
                  {"crash_isolated", ls.crash_isolated.load()},
                  {"abandoned", ls.abandoned.load()}};
    return s;
  });

  // ---- start: from here a signal is a drain, bounded by the loop.
  guard.Done();
  health.SetStarted();
  std::atomic<bool> stop_fetching{false};
  std::thread consumer_thread([&] {
    absl::Status s = (*source)->Run(stop_fetching);
    if (!s.ok() && health.RaiseFatal(fatal_cause::kConsumer, std::string(s.message()))) {
      log.Error("event=fatal cause=consumer error=\"%v\"", std::string(s.message()));
    }
  });
  std::thread executor_thread([&] { loop.Run(); });
  log.Info("event=serving topic=%v group=%v store=%v", config.kafka.jobs_topic,
           config.kafka.group_id, config.storage.path);

  // ---- wait: a signal, a fatal condition, or idleness in batch mode
  pipeline::RunControl control(clock, std::chrono::seconds(options.idle_exit_seconds));
  pipeline::RunDecision decision;
  while ((decision = control.Tick({source_stats.messages.load(), tracker.pending(),
                                   queue.queued_jobs(), source_stats.assigned_partitions.load()},
                                  g_stop_requested.load(), health.fatal())) ==
         pipeline::RunDecision::kContinue) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const bool fatal = decision == pipeline::RunDecision::kFatal;
  if (decision == pipeline::RunDecision::kIdleExit) {
    log.Info("event=idle_exit idle_seconds=%v", options.idle_exit_seconds);
  }

  // ---- stop: fetch no more, drain (or abandon, when fatal), flush, commit
  // what is durable. The publisher goes before the recorder and tracker its
  // delivery callbacks call into.
  // shutdown.drain_timeout_s bounds all of it, so that a supervisor's grace
  // period above it is never cut short; the flush and the commit get at
  // least a moment each, even after a drain that used the whole bound.
  log.Info("event=shutdown phase=stop_fetching fatal=%v", fatal);
  const steady_clock::time_point shutdown_deadline = steady_clock::now() + config.shutdown.drain_timeout;
  auto time_left = [&] {
    return std::max(std::chrono::milliseconds(1000), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                          shutdown_deadline - steady_clock::now()));
  };
  health.SetDraining();
  stop_fetching = true;
  consumer_thread.join();
  queue.Close();
  executor_thread.join();
  log.Info("event=shutdown phase=flush");
  if (absl::Status s = recorder.Flush(time_left()); !s.ok()) {
    log.Warn("event=flush_incomplete error=\"%v\"", std::string(s.message()));
  }
  log.Info("event=shutdown phase=commit");
  absl::Status closed = (*source)->Close(time_left());
  if (!closed.ok()) log.Warn("event=commit_failed error=\"%v\"", std::string(closed.message()));
  publisher->reset();
  // Before the objects its handlers read go out of scope.
  std::move(stop_http).Invoke();

  // ---- summary of this run
  const double seconds = std::chrono::duration<double>(steady_clock::now() - started).count();
  const RecorderStats& rs = recorder.stats();
  uint64_t jobs = 0, real = 0, padded = 0;
  for (const auto& [bound, t] : loop.totals()) {
    jobs += t.jobs;
    real += t.real_tokens;
    padded += t.padded_tokens;
    log.Info("event=bucket_summary bucket=%v batches=%v mean_batch=%.1f padding_efficiency=%.3f",
             bound, t.batches, t.batches ? double(t.jobs) / t.batches : 0.0,
             t.padded_tokens ? double(t.real_tokens) / t.padded_tokens : 0.0);
  }
  const consumer::SourceStats& ss = source_stats;
  log.Info("event=summary run_seconds=%.1f messages=%v jobs_run=%v rejected=%v pauses=%v "
           "peak_queued=%v stored=%v published=%v acked=%v real_tokens=%v padded_tokens=%v",
           seconds, ss.messages.load(), jobs, ss.rejected.load(), ss.pauses.load(), queue.peak_queued_jobs(),
           rs.stored.load(), rs.published.load(), rs.acked.load(), real, padded);
  const pipeline::LoopStats& ls = loop.stats();
  log.Info("event=degraded_summary store_errors=%v publish_retries=%v undeliverable_permanent=%v "
           "undeliverable_exhausted=%v dead_letter_notices=%v suspects_run_alone=%v "
           "crash_isolated=%v abandoned=%v",
           rs.store_errors.load(), rs.publish_retries.load(), rs.undeliverable_permanent.load(),
           rs.undeliverable_exhausted.load(), rs.dead_letter_notices.load(),
           ls.suspects_run_alone.load(), ls.crash_isolated.load(), ls.abandoned.load());
  const executor::RunnerStats& ladder = (*runner)->stats();
  log.Info("event=ladder_summary oom_events=%v splits=%v cap_lowerings=%v fallback_runs=%v "
           "oom_failures=%v model_errors=%v device_override_runs=%v",
           ladder.oom_events.load(), ladder.splits.load(), ladder.cap_lowerings.load(),
           ladder.fallback_runs.load(), ladder.oom_failures.load(), ladder.model_errors.load(),
           ladder.override_runs.load());
  if (fatal) {
    log.Error("event=exit code=1 cause=%v error=\"%v\"", health.cause(), health.reason());
    return kExitFatal;
  }
  return kExitOk;
}

}  // namespace qinfer::app
