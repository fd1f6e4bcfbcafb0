// Benchmark: executor policies side by side on the same model, budget and
// jobs (bench/policies/run.sh runs it on every workload; docs/benchmarks/policies.md shows it).
//
//   (a) arrival8: TorchServe-style: one queue in arrival order, a fixed
//                 batch of 8, padded to the longest member;
//   (b) shared:   power-of-two length buckets in arrival order that share one
//                 batch size: the plan's size for the longest bucket, the
//                 one size that fits every bucket;
//   (c) qinfer:   the service's own policy: the same buckets, each with the
//                 calibrated plan's batch size, batches formed by length
//                 (scheduler.formation: length);
//   (d) ideal:    the same tokens in full batches at the plan's sizes with
//                 no padding at all (see RunIdeal): what the model can do.
// Also, as an ablation, qinfer_arrival: (c)'s buckets and caps with batches
// formed in arrival order, which shows what length formation alone brings;
// and sorted64: the whole set sorted by length in batches of 64, as a batch
// framework runs it when the user sorts first (see RunSorted).
//
// The jobs are an offline backlog: they are admitted, in file order, as fast
// as the scheduler's queue bounds allow (the service's defaults), and batches
// run on the real TorchScript model through TorchModelRunner (OOM ladder
// included) on the configured device. Policies alternate, --rounds times,
// and the JSON holds every round and each policy's medians. Timed: admitting,
// forming and running batches; not model loading or calibration. As in
// serve, the model loads on the main thread and the rounds run on a thread of
// their own, after the main thread's intra-op workers are released
// (ReleaseIntraOpWorkersOfThisThread): the executor-only figure is the
// service's own arrangement, less the service.
//
//   policy_bench --model DIR [--model-file model.pt] --jobs FILE.jsonl --workload NAME --out FILE.json
//                [--device cpu-budget:256MiB] [--threads 2] [--rounds 3]
//                [--policies arrival8,shared,qinfer,ideal,qinfer_arrival,sorted64]
//                [--max-batch-size 64] [--max-batch-delay-ms 50]
//                [--margin 0.1] [--autocast bf16] [--cuda-memory-fraction F] [--mkl-dispatch isa|vendor]
//                [--outputs FILE.jsonl]   (every job's output, last round of the first policy)
//                [--warmup-rounds N]      (untimed rounds first; default 0)
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/cpu_block_cache.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/scheduler/buckets.h"
#include "qinfer/scheduler/scheduler.h"

namespace {

using nlohmann::json;
using qinfer::Batch;
using qinfer::Job;
using qinfer::MemoryPlan;
using qinfer::Outcome;
using qinfer::executor::TorchModelRunner;
using qinfer::scheduler::BatchPolicy;
using qinfer::scheduler::Formation;
using qinfer::scheduler::Scheduler;
using Clock = std::chrono::steady_clock;

[[noreturn]] void Fail(const std::string& message) {
  std::cerr << "policy_bench: " << message << "\n";
  std::exit(2);
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::vector<Job> ReadJobs(const std::string& path, int64_t vocab) {
  std::ifstream in(path);
  if (!in) Fail("cannot read " + path);
  std::vector<Job> jobs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("input_ids")) Fail(path + ": not a job line: " + line.substr(0, 80));
    Job job;
    job.id = j.value("id", "job-" + std::to_string(jobs.size()));
    job.input_ids = j.at("input_ids").get<std::vector<int64_t>>();
    for (int64_t id : job.input_ids) {
      if (id < 0 || id >= vocab)
        Fail(path + ": job " + job.id + " has token id " + std::to_string(id) + " outside the model's vocabulary of " +
             std::to_string(vocab));
    }
    jobs.push_back(std::move(job));
  }
  if (jobs.empty()) Fail(path + " holds no jobs");
  return jobs;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t index = std::min(values.size() - 1, size_t(p * double(values.size() - 1) + 0.5));
  return values[index];
}

double Median(std::vector<double> values) { return Percentile(std::move(values), 0.5); }

void WriteOutputs(const std::string& path, const std::map<std::string, std::vector<float>>& outputs) {
  std::ofstream out(path);
  if (!out) Fail("cannot write " + path);
  for (const auto& [id, output] : outputs) out << json{{"id", id}, {"output", output}}.dump() << "\n";
}

