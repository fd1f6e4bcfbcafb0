// The start-up precision probe: the generated test model keeps its outputs
// under bf16 autocast, the drift model (export_model.py --bf16-drift) does
// not, and the floor decides.
#include "qinfer/executor/precision_check.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runner_test_util.h"

namespace qinfer::executor {
namespace {

std::unique_ptr<TorchModelRunner> Load(const std::string& model_dir, const std::string& autocast,
                                       const std::string& device = "cpu") {
  RunnerOptions options;
  options.model_path = model_dir + "/model.pt";
  options.autocast = autocast;
  options.device = device;
  auto runner = TorchModelRunner::Load(options);
  EXPECT_TRUE(runner.ok()) << runner.status();
  return runner.ok() ? *std::move(runner) : nullptr;
}

// Classify, rerank and tokens models are probed on the scores their users
// read. The tiny BERT cross-encoder of the task tests (random weights) passes
// under bf16 at the default bound, and a bound of 0 refuses it (bf16 changes
// its score a little): the bound decides. Its tagger's random logits hold
// near ties, so whether bf16 flips a token's top label depends on the CPU's
// bf16 kernels: whatever the count, a changed label is refused at any bound.
TEST(PrecisionCheckTest, AScoreModelIsProbedOnItsScoresAndTheBoundDecides) {
  const std::string rerank = QINFER_TEST_MODEL_RERANK_DIR, tokens = QINFER_TEST_MODEL_TOKENS_DIR;
  if (rerank.empty() || tokens.empty()) GTEST_SKIP() << "no task test models in this build (no transformers)";
  auto runner = Load(rerank, "bf16");
  ASSERT_NE(runner, nullptr);
  auto report = CheckPrecision(*runner, 0.999, 0.01);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->scores);
  EXPECT_GT(report->rows, 4);
  EXPECT_GT(report->max_score_diff, 0.0) << "bf16 is not float32";
  EXPECT_LE(report->max_score_diff, 0.01);
  EXPECT_EQ(report->label_changes, 0) << "one logit: no label";
  EXPECT_TRUE(report->accepted());
  auto strict = CheckPrecision(*runner, 0.999, 0.0);
  ASSERT_TRUE(strict.ok()) << strict.status();
  EXPECT_FALSE(strict->accepted());
  EXPECT_FALSE(CheckPrecision(*runner, 0.999, 1.5).ok()) << "a bound outside [0, 1]";

  auto tagger = Load(tokens, "bf16");
  ASSERT_NE(tagger, nullptr);
  auto loose = CheckPrecision(*tagger, 0.999, 1.0);
  ASSERT_TRUE(loose.ok()) << loose.status();
  EXPECT_TRUE(loose->scores);
  EXPECT_GT(loose->max_score_diff, 0.0);
  EXPECT_EQ(loose->accepted(), loose->label_changes == 0) << "at a bound of 1 only a changed label refuses";
}

TEST(PrecisionCheckTest, RefusesTheDriftModelUnderBf16) {
  auto runner = Load(QINFER_TEST_MODEL_DRIFT_DIR, "bf16");
  ASSERT_NE(runner, nullptr);
  auto report = CheckPrecision(*runner, 0.999);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->dtype, "bfloat16");
  EXPECT_LT(report->min_cosine, 0.999);
  EXPECT_FALSE(report->accepted());
  EXPECT_EQ(report->floor, 0.999);
  EXPECT_GT(report->rows, 4);
  EXPECT_LE(report->rows, 16);
  EXPECT_GT(report->worst_length, 0);
}

TEST(PrecisionCheckTest, AcceptsTheTestModelUnderBf16) {
  auto runner = Load(QINFER_TEST_MODEL_DIR, "bf16");
  ASSERT_NE(runner, nullptr);
  auto report = CheckPrecision(*runner, 0.999);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GE(report->min_cosine, 0.999);
  EXPECT_LE(report->min_cosine, 1.0 + 1e-9);
  EXPECT_TRUE(report->accepted());
}

TEST(PrecisionCheckTest, ALowerFloorAcceptsTheDriftModel) {
  auto runner = Load(QINFER_TEST_MODEL_DRIFT_DIR, "bf16");
  ASSERT_NE(runner, nullptr);
  auto report = CheckPrecision(*runner, 0.5);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GE(report->min_cosine, 0.5);
  EXPECT_TRUE(report->accepted());
}

// The probe's verdict is its worst row: a model that drifts only on rows of
// 100 tokens or more is refused, although its short rows (the probe's first
// ones, 7 and 32 tokens) stay within the floor, which is checked here too.
TEST(PrecisionCheckTest, AModelThatDriftsOnlyOnItsLongerRowsIsRefused) {
  auto bf16 = Load(QINFER_TEST_MODEL_DRIFT_LONG_DIR, "bf16");
  auto float32 = Load(QINFER_TEST_MODEL_DRIFT_LONG_DIR, "");
  ASSERT_NE(bf16, nullptr);
  ASSERT_NE(float32, nullptr);
  for (int length : {7, 32, 128}) {
    std::vector<int64_t> row(static_cast<size_t>(length));
    for (int p = 0; p < length; ++p) row[size_t(p)] = 1 + (p * 104729 + 17) % 4000;
    auto reduced = bf16->Forward({row});
    auto exact = float32->Forward({row});
    ASSERT_TRUE(reduced.ok() && exact.ok()) << reduced.status() << exact.status();
    const double cosine = Cosine((*reduced)[0], (*exact)[0]);
    if (length < 100) {
      EXPECT_GE(cosine, 0.999) << "a short row of " << length << " tokens does not drift";
    } else {
      EXPECT_LT(cosine, 0.999) << "a row of " << length << " tokens drifts";
    }
  }
  auto report = CheckPrecision(*bf16, 0.999);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->accepted()) << report->min_cosine;
  EXPECT_LT(report->min_cosine, 0.999);
  EXPECT_GE(report->worst_length, 100) << "the worst row is a long one";
}

// In float32 the drift model's difference of products is kept: the probe
// compares the primary against the same float32 CPU model.
TEST(PrecisionCheckTest, TheDriftModelInFloat32MatchesItself) {
  auto runner = Load(QINFER_TEST_MODEL_DRIFT_DIR, "");
  ASSERT_NE(runner, nullptr);
  auto report = CheckPrecision(*runner, 0.999);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->dtype, "float32");
  EXPECT_GE(report->min_cosine, 0.99999);
}

// Under bf16 a 512-token row of the test model does not fit 7 MiB (the
// weights cast once, about 4 MB, plus the row's activations): the rows of
// that length are left out, the others still compared, not an error.
TEST(PrecisionCheckTest, RowsThatDoNotFitABudgetedPrimaryAloneAreLeftOut) {
  auto runner = Load(QINFER_TEST_MODEL_DIR, "bf16", "cpu-budget:7MiB");
  ASSERT_NE(runner, nullptr);
  auto report = CheckPrecision(*runner, 0.999);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->skipped, 0);
  EXPECT_GT(report->rows, 0);
  EXPECT_TRUE(report->accepted()) << report->min_cosine;
}

TEST(PrecisionCheckTest, AFloorOutsideZeroToOneIsRefused) {
  auto runner = Load(QINFER_TEST_MODEL_DIR, "bf16");
  ASSERT_NE(runner, nullptr);
  for (double floor : {0.0, -0.5, 1.5}) {
    auto report = CheckPrecision(*runner, floor);
    EXPECT_FALSE(report.ok()) << floor;
    EXPECT_TRUE(absl::IsInvalidArgument(report.status())) << report.status();
  }
}

}  // namespace
}  // namespace qinfer::executor
