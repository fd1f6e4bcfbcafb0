// Concrete DeviceMemory implementations (torch translation units only).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "qinfer/executor/device_memory.h"

namespace qinfer::executor {

// Installs serve's CPU allocator (c10::SetCPUAllocator) if it is not yet, and
// sets the bound of its large-block cache (cpu_block_cache.h; 0: none kept).
void InstallCpuAllocator(int64_t block_cache_bytes);

// The budgeted CPU device: serve's CPU allocator, counting. While charging is on
// (the primary model's load, warm-up and forward passes), every allocation is
// counted against `capacity_bytes`, and one past it throws
// c10::OutOfMemoryError inside the operator that asked, exactly where a CUDA
// allocation fails. Allocations made while charging is off (the fallback
// model) are neither counted nor refused.
//
// libtorch's CPU allocator is a process-wide hook, so there is one such
// device per process; creating a second one changes the capacity of the
// first. Counters are atomics: intra-op worker threads allocate too.
std::unique_ptr<DeviceMemory> InstallBudgetedCpuMemory(int64_t capacity_bytes);

// Turns charging on (`charge`) or off while it lives; the primary model of
// a budgeted device is the only one charged. Not reentrant across threads: the executor
// thread is the only user.
class ChargeScope {
 public:
  explicit ChargeScope(bool charge);
  ~ChargeScope();
  ChargeScope(const ChargeScope&) = delete;
  ChargeScope& operator=(const ChargeScope&) = delete;

 private:
  bool previous_;
};

// The CUDA caching allocator's statistics for `device_index`; with
// `memory_fraction` in (0, 1) the allocator is capped to that share of the
// card (emulating a smaller GPU). Unimplemented in builds without CUDA.
absl::StatusOr<std::unique_ptr<DeviceMemory>> CreateCudaMemory(int device_index, double memory_fraction,
                                                               int64_t budget_bytes);

// For devices without statistics (plain "cpu"): zeros, budget 0.
std::unique_ptr<DeviceMemory> CreateUntrackedMemory();

}  // namespace qinfer::executor
