// The aoti model format beside TorchScript: the same model exported both ways
// gives the same outputs through the executor, and an aoti export that cannot
// run here is refused at load with a message that says why. The OOM ladder on
// the aoti export is memory_ladder_aoti_test (the ladder's own tests, built
// over the aoti export).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/model_manifest.h"
#include "qinfer/executor/torch_model_runner.h"
#include "runner_test_util.h"

namespace qinfer::executor {
namespace {

namespace fs = std::filesystem;

const std::string kAotiDir = QINFER_TEST_MODEL_AOTI_DIR;
const std::string kAotiModel = kAotiDir + "/model-cpu-float32.pt2";
const std::string kTorchScriptModel = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";

absl::StatusOr<std::unique_ptr<TorchModelRunner>> Load(const std::string& path, const std::string& device = "cpu",
                                                       const std::string& autocast = "",
                                                       const std::string& fallback = "") {
  RunnerOptions options;
  options.model_path = path;
  options.device = device;
  options.autocast = autocast;
  options.fallback_device = fallback;
  return TorchModelRunner::Load(options);
}

std::vector<std::vector<int64_t>> Rows(const std::vector<int>& lengths, uint32_t seed, int64_t vocab) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> tok(0, vocab - 1);
  std::vector<std::vector<int64_t>> rows;
  for (int n : lengths) {
    rows.emplace_back(size_t(n));
    for (auto& t : rows.back()) t = tok(rng);
  }
  return rows;
}

Batch BatchOf(const std::vector<std::vector<int64_t>>& rows, int bound) {
  Batch batch;
  batch.bucket_bound = bound;
  for (size_t i = 0; i < rows.size(); ++i) {
    Job job;
    job.id = "j" + std::to_string(i);
    job.input_ids = rows[i];
    job.origin = {"jobs", 0, int64_t(i), 1};
    batch.jobs.push_back(std::move(job));
  }
  return batch;
}

// A copy of the aoti export in a temporary directory, whose manifest a test
// may edit.
class AotiCopy {
 public:
  AotiCopy() : dir_(fs::temp_directory_path() / ("qinfer-aoti-" + std::to_string(::getpid()) + "-" + Next())) {
    fs::create_directories(dir_);
    for (const auto& entry : fs::directory_iterator(kAotiDir)) fs::copy(entry.path(), dir_ / entry.path().filename());
  }
  ~AotiCopy() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string model() const { return (dir_ / "model-cpu-float32.pt2").string(); }
  std::string manifest_path() const { return (dir_ / "manifest.json").string(); }
  std::string ReadManifest() const {
    std::ifstream in(manifest_path());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // Replaces the first occurrence of `from` in manifest.json.
  void Edit(const std::string& from, const std::string& to) const {
    std::string text = ReadManifest();
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(manifest_path()) << text;
  }

 private:
  static std::string Next() {
    static int n = 0;
    return std::to_string(n++);
  }
  fs::path dir_;
};

TEST(AotiFormatTest, TheAotiExportGivesTheTorchScriptOutputsAndPaddingChangesNoRow) {
  auto aoti = Load(kAotiModel);
  ASSERT_TRUE(aoti.ok()) << aoti.status();
  auto script = Load(kTorchScriptModel);
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_EQ((*aoti)->manifest().format, "aoti");
  EXPECT_EQ((*aoti)->manifest().max_batch, 256);
  EXPECT_EQ((*aoti)->manifest().dim, (*script)->manifest().dim);
  const auto rows = Rows({1, 7, 33, 200, 512}, 11, (*aoti)->manifest().vocab_size);
  auto batched = (*aoti)->Forward(rows);
  ASSERT_TRUE(batched.ok()) << batched.status();
  auto reference = (*script)->Forward(rows);
  ASSERT_TRUE(reference.ok()) << reference.status();
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("length " + std::to_string(rows[i].size()));
    EXPECT_LE(MaxAbsDiff((*batched)[i], (*reference)[i]), 1e-5f) << "aoti vs torchscript, in a padded batch";
    auto alone = (*aoti)->Forward({rows[i]});
    ASSERT_TRUE(alone.ok()) << alone.status();
    EXPECT_LE(MaxAbsDiff((*alone)[0], (*batched)[i]), 1e-5f) << "alone vs in a batch padded to 512";
  }
  // And through Run, as the service calls it.
  const Batch batch = BatchOf(Rows({20, 40, 64, 64}, 12, (*aoti)->manifest().vocab_size), 64);
  auto a = (*aoti)->Run(batch);
  auto b = (*script)->Run(batch);
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    ASSERT_TRUE((*a)[i].ok && (*b)[i].ok) << (*a)[i].error << (*b)[i].error;
    EXPECT_EQ((*a)[i].batch_size, 4);
    EXPECT_EQ((*a)[i].model_digest, (*aoti)->manifest().digest);
    EXPECT_LE(MaxAbsDiff((*a)[i].output, (*b)[i].output), 1e-5f) << i;
  }
}

