// The CPU allocator's large-block cache: its logic on a counting system
// allocator, then the real one under the test model's forward passes.
#include "qinfer/executor/cpu_block_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::executor {
namespace {

constexpr size_t kMiB = size_t(1) << 20;

// The system, counted: every block the cache takes from it and gives back.
std::atomic<int> g_allocs{0};
std::atomic<int> g_frees{0};
void* CountingAlloc(size_t n) {
  g_allocs++;
  return std::malloc(n);
}
void CountingFree(void* p) {
  g_frees++;
  std::free(p);
}

class CpuBlockCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_allocs = 0;
    g_frees = 0;
  }
};

TEST(CpuBlockCacheClassTest, AClassHoldsItsRequestWastesAtMostAQuarterAndIsWholePages) {
  for (size_t n = kMiB; n < 600 * kMiB; n = n * 9 / 8 + 12345) {
    const size_t c = CpuBlockCache::ClassSize(n);
    EXPECT_GE(c, n);
    EXPECT_LE(c, n + n / 4) << n;
    EXPECT_EQ(c % 4096, 0u) << n;
    EXPECT_EQ(CpuBlockCache::ClassSize(c), c) << "a class size is its own class";
  }
  // Four classes per doubling: 4 MiB .. 8 MiB.
  EXPECT_EQ(CpuBlockCache::ClassSize(4 * kMiB + 1), 5 * kMiB);
  EXPECT_EQ(CpuBlockCache::ClassSize(7 * kMiB + 1), 8 * kMiB);
}

TEST_F(CpuBlockCacheTest, AFreedBlockIsHandedOutAgainWithoutTheSystem) {
  CpuBlockCache cache(64 * kMiB, &CountingAlloc, &CountingFree);
  size_t size = 0;
  void* a = cache.Take(3 * kMiB + 100, &size);
  ASSERT_NE(a, nullptr);
  cache.Give(a, size);
  size_t again = 0;
  void* b = cache.Take(3 * kMiB + 5000, &again);  // another request of the same class
  EXPECT_EQ(b, a);
  EXPECT_EQ(again, size);
  EXPECT_EQ(g_allocs.load(), 1);
  EXPECT_EQ(g_frees.load(), 0);
  BlockCacheStats s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.held_bytes, int64_t(size));
  EXPECT_EQ(s.free_bytes, 0);
  cache.Give(b, again);
}

TEST_F(CpuBlockCacheTest, ItNeverKeepsMoreFreeBytesThanItsLimit) {
  const int64_t limit = 20 * int64_t(kMiB);
  CpuBlockCache cache(limit, &CountingAlloc, &CountingFree);
  std::vector<std::pair<void*, size_t>> live;
  int64_t live_bytes = 0;
  // Sizes that change with every "batch", as torch's do, over three shapes
  // that need 7, 11 and 15 MiB: together more than the limit.
  for (int batch = 0; batch < 40; ++batch) {
    for (int k = 0; k < 4; ++k) {
      size_t size = 0;
      void* p = cache.Take(kMiB + size_t((batch % 3) * 2 + k) * kMiB / 2, &size);
      ASSERT_NE(p, nullptr);
      live.emplace_back(p, size);
      live_bytes += int64_t(size);
      const BlockCacheStats s = cache.stats();
      EXPECT_LE(s.free_bytes, limit) << "batch " << batch;
      EXPECT_EQ(s.held_bytes - s.free_bytes, live_bytes);
    }
    for (auto [p, size] : live) {
      cache.Give(p, size);
      EXPECT_LE(cache.stats().free_bytes, limit) << "batch " << batch;
    }
    live.clear();
    live_bytes = 0;
    const BlockCacheStats s = cache.stats();
    EXPECT_EQ(s.held_bytes, s.free_bytes);
  }
  const BlockCacheStats s = cache.stats();
  EXPECT_GT(s.hits, 0u);
  EXPECT_GT(s.released, 0u) << "past the limit, blocks go back to the system";
  EXPECT_EQ(uint64_t(g_frees.load()), s.released);
  EXPECT_EQ(uint64_t(g_allocs.load()), s.misses);
}

