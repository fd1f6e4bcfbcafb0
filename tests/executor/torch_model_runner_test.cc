// The executor on the generated TorchScript model (built by the test_model
// target from model/export_model.py with the venv's torch).
#include "qinfer/executor/torch_model_runner.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

#include "qinfer/executor/model_digest.h"
#include "qinfer/executor/model_manifest.h"
#include "runner_test_util.h"
#include "util/manifest_file.h"

namespace qinfer::executor {
namespace {

constexpr float kTolerance = 1e-4f;
// The token that makes the fault-injection variants of the test model fail
// (the top of the test vocabulary; see model/export_model.py).
constexpr int64_t kFaultMarker = QINFER_TEST_FAULT_MARKER;

RunnerOptions OptionsFor(const std::string& model_dir) {
  RunnerOptions options;
  options.model_path = model_dir + "/model.pt";
  return options;
}

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

// A job's wait is read on the clock that stamped it (the scheduler's,
// given to the runner as RunnerOptions::clock): a fake clock moved by five
// seconds between the stamp and the run is a queue_seconds of 5, whatever
// real time passed.
TEST(TorchModelRunnerClockTest, QueueSecondsIsReadOnTheClockThatStampedTheJob) {
  testing::FakeClock clock;
  RunnerOptions options = OptionsFor(QINFER_TEST_MODEL_DIR);
  options.clock = &clock;
  auto runner = TorchModelRunner::Load(options);
  ASSERT_TRUE(runner.ok()) << runner.status();
  Batch batch;
  batch.bucket_bound = 16;
  batch.jobs.push_back(MakeJob("waited", {1, 2, 3}, 0));
  batch.jobs[0].enqueued_at = clock.Now();
  clock.Advance(std::chrono::seconds(5));
  auto outcomes = (*runner)->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  ASSERT_TRUE((*outcomes)[0].ok) << (*outcomes)[0].error;
  EXPECT_DOUBLE_EQ((*outcomes)[0].queue_seconds, 5.0);
  EXPECT_DOUBLE_EQ((*outcomes)[0].run_seconds, 0.0) << "the fake clock did not move during the run";
}

TEST_F(TorchModelRunnerTest, RunGivesEachJobItsOwnRowWithProvenance) {
  Batch batch;
  batch.bucket_bound = 64;
  for (int i = 0; i < 5; ++i) {
    batch.jobs.push_back(
        MakeJob("j" + std::to_string(i), RandomIds(rng_, 10 + 10 * i, runner_->manifest().vocab_size), i));
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

TEST_F(TorchModelRunnerTest, ADeviceOverrideOnAPlainCpuRunnerRunsTheJobAlone) {
  Batch batch;
  batch.bucket_bound = 64;
  for (int i = 0; i < 3; ++i) {
    batch.jobs.push_back(MakeJob("j" + std::to_string(i), RandomIds(rng_, 20 + i, runner_->manifest().vocab_size), i));
  }
  batch.jobs[0].device = "cpu";
  auto outcomes = runner_->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  const std::vector<int> batch_sizes = {1, 2, 2};
  for (size_t i = 0; i < 3; ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << i << ": " << o.error;
    EXPECT_EQ(o.device, "cpu");
    EXPECT_EQ(o.batch_size, batch_sizes[i]) << i;
    auto alone = runner_->Forward({batch.jobs[i].input_ids});
    ASSERT_TRUE(alone.ok()) << alone.status();
    EXPECT_LT(MaxAbsDiff(o.output, (*alone)[0]), kTolerance) << i;
  }
  EXPECT_EQ(runner_->stats().override_runs, 1u);
}

TEST_F(TorchModelRunnerTest, AJobThatMakesTheModelFailFailsAloneAndItsBatchMatesSucceed) {
  // An id past the embedding table makes the model's own forward raise (on
  // the CPU a catchable index error; the consumer rejects such ids before
  // they reach a CUDA device, where it would be a device-side assert).
  Batch batch;
  batch.bucket_bound = 32;
  for (int i = 0; i < 8; ++i) {
    batch.jobs.push_back(MakeJob("j" + std::to_string(i), RandomIds(rng_, 16, runner_->manifest().vocab_size), i));
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

// serve loads the model on its main thread and runs it on the executor
// thread: the main thread's OpenMP workers must end first (see
// ReleaseIntraOpWorkersOfThisThread), and its later forward passes still
// work, with a new pool.
int ThreadsOfThisProcess() {
  return int(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                           std::filesystem::directory_iterator()));
}

TEST(IntraOpWorkersTest, TheLoadingThreadsWorkersEndWhenReleasedAndItsForwardPassesStillWork) {
  RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  options.intra_op_threads = 3;
  auto runner = TorchModelRunner::Load(options);
  ASSERT_TRUE(runner.ok()) << runner.status();
  std::vector<std::vector<int64_t>> rows(16, std::vector<int64_t>(256, 7));
  for (size_t b = 0; b < rows.size(); ++b) rows[b][b] = int64_t(b) + 1;
  auto before = (*runner)->Forward(rows);
  ASSERT_TRUE(before.ok()) << before.status();
  const int with_workers = ThreadsOfThisProcess();
  ASSERT_TRUE(ReleaseIntraOpWorkersOfThisThread()) << "libtorch's OpenMP runtime has omp_pause_resource_all";
  int now = ThreadsOfThisProcess();
  for (int i = 0; i < 100 && now > with_workers - 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    now = ThreadsOfThisProcess();
  }
  EXPECT_LE(now, with_workers - 2) << "a pool of 3 has 2 workers besides this thread";
  auto after = (*runner)->Forward(rows);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(*after, *before);
}

TEST(TorchModelRunnerLoadTest, MissingModelFileIsAClearError) {
  RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/no-such-model.pt";
  options.manifest_path = std::string(QINFER_TEST_MODEL_DIR) + "/manifest.json";
  auto runner = TorchModelRunner::Load(options);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("no-such-model.pt"), std::string::npos) << runner.status();
}

TEST(TorchModelRunnerLoadTest, MissingManifestIsAClearError) {
  RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  options.manifest_path = "/nonexistent/manifest.json";
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

// A bucket-64 batch of four marker-free jobs (ids below the marker).
Batch FourJobs(std::mt19937& rng) {
  Batch batch;
  batch.bucket_bound = 64;
  for (int i = 0; i < 4; ++i) {
    batch.jobs.push_back(MakeJob("j" + std::to_string(i), RandomIds(rng, 12 + 9 * i, kFaultMarker), i));
  }
  return batch;
}

std::vector<std::vector<int64_t>> InputsOf(const Batch& batch) {
  std::vector<std::vector<int64_t>> rows;
  for (const Job& job : batch.jobs) rows.push_back(job.input_ids);
  return rows;
}

TEST(TorchModelRunnerFaultTest, ANonFiniteOutputRowFailsOnlyItsJobWithModelError) {
  auto plain = LoadTestModel();
  ASSERT_NE(plain, nullptr);
  auto runner = TorchModelRunner::Load(OptionsFor(QINFER_TEST_MODEL_NAN_DIR));
  ASSERT_TRUE(runner.ok()) << runner.status();
  std::mt19937 rng(7);
  Batch batch = FourJobs(rng);
  batch.jobs[2].input_ids[5] = kFaultMarker;
  // The plain model on the same padded batch: what the healthy rows must give.
  auto expected = plain->Forward(InputsOf(batch));
  ASSERT_TRUE(expected.ok()) << expected.status();

  auto outcomes = (*runner)->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  ASSERT_EQ(outcomes->size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const Outcome& o = (*outcomes)[i];
    EXPECT_EQ(o.id, batch.jobs[i].id);
    if (i == 2) {
      EXPECT_FALSE(o.ok);
      EXPECT_EQ(o.reason, reason::kModelError);
      EXPECT_NE(o.error.find("non-finite"), std::string::npos) << o.error;
      EXPECT_NE(o.error.find("of 128"), std::string::npos) << o.error;
      EXPECT_TRUE(o.output.empty());
    } else {
      ASSERT_TRUE(o.ok) << "job " << i << ": " << o.error;
      EXPECT_EQ(o.batch_size, 4) << "the batch ran whole";
      EXPECT_LT(MaxAbsDiff(o.output, (*expected)[i]), 1e-5f) << "job " << i;
    }
  }
  EXPECT_EQ((*runner)->stats().model_errors, 1u);
  EXPECT_EQ((*runner)->stats().splits, 0u) << "the check is per row; no bisection";
}

TEST(TorchModelRunnerFaultTest, ANonFiniteOutputRowOnTheFallbackDeviceFailsOnlyItsJobWithModelError) {
  auto plain = LoadTestModel();
  ASSERT_NE(plain, nullptr);
  RunnerOptions options = OptionsFor(QINFER_TEST_MODEL_NAN_DIR);
  options.fallback_device = "cpu";
  auto runner = TorchModelRunner::Load(options);
  ASSERT_TRUE(runner.ok()) << runner.status();
  std::mt19937 rng(8);
  Batch batch = FourJobs(rng);
  batch.jobs[1].input_ids[0] = kFaultMarker;
  // An unfit bucket sends every job of the batch alone to the fallback device.
  (*runner)->SetUnfitBuckets({batch.bucket_bound});

  auto outcomes = (*runner)->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  ASSERT_EQ(outcomes->size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const Outcome& o = (*outcomes)[i];
    if (i == 1) {
      EXPECT_FALSE(o.ok);
      EXPECT_EQ(o.reason, reason::kModelError) << "a NaN is no OOM: " << o.error;
      EXPECT_NE(o.error.find("non-finite"), std::string::npos) << o.error;
    } else {
      ASSERT_TRUE(o.ok) << "job " << i << ": " << o.error;
      EXPECT_EQ(o.device, "cpu");
      auto alone = plain->Forward({batch.jobs[i].input_ids});
      ASSERT_TRUE(alone.ok()) << alone.status();
      EXPECT_LT(MaxAbsDiff(o.output, (*alone)[0]), 1e-5f) << "job " << i;
    }
  }
  EXPECT_EQ((*runner)->stats().model_errors, 1u);
  EXPECT_EQ((*runner)->stats().oom_failures, 0u);
}

TEST(TorchModelRunnerLoadTest, MissingOpLibraryIsAClearError) {
  RunnerOptions options = OptionsFor(QINFER_TEST_MODEL_DIR);
  options.op_libraries = {"/nonexistent/libno_such_ops.so"};
  auto runner = TorchModelRunner::Load(options);
  ASSERT_FALSE(runner.ok());
  EXPECT_EQ(runner.status().code(), absl::StatusCode::kInvalidArgument) << runner.status();
  EXPECT_NE(runner.status().message().find("/nonexistent/libno_such_ops.so"), std::string::npos) << runner.status();
}

TEST(TorchModelRunnerFaultTest, TheAbortModelLoadsWithItsOpLibraryAndRunsMarkerFreeBatches) {
  auto plain = LoadTestModel();
  ASSERT_NE(plain, nullptr);
  RunnerOptions options = OptionsFor(QINFER_TEST_MODEL_ABORT_DIR);
  options.op_libraries = {QINFER_TEST_OPS_LIBRARY};
  auto runner = TorchModelRunner::Load(options);
  ASSERT_TRUE(runner.ok()) << runner.status();
  std::mt19937 rng(9);
  const Batch batch = FourJobs(rng);
  auto expected = plain->Forward(InputsOf(batch));
  ASSERT_TRUE(expected.ok()) << expected.status();

  auto outcomes = (*runner)->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  ASSERT_EQ(outcomes->size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << "job " << i << ": " << o.error;
    EXPECT_LT(MaxAbsDiff(o.output, (*expected)[i]), 1e-5f) << "job " << i;
  }
}

TEST(ModelManifestTest, TheDefaultModelsPositionsEndAtItsMaxTokens) {
  auto manifest = ModelManifest::Load(std::string(QINFER_TEST_MODEL_DIR) + "/manifest.json");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(manifest->max_tokens, 512);
  EXPECT_EQ(manifest->max_positions, 512);
  auto long_model = ModelManifest::Load(std::string(QINFER_TEST_MODEL_LONG_DIR) + "/manifest.json");
  ASSERT_TRUE(long_model.ok()) << long_model.status();
  EXPECT_EQ(long_model->max_tokens, 512);
  EXPECT_EQ(long_model->max_positions, 1024);
}

using testing::ManifestFile;

// A directory with the test model's manifest.json beside a copy of
// `model` (another model file, for a swap), removed with the object.
class SwappedModelDir {
 public:
  SwappedModelDir(const std::string& model, const std::string& manifest_json) {
    std::string dir = (std::filesystem::path(::testing::TempDir()) / "swapped-model-XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << dir;
    dir_ = dir;
    std::filesystem::copy_file(model, model_path());
    std::ofstream(dir_ / "manifest.json") << manifest_json;
  }
  ~SwappedModelDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string model_path() const { return (dir_ / "model.pt").string(); }

 private:
  std::filesystem::path dir_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ModelDigestTest, IsTheSha256ThatTheManifestWriterComputes) {
  const std::string model = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  auto digest = FileDigest(model);
  ASSERT_TRUE(digest.ok()) << digest.status();
  auto manifest = ModelManifest::Load(std::string(QINFER_TEST_MODEL_DIR) + "/manifest.json");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(*digest, manifest->digest) << "model/qinfer_model.py wrote the manifest";
  EXPECT_EQ(FileDigest("/nonexistent/model.pt").status().code(), absl::StatusCode::kNotFound);
}

TEST(TorchModelRunnerLoadTest, AModelFileSwappedUnderItsManifestIsRefusedNamingBothDigests) {
  // The long model's file beside the plain model's manifest: a model.pt
  // replaced, its old manifest.json kept.
  const std::string manifest_json = ReadAll(std::string(QINFER_TEST_MODEL_DIR) + "/manifest.json");
  SwappedModelDir dir(std::string(QINFER_TEST_MODEL_LONG_DIR) + "/model.pt", manifest_json);
  RunnerOptions options;
  options.model_path = dir.model_path();
  auto runner = TorchModelRunner::Load(options);
  ASSERT_FALSE(runner.ok()) << "a swapped model file was loaded under the old digest";
  const std::string message(runner.status().message());
  EXPECT_EQ(runner.status().code(), absl::StatusCode::kFailedPrecondition) << message;
  EXPECT_NE(message.find("model.path " + dir.model_path()), std::string::npos) << message;
  EXPECT_NE(message.find(*FileDigest(dir.model_path())), std::string::npos) << message;
  auto old_manifest = ModelManifest::Load(std::string(QINFER_TEST_MODEL_DIR) + "/manifest.json");
  EXPECT_NE(message.find(old_manifest->digest), std::string::npos) << message;
}

TEST(TorchModelRunnerLoadTest, AManifestWithoutADigestGetsTheFilesOwn) {
  auto plain = ModelManifest::Load(std::string(QINFER_TEST_MODEL_DIR) + "/manifest.json");
  ASSERT_TRUE(plain.ok());
  SwappedModelDir dir(std::string(QINFER_TEST_MODEL_DIR) + "/model.pt",
                      "{\"name\": \"nodigest\", \"vocab_size\": " + std::to_string(plain->vocab_size) +
                          ", \"max_tokens\": " + std::to_string(plain->max_tokens) +
                          ", \"dim\": " + std::to_string(plain->dim) + "}");
  RunnerOptions options;
  options.model_path = dir.model_path();
  auto runner = TorchModelRunner::Load(options);
  ASSERT_TRUE(runner.ok()) << runner.status();
  EXPECT_EQ((*runner)->manifest().digest, plain->digest) << "results carry the digest of the file that ran";
}

TEST(ModelManifestTest, AbsentMaxPositionsDefaultsToMaxTokens) {
  ManifestFile file(R"({"vocab_size": 100, "max_tokens": 64})");
  auto manifest = ModelManifest::Load(file.path());
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(manifest->max_positions, 64);
}

TEST(ModelManifestTest, MaxPositionsBelowMaxTokensIsRefusedNamingTheFileAndTheField) {
  ManifestFile file(R"({"vocab_size": 100, "max_tokens": 64, "max_positions": 32})");
  auto manifest = ModelManifest::Load(file.path());
  ASSERT_FALSE(manifest.ok());
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kInvalidArgument) << manifest.status();
  EXPECT_NE(manifest.status().message().find(file.path()), std::string::npos) << manifest.status();
  EXPECT_NE(manifest.status().message().find("max_positions 32 is below max_tokens 64"), std::string::npos)
      << manifest.status();
}

TEST(ModelManifestTest, AnOldManifestIsAnEmbedModelOfTwoInputs) {
  ManifestFile file(R"({"vocab_size": 100, "max_tokens": 64, "dim": 8})");
  auto manifest = ModelManifest::Load(file.path());
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(manifest->task, TaskSpec{});
  EXPECT_EQ(manifest->output, "pooled");
}

TEST(ModelManifestTest, TheTaskFieldsAreReadWithTheirDefaults) {
  ManifestFile classify(R"({"vocab_size": 100, "max_tokens": 64, "dim": 3, "task": "classify", "output": "logits",
                            "labels": ["NEG", "NEU", "POS"], "inputs": ["input_ids", "attention_mask",
                            "token_type_ids"]})");
  auto c = ModelManifest::Load(classify.path());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->task.task, "classify");
  EXPECT_EQ(c->task.labels, (std::vector<std::string>{"NEG", "NEU", "POS"}));
  EXPECT_EQ(c->task.activation, "softmax") << "a single-label classifier's default";
  EXPECT_TRUE(c->task.pairs);
  EXPECT_TRUE(c->task.type_ids);
  ManifestFile rerank(R"({"vocab_size": 100, "max_tokens": 64, "dim": 1, "task": "rerank", "output": "logits",
                          "pairs": true})");
  auto r = ModelManifest::Load(rerank.path());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->task.activation, "sigmoid");
  EXPECT_FALSE(r->task.type_ids) << "two inputs: a RoBERTa-like cross-encoder";
}

TEST(ModelManifestTest, AnEmbedModelsPromptsAreReadWithTheirDefault) {
  ManifestFile file(R"({"vocab_size": 100, "max_tokens": 64, "dim": 8,
                        "prompts": {"query": "query: ", "document": ""}, "default_prompt_name": "query"})");
  auto m = ModelManifest::Load(file.path());
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->prompts, (std::map<std::string, std::string>{{"document", ""}, {"query", "query: "}}));
  EXPECT_EQ(m->default_prompt_name, "query");
  EXPECT_TRUE(m->include_prompt);
  ManifestFile excluded(R"({"vocab_size": 100, "max_tokens": 64, "dim": 8, "prompts": {"query": "query: "},
                            "include_prompt": false, "prompt_lengths": {"query": 3}})");
  auto e = ModelManifest::Load(excluded.path());
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_FALSE(e->include_prompt);
  EXPECT_EQ(e->prompt_lengths, (std::map<std::string, int>{{"query", 3}}));
  ManifestFile none(R"({"vocab_size": 100, "max_tokens": 64, "dim": 8, "default_prompt_name": null})");
  auto n = ModelManifest::Load(none.path());
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_TRUE(n->prompts.empty());
  EXPECT_EQ(n->default_prompt_name, "");
}

