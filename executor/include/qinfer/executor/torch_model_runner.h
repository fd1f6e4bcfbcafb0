// TorchModelRunner: the libtorch side. Loads a model that follows the
// contract forward(input_ids int64 [B,L], attention_mask int64 [B,L]
// [, token_type_ids int64 [B,L]]) -> float [B,D] ([B,L,C] for task tokens,
// of which each job keeps its own L rows; the third input where the
// manifest's `inputs` lists it) (the manifest's `format`: a TorchScript file, or an aoti export
// of AOTInductor packages, one per device kind and precision), collates jobs
// into padded tensors, and runs them under torch::InferenceMode on the
// primary device, with the OOM ladder:
//
//   1. on OOM, release cached memory, split the batch in two and retry each
//      half on the primary device, recursively;
//   2. once the batch is done, find the largest batch that really fits the
//      bucket (bisection between nothing and the size that failed, measured
//      at the bucket's bound, as calibration does) and report it
//      (CapListener), so that the bucket's cap is lowered to it, not to the
//      half that happened to succeed;
//   3. a single job that still does not fit runs on the fallback device (a
//      separate model instance on the CPU) when one is configured;
//   4. otherwise (no fallback, or an OOM there too) it gets a failure record
//      with reason `oom`; an error there that is not an OOM gives
//      `model_error`.
//
// An OOM is an allocation the device refused during the forward pass,
// whatever error the model's code reports for it (DeviceMemory's
// refused_allocations), or an error that names one.
//
// An aoti export runs the package for the primary's device kind and
// model.autocast (empty: float32, bf16: bfloat16, fp16: float16; the
// package's precision was fixed at export, no autocast is applied to it),
// and cpu/float32 for the fallback and the `device: cpu` overrides. A batch
// never runs more than the manifest's max_batch rows at once.
//
// An error that is not an OOM never lowers a cap: the batch is bisected to
// isolate the job that fails, which alone gets `model_error`.
//
// Outside the ladder:
//   - a job with the override `device: "cpu"` (Job::device) runs alone on a
//     plain float32 CPU model: the fallback, else the primary when it is
//     one, else a CPU copy of the model loaded the first time such a job
//     comes and then kept. So a runner without a fallback still serves it.
//     Its result says device "cpu", batch_size 1; an error there is its
//     `oom` or `model_error` record. Any other non-empty override gets an
//     `invalid` record;
//   - a job longer than the manifest's max_positions gets `too_long`;
//   - a batch whose bucket_bound is above the manifest's max_tokens is a
//     long lane: its jobs (up to max_positions tokens) run alone on the
//     fallback device, as in an unfit bucket.
//
// A row of the model's output that holds NaN or Inf is not a result either:
// that job alone gets `model_error` ("model output has a non-finite value
// (NaN/Inf) at position P of D"), on the primary and the fallback device
// alike, and its batch mates keep their results (the check is per row, so
// no bisection is needed). This also catches an fp16/bf16 overflow under
// autocast. Forward and MeasurePeak return rows unchecked.
//
// Errors never escape as exceptions: c10::Error is caught here and becomes a
// failure record or a status.
#pragma once

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/stats.h"
#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/device_memory.h"
#include "qinfer/executor/model_manifest.h"

