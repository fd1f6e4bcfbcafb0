// Health: the lasting conditions an instance cannot get past (docs/design/guarantees.md,
// "Guarantees": a store that cannot be written, a consumer that died). Any
// module raises one; the service then stops consuming, answers /healthz
// with 503, drains within its timeout and exits non-zero, so that its
// supervisor restarts it. Never cleared: a fatal instance does not recover.
#pragma once

#include <atomic>
#include <string>

#include "absl/base/thread_annotations.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/mutex.h"

namespace qinfer {

// Where a fatal condition came from: a small fixed set (a metric label).
namespace fatal_cause {
inline constexpr const char* kStore = "store";        // store writes keep failing
inline constexpr const char* kConsumer = "consumer";  // fatal Kafka consumer error
inline constexpr const char* kProducer = "producer";  // fatal Kafka producer error
}  // namespace fatal_cause

// Thread-safe.
class Health {
 public:
  // Records a fatal condition. The first one wins: cause() and reason()
  // keep it. Returns true for the first call.
  bool RaiseFatal(const char* cause, std::string reason);
  bool fatal() const { return fatal_.load(); }
  std::string cause() const;
  std::string reason() const;

  // The executor thread's heartbeat: it beats whenever it is not inside a
  // forward pass for long (waiting for a batch, or between batches).
  void Beat(SteadyTime now) { last_beat_ns_.store(now.time_since_epoch().count()); }
  SteadyTime last_beat() const { return SteadyTime(SteadyTime::duration(last_beat_ns_.load())); }

  // Start-up began at `now` and must be done within `timeout` (0: no
  // deadline, health.startup_timeout_s): past it, /healthz fails until
  // SetStarted, so that a supervisor restarts a start-up that hangs (a
  // model load or calibration that never returns). Call once, first.
  void SetStartupDeadline(SteadyTime now, std::chrono::nanoseconds timeout) {
    startup_began_ns_.store(now.time_since_epoch().count());
    startup_timeout_ns_.store(timeout.count());
  }
  // The deadline's figures: (began, timeout); timeout 0 when none.
  SteadyTime startup_began() const { return SteadyTime(SteadyTime::duration(startup_began_ns_.load())); }
  std::chrono::nanoseconds startup_timeout() const { return std::chrono::nanoseconds(startup_timeout_ns_.load()); }

  // Start-up is done: the model is loaded and warmed and the memory plan is
  // ready. Set once, before the executor starts.
  void SetStarted() { started_.store(true); }
  bool started() const { return started_.load(); }
  // The instance stopped fetching and is draining. Never cleared.
  void SetDraining() { draining_.store(true); }
  bool draining() const { return draining_.load(); }

 private:
  std::atomic<bool> fatal_{false};
  std::atomic<bool> started_{false};
  std::atomic<bool> draining_{false};
  std::atomic<SteadyTime::rep> last_beat_ns_{0};
  std::atomic<SteadyTime::rep> startup_began_ns_{0};
  std::atomic<int64_t> startup_timeout_ns_{0};
  mutable Mutex mu_;
  std::string cause_ ABSL_GUARDED_BY(mu_);
  std::string reason_ ABSL_GUARDED_BY(mu_);
};

// What a probe answers: ok or not, and a line that says why.
struct ProbeResult {
  bool ok = false;
  std::string text;
};

// /healthz: fails on a fatal condition, when start-up has taken longer than
// its deadline (Health::SetStartupDeadline; without one, start-up never
// fails it), or when the executor, once started, has not beaten for longer
// than `stall` (stuck inside a forward pass or blocked).
ProbeResult Liveness(const Health& health, SteadyTime now, std::chrono::nanoseconds stall);

// /readyz: true only once started, with partitions assigned, no fatal
// condition and not draining.
ProbeResult Readiness(const Health& health, int assigned_partitions);

}  // namespace qinfer