TEST(ModelManifestTest, AnImageTowerSetsTheImageLengthAsABucketLengthBesideTheTextTowers) {
  ManifestFile vision(R"({"dim": 8, "inputs": ["pixel_values"], "task": "classify", "output": "logits",
                          "labels": ["a", "b", "c", "d", "e", "f", "g", "h"],
                          "image": {"processor": "preprocessor_config.json", "height": 32, "width": 24,
                                    "length": 17, "checked_against": "the library"}})");
  auto v = ModelManifest::Load(vision.path());
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->takes_tokens);
  EXPECT_EQ(v->vocab_size, 0) << "a vision-only model has no vocabulary";
  EXPECT_EQ(v->max_tokens, 17);
  EXPECT_EQ(v->max_text_tokens, 0);
  ASSERT_TRUE(v->image.has_value());
  EXPECT_EQ(v->image->method, "forward");
  EXPECT_EQ(v->image->processor_path,
            (std::filesystem::path(vision.path()).parent_path() / "preprocessor_config.json").string());
  ManifestFile towers(R"({"vocab_size": 100, "max_tokens": 16, "dim": 8, "task": "zero_shot", "tokenizer": "t.json",
                          "image": {"processor": "p.json", "height": 8, "width": 8, "length": 50,
                                    "method": "encode_image"},
                          "zero_shot": {"logit_scale": 100.0, "activation": "sigmoid", "logit_bias": -10.0,
                                        "text_padding": "max_length", "text_max_length": 16}})");
  auto t = ModelManifest::Load(towers.path());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->max_tokens, 50) << "the buckets reach the image's length";
  EXPECT_EQ(t->max_text_tokens, 16) << "while a text stays within its tower's";
  EXPECT_EQ(t->task.activation, "sigmoid");
  ASSERT_TRUE(t->zero_shot.has_value());
  EXPECT_EQ(t->zero_shot->logit_bias, -10.0);
  EXPECT_EQ(t->zero_shot->hypothesis_template, "This is a photo of {}.");
}