struct RoundResult {
  double wall_s = 0;
  uint64_t jobs = 0, ok = 0, failed = 0, lost = 0, batches = 0;
  uint64_t real_tokens = 0, padded_tokens = 0;  // of the jobs that got a result
  uint64_t oom_events = 0, cap_lowerings = 0, fallback_runs = 0;
  int64_t peak_bytes = 0;
  double p50_ms = 0, p99_ms = 0;
  // Each batch as it ran: jobs, padded length of its first piece, seconds in Run.
  std::vector<std::array<double, 3>> batch_runs;
  // Each job's output, kept only in a round asked to keep them (--outputs).
  std::map<std::string, std::vector<float>> outputs;

  double RunSeconds() const {
    double s = 0;
    for (const auto& b : batch_runs) s += b[2];
    return s;
  }

  json ToJson(int64_t budget) const {
    return {{"wall_s", wall_s},
            {"jobs", jobs},
            {"ok", ok},
            {"failed", failed},
            {"lost", lost},
            {"batches", batches},
            {"mean_batch", batches ? double(ok + failed) / double(batches) : 0.0},
            {"real_tokens", real_tokens},
            {"padded_tokens", padded_tokens},
            {"padding_efficiency", padded_tokens ? double(real_tokens) / double(padded_tokens) : 0.0},
            {"real_tokens_per_s", wall_s > 0 ? double(real_tokens) / wall_s : 0.0},
            {"jobs_per_s", wall_s > 0 ? double(ok) / wall_s : 0.0},
            {"p50_ms", p50_ms},
            {"p99_ms", p99_ms},
            {"run_s", RunSeconds()},
            {"batch_runs", batch_runs},
            {"peak_bytes", peak_bytes},
            {"peak_over_budget", budget > 0 ? double(peak_bytes) / double(budget) : 0.0},
            {"oom_events", oom_events},
            {"cap_lowerings", cap_lowerings},
            {"fallback_runs", fallback_runs}};
  }
};

// Runs `batch` and adds its outcomes to `r`; latency counts from `admitted`.
void RunBatch(TorchModelRunner& runner, const Batch& batch, const std::map<std::string, Clock::time_point>& admitted,
              std::vector<double>& latencies_ms, std::map<std::string, int>& seen, bool keep_outputs, RoundResult& r) {
  const Clock::time_point begin = Clock::now();
  absl::StatusOr<std::vector<Outcome>> outcomes = runner.Run(batch);
  const Clock::time_point done = Clock::now();
  if (!outcomes.ok())
    Fail("batch of bucket " + std::to_string(batch.bucket_bound) + ": " + std::string(outcomes.status().message()));
  r.batches++;
  // One forward may have been split by the ladder: pad per piece that ran.
  std::map<std::pair<int, int>, int> pieces;  // (batch_size, padded_length) -> jobs
  for (const Outcome& o : *outcomes) {
    seen[o.id]++;
    if (!o.ok) {
      r.failed++;
      continue;
    }
    r.ok++;
    r.real_tokens += o.input_length;
    if (keep_outputs) r.outputs[o.id] = o.output;
    pieces[{o.batch_size, o.padded_length}]++;
    latencies_ms.push_back(1000.0 * Seconds(done - admitted.at(o.id)));
  }
  for (const auto& [shape, jobs] : pieces) r.padded_tokens += uint64_t(jobs) * uint64_t(shape.second);
  r.batch_runs.push_back({double(batch.jobs.size()), pieces.empty() ? 0.0 : double(pieces.begin()->first.second),
                          Seconds(done - begin)});
}

// One round of one policy: the bookkeeping every policy shares.
class Round {
 public:
  Round(TorchModelRunner& runner, const std::vector<Job>& jobs, bool keep_outputs)
      : runner_(runner),
        jobs_(jobs),
        keep_outputs_(keep_outputs),
        ooms0_(runner.stats().oom_events),
        caps0_(runner.stats().cap_lowerings),
        fallback0_(runner.stats().fallback_runs) {
    r_.jobs = jobs.size();
    runner_.memory().ResetPeak();
    start_ = Clock::now();
  }
  void Admitted(const std::string& id, Clock::time_point at) { admitted_[id] = at; }
  Clock::time_point start() const { return start_; }
  void Run(const Batch& batch) { RunBatch(runner_, batch, admitted_, latencies_ms_, seen_, keep_outputs_, r_); }
  RoundResult Finish() {
    r_.wall_s = Seconds(Clock::now() - start_);
    r_.peak_bytes = runner_.memory().peak_bytes();
    r_.oom_events = runner_.stats().oom_events - ooms0_;
    r_.cap_lowerings = runner_.stats().cap_lowerings - caps0_;
    r_.fallback_runs = runner_.stats().fallback_runs - fallback0_;
    for (const Job& job : jobs_) r_.lost += seen_.count(job.id) == 0 ? 1 : 0;
    r_.p50_ms = Percentile(latencies_ms_, 0.5);
    r_.p99_ms = Percentile(latencies_ms_, 0.99);
    return r_;
  }

