// What `serve` does before it serves, and how a signal during start-up
// ends it: the signal flag, the start-up exit paths, and the guard that
// bounds start-up's answer to a signal.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "qinfer/core/clock.h"
#include "qinfer/core/mutex.h"
#include "serve.h"

namespace qinfer::app {

// Set by SIGINT or SIGTERM (InstallSignalHandlers); the main thread watches
// it.
std::atomic<bool>& StopRequested();

// Signals set StopRequested(). Installed first, so a SIGTERM during start-up
// still means a clean exit. A file-size limit (RLIMIT_FSIZE) then fails the
// write that crosses it instead of killing the process: a store that cannot
// be written is a fatal condition with a bounded drain, not a crash.
void InstallSignalHandlers();

// ServeOptions::hold_file_for_test: waits while `path` exists ("": not at
// all), or until `give_up` (may be null: never) becomes true.
void WaitWhileExists(const std::string& path, const std::atomic<bool>* give_up);

// One line of a `start_failed` event, and the start-up exit code: by
// default kExitConfig (retrying will not help).
int StartFailed(const std::string& what, int code = kExitConfig);

// Every local setting is checked before any network step, so that a
// mistake in them is never reported as unreachable brokers (exit 75):
// nullopt, or the exit code (StartFailed).
std::optional<int> CheckLocalSettings(const Config& config);

// A SIGTERM (or SIGINT) during start-up: nothing was consumed yet, so the
// process just ends, with 0.
int StartAbandoned(const char* phase);

// Bounds start-up's answer to a signal. Start-up checks the signal flag
// between its steps, but a step (a model load, a calibration, the wait for
// the brokers) cannot be interrupted; once a signal has come, this guard's
// thread ends the process if start-up has not returned within `bound`
// (shutdown.drain_timeout_s), so that a supervisor's grace period above
// the drain bound is never exceeded in any phase. Nothing durable is at
// stake before the consumer starts: the store's writes so far (a memory
// plan) are in its log.
class StartUpGuard {
 public:
  explicit StartUpGuard(std::chrono::nanoseconds bound) : thread_([this, bound] { Watch(bound); }) {}
  ~StartUpGuard() { Done(); }
  // Start-up is over (served, failed or abandoned): the guard stands down.
  void Done() {
    {
      MutexLock lock(&mu_);
      done_ = true;
    }
    cv_.SignalAll();
    if (thread_.joinable()) thread_.join();
  }

 private:
  // Waits for a signal, then for start-up to finish within `bound`; ends
  // the process when it does not.
  void Watch(std::chrono::nanoseconds bound);

  Mutex mu_;
  CondVar cv_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace qinfer::app
