// Memory statistics of the primary device, one small interface for the
// budgeted CPU device and for CUDA. Sizes are bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace qinfer::executor {

// Not thread-safe with respect to ResetPeak/BeginCharge; the executor thread
// owns it. Reading the counters is safe from any thread.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  // Bytes held by live tensors of the primary device.
  virtual int64_t allocated_bytes() const = 0;
  // Largest allocated_bytes() since the last ResetPeak().
  virtual int64_t peak_bytes() const = 0;
  // Bytes reserved from the system (CUDA: the caching allocator's segments;
  // the budgeted CPU device: same as allocated).
  virtual int64_t reserved_bytes() const = 0;
  virtual void ResetPeak() = 0;
  // The budget that plans are made within.
  virtual int64_t budget_bytes() const = 0;
  // Returns cached blocks to the system (CUDA: emptyCache). After an OOM.
  virtual void ReleaseCache() = 0;
  // Allocations refused for want of memory since the process started (the
  // budgeted CPU device: past its capacity; CUDA: the caching allocator's
  // OOM count; 0 where nothing is tracked). A rise across a forward pass
  // means it ran out of memory, whatever error the model's code turned that
  // into (an AOTInductor package reports an error code, not the OOM).
  virtual uint64_t refused_allocations() const = 0;
};

// What a device string names: "cpu", "cuda:0", "cpu-budget:512MiB".
struct DeviceSpec {
  std::string torch_device = "cpu";  // what torch::Device parses
  int64_t budget_bytes = 0;          // cpu-budget: the capacity; else 0
  bool budgeted_cpu = false;

  // Errors name the string and list the accepted forms.
  static absl::StatusOr<DeviceSpec> Parse(const std::string& text);
};

// Parses "512MiB", "2GiB", "1500000", "64MB" into bytes.
absl::StatusOr<int64_t> ParseBytes(const std::string& text);

// A human form of `bytes` ("1.50 GiB").
std::string FormatBytes(int64_t bytes);

}  // namespace qinfer::executor
