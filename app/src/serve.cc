#include "serve.h"

#include <prometheus/registry.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "admission_checks.h"
#include "http_front_end.h"
#include "model_load.h"
#include "plan.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/thread_name.h"
#include "qinfer/consumer/kafka_job_source.h"
#include "qinfer/consumer/kafka_topics.h"
#include "qinfer/consumer/offset_tracker.h"
#include "qinfer/core/health.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/mutex.h"
#include "qinfer/core/recorder.h"
#include "qinfer/executor/cpu_block_cache.h"
#include "qinfer/executor/mkl_dispatch.h"
#include "qinfer/executor/precision_check.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/pipeline/executor_loop.h"
#include "qinfer/pipeline/run_control.h"
#include "qinfer/pipeline/service_metrics.h"
#include "qinfer/scheduler/batch_queue.h"
#include "qinfer/storage/kafka_outcome_publisher.h"
#include "qinfer/storage/rocksdb_outcome_store.h"
#include "serve_http.h"
#include "serve_options.h"
#include "serve_snapshot.h"
#include "serve_start_up.h"

namespace qinfer::app {
namespace {

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

// What lives through the whole of Serve, start-up included: the health, the
// metrics and what the HTTP handlers read, and the front end itself.
struct Front {
  // The one clock of the service: the queue stamps jobs with it, the runner
  // times them (queue_seconds) and the loop beats with it.
  const Clock& clock = RealClock();
  Health health;
  // Every store write that can fail: results, the attempt log, the plan.
  StoreWrites writes{health, {}};
  prometheus::Registry registry;
  pipeline::ServiceMetrics metrics{registry, ServiceStatGroups()};
  LiveView view;
  HttpFrontEnd http;
};

// The modules of one run, in the order they are built; destroyed in reverse:
// the loop before the consumer, the consumer before the recorder it calls,
// the recorder before the tracker, publisher and store it uses.
struct Service {
  std::unique_ptr<executor::TorchModelRunner> runner;
  std::optional<executor::PrecisionReport> precision;  // set when model.autocast is
  std::vector<int> bounds;
  OutputSettings output;
  // One tokenizer handle per worker of the tokenizer pool; each null when
  // the model takes input_ids only.
  std::vector<std::unique_ptr<tokenizer::Tokenizer>> tokenizers;
  // The model's image processor; null when it takes no images.
  std::unique_ptr<image::ImageProcessor> images;
  std::unique_ptr<storage::RocksDbOutcomeStore> store;
  std::optional<MemoryPlan> plan;
  DerivedPolicy derived;
  std::optional<scheduler::BatchQueue> queue;
  std::optional<PlanKeeper> plan_keeper;
  std::unique_ptr<storage::KafkaOutcomePublisher> publisher;
  consumer::OffsetTracker tracker;
  std::optional<OutcomeRecorder> recorder;
  std::optional<QueueForSource> source_queue;
  std::unique_ptr<consumer::KafkaJobSource> source;
  std::optional<pipeline::ExecutorLoop> loop;
};

// The build steps below return nullopt to go on, or the exit code start-up
// ends with (having logged why).

// The model, its buckets, the over-long policy against both, its tokenizer.
std::optional<int> LoadModel(const Config& config, Service& s) {
  auto runner = LoadRunner(config);
  if (!runner.ok()) return StartFailed(std::string(runner.status().message()));
  s.runner = *std::move(runner);
  if (StopRequested()) return StartAbandoned("model_loaded");
  const executor::ModelManifest& manifest = s.runner->manifest();
  auto bounds = BucketBounds(config, manifest);
  if (!bounds.ok()) return StartFailed(std::string(bounds.status().message()));
  s.bounds = *std::move(bounds);
  if (absl::Status st = CheckAdmission(config, manifest, s.bounds.back()); !st.ok()) {
    return StartFailed(std::string(st.message()));
  }
  auto output = OutputSettingsFrom(config, manifest);
  if (!output.ok()) return StartFailed(std::string(output.status().message()));
  s.output = *std::move(output);
  const int threads = TokenizerThreads(config, int(std::max(1u, std::thread::hardware_concurrency())));
  for (int i = 0; i < threads; ++i) {
    auto text_tokenizer = LoadTokenizer(config, manifest, manifest.TextTokensWithin(s.bounds.back()));
    if (!text_tokenizer.ok()) return StartFailed(std::string(text_tokenizer.status().message()));
    s.tokenizers.push_back(*std::move(text_tokenizer));
  }
  Logger("app").Info("event=tokenizer_pool threads=%v tokenizer=%v", threads,
                     s.tokenizers.front() ? manifest.tokenizer_path : std::string("none (input_ids)"));
  auto images = LoadImageProcessor(config, manifest);
  if (!images.ok()) return StartFailed(std::string(images.status().message()));
  s.images = *std::move(images);
  return std::nullopt;
}

// Under model.autocast, the primary's outputs must stay within
// model.min_cosine of float32 (embed), or its scores within
// model.max_score_diff with no top label changed (classify, rerank, tokens;
// executor/precision_check.h): checked once, before any plan or job, and
// refused as a configuration error.
std::optional<int> CheckPrecision(const Config& config, Service& s) {
  if (config.model.autocast.empty()) return std::nullopt;
  absl::StatusOr<executor::PrecisionReport> report =
      executor::CheckPrecision(*s.runner, config.model.min_cosine, config.model.max_score_diff);
  if (!report.ok()) return StartFailed("model.autocast " + config.model.autocast + ": " +
                                       std::string(report.status().message()));
  const std::string& task = s.runner->manifest().task.task;
  if (!report->accepted() && report->scores) {
    return StartFailed(absl::StrFormat(
        "model.autocast %s: the precision probe's %s scores differ from float32's by up to %.6f (a row of %d "
        "tokens, %d rows probed; model.max_score_diff %g) and %d top labels changed: the model's %s scores "
        "drift from its float32 scores; run it in float32 (model.autocast: empty), or raise "
        "model.max_score_diff if this drift is acceptable (a changed top label is refused whatever it says)",
        config.model.autocast, task, report->max_score_diff, report->worst_length, report->rows, report->bound,
        report->label_changes, report->dtype));
  }
  if (!report->accepted()) {
    return StartFailed(absl::StrFormat(
        "model.autocast %s: the precision probe's minimum cosine similarity to float32 is %.6f (a row of %d "
        "tokens, %d rows probed), below model.min_cosine %g: the model's %s outputs drift from its float32 "
        "outputs; run it in float32 (model.autocast: empty), or lower model.min_cosine if this drift is "
        "acceptable",
        config.model.autocast, report->min_cosine, report->worst_length, report->rows, report->floor,
        report->dtype));
  }
  const std::string skipped =
      report->skipped ? absl::StrFormat(" skipped=%d (out of memory alone)", report->skipped) : "";
  if (report->scores) {
    Logger("app").Info("event=precision_checked dtype=%v task=%v max_score_diff=%.6f label_changes=%v rows=%v "
                       "bound=%v%v",
                       report->dtype, task, report->max_score_diff, report->label_changes, report->rows,
                       report->bound, skipped);
  } else {
    Logger("app").Info("event=precision_checked dtype=%v min_cosine=%.6f rows=%v floor=%v%v", report->dtype,
                       report->min_cosine, report->rows, report->floor, skipped);
  }
  s.precision = *report;
  return std::nullopt;
}

// The store, the memory plan, and the scheduler whose caps come from it
// where the device has a budget (otherwise from the token budget per batch).
std::optional<int> BuildScheduler(const Config& config, bool recalibrate, Front& f, Service& s) {
  auto store = storage::RocksDbOutcomeStore::Open(config.storage.path, StoreOptionsFrom(config));
  if (!store.ok()) return StartFailed("storage.path: " + std::string(store.status().message()));
  s.store = *std::move(store);
  auto plan = LoadOrCalibratePlan(*s.runner, *s.store, f.writes, config, s.bounds, recalibrate);
  if (!plan.ok()) return StartFailed("memory plan: " + std::string(plan.status().message()));
  if (StopRequested()) return StartAbandoned("memory_plan");
  s.plan = plan->plan;
  auto log = Logger("app");
  if (s.plan) {
    for (const std::string& line : std::vector<std::string>(absl::StrSplit(FormatPlan(*s.plan), '\n'))) {
      if (!line.empty()) log.Info("plan: %v", line);
    }
  }
  s.derived = PolicyFrom(config, s.bounds, s.plan);
  // An aoti export's packages take at most max_batch rows at once.
  if (const int max_batch = s.runner->manifest().max_batch; max_batch > 0) {
    for (int& cap : s.derived.policy.caps) cap = std::min(cap, max_batch);
  }
  s.runner->SetUnfitBuckets(s.derived.unfit);
  const scheduler::BatchPolicy& policy = s.derived.policy;
  auto sched = scheduler::Scheduler::Create(policy);
  if (!sched.ok()) {
    return StartFailed("scheduler (scheduler.max_queued_bytes, limits.max_message_bytes): " +
                       std::string(sched.status().message()));
  }
  s.queue.emplace(*std::move(sched), f.clock);
  for (size_t i = 0; i < policy.bucket_bounds.size(); ++i) {
    log.Info("event=bucket bound=%v cap=%v%v", policy.bucket_bounds[i], policy.caps[i],
             s.derived.unfit.count(policy.bucket_bounds[i]) ? " unfit=true" : "");
  }
  s.plan_keeper.emplace(s.plan, *s.store, f.writes, *s.queue);
  s.runner->SetCapListener(&*s.plan_keeper);
  return std::nullopt;
}

// Every topic the configuration names must exist: a missing one would fail
// each delivery to it, job after job.
std::optional<int> CheckTopics(const Config& config) {
  absl::Status s = consumer::EnsureTopics(TopicCheckFrom(config));
  if (s.ok()) return std::nullopt;
  // Brokers that do not answer (yet) and topics not created yet may pass
  // by themselves: a code of their own, so that a supervisor retries them
  // and a reader does not take them for a bad configuration.
  if (absl::IsUnavailable(s)) {
    return StartFailed(std::string(s.message()) +
                           " [kafka.startup_wait_s = " + std::to_string(config.kafka.startup_wait.count()) + "]",
                       kExitTransient);
  }
  return StartFailed(std::string(s.message()), absl::IsNotFound(s) ? kExitTransient : kExitConfig);
}

// The publisher, the recorder, the consumer and the executor loop.
std::optional<int> BuildPipeline(const Config& config, const ServeOptions& options, Front& f, Service& s) {
  auto publisher = storage::KafkaOutcomePublisher::Create(PublisherConfigFrom(config));
  if (!publisher.ok()) return StartFailed("kafka.producer: " + std::string(publisher.status().message()));
  s.publisher = *std::move(publisher);
  OutcomeRecorder::Options recorder_options;
  recorder_options.observer = &f.metrics;
  s.recorder.emplace(*s.store, s.publisher.get(), s.tracker, f.writes, f.health, recorder_options);
  s.source_queue.emplace(*s.queue);
  const executor::ModelManifest& manifest = s.runner->manifest();
  std::vector<const tokenizer::Tokenizer*> handles;
  for (const auto& t : s.tokenizers) handles.push_back(t.get());
  auto source = consumer::KafkaJobSource::Create(SourceConfigFrom(config, manifest, s.output, s.bounds.back(), handles, s.images.get()),
                                                 *s.source_queue, *s.recorder, s.tracker);
  if (!source.ok()) return StartFailed(std::string(source.status().message()));
  s.source = *std::move(source);
  f.view.SetConsumer(&s.source->stats());
  pipeline::LoopOptions loop_options = LoopOptionsFrom(config, manifest, s.output);
  if (!options.hold_file_for_test.empty()) {
    // Not released by SIGTERM: a test holds the drain with it.
    loop_options.before_batch = [path = options.hold_file_for_test] { WaitWhileExists(path, nullptr); };
  }
  s.loop.emplace(*s.queue, *s.runner, *s.recorder, s.store.get(), f.writes, f.health, f.clock, loop_options,
                 &f.metrics);
  return std::nullopt;
}

// Start-up after the HTTP front end: each step, and between them a look at
// the signal flag.
std::optional<int> Build(const Config& config, const ServeOptions& options, Front& f, Service& s) {
  if (auto code = LoadModel(config, s)) return code;
  if (auto code = CheckPrecision(config, s)) return code;
  if (StopRequested()) return StartAbandoned("precision_checked");
  if (auto code = BuildScheduler(config, options.recalibrate, f, s)) return code;
  if (auto code = CheckTopics(config)) return code;
  if (StopRequested()) return StartAbandoned("topics_checked");
  return BuildPipeline(config, options, f, s);
}

// Who and where, for /metrics and /status.
pipeline::ServiceSnapshot Identity(const Config& config, const Service& s) {
  const executor::TorchModelRunner& runner = *s.runner;
  pipeline::ServiceSnapshot identity;
  identity.version = QINFER_VERSION;
  identity.libtorch = executor::TorchVersion();
  identity.model = runner.manifest().name;
  identity.model_digest = runner.manifest().digest;
  identity.device = config.model.device;
  identity.fallback_device = runner.has_fallback() ? "cpu" : "";
  if (s.precision) {  // /status reports the probe: cosines (embed) or scores
    identity.precision_dtype = s.precision->dtype;
    identity.precision_min_cosine = s.precision->min_cosine;
    identity.precision_rows = s.precision->rows;
    identity.precision_floor = s.precision->floor;
    identity.precision_scores = s.precision->scores;
    identity.precision_max_score_diff = s.precision->max_score_diff;
    identity.precision_label_changes = s.precision->label_changes;
    identity.precision_bound = s.precision->bound;
  }
  const executor::TorchThreads threads = executor::CurrentTorchThreads();
  identity.intra_op_threads = threads.intra_op;
  identity.inter_op_threads = threads.inter_op;
  identity.mkl_dispatch = config.model.mkl_dispatch;
  identity.mkl_kernel_path = executor::MklKernelPath();
  Logger("app").Info("event=torch_threads intra_op=%v inter_op=%v (model.threads=%v)", threads.intra_op,
                     threads.inter_op, config.model.threads);
  return identity;
}

// The modules' figures now, for /metrics and /status (any thread).
pipeline::ServiceSnapshot ReadSnapshot(const pipeline::ServiceSnapshot& identity, SteadyTime started,
                                       std::chrono::nanoseconds stall, const Front& f, const Service& s) {
  return BuildSnapshot({.identity = identity,
                        .uptime = RealClock().Now() - started,
                        .health = f.health,
                        .now = f.clock.Now(),
                        .stall = stall,
                        .buckets = s.queue->Stats(),
                        .totals = s.loop->totals(),
                        .unfit = s.derived.unfit,
                        .partitions = s.source->partitions(),
                        .source = s.source->stats(),
                        .decode = s.source->decode_stats(),
                        .records = f.metrics.records(),
                        .memory = s.runner->memory(),
                        .runner = s.runner->stats(),
                        .cpu_block_cache = executor::ProcessCpuBlockCacheStats(),
                        .recorder = s.recorder->stats(),
                        .store = f.writes.stats(),
                        .loop = s.loop->stats()});
}

// The consumer and executor threads of a started service.
struct Threads {
  std::atomic<bool> stop_fetching{false};
  std::thread consumer;
  std::thread executor;
};

void StartThreads(Front& f, Service& s, Threads& t) {
  t.consumer = std::thread([&f, &s, &t] {
    StageThread stage("consumer");
    absl::Status st = s.source->Run(t.stop_fetching);
    if (!st.ok() && f.health.RaiseFatal(fatal_cause::kConsumer, std::string(st.message()))) {
      Logger("app").Error("event=fatal cause=consumer error=\"%v\"", std::string(st.message()));
    }
  });
  t.executor = std::thread([&s] {
    StageThread stage("executor");
    s.loop->Run();
  });
}

// Until a signal, a fatal condition, or idleness in batch mode; true when
// fatal.
bool WaitForStop(int idle_exit_seconds, const Front& f, const Service& s) {
  const consumer::SourceStats& stats = s.source->stats();
  pipeline::RunControl control(f.clock, std::chrono::seconds(idle_exit_seconds));
  pipeline::RunDecision decision;
  while ((decision = control.Tick(
              {stats.messages.load(), s.tracker.pending(), s.queue->queued_jobs(), stats.assigned_partitions.load()},
              StopRequested().load(), f.health.fatal())) == pipeline::RunDecision::kContinue) {
    RealClock().SleepFor(std::chrono::milliseconds(100));
  }
  if (decision == pipeline::RunDecision::kIdleExit) {
    Logger("app").Info("event=idle_exit idle_seconds=%v", idle_exit_seconds);
  }
  return decision == pipeline::RunDecision::kFatal;
}

// Fetch no more, drain (or abandon, when fatal), flush, commit what is
// durable; then the publisher goes, before the recorder and tracker its
// delivery callbacks call into. shutdown.drain_timeout_s bounds all of it,
// so that a supervisor's grace period above it is never cut short; the
// flush and the commit get at least a moment each, even after a drain that
// used the whole bound.
void Shutdown(const Config& config, bool fatal, Front& f, Service& s, Threads& t) {
  auto log = Logger("app");
  log.Info("event=shutdown phase=stop_fetching fatal=%v", fatal);
  const SteadyTime deadline = RealClock().Now() + config.shutdown.drain_timeout;
  auto time_left = [&] {
    return std::max(std::chrono::milliseconds(1000),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - RealClock().Now()));
  };
  f.health.SetDraining();
  t.stop_fetching = true;
  t.consumer.join();
  s.queue->Close();
  t.executor.join();
  log.Info("event=shutdown phase=flush");
  if (absl::Status st = s.recorder->Flush(time_left()); !st.ok()) {
    log.Warn("event=flush_incomplete error=\"%v\"", std::string(st.message()));
  }
  log.Info("event=shutdown phase=commit");
  absl::Status closed = s.source->Close(time_left());
  if (!closed.ok()) log.Warn("event=commit_failed error=\"%v\"", std::string(closed.message()));
  s.publisher.reset();
}

// The summary of this run: per bucket, overall, degraded modes, the ladder.
void LogSummary(SteadyTime started, const Service& s, const Front& f) {
  const pipeline::ServiceMetrics& metrics = f.metrics;
  auto log = Logger("app");
  const double seconds = std::chrono::duration<double>(RealClock().Now() - started).count();
  uint64_t jobs = 0, real = 0, padded = 0;
  for (const auto& [bound, t] : s.loop->totals()) {
    jobs += t.jobs;
    real += t.real_tokens;
    padded += t.padded_tokens;
    log.Info("event=bucket_summary bucket=%v batches=%v mean_batch=%.1f padding_efficiency=%.3f", bound, t.batches,
             t.batches ? double(t.jobs) / t.batches : 0.0,
             t.padded_tokens ? double(t.real_tokens) / t.padded_tokens : 0.0);
  }
  // Each component's counters, under the names /status gives them.
  auto counters = [](const StatValues& values) {
    std::string line;
    for (const auto& [name, value] : values) absl::StrAppend(&line, " ", name, "=", value);
    return line;
  };
  log.Info(
      "event=summary run_seconds=%.1f jobs_run=%v peak_queued=%v peak_decoding=%v real_tokens=%v padded_tokens=%v%v%v",
      seconds, jobs, s.queue->peak_queued_jobs(), s.source->decode_stats().peak_in_flight.load(), real, padded,
      counters(s.source->stats().Values()), counters(s.recorder->stats().Values()) + counters(f.writes.stats().Values()));
  log.Info("event=decode_summary%v", counters(s.source->decode_stats().Values()));
  // Where the time went, by stage (bench/pipeline reports it per job).
  const pipeline::ServiceMetrics::StageSeconds stages = metrics.Stages();
  log.Info(
      "event=stage_summary decode_seconds=%.4f inference_seconds=%.4f store_write_seconds=%.4f store_writes=%v "
      "ack_seconds=%.4f offset_store_seconds=%.4f offset_stores=%v job_latency_seconds=%.4f",
      double(s.source->decode_stats().busy_ns.load()) / 1e9, stages.inference, stages.store_write,
      stages.store_writes, double(s.recorder->stats().ack_ns.load()) / 1e9,
      double(s.source->stats().offset_store_ns.load()) / 1e9, s.source->stats().offset_stores.load(),
      stages.job_latency);
  // Where the CPU went, by thread (core/thread_name.h): qinfer's own
  // threads by stage, and the whole process (librdkafka, RocksDB, torch).
  std::string cpu;
  for (const auto& [stage, cpu_seconds] : StageCpuSeconds()) absl::StrAppendFormat(&cpu, " %s=%.3f", stage, cpu_seconds);
  log.Info("event=thread_cpu_summary%v", cpu);
  log.Info("event=loop_summary%v", counters(s.loop->stats().Values()));
  log.Info("event=ladder_summary%v", counters(s.runner->stats().Values()));
  const executor::BlockCacheStats cache = executor::ProcessCpuBlockCacheStats();
  log.Info("event=cpu_block_cache_summary hits=%v misses=%v released=%v held_bytes=%v limit_bytes=%v", cache.hits,
           cache.misses, cache.released, cache.held_bytes, cache.limit_bytes);
}

}  // namespace