TEST(ModelManifestTest, ATaskThatDoesNotFitIsRefusedNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"("task": "summarize")", "task 'summarize' is not one of embed, classify, rerank, tokens"},
      {R"("task": "tokens", "output": "logits", "labels": ["O", "B-PER"], "dim": 2)",
       "output 'logits' does not fit task tokens (expected 'token_logits')"},
      {R"("task": "classify", "output": "logits", "labels": ["a", "b"], "dim": 3)", "labels: 2 labels for 3 outputs"},
      {R"("task": "classify", "output": "pooled", "labels": ["a", "b"], "dim": 2)",
       "output 'pooled' does not fit task classify (expected 'logits')"},
      {R"("task": "rerank", "output": "logits", "dim": 2)", "dim: task rerank has one output"},
      {R"("task": "embed", "dim": 8, "pairs": true)", "pairs: task embed takes one text per job"},
      {R"("dim": 8, "inputs": ["input_ids"])", "inputs must be [input_ids, attention_mask], [input_ids, "},
      {R"("dim": 8, "inputs": ["pixel_values"])", "inputs [pixel_values] needs the `image` object"},
      {R"("dim": 8, "image": {"processor": "p.json", "height": 8, "width": 8, "length": 5, "colour": 1})",
       "image.colour is not a field of `image`"},
      {R"("dim": 8, "image": {"processor": "p.json", "height": 8, "width": 8, "length": 5})",
       "image.method forward is the text tower's here"},
      {R"("dim": 8, "image": {"processor": "p.json", "height": 0, "width": 8, "length": 5, "method": "encode_image"})",
       "image.height and width must be in [1, 8192]"},
      {R"("task": "zero_shot", "dim": 8, "zero_shot": {"logit_scale": 1})",
       "task zero_shot needs a text tower with its tokenizer, an `image` object"},
      {R"("dim": 8, "zero_shot": {"logit_scale": 1})", "zero_shot is for task zero_shot, not embed"},
      {R"("task": "rerank", "output": "logits", "dim": 1, "activation": "softmax")",
       "activation 'softmax' does not fit task rerank"},
      {R"("dim": 8, "prompts": {"query": "q: "}, "default_prompt_name": "passage")",
       "default_prompt_name 'passage' is not one of its prompts"},
      {R"("dim": 8, "prompts": ["q: "])", "prompts must be an object"},
      {R"("task": "rerank", "output": "logits", "dim": 1, "prompts": {"query": "q: "})",
       "prompts are for an embed model"},
      {R"("dim": 8, "prompts": {"query": "q: ", "document": ""}, "include_prompt": false, "prompt_lengths": {})",
       "prompt_lengths needs a positive length for the prompt 'query'"},
  };
  for (const auto& [fields, error] : cases) {
    ManifestFile file(std::string(R"({"vocab_size": 100, "max_tokens": 64, )") + fields + "}");
    auto manifest = ModelManifest::Load(file.path());
    ASSERT_FALSE(manifest.ok()) << fields;
    EXPECT_NE(manifest.status().message().find(error), std::string::npos) << manifest.status();
    EXPECT_NE(manifest.status().message().find(file.path()), std::string::npos) << manifest.status();
  }
}

