// The OOM ladder on its own (executor/src/oom_ladder.h): models that run out
// of memory or fail on command, so each step is seen in order. The ladder on
// a real model and the budgeted device (an allocator that really refuses
// inside the forward pass) is memory_ladder_test's.
#include "oom_ladder.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "fakes/fake_clock.h"

namespace qinfer::executor {
namespace {

// A primary that holds at most `capacity` rows per batch (more: out of
// memory), fails any row whose first id is kPoison (a model error), and a
// fallback that runs one row or fails as told.
class CommandedModels final : public LadderModels {
 public:
  static constexpr int64_t kPoison = 666;
  size_t capacity = 64;
  bool has_fallback = true;
  bool fallback_oom = false;
  bool fallback_breaks = false;
  std::vector<size_t> primary_batches;  // the size of each batch tried
  int released = 0;

  std::vector<std::vector<float>> RunPrimary(const std::vector<TokenRow>& rows, int64_t* padded) override {
    primary_batches.push_back(rows.size());
    if (rows.size() > capacity) throw std::runtime_error("CUDA out of memory. Tried to allocate 2.00 GiB");
    *padded = 0;
    std::vector<std::vector<float>> out;
    for (const TokenRow& row : rows) {
      if ((*row.ids)[0] == kPoison) throw std::runtime_error("index out of range in self");
      *padded = std::max<int64_t>(*padded, int64_t(row.ids->size()));
      out.push_back({float((*row.ids)[0])});
    }
    return out;
  }
  std::vector<float> RunFallback(const TokenRow& row) override {
    if (fallback_oom) throw std::runtime_error("CPU out of memory");
    if (fallback_breaks || (*row.ids)[0] == kPoison) throw std::runtime_error("index out of range in self");
    return {float((*row.ids)[0])};
  }
  const std::string& primary_name() const override { return primary_; }
  const std::string& fallback_name() const override { return has_fallback ? fallback_ : none_; }
  void ReleaseCache() override { ++released; }

