#ifndef QINFER_EXPORT_PARQUET_BLOCK_KEEPING_POOL_H_
#define QINFER_EXPORT_PARQUET_BLOCK_KEEPING_POOL_H_

#include <arrow/memory_pool.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

namespace qinfer::export_parquet {

// An Arrow memory pool that keeps the large blocks freed after one row group
// for the next, in front of another pool. Every row group of an export asks
// for the same few large buffers (the builders' values, the writer's levels
// and pages); without it each one is fresh memory from the allocator, which
// the kernel must zero page by page (a tenth of a base64 store's export
// time, measured with perf). Blocks under kLargeBytes go straight through;
// at most `keep_bytes` are kept; kept blocks go back to the pool behind on
// destruction, so it must outlive every buffer it handed out. Thread-safe:
// the builders allocate on one thread while the writer thread frees the last
// row group's buffers.
class BlockKeepingPool : public arrow::MemoryPool {
 public:
  static constexpr int64_t kLargeBytes = int64_t{1} << 20;
  static constexpr int64_t kKeptBytes = int64_t{512} << 20;

  explicit BlockKeepingPool(arrow::MemoryPool* behind, int64_t keep_bytes = kKeptBytes)
      : behind_(behind), keep_bytes_(keep_bytes) {}
  ~BlockKeepingPool() override;
  BlockKeepingPool(const BlockKeepingPool&) = delete;
  BlockKeepingPool& operator=(const BlockKeepingPool&) = delete;

  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override;
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment, uint8_t** ptr) override;
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override;

  int64_t bytes_allocated() const override;
  int64_t total_bytes_allocated() const override;
  int64_t num_allocations() const override;
  int64_t max_memory() const override;
  std::string backend_name() const override { return behind_->backend_name(); }

  // Blocks handed out again instead of allocated (for tests and benches).
  int64_t reused() const;

 private:
  struct Block {
    uint8_t* data;
    int64_t alignment;
  };

  arrow::MemoryPool* behind_;
  const int64_t keep_bytes_;
  mutable std::mutex mu_;
  std::multimap<int64_t, Block> kept_;                // capacity -> block
  std::unordered_map<uint8_t*, int64_t> capacity_;    // a large block out -> its capacity
  int64_t kept_bytes_ = 0;
  int64_t total_ = 0;
  int64_t allocations_ = 0;
  int64_t reused_ = 0;
};

}  // namespace qinfer::export_parquet

#endif  // QINFER_EXPORT_PARQUET_BLOCK_KEEPING_POOL_H_
