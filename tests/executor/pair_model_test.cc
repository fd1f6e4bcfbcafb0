// A pair model on the executor (and, at the end, a token tagger): a tiny BERT
// cross-encoder made and exported in the build (tests/tasks/make_checkpoint.py, model/export_hf.py), whose
// forward takes token_type_ids as its third input. Its token types reach the
// model, padding changes no row, and on the budgeted CPU device the OOM
// ladder and the memory plan hold for pair batches (the OOMs are real: the
// allocator refuses inside the model's forward). Last, both models as
// AOTInductor packages give their TorchScript packages' outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string_view>

#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/torch_model_runner.h"
#include "runner_test_util.h"

namespace qinfer::executor {
namespace {

constexpr float kTolerance = 1e-4f;

// `count` jobs of `min_len`..`max_len` random ids, the first half of each of
// type 0 and the rest of type 1 (a pair's two segments).
Batch Pairs(int bound, int count, int min_len, int max_len, uint32_t seed, int64_t vocab) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> len(min_len, max_len);
  std::uniform_int_distribution<int64_t> tok(5, vocab - 1);
  Batch batch;
  batch.bucket_bound = bound;
  for (int i = 0; i < count; ++i) {
    const size_t n = size_t(len(rng));
    Job job;
    job.id = "p" + std::to_string(i);
    job.input_ids.resize(n);
    job.type_ids.assign(n, 0);
    for (auto& t : job.input_ids) t = tok(rng);
    const size_t second = n / 2;
    std::fill(job.type_ids.begin() + ptrdiff_t(second), job.type_ids.end(), 1);
    job.origin = {"jobs", 0, i, 1};
    batch.jobs.push_back(std::move(job));
  }
  return batch;
}

// Job `i` of `batch` run alone (a batch of one in the same bucket) on
// `runner`: its output, or nothing with a test failure.
std::vector<float> RunAlone(TorchModelRunner& runner, const Batch& batch, size_t i) {
  Batch one;
  one.bucket_bound = batch.bucket_bound;
  one.jobs.push_back(batch.jobs[i]);
  auto outcome = runner.Run(one);
  EXPECT_TRUE(outcome.ok() && (*outcome)[0].ok) << "job " << i << " alone";
  return outcome.ok() ? (*outcome)[0].output : std::vector<float>();
}

class PairModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(ModelPath())) {
      GTEST_SKIP() << "no pair model at " << ModelPath()
                   << ": the build makes it where the venv imports transformers and sentence-transformers "
                      "(deploy/setup.sh installs them)";
    }
  }
  static std::string ModelPath() { return std::string(QINFER_TEST_MODEL_RERANK_DIR) + "/model.pt"; }

  static std::unique_ptr<TorchModelRunner> Load(const std::string& device) {
    return LoadRunnerForTest(ModelPath(), device);
  }

  // Each job of `batch` run alone on the plain CPU.
  static std::vector<std::vector<float>> Alone(const Batch& batch) {
    auto runner = Load("cpu");
    std::vector<std::vector<float>> out;
    for (size_t i = 0; i < batch.jobs.size(); ++i) out.push_back(RunAlone(*runner, batch, i));
    return out;
  }
};

TEST_F(PairModelTest, TheManifestSaysRerankWithTokenTypesAsTheThirdInput) {
  auto runner = Load("cpu");
  ASSERT_NE(runner, nullptr);
  const TaskSpec& task = runner->manifest().task;
  EXPECT_EQ(task.task, "rerank");
  EXPECT_TRUE(task.pairs);
  EXPECT_TRUE(task.type_ids);
  EXPECT_EQ(runner->manifest().dim, 1);
}