// A batch of one bucket above max_tokens: the long lane.
Batch LongLaneBatch(std::mt19937& rng, const std::vector<size_t>& lengths, int64_t vocab) {
  Batch batch;
  batch.bucket_bound = 1024;
  for (size_t i = 0; i < lengths.size(); ++i) {
    batch.jobs.push_back(MakeJob("long" + std::to_string(i), RandomIds(rng, lengths[i], vocab), int64_t(i)));
  }
  return batch;
}

TEST(LongLaneTest, ALongLaneJobRunsAloneOnTheFallbackCpuPastMaxTokens) {
  RunnerOptions options = OptionsFor(QINFER_TEST_MODEL_LONG_DIR);
  options.device = "cpu-budget:256MiB";
  options.fallback_device = "cpu";
  auto runner = TorchModelRunner::Load(options);
  ASSERT_TRUE(runner.ok()) << runner.status();
  auto reference = TorchModelRunner::Load(OptionsFor(QINFER_TEST_MODEL_LONG_DIR));
  ASSERT_TRUE(reference.ok()) << reference.status();
  std::mt19937 rng(11);
  const Batch batch = LongLaneBatch(rng, {900, 600}, (*runner)->manifest().vocab_size);

  auto outcomes = (*runner)->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  ASSERT_EQ(outcomes->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << "job " << i << ": " << o.error;
    EXPECT_EQ(o.id, batch.jobs[i].id);
    EXPECT_EQ(o.device, "cpu") << "the fallback device, not the primary";
    EXPECT_EQ(o.batch_size, 1);
    EXPECT_EQ(o.bucket, 1024);
    EXPECT_EQ(o.padded_length, int(batch.jobs[i].length()));
    ASSERT_EQ(o.output.size(), 128u);
    for (float v : o.output) ASSERT_TRUE(std::isfinite(v));
    auto alone = (*reference)->Forward({batch.jobs[i].input_ids});
    ASSERT_TRUE(alone.ok()) << alone.status();
    EXPECT_LT(MaxAbsDiff(o.output, (*alone)[0]), kTolerance) << "job " << i;
  }
  EXPECT_EQ((*runner)->stats().fallback_runs, 2u);
  EXPECT_EQ((*runner)->stats().oom_events, 0u) << "no attempt on the primary device";
}

