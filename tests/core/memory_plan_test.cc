// The memory plan's persisted form: JSON round trip, what an unreadable
// stored plan gives, and which changes make a different key (a stored plan
// is reused only under the same key).
#include "qinfer/core/memory_plan.h"

#include <gtest/gtest.h>

namespace qinfer {
namespace {

MemoryPlan SamplePlan() {
  MemoryPlan p;
  p.model_digest = "sha256:abc";
  p.device = "cpu-budget:128MiB";
  p.dtype = "float32";
  p.torch_version = "2.8.0";
  p.budget_bytes = 128 << 20;
  p.margin = 0.1;
  p.max_batch_size = 64;
  p.bounds = {16, 64, 512};
  p.entries = {{16, 64, 10'000'000, 0.5, 0}, {64, 24, 90'000'000, 1.25, 32}, {512, 0, 0, 2.0, 0}};
  p.created_at_ms = 1'796'000'000'000;
  return p;
}

TEST(MemoryPlanTest, JsonRoundTripKeepsEveryField) {
  const MemoryPlan plan = SamplePlan();
  auto back = PlanFromJson(PlanToJson(plan));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, plan);
  EXPECT_EQ(back->Key(), plan.Key());
  EXPECT_EQ(back->entries[1].lowered_from, 32);
}

TEST(MemoryPlanTest, AnUnreadableStoredPlanIsDataLossNamingWhatIsWrong) {
  struct Case {
    std::string json;
    std::string message;
  };
  std::string no_device = PlanToJson(SamplePlan());
  no_device.replace(no_device.find("\"device\""), 8, "\"devise\"");
  std::string short_entries = PlanToJson(SamplePlan());
  short_entries.replace(short_entries.find("\"bounds\":[16,64,512]"), 20, "\"bounds\":[16,64,512,1024]");
  const std::vector<Case> cases = {
      {"", "not JSON"},      {"{\"model_digest\":", "not JSON"},       {"[1,2]", "not JSON"},
      {no_device, "device"}, {R"({"model_digest":1})", "stored plan"}, {short_entries, "entries do not match bounds"},
  };
  for (const Case& k : cases) {
    auto plan = PlanFromJson(k.json);
    ASSERT_FALSE(plan.ok()) << k.json;
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kDataLoss) << k.json;
    EXPECT_NE(plan.status().message().find(k.message), std::string::npos) << plan.status();
  }
}

TEST(MemoryPlanTest, EveryPartOfTheIdentityChangesTheKey) {
  const std::string base = SamplePlan().Key();
  std::vector<std::pair<std::string, MemoryPlan>> changed;
  auto with = [&](const std::string& what, auto change) {
    MemoryPlan p = SamplePlan();
    change(p);
    changed.emplace_back(what, p);
  };
  with("model", [](MemoryPlan& p) { p.model_digest = "sha256:def"; });
  with("device", [](MemoryPlan& p) { p.device = "cuda:0"; });
  with("dtype", [](MemoryPlan& p) { p.dtype = "bfloat16"; });
  with("libtorch", [](MemoryPlan& p) { p.torch_version = "2.9.0"; });
  with("budget", [](MemoryPlan& p) { p.budget_bytes += 1; });
  with("margin", [](MemoryPlan& p) { p.margin = 0.2; });
  with("max batch", [](MemoryPlan& p) { p.max_batch_size = 32; });
  with("buckets", [](MemoryPlan& p) { p.bounds = {32, 64, 512}; });
  for (const auto& [what, plan] : changed) {
    EXPECT_NE(plan.Key(), base) << "a different " << what << " must not reuse the plan";
  }
  // What the plan measured, or learned at run time, is not its identity: a
  // lowered cap is stored under the same key and found again.
  MemoryPlan lowered = SamplePlan();
  lowered.entries[0].lowered_from = lowered.entries[0].batch_size;
  lowered.entries[0].batch_size = 8;
  lowered.created_at_ms += 1000;
  EXPECT_EQ(lowered.Key(), base);
}

TEST(MemoryPlanTest, TheTableSaysWhatDoesNotFitAndWhatWasLowered) {
  const std::string table = FormatPlan(SamplePlan());
  EXPECT_NE(table.find("budget 128.0 MiB, margin 10% (plan limit 115.2 MiB), max batch 64"), std::string::npos)
      << table;
  EXPECT_NE(table.find("lowered from 32 after an OOM"), std::string::npos) << table;
  EXPECT_NE(table.find("does not fit"), std::string::npos) << table;
  EXPECT_NE(table.find("1536"), std::string::npos) << "tokens/batch of the 64 bucket: 24 x 64\n" << table;
}

}  // namespace
}  // namespace qinfer

