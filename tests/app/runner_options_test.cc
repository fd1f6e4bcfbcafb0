// The runner's options from the configuration (plan.cc's RunnerOptionsFrom):
// a pure translation, checked without loading a model.
#include <gtest/gtest.h>

#include "model_load.h"

namespace qinfer::app {
namespace {

TEST(RunnerOptionsTest, TheModelDeviceAndMemorySettingsPassThrough) {
  Config c;
  c.model.path = "/m/model.pt";
  c.model.manifest = "/m/manifest.json";
  c.model.device = "cpu-budget:512MiB";
  c.model.threads = 3;
  c.model.mkl_dispatch = "vendor";
  c.model.autocast = "bf16";
  c.model.op_libraries = {"/m/ops.so"};
  c.memory.cuda_memory_fraction = 0.5;
  c.memory.margin = 0.2;
  c.memory.cuda_budget = "2GiB";
  auto o = RunnerOptionsFrom(c);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->model_path, "/m/model.pt");
  EXPECT_EQ(o->manifest_path, "/m/manifest.json");
  EXPECT_EQ(o->device, "cpu-budget:512MiB");
  EXPECT_EQ(o->intra_op_threads, 3);
  EXPECT_EQ(o->mkl_dispatch, "vendor");
  EXPECT_EQ(o->autocast, "bf16");
  EXPECT_EQ(o->op_libraries, std::vector<std::string>{"/m/ops.so"});
  EXPECT_EQ(o->cuda_memory_fraction, 0.5);
  EXPECT_EQ(o->cap_margin, 0.2);
  EXPECT_EQ(o->cuda_budget_bytes, int64_t{2} << 30);
}

TEST(RunnerOptionsTest, TheFallbackDeviceIsTheCpuUnlessThePrimaryIsPlainCpuOrNoneIsWanted) {
  Config c;
  const auto fallback = [&c](const std::string& device, const std::string& setting) {
    c.model.device = device;
    c.model.fallback_device = setting;
    return RunnerOptionsFrom(c)->fallback_device;
  };
  EXPECT_EQ(fallback("cpu", "auto"), "");
  EXPECT_EQ(fallback("cuda:0", "auto"), "cpu");
  EXPECT_EQ(fallback("cpu-budget:1GiB", "auto"), "cpu");
  EXPECT_EQ(fallback("cpu", "cpu"), "cpu");
  EXPECT_EQ(fallback("cuda:0", "none"), "");
}

TEST(RunnerOptionsTest, ABadCudaBudgetNamesTheKey) {
  Config c;
  c.memory.cuda_budget = "lots";
  auto o = RunnerOptionsFrom(c);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("memory.cuda_budget"), std::string::npos) << o.status();
  c.memory.cuda_budget = "";
  ASSERT_TRUE(RunnerOptionsFrom(c).ok());
  EXPECT_EQ(RunnerOptionsFrom(c)->cuda_budget_bytes, 0);
}

}  // namespace
}  // namespace qinfer::app
