// A scripted ModelRunner and an in-memory durable store with attempt
// counts, for unit tests of the executor loop.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "fakes/fake_sinks.h"
#include "qinfer/core/interfaces.h"

namespace qinfer::testing {

// Thrown by ScriptedRunner for a job in `crash_on`: stands for the process
// dying inside the model (the test catches it where a supervisor would
// restart the process).
struct SimulatedCrash {
  std::string job;
};

// Returns a result per job (output {length}, or output_of(job) when set),
// after calling `before_run`.
class ScriptedRunner final : public ModelRunner {
 public:
  absl::StatusOr<std::vector<Outcome>> Run(const Batch& batch) override {
    if (before_run) before_run(batch);
    batch_sizes.push_back(batch.jobs.size());
    for (const Job& job : batch.jobs) runs[job.id]++;
    for (const Job& job : batch.jobs) {
      if (crash_on.contains(job.id)) throw SimulatedCrash{job.id};
    }
    if (!fail_with.ok()) return fail_with;
    std::vector<Outcome> out;
    for (const Job& job : batch.jobs) {
      Outcome o;
      o.id = job.id;
      o.ok = true;
      o.output = output_of ? output_of(job) : std::vector<float>{float(job.length())};
      o.input_length = job.length();
      o.padded_length = int(job.length());
      o.bucket = batch.bucket_bound;
      o.batch_size = int(batch.jobs.size());
      o.origin = job.origin;
      out.push_back(std::move(o));
    }
    return out;
  }

  std::set<std::string> crash_on;
  absl::Status fail_with;
  std::function<void(const Batch&)> before_run;
  std::function<std::vector<float>(const Job&)> output_of;
  std::vector<size_t> batch_sizes;
  std::map<std::string, int> runs;  // job id -> times run
};

// Durable in memory: survives a simulated crash because the test keeps it.
// Put forgets the attempts of the outcomes' origins, like the real store.
class MemoryStore final : public OutcomeStore, public AttemptLog {
 public:
  explicit MemoryStore(EventLog& log) : log_(log) {}
  using OutcomeStore::Put;
  absl::Status Put(std::span<const Outcome> outcomes, std::span<const std::string>) override {
    if (before_put) before_put();
    std::lock_guard lock(mu_);
    if (failures_left > 0) {
      --failures_left;
      log_.Add("put_failed");
      return absl::UnavailableError("injected store failure");
    }
    for (const Outcome& o : outcomes) {
      log_.Add("put:" + o.id);
      records[o.id] = o;
      if (o.reason != reason::kCrash) attempts.erase(Key(o.origin));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<int>> Attempts(std::span<const Origin> origins) const override {
    std::lock_guard lock(mu_);
    std::vector<int> counts;
    for (const Origin& o : origins) {
      auto it = attempts.find(Key(o));
      counts.push_back(it == attempts.end() ? 0 : it->second);
    }
    return counts;
  }
  using AttemptLog::BeginAttempts;
  absl::Status BeginAttempts(std::span<const Origin> origins, std::span<const Origin> finished) override {
    std::lock_guard lock(mu_);
    for (const Origin& o : finished) attempts.erase(Key(o));
    for (const Origin& o : origins) attempts[Key(o)]++;
    return absl::OkStatus();
  }

  int failures_left = 0;
  std::function<void()> before_put;  // called first in each Put, unlocked
  std::map<std::string, Outcome> records;
  std::map<std::string, int> attempts;

 private:
  static std::string Key(const Origin& o) {
    return o.topic + "/" + std::to_string(o.partition) + "/" + std::to_string(o.offset);
  }
  mutable std::mutex mu_;
  EventLog& log_;
};

}  // namespace qinfer::testing
