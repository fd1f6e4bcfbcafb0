// CPU blocks of 128 KiB and more kept for reuse, within a bound.
//
// A forward pass allocates and frees the same tensors (activations,
// attention scores) batch after batch, at sizes that change with each batch's
// shape. Handed back to the system when freed, every one of them is
// page-faulted in again by the next batch: on MiniLM in bf16 that was 1.4
// million faults and 40% of serve's speed for the blocks of 1 MiB and more
// (glibc's mmap threshold, which TuneProcessMalloc fixes at 1 MiB to keep
// the RSS bounded), and about 600 faults a batch more for those from 128 KiB
// to 1 MiB (the arena's top, given back past glibc's 128 KiB trim
// threshold). Kept in glibc's arenas instead, they fragment without bound
// (2.2 GB RSS with 0.4 GB live in the soak), and a larger trim threshold
// would keep every thread's arena top, not only the forward pass's.
//
// This cache keeps freed blocks of at least kMinBlock bytes in size classes
// (four per doubling, so a class wastes at most a quarter, and only in
// address space: pages a tensor never touches are never resident) and hands
// them out again, to a request of their class or of one a little smaller.
// It keeps at most `limit_bytes` of free blocks: a freed block that takes the
// free ones past it sends free blocks back to the system, largest classes
// first (the block itself when it is the largest). Live blocks are not
// counted against the limit: they are the model's weights and the running
// batch's tensors, bounded by the model and the memory plan. (A bound on live
// and free together, as this was first, kept nothing at all once a model's
// weights alone filled it: all-mpnet-base-v2's did the default 512 MiB, and
// every batch faulted its tensors in again: serve ran at 0.82 of the speed.)
// Limit 0: nothing is kept.
//
// Thread-safe: intra-op worker threads allocate and free too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace qinfer::executor {

struct BlockCacheStats {
  uint64_t hits = 0;       // blocks handed out again
  uint64_t misses = 0;     // blocks taken from the system
  uint64_t released = 0;   // blocks given back to the system (evicted, or freed over the limit)
  int64_t held_bytes = 0;   // large blocks held from the system, live and free
  int64_t free_bytes = 0;   // of which free, waiting for reuse
  int64_t limit_bytes = 0;  // the most free bytes kept
};

class CpuBlockCache {
 public:
  using RawAlloc = void* (*)(size_t);
  using RawFree = void (*)(void*);
  static constexpr size_t kMinBlock = size_t(128) << 10;

  CpuBlockCache(int64_t limit_bytes, RawAlloc raw_alloc, RawFree raw_free);
  ~CpuBlockCache();  // gives every free block back; live ones are the owners'
  CpuBlockCache(const CpuBlockCache&) = delete;
  CpuBlockCache& operator=(const CpuBlockCache&) = delete;

  // `n` rounded up to its class: a multiple of a quarter of the largest
  // power of two not above it, and of 4096.
  static size_t ClassSize(size_t n);

  // A block of at least ClassSize(n) bytes, n >= kMinBlock: a free one of
  // that class or of one up to 1.5 times it, else a new one of the class.
  // *block_size is its size, which Give needs back. Null only when the
  // system refuses.
  void* Take(size_t n, size_t* block_size);
  void Give(void* block, size_t block_size);

  // Every free block back to the system (after an OOM, before a peak is measured).
  void Release();
  // A new bound; free blocks over it go back at once.
  void SetLimit(int64_t limit_bytes);
  BlockCacheStats stats() const;

 private:
  // Takes free blocks out, largest classes first, until at most keep_bytes
  // of free ones are left, into `evicted` for ReturnToSystem once mu_ is
  // released. mu_ held.
  void EvictDownTo(int64_t keep_bytes, std::vector<void*>& evicted);
  void ReturnToSystem(const std::vector<void*>& evicted);

  const RawAlloc raw_alloc_;
  const RawFree raw_free_;
  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;  // by class size
  BlockCacheStats stats_;
};

// The process's CPU allocator's cache (libtorch's CPU allocator hook is one
// per process; TorchModelRunner::Load installs it and sets its limit).
BlockCacheStats ProcessCpuBlockCacheStats();

// glibc malloc's setting that the cache is built around; call first thing
// in main, before any thread starts (serve, and the benchmarks that stand
// for its executor, so that both run under the same allocator): the mmap
// threshold fixed at 1 MiB. glibc raises it (up to 32 MiB) each time a
// large block is freed, after which blocks whose sizes change all the time
// stay in the arenas and fragment them (a soak reached 2.2 GB RSS with
// 0.4 GB live; bench/soak/results/soak-mmap-threshold.json). Torch's blocks are
// this cache's from kMinBlock up, within its bound; any other block of
// 1 MiB or more goes back to the system when freed. The trim threshold
// stays at glibc's 128 KiB: at 16 MiB it kept 25-40 MB more resident across
// every thread's arena (bench/soak/results/soak-trim-threshold.json).
void TuneProcessMalloc();

}  // namespace qinfer::executor
