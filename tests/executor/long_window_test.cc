// A decoder embedder's long window: a tiny Qwen3 (lasttoken pooling) with a
// 4096-token window, served up to it (tests/CMakeLists.txt makes it with
// tests/tasks/make_checkpoint.py and model/export_hf.py, whose own check holds
// it equal to sentence-transformers at 4096 tokens). On the budgeted CPU
// device the memory plan reaches the window, where batch 1 is a valid plan,
// and the OOM ladder splits a batch of long jobs without losing one or
// changing a row.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/torch_model_runner.h"
#include "runner_test_util.h"

namespace qinfer::executor {
namespace {

constexpr int kWindow = 4096;
// Holds the weights and one job of 4096 tokens (about 4.6 MB at its peak:
// the export runs sdpa's causal kernel, which holds no L x L mask or
// scores), not two (about 8.4 MB).
constexpr const char* kBudget = "cpu-budget:8MiB";
constexpr float kTolerance = 1e-4f;

class LongWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(ModelPath())) {
      GTEST_SKIP() << "no long-window model at " << ModelPath()
                   << ": the build makes it where the venv imports transformers and sentence-transformers "
                      "(deploy/setup.sh installs them)";
    }
  }
  static std::string ModelPath() { return std::string(QINFER_TEST_MODEL_LONG_DECODER_DIR) + "/model.pt"; }

  // One job per length (ids seeded), in the bucket of bound `bound`.
  static Batch LongBatch(int bound, const std::vector<size_t>& lengths, int64_t vocab) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int64_t> tok(0, vocab - 1);
    Batch batch;
    batch.bucket_bound = bound;
    for (size_t i = 0; i < lengths.size(); ++i) {
      Job job;
      job.id = "long" + std::to_string(i);
      job.input_ids.resize(lengths[i]);
      for (auto& t : job.input_ids) t = tok(rng);
      job.origin = {"jobs", 0, int64_t(i), 1};
      batch.jobs.push_back(std::move(job));
    }
    return batch;
  }
};

TEST_F(LongWindowTest, TheManifestServesTheWholeWindow) {
  auto runner = LoadRunnerForTest(ModelPath(), "cpu");
  ASSERT_NE(runner, nullptr);
  EXPECT_EQ(runner->manifest().max_tokens, kWindow);
  EXPECT_EQ(runner->manifest().max_positions, kWindow);
}

TEST_F(LongWindowTest, ThePlanReachesTheWindowWithBatchOneAtTheLongestBucket) {
  auto runner = LoadRunnerForTest(ModelPath(), kBudget);
  ASSERT_NE(runner, nullptr);
  CalibrationOptions options;
  options.bounds = {2048, kWindow};
  options.max_batch_size = 64;
  auto plan = Calibrate(*runner, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::cout << FormatPlan(*plan);
  const PlanEntry& longest = plan->entries.back();
  EXPECT_EQ(longest.bound, kWindow);
  EXPECT_EQ(longest.batch_size, 1) << "one 4096-token job fits " << kBudget << ", two do not";
  EXPECT_LE(longest.peak_bytes, plan->limit_bytes());
  EXPECT_GT(plan->entries.front().batch_size, longest.batch_size) << "shorter buckets get larger batches";
  // The plan's batch really runs there.
  auto outcomes = runner->Run(LongBatch(kWindow, {kWindow}, runner->manifest().vocab_size));
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  EXPECT_TRUE((*outcomes)[0].ok) << (*outcomes)[0].error;
  EXPECT_EQ(runner->stats().oom_events, 0u);
}

TEST_F(LongWindowTest, TheLadderSplitsALongBatchAndLosesNothing) {
  auto runner = LoadRunnerForTest(ModelPath(), kBudget);
  ASSERT_NE(runner, nullptr);
  const Batch batch = LongBatch(kWindow, {4000, kWindow, 3100}, runner->manifest().vocab_size);
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  auto plain = LoadRunnerForTest(ModelPath(), "cpu");
  ASSERT_NE(plain, nullptr);
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << i << ": " << o.error;
    EXPECT_EQ(o.device, kBudget) << "ran on the primary device, in a smaller piece";
    EXPECT_LT(o.batch_size, 3);
    Batch one;
    one.bucket_bound = kWindow;
    one.jobs.push_back(batch.jobs[i]);
    auto alone = plain->Run(one);
    ASSERT_TRUE(alone.ok() && (*alone)[0].ok) << "job " << i << " alone";
    EXPECT_LT(MaxAbsDiff(o.output, (*alone)[0].output), kTolerance) << "job " << i << ": its own last token";
  }
  EXPECT_GT(runner->stats().oom_events, 0u);
  EXPECT_GT(runner->stats().splits, 0u);
  EXPECT_EQ(runner->stats().fallback_runs, 0u);
}

}  // namespace
}  // namespace qinfer::executor
