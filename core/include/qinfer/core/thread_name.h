// qinfer's own threads, by stage. Each thread's body holds a StageThread
// for its lifetime: it names the thread `qinfer-<stage>` (`qinfer-<stage>-<n>`
// for one of several), as `top -H`, `perf` and /proc/PID/task/*/comm show
// it, and counts the CPU time the thread uses under its stage, so that
// serve's summary (event=thread_cpu_summary) and bench/pipeline say which
// stage the CPU went to.
#pragma once

#include <map>
#include <string>

namespace qinfer {

class StageThread {
 public:
  // Names the calling thread (Linux keeps 15 characters of a name).
  explicit StageThread(std::string stage, int index = -1);
  // Adds the thread's CPU time to its stage's total.
  ~StageThread();

  StageThread(const StageThread&) = delete;
  StageThread& operator=(const StageThread&) = delete;

 private:
  std::string stage_;
};

// CPU seconds by stage, of the stage threads ended so far and of those
// still running, and under "process" the whole process's (librdkafka's,
// RocksDB's and torch's threads included). Thread-safe.
std::map<std::string, double> StageCpuSeconds();

}  // namespace qinfer
