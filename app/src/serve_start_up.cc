#include "serve_start_up.h"

#include <signal.h>

#include <cstdlib>
#include <filesystem>

#include "qinfer/consumer/kafka_topics.h"
#include "qinfer/core/logging.h"

namespace qinfer::app {
namespace {

void OnSignal(int) { StopRequested() = true; }

}  // namespace

std::atomic<bool>& StopRequested() {
  static std::atomic<bool> requested{false};
  return requested;
}

void InstallSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGXFSZ, SIG_IGN);
}

void WaitWhileExists(const std::string& path, const std::atomic<bool>* give_up) {
  if (path.empty()) return;
  while (std::filesystem::exists(path) && (give_up == nullptr || !give_up->load())) {
    RealClock().SleepFor(std::chrono::milliseconds(20));
  }
}

int StartFailed(const std::string& what, int code) {
  Logger("app").Error("event=start_failed exit=%v error=\"%v\"", code, what);
  return code;
}

void StartUpGuard::Watch(std::chrono::nanoseconds bound) {
  MutexLock lock(&mu_);
  // The handler only sets a flag: poll it.
  while (!done_ && !StopRequested().load()) cv_.WaitFor(&mu_, std::chrono::milliseconds(20));
  const SteadyTime deadline = RealClock().Now() + bound;
  while (!done_) {
    const auto left = deadline - RealClock().Now();
    if (left <= left.zero()) break;
    cv_.WaitFor(&mu_, left);
  }
  if (done_) return;
  Logger("app").Warn(
      "event=start_abandoned forced=true: start-up did not return within "
      "shutdown.drain_timeout_s = %v s of the signal; exiting now",
      std::chrono::duration_cast<std::chrono::seconds>(bound).count());
  FlushAllLogs();
  std::_Exit(0);
}

std::optional<int> CheckLocalSettings(const Config& config) {
  for (const auto& [section, properties] :
       {std::pair{"kafka.consumer.", &config.kafka.consumer}, std::pair{"kafka.producer.", &config.kafka.producer}}) {
    if (absl::Status s = consumer::CheckProperties(*properties, section); !s.ok()) {
      return StartFailed(std::string(s.message()));
    }
  }
  return std::nullopt;
}

int StartAbandoned(const char* phase) {
  Logger("app").Info("event=start_abandoned phase=%v (a signal during start-up)", phase);
  return kExitOk;
}

}  // namespace qinfer::app
