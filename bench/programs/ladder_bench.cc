// Benchmark: the same long-tailed job set under the same device-memory budget
// through
//   (a) fixed:   TorchServe-style FIFO batches of a fixed size, padded to the
//                longest member, no memory plan; a batch that runs out of
//                memory fails as a whole;
//   (b) qinfer:  length buckets with caps from the calibrated memory plan and
//                the OOM ladder (split, lower cap, CPU fallback), with jobs
//                arriving in one of two ways (--arrival):
//                  upfront: the whole set is queued at once, so every bucket
//                           can fill its batches;
//                  stream:  jobs arrive in job-set order, --chunk at a time;
//                           the next chunk arrives once the batches the
//                           scheduler released have run, and a bucket that
//                           does not fill is released by max_batch_delay.
// Both run the real TorchScript model on the budgeted CPU device, whose
// allocations really fail past the budget. The arms alternate, several
// rounds, and the figures (medians and ratios) go to a JSON file; its
// "definitions" say what each figure counts.
//
// What the timer covers: admitting the jobs, forming batches and running
// them. Model loading and warm-up are outside it for every arm; qinfer's
// calibration (building the memory plan) is timed separately, as
// calibration_seconds.
//
//   ladder_bench --model build/test-model/model.pt [--budget 128MiB]
//                [--jobs 3000] [--fixed-batch 32] [--max-batch 64]
//                [--arrival upfront stream] [--chunk 256]
//                [--max-batch-delay-ms 50] [--threads 0] [--rounds 3]
//                [--out FILE]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "qinfer/core/logging.h"
#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/cpu_block_cache.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/scheduler/buckets.h"
#include "qinfer/scheduler/scheduler.h"

namespace {

using qinfer::Batch;
using qinfer::Job;
using qinfer::executor::TorchModelRunner;
using qinfer::scheduler::Scheduler;

[[noreturn]] void Fail(const std::string& message) {
  std::cerr << "ladder_bench: " << message << "\n";
  std::exit(2);
}

struct ArmResult {
  double seconds = 0;              // the timed run (see the file comment)
  double cpu_seconds = 0;          // process CPU time, all threads, during it
  double calibration_seconds = 0;  // qinfer: building the plan; fixed: none
  uint64_t batches = 0;            // batches formed and run
  uint64_t jobs_ok = 0;
  uint64_t jobs_lost = 0;  // no result: failed with their batch, or failure records
  uint64_t oom_events = 0;
  uint64_t splits = 0;
  uint64_t fallback_runs = 0;
  uint64_t tokens = 0;            // input tokens of every job of the set
  uint64_t ok_tokens = 0;         // input tokens of the jobs that got a result
  uint64_t padded_tokens = 0;     // computed, padding included (see definitions)
  uint64_t ok_padded_tokens = 0;  // of the forwards whose jobs got results
  int64_t peak_bytes = 0;

