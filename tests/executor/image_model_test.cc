// Images through the executor, on a tiny ViT classifier exported by
// model/export_hf.py (tests/executor/make_vision_checkpoint.py: 32 x 32
// images, image.length 17, 3 labels): the manifest's image method runs
// image rows, batched as alone; the OOM ladder splits an image batch that a
// budgeted CPU device refuses (a real refusal inside the forward) and every
// image still gets its result; calibration measures an image bucket; the
// precision probe compares images under bf16.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "qinfer/executor/precision_check.h"
#include "qinfer/executor/torch_model_runner.h"
#include "runner_test_util.h"

namespace qinfer::executor {
namespace {

std::string ModelPath() { return std::string(QINFER_TEST_MODEL_VISION_DIR) + "/model.pt"; }

std::vector<float> Pixels(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> pixels(3 * 32 * 32);
  for (float& v : pixels) v = value(rng);
  return pixels;
}

Batch Images(int count, uint32_t seed) {
  Batch batch;
  batch.bucket_bound = 17;
  for (int i = 0; i < count; ++i) {
    Job job;
    job.id = "img" + std::to_string(i);
    job.pixels = Pixels(seed + uint32_t(i));
    job.pixel_height = 32;
    job.pixel_width = 32;
    job.image_length = 17;
    job.origin = {"jobs", 0, i, 1};
    batch.jobs.push_back(std::move(job));
  }
  return batch;
}

void ExpectNear(const std::vector<float>& a, const std::vector<float>& b, float tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tolerance) << "at " << i;
}

TEST(ImageModelTest, TheManifestsImageMethodRunsImagesBatchedAsAlone) {
  auto runner = LoadRunnerForTest(ModelPath(), "cpu");
  ASSERT_NE(runner, nullptr);
  const ModelManifest& m = runner->manifest();
  ASSERT_TRUE(m.image.has_value());
  EXPECT_FALSE(m.takes_tokens);
  EXPECT_EQ(m.image->length, 17);
  EXPECT_EQ(m.max_tokens, 17);
  const Batch batch = Images(5, 1);
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.output.size(), 3u) << "one logit a label";
    EXPECT_EQ(o.batch_size, 5);
    EXPECT_EQ(o.padded_length, 17) << "an image's length is its tower's";
    auto alone = runner->ForwardImages({batch.jobs[i].pixels});
    ASSERT_TRUE(alone.ok()) << alone.status();
    ExpectNear(o.output, (*alone)[0], 1e-5f);
  }
  // A token job to a vision-only model, or an image of another shape, is refused, not run.
  Batch odd = Images(1, 9);
  odd.jobs[0].pixel_height = 16;
  odd.jobs[0].pixels.resize(3 * 16 * 32);
  auto refused = runner->Run(odd);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ((*refused)[0].reason, reason::kInvalid);
  EXPECT_NE((*refused)[0].error.find("16x32 pixel values, the model takes 32x32"), std::string::npos)
      << (*refused)[0].error;
  EXPECT_FALSE(runner->ForwardImages({std::vector<float>(7)}).ok());
}

TEST(ImageModelTest, TheLadderSplitsAnImageBatchTheBudgetRefusesAndEveryImageGetsItsResult) {
  // The peak of one image and of 32, measured on a roomy budget; then a
  // budget between them: one image fits, 32 do not.
  int64_t one = 0, many = 0, weights = 0;
  {
    auto roomy = LoadRunnerForTest(ModelPath(), "cpu-budget:256MiB");
    ASSERT_NE(roomy, nullptr);
    weights = roomy->memory().allocated_bytes();
    auto p1 = roomy->MeasurePeak(1, 17);
    auto p32 = roomy->MeasurePeak(32, 17);
    ASSERT_TRUE(p1.ok() && p32.ok());
    one = *p1;
    many = *p32;
    ASSERT_GT(many, one + (one - weights)) << "32 images need more than one";
  }
  const int64_t budget = (one + many) / 2;
  auto runner = LoadRunnerForTest(ModelPath(), "cpu-budget:" + std::to_string(budget), "cpu");
  ASSERT_NE(runner, nullptr);
  auto reference = LoadRunnerForTest(ModelPath(), "cpu");
  const Batch batch = Images(32, 100);
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  EXPECT_GT(runner->stats().splits.load(), 0u) << "the batch of 32 was refused and split";
  auto want = reference->Run(batch);
  ASSERT_TRUE(want.ok());
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    ASSERT_TRUE((*outcomes)[i].ok) << (*outcomes)[i].error;
    ExpectNear((*outcomes)[i].output, (*want)[i].output, 1e-4f);
  }
}

TEST(ImageModelTest, ThePrecisionProbeComparesImagesUnderBf16) {
  RunnerOptions options;
  options.model_path = ModelPath();
  options.autocast = "bf16";
  auto runner = TorchModelRunner::Load(options);
  ASSERT_TRUE(runner.ok()) << runner.status();
  auto report = CheckPrecision(**runner, 0.99, 0.2);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->scores) << "a classifier's scores are compared";
  EXPECT_EQ(report->rows, 3) << "three synthetic images; a vision-only model has no token rows";
  EXPECT_EQ(report->skipped, 0);
  EXPECT_GT(report->max_score_diff, 0.0) << "bf16 moves the scores a little";
  EXPECT_LE(report->max_score_diff, 0.2);
}

}  // namespace
}  // namespace qinfer::executor