TEST(LongLaneTest, ALongLaneBatchWithoutAFallbackIsRefusedBeforeAnyJobRuns) {
  auto runner = TorchModelRunner::Load(OptionsFor(QINFER_TEST_MODEL_LONG_DIR));
  ASSERT_TRUE(runner.ok()) << runner.status();
  std::mt19937 rng(12);
  Batch batch = LongLaneBatch(rng, {900, 700}, (*runner)->manifest().vocab_size);
  batch.jobs[0].device = "cpu";
  auto outcomes = (*runner)->Run(batch);
  ASSERT_FALSE(outcomes.ok());
  EXPECT_EQ(outcomes.status().code(), absl::StatusCode::kFailedPrecondition) << outcomes.status();
  EXPECT_NE(outcomes.status().message().find("model.fallback_device"), std::string::npos) << outcomes.status();
  EXPECT_EQ((*runner)->stats().override_runs, 0u) << "refused before the override ran";
}

TEST(LongLaneTest, AJobPastTheModelsMaxPositionsGetsTooLongAndItsBatchMatesRun) {
  RunnerOptions options = OptionsFor(QINFER_TEST_MODEL_LONG_DIR);
  options.fallback_device = "cpu";
  auto runner = TorchModelRunner::Load(options);
  ASSERT_TRUE(runner.ok()) << runner.status();
  std::mt19937 rng(13);
  const Batch batch = LongLaneBatch(rng, {1025, 800}, (*runner)->manifest().vocab_size);
  auto outcomes = (*runner)->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  EXPECT_FALSE((*outcomes)[0].ok);
  EXPECT_EQ((*outcomes)[0].reason, reason::kTooLong);
  EXPECT_EQ((*outcomes)[0].error, "input length 1025 exceeds the model's max_positions 1024");
  EXPECT_TRUE((*outcomes)[1].ok) << (*outcomes)[1].error;
}