TEST_F(CpuBlockCacheTest, LiveBlocksPastTheLimitDoNotStopTheReuseOfFreedOnes) {
  // A model whose weights alone are more than the limit (all-mpnet-base-v2's
  // in float32 and bf16 are more than the default 512 MiB) still gets its
  // batches' blocks back.
  CpuBlockCache cache(16 * int64_t(kMiB), &CountingAlloc, &CountingFree);
  std::vector<std::pair<void*, size_t>> weights;
  for (int i = 0; i < 6; ++i) {
    size_t size = 0;
    weights.emplace_back(cache.Take(8 * kMiB, &size), size);
  }
  for (int batch = 0; batch < 10; ++batch) {
    size_t a_size = 0, b_size = 0;
    void* a = cache.Take(6 * kMiB, &a_size);
    void* b = cache.Take(3 * kMiB, &b_size);
    cache.Give(a, a_size);
    cache.Give(b, b_size);
  }
  BlockCacheStats s = cache.stats();
  EXPECT_EQ(s.misses, 6u + 2u) << "the weights and the first batch's two blocks";
  EXPECT_EQ(s.hits, 2u * 9u);
  EXPECT_EQ(s.released, 0u);
  EXPECT_EQ(s.free_bytes, 9 * int64_t(kMiB));
  EXPECT_EQ(s.held_bytes, 48 * int64_t(kMiB) + s.free_bytes);
  for (auto [p, size] : weights) cache.Give(p, size);
  s = cache.stats();
  EXPECT_LE(s.free_bytes, 16 * int64_t(kMiB)) << "freed weights go back past the limit";
  EXPECT_EQ(s.held_bytes, s.free_bytes);
}

TEST_F(CpuBlockCacheTest, FreeBlocksPastTheLimitGoBackLargestFirst) {
  CpuBlockCache cache(12 * int64_t(kMiB), &CountingAlloc, &CountingFree);
  size_t small_size = 0, large_size = 0, size = 0;
  void* small = cache.Take(2 * kMiB, &small_size);
  void* large = cache.Take(8 * kMiB, &large_size);
  void* p = cache.Take(5 * kMiB, &size);
  EXPECT_EQ(g_frees.load(), 0) << "live blocks are not counted against the limit";
  cache.Give(small, small_size);
  cache.Give(large, large_size);
  ASSERT_EQ(cache.stats().free_bytes, 10 * int64_t(kMiB));
  cache.Give(p, size);  // 10 + 5 > 12: one must go, the largest
  EXPECT_EQ(g_frees.load(), 1);
  BlockCacheStats s = cache.stats();
  EXPECT_EQ(s.free_bytes, int64_t(small_size + size));
  EXPECT_EQ(s.held_bytes, s.free_bytes);
  size_t again = 0, again5 = 0;
  EXPECT_EQ(cache.Take(2 * kMiB, &again), small) << "the small block stayed";
  EXPECT_EQ(cache.Take(5 * kMiB, &again5), p) << "and so did the one freed last";
  cache.Give(small, again);
  cache.Give(p, again5);
}

TEST_F(CpuBlockCacheTest, LimitZeroKeepsNothingAndReleaseAndSetLimitGiveBlocksBack) {
  {
    CpuBlockCache none(0, &CountingAlloc, &CountingFree);
    size_t size = 0;
    void* p = none.Take(2 * kMiB, &size);
    none.Give(p, size);
    EXPECT_EQ(g_frees.load(), 1);
    EXPECT_EQ(none.stats().held_bytes, 0);
  }
  CpuBlockCache cache(64 * int64_t(kMiB), &CountingAlloc, &CountingFree);
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t mib = 1; mib <= 6; ++mib) {
    size_t size = 0;
    blocks.emplace_back(cache.Take(mib * kMiB, &size), size);
  }
  for (auto [p, size] : blocks) cache.Give(p, size);
  EXPECT_EQ(cache.stats().free_bytes, 21 * int64_t(kMiB));
  cache.SetLimit(10 * int64_t(kMiB));
  EXPECT_LE(cache.stats().free_bytes, 10 * int64_t(kMiB));
  cache.Release();
  EXPECT_EQ(cache.stats().held_bytes, 0);
  EXPECT_EQ(g_frees.load(), 1 + 6);
}

TEST_F(CpuBlockCacheTest, ThreadsTakingAndGivingAtOnceLeaveItConsistent) {
  CpuBlockCache cache(40 * int64_t(kMiB), &CountingAlloc, &CountingFree);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 500; ++i) {
        size_t size = 0;
        void* p = cache.Take(kMiB + size_t((i + t) % 5) * kMiB, &size);
        static_cast<char*>(p)[size - 1] = char(i);
        cache.Give(p, size);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const BlockCacheStats s = cache.stats();
  EXPECT_EQ(s.held_bytes, s.free_bytes);
  EXPECT_LE(s.held_bytes, 40 * int64_t(kMiB));
  EXPECT_EQ(s.hits + s.misses, 4u * 500u);
  EXPECT_EQ(int64_t(g_allocs.load()) - int64_t(g_frees.load()),
            int64_t(s.misses) - int64_t(s.released));
}

