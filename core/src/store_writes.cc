#include "qinfer/core/store_writes.h"

#include <algorithm>
#include <string>

namespace qinfer {

const char* StoreWriteName(StoreWrite what) {
  switch (what) {
    case StoreWrite::kResults:
      return "results";
    case StoreWrite::kAttempts:
      return "attempts";
    case StoreWrite::kPlan:
      return "plan";
  }
  return "results";
}

absl::Status WriteWithRetries(const std::function<absl::Status()>& write, const char* what, int attempts,
                              std::chrono::milliseconds backoff, const Clock& clock, const Log& log,
                              std::atomic<uint64_t>* errors) {
  absl::Status status;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    status = write();
    if (status.ok()) return status;
    if (errors != nullptr) ++*errors;
    log.Warn("event=store_error write=%v attempt=%v of=%v error=\"%v\"", what, attempt, attempts,
             std::string(status.message()));
    // A transient I/O error deserves a retry; a lasting one is the caller's.
    if (attempt < attempts) clock.SleepFor(backoff * attempt);
  }
  return status;
}

StoreWrites::StoreWrites(Health& health, Options options)
    : health_(health), options_(options), log_(Logger("core")) {}

absl::Status StoreWrites::Write(StoreWrite what, const std::function<absl::Status()>& write) {
  std::atomic<uint64_t>* errors = &stats_.store_errors_results;
  if (what == StoreWrite::kAttempts) errors = &stats_.store_errors_attempts;
  if (what == StoreWrite::kPlan) errors = &stats_.store_errors_plan;
  const char* name = StoreWriteName(what);
  absl::Status status =
      WriteWithRetries(write, name, std::max(1, options_.attempts), options_.backoff, *options_.clock, log_, errors);
  if (status.ok()) return status;
  if (health_.RaiseFatal(fatal_cause::kStore,
                         std::string(name) + " writes keep failing: " + std::string(status.message()))) {
    log_.Error("event=fatal cause=store write=%v error=\"%v\" (nothing that needs it runs or is acked)", name,
               std::string(status.message()));
  }
  return status;
}

}  // namespace qinfer