 private:
  std::string primary_ = "cuda:0", fallback_ = "cpu", none_;
};

class LadderStepsTest : public ::testing::Test {
 protected:
  Batch MakeBatch(const std::vector<int64_t>& first_ids) {
    Batch b;
    b.bucket_bound = 16;
    for (size_t i = 0; i < first_ids.size(); ++i) {
      Job j;
      j.id = "j" + std::to_string(i);
      j.input_ids = {first_ids[i], 1, 2};
      b.jobs.push_back(j);
    }
    return b;
  }
  std::vector<size_t> All(const Batch& b) {
    std::vector<size_t> all(b.jobs.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }
  OomLadder::Findings Run(const Batch& b, std::vector<Outcome>& out, size_t piece = 64) {
    out.assign(b.jobs.size(), Outcome{});
    return ladder_.Run(b, All(b), std::min(piece, b.jobs.size()), clock_.Now(), out);
  }

  testing::FakeClock clock_;
  CommandedModels models_;
  ModelManifest manifest_;
  RunnerStats stats_;
  ResultMaker results_{manifest_, stats_};
  OomLadder ladder_{models_, results_, stats_, clock_};
};

TEST_F(LadderStepsTest, ABatchThatRunsOutOfMemorySplitsInHalvesUntilThePiecesFit) {
  models_.capacity = 3;
  const Batch b = MakeBatch({1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<Outcome> out;
  const OomLadder::Findings found = Run(b, out);
  EXPECT_EQ(models_.primary_batches, (std::vector<size_t>{8, 4, 2, 2, 4, 2, 2}));
  EXPECT_TRUE(found.had_oom);
  EXPECT_EQ(found.largest_ok, 2u) << "what the cap refit starts from";
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_TRUE(out[i].ok) << out[i].error;
    EXPECT_EQ(out[i].output, std::vector<float>{float(i + 1)}) << "each job keeps its own row";
    EXPECT_EQ(out[i].batch_size, 2) << "ran in a piece of two";
    EXPECT_EQ(out[i].device, "cuda:0");
  }
  EXPECT_EQ(stats_.oom_events.load(), 3u);
  EXPECT_EQ(stats_.splits.load(), 3u);
  EXPECT_EQ(models_.released, 3) << "the cache is given back after each OOM";
}

TEST_F(LadderStepsTest, AJobThatFitsNowhereOnThePrimaryRunsAloneOnTheFallback) {
  models_.capacity = 0;
  const Batch b = MakeBatch({5, 6});
  std::vector<Outcome> out;
  Run(b, out);
  for (const Outcome& o : out) {
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.device, "cpu");
    EXPECT_EQ(o.batch_size, 1);
  }
  EXPECT_EQ(stats_.fallback_runs.load(), 2u);
  EXPECT_EQ(stats_.oom_failures.load(), 0u);
}

TEST_F(LadderStepsTest, WithoutAFallbackTheJobGetsAnOomRecordAndTheRestRun) {
  models_.capacity = 0;
  models_.has_fallback = false;
  const Batch b = MakeBatch({5});
  std::vector<Outcome> out;
  Run(b, out);
  ASSERT_FALSE(out[0].ok);
  EXPECT_EQ(out[0].reason, reason::kOom);
  EXPECT_NE(out[0].error.find("out of memory"), std::string::npos) << out[0].error;
  EXPECT_EQ(stats_.oom_failures.load(), 1u);
}

TEST_F(LadderStepsTest, AFallbackThatRunsOutOfMemoryTooIsAnOomAndOneThatBreaksIsAModelError) {
  models_.capacity = 0;
  models_.fallback_oom = true;
  std::vector<Outcome> out;
  Run(MakeBatch({5}), out);
  EXPECT_EQ(out[0].reason, reason::kOom);
  EXPECT_NE(out[0].error.find("primary: "), std::string::npos) << "both devices named: " << out[0].error;
  models_.fallback_oom = false;
  models_.fallback_breaks = true;
  Run(MakeBatch({5}), out);
  EXPECT_EQ(out[0].reason, reason::kModelError) << "more memory would not help";
}

TEST_F(LadderStepsTest, OneBadInputFailsAloneAsAModelErrorAndItsBatchRuns) {
  const Batch b = MakeBatch({1, 2, CommandedModels::kPoison, 4});
  std::vector<Outcome> out;
  const OomLadder::Findings found = Run(b, out);
  EXPECT_FALSE(found.had_oom) << "a model error is no reason to lower the cap";
  EXPECT_EQ(stats_.oom_events.load(), 0u);
  EXPECT_EQ(stats_.fallback_runs.load(), 0u) << "a model error does not go to the fallback";
  for (size_t i : {0u, 1u, 3u}) EXPECT_TRUE(out[i].ok) << i << ": " << out[i].error;
  ASSERT_FALSE(out[2].ok);
  EXPECT_EQ(out[2].reason, reason::kModelError);
  EXPECT_EQ(stats_.model_errors.load(), 1u);
}

TEST_F(LadderStepsTest, PiecesOfAFixedSizeRunInOrderBeforeAnySplit) {
  const Batch b = MakeBatch({1, 2, 3, 4, 5});
  std::vector<Outcome> out;
  Run(b, out, /*piece=*/2);
  EXPECT_EQ(models_.primary_batches, (std::vector<size_t>{2, 2, 1})) << "an aoti package's max_batch";
  for (const Outcome& o : out) EXPECT_TRUE(o.ok);
}

TEST_F(LadderStepsTest, AJobThatRunsAloneByPlanGoesStraightToTheFallback) {
  const Batch b = MakeBatch({7});
  std::vector<Outcome> out(1);
  ladder_.RunAlone(b, 0, clock_.Now(), "bucket 16 does not fit the memory budget even for one job", out);
  EXPECT_TRUE(models_.primary_batches.empty());
  ASSERT_TRUE(out[0].ok);
  EXPECT_EQ(out[0].device, "cpu");
}

}  // namespace
}  // namespace qinfer::executor
