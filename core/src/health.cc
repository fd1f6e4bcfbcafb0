#include "qinfer/core/health.h"

namespace qinfer {

bool Health::RaiseFatal(const char* cause, std::string reason) {
  MutexLock lock(&mu_);
  if (fatal_.load()) return false;
  cause_ = cause;
  reason_ = std::move(reason);
  fatal_.store(true);
  return true;
}

std::string Health::cause() const {
  MutexLock lock(&mu_);
  return cause_;
}

std::string Health::reason() const {
  MutexLock lock(&mu_);
  return reason_;
}

ProbeResult Liveness(const Health& health, SteadyTime now, std::chrono::nanoseconds stall) {
  if (health.fatal()) return {false, "fatal: " + health.cause() + ": " + health.reason()};
  const std::chrono::nanoseconds startup_timeout = health.startup_timeout();
  if (!health.started() && startup_timeout.count() > 0 && now - health.startup_began() > startup_timeout) {
    using std::chrono::duration_cast;
    return {false, "start-up not done after " +
                       std::to_string(duration_cast<std::chrono::seconds>(now - health.startup_began()).count()) +
                       " s (limit health.startup_timeout_s = " +
                       std::to_string(duration_cast<std::chrono::seconds>(startup_timeout).count()) + " s)"};
  }
  if (health.started() && !health.draining() && now - health.last_beat() > stall) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - health.last_beat());
    return {false, "executor stalled: no heartbeat for " + std::to_string(seconds.count()) +
                       " s (limit health.executor_stall_s = " +
                       std::to_string(std::chrono::duration_cast<std::chrono::seconds>(stall).count()) + " s)"};
  }
  return {true, "ok"};
}

ProbeResult Readiness(const Health& health, int assigned_partitions) {
  if (health.fatal()) return {false, "not ready: fatal: " + health.cause()};
  if (health.draining()) return {false, "not ready: draining"};
  if (!health.started()) return {false, "not ready: starting (loading the model, memory plan)"};
  if (assigned_partitions <= 0) return {false, "not ready: no partitions assigned"};
  return {true, "ready"};
}

}  // namespace qinfer
