#include "qinfer/core/thread_name.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <time.h>

#include <string>
#include <thread>

namespace qinfer {
namespace {

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// Burns `seconds` of this thread's CPU time.
void Spin(double seconds) {
  const double until = ThreadCpuSeconds() + seconds;
  volatile uint64_t x = 0;
  while (ThreadCpuSeconds() < until) x = x + 1;
}

std::string ThisThreadsName() {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

TEST(StageThreadTest, NamesTheThreadAfterItsStageAndIndex) {
  std::string one, two;
  std::thread([&] {
    StageThread stage("naming");
    one = ThisThreadsName();
  }).join();
  std::thread([&] {
    StageThread stage("decode-of-a-long-stage", 3);
    two = ThisThreadsName();
  }).join();
  EXPECT_EQ(one, "qinfer-naming");
  EXPECT_EQ(two, "qinfer-decode-o") << "Linux keeps 15 characters";
}

TEST(StageThreadTest, CountsTheCpuOfEndedAndRunningThreadsByStage) {
  const double before = StageCpuSeconds()["spinning"];
  std::thread([] {
    StageThread stage("spinning", 0);
    Spin(0.05);
  }).join();
  const double ended = StageCpuSeconds()["spinning"] - before;
  EXPECT_GE(ended, 0.05);
  EXPECT_LT(ended, 1.0);

  // A thread still running is read on its own CPU clock.
  std::atomic<bool> spun{false}, stop{false};
  std::thread running([&] {
    StageThread stage("spinning", 1);
    Spin(0.05);
    spun = true;
    while (!stop) std::this_thread::yield();
  });
  while (!spun) std::this_thread::yield();
  const std::map<std::string, double> now = StageCpuSeconds();
  EXPECT_GE(now.at("spinning") - before, 0.1);
  EXPECT_GE(now.at("process"), now.at("spinning") - before) << "the process's CPU includes its threads'";
  stop = true;
  running.join();
}

}  // namespace
}  // namespace qinfer
