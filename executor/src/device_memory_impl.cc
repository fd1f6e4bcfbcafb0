#include "device_memory_impl.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstring>

#include "qinfer/executor/cpu_block_cache.h"
#include "qinfer/executor/device_memory.h"

#ifdef QINFER_WITH_CUDA
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace qinfer::executor {
namespace {

// Each block carries a header before the data, so the deleter knows the size,
// whether the block was charged, and the block cache's class it came from (0:
// a small block, straight from c10). 64 bytes keep c10's 64-byte alignment.
struct alignas(64) BlockHeader {
  size_t size;
  size_t block;
  bool charged;
};
static_assert(sizeof(BlockHeader) == 64);

// Serve's CPU allocator: large blocks from the block cache (cpu_block_cache.h)
// and, for the budgeted device, a count of what the primary model holds.
class CpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    const bool charge = charging.load(std::memory_order_relaxed);
    if (charge) {
      const int64_t now = live.fetch_add(int64_t(n)) + int64_t(n);
      const int64_t cap = capacity.load(std::memory_order_relaxed);
      if (now > cap) {
        live.fetch_sub(int64_t(n));
        refused.fetch_add(1);
        TORCH_CHECK_WITH(OutOfMemoryError, false, "CPU out of memory (budgeted device): tried to allocate ",
                         FormatBytes(int64_t(n)), "; ", FormatBytes(now - int64_t(n)), " of the ", FormatBytes(cap),
                         " budget already allocated");
      }
      int64_t seen = peak.load(std::memory_order_relaxed);
      while (now > seen && !peak.compare_exchange_weak(seen, now)) {
      }
    }
    const size_t total = n + sizeof(BlockHeader);
    size_t block = 0;
    void* base = total >= CpuBlockCache::kMinBlock ? cache.Take(total, &block) : c10::alloc_cpu(total);
    if (base == nullptr) {
      if (charge) live.fetch_sub(int64_t(n));
      TORCH_CHECK_WITH(OutOfMemoryError, false, "CPU out of memory: the system refused ", FormatBytes(int64_t(total)));
    }
    auto* header = static_cast<BlockHeader*>(base);
    header->size = n;
    header->block = block;
    header->charged = charge;
    void* data = static_cast<char*>(base) + sizeof(BlockHeader);
    return {data, data, &Delete, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &Delete; }

  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

  static void Delete(void* data) {
    if (data == nullptr) return;
    auto* header = reinterpret_cast<BlockHeader*>(static_cast<char*>(data) - sizeof(BlockHeader));
    CpuAllocator& a = Instance();
    if (header->charged) a.live.fetch_sub(int64_t(header->size));
    if (header->block != 0) {
      a.cache.Give(header, header->block);
    } else {
      c10::free_cpu(header);
    }
  }

  static CpuAllocator& Instance() {
    // The CPU allocator hook is process-wide and must outlive every tensor.
    static CpuAllocator* instance = new CpuAllocator();
    return *instance;
  }

  // c10::alloc_cpu without its size check's exception: Take reports null.
  static void* RawAlloc(size_t n) {
    try {
      return c10::alloc_cpu(n);
    } catch (const c10::Error&) {
      return nullptr;
    }
  }

  std::atomic<bool> installed{false};
  std::atomic<bool> charging{false};
  std::atomic<int64_t> live{0};
  std::atomic<int64_t> peak{0};
  std::atomic<int64_t> capacity{INT64_MAX};
  std::atomic<uint64_t> refused{0};
  CpuBlockCache cache{0, &RawAlloc, &c10::free_cpu};
};

void Install(CpuAllocator& a) {
  if (!a.installed.exchange(true)) {
    // Priority above the default allocator's, so the hook sticks.
    c10::SetCPUAllocator(&a, /*priority=*/1);
  }
}

class BudgetedCpuMemory final : public DeviceMemory {
 public:
  explicit BudgetedCpuMemory(int64_t capacity) : capacity_(capacity) {}
  int64_t allocated_bytes() const override { return A().live.load(); }
  int64_t peak_bytes() const override { return A().peak.load(); }
  int64_t reserved_bytes() const override { return A().live.load(); }
  void ResetPeak() override { A().peak.store(A().live.load()); }
  int64_t budget_bytes() const override { return capacity_; }
  void ReleaseCache() override { A().cache.Release(); }
  uint64_t refused_allocations() const override { return A().refused.load(); }

 private:
  static CpuAllocator& A() { return CpuAllocator::Instance(); }
  int64_t capacity_;
};

class UntrackedMemory final : public DeviceMemory {
 public:
  int64_t allocated_bytes() const override { return 0; }
  int64_t peak_bytes() const override { return 0; }
  int64_t reserved_bytes() const override { return 0; }
  void ResetPeak() override {}
  int64_t budget_bytes() const override { return 0; }
  void ReleaseCache() override { CpuAllocator::Instance().cache.Release(); }
  uint64_t refused_allocations() const override { return 0; }
};

#ifdef QINFER_WITH_CUDA
class CudaMemory final : public DeviceMemory {
 public:
  CudaMemory(c10::DeviceIndex device, int64_t budget) : device_(device), budget_(budget) {}
  int64_t allocated_bytes() const override { return Stat(true).current; }
  int64_t peak_bytes() const override { return Stat(true).peak; }
  int64_t reserved_bytes() const override { return Stat(false).current; }
  void ResetPeak() override { c10::cuda::CUDACachingAllocator::resetPeakStats(device_); }
  int64_t budget_bytes() const override { return budget_; }
  void ReleaseCache() override { c10::cuda::CUDACachingAllocator::emptyCache(); }
  uint64_t refused_allocations() const override {
    return uint64_t(c10::cuda::CUDACachingAllocator::getDeviceStats(device_).num_ooms);
  }

 private:
  c10::CachingDeviceAllocator::Stat Stat(bool allocated) const {
    auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device_);
    const auto aggregate = size_t(c10::CachingDeviceAllocator::StatType::AGGREGATE);
    return allocated ? stats.allocated_bytes[aggregate] : stats.reserved_bytes[aggregate];
  }
  c10::DeviceIndex device_;
  int64_t budget_;
};
#endif

}  // namespace