  static double Ratio(double a, double b) { return b > 0 ? a / b : 0; }
  double tokens_per_second() const { return Ratio(double(ok_tokens), seconds); }
  double attempted_tokens_per_second() const { return Ratio(double(tokens), seconds); }
  double tokens_per_second_incl_calibration() const { return Ratio(double(ok_tokens), seconds + calibration_seconds); }
  double tokens_per_cpu_second() const { return Ratio(double(ok_tokens), cpu_seconds); }
};

std::vector<Job> MakeJobSet(int count, int64_t vocab, int max_tokens, uint32_t seed) {
  std::mt19937 rng(seed);
  // Long-tailed: median ~40 tokens, a tail up to max_tokens.
  std::lognormal_distribution<double> length(std::log(40.0), 1.0);
  std::uniform_int_distribution<int64_t> token(0, vocab - 1);
  std::vector<Job> jobs(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    jobs[i].id = "b" + std::to_string(i);
    jobs[i].input_ids.resize(size_t(std::clamp(int(length(rng)), 1, max_tokens)));
    for (auto& t : jobs[i].input_ids) t = token(rng);
    jobs[i].origin.offset = i;
  }
  return jobs;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double CpuSeconds(std::clock_t since) { return double(std::clock() - since) / CLOCKS_PER_SEC; }

std::unique_ptr<TorchModelRunner> Load(const std::string& model, const std::string& device, const std::string& fallback,
                                       int threads) {
  qinfer::executor::RunnerOptions o;
  o.model_path = model;
  o.device = device;
  o.fallback_device = fallback;
  o.intra_op_threads = threads;
  auto runner = TorchModelRunner::Load(o);
  if (!runner.ok()) Fail(std::string(runner.status().message()));
  return *std::move(runner);
}

ArmResult RunFixed(const std::string& model, const std::string& device, int threads, const std::vector<Job>& jobs,
                   int batch_size) {
  auto runner = Load(model, device, "", threads);
  ArmResult r;
  runner->memory().ResetPeak();
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  for (size_t begin = 0; begin < jobs.size(); begin += size_t(batch_size)) {
    const size_t end = std::min(jobs.size(), begin + size_t(batch_size));
    std::vector<std::vector<int64_t>> rows;
    size_t longest = 0, tokens = 0;
    for (size_t i = begin; i < end; ++i) {
      rows.push_back(jobs[i].input_ids);
      longest = std::max(longest, jobs[i].length());
      tokens += jobs[i].length();
    }
    r.batches++;
    r.tokens += tokens;
    r.padded_tokens += longest * rows.size();
    if (runner->Forward(rows).ok()) {
      r.jobs_ok += rows.size();
      r.ok_tokens += tokens;
      r.ok_padded_tokens += longest * rows.size();
    } else {
      r.oom_events++;  // the whole batch fails, as a worker OOM does
      r.jobs_lost += rows.size();
    }
  }
  r.seconds = Seconds(start);
  r.cpu_seconds = CpuSeconds(cpu_start);
  r.peak_bytes = runner->memory().peak_bytes();
  return r;
}

// Applies the ladder's lowered caps to the scheduler, as the service does.
class CapToScheduler final : public qinfer::executor::CapListener {
 public:
  explicit CapToScheduler(Scheduler& scheduler) : scheduler_(scheduler) {}
  void OnCapLowered(int bound, int new_cap, int /*failed_size*/) override {
    const int index = qinfer::scheduler::BucketIndexFor(scheduler_.bounds(), size_t(bound));
    if (absl::Status s = scheduler_.SetCap(index, new_cap); !s.ok()) Fail(std::string(s.message()));
  }

 private:
  Scheduler& scheduler_;
};

// `chunk`: jobs that arrive at a time (the whole set for upfront).
ArmResult RunQinfer(const std::string& model, const std::string& device, int threads, const std::vector<Job>& jobs,
                    int max_batch_size, size_t chunk, std::chrono::milliseconds max_batch_delay,
                    nlohmann::json* plan_json) {
  auto runner = Load(model, device, "cpu", threads);
  const std::vector<int> bounds = qinfer::scheduler::DefaultBucketBounds(runner->manifest().max_tokens);
  ArmResult r;
  const auto calibration_start = std::chrono::steady_clock::now();
  auto plan = qinfer::executor::Calibrate(*runner, {bounds, max_batch_size, 0.1, {}});
  r.calibration_seconds = Seconds(calibration_start);
  if (!plan.ok()) Fail("calibration: " + std::string(plan.status().message()));
  if (plan_json != nullptr) *plan_json = nlohmann::json::parse(qinfer::PlanToJson(*plan));
  qinfer::scheduler::BatchPolicy policy;
  policy.bucket_bounds = bounds;
  std::set<int> unfit;
  for (const auto& e : plan->entries) {
    policy.caps.push_back(std::max(1, e.batch_size));
    if (!e.fits()) unfit.insert(e.bound);
  }
  runner->SetUnfitBuckets(unfit);
  policy.max_batch_delay = max_batch_delay;
  policy.max_queued_jobs = jobs.size() + 1;
  policy.max_queued_tokens = SIZE_MAX / 2;
  auto scheduler = Scheduler::Create(policy);
  if (!scheduler.ok()) Fail(std::string(scheduler.status().message()));
  CapToScheduler caps(*scheduler);
  runner->SetCapListener(&caps);

  runner->memory().ResetPeak();
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  // The service's executor loop, single-threaded: every batch the scheduler
  // releases now runs at once; once every job has arrived and nothing is
  // ready, it waits for the scheduler's next deadline.
  size_t next = 0;
  while (next < jobs.size() || scheduler->queued_jobs() > 0) {
    const size_t end = std::min(jobs.size(), next + chunk);
    const qinfer::SteadyTime arrival = std::chrono::steady_clock::now();
    for (; next < end; ++next) {
      Job copy = jobs[next];
      if (absl::Status s = scheduler->Admit(std::move(copy), arrival); !s.ok()) Fail(std::string(s.message()));
    }
    while (std::optional<Batch> batch = scheduler->NextBatch(std::chrono::steady_clock::now())) {
      auto outcomes = runner->Run(*batch);
      if (!outcomes.ok()) Fail(std::string(outcomes.status().message()));
      r.batches++;
      for (const auto& o : *outcomes) {
        r.tokens += o.input_length;
        if (o.ok) {
          r.jobs_ok++;
          r.ok_tokens += o.input_length;
          // Each job with a result adds the padded length of the forward
          // that produced it: over its rows, that forward's padded tokens.
          r.ok_padded_tokens += uint64_t(o.padded_length);
        } else {
          r.jobs_lost++;
        }
      }
    }
    if (next == jobs.size()) {
      if (std::optional<qinfer::SteadyTime> deadline = scheduler->NextDeadline()) {
        std::this_thread::sleep_until(*deadline);
      }
    }
  }
  r.seconds = Seconds(start);
  r.cpu_seconds = CpuSeconds(cpu_start);
  // Forwards that failed inside the runner (OOM, then split) are not visible
  // here: the padded tokens are those of the forwards that produced results.
  r.padded_tokens = r.ok_padded_tokens;
  r.peak_bytes = runner->memory().peak_bytes();
  r.oom_events = runner->stats().oom_events;
  r.splits = runner->stats().splits;
  r.fallback_runs = runner->stats().fallback_runs;
  return r;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

nlohmann::json ToJson(const ArmResult& r, int64_t budget) {
  return {{"seconds", r.seconds},
          {"cpu_seconds", r.cpu_seconds},
          {"calibration_seconds", r.calibration_seconds},
          {"batches", r.batches},
          {"jobs_ok", r.jobs_ok},
          {"jobs_lost", r.jobs_lost},
          {"oom_events", r.oom_events},
          {"splits", r.splits},
          {"fallback_runs", r.fallback_runs},
          {"tokens", r.tokens},
          {"ok_tokens", r.ok_tokens},
          {"padded_tokens", r.padded_tokens},
          {"ok_padded_tokens", r.ok_padded_tokens},
          {"tokens_per_second", r.tokens_per_second()},
          {"attempted_tokens_per_second", r.attempted_tokens_per_second()},
          {"tokens_per_second_incl_calibration", r.tokens_per_second_incl_calibration()},
          {"tokens_per_cpu_second", r.tokens_per_cpu_second()},
          {"padding_efficiency", ArmResult::Ratio(double(r.tokens), double(r.padded_tokens))},
          {"padding_efficiency_ok", ArmResult::Ratio(double(r.ok_tokens), double(r.ok_padded_tokens))},
          {"peak_bytes", r.peak_bytes},
          {"peak_over_budget", double(r.peak_bytes) / double(budget)}};
}

const nlohmann::json kDefinitions = {
    {"seconds",
     "timed run: admitting the jobs, forming batches, running them; excludes model load and "
     "warm-up (every arm) and calibration (qinfer)"},
    {"cpu_seconds",
     "process CPU time (all threads) during the timed run: close to seconds x threads on "
     "an otherwise idle machine, well below it when other processes took the cores"},
    {"calibration_seconds", "qinfer: building the memory plan (Calibrate), before the timed run; fixed: 0"},
    {"tokens_per_second", "input tokens of the jobs that got a result / seconds"},
    {"attempted_tokens_per_second", "input tokens of every job of the set / seconds"},
    {"tokens_per_second_incl_calibration",
     "input tokens of the jobs that got a result / "
     "(seconds + calibration_seconds)"},
    {"tokens_per_cpu_second",
     "input tokens of the jobs that got a result / cpu_seconds: with --threads 1, "
     "little affected by other processes on the machine"},
    {"padding_efficiency",
     "input tokens of every job of the set / padded tokens (rows x padded length) of "
     "every forward that ran. fixed: every batch, failed ones included. qinfer: the "
     "forwards that produced results; a forward that failed inside the runner (OOM, "
     "then split) is not visible outside it and is not counted, so this covers every "
     "forward only in runs with oom_events = 0 and jobs_lost = 0"},
    {"padding_efficiency_ok",
     "input tokens of the jobs that got a result / padded tokens of the forwards "
     "that produced results"},
    {"jobs_lost", "jobs without a result: failed with their batch (fixed), failure records (qinfer)"},
    {"medians", "per figure, the median over the rounds (the upper one for an even number)"}};

}  // namespace

int main(int argc, char** argv) {
  // serve's malloc setting, so that these figures stand for its executor.
  qinfer::executor::TuneProcessMalloc();
  CLI::App app{"OOM ladder benchmark: fixed batches vs qinfer's plan and ladder"};
  std::string model = "build/test-model/model.pt", budget_text = "128MiB", out = "bench/ladder/results/ladder.json";
  int jobs = 3000, fixed_batch = 32, rounds = 3, max_batch = 64, chunk = 256, max_batch_delay_ms = 50, threads = 0;
  std::vector<std::string> arrivals = {"upfront", "stream"};
  app.add_option("--model", model, "TorchScript model (manifest.json beside it)");
  app.add_option("--budget", budget_text, "device-memory budget of the budgeted CPU device");
  app.add_option("--jobs", jobs, "jobs in the long-tailed set")->check(CLI::PositiveNumber);
  app.add_option("--fixed-batch", fixed_batch, "batch size of the fixed arm")->check(CLI::PositiveNumber);
  app.add_option("--max-batch", max_batch, "largest batch qinfer may plan")->check(CLI::PositiveNumber);
  app.add_option("--arrival", arrivals, "qinfer arrival modes to run")->check(CLI::IsMember({"upfront", "stream"}));
  app.add_option("--chunk", chunk, "stream: jobs that arrive at a time")->check(CLI::PositiveNumber);
  app.add_option("--max-batch-delay-ms", max_batch_delay_ms, "qinfer: longest a partial bucket waits")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads", threads, "libtorch intra-op threads for every arm; 0: libtorch's default")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--rounds", rounds, "alternating rounds; medians are reported")->check(CLI::PositiveNumber);
  app.add_option("--out", out, "JSON file for the figures");
  CLI11_PARSE(app, argc, argv);
  qinfer::SetLogLevel("warn");

  auto budget = qinfer::executor::ParseBytes(budget_text);
  if (!budget.ok()) Fail("--budget: " + std::string(budget.status().message()));
  const std::string device = "cpu-budget:" + budget_text;
  int64_t vocab = 0;
  int max_tokens = 0;
  std::string digest;
  {
    auto probe = Load(model, "cpu", "", threads);
    vocab = probe->manifest().vocab_size;
    max_tokens = probe->manifest().max_tokens;
    digest = probe->manifest().digest;
  }
  const std::vector<Job> job_set = MakeJobSet(jobs, vocab, max_tokens, 2026);
  uint64_t set_tokens = 0;
  for (const Job& j : job_set) set_tokens += j.length();

  std::vector<std::string> arms = {"fixed"}, modes;
  for (const char* mode : {"upfront", "stream"}) {
    if (std::find(arrivals.begin(), arrivals.end(), mode) != arrivals.end()) {
      modes.push_back(mode);
      arms.push_back("qinfer_" + std::string(mode));
    }
  }
  std::map<std::string, std::vector<ArmResult>> results;
  nlohmann::json plan_json;
  for (int round = 0; round < rounds; ++round) {
    // Rotate the order so drift on a shared machine hits every arm.
    std::cerr << "round " << round + 1 << "/" << rounds << ":";
    for (size_t k = 0; k < arms.size(); ++k) {
      const std::string& arm = arms[(k + size_t(round)) % arms.size()];
      ArmResult r;
      if (arm == "fixed") {
        r = RunFixed(model, device, threads, job_set, fixed_batch);
      } else {
        const size_t arm_chunk = arm == "qinfer_stream" ? size_t(chunk) : job_set.size();
        r = RunQinfer(model, device, threads, job_set, max_batch, arm_chunk,
                      std::chrono::milliseconds(max_batch_delay_ms), plan_json.is_null() ? &plan_json : nullptr);
      }
      std::fprintf(stderr, " %s %.0f tok/s, lost %llu;", arm.c_str(), r.tokens_per_second(),
                   static_cast<unsigned long long>(r.jobs_lost));
      results[arm].push_back(r);
    }
    std::cerr << "\n";
  }

  std::string command;
  for (int i = 0; i < argc; ++i) command += (i > 0 ? " " : "") + std::string(argv[i]);
  nlohmann::json report;
  report["setup"] = {{"command", command},
                     {"model", model},
                     {"model_digest", digest},
                     {"budget", budget_text},
                     {"budget_bytes", *budget},
                     {"jobs", jobs},
                     {"job_set_tokens", set_tokens},
                     {"fixed_batch", fixed_batch},
                     {"max_batch", max_batch},
                     {"arrival", modes},
                     {"chunk", chunk},
                     {"max_batch_delay_ms", max_batch_delay_ms},
                     {"rounds", rounds},
                     {"threads", threads},
                     {"hardware_threads", std::thread::hardware_concurrency()}};
  report["definitions"] = kDefinitions;
  report["plan"] = plan_json;
  for (const std::string& arm : arms) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : results[arm]) runs.push_back(ToJson(r, *budget));
    nlohmann::json medians, max_peak = 0.0;
    for (const auto& [key, value] : runs[0].items()) {
      std::vector<double> xs;
      for (const auto& run : runs) xs.push_back(run[key].get<double>());
      medians[key] = Median(xs);
      if (key == "peak_over_budget") max_peak = *std::max_element(xs.begin(), xs.end());
    }
    report[arm] = {{"runs", runs}, {"medians", medians}, {"max_peak_over_budget", max_peak}};
  }
  auto ratios = [&](const std::string& a, const std::string& b) {
    nlohmann::json j;
    for (const char* key : {"tokens_per_second", "attempted_tokens_per_second", "tokens_per_second_incl_calibration",
                            "tokens_per_cpu_second"}) {
      j[key] = ArmResult::Ratio(report[a]["medians"][key].get<double>(), report[b]["medians"][key].get<double>());
    }
    return j;
  };
  for (size_t k = 1; k < arms.size(); ++k) report["ratios"][arms[k] + "_over_fixed"] = ratios(arms[k], "fixed");
  if (arms.size() == 3) report["ratios"]["qinfer_stream_over_qinfer_upfront"] = ratios(arms[2], arms[1]);
  std::ofstream(out) << report.dump(2) << "\n";