TEST_F(PairModelTest, TokenTypesReachTheModelAndPaddingChangesNoRow) {
  auto runner = Load("cpu");
  ASSERT_NE(runner, nullptr);
  Batch batch = Pairs(128, 12, 6, 120, 7, runner->manifest().vocab_size);
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  auto alone = Alone(batch);
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    ASSERT_TRUE((*outcomes)[i].ok) << (*outcomes)[i].error;
    EXPECT_EQ((*outcomes)[i].output.size(), 1u);
    EXPECT_LT(MaxAbsDiff((*outcomes)[i].output, alone[i]), kTolerance) << "job " << i;
  }
  // The same ids with every type 0 (as a job without type ids runs): another logit.
  Batch zeros = batch;
  for (Job& job : zeros.jobs) job.type_ids.clear();
  auto plain = runner->Run(zeros);
  ASSERT_TRUE(plain.ok());
  size_t differ = 0;
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    if (std::abs((*plain)[i].output[0] - (*outcomes)[i].output[0]) > 1e-3f) ++differ;
  }
  EXPECT_EQ(differ, batch.jobs.size()) << "the model must read token_type_ids";
}

TEST_F(PairModelTest, AForcedOomOnAPairBatchGoesDownTheLadderToResults) {
  // Holds the weights and a few pairs of 128 tokens, not 64 of them at once
  // (about 6 MB at its peak).
  auto runner = Load("cpu-budget:2MiB");
  ASSERT_NE(runner, nullptr);
  Batch batch = Pairs(128, 64, 100, 128, 3, runner->manifest().vocab_size);
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  auto alone = Alone(batch);
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << i << ": " << o.error;
    EXPECT_EQ(o.device, "cpu-budget:2MiB") << "ran on the primary device, in a smaller piece";
    EXPECT_LT(o.batch_size, 64);
    EXPECT_LT(MaxAbsDiff(o.output, alone[i]), kTolerance) << i;
  }
  EXPECT_GT(runner->stats().oom_events, 0u);
  EXPECT_GT(runner->stats().splits, 0u);
}

TEST_F(PairModelTest, ThePlanOnABudgetedDeviceHoldsForPairBatches) {
  auto runner = Load("cpu-budget:4MiB");
  ASSERT_NE(runner, nullptr);
  CalibrationOptions options;
  options.bounds = {16, 32, 64, 128};
  options.max_batch_size = 64;
  auto plan = Calibrate(*runner, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const PlanEntry& e : plan->entries) {
    ASSERT_TRUE(e.fits()) << e.bound;
    Batch batch = Pairs(e.bound, e.batch_size, e.bound, e.bound, uint32_t(e.bound), runner->manifest().vocab_size);
    auto outcomes = runner->Run(batch);
    ASSERT_TRUE(outcomes.ok()) << outcomes.status();
    for (const Outcome& o : *outcomes) EXPECT_TRUE(o.ok) << e.bound << ": " << o.error;
  }
  EXPECT_EQ(runner->stats().oom_events, 0u) << "a planned pair batch ran out of memory";
  EXPECT_LT(plan->entries.back().batch_size, 64) << "the budget must bind somewhere for the test to mean anything";
}

