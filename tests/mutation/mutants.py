# The mutants of tests/mutation/run.sh: deliberate breaks of the code behind
# qinfer's guarantees. Each is (name, file, original text, mutated text,
# build targets, test command); the original text must occur exactly once.
# The test command runs in the build directory; $BROKERS is the broker that
# run.sh starts for the integration tests, $REPO the source tree.
UNIT = {
    "consumer": ("consumer_test", "./tests/consumer/consumer_test --gtest_brief=1"),
    "core": ("core_test", "./tests/core/core_test --gtest_brief=1"),
    "pipeline": ("pipeline_test", "./tests/pipeline/pipeline_test --gtest_brief=1"),
    "scheduler": ("scheduler_test", "./tests/scheduler/scheduler_test --gtest_brief=1"),
    "storage": ("storage_test", "./tests/storage/storage_test --gtest_brief=1"),
    "app": ("app_test qinfer", "./tests/app/app_test --gtest_brief=1"),
    "replay": ("replay_test", "./tests/replay/replay_test --gtest_brief=1"),
    "executor": ("executor_test memory_ladder_test",
                 "./tests/executor/executor_test --gtest_brief=1 && "
                 "./tests/executor/memory_ladder_test --gtest_brief=1"),
    "aoti": ("aoti_test", "./tests/executor/aoti_test --gtest_brief=1"),
    "precision": ("precision_check_test", "./tests/executor/precision_check_test --gtest_brief=1"),
}


# The job decoder fuzzer (tests/fuzz/run.sh builds it from the sources as
# they are, mutant included), for a bounded time over its corpus.
FUZZ = ("consumer_test", "QINFER_FUZZ_BUILD_DIR=$PWD/fuzz-mutation "
        "QINFER_TOKENIZER_RUST_LIB=$PWD/tokenizer/libqinfer_tokenizer_rust.a $REPO/tests/fuzz/run.sh 30")


def integration(filter_):
    return ("qinfer integration_test",
            "QINFER_TEST_BROKERS=$BROKERS ./tests/integration/integration_test "
            "--gtest_brief=1 --gtest_filter='" + filter_ + "'")


