// The executor on the generated TorchScript model (built by the test_model
// target from model/export_model.py with the venv's torch).
#include "qinfer/executor/torch_model_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace qinfer::executor {
namespace {

constexpr float kTolerance = 1e-4f;

std::unique_ptr<TorchModelRunner> LoadTestModel() {
  RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  auto runner = TorchModelRunner::Load(options);
  EXPECT_TRUE(runner.ok()) << runner.status();
  return runner.ok() ? *std::move(runner) : nullptr;
}

std::vector<int64_t> RandomIds(std::mt19937& rng, size_t length, int64_t vocab) {
  std::uniform_int_distribution<int64_t> id(0, vocab - 1);
  std::vector<int64_t> ids(length);
  for (auto& v : ids) v = id(rng);
  return ids;
}

float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float diff = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) diff = std::max(diff, std::abs(a[i] - b[i]));
  return diff;
}

Job MakeJob(std::string id, std::vector<int64_t> ids, int64_t offset) {
  Job job;
  job.id = std::move(id);
  job.input_ids = std::move(ids);
  job.origin = {"jobs", 0, offset, 1};
  return job;
}

class TorchModelRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runner_ = LoadTestModel();
    ASSERT_NE(runner_, nullptr);
  }
  std::unique_ptr<TorchModelRunner> runner_;
  std::mt19937 rng_{42};
};

TEST_F(TorchModelRunnerTest, PaddingDoesNotChangeResults) {
  const int64_t vocab = runner_->manifest().vocab_size;
  std::vector<std::vector<int64_t>> rows;
  for (size_t length : {1, 7, 33, 64, 200, 512}) rows.push_back(RandomIds(rng_, length, vocab));
  auto batched = runner_->Forward(rows);
  ASSERT_TRUE(batched.ok()) << batched.status();
  ASSERT_EQ(batched->size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    auto alone = runner_->Forward({rows[i]});
    ASSERT_TRUE(alone.ok()) << alone.status();
    EXPECT_EQ((*batched)[i].size(), size_t(runner_->manifest().dim));
    EXPECT_LT(MaxAbsDiff((*batched)[i], (*alone)[0]), kTolerance) << "row " << i;
  }
}

TEST_F(TorchModelRunnerTest, ExtraPaddingToTheBucketBoundDoesNotChangeResults) {
  auto row = RandomIds(rng_, 20, runner_->manifest().vocab_size);
  auto tight = runner_->Forward({row});
  auto padded = runner_->Forward({row}, /*padded_length=*/256);
  ASSERT_TRUE(tight.ok() && padded.ok());
  EXPECT_LT(MaxAbsDiff((*tight)[0], (*padded)[0]), kTolerance);
}

TEST_F(TorchModelRunnerTest, DifferentInputsGiveDifferentOutputs) {
  auto a = runner_->Forward({{1, 2, 3}});
  auto b = runner_->Forward({{4, 5, 6}});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(MaxAbsDiff((*a)[0], (*b)[0]), 1e-3f) << "the model must depend on its input";
}

TEST_F(TorchModelRunnerTest, RunGivesEachJobItsOwnRowWithProvenance) {
  Batch batch;
  batch.bucket_bound = 64;
  for (int i = 0; i < 5; ++i) {
    batch.jobs.push_back(MakeJob("j" + std::to_string(i),
                                 RandomIds(rng_, 10 + 10 * i, runner_->manifest().vocab_size), i));
  }
  auto outcomes = runner_->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  ASSERT_EQ(outcomes->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.id, "j" + std::to_string(i));
    EXPECT_EQ(o.origin.offset, i);
    EXPECT_EQ(o.bucket, 64);
    EXPECT_EQ(o.batch_size, 5);
    EXPECT_EQ(o.padded_length, 50);
    EXPECT_EQ(o.device, "cpu");
    EXPECT_EQ(o.model_digest, runner_->manifest().digest);
    auto alone = runner_->Forward({batch.jobs[i].input_ids});
    ASSERT_TRUE(alone.ok());
    EXPECT_LT(MaxAbsDiff(o.output, (*alone)[0]), kTolerance);
  }
}

TEST_F(TorchModelRunnerTest, AJobThatMakesTheModelFailFailsAloneAndItsBatchMatesSucceed) {
  // An id past the embedding table makes the model's own forward raise (on
  // the CPU a catchable index error; the consumer rejects such ids before
  // they reach a CUDA device, where it would be a device-side assert).
  Batch batch;
  batch.bucket_bound = 32;
  for (int i = 0; i < 8; ++i) {
    batch.jobs.push_back(MakeJob("j" + std::to_string(i),
                                 RandomIds(rng_, 16, runner_->manifest().vocab_size), i));
  }
  batch.jobs[5].input_ids[3] = runner_->manifest().vocab_size + 1000;
  auto outcomes = runner_->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  for (int i = 0; i < 8; ++i) {
    const Outcome& o = (*outcomes)[i];
    if (i == 5) {
      EXPECT_FALSE(o.ok);
      EXPECT_EQ(o.reason, reason::kModelError);
      EXPECT_FALSE(o.error.empty());
    } else {
      EXPECT_TRUE(o.ok) << "job " << i << ": " << o.error;
    }
  }
  EXPECT_GE(runner_->stats().splits, 3u) << "bisection isolates the failing job";
  EXPECT_EQ(runner_->stats().model_errors, 1u);
  EXPECT_EQ(runner_->stats().oom_events, 0u) << "a model error is not an OOM";
}

TEST(TorchModelRunnerLoadTest, MissingModelFileIsAClearError) {
  RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/no-such-model.pt";
  options.manifest_path = std::string(QINFER_TEST_MODEL_DIR) + "/manifest.json";
  auto runner = TorchModelRunner::Load(options);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("no-such-model.pt"), std::string::npos)
      << runner.status();
}

TEST(TorchModelRunnerLoadTest, MissingManifestIsAClearError) {
  RunnerOptions options;
  options.model_path = "/nonexistent/model.pt";
  auto runner = TorchModelRunner::Load(options);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("manifest"), std::string::npos) << runner.status();
}

TEST(TorchModelRunnerLoadTest, UnknownDeviceIsAClearError) {
  RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  options.device = "tpu:9";
  auto runner = TorchModelRunner::Load(options);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("tpu:9"), std::string::npos) << runner.status();
}

}  // namespace
}  // namespace qinfer::executor