TEST(AotiFormatTest, ARunLargerThanMaxBatchRunsInPiecesOfMaxBatch) {
  auto aoti = Load(kAotiModel);
  ASSERT_TRUE(aoti.ok()) << aoti.status();
  const int max_batch = (*aoti)->manifest().max_batch;
  const Batch batch = BatchOf(Rows(std::vector<int>(size_t(max_batch) + 10, 4), 13, 4096), 16);
  auto out = (*aoti)->Run(batch);
  ASSERT_TRUE(out.ok()) << out.status();
  for (const Outcome& o : *out) {
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_LE(o.batch_size, max_batch);
  }
  EXPECT_EQ((*aoti)->stats().oom_events, 0u);
}

TEST(AotiFormatTest, CalibrationNeverPlansABatchAboveMaxBatch) {
  auto aoti = Load(kAotiModel, "cpu-budget:4GiB");
  ASSERT_TRUE(aoti.ok()) << aoti.status();
  CalibrationOptions options;
  options.bounds = {8};
  options.max_batch_size = 4096;
  auto plan = Calibrate(**aoti, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->entries[0].batch_size, (*aoti)->manifest().max_batch);
  EXPECT_EQ(plan->max_batch_size, 4096) << "the plan's key keeps the configured bound";
}

TEST(AotiFormatTest, ThePlanIsKeyedByThePrimarysPackage) {
  auto f32 = Load(kAotiModel);
  auto bf16 = Load(kAotiModel, "cpu", "bf16");
  ASSERT_TRUE(f32.ok() && bf16.ok()) << f32.status() << bf16.status();
  EXPECT_EQ((*f32)->primary_digest(), (*f32)->manifest().digest) << "model.path is the cpu/float32 package";
  EXPECT_EQ((*bf16)->manifest().digest, (*f32)->manifest().digest) << "results name the export";
  EXPECT_EQ((*bf16)->primary_digest(), (*bf16)->manifest().packages.at("cpu/bfloat16").digest);
  EXPECT_NE((*bf16)->primary_digest(), (*f32)->primary_digest());
  EXPECT_EQ((*bf16)->dtype(), "bfloat16");
}

TEST(AotiFormatTest, ABfloat16PackageStaysCloseToFloat32AndAnOverrideRunsTheFloat32One) {
  auto f32 = Load(kAotiModel);
  auto bf16 = Load(kAotiModel, "cpu", "bf16");
  ASSERT_TRUE(f32.ok() && bf16.ok()) << f32.status() << bf16.status();
  Batch batch = BatchOf(Rows({64, 30}, 14, 4096), 64);
  batch.jobs[1].device = "cpu";
  auto a = (*bf16)->Run(batch);
  auto b = (*f32)->Run(batch);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)[0].ok && (*a)[1].ok) << (*a)[0].error << (*a)[1].error;
  const float diff = MaxAbsDiff((*a)[0].output, (*b)[0].output);
  EXPECT_GT(diff, 0.0f) << "the bfloat16 package computes in bfloat16";
  EXPECT_LT(diff, 0.1f);
  EXPECT_LE(MaxAbsDiff((*a)[1].output, (*b)[1].output), 1e-5f) << "the override ran cpu/float32";
}

// The frozen export (--freezing): the bfloat16 package's weights are
// bfloat16 constants and its linears oneDNN ones with prepacked weights; it
// computes what the unfrozen package does, and padding changes no row.
const std::string kFrozenModel = std::string(QINFER_TEST_MODEL_AOTI_FROZEN_DIR) + "/model-cpu-float32.pt2";