int Serve(const Config& config, const ServeOptions& options) {
  const auto started = RealClock().Now();
  InstallSignalHandlers();
  if (auto code = CheckLocalSettings(config)) return *code;
  Front f;
  f.health.SetStartupDeadline(f.clock.Now(), config.health.startup_timeout);
  f.health.Beat(f.clock.Now());

  // HTTP first, so that /healthz and /readyz answer during start-up (not
  // ready while the model loads and the plan calibrates).
  const HttpOptions http = HttpOptionsFrom(config);
  if (absl::Status s =
          StartServeHttp(f.http, http, {f.health, f.clock, http.executor_stall, f.metrics, f.registry, f.view});
      !s.ok()) {
    return StartFailed(std::string(s.message()));
  }
  StartUpGuard guard(config.shutdown.drain_timeout);
  Service service;
  // Stops the HTTP server on every return from here on, before the service
  // its handlers read is destroyed (invoked early at the end of a run).
  // HttpFrontEnd::Stop is safe however early this runs.
  absl::Cleanup stop_http = [&f] { f.http.Stop(); };
  // The start-up hold (tests only) gives up at a signal.
  WaitWhileExists(options.hold_file_for_test, &StopRequested());
  if (StopRequested()) return StartAbandoned("before_model_load");

  // ---- build
  if (auto code = Build(config, options, f, service)) return *code;
  const pipeline::ServiceSnapshot identity = Identity(config, service);
  f.metrics.SetIdentity(identity);
  f.view.SetSnapshot([&, identity] { return ReadSnapshot(identity, started, http.executor_stall, f, service); });

  // ---- start: from here a signal is a drain, bounded by the loop.
  // The model's forward passes from now on are the executor thread's: the
  // workers this thread's start-up passes left would double OpenMP's count.
  if (!executor::ReleaseIntraOpWorkersOfThisThread()) {
    Logger("app").Warn("event=intra_op_workers_kept reason=\"the OpenMP runtime has no omp_pause_resource_all\"");
  }
  guard.Done();
  f.health.SetStarted();
  Threads threads;
  StartThreads(f, service, threads);
  Logger("app").Info("event=serving topic=%v group=%v store=%v", config.kafka.jobs_topic, config.kafka.group_id,
                     config.storage.path);

  // ---- wait, then stop in the documented order.
  const bool fatal = WaitForStop(options.idle_exit_seconds, f, service);
  Shutdown(config, fatal, f, service, threads);
  // Before the objects its handlers read go out of scope.
  std::move(stop_http).Invoke();

  LogSummary(started, service, f);
  if (fatal) {
    Logger("app").Error("event=exit code=1 cause=%v error=\"%v\"", f.health.cause(), f.health.reason());
    return kExitFatal;
  }
  return kExitOk;
}

}  // namespace qinfer::app
