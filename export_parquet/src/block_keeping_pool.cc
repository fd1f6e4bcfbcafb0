#include "block_keeping_pool.h"

#include <algorithm>
#include <cstring>

namespace qinfer::export_parquet {

BlockKeepingPool::~BlockKeepingPool() {
  for (const auto& [capacity, block] : kept_) behind_->Free(block.data, capacity, block.alignment);
}

arrow::Status BlockKeepingPool::Allocate(int64_t size, int64_t alignment, uint8_t** out) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++allocations_;
    total_ += size;
  }
  if (size < kLargeBytes) return behind_->Allocate(size, alignment, out);
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The smallest kept block that holds `size`, at the same alignment.
    for (auto it = kept_.lower_bound(size); it != kept_.end(); ++it) {
      if (it->second.alignment != alignment) continue;
      *out = it->second.data;
      capacity_[*out] = it->first;
      kept_bytes_ -= it->first;
      kept_.erase(it);
      ++reused_;
      return arrow::Status::OK();
    }
  }
  ARROW_RETURN_NOT_OK(behind_->Allocate(size, alignment, out));
  std::lock_guard<std::mutex> lock(mu_);
  capacity_[*out] = size;
  return arrow::Status::OK();
}

arrow::Status BlockKeepingPool::Reallocate(int64_t old_size, int64_t new_size, int64_t alignment, uint8_t** ptr) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = capacity_.find(*ptr);
  if (it == capacity_.end() && new_size < kLargeBytes) {
    ++allocations_;
    total_ += new_size;
    lock.unlock();
    return behind_->Reallocate(old_size, new_size, alignment, ptr);
  }
  if (it != capacity_.end() && new_size <= it->second) return arrow::Status::OK();
  lock.unlock();
  uint8_t* moved = nullptr;
  ARROW_RETURN_NOT_OK(Allocate(new_size, alignment, &moved));
  std::memcpy(moved, *ptr, static_cast<size_t>(std::min(old_size, new_size)));
  Free(*ptr, old_size, alignment);  // a kept block, or one of the pool behind
  *ptr = moved;
  return arrow::Status::OK();
}

void BlockKeepingPool::Free(uint8_t* buffer, int64_t size, int64_t alignment) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = capacity_.find(buffer);
  if (it == capacity_.end()) {
    lock.unlock();
    behind_->Free(buffer, size, alignment);
    return;
  }
  const int64_t capacity = it->second;
  capacity_.erase(it);
  if (kept_bytes_ + capacity <= keep_bytes_) {
    kept_.emplace(capacity, Block{buffer, alignment});
    kept_bytes_ += capacity;
    return;
  }
  lock.unlock();
  behind_->Free(buffer, capacity, alignment);
}

int64_t BlockKeepingPool::bytes_allocated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return behind_->bytes_allocated() - kept_bytes_;
}

int64_t BlockKeepingPool::total_bytes_allocated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

int64_t BlockKeepingPool::num_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocations_;
}

int64_t BlockKeepingPool::max_memory() const { return behind_->max_memory(); }

int64_t BlockKeepingPool::reused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reused_;
}

}  // namespace qinfer::export_parquet
