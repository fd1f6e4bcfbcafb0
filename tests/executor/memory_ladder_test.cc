// The budgeted CPU device, calibration and the OOM ladder on the generated
// model. OOMs here are real: the budgeted allocator refuses an allocation
// inside the model's own forward pass. Built twice (tests/executor/
// CMakeLists.txt): memory_ladder_test on the TorchScript export,
// memory_ladder_aoti_test on the aoti export of the same model
// (QINFER_TEST_MODEL_FILE names its cpu/float32 package), whose forward
// reports an OOM as an error code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>

#include "qinfer/core/logging.h"
#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/torch_model_runner.h"
#include "runner_test_util.h"

namespace qinfer::executor {
namespace {

constexpr float kTolerance = 1e-4f;
const std::vector<int> kBounds = {16, 32, 64, 128, 256, 512};

#ifndef QINFER_TEST_MODEL_FILE
#define QINFER_TEST_MODEL_FILE "model.pt"
#endif
std::string ModelPath() { return std::string(QINFER_TEST_MODEL_DIR) + "/" QINFER_TEST_MODEL_FILE; }

// A budget that holds the weights and short jobs but not one job of 450 to
// 512 tokens: 10 MiB for the TorchScript model; the aoti package's fused
// kernels need less per job, so its build sets a smaller one.
#ifndef QINFER_TEST_TIGHT_BUDGET
#define QINFER_TEST_TIGHT_BUDGET "cpu-budget:10MiB"
#endif
const std::string kTightBudget = QINFER_TEST_TIGHT_BUDGET;

std::unique_ptr<TorchModelRunner> Load(const std::string& device, const std::string& fallback = "") {
  return LoadRunnerForTest(ModelPath(), device, fallback);
}

Batch MakeBatch(int bound, int count, int min_len, int max_len, uint32_t seed, int64_t vocab) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> len(min_len, max_len);
  std::uniform_int_distribution<int64_t> tok(0, vocab - 1);
  Batch batch;
  batch.bucket_bound = bound;
  for (int i = 0; i < count; ++i) {
    Job job;
    job.id = "j" + std::to_string(i);
    job.input_ids.resize(size_t(len(rng)));
    for (auto& t : job.input_ids) t = tok(rng);
    job.origin = {"jobs", 0, i, 1};
    batch.jobs.push_back(std::move(job));
  }
  return batch;
}

// The executor's log lines, debug ones included, while it lives.
class CapturedLog {
 public:
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  ScopedLogCapture capture_{"executor", out_, LogLevel::kDebug};
};

class RecordingCapListener final : public CapListener {
 public:
  void OnCapLowered(int bound, int new_cap, int failed_size) override {
    lowered[bound] = new_cap;
    last_failed_size = failed_size;
  }
  std::map<int, int> lowered;
  int last_failed_size = 0;
};

// Reference outputs: each job alone on an unbudgeted CPU runner.
std::vector<std::vector<float>> Alone(const Batch& batch) {
  auto reference = Load("cpu");
  std::vector<std::vector<float>> out;
  for (const Job& job : batch.jobs) {
    auto row = reference->Forward({job.input_ids});
    EXPECT_TRUE(row.ok()) << row.status();
    out.push_back(row.ok() ? (*row)[0] : std::vector<float>{});
  }
  return out;
}

TEST(DeviceSpecTest, ParsesTheAcceptedForms) {
  auto b = DeviceSpec::Parse("cpu-budget:512MiB");
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->budgeted_cpu);
  EXPECT_EQ(b->budget_bytes, 512LL << 20);
  EXPECT_EQ(DeviceSpec::Parse("cuda:1")->torch_device, "cuda:1");
  EXPECT_FALSE(DeviceSpec::Parse("cpu-budget:lots").ok());
  EXPECT_FALSE(DeviceSpec::Parse("cpu-budget:5XB").ok());
  EXPECT_FALSE(DeviceSpec::Parse("gpu").ok());
  EXPECT_EQ(*ParseBytes("2GiB"), 2LL << 30);
  EXPECT_EQ(*ParseBytes("1500"), 1500);
}

TEST(BudgetedCpuDeviceTest, RefusesAnAllocationPastTheBudgetInsideForward) {
  auto runner = Load("cpu-budget:64MiB");
  ASSERT_NE(runner, nullptr);
  EXPECT_GT(runner->memory().allocated_bytes(), 0) << "the weights are charged";
  auto small = runner->MeasurePeak(1, 16);
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_LE(*small, 64LL << 20);
  auto big = runner->MeasurePeak(64, 512);
  ASSERT_FALSE(big.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(big.status())) << big.status();
  EXPECT_NE(big.status().message().find("out of memory"), std::string::npos);
  // The failed pass released everything it had allocated.
  auto again = runner->MeasurePeak(1, 16);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *small);
}

