// What the executor's tests share: loading a runner, comparing outputs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::executor {

// The runner of `model_path` on `device` (with `fallback`); nullptr, with a
// test failure naming the status, when it does not load.
inline std::unique_ptr<TorchModelRunner> LoadRunnerForTest(const std::string& model_path, const std::string& device,
                                                           const std::string& fallback = "") {
  RunnerOptions options;
  options.model_path = model_path;
  options.device = device;
  options.fallback_device = fallback;
  auto runner = TorchModelRunner::Load(options);
  EXPECT_TRUE(runner.ok()) << runner.status();
  return runner.ok() ? *std::move(runner) : nullptr;
}

// For a death test's child, which ends by _Exit: the runner of `options`,
// or exit status 2 with "load failed: STATUS" on stderr.
inline std::unique_ptr<TorchModelRunner> LoadOrExit(const RunnerOptions& options) {
  auto runner = TorchModelRunner::Load(options);
  if (!runner.ok()) {
    std::fprintf(stderr, "load failed: %s\n", runner.status().ToString().c_str());
    std::_Exit(2);
  }
  return *std::move(runner);
}

// The largest difference between two outputs of the same width.
inline float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float diff = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) diff = std::max(diff, std::abs(a[i] - b[i]));
  return diff;
}

// The cosine similarity of two outputs of the same width.
inline double Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
  }
  return dot / std::sqrt(na * nb);
}

}  // namespace qinfer::executor
