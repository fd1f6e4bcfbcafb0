#include "qinfer/executor/cpu_block_cache.h"

#include <malloc.h>

#include <algorithm>
#include <bit>

namespace qinfer::executor {

CpuBlockCache::CpuBlockCache(int64_t limit_bytes, RawAlloc raw_alloc, RawFree raw_free)
    : raw_alloc_(raw_alloc), raw_free_(raw_free) {
  stats_.limit_bytes = limit_bytes;
}

CpuBlockCache::~CpuBlockCache() { Release(); }

size_t CpuBlockCache::ClassSize(size_t n) {
  const size_t step = std::max<size_t>(std::bit_floor(n) / 4, 4096);
  return (n + step - 1) / step * step;
}

void* CpuBlockCache::Take(size_t n, size_t* block_size) {
  const size_t size = ClassSize(n);
  *block_size = size;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The smallest free block of this class or of one up to half as large
    // again: batch shapes vary, and its pages are resident already.
    for (auto it = free_.lower_bound(size); it != free_.end() && it->first <= size + size / 2; ++it) {
      if (it->second.empty()) continue;
      void* block = it->second.back();
      it->second.pop_back();
      *block_size = it->first;
      stats_.free_bytes -= int64_t(it->first);
      stats_.hits++;
      return block;
    }
    stats_.misses++;
    stats_.held_bytes += int64_t(size);
  }
  void* block = raw_alloc_(size);
  if (block == nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.held_bytes -= int64_t(size);
  }
  return block;
}

void CpuBlockCache::Give(void* block, size_t block_size) {
  std::vector<void*> evicted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_[block_size].push_back(block);
    stats_.free_bytes += int64_t(block_size);
    EvictDownTo(stats_.limit_bytes, evicted);
  }
  ReturnToSystem(evicted);
}

void CpuBlockCache::EvictDownTo(int64_t keep_bytes, std::vector<void*>& evicted) {
  for (auto it = free_.rbegin(); it != free_.rend() && stats_.free_bytes > keep_bytes; ++it) {
    std::vector<void*>& blocks = it->second;
    while (!blocks.empty() && stats_.free_bytes > keep_bytes) {
      evicted.push_back(blocks.back());
      blocks.pop_back();
      stats_.held_bytes -= int64_t(it->first);
      stats_.free_bytes -= int64_t(it->first);
      stats_.released++;
    }
  }
}

void CpuBlockCache::ReturnToSystem(const std::vector<void*>& evicted) {
  // Outside the lock (munmap): the intra-op threads free blocks too.
  for (void* block : evicted) raw_free_(block);
}

void CpuBlockCache::Release() {
  std::vector<void*> evicted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    EvictDownTo(0, evicted);
  }
  ReturnToSystem(evicted);
}

void CpuBlockCache::SetLimit(int64_t limit_bytes) {
  std::vector<void*> evicted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.limit_bytes = limit_bytes;
    EvictDownTo(limit_bytes, evicted);
  }
  ReturnToSystem(evicted);
}

BlockCacheStats CpuBlockCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void TuneProcessMalloc() { mallopt(M_MMAP_THRESHOLD, 1 << 20); }

}  // namespace qinfer::executor