TEST(AotiFreezingTest, AFrozenPackageGivesTheUnfrozenOutputsAndPaddingChangesNoRow) {
  for (const std::string autocast : {"", "bf16"}) {
    SCOPED_TRACE(autocast.empty() ? "float32" : "bfloat16");
    auto frozen = Load(kFrozenModel, "cpu", autocast);
    auto plain = Load(kAotiModel, "cpu", autocast);
    ASSERT_TRUE(frozen.ok() && plain.ok()) << frozen.status() << plain.status();
    const std::string key = autocast.empty() ? "cpu/float32" : "cpu/bfloat16";
    EXPECT_EQ((*frozen)->manifest().packages.at(key).inductor, R"({"freezing":true})");
    EXPECT_EQ((*plain)->manifest().packages.at(key).inductor, R"({"freezing":false})");
    const auto rows = Rows({1, 7, 33, 200, 512}, 21, (*frozen)->manifest().vocab_size);
    auto batched = (*frozen)->Forward(rows);
    auto reference = (*plain)->Forward(rows);
    ASSERT_TRUE(batched.ok() && reference.ok()) << batched.status() << reference.status();
    for (size_t i = 0; i < rows.size(); ++i) {
      SCOPED_TRACE("length " + std::to_string(rows[i].size()));
      if (autocast.empty()) {
        EXPECT_LE(MaxAbsDiff((*batched)[i], (*reference)[i]), 1e-5f) << "frozen vs unfrozen";
      } else {
        EXPECT_GE(Cosine((*batched)[i], (*reference)[i]), 0.9999) << "frozen vs unfrozen";
      }
      auto alone = (*frozen)->Forward({rows[i]});
      ASSERT_TRUE(alone.ok()) << alone.status();
      const float tolerance = autocast.empty() ? 1e-5f : 2e-2f;
      EXPECT_LE(MaxAbsDiff((*alone)[0], (*batched)[i]), tolerance) << "alone vs in a batch padded to 512";
      if (!autocast.empty()) {
        EXPECT_GE(Cosine((*alone)[0], (*batched)[i]), 0.9999);
      }
    }
  }
}

// The memory plan of a budgeted CPU holds with the frozen bfloat16 package's
// constants (charged at load, as every model's weights are): the planned
// batch of each bound runs full rows without running out of memory.
TEST(AotiFreezingTest, ThePlanOnABudgetedCpuHoldsWithPrepackedConstants) {
  auto frozen = Load(kFrozenModel, "cpu-budget:48MiB", "bf16");
  ASSERT_TRUE(frozen.ok()) << frozen.status();
  EXPECT_GT((*frozen)->budget_bytes(), 0);
  // The constants (986,624 weights in bfloat16, packed) are charged at load.
  EXPECT_GT((*frozen)->memory().allocated_bytes(), 986624 * 2) << "the package's constants count in the budget";
  CalibrationOptions options;
  options.bounds = {16, 128, 512};
  options.max_batch_size = 256;
  auto plan = Calibrate(**frozen, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const uint64_t ooms = (*frozen)->stats().oom_events;
  for (const auto& entry : plan->entries) {
    SCOPED_TRACE("bound " + std::to_string(entry.bound) + ", batch " + std::to_string(entry.batch_size));
    if (entry.batch_size < 1) continue;
    auto out = (*frozen)->Run(BatchOf(Rows(std::vector<int>(size_t(entry.batch_size), entry.bound), 22, 4096),
                                      entry.bound));
    ASSERT_TRUE(out.ok()) << out.status();
    for (const Outcome& o : *out) ASSERT_TRUE(o.ok) << o.error;
    EXPECT_EQ((*out)[0].batch_size, entry.batch_size) << "the planned batch ran whole";
  }
  EXPECT_EQ((*frozen)->stats().oom_events, ooms) << "no OOM at the planned sizes";
  EXPECT_LT(plan->entries.back().batch_size, 256) << "the budget bounds the longest bucket's batch";
}

TEST(AotiManifestTest, AnUnknownFormatIsRefusedByName) {
  AotiCopy copy;
  copy.Edit("\"format\": \"aoti\"", "\"format\": \"onnx\"");
  auto m = ModelManifest::Load(copy.manifest_path());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("format 'onnx'"), std::string::npos) << m.status();
  EXPECT_NE(m.status().message().find("'torchscript' or 'aoti'"), std::string::npos) << m.status();
  EXPECT_FALSE(Load(copy.model()).ok());
}

TEST(AotiManifestTest, AnAotiManifestWithoutMaxBatchIsRefused) {
  AotiCopy copy;
  copy.Edit("\"max_batch\"", "\"max_batch_was\"");
  auto m = ModelManifest::Load(copy.manifest_path());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("max_batch"), std::string::npos) << m.status();
}