TEST(CalibrationTest, PlannedBatchFallsWithLengthFitsTheBudgetAndIsTight) {
  auto runner = Load("cpu-budget:192MiB");
  ASSERT_NE(runner, nullptr);
  CalibrationOptions options;
  options.bounds = kBounds;
  options.max_batch_size = 64;
  options.margin = 0.1;
  auto plan = Calibrate(*runner, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::cout << FormatPlan(*plan);
  ASSERT_EQ(plan->entries.size(), kBounds.size());
  for (size_t i = 1; i < plan->entries.size(); ++i) {
    EXPECT_LE(plan->entries[i].batch_size, plan->entries[i - 1].batch_size) << "bucket " << kBounds[i];
  }
  EXPECT_LT(plan->entries.back().batch_size, plan->entries.front().batch_size) << "long buckets get smaller batches";
  for (const PlanEntry& e : plan->entries) {
    ASSERT_TRUE(e.fits()) << e.bound;
    auto peak = runner->MeasurePeak(e.batch_size, e.bound);
    ASSERT_TRUE(peak.ok()) << "planned (" << e.batch_size << ", " << e.bound << "): " << peak.status();
    EXPECT_LE(*peak, plan->limit_bytes()) << e.bound;
    if (e.batch_size < options.max_batch_size) {
      const int larger = int(std::ceil(e.batch_size * 1.15));
      auto over = runner->MeasurePeak(larger, e.bound);
      EXPECT_TRUE(!over.ok() || *over > plan->limit_bytes())
          << "plan is not tight at bucket " << e.bound << ": " << larger << " also fits";
    }
  }
}

TEST(CalibrationTest, BucketWhereOneJobDoesNotFitIsMarked) {
  auto runner = Load(kTightBudget);
  ASSERT_NE(runner, nullptr);
  CalibrationOptions options;
  options.bounds = kBounds;
  options.max_batch_size = 64;
  auto plan = Calibrate(*runner, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::cout << FormatPlan(*plan);
  EXPECT_FALSE(plan->entries.back().fits()) << "a 512-token job does not fit " << kTightBudget;
  EXPECT_TRUE(plan->entries.front().fits());
}

TEST(CalibrationTest, PlainCpuHasNoBudgetToPlanIn) {
  auto runner = Load("cpu");
  ASSERT_NE(runner, nullptr);
  auto plan = Calibrate(*runner, {kBounds, 64, 0.1, {}});
  EXPECT_TRUE(absl::IsFailedPrecondition(plan.status())) << plan.status();
}

TEST(OomLadderTest, OversizedBatchSplitsLowersTheCapAndLosesNothing) {
  auto runner = Load("cpu-budget:96MiB");
  ASSERT_NE(runner, nullptr);
  RecordingCapListener caps;
  runner->SetCapListener(&caps);
  Batch batch = MakeBatch(256, 48, 200, 256, 1, runner->manifest().vocab_size);
  CapturedLog log;
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  // The split's debug line says what split and why (it was empty while its
  // format had a %v that abseil 20220623 refuses for a bool).
  EXPECT_NE(log.text().find("event=split bucket=256 batch=48 oom=true"), std::string::npos) << log.text();
  auto alone = Alone(batch);
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << i << ": " << o.error;
    EXPECT_EQ(o.device, "cpu-budget:96MiB") << "ran on the primary device";
    EXPECT_LT(o.batch_size, 48) << "ran in a smaller piece";
    EXPECT_LT(MaxAbsDiff(o.output, alone[i]), kTolerance) << i;
  }
  EXPECT_GT(runner->stats().oom_events, 0u);
  EXPECT_GT(runner->stats().splits, 0u);
  EXPECT_EQ(runner->stats().fallback_runs, 0u);
  ASSERT_EQ(caps.lowered.count(256), 1u);
  EXPECT_LT(caps.lowered[256], 48);
  EXPECT_GE(caps.lowered[256], 1);
  EXPECT_EQ(caps.last_failed_size, 48);
  // The lowered cap really fits.
  auto fitted = runner->Run(MakeBatch(256, caps.lowered[256], 200, 256, 2, runner->manifest().vocab_size));
  ASSERT_TRUE(fitted.ok());
  for (const Outcome& o : *fitted) EXPECT_EQ(o.batch_size, caps.lowered[256]);
}

// After an OOM the cap becomes the largest batch that really fits the
// bucket, within one job of what calibration finds, not the half-batch that
// happened to run.
TEST(OomLadderTest, AfterAnOomTheCapIsTheLargestBatchThatFitsNotHalfTheFailedOne) {
  auto runner = Load("cpu-budget:96MiB");
  ASSERT_NE(runner, nullptr);
  CalibrationOptions options;
  options.bounds = {256};
  options.max_batch_size = 256;
  options.margin = 0.1;  // RunnerOptions::cap_margin's default
  auto plan = Calibrate(*runner, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const int fits = plan->entries[0].batch_size;
  ASSERT_GE(fits, 4) << "the budget should hold a few 256-token inputs";

  RecordingCapListener caps;
  runner->SetCapListener(&caps);
  // A stale cap half as large again as what fits: the halves that run
  // (about 3/4 of what fits) are well below the largest fitting size.
  const int failed = fits + fits / 2 + 1;
  Batch batch = MakeBatch(256, failed, 256, 256, 3, runner->manifest().vocab_size);
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  for (const Outcome& o : *outcomes) ASSERT_TRUE(o.ok) << o.error;
  ASSERT_GT(runner->stats().oom_events, 0u) << "the batch of " << failed << " should not fit";
  ASSERT_EQ(caps.lowered.count(256), 1u);
  EXPECT_EQ(caps.last_failed_size, failed);
  EXPECT_NEAR(caps.lowered[256], fits, 1) << "calibration finds " << fits;
  EXPECT_GT(caps.lowered[256], (failed + 1) / 2) << "not the half that ran";
  // And it really runs within the budget.
  auto peak = runner->MeasurePeak(caps.lowered[256], 256);
  ASSERT_TRUE(peak.ok()) << peak.status();
  EXPECT_LE(*peak, runner->memory().budget_bytes());
}

TEST(OomLadderTest, SingleJobsThatDoNotFitRunOnTheCpuFallback) {
  auto runner = Load(kTightBudget, "cpu");
  ASSERT_NE(runner, nullptr);
  Batch batch = MakeBatch(512, 4, 450, 512, 3, runner->manifest().vocab_size);
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok());
  auto alone = Alone(batch);
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.device, "cpu") << "ran on the fallback device";
    EXPECT_EQ(o.batch_size, 1);
    EXPECT_LT(MaxAbsDiff(o.output, alone[i]), kTolerance);
  }
  EXPECT_EQ(runner->stats().fallback_runs, 4u);
  EXPECT_EQ(runner->stats().oom_failures, 0u);
}

