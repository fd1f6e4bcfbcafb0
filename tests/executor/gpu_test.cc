// GPU tests (ctest label `gpu`): the same executor on CUDA. On machines
// without a CUDA device (CI, most dev machines) every test skips and says
// why; on a machine with one, every failure is a failure.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::executor {
namespace {

// A GPU the kernel knows of (its device node), whether or not this build
// of libtorch can use it.
bool MachineHasNvidiaGpu() { return std::filesystem::exists("/dev/nvidia0"); }

// Skips only where there is no CUDA device at all. On a machine with one, a
// CPU-only build or a model that fails to load is a failure, not a skip.
#define LOAD_OR_SKIP(var, options)                                                       \
  if (CudaDeviceCount() == 0) {                                                          \
    if (MachineHasNvidiaGpu()) {                                                         \
      FAIL() << "/dev/nvidia0 exists but this libtorch sees no CUDA device: a CPU-only " \
                "build (no CUDA toolkit when CMake ran?) or a driver problem";           \
    }                                                                                    \
    GTEST_SKIP() << "no CUDA device on this machine (no /dev/nvidia0)";                  \
  }                                                                                      \
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";                 \
  auto var##_loaded = TorchModelRunner::Load(options);                                   \
  ASSERT_TRUE(var##_loaded.ok()) << var##_loaded.status();                               \
  std::unique_ptr<TorchModelRunner> var = *std::move(var##_loaded)

TEST(GpuTest, CudaResultsMatchTheCpuAndPaddingChangesNothing) {
  RunnerOptions o;
  o.device = "cuda:0";
  LOAD_OR_SKIP(gpu, o);
  RunnerOptions c;
  c.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  auto cpu = TorchModelRunner::Load(c);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  std::vector<std::vector<int64_t>> rows = {{1, 2, 3}, std::vector<int64_t>(300, 7), {9}};
  auto batched = gpu->Forward(rows);
  ASSERT_TRUE(batched.ok()) << batched.status();
  for (size_t i = 0; i < rows.size(); ++i) {
    auto alone = (*cpu)->Forward({rows[i]});
    ASSERT_TRUE(alone.ok());
    for (size_t d = 0; d < (*alone)[0].size(); ++d) {
      EXPECT_NEAR((*batched)[i][d], (*alone)[0][d], 1e-3) << "row " << i;
    }
  }
}

TEST(GpuTest, CalibrationOnCudaStaysWithinTheBudget) {
  RunnerOptions o;
  o.device = "cuda:0";
  o.cuda_budget_bytes = int64_t(1) << 30;  // plan as if the card had 1 GiB
  LOAD_OR_SKIP(gpu, o);
  auto plan = Calibrate(*gpu, {{16, 64, 256, 512}, 256, 0.1, {}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::cout << FormatPlan(*plan);
  for (const PlanEntry& e : plan->entries) {
    ASSERT_TRUE(e.fits());
    auto peak = gpu->MeasurePeak(e.batch_size, e.bound);
    ASSERT_TRUE(peak.ok()) << peak.status();
    EXPECT_LE(*peak, plan->limit_bytes());
  }
}

TEST(GpuTest, LadderOnACappedCardLosesNothing) {
  RunnerOptions o;
  o.device = "cuda:0";
  o.fallback_device = "cpu";
  o.cuda_memory_fraction = 0.002;  // ~280 MB of an H200: real CUDA OOMs
  LOAD_OR_SKIP(gpu, o);
  Batch batch;
  batch.bucket_bound = 512;
  for (int i = 0; i < 128; ++i) {
    Job job;
    job.id = "g" + std::to_string(i);
    job.input_ids.assign(512, (i * 31) % 4000);
    batch.jobs.push_back(std::move(job));
  }
  auto outcomes = gpu->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  std::cout << "oom_events=" << gpu->stats().oom_events << " splits=" << gpu->stats().splits
            << " fallback_runs=" << gpu->stats().fallback_runs << "\n";
  EXPECT_GT(gpu->stats().oom_events.load(), 0u) << "the capped card must really run out";
  // Every output equals the job run alone on the CPU.
  RunnerOptions c;
  c.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  auto cpu = TorchModelRunner::Load(c);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  for (size_t i = 0; i < outcomes->size(); ++i) {
    const Outcome& out = (*outcomes)[i];
    ASSERT_TRUE(out.ok) << out.id << ": " << out.error;
    if (i % 16 != 0) continue;  // a sample: the CPU is slow at 512 tokens
    auto alone = (*cpu)->Forward({batch.jobs[i].input_ids});
    ASSERT_TRUE(alone.ok()) << alone.status();
    for (size_t d = 0; d < out.output.size(); ++d) {
      ASSERT_NEAR(out.output[d], (*alone)[0][d], 1e-3) << out.id << " dim " << d;
    }
  }
}

}  // namespace
}  // namespace qinfer::executor