TEST(AotiLoadTest, ACpuOnlyExportWithACudaPrimaryIsRefusedBeforeTheCudaCheck) {
  auto runner = Load(kAotiModel, "cuda:0");
  ASSERT_FALSE(runner.ok());
  const std::string message(runner.status().message());
  EXPECT_TRUE(absl::IsFailedPrecondition(runner.status())) << message;
  EXPECT_NE(message.find("the packages [cpu/bfloat16, cpu/float32]"), std::string::npos) << message;
  EXPECT_NE(message.find("needs the package cuda/float32"), std::string::npos) << message;
  EXPECT_NE(message.find("--format aoti --devices cuda --dtypes float32"), std::string::npos) << message;
  EXPECT_EQ(message.find("no CUDA device"), std::string::npos) << "the package is checked first: " << message;
}

TEST(AotiLoadTest, AMissingPrecisionIsRefusedNamingIt) {
  auto runner = Load(kAotiModel, "cpu", "fp16");
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("needs the package cpu/float16"), std::string::npos) << runner.status();
}

TEST(AotiLoadTest, APackageWhoseDigestIsNotTheManifestsIsRefused) {
  AotiCopy copy;
  auto manifest = ModelManifest::Load(copy.manifest_path());
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  const std::string stated = manifest->packages.at("cpu/bfloat16").digest;
  copy.Edit(stated, "sha256:" + std::string(64, '0'));
  auto runner = Load(copy.model(), "cpu", "bf16");
  ASSERT_FALSE(runner.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(runner.status())) << runner.status();
  EXPECT_NE(runner.status().message().find("has digest " + stated), std::string::npos) << runner.status();
  EXPECT_TRUE(Load(copy.model()).ok()) << "the float32 package is untouched";
}

TEST(AotiLoadTest, AnExportOfAnotherTorchIsRefused) {
  AotiCopy copy;
  copy.Edit("\"torch_version\": \"" + TorchVersion() + "\"", "\"torch_version\": \"1.13.0\"");
  auto runner = Load(copy.model());
  ASSERT_FALSE(runner.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(runner.status())) << runner.status();
  EXPECT_NE(runner.status().message().find("made by torch '1.13.0'"), std::string::npos) << runner.status();
  EXPECT_NE(runner.status().message().find(TorchVersion()), std::string::npos) << runner.status();
}

// A CPU package runs only on the CPU and with the thread count it was
// compiled for (its manifest entry says which): anything else is refused at
// load, naming both and what to do.
TEST(AotiLoadTest, APackageCompiledForAnotherCpuCapabilityIsRefused) {
  AotiCopy copy;
  auto manifest = ModelManifest::Load(copy.manifest_path());
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  const std::string here = manifest->packages.at("cpu/float32").cpu_capability;
  EXPECT_EQ(here, CpuCapability()) << "the export records this CPU";
  copy.Edit("\"cpu_capability\": \"" + here + "\"", "\"cpu_capability\": \"SVE256\"");
  auto runner = Load(copy.model());
  ASSERT_FALSE(runner.ok());
  const std::string message(runner.status().message());
  EXPECT_TRUE(absl::IsFailedPrecondition(runner.status())) << message;
  EXPECT_NE(message.find("package cpu/float32 was compiled for the CPU capability SVE256"), std::string::npos)
      << message;
  EXPECT_NE(message.find("this CPU's is " + CpuCapability()), std::string::npos) << message;
  EXPECT_FALSE(Load(copy.model(), "cpu", "bf16").ok())
      << "a bfloat16 primary loads cpu/float32 too (device overrides, the fallback), and it is refused";
}

TEST(AotiLoadTest, APackageCompiledForAnotherThreadCountIsRefused) {
  auto manifest = ModelManifest::Load(kAotiDir + "/manifest.json");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  const int threads = manifest->packages.at("cpu/bfloat16").threads;
  ASSERT_GE(threads, 1) << "the export records its thread count";
  RunnerOptions options;
  options.model_path = kAotiModel;
  options.autocast = "bf16";
  options.intra_op_threads = threads + 1;
  auto runner = TorchModelRunner::Load(options);
  ASSERT_FALSE(runner.ok());
  const std::string message(runner.status().message());
  EXPECT_TRUE(absl::IsFailedPrecondition(runner.status())) << message;
  EXPECT_NE(message.find("package cpu/bfloat16 was compiled for " + std::to_string(threads) +
                         " OpenMP threads, but the executor runs " + std::to_string(threads + 1)),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--threads " + std::to_string(threads + 1)), std::string::npos) << message;
  options.intra_op_threads = threads;
  EXPECT_TRUE(TorchModelRunner::Load(options).ok()) << "the thread count it was compiled for loads";
}

}  // namespace
}  // namespace qinfer::executor