TEST(DeviceOverrideTest, AnOverrideOnABf16RunnerRunsOnAFloat32CpuCopy) {
  RunnerOptions options = OptionsFor(QINFER_TEST_MODEL_DIR);
  options.autocast = "bf16";
  auto runner = TorchModelRunner::Load(options);
  ASSERT_TRUE(runner.ok()) << runner.status();
  auto reference = LoadTestModel();
  ASSERT_NE(reference, nullptr);
  std::mt19937 rng(14);
  Batch batch = FourJobs(rng);
  batch.jobs[3].device = "cpu";
  auto outcomes = (*runner)->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  const Outcome& o = (*outcomes)[3];
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.device, "cpu");
  EXPECT_EQ(o.batch_size, 1);
  auto alone = reference->Forward({batch.jobs[3].input_ids});
  ASSERT_TRUE(alone.ok()) << alone.status();
  EXPECT_LT(MaxAbsDiff(o.output, (*alone)[0]), 1e-5f) << "float32, not bf16";
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ((*outcomes)[i].batch_size, 3) << i;
}

// The body of the death test below, in the child process: loads the model,
// says so on stderr, runs the batch, and exits 0 if the process survives.
[[noreturn]] void LoadAndRunThenExit(const RunnerOptions& options, const Batch& batch) {
  const rlimit no_core_dump{0, 0};  // a test's crash leaves no core file
  setrlimit(RLIMIT_CORE, &no_core_dump);
  auto runner = LoadOrExit(options);
  std::fprintf(stderr, "model loaded\n");
  auto outcomes = runner->Run(batch);
  std::fprintf(stderr, "Run returned (ok=%d)\n", int(outcomes.ok()));
  std::_Exit(0);
}

// The abort is real: no exception, no failure record, the process dies of
// SIGABRT, as it would on a poison input. (A death test: it runs in a child.)
TEST(TorchModelRunnerFaultDeathTest, AJobHoldingTheAbortMarkerKillsTheProcessWithSigabrt) {
  // The child re-runs this test from the start instead of forking a process
  // that already has libtorch's threads.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  RunnerOptions options = OptionsFor(QINFER_TEST_MODEL_ABORT_DIR);
  options.op_libraries = {QINFER_TEST_OPS_LIBRARY};
  std::mt19937 rng(10);
  Batch batch = FourJobs(rng);
  batch.jobs[3].input_ids[2] = kFaultMarker;
  // "model loaded" on stderr: it dies in Run, on the marker, not while loading.
  EXPECT_EXIT(LoadAndRunThenExit(options, batch), ::testing::KilledBySignal(SIGABRT), "model loaded");
}

}  // namespace
}  // namespace qinfer::executor