TEST(OomLadderTest, WithoutFallbackJobsThatDoNotFitGetOomFailureRecords) {
  auto runner = Load(kTightBudget);
  ASSERT_NE(runner, nullptr);
  Batch batch = MakeBatch(512, 3, 450, 512, 4, runner->manifest().vocab_size);
  batch.jobs.push_back(MakeBatch(512, 1, 10, 10, 5, runner->manifest().vocab_size).jobs[0]);
  batch.jobs.back().id = "short";
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok());
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE((*outcomes)[i].ok);
    EXPECT_EQ((*outcomes)[i].reason, reason::kOom);
    EXPECT_NE((*outcomes)[i].error.find("out of memory"), std::string::npos);
    EXPECT_EQ((*outcomes)[i].origin.offset, i) << "replayable: the source is kept";
  }
  EXPECT_TRUE((*outcomes)[3].ok) << "a short batch-mate still runs: " << (*outcomes)[3].error;
  EXPECT_EQ(runner->stats().oom_failures, 3u);
}

TEST(OomLadderTest, UnfitBucketGoesStraightToTheFallback) {
  auto runner = Load(kTightBudget, "cpu");
  ASSERT_NE(runner, nullptr);
  runner->SetUnfitBuckets({512});
  auto outcomes = runner->Run(MakeBatch(512, 2, 300, 400, 6, runner->manifest().vocab_size));
  ASSERT_TRUE(outcomes.ok());
  for (const Outcome& o : *outcomes) EXPECT_TRUE(o.ok) << o.error;
  EXPECT_EQ(runner->stats().oom_events, 0u) << "no attempt on the primary device";
  EXPECT_EQ(runner->stats().fallback_runs, 2u);
}

