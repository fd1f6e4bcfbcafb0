// The export's memory pool (export_parquet/src/block_keeping_pool.h): a large
// block freed is handed out again, its bytes intact across a reallocation;
// small blocks, and blocks past the bound, go back to the pool behind.
#include "block_keeping_pool.h"

#include <gtest/gtest.h>

#include <cstring>

namespace qinfer::export_parquet {
namespace {

constexpr int64_t kLarge = BlockKeepingPool::kLargeBytes;

TEST(BlockKeepingPool, ALargeBlockFreedIsHandedOutAgainAndGoesBackOnDestruction) {
  arrow::MemoryPool* behind = arrow::system_memory_pool();
  const int64_t before = behind->bytes_allocated();
  {
    BlockKeepingPool pool(behind);
    uint8_t* a = nullptr;
    ASSERT_TRUE(pool.Allocate(2 * kLarge, 64, &a).ok());
    pool.Free(a, 2 * kLarge, 64);
    EXPECT_EQ(behind->bytes_allocated(), before + 2 * kLarge);  // kept, not freed
    EXPECT_EQ(pool.bytes_allocated(), before);                   // and not in use
    uint8_t* b = nullptr;
    ASSERT_TRUE(pool.Allocate(kLarge + 1, 64, &b).ok());  // the smallest kept block that holds it
    EXPECT_EQ(b, a);
    EXPECT_EQ(pool.reused(), 1);
    uint8_t* c = nullptr;
    ASSERT_TRUE(pool.Allocate(kLarge, 64, &c).ok());  // none kept now: a block of its own
    EXPECT_NE(c, a);
    pool.Free(b, kLarge + 1, 64);
    pool.Free(c, kLarge, 64);
    EXPECT_EQ(pool.reused(), 1);
  }
  EXPECT_EQ(behind->bytes_allocated(), before);
}

TEST(BlockKeepingPool, SmallBlocksAndBlocksPastTheBoundGoStraightBack) {
  arrow::MemoryPool* behind = arrow::system_memory_pool();
  const int64_t before = behind->bytes_allocated();
  BlockKeepingPool pool(behind, 3 * kLarge);
  uint8_t* small = nullptr;
  ASSERT_TRUE(pool.Allocate(kLarge - 1, 64, &small).ok());
  pool.Free(small, kLarge - 1, 64);
  EXPECT_EQ(behind->bytes_allocated(), before);
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  ASSERT_TRUE(pool.Allocate(2 * kLarge, 64, &a).ok());
  ASSERT_TRUE(pool.Allocate(2 * kLarge, 64, &b).ok());
  pool.Free(a, 2 * kLarge, 64);  // kept: 2 of 3
  pool.Free(b, 2 * kLarge, 64);  // 4 of 3: back behind
  EXPECT_EQ(behind->bytes_allocated(), before + 2 * kLarge);
  uint8_t* c = nullptr;
  ASSERT_TRUE(pool.Allocate(kLarge, 32, &c).ok());  // another alignment: not the kept block
  EXPECT_NE(c, a);
  EXPECT_EQ(pool.reused(), 0);
  pool.Free(c, kLarge, 32);
}

TEST(BlockKeepingPool, ReallocationKeepsTheBytesAndGrowsInPlaceWithinTheBlock) {
  BlockKeepingPool pool(arrow::system_memory_pool());
  uint8_t* p = nullptr;
  ASSERT_TRUE(pool.Allocate(1000, 64, &p).ok());
  std::memset(p, 0x5a, 1000);
  ASSERT_TRUE(pool.Reallocate(1000, 3 * kLarge, 64, &p).ok());  // small to large: moved, bytes kept
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(p[i], 0x5a) << i;
  std::memset(p + 1000, 0x3c, 3 * kLarge - 1000);
  pool.Free(p, 3 * kLarge, 64);
  uint8_t* q = nullptr;
  ASSERT_TRUE(pool.Allocate(kLarge, 64, &q).ok());  // the kept 3 MiB block
  const uint8_t* block = q;
  ASSERT_TRUE(pool.Reallocate(kLarge, 2 * kLarge, 64, &q).ok());
  EXPECT_EQ(q, block);  // within its capacity: no copy
  std::memset(q, 0x11, 2 * kLarge);
  ASSERT_TRUE(pool.Reallocate(2 * kLarge, 4 * kLarge, 64, &q).ok());  // past it: moved, bytes kept
  EXPECT_NE(q, block);
  for (int64_t i = 0; i < 2 * kLarge; i += 4099) ASSERT_EQ(q[i], 0x11) << i;
  pool.Free(q, 4 * kLarge, 64);
}

}  // namespace
}  // namespace qinfer::export_parquet