namespace qinfer {
namespace {

// A device where a batch of b costs b * 10 bytes against a limit: the
// search sees only whether b fits, and counts its probes.
struct CostModel {
  int64_t limit = 0;
  int probes = 0;
  FitsFn Fits() {
    return [this](int b, int64_t* peak) -> absl::StatusOr<bool> {
      ++probes;
      *peak = int64_t(b) * 10;
      return *peak <= limit;
    };
  }
};

TEST(SearchFittingBatchTest, FindsTheLargestBatchFromAnyStart) {
  for (int first : {1, 3, 8, 37, 64, 500}) {
    CostModel m{.limit = 375};
    absl::StatusOr<FittingBatch> found = SearchFittingBatch(m.Fits(), first, 64);
    ASSERT_TRUE(found.ok()) << found.status();
    EXPECT_EQ(found->batch, 37) << "from " << first;
    EXPECT_EQ(found->peak, 370) << "the peak measured at the batch it returns";
  }
}

TEST(SearchFittingBatchTest, StopsAtTheLargestBatchAndSaysZeroWhenNothingFits) {
  CostModel roomy{.limit = 1 << 20};
  EXPECT_EQ(SearchFittingBatch(roomy.Fits(), 1, 64)->batch, 64);
  EXPECT_EQ(roomy.probes, 7) << "1, 2, 4, ... 64: doubling, no bisection past the largest";
  CostModel none{.limit = 5};
  EXPECT_EQ(SearchFittingBatch(none.Fits(), 16, 64)->batch, 0);
  EXPECT_EQ(none.probes, 2) << "16 does not fit, nor does 1";
}

TEST(SearchFittingBatchTest, AStartThatFitsCostsFewProbes) {
  // The next longer bucket's batch (32) fits this one too: doubling to 64
  // fails, then bisection in (32, 64).
  CostModel m{.limit = 400};
  EXPECT_EQ(SearchFittingBatch(m.Fits(), 32, 64)->batch, 40);
  EXPECT_LE(m.probes, 2 + 5);
}

TEST(SearchFittingBatchTest, WithTheLimitAPeakThatGrowsByRowsIsFoundInFourTries) {
  // A fixed part (the weights) and 10 bytes a row: from 12, then 24, the line
  // through their peaks meets 1375 at 37; 38 proves it tight.
  struct Affine {
    int64_t limit = 1375;
    std::vector<int> tried;
    FitsFn Fits() {
      return [this](int b, int64_t* peak) -> absl::StatusOr<bool> {
        tried.push_back(b);
        *peak = 1000 + int64_t(b) * 10;
        return *peak <= limit;
      };
    }
  };
  Affine with_limit;
  absl::StatusOr<FittingBatch> found = SearchFittingBatch(with_limit.Fits(), 12, 64, with_limit.limit);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->batch, 37);
  EXPECT_EQ(with_limit.tried, (std::vector<int>{12, 24, 37, 38}));
  Affine without;
  EXPECT_EQ(SearchFittingBatch(without.Fits(), 12, 64)->batch, 37);
  EXPECT_GT(without.tried.size(), 4u) << "doubling to 48, then bisection";
  // From 1: doubling while the line's batch is past the doubling step, then the guess.
  Affine from_one;
  from_one.limit = 1055;  // 5 rows
  EXPECT_EQ(SearchFittingBatch(from_one.Fits(), 1, 64, from_one.limit)->batch, 5);
  EXPECT_EQ(from_one.tried, (std::vector<int>{1, 2, 4, 5, 6}));

  // Peaks that are not a line (a step at 30 rows): the guess fails, and
  // bisection still finds the largest that fits.
  for (int first : {1, 5, 12, 33}) {
    std::vector<int> tried;
    FitsFn stepped = [&tried](int b, int64_t* peak) -> absl::StatusOr<bool> {
      tried.push_back(b);
      *peak = 1000 + int64_t(b) * 10 + (b >= 30 ? 200 : 0);
      return *peak <= 1375;
    };
    found = SearchFittingBatch(stepped, first, 64, 1375);
    ASSERT_TRUE(found.ok()) << found.status();
    EXPECT_EQ(found->batch, 29) << "from " << first;
  }
}

TEST(SearchFittingBatchTest, AnErrorThatIsNotAFitEndsTheSearch) {
  int probes = 0;
  FitsFn broken = [&probes](int b, int64_t*) -> absl::StatusOr<bool> {
    ++probes;
    if (b > 4) return absl::InternalError("the model failed");
    return true;
  };
  absl::StatusOr<FittingBatch> found = SearchFittingBatch(broken, 1, 64);
  EXPECT_EQ(found.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(probes, 4) << "1, 2, 4, then 8 fails and nothing more runs";
}

TEST(BisectFittingBatchTest, KeepsWhatIsKnownToFitWhenNothingLargerDoes) {
  CostModel m{.limit = 100};
  absl::StatusOr<FittingBatch> found = BisectFittingBatch(m.Fits(), {10, 100}, 11);
  EXPECT_EQ(found->batch, 10);
  EXPECT_EQ(found->peak, 100);
  EXPECT_EQ(m.probes, 0);
  EXPECT_EQ(BisectFittingBatch(m.Fits(), {0, 0}, 64)->batch, 10);
}

}  // namespace
}  // namespace qinfer