TEST(OomLadderTest, AJobTheModelFailsOnTheFallbackGetsModelErrorNotOom) {
  auto runner = Load(kTightBudget, "cpu");
  ASSERT_NE(runner, nullptr);
  runner->SetUnfitBuckets({512});
  Batch batch = MakeBatch(512, 2, 300, 400, 15, runner->manifest().vocab_size);
  batch.jobs[0].input_ids[7] = runner->manifest().vocab_size + 3;
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  EXPECT_FALSE((*outcomes)[0].ok);
  EXPECT_EQ((*outcomes)[0].reason, reason::kModelError) << (*outcomes)[0].error;
  EXPECT_NE((*outcomes)[0].error.find("fallback cpu: "), std::string::npos) << (*outcomes)[0].error;
  EXPECT_TRUE((*outcomes)[1].ok) << (*outcomes)[1].error;
  EXPECT_EQ(runner->stats().model_errors, 1u);
  EXPECT_EQ(runner->stats().oom_failures, 0u);
}

TEST(OomLadderTest, ModelErrorNeverLowersACap) {
  auto runner = Load("cpu-budget:256MiB");
  ASSERT_NE(runner, nullptr);
  RecordingCapListener caps;
  runner->SetCapListener(&caps);
  Batch batch = MakeBatch(32, 8, 10, 32, 7, runner->manifest().vocab_size);
  batch.jobs[2].input_ids[0] = runner->manifest().vocab_size + 5;
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok());
  EXPECT_EQ((*outcomes)[2].reason, reason::kModelError);
  EXPECT_TRUE(caps.lowered.empty());
  EXPECT_EQ(runner->stats().oom_events, 0u);
}

// A failed `oom` job replayed with `device: "cpu"`: it runs alone on the CPU
// even where the service has no fallback device.
TEST(DeviceOverrideTest, ALongJobThatDoesNotFitRunsOnTheCpuByItsOverrideWithOrWithoutAFallback) {
  for (const std::string fallback : {"", "cpu"}) {
    SCOPED_TRACE("fallback '" + fallback + "'");
    auto runner = Load(kTightBudget, fallback);
    ASSERT_NE(runner, nullptr);
    Batch batch = MakeBatch(512, 1, 500, 512, 8, runner->manifest().vocab_size);
    if (fallback.empty()) {
      auto failed = runner->Run(batch);
      ASSERT_TRUE(failed.ok()) << failed.status();
      EXPECT_EQ((*failed)[0].reason, reason::kOom) << "without the override it does not fit";
    }
    batch.jobs[0].device = "cpu";
    auto outcomes = runner->Run(batch);
    ASSERT_TRUE(outcomes.ok()) << outcomes.status();
    const Outcome& o = (*outcomes)[0];
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.device, "cpu");
    EXPECT_EQ(o.batch_size, 1);
    EXPECT_EQ(o.bucket, 512);
    EXPECT_LT(MaxAbsDiff(o.output, Alone(batch)[0]), 1e-5f) << "the unbatched CPU output";
    EXPECT_EQ(runner->stats().override_runs, 1u);
    EXPECT_EQ(runner->stats().fallback_runs, 0u) << "an override is not a ladder step";
    EXPECT_EQ(runner->stats().oom_events, fallback.empty() ? 1u : 0u) << "the override never tries the primary device";
  }
}

TEST(DeviceOverrideTest, OverriddenJobsRunAloneAndTheirBatchMatesRunBatchedInOrder) {
  auto runner = Load("cpu-budget:64MiB");
  ASSERT_NE(runner, nullptr);
  Batch batch = MakeBatch(64, 6, 20, 64, 9, runner->manifest().vocab_size);
  batch.jobs[1].device = "cpu";
  batch.jobs[4].device = "cpu";
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  ASSERT_EQ(outcomes->size(), 6u);
  auto alone = Alone(batch);
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    const Outcome& o = (*outcomes)[i];
    ASSERT_TRUE(o.ok) << i << ": " << o.error;
    EXPECT_EQ(o.id, batch.jobs[i].id);
    EXPECT_EQ(o.origin.offset, int64_t(i));
    if (i == 1 || i == 4) {
      EXPECT_EQ(o.device, "cpu") << i;
      EXPECT_EQ(o.batch_size, 1) << i;
      EXPECT_LT(MaxAbsDiff(o.output, alone[i]), 1e-5f) << i;
    } else {
      EXPECT_EQ(o.device, "cpu-budget:64MiB") << i;
      EXPECT_EQ(o.batch_size, 4) << i << ": the other jobs ran as one batch";
      EXPECT_LT(MaxAbsDiff(o.output, alone[i]), kTolerance) << i;
    }
  }
  EXPECT_EQ(runner->stats().override_runs, 2u);
}