namespace qinfer::executor {

struct TokenRow;  // batch_io.h: one job's inputs, as the model takes them

struct RunnerOptions {
  std::string model_path;           // model.pt, or an aoti export's cpu/float32 package
  std::string manifest_path;        // default: manifest.json beside model_path
  std::string device = "cpu";       // cpu | cuda:N | cpu-budget:<size>
  std::string fallback_device;      // "" (none) or "cpu": where single jobs that OOM run
  int intra_op_threads = 0;         // 0: libtorch's default
  // Which of MKL's kernels run (mkl_dispatch.h): "isa" (by the CPU's
  // instruction sets) or "vendor" (MKL's own choice); another value fails
  // Load with InvalidArgument. Process-wide, and fixed by the first Load.
  std::string mkl_dispatch = "isa";
  std::string autocast;             // "" (float32) | "bf16" | "fp16"
  double cuda_memory_fraction = 0;  // (0,1): cap the CUDA allocator (emulate a smaller card)
  int64_t cuda_budget_bytes = 0;    // plan within this on CUDA; 0: the (capped) card
  // The bound of the CPU allocator's large-block cache (cpu_block_cache.h),
  // process-wide: the last Load sets it. 0: every large block goes back to
  // the system when freed.
  int64_t cpu_block_cache_bytes = int64_t(512) << 20;
  // Shared libraries that register TorchScript custom ops (TORCH_LIBRARY),
  // for models whose code calls torch.ops.<ns>.<op>: without them such a
  // model does not load. Loaded in order with dlopen(RTLD_NOW | RTLD_GLOBAL)
  // before the model and never unloaded, so their ops stay registered for
  // the rest of the process. One that does not load fails Load with
  // InvalidArgument naming its path and dlerror(). Default: none.
  std::vector<std::string> op_libraries;
  // After an OOM, a bucket's new cap is the largest batch at the bucket's
  // bound whose measured peak stays within budget * (1 - cap_margin): the
  // memory plan's own criterion (memory.margin), found by bisection between
  // nothing and the size that failed.
  double cap_margin = 0.1;
  // Times a job's wait and its run: the clock the scheduler stamps jobs
  // with (Job::enqueued_at), so queue_seconds is read on one clock. Not owned.
  const Clock* clock = &RealClock();
};

// Counters of the ladder (core/stats.h). Written by the executor thread,
// readable from any thread (e.g. a metrics scrape).
#define QINFER_RUNNER_STATS(STAT)                                                                         \
  STAT(oom_events, "qinfer_oom_ladder_total", "stage=oom",                                                \
       "OOM ladder events by stage: oom (caught), split, cap_lowered, fallback (a job run on the fallback " \
       "device), failed (oom record)")                                                                    \
  STAT(splits, "qinfer_oom_ladder_total", "stage=split", "")                                              \
  STAT(cap_lowerings, "qinfer_oom_ladder_total", "stage=cap_lowered", "")                                 \
  STAT(fallback_runs, "qinfer_oom_ladder_total", "stage=fallback", "")                                    \
  STAT(oom_failures, "qinfer_oom_ladder_total", "stage=failed", "")                                       \
  STAT(model_errors, "qinfer_model_errors_total", "", "Jobs the model failed when run alone (model_error)") \
  STAT(override_runs, "qinfer_device_override_runs_total", "", "Jobs run on the device their replay asked for")

struct RunnerStats {
  QINFER_DECLARE_STATS(QINFER_RUNNER_STATS)
};

// Told when an OOM shows that a bucket's cap is too high.
class CapListener {
 public:
  virtual ~CapListener() = default;
  // `new_cap` (>= 1) is the largest batch of bucket `bound` that fits after
  // a batch of `failed_size` ran out of memory: measured by bisection at the
  // bucket's bound within the budget less RunnerOptions::cap_margin, or,
  // where the device has no budget to measure in, the largest piece that
  // succeeded on the primary device.
  virtual void OnCapLowered(int bound, int new_cap, int failed_size) = 0;
};

// Not thread-safe: one executor thread owns the runner and calls Run.
class TorchModelRunner final : public ModelRunner, public CalibrationTarget {
 public:
  // Loads the model onto the primary device (and the fallback device, if
  // any) and warms it up with one small batch. The model file is hashed
  // first: FailedPrecondition, naming both digests, when the manifest states
  // another one; manifest().digest is always the file's own. For an aoti
  // export, FailedPrecondition also when the manifest's torch_version is not
  // TorchVersion(), when it has no package for the primary's device kind and
  // precision (checked before the device is: the message names the packages
  // it has and how to export the missing one), and when a package's digest
  // is not the manifest's.
  static absl::StatusOr<std::unique_ptr<TorchModelRunner>> Load(RunnerOptions options);
  ~TorchModelRunner() override;

  // One outcome per job, in order (see the ladder above); the jobs without
  // an override run batched, as configured. FailedPrecondition, before any
  // job runs, for a long-lane batch with a job to run on the fallback device
  // when there is none.
  absl::StatusOr<std::vector<Outcome>> Run(const Batch& batch) override;