 private:
  TorchModelRunner& runner_;
  const std::vector<Job>& jobs_;
  const bool keep_outputs_;
  const uint64_t ooms0_, caps0_, fallback0_;
  Clock::time_point start_;
  RoundResult r_;
  std::map<std::string, Clock::time_point> admitted_;
  std::map<std::string, int> seen_;
  std::vector<double> latencies_ms_;
};

struct Setup {
  std::vector<int> bounds;
  std::vector<int> plan_caps;
  BatchPolicy defaults;  // queue bounds and delay, as the service has them
};

// (a), (b), (c) and the ablation go through the real Scheduler.
RoundResult RunScheduled(TorchModelRunner& runner, const std::vector<Job>& jobs, BatchPolicy policy,
                         bool keep_outputs) {
  absl::StatusOr<Scheduler> created = Scheduler::Create(policy);
  if (!created.ok()) Fail(std::string(created.status().message()));
  Scheduler scheduler = *std::move(created);
  Round round(runner, jobs, keep_outputs);
  size_t next = 0;
  while (true) {
    // The consumer: admits while the queue has room.
    while (next < jobs.size() && !scheduler.IsFull()) {
      Job job = jobs[next++];
      round.Admitted(job.id, Clock::now());
      if (absl::Status s = scheduler.Admit(std::move(job), Clock::now()); !s.ok()) Fail(std::string(s.message()));
    }
    if (scheduler.queued_jobs() == 0 && next == jobs.size()) break;
    std::optional<Batch> batch = scheduler.NextBatch(Clock::now());
    if (!batch) {
      // Only the tail waits: partial buckets go at their age bound.
      std::optional<qinfer::SteadyTime> deadline = scheduler.NextDeadline();
      if (deadline) std::this_thread::sleep_until(*deadline);
      continue;
    }
    round.Run(*batch);
  }
  return round.Finish();
}

// The whole job set sorted by length and cut into consecutive batches:
//   (d) ideal: at the plan's size for each batch's longest job, every row of
//       a batch then set to the batch's mean length: the same tokens in full
//       batches with no padding at all. (Batches of one exact length would be
//       as free of padding, but too few jobs share a length to fill them.)
//       Outputs differ from the jobs' own; only the time counts.
//   sorted64: batches of 64 padded to their longest: what a batch framework
//       does when the user sorts the whole set by length first (Ray Data's
//       map_batches with batch_size 64 on a sorted dataset), emulated here on
//       the same runner: only the model's compute, none of Ray's overhead.
//       It knows nothing of the memory plan; an OOM goes down the ladder.
RoundResult RunSorted(TorchModelRunner& runner, const std::vector<Job>& jobs, const Setup& setup, bool ideal,
                      bool keep_outputs) {
  std::vector<const Job*> sorted;
  for (const Job& job : jobs) sorted.push_back(&job);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Job* a, const Job* b) { return a->length() < b->length(); });
  std::vector<Batch> batches;
  for (size_t i = 0; i < sorted.size();) {
    Batch batch;
    size_t tokens = 0;
    // Grow while the batch size for the longest member so far allows.
    while (i < sorted.size()) {
      const int bucket = qinfer::scheduler::BucketIndexFor(setup.bounds, sorted[i]->length());
      if (bucket < 0) Fail("a job of " + std::to_string(sorted[i]->length()) + " tokens is longer than every bucket");
      const size_t cap = ideal ? size_t(std::max(1, setup.plan_caps[size_t(bucket)])) : 64;
      if (batch.jobs.size() >= cap) break;
      batch.bucket_bound = setup.bounds[size_t(bucket)];
      batch.jobs.push_back(*sorted[i]);
      tokens += sorted[i]->length();
      ++i;
    }
    if (ideal) {
      const size_t mean = std::max<size_t>(1, (tokens + batch.jobs.size() / 2) / batch.jobs.size());
      for (Job& job : batch.jobs) job.input_ids.resize(mean, 1);
    }
    batches.push_back(std::move(batch));
  }
  Round round(runner, jobs, keep_outputs);
  for (const Job& job : jobs) round.Admitted(job.id, round.start());
  for (const Batch& batch : batches) round.Run(batch);
  return round.Finish();
}