  std::printf("medians over %d rounds (%d jobs, %llu tokens, budget %s, threads %d, model %s)\n", rounds, jobs,
              static_cast<unsigned long long>(set_tokens), budget_text.c_str(), threads, digest.c_str());
  std::printf("%-15s %8s %11s %12s %9s %7s %9s %4s %7s %7s %7s %8s\n", "arm", "tok/s", "attempted/s", "incl_calib/s",
              "tok/cpu_s", "calib_s", "jobs_lost", "oom", "batches", "pad_eff", "pad_ok", "peak/bud");
  for (const std::string& arm : arms) {
    const auto& m = report[arm]["medians"];
    std::printf("%-15s %8.0f %11.0f %12.0f %9.0f %7.2f %9.0f %4.0f %7.0f %7.3f %7.3f %8.3f\n", arm.c_str(),
                m["tokens_per_second"].get<double>(), m["attempted_tokens_per_second"].get<double>(),
                m["tokens_per_second_incl_calibration"].get<double>(), m["tokens_per_cpu_second"].get<double>(),
                m["calibration_seconds"].get<double>(), m["jobs_lost"].get<double>(), m["oom_events"].get<double>(),
                m["batches"].get<double>(), m["padding_efficiency"].get<double>(),
                m["padding_efficiency_ok"].get<double>(), report[arm]["max_peak_over_budget"].get<double>());
  }
  for (const auto& [name, r] : report["ratios"].items()) {
    std::printf("%-34s tok/s %.2f  attempted/s %.2f  incl_calib/s %.2f  tok/cpu_s %.2f\n", name.c_str(),
                r["tokens_per_second"].get<double>(), r["attempted_tokens_per_second"].get<double>(),
                r["tokens_per_second_incl_calibration"].get<double>(), r["tokens_per_cpu_second"].get<double>());
  }
  std::printf(
      "tok/s: tokens of jobs that got a result; attempted/s: all tokens of the set; "
      "peak/bud: the largest over the rounds; definitions in the JSON\nfigures written to %s\n",
      out.c_str());
  return 0;
}
