// MKL's kernels: the runner answers MKL's vendor check (mkl_dispatch.h), on
// the generated TorchScript model, whose float32 linears run on MKL.
#include "qinfer/executor/mkl_dispatch.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runner_test_util.h"

extern "C" int mkl_serv_intel_cpu_true(void);

namespace qinfer::executor {
namespace {

RunnerOptions TestModel(const std::string& mkl_dispatch) {
  RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  options.mkl_dispatch = mkl_dispatch;
  return options;
}

const std::vector<std::vector<int64_t>> kRows = {{101, 7, 8, 9, 102}, {101, 12, 102}};

TEST(MklDispatchTest, ByDefaultMklRunsTheKernelsOfTheCpusInstructionSets) {
  // libtorch_cpu finds this executable's answer, not MKL's own.
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "mkl_serv_intel_cpu_true"), reinterpret_cast<void*>(&mkl_serv_intel_cpu_true));
  auto runner = TorchModelRunner::Load(TestModel("isa"));
  ASSERT_TRUE(runner.ok()) << runner.status();
  auto rows = (*runner)->Forward(kRows);
  ASSERT_TRUE(rows.ok()) << rows.status();
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2")) {
    GTEST_SKIP() << "this CPU has no AVX2: MKL's generic kernels are the ones its instruction sets allow";
  }
  EXPECT_GT(MklKernelPath(), 0) << "MKL runs its generic kernels on a CPU with AVX2";
}

// In a child process (the death test's), where MKL has not yet asked.
[[noreturn]] void LoadRunAndSayThePath(const RunnerOptions& options) {
  auto rows = LoadOrExit(options)->Forward(kRows);
  std::fprintf(stderr, "forward ok=%d mkl_kernel_path=%d\n", int(rows.ok()), MklKernelPath());
  std::_Exit(0);
}

TEST(MklDispatchDeathTest, VendorGivesMklItsOwnAnswer) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: MKL asks once
  __builtin_cpu_init();
  // Off Intel's CPUs, MKL's own answer is its generic kernels (path 0),
  // which Load warns of on a CPU with AVX2.
  const bool generic = !__builtin_cpu_is("intel");
  const std::string warning = generic && __builtin_cpu_supports("avx2") ? "event=mkl_generic_kernels(.|\n)*" : "";
  EXPECT_EXIT(LoadRunAndSayThePath(TestModel("vendor")), ::testing::ExitedWithCode(0),
              warning + "forward ok=1 mkl_kernel_path=" + (generic ? "0" : "[0-9]+") + "\n");
}

TEST(MklDispatchTest, AnUnknownValueIsRefusedByName) {
  auto runner = TorchModelRunner::Load(TestModel("avx512"));
  ASSERT_FALSE(runner.ok());
  EXPECT_EQ(runner.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(runner.status().message().find("model.mkl_dispatch: unknown value 'avx512'"), std::string::npos)
      << runner.status();
}

}  // namespace
}  // namespace qinfer::executor