BatchPolicy PolicyFor(const std::string& name, const Setup& setup) {
  BatchPolicy p = setup.defaults;
  if (name == "arrival8") {
    p.bucket_bounds = {setup.bounds.back()};
    p.caps = {8};
    p.formation = Formation::kArrival;
  } else if (name == "shared") {
    p.bucket_bounds = setup.bounds;
    const int shared = std::max(1, setup.plan_caps.back());
    p.caps.assign(setup.bounds.size(), shared);
    p.formation = Formation::kArrival;
  } else if (name.rfind("qinfer:", 0) == 0) {
    // qinfer with another scheduler.max_padding, e.g. qinfer:0.3 (to compare).
    p = PolicyFor("qinfer", setup);
    p.max_padding = std::stod(name.substr(7));
  } else if (name == "qinfer" || name == "qinfer_arrival") {
    p.bucket_bounds = setup.bounds;
    p.caps = setup.plan_caps;
    for (int& cap : p.caps) cap = std::max(1, cap);
    p.formation = name == "qinfer" ? Formation::kLength : Formation::kArrival;
  } else {
    Fail("unknown policy '" + name + "': expected arrival8, shared, qinfer, ideal, sorted64 or qinfer_arrival");
  }
  return p;
}

// One round of the policy `name`.
RoundResult RunPolicy(const std::string& name, TorchModelRunner& runner, const std::vector<Job>& jobs,
                      const Setup& setup, bool keep_outputs) {
  if (name == "ideal" || name == "sorted64") return RunSorted(runner, jobs, setup, name == "ideal", keep_outputs);
  return RunScheduled(runner, jobs, PolicyFor(name, setup), keep_outputs);
}

// The plan in `path` when its key matches this runner and calibration; else an error.
absl::StatusOr<MemoryPlan> ReadCachedPlan(const std::string& path, TorchModelRunner& runner,
                                          const qinfer::executor::CalibrationOptions& calibration) {
  std::ifstream cached(path);
  const std::string text((std::istreambuf_iterator<char>(cached)), std::istreambuf_iterator<char>());
  absl::StatusOr<MemoryPlan> plan = qinfer::PlanFromJson(text);
  MemoryPlan wanted;
  wanted.model_digest = runner.manifest().digest;
  wanted.device = runner.device();
  wanted.dtype = runner.dtype();
  wanted.torch_version = qinfer::executor::TorchVersion();
  wanted.budget_bytes = runner.memory().budget_bytes();
  wanted.margin = calibration.margin;
  wanted.max_batch_size = calibration.max_batch_size;
  wanted.bounds = calibration.bounds;
  if (plan.ok() && plan->Key() != wanted.Key()) return absl::NotFoundError("the cached plan is for another setup");
  return plan;
}

// Every policy's rounds and their medians.
json PoliciesJson(const std::map<std::string, std::vector<RoundResult>>& results, int64_t budget) {
  json by_policy = json::object();
  for (const auto& [name, rs] : results) {
    json p;
    p["rounds"] = json::array();
    for (const RoundResult& r : rs) p["rounds"].push_back(r.ToJson(budget));
    json median = json::object();
    for (const auto& [key, value] : p["rounds"][0].items()) {
      if (!value.is_number()) continue;  // batch_runs: per round only
      std::vector<double> values;
      for (const json& round : p["rounds"]) values.push_back(round[key].get<double>());
      median[key] = Median(values);
    }
    // Counts that must hold in every round, not only in the median one.
    uint64_t lost = 0, ooms = 0;
    for (const RoundResult& r : rs) {
      lost = std::max(lost, r.lost);
      ooms = std::max(ooms, r.oom_events);
    }
    median["lost_max"] = lost;
    median["oom_events_max"] = ooms;
    p["median"] = median;
    by_policy[name] = p;
  }
  return by_policy;
}

