// The annotated lock types over std::mutex and std::condition_variable.
#include "qinfer/core/mutex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace qinfer {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// What the tests share between threads, annotated as the modules do.
struct Shared {
  Mutex mu;
  CondVar cv;
  bool ready ABSL_GUARDED_BY(mu) = false;
  int count ABSL_GUARDED_BY(mu) = 0;
};

TEST(MutexLockTest, ExcludesTheOtherThreadsForItsScope) {
  Shared s;
  auto add = [&s] {
    for (int i = 0; i < 10000; ++i) {
      MutexLock lock(&s.mu);
      s.count++;
    }
  };
  std::thread a(add);
  std::thread b(add);
  a.join();
  b.join();
  MutexLock lock(&s.mu);
  EXPECT_EQ(s.count, 20000);
}

TEST(CondVarTest, WaitReturnsWithTheLockHeldOnceSignalled) {
  Shared s;
  std::thread signaller([&s] {
    {
      MutexLock lock(&s.mu);
      s.ready = true;
    }
    s.cv.SignalAll();
  });
  {
    MutexLock lock(&s.mu);
    while (!s.ready) s.cv.Wait(&s.mu);
    s.count = 1;  // still held: the signaller has long let go
  }
  signaller.join();
  MutexLock lock(&s.mu);
  EXPECT_EQ(s.count, 1);
}

TEST(CondVarTest, WaitUntilReturnsFalseOnceTheDeadlinePassedUnsignalled) {
  Shared s;
  MutexLock lock(&s.mu);
  const steady_clock::time_point deadline = steady_clock::now() + milliseconds(20);
  bool signalled = true;
  while (signalled && steady_clock::now() < deadline) signalled = s.cv.WaitUntil(&s.mu, deadline);
  EXPECT_FALSE(signalled);
  EXPECT_GE(steady_clock::now(), deadline);
}

TEST(CondVarTest, WaitForReturnsFalseAfterItsTimeoutUnsignalled) {
  Shared s;
  MutexLock lock(&s.mu);
  const steady_clock::time_point start = steady_clock::now();
  bool signalled = true;
  while (signalled && steady_clock::now() - start < milliseconds(20)) {
    signalled = s.cv.WaitFor(&s.mu, milliseconds(20));
  }
  EXPECT_FALSE(signalled);
  EXPECT_GE(steady_clock::now() - start, milliseconds(20));
}

TEST(CondVarTest, WaitUntilReturnsTrueWhenSignalledBeforeTheDeadline) {
  Shared s;
  std::thread signaller;
  {
    MutexLock lock(&s.mu);
    // The signaller can take the lock only once the wait below let go of it.
    signaller = std::thread([&s] {
      {
        MutexLock lock(&s.mu);
        s.ready = true;
      }
      s.cv.SignalAll();
    });
    const steady_clock::time_point deadline = steady_clock::now() + std::chrono::seconds(30);
    bool signalled = false;
    while (!s.ready) signalled = s.cv.WaitUntil(&s.mu, deadline);
    EXPECT_TRUE(signalled);
  }
  signaller.join();
}

}  // namespace
}  // namespace qinfer