MUTANTS = [
    ("a replay keeps the failed attempt's number", "replay/src/replay.cc",
     "const int attempt = f.attempt + 1;", "const int attempt = f.attempt;", *UNIT["replay"]),
    ("chunk windows pooled without their lengths", "pipeline/src/chunk_assembler.cc",
     "const double w = double(window.length());", "const double w = 1.0;", *UNIT["pipeline"]),
    ("every chunk window adds an attempt", "pipeline/src/executor_loop.cc",
     "if (begun_.insert(KeyOf(job.origin)).second) first.push_back(job.origin);",
     "begun_.insert(KeyOf(job.origin)); first.push_back(job.origin);", *UNIT["pipeline"]),
    ("truncate keeps the whole input", "consumer/src/job_decoder.cc",
     "    a.kept = limits.max_tokens;\n", "", *UNIT["consumer"]),
    ("a number may end in junk ('0.1x')", "app/src/config.cc",
     "ec == std::errc() && ptr == end && std::isfinite(d)", "ec == std::errc() && std::isfinite(d)", *UNIT["app"]),
    ("--set overrides are ignored", "app/src/config.cc",
     """  for (const std::string& o : overrides) {""",
     """  for (const std::string& o : std::vector<std::string>{}) {""", *UNIT["app"]),
    ("a lowered cap is not stored in the plan", "app/src/plan.cc",
     "(void)writes_.Write(StoreWrite::kPlan, [&] { return store_.PutMeta(plan_->Key(), json); });",
     "(void)writes_.Write(StoreWrite::kPlan, [&] { return absl::OkStatus(); });",
     *integration("LadderIntegrationTest.ALoweredCapIsStored*")),
    ("commit one offset past the durable prefix", "consumer/src/offset_tracker.cc",
     "p.committable = p.pending.begin()->first + 1;",
     "p.committable = p.pending.begin()->first + 2;", *UNIT["consumer"]),
    ("acks from a stale assignment count", "consumer/src/offset_tracker.cc",
     """  if (it == partitions_.end() || it->second.epoch != origin.epoch) return;
  Partition& p = it->second;""",
     """  if (it == partitions_.end()) return;
  Partition& p = it->second;""", *UNIT["consumer"]),
    ("skip the ack after a record that is not published", "core/src/recorder.cc",
     """    } else {
      Ack(outcomes[i]);
    }""", """    } else if (outcomes[i].ok) {
      Ack(outcomes[i]);
    }""", *UNIT["core"]),
    ("retry permanent delivery errors", "core/src/recorder.cc",
     "const bool permanent = IsPermanentDeliveryError(s);", "const bool permanent = false;",
     *UNIT["core"]),
    ("a lasting store failure is not fatal", "core/src/store_writes.cc",
     "if (health_.RaiseFatal(fatal_cause::kStore,", "if (false && health_.RaiseFatal(fatal_cause::kStore,",
     *UNIT["core"]),
    ("a payload that is not UTF-8 is written as text", "core/src/outcome_json.cc",
     "if (IsValidUtf8(o.payload)) {", "if (true) {", *UNIT["core"]),
    ("no nesting bound", "consumer/src/job_envelope.cc",
     "if (JsonNestingDepth(m.value, limits.max_depth) > limits.max_depth) {",
     "if (false) {", *UNIT["consumer"]),
    ("accept the id equal to vocab_size", "consumer/src/job_input.cc",
     "? v.get<uint64_t>() >= uint64_t(limits.vocab_size)",
     "? v.get<uint64_t>() > uint64_t(limits.vocab_size)", *UNIT["consumer"]),
    ("no message byte bound", "consumer/src/job_envelope.cc",
     "if (m.value.size() > limits.max_message_bytes) {", "if (false) {", *UNIT["consumer"]),
    ("no attempt recorded before a run", "pipeline/src/executor_loop.cc",
     "if (!writes_.Write(StoreWrite::kAttempts, [&] { return attempts_->BeginAttempts(first, finished_); }).ok()) {",
     "if (!writes_.Write(StoreWrite::kAttempts, [&] { return absl::OkStatus(); }).ok()) {", *UNIT["pipeline"]),
    ("suspects run with the batch, not alone", "pipeline/src/executor_loop.cc",
     "    } else if (seen > 0) {", "    } else if (false) {", *UNIT["pipeline"]),
    ("one crash too many before a crash record", "pipeline/src/executor_loop.cc",
     "if (seen >= options_.max_attempts) {", "if (seen > options_.max_attempts) {",
     *UNIT["pipeline"]),
    ("no drain deadline", "pipeline/src/executor_loop.cc",
     "if (clock_.Now() > deadline || health_.fatal()) {",
     "if ((false && clock_.Now() > deadline) || health_.fatal()) {",
     *UNIT["pipeline"]),
    ("a superseded record of the other kind is not deleted", "storage/src/rocksdb_outcome_store.cc",
     "    if (prior->ok != o.ok) put.batch.Delete(cf, o.id);\n", "",
     *UNIT["storage"]),
    ("a failure overwrites a result of its attempt", "storage/src/store_layout.cc",
     "return std::pair(a.attempt, a.ok) < std::pair(b.attempt, b.ok);",
     "return a.attempt < b.attempt;", *UNIT["storage"]),
    ("an older attempt replaces a newer record", "storage/src/rocksdb_outcome_store.cc",
     "if (prior && Outranked(rank, *prior)) {", "if (false) {",
     *UNIT["storage"]),
    ("an outcome keeps its attempt count", "storage/src/rocksdb_outcome_store.cc",
     "if (!o.origin.topic.empty() && o.reason != reason::kCrash) done.push_back(AttemptKey(o.origin));",
     "if (false) done.push_back(AttemptKey(o.origin));",
     *UNIT["storage"]),
    ("no byte bound on the queue", "scheduler/src/scheduler.cc",
     "(policy_.max_queued_bytes > 0 && queued_bytes_ >= policy_.max_queued_bytes);",
     "false;", *UNIT["scheduler"]),
    ("the newest bucket is served first (starvation)", "scheduler/src/scheduler.cc",
     "    if (best < 0 || buckets_[i].arrivals.front().enqueued_at < buckets_[best].arrivals.front().enqueued_at) {",
     "    if (best < 0 || buckets_[i].arrivals.front().enqueued_at > buckets_[best].arrivals.front().enqueued_at) {",
     *UNIT["scheduler"]),
    ("treat an OOM as a model error", "executor/src/oom_ladder.cc",
     "oom = IsOutOfMemory(e);", "oom = false;", *UNIT["executor"]),
    ("pad past the longest row of the batch", "executor/src/batch_io.cc",
     "for (const TokenRow& row : rows) l = std::max<int64_t>(l, int64_t(row.ids->size()));",
     "for (const TokenRow& row : rows) l = std::max<int64_t>(l, int64_t(row.ids->size()) + 8);",
     *UNIT["executor"]),
    ("non-finite outputs become results", "executor/src/batch_io.cc",
     "if (!std::isfinite(", "if (false && !std::isfinite(", *UNIT["executor"]),
    ("drop the cap listener", "app/src/serve.cc",
     "s.runner->SetCapListener(&*s.plan_keeper);", "(void)s.plan_keeper;",
     *integration("LadderIntegrationTest.ALoweredCap*")),
    ("ignore the plan's caps", "app/src/serve_options.cc",
     "policy.caps[i] = std::clamp(e.batch_size, 1, config.scheduler.max_batch_size);",
     "policy.caps[i] = config.scheduler.max_batch_size;",
     *integration("LadderIntegrationTest.UnderAMemoryPlan*")),
    ("forget to pause", "consumer/src/kafka_job_source.cc",
     """    if (change == Backpressure::Change::kPause) {
      rd_kafka_pause_partitions(rk, owned.get());""", """    if (change == Backpressure::Change::kPause) {""",
     *integration("ServeIntegrationTest.Sigterm*")),
    ("a CPU package compiled for another CPU is run", "executor/src/model_files.cc",
     "if (!p.cpu_capability.empty() && p.cpu_capability != CpuCapability()) {", "if (false) {", *UNIT["aoti"]),
    ("a CPU package compiled for another thread count is run", "executor/src/model_files.cc",
     "if (p.threads > 0 && p.threads != threads) {", "if (false) {", *UNIT["aoti"]),
    ("the precision probe keeps its first rows' verdict", "executor/src/precision_check.cc",
     "if (report.rows++ == 0 || cosine < report.min_cosine) {", "if (report.rows++ < 6) {",
     *UNIT["precision"]),
    ("a full job queue pauses at once, without waiting for room", "consumer/src/backpressure.cc",
     "if (!queue_.IsFull() || WaitForRoom()) return Change::kNone;", "if (!queue_.IsFull()) return Change::kNone;",
     *UNIT["consumer"]),
    ("keep a stale pause after a rebalance", "consumer/src/kafka_job_source.cc",
     """    } else {
      rd_kafka_resume_partitions(rk, parts);
    }""", "    }", *integration("FaultTest.ThreeInstances*")),
    ("a closed queue's refusal is recorded as too_long", "consumer/src/message_handler.cc",
     "if (!absl::IsOutOfRange(pushed)) {", "if (false) {", *UNIT["consumer"]),
    ("the HTTP front end stops before its listen loop began (serve hangs)", "app/src/http_front_end.cc",
     "  while (!server_.is_running() && !loop_done_.load()) {", "  while (false) {", *UNIT["app"]),
    ("http.listen's port may end in junk (':94OO')", "app/src/config.cc",
     "ec != std::errc() || ptr != port.data() + port.size() ||", "ec != std::errc() ||", *UNIT["app"]),
    ("a model file swapped under its manifest is served", "executor/src/model_files.cc",
     "if (!manifest->digest.empty() && manifest->digest != *digest) {", "if (false) {", *UNIT["executor"]),
    ("start-up never fails /healthz", "core/src/health.cc",
     "if (!health.started() && startup_timeout.count() > 0 &&", "if (false &&", *UNIT["core"]),
    ("process_start_time_seconds is 0 until the first snapshot", "pipeline/src/service_metrics.cc",
     "  UpdateProcess();\n}\n\nvoid ServiceMetrics::SetIdentity", "}\n\nvoid ServiceMetrics::SetIdentity",
     *UNIT["pipeline"]),
    # The four guarantees of issue 23 item 7 that no test used to catch.
    ("recovery.max_attempts is not passed to the executor loop", "app/src/serve_options.cc",
     "  options.max_attempts = config.recovery.max_attempts;\n", "",
     *integration("RobustnessTest.ACrashingJobIsIsolatedAfterExactlyMaxAttemptsCrashes")),
    ("the nesting-depth scan ignores backslash escapes", "consumer/src/job_decoder.cc",
     "      else if (c == '\\\\')\n        escaped = true;\n", "", *UNIT["consumer"]),
    ("the nesting-depth scan ignores backslash escapes (the fuzzer's oracle)", "consumer/src/job_decoder.cc",
     "      else if (c == '\\\\')\n        escaped = true;\n", "", *FUZZ),
    ("outcomes_total counts a reason once per store write", "pipeline/src/service_metrics.cc",
     "      counts[o.reason]++;", "      counts[o.reason] = 1;", *UNIT["pipeline"]),
    ("a forced commit takes each partition past the last offset read", "consumer/src/offset_tracker.cc",
     "    if (p.committable >= 0) points.push_back({key.first, key.second, p.committable});",
     """    if (!p.pending.empty()) {
      points.push_back({key.first, key.second, p.pending.rbegin()->first + 1});
    } else if (p.committable >= 0) {
      points.push_back({key.first, key.second, p.committable});
    }""",
     *integration("ServeIntegrationTest.SigtermWithAnAbandonedDrain*:FaultTest.ARevokeCommitsNoOffset*")),
]