// qinfer's median real tokens/s over each other policy's (null where one did not run).
json RatiosJson(const json& by_policy) {
  auto ratio = [&](const std::string& a, const std::string& b) -> json {
    if (!by_policy.contains(a) || !by_policy.contains(b)) return nullptr;
    const double denominator = by_policy[b]["median"]["real_tokens_per_s"].get<double>();
    return denominator > 0 ? json(by_policy[a]["median"]["real_tokens_per_s"].get<double>() / denominator)
                           : json(nullptr);
  };
  return {{"qinfer_over_arrival8", ratio("qinfer", "arrival8")},
          {"qinfer_over_shared", ratio("qinfer", "shared")},
          {"qinfer_over_ideal", ratio("qinfer", "ideal")},
          {"qinfer_over_qinfer_arrival", ratio("qinfer", "qinfer_arrival")},
          {"qinfer_over_sorted64", ratio("qinfer", "sorted64")}};
}

}  // namespace

int main(int argc, char** argv) {
  // serve's malloc setting, so that these figures stand for its executor.
  qinfer::executor::TuneProcessMalloc();
  CLI::App app{"qinfer executor policies side by side (see the source's header comment)"};
  std::string model_dir, model_file = "model.pt", jobs_path, workload = "jobs", out_path, outputs_path;
  std::string device = "cpu-budget:256MiB", autocast, plan_cache, mkl_dispatch = "isa";
  std::vector<std::string> policies = {"arrival8", "shared", "qinfer", "ideal"};
  int threads = 2, rounds = 3, warmup_rounds = 0, max_batch_size = 64, delay_ms = 50;
  double margin = 0.1, cuda_fraction = 0, max_padding = qinfer::scheduler::BatchPolicy{}.max_padding;
  size_t extra_padding_tokens = 32;  // the service's default
  app.add_option("--model", model_dir, "directory with model.pt and manifest.json")->required();
  app.add_option("--model-file", model_file, "the model file inside --model");
  app.add_option("--jobs", jobs_path, "JSONL jobs ({\"id\", \"input_ids\"} per line)")->required();
  app.add_option("--workload", workload, "the workload's name, for the report");
  app.add_option("--out", out_path, "JSON report")->required();
  app.add_option("--device", device, "primary device (cpu-budget:<size>, cuda:N)");
  app.add_option("--threads", threads, "torch intra-op threads (0: libtorch's default)");
  app.add_option("--rounds", rounds, "rounds; each runs every policy once")->check(CLI::PositiveNumber);
  app.add_option("--warmup-rounds", warmup_rounds, "untimed rounds of every policy before the timed ones");
  app.add_option("--policies", policies, "arrival8 shared qinfer ideal qinfer_arrival sorted64")->delimiter(',');
  app.add_option("--max-batch-size", max_batch_size, "largest batch the plan may choose");
  app.add_option("--max-batch-delay-ms", delay_ms, "age bound of a partial batch");
  app.add_option("--margin", margin, "memory plan margin");
  app.add_option("--max-padding", max_padding, "qinfer's scheduler.max_padding");
  app.add_option("--extra-padding-tokens", extra_padding_tokens, "qinfer's scheduler.extra_padding_tokens");
  app.add_option("--plan-cache", plan_cache,
                 "a memory plan file: reused when its key (model, device, budget, buckets...) matches, else "
                 "calibrated and written");
  app.add_option("--autocast", autocast, "bf16 | fp16 | empty");
  app.add_option("--cuda-memory-fraction", cuda_fraction, "cap the CUDA allocator (emulate a smaller card)");
  app.add_option("--mkl-dispatch", mkl_dispatch, "serve's model.mkl_dispatch: isa | vendor");
  app.add_option("--outputs", outputs_path,
                 "JSONL of every job's output ({\"id\", \"output\"}) from the last round of the first policy");
  CLI11_PARSE(app, argc, argv);

  qinfer::executor::RunnerOptions options;
  options.model_path = model_dir + "/" + model_file;
  options.device = device;
  options.intra_op_threads = threads;
  options.autocast = autocast;
  options.mkl_dispatch = mkl_dispatch;
  options.cuda_memory_fraction = cuda_fraction;
  options.cap_margin = margin;
  absl::StatusOr<std::unique_ptr<TorchModelRunner>> loaded = TorchModelRunner::Load(options);
  if (!loaded.ok()) Fail(std::string(loaded.status().message()));
  TorchModelRunner& runner = **loaded;
  const auto threads_now = qinfer::executor::CurrentTorchThreads();
  std::vector<Job> jobs = ReadJobs(jobs_path, runner.manifest().vocab_size);

  Setup setup;
  setup.bounds = qinfer::scheduler::DefaultBucketBounds(runner.manifest().max_tokens);
  qinfer::executor::CalibrationOptions calibration;
  calibration.bounds = setup.bounds;
  calibration.max_batch_size = max_batch_size;
  calibration.margin = margin;
  const Clock::time_point calibration_start = Clock::now();
  absl::StatusOr<MemoryPlan> plan = absl::NotFoundError("no cached plan");
  if (!plan_cache.empty()) plan = ReadCachedPlan(plan_cache, runner, calibration);
  const bool reused = plan.ok();
  if (!reused) {
    plan = qinfer::executor::Calibrate(runner, calibration);
    if (!plan.ok()) Fail("calibration: " + std::string(plan.status().message()));
    if (!plan_cache.empty()) std::ofstream(plan_cache) << qinfer::PlanToJson(*plan);
  }
  const double calibration_s = Seconds(Clock::now() - calibration_start);
  for (const qinfer::PlanEntry& e : plan->entries) setup.plan_caps.push_back(e.batch_size);
  setup.defaults.max_batch_delay = std::chrono::milliseconds(delay_ms);
  setup.defaults.max_queued_jobs = 20000;  // the service's defaults
  setup.defaults.max_queued_tokens = 2000000;
  setup.defaults.max_padding = max_padding;
  setup.defaults.extra_padding_tokens = extra_padding_tokens;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].length() > size_t(setup.bounds.back())) Fail("job " + jobs[i].id + " is longer than max_tokens");
  }

  std::map<std::string, std::vector<RoundResult>> results;
  qinfer::executor::ReleaseIntraOpWorkersOfThisThread();
  std::thread executor([&] {
    // TorchScript's profiling executor specialises a graph on its first runs
    // of each input shape, so the first rounds of a shape are slower.
    for (int round = 0; round < warmup_rounds; ++round) {
      for (const std::string& name : policies) RunPolicy(name, runner, jobs, setup, false);
    }
    for (int round = 0; round < rounds; ++round) {
      for (const std::string& name : policies) {
        // (ideal changes the jobs' rows, so its outputs are not the jobs' own.)
        const bool keep = !outputs_path.empty() && round == rounds - 1 && name == policies.front();
        RoundResult r = RunPolicy(name, runner, jobs, setup, keep);
        if (keep) WriteOutputs(outputs_path, r.outputs);
        std::fprintf(stderr, "policy_bench: %s round %d %-14s %8.0f tok/s  %7.1f jobs/s  padding %.3f  ooms %llu\n",
                     workload.c_str(), round + 1, name.c_str(), r.wall_s > 0 ? double(r.real_tokens) / r.wall_s : 0,
                     r.wall_s > 0 ? double(r.ok) / r.wall_s : 0,
                     r.padded_tokens ? double(r.real_tokens) / double(r.padded_tokens) : 0,
                     static_cast<unsigned long long>(r.oom_events));
        results[name].push_back(r);
      }
    }
  });
  executor.join();

  const int64_t budget = runner.memory().budget_bytes();
  json report;
  report["workload"] = workload;
  report["jobs"] = jobs.size();
  uint64_t tokens = 0;
  for (const Job& job : jobs) tokens += job.length();
  report["real_tokens"] = tokens;
  report["device"] = device;
  report["dtype"] = runner.dtype();
  report["budget_bytes"] = budget;
  report["threads"] = {{"intra_op", threads_now.intra_op}, {"inter_op", threads_now.inter_op}};
  report["rounds"] = rounds;
  report["warmup_rounds"] = warmup_rounds;
  report["max_batch_delay_ms"] = delay_ms;
  report["max_padding"] = max_padding;
  report["extra_padding_tokens"] = extra_padding_tokens;
  report["calibration_s"] = calibration_s;
  report["plan_reused"] = reused;
  report["plan"] = json::array();
  for (const qinfer::PlanEntry& e : plan->entries) {
    report["plan"].push_back({{"bound", e.bound}, {"batch_size", e.batch_size}, {"peak_bytes", e.peak_bytes}});
  }
  report["policies"] = PoliciesJson(results, budget);
  report["ratios"] = RatiosJson(report["policies"]);
  std::ofstream out(out_path);
  if (!out) Fail("cannot write " + out_path);
  out << report.dump(2) << "\n";
  std::fprintf(stderr, "policy_bench: wrote %s\n", out_path.c_str());
  return 0;
}
