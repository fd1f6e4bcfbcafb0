// Benchmark: the same long-tailed job set under the same device-memory budget
// through
//   (a) fixed:   TorchServe-style FIFO batches of a fixed size, padded to the
//                longest member, no memory plan; a batch that runs out of
//                memory fails as a whole;
//   (b) qinfer:  length buckets with caps from the calibrated memory plan and
//                the OOM ladder (split, lower cap, CPU fallback).
// Both run the real TorchScript model on the budgeted CPU device, whose
// allocations really fail past the budget. The arms alternate, several
// rounds, and the figures (medians and ratios) go to a JSON file.
//
//   ladder_bench --model build/test-model/model.pt [--budget 128MiB]
//                [--jobs 3000] [--fixed-batch 32] [--rounds 3] [--out FILE]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <spdlog/spdlog.h>
#include <set>

#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/scheduler/buckets.h"
#include "qinfer/scheduler/scheduler.h"

namespace {

using qinfer::Batch;
using qinfer::Job;
using qinfer::executor::TorchModelRunner;

struct ArmResult {
  double seconds = 0;
  uint64_t jobs_ok = 0;
  uint64_t jobs_lost = 0;  // no result: failed with their batch, or oom records
  uint64_t oom_events = 0;
  uint64_t splits = 0;
  uint64_t fallback_runs = 0;
  uint64_t real_tokens = 0;    // of the jobs that got a result
  uint64_t padded_tokens = 0;  // computed, padding included
  int64_t peak_bytes = 0;
  double tokens_per_second() const { return seconds > 0 ? real_tokens / seconds : 0; }
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

std::unique_ptr<TorchModelRunner> Load(const std::string& model, const std::string& device,
                                       const std::string& fallback) {
  qinfer::executor::RunnerOptions o;
  o.model_path = model;
  o.device = device;
  o.fallback_device = fallback;
  auto runner = TorchModelRunner::Load(o);
  if (!runner.ok()) {
    std::cerr << "ladder_bench: " << runner.status() << "\n";
    std::exit(2);
  }
  return *std::move(runner);
}

ArmResult RunFixed(const std::string& model, const std::string& device, const std::vector<Job>& jobs,
                   int batch_size) {
  auto runner = Load(model, device, "");
  ArmResult r;
  runner->memory().ResetPeak();
  const auto start = std::chrono::steady_clock::now();
  for (size_t begin = 0; begin < jobs.size(); begin += size_t(batch_size)) {
    const size_t end = std::min(jobs.size(), begin + size_t(batch_size));
    std::vector<std::vector<int64_t>> rows;
    size_t longest = 0, tokens = 0;
    for (size_t i = begin; i < end; ++i) {
      rows.push_back(jobs[i].input_ids);
      longest = std::max(longest, jobs[i].length());
      tokens += jobs[i].length();
    }
    r.padded_tokens += longest * rows.size();
    auto out = runner->Forward(rows);
    if (out.ok()) {
      r.jobs_ok += rows.size();
      r.real_tokens += tokens;
    } else {
      r.oom_events++;  // the whole batch fails, as a worker OOM does
      r.jobs_lost += rows.size();
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.peak_bytes = runner->memory().peak_bytes();
  return r;
}

ArmResult RunQinfer(const std::string& model, const std::string& device, const std::vector<Job>& jobs,
                    int max_batch_size, nlohmann::json* plan_json) {
  auto runner = Load(model, device, "cpu");
  const std::vector<int> bounds = qinfer::scheduler::DefaultBucketBounds(runner->manifest().max_tokens);
  auto plan = qinfer::executor::Calibrate(*runner, {bounds, max_batch_size, 0.1, {}});
  if (!plan.ok()) {
    std::cerr << "ladder_bench: calibration: " << plan.status() << "\n";
    std::exit(2);
  }
  if (plan_json != nullptr) *plan_json = nlohmann::json::parse(qinfer::PlanToJson(*plan));
  qinfer::scheduler::BatchPolicy policy;
  policy.bucket_bounds = bounds;
  std::set<int> unfit;
  for (const auto& e : plan->entries) {
    policy.caps.push_back(std::max(1, e.batch_size));
    if (!e.fits()) unfit.insert(e.bound);
  }
  runner->SetUnfitBuckets(unfit);
  policy.max_queued_jobs = jobs.size() + 1;
  policy.max_queued_tokens = SIZE_MAX / 2;
  auto scheduler = qinfer::scheduler::Scheduler::Create(policy);
  if (!scheduler.ok()) {
    std::cerr << "ladder_bench: " << scheduler.status() << "\n";
    std::exit(2);
  }
  const qinfer::SteadyTime t0{};
  for (const Job& job : jobs) {
    Job copy = job;
    if (!scheduler->Admit(std::move(copy), t0).ok()) std::exit(3);
  }
  ArmResult r;
  runner->memory().ResetPeak();
  const auto start = std::chrono::steady_clock::now();
  // All jobs are queued up front: the scheduler forms full batches per bucket.
  for (const Batch& batch : scheduler->Drain()) {
    auto outcomes = runner->Run(batch);
    if (!outcomes.ok()) std::exit(4);
    for (const auto& o : *outcomes) {
      if (o.ok) {
        r.jobs_ok++;
        r.real_tokens += o.input_length;
        r.padded_tokens += uint64_t(o.padded_length);
      } else {
        r.jobs_lost++;
      }
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
          {"jobs_ok", r.jobs_ok},
          {"jobs_lost", r.jobs_lost},
          {"oom_events", r.oom_events},
          {"splits", r.splits},
          {"fallback_runs", r.fallback_runs},
          {"tokens_per_second", r.tokens_per_second()},
          {"padding_efficiency", r.padded_tokens ? double(r.real_tokens) / double(r.padded_tokens) : 0.0},
          {"peak_bytes", r.peak_bytes},
          {"peak_over_budget", double(r.peak_bytes) / double(budget)}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"OOM ladder benchmark: fixed batches vs qinfer's plan and ladder"};
  std::string model = "build/test-model/model.pt", budget_text = "128MiB", out = "bench/results/ladder.json";
  int jobs = 3000, fixed_batch = 32, rounds = 3, max_batch = 64;
  app.add_option("--model", model, "TorchScript model (manifest.json beside it)");
  app.add_option("--budget", budget_text, "device-memory budget of the budgeted CPU device");
  app.add_option("--jobs", jobs, "jobs in the long-tailed set");
  app.add_option("--fixed-batch", fixed_batch, "batch size of the fixed arm");
  app.add_option("--max-batch", max_batch, "largest batch qinfer may plan");
  app.add_option("--rounds", rounds, "alternating rounds; medians are reported");
  app.add_option("--out", out, "JSON file for the figures");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  auto budget = qinfer::executor::ParseBytes(budget_text);
  if (!budget.ok()) {
    std::cerr << "ladder_bench: --budget: " << budget.status() << "\n";
    return 2;
  }
  const std::string device = "cpu-budget:" + budget_text;
  int64_t vocab = 0;
  int max_tokens = 0;
  {
    auto probe = Load(model, "cpu", "");
    vocab = probe->manifest().vocab_size;
    max_tokens = probe->manifest().max_tokens;
  }
  const std::vector<Job> job_set = MakeJobSet(jobs, vocab, max_tokens, 2026);

  nlohmann::json plan_json;
  std::vector<ArmResult> fixed, ours;
  for (int round = 0; round < rounds; ++round) {
    // Alternate the order so drift on a shared machine hits both arms.
    if (round % 2 == 0) {
      fixed.push_back(RunFixed(model, device, job_set, fixed_batch));
      ours.push_back(RunQinfer(model, device, job_set, max_batch, round == 0 ? &plan_json : nullptr));
    } else {
      ours.push_back(RunQinfer(model, device, job_set, max_batch, nullptr));
      fixed.push_back(RunFixed(model, device, job_set, fixed_batch));
    }
    std::cerr << "round " << round + 1 << "/" << rounds << ": fixed " << fixed.back().tokens_per_second()
              << " tok/s, lost " << fixed.back().jobs_lost << "; qinfer " << ours.back().tokens_per_second()
              << " tok/s, lost " << ours.back().jobs_lost << "\n";
  }
  auto median = [](const std::vector<ArmResult>& v, auto f) {
    std::vector<double> xs;
    for (const auto& r : v) xs.push_back(double(f(r)));
    return Median(xs);
  };
  nlohmann::json report;
  report["setup"] = {{"model", model}, {"budget", budget_text}, {"budget_bytes", *budget},
                     {"jobs", jobs}, {"fixed_batch", fixed_batch}, {"max_batch", max_batch},
                     {"rounds", rounds}};
  report["plan"] = plan_json;
  for (const auto& [name, arm] : {std::pair{"fixed", &fixed}, std::pair{"qinfer", &ours}}) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : *arm) runs.push_back(ToJson(r, *budget));
    report[name] = {
        {"runs", runs},
        {"median_tokens_per_second", median(*arm, [](const ArmResult& r) { return r.tokens_per_second(); })},
        {"median_jobs_lost", median(*arm, [](const ArmResult& r) { return r.jobs_lost; })},
        {"median_oom_events", median(*arm, [](const ArmResult& r) { return r.oom_events; })},
        {"max_peak_over_budget", [&] {
           double m = 0;
           for (const auto& r : *arm) m = std::max(m, double(r.peak_bytes) / double(*budget));
           return m;
         }()}};
  }
  const double f = report["fixed"]["median_tokens_per_second"];
  const double q = report["qinfer"]["median_tokens_per_second"];
  report["ratio_tokens_per_second_qinfer_over_fixed"] = f > 0 ? q / f : 0;
  std::ofstream(out) << report.dump(2) << "\n";

  std::printf("%-8s %12s %10s %10s %12s %14s\n", "arm", "tokens/s", "jobs_lost", "oom", "padding_eff",
              "peak/budget");
  for (const char* name : {"fixed", "qinfer"}) {
    const auto& a = report[name];
    const auto& first = a["runs"][0];
    std::printf("%-8s %12.0f %10.0f %10.0f %12.3f %14.3f\n", name, a["median_tokens_per_second"].get<double>(),
                a["median_jobs_lost"].get<double>(), a["median_oom_events"].get<double>(),
                first["padding_efficiency"].get<double>(), a["max_peak_over_budget"].get<double>());
  }
  std::printf("qinfer/fixed tokens/s (medians, %d rounds): %.2f  (tokens/s counts jobs that got a result)\n",
              rounds, report["ratio_tokens_per_second_qinfer_over_fixed"].get<double>());
  std::printf("figures written to %s\n", out.c_str());
  return 0;
}
