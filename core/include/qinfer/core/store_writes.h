// StoreWrites: the one path of every store write that can fail (docs/design/storage.md,
// "The store"): results and failure records (with their ranks and the
// attempts they free, in one write), the attempt log, and the memory plan.
//
// Every write gets the same treatment, whichever of them a full disk hits
// first:
//  - it is tried up to `attempts` times, sleeping backoff × the try's number
//    on the clock between tries (a transient I/O error passes);
//  - every failed try is one `event=store_error write=<what>` warning and one
//    count of qinfer_store_errors_total{write=<what>};
//  - a write whose tries are all spent is lasting: the store fatal condition
//    is raised (Health: unhealthy, bounded drain, exit 1) with one
//    `event=fatal cause=store write=<what>` line, and its status returned, so
//    the caller runs or acks nothing that depended on it.
//
// Thread-safe: the executor, record, consumer and main threads all write.
// Does not own `health` or the clock; they must outlive it.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>

#include "absl/status/status.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/health.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/stats.h"

namespace qinfer {

// What a store write holds: the label of its counter and log lines.
enum class StoreWrite {
  kResults,   // result and failure records, their ranks and history
  kAttempts,  // the attempt log, before a batch runs
  kPlan,      // the memory plan, at start-up and when a cap is lowered
};
const char* StoreWriteName(StoreWrite what);

// The store writes' counters (core/stats.h).
#define QINFER_STORE_WRITE_STATS(STAT)                                                                      \
  STAT(store_errors_results, "qinfer_store_errors_total", "write=results",                                  \
       "Failed store write attempts, by write: results (records, their ranks), attempts (the attempt log), " \
       "plan (the memory plan)")                                                                            \
  STAT(store_errors_attempts, "qinfer_store_errors_total", "write=attempts", "")                            \
  STAT(store_errors_plan, "qinfer_store_errors_total", "write=plan", "")

struct StoreWriteStats {
  QINFER_DECLARE_STATS(QINFER_STORE_WRITE_STATS)
  // The failed tries of every write.
  uint64_t total() const { return store_errors_results + store_errors_attempts + store_errors_plan; }
};

class StoreWrites {
 public:
  struct Options {
    int attempts = 5;                        // tries of one write; >= 1
    std::chrono::milliseconds backoff{100};  // times the try's number
    const Clock* clock = &RealClock();       // sleeps between tries; not owned
  };

  StoreWrites(Health& health, Options options);

  // Runs `write` as above. Returns OK once one try succeeded, else the last
  // try's status (the fatal condition is then raised).
  absl::Status Write(StoreWrite what, const std::function<absl::Status()>& write);

  const StoreWriteStats& stats() const { return stats_; }

 private:
  Health& health_;
  const Options options_;
  const Log log_;
  StoreWriteStats stats_;
};

// Calls `write` until it succeeds, at most `attempts` times, sleeping on
// `clock` backoff × attempt number between tries; each failure is logged on
// `log` as `event=store_error write=<what>` and counted in `errors` (may be
// null). Returns the last status; raises nothing. StoreWrites is this plus
// the lasting-failure rule; `collect`, whose store is its own, uses it alone.
absl::Status WriteWithRetries(const std::function<absl::Status()>& write, const char* what, int attempts,
                              std::chrono::milliseconds backoff, const Clock& clock, const Log& log,
                              std::atomic<uint64_t>* errors);

}  // namespace qinfer
