// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with
// clang's thread-safety annotations (absl/base/thread_annotations.h), so that
// members marked ABSL_GUARDED_BY(mu_) and functions marked
// ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) are checked by the compiler
// (clang -Wthread-safety; the ctest test `thread_safety`, label lint, runs
// it). libstdc++'s std::mutex carries no annotations: an ABSL_GUARDED_BY
// that names one is not checked at all.
//
// Not absl::Mutex, which is annotated too: the timed waits of Debian 12's
// abseil (20220623) wait on CLOCK_REALTIME, so a step of the wall clock
// would stretch a wait that must stay bounded in steady time (the executor's
// wait for a batch bounds how late it beats its heartbeat and sees a stop).
// These are the std types underneath, with std::chrono::steady_clock for
// every timed wait, as before.
//
// The lock order of the whole process is in docs/design/threads.md.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"

namespace qinfer {

// A non-recursive exclusive lock. Prefer MutexLock to Lock/Unlock.
class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// std::condition_variable over a Mutex. Every wait releases `mu` while it
// blocks and holds it again when it returns, and may return spuriously:
// callers re-check their condition in a loop.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    (void)lock.release();  // still held: the caller's
  }
  // Waits at most until `deadline`; false when it passed.
  bool WaitUntil(Mutex* mu, std::chrono::steady_clock::time_point deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const std::cv_status status = cv_.wait_until(lock, deadline);
    (void)lock.release();
    return status == std::cv_status::no_timeout;
  }
  // Waits at most `timeout` (measured on std::chrono::steady_clock); false
  // when it passed.
  template <typename Rep, typename Period>
  bool WaitFor(Mutex* mu, std::chrono::duration<Rep, Period> timeout) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const std::cv_status status = cv_.wait_for(lock, timeout);
    (void)lock.release();
    return status == std::cv_status::no_timeout;
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace qinfer