TEST(DeviceOverrideTest, AnUnknownDeviceOverrideGetsAnInvalidRecordAndItsBatchMatesRun) {
  auto runner = Load("cpu-budget:64MiB");
  ASSERT_NE(runner, nullptr);
  Batch batch = MakeBatch(32, 3, 10, 32, 10, runner->manifest().vocab_size);
  batch.jobs[0].device = "cuda:0";
  auto outcomes = runner->Run(batch);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status();
  EXPECT_FALSE((*outcomes)[0].ok);
  EXPECT_EQ((*outcomes)[0].reason, reason::kInvalid);
  EXPECT_EQ((*outcomes)[0].error, "unknown device override 'cuda:0': expected cpu");
  EXPECT_EQ((*outcomes)[0].origin.offset, 0) << "replayable: the source is kept";
  for (size_t i = 1; i < 3; ++i) {
    ASSERT_TRUE((*outcomes)[i].ok) << (*outcomes)[i].error;
    EXPECT_EQ((*outcomes)[i].batch_size, 2);
  }
  EXPECT_EQ(runner->stats().override_runs, 0u);
}

}  // namespace
}  // namespace qinfer::executor

namespace qinfer::executor {
namespace {

TEST(AutocastTest, Bf16AutocastReallyChangesTheComputeDtype) {
  RunnerOptions o;
  o.model_path = ModelPath();
  o.autocast = "bf16";
  auto bf16 = TorchModelRunner::Load(o);
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_EQ((*bf16)->dtype(), "bfloat16");
  auto fp32 = Load("cpu");
  std::vector<int64_t> row(64);
  for (size_t i = 0; i < row.size(); ++i) row[i] = int64_t(i * 37 % 4096);
  auto a = (*bf16)->Forward({row});
  auto b = fp32->Forward({row});
  ASSERT_TRUE(a.ok() && b.ok());
  const float diff = MaxAbsDiff((*a)[0], (*b)[0]);
  EXPECT_GT(diff, 0.0f) << "autocast had no effect";
  EXPECT_LT(diff, 0.1f) << "bf16 stays close to float32";
}

// Autocast's cast weights are made once and kept across Run's batches (they
// are then resting memory of the budgeted device); calibration, through
// MeasurePeak, measures a pass that casts them, and its plan holds for Run.
TEST(AutocastTest, TheCastWeightsAreKeptAcrossBatchesAndThePlanStillHolds) {
  if (ModelPath().size() > 4 && ModelPath().substr(ModelPath().size() - 4) == ".pt2") {
    GTEST_SKIP() << "an aoti package's precision is fixed at export: no autocast, no cast weights";
  }
  RunnerOptions o;
  o.model_path = ModelPath();
  o.device = "cpu-budget:192MiB";
  o.autocast = "bf16";
  auto loaded = TorchModelRunner::Load(o);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  TorchModelRunner& runner = **loaded;
  const int64_t after_load = runner.memory().allocated_bytes();
  const Batch batch = MakeBatch(64, 4, 30, 64, 21, runner.manifest().vocab_size);
  ASSERT_TRUE(runner.Run(batch).ok());
  const int64_t after_run = runner.memory().allocated_bytes();
  EXPECT_GT(after_run, after_load) << "Run keeps the bf16 copies of the weights";
  ASSERT_TRUE(runner.Run(batch).ok());
  EXPECT_EQ(runner.memory().allocated_bytes(), after_run) << "cast once, not again per batch";

  CalibrationOptions options;
  options.bounds = {64, 256};
  options.max_batch_size = 64;
  auto plan = Calibrate(runner, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(runner.memory().allocated_bytes(), after_load) << "calibration leaves no cast weights behind";
  for (const PlanEntry& e : plan->entries) {
    ASSERT_TRUE(e.fits()) << e.bound;
    const Batch planned = MakeBatch(e.bound, e.batch_size, e.bound, e.bound, 22, runner.manifest().vocab_size);
    runner.memory().ResetPeak();
    auto out = runner.Run(planned);
    ASSERT_TRUE(out.ok()) << out.status();
    for (const Outcome& r : *out) ASSERT_TRUE(r.ok) << e.bound << ": " << r.error;
    ASSERT_TRUE(runner.Run(planned).ok()) << "again, with the casts kept";
    EXPECT_LE(runner.memory().peak_bytes(), plan->limit_bytes()) << e.bound;
  }
  EXPECT_EQ(runner.stats().oom_events, 0u) << "the planned batches fit";
}

}  // namespace
}  // namespace qinfer::executor
