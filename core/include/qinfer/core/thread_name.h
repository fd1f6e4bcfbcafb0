// Names the calling thread, as `top -H`, `perf` and /proc/PID/task/*/comm
// show it: each of the service's threads says which stage it runs
// (qinfer-consumer, qinfer-decode-N, qinfer-executor, qinfer-record, ...),
// so a profile or bench/pipeline's per-thread CPU figures name the stage.
#pragma once

#include <string>

namespace qinfer {

// Linux keeps 15 characters of a name; longer ones are cut there.
void NameThisThread(const std::string& name);

}  // namespace qinfer