  // Runs `rows` as one padded batch of length max(len) (or `padded_length`
  // when larger) on the primary device, without the ladder; one output row
  // per input row. For calibration, tests and benchmarks. An OOM comes back
  // as ResourceExhausted.
  absl::StatusOr<std::vector<std::vector<float>>> Forward(const std::vector<std::vector<int64_t>>& rows,
                                                          int padded_length = 0);

  // Runs images (each its pixel_values, 3 x image.height x image.width
  // floats) as one batch on the primary device through the manifest's
  // image method, without the ladder, as Forward runs token rows.
  // FailedPrecondition for a model without an image tower.
  absl::StatusOr<std::vector<std::vector<float>>> ForwardImages(const std::vector<std::vector<float>>& pixels);

  // Runs a synthetic [batch, length] input on the primary device and returns
  // the peak bytes it allocated (ResourceExhausted on OOM). A model with an
  // image tower: at a length that reaches image.length, the larger of a
  // synthetic image batch's peak and (where the model takes text) the text
  // batch's at min(length, max_text_tokens).
  absl::StatusOr<int64_t> MeasurePeak(int batch, int length) override;

  // Not owned; may be null. Called from Run, on the executor thread.
  void SetCapListener(CapListener* listener);
  // Buckets where not even one job fits (from the plan): their jobs go
  // straight to the fallback device, or fail with `oom` when there is none.
  void SetUnfitBuckets(std::set<int> bounds);

  const ModelManifest& manifest() const;
  const std::string& device() const override;  // as configured, e.g. cpu-budget:256MiB
  const std::string& dtype() const override;   // "float32", "bfloat16", "float16"
  // The digest of the file the primary device runs: manifest().digest for
  // TorchScript, the chosen package's for aoti. What memory plans are keyed
  // by (an aoti export's packages differ in memory use).
  const std::string& primary_digest() const override;
  int64_t budget_bytes() override;  // the primary device's (0: none)
  int max_batch() const override;   // the manifest's (aoti), 0: any
  DeviceMemory& memory();
  bool has_fallback() const;
  const RunnerStats& stats() const;

 private:
  struct Impl;
  // Ladder step 2: the cap for bucket `bound` after a batch of `failed` jobs
  // ran out of memory and pieces of up to `succeeded` jobs ran.
  int RefitCap(int bound, int failed, int succeeded);

  // Forward and ForwardImages: rows run on the primary, errors as statuses.
  absl::StatusOr<std::vector<std::vector<float>>> ForwardUnladdered(const std::vector<TokenRow>& rows,
                                                                    int padded_length);

  explicit TorchModelRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The libtorch version this binary was built against (for plan keys).
std::string TorchVersion();

// This CPU as an aoti CPU package's `cpu_capability` names it: libtorch's
// dispatch capability (AVX2, AVX512, ...), then "+avx512_bf16" and "+amx"
// where the CPU has them (model/aoti_export.py's cpu_capability()).
std::string CpuCapability();

// libtorch's thread pools as they are now: intra-op (model.threads, or one
// per core) and inter-op.
struct TorchThreads {
  int intra_op = 0;
  int inter_op = 0;
};
TorchThreads CurrentTorchThreads();

// Ends the intra-op worker threads that the calling thread's forward passes
// started (OpenMP's pool of that thread: omp_pause_resource_all), so that
// only one team of them is left once the executor thread runs the model.
// OpenMP counts every worker of every pool: with more of them than cores it
// all but stops spinning between parallel regions, and each worker sleeps and
// is woken for every operator (MiniLM, short texts, 2 cores: 3,800 sleeps of
// the executor's worker in 0.6 s, 3 once released; policy_bench's rounds on
// a thread of their own ran 5-15% slower than on the loading thread until
// it released its workers). For the thread that loaded the model, after its
// last forward pass; a later one starts a new pool. Returns false where the
// OpenMP runtime has no such call (then nothing changes).
bool ReleaseIntraOpWorkersOfThisThread();

// CUDA devices this build of libtorch can use: 0 on a machine without one,
// and 0 for a CPU-only build even where a GPU exists.
int CudaDeviceCount();

}  // namespace qinfer::executor