// The real allocator: libtorch's tensors of a forward pass come from the cache.
std::vector<std::vector<int64_t>> LongRows(int batch, int length, int salt) {
  std::vector<std::vector<int64_t>> rows(size_t(batch), std::vector<int64_t>(size_t(length), 0));
  for (int b = 0; b < batch; ++b) {
    for (int t = 0; t < length; ++t) rows[b][t] = 1 + (b * 131 + t * 17 + salt) % 4000;
  }
  return rows;
}

absl::StatusOr<std::unique_ptr<TorchModelRunner>> LoadTestModel(int64_t cache_bytes) {
  RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  options.device = "cpu";
  options.cpu_block_cache_bytes = cache_bytes;
  return TorchModelRunner::Load(options);
}

TEST(CpuAllocatorTest, TheSecondBatchOfAShapeTakesNoNewBlockFromTheSystemAndGivesTheSameOutputs) {
  auto runner = LoadTestModel(int64_t(256) << 20);
  ASSERT_TRUE(runner.ok()) << runner.status();
  auto first = (*runner)->Forward(LongRows(16, 256, 0));
  ASSERT_TRUE(first.ok()) << first.status();
  const BlockCacheStats before = ProcessCpuBlockCacheStats();
  EXPECT_GT(before.misses, 0u) << "a [16, 256] batch of the test model allocates blocks of 1 MiB and more";
  auto second = (*runner)->Forward(LongRows(16, 256, 0));
  ASSERT_TRUE(second.ok()) << second.status();
  const BlockCacheStats after = ProcessCpuBlockCacheStats();
  EXPECT_EQ(after.misses, before.misses) << "every large block of the second batch was a freed one";
  EXPECT_GT(after.hits, before.hits);
  EXPECT_LE(after.free_bytes, after.limit_bytes);
  EXPECT_EQ(*first, *second) << "a reused block holds nothing of its last tensor that shows";
  // Another batch shape, then the first again: still the same outputs.
  ASSERT_TRUE((*runner)->Forward(LongRows(9, 200, 5)).ok());
  auto third = (*runner)->Forward(LongRows(16, 256, 0));
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(*first, *third);
}

TEST(CpuAllocatorTest, TheBlocksUnderAMiBOfABatchAreKeptForTheNextToo) {
  // A [2, 128] batch of the test model: its tensors are 128 KiB to 512 KiB,
  // under glibc's mmap threshold but past its trim threshold, so the arena
  // would hand them back and the next batch would fault them in again.
  auto runner = LoadTestModel(int64_t(256) << 20);
  ASSERT_TRUE(runner.ok()) << runner.status();
  auto first = (*runner)->Forward(LongRows(2, 128, 0));
  ASSERT_TRUE(first.ok()) << first.status();
  const BlockCacheStats before = ProcessCpuBlockCacheStats();
  auto second = (*runner)->Forward(LongRows(2, 128, 0));
  ASSERT_TRUE(second.ok()) << second.status();
  const BlockCacheStats after = ProcessCpuBlockCacheStats();
  EXPECT_EQ(after.misses, before.misses) << "every block of the second batch was a freed one";
  EXPECT_GT(after.hits, before.hits) << "the batch's blocks of 128 KiB and more come from the cache";
  EXPECT_EQ(*first, *second);
}

TEST(CpuAllocatorTest, WithTheCacheOffEveryLargeBlockGoesBackToTheSystem) {
  auto runner = LoadTestModel(0);
  ASSERT_TRUE(runner.ok()) << runner.status();
  const BlockCacheStats before = ProcessCpuBlockCacheStats();
  ASSERT_TRUE((*runner)->Forward(LongRows(16, 256, 0)).ok());
  ASSERT_TRUE((*runner)->Forward(LongRows(16, 256, 0)).ok());
  const BlockCacheStats after = ProcessCpuBlockCacheStats();
  EXPECT_EQ(after.limit_bytes, 0);
  EXPECT_EQ(after.hits, before.hits);
  EXPECT_EQ(after.free_bytes, 0);
  EXPECT_GT(after.released, before.released);
}

}  // namespace
}  // namespace qinfer::executor