std::unique_ptr<DeviceMemory> InstallBudgetedCpuMemory(int64_t capacity_bytes) {
  CpuAllocator& a = CpuAllocator::Instance();
  a.capacity.store(capacity_bytes);
  Install(a);
  return std::make_unique<BudgetedCpuMemory>(capacity_bytes);
}

ChargeScope::ChargeScope(bool charge) : previous_(CpuAllocator::Instance().charging.exchange(charge)) {}

ChargeScope::~ChargeScope() { CpuAllocator::Instance().charging.store(previous_); }

void InstallCpuAllocator(int64_t block_cache_bytes) {
  CpuAllocator& a = CpuAllocator::Instance();
  a.cache.SetLimit(block_cache_bytes);
  Install(a);
}

BlockCacheStats ProcessCpuBlockCacheStats() { return CpuAllocator::Instance().cache.stats(); }

std::unique_ptr<DeviceMemory> CreateUntrackedMemory() { return std::make_unique<UntrackedMemory>(); }

absl::StatusOr<std::unique_ptr<DeviceMemory>> CreateCudaMemory(int device_index, double memory_fraction,
                                                               int64_t budget_bytes) {
#ifdef QINFER_WITH_CUDA
  const auto device = c10::DeviceIndex(device_index);
  const int64_t total = int64_t(at::cuda::getDeviceProperties(device)->totalGlobalMem);
  if (memory_fraction > 0 && memory_fraction < 1) {
    // The caching allocator of a device exists once CUDA is initialised
    // (lazily, by the first tensor there); libtorch 2.11 refuses a fraction
    // before that ("Allocator not initialized for device").
    (void)at::empty({1}, at::TensorOptions().device(c10::Device(c10::kCUDA, device)));
    c10::cuda::CUDACachingAllocator::emptyCache();
    c10::cuda::CUDACachingAllocator::setMemoryFraction(memory_fraction, device);
  }
  const int64_t cap = memory_fraction > 0 && memory_fraction < 1 ? int64_t(total * memory_fraction) : total;
  return std::unique_ptr<DeviceMemory>(
      std::make_unique<CudaMemory>(device, budget_bytes > 0 ? std::min(budget_bytes, cap) : cap));
#else
  (void)device_index;
  (void)memory_fraction;
  (void)budget_bytes;
  return absl::UnimplementedError("this build has no CUDA support (no CUDA toolkit at build time)");
#endif
}

}  // namespace qinfer::executor