// The token tagger: one row of logits per token of each job, padding left
// out; the plan on a budgeted device holds with the [B, L, C] outputs in it.
TEST(TokensModelTest, EachJobGetsItsOwnTokensLogitsAndThePlanHolds) {
  const std::string model = std::string(QINFER_TEST_MODEL_TOKENS_DIR) + "/model.pt";
  if (!std::filesystem::exists(model)) {
    GTEST_SKIP() << "no tokens model at " << model << " (the build makes it where the venv imports transformers)";
  }
  auto plain = LoadRunnerForTest(model, "cpu");
  ASSERT_NE(plain, nullptr);
  const size_t labels = plain->manifest().task.labels.size();
  ASSERT_EQ(plain->manifest().task.task, "tokens");
  ASSERT_GT(labels, 1u);
  // A tagger takes no token types: Pairs' type ids do not reach it.
  const Batch batch = Pairs(128, 6, 3, 128, 5, plain->manifest().vocab_size);
  auto outcomes = plain->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    ASSERT_TRUE((*outcomes)[i].ok) << (*outcomes)[i].error;
    EXPECT_EQ((*outcomes)[i].output.size(), batch.jobs[i].length() * labels) << "its own tokens, not the padding";
    EXPECT_LT(MaxAbsDiff((*outcomes)[i].output, RunAlone(*plain, batch, i)), kTolerance) << "padding changed job " << i;
  }
  auto budgeted = LoadRunnerForTest(model, "cpu-budget:4MiB");
  ASSERT_NE(budgeted, nullptr);
  CalibrationOptions options;
  options.bounds = {16, 32, 64, 128};
  options.max_batch_size = 64;
  auto plan = Calibrate(*budgeted, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const PlanEntry& e : plan->entries) {
    ASSERT_TRUE(e.fits()) << e.bound;
    auto run = budgeted->Run(Pairs(e.bound, e.batch_size, e.bound, e.bound, uint32_t(e.bound), plain->manifest().vocab_size));
    ASSERT_TRUE(run.ok()) << run.status();
    for (const Outcome& o : *run) EXPECT_TRUE(o.ok) << e.bound << ": " << o.error;
  }
  EXPECT_EQ(budgeted->stats().oom_events, 0u) << "a planned batch of per-token outputs ran out of memory";
  EXPECT_LT(plan->entries.back().batch_size, 64) << "the budget must bind somewhere for the test to mean anything";
}

// Each task through the compiled path: the frozen AOTInductor package of the
// same checkpoint (float32) gives the TorchScript package's outputs, a
// pair's token types reach it, and padding changes no row.
class AotiTaskTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::string Dir() const {
    return std::string(std::string_view(GetParam()) == "rerank" ? QINFER_TEST_MODEL_RERANK_DIR
                                                                 : QINFER_TEST_MODEL_TOKENS_DIR);
  }
};

TEST_P(AotiTaskTest, ThePackageGivesTheTorchScriptOutputsAndPaddingChangesNoRow) {
  const std::string package = Dir() + "-aoti/model-cpu-float32.pt2";
  if (!std::filesystem::exists(package)) {
    GTEST_SKIP() << "no " << GetParam() << " package at " << package
                 << " (the build makes it where the venv imports transformers)";
  }
  auto scripted = LoadRunnerForTest(Dir() + "/model.pt", "cpu");
  auto compiled = LoadRunnerForTest(package, "cpu");
  ASSERT_NE(scripted, nullptr);
  ASSERT_NE(compiled, nullptr);
  const TaskSpec& want = scripted->manifest().task;
  const TaskSpec& got = compiled->manifest().task;
  EXPECT_EQ(got.task, GetParam());
  EXPECT_TRUE(got == want) << "the package's manifest has another task part than the TorchScript package's";
  const Batch batch = Pairs(128, 12, 3, 128, 11, compiled->manifest().vocab_size);
  auto expected = scripted->Run(batch);
  auto batched = compiled->Run(batch);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(batched.ok()) << batched.status();
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    ASSERT_TRUE((*batched)[i].ok) << (*batched)[i].error;
    EXPECT_LT(MaxAbsDiff((*batched)[i].output, (*expected)[i].output), kTolerance) << "job " << i;
    EXPECT_LT(MaxAbsDiff((*batched)[i].output, RunAlone(*compiled, batch, i)), kTolerance)
        << "padding changed job " << i;
  }
  if (!got.type_ids) return;
  // The pair's second segment as type 0 changes every logit: the package reads its third input.
  Batch zeros = batch;
  for (Job& job : zeros.jobs) job.type_ids.clear();
  auto plain = compiled->Run(zeros);
  ASSERT_TRUE(plain.ok()) << plain.status();
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    EXPECT_GT(MaxAbsDiff((*plain)[i].output, (*batched)[i].output), 1e-3f) << "job " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Tasks, AotiTaskTest, ::testing::Values("rerank", "tokens"));

}  // namespace
}  // namespace qinfer::executor
