#include "qinfer/core/thread_name.h"

#include <pthread.h>
#include <time.h>

#include <mutex>
#include <utility>

namespace qinfer {
namespace {

double Seconds(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return 0;
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// The stage threads: the totals of those ended, and the stage and CPU clock
// of each one running (a clock is valid while its thread lives: a thread
// leaves the map before it ends, under the lock the readers hold).
struct Registry {
  std::mutex mu;
  std::map<std::string, double> ended;                               // guarded by mu
  std::map<pthread_t, std::pair<std::string, clockid_t>> running;  // guarded by mu
};

Registry& TheRegistry() {
  static Registry* registry = new Registry;  // never destroyed: threads may end at exit
  return *registry;
}

}  // namespace

StageThread::StageThread(std::string stage, int index) : stage_(std::move(stage)) {
  constexpr size_t kMaxName = 15;  // the kernel's TASK_COMM_LEN, less its NUL
  std::string name = "qinfer-" + stage_;
  if (index >= 0) name += "-" + std::to_string(index);
  pthread_setname_np(pthread_self(), name.substr(0, kMaxName).c_str());
  clockid_t clock;
  if (pthread_getcpuclockid(pthread_self(), &clock) != 0) return;
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.running[pthread_self()] = {stage_, clock};
}

StageThread::~StageThread() {
  const double used = Seconds(CLOCK_THREAD_CPUTIME_ID);
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.ended[stage_] += used;
  r.running.erase(pthread_self());
}

std::map<std::string, double> StageCpuSeconds() {
  Registry& r = TheRegistry();
  std::map<std::string, double> seconds;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    seconds = r.ended;
    for (const auto& [thread, stage_clock] : r.running) seconds[stage_clock.first] += Seconds(stage_clock.second);
  }
  seconds["process"] = Seconds(CLOCK_PROCESS_CPUTIME_ID);
  return seconds;
}

}  // namespace qinfer
