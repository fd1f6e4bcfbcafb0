#include "qinfer/executor/torch_model_runner.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <dlfcn.h>

#include <fstream>
#include <optional>

#include "absl/strings/str_format.h"
#include "batch_io.h"
#include "image_batches.h"
#include "device_memory_impl.h"
#include "model_backend.h"
#include "model_files.h"
#include "oom_ladder.h"
#include "qinfer/core/logging.h"
#include "qinfer/executor/mkl_dispatch.h"
#include "qinfer/executor/model_digest.h"

namespace qinfer::executor {
namespace {

// A loaded model on one device.
struct LoadedModel {
  std::string name;  // as configured: "cpu-budget:256MiB", "cuda:0", "cpu"
  std::unique_ptr<ModelBackend> backend;
  torch::Device device{torch::kCPU};
  bool charged = false;  // runs count against the budgeted CPU device
  // The lower precision it runs in: autocast for TorchScript, the package's
  // own dtype for aoti.
  std::optional<at::ScalarType> autocast;
};

// The memory of the primary device (loading, step 2): the budgeted CPU, a
// CUDA device, or the plain CPU's, untracked. The CPU allocator (and its
// block cache) is installed first: every device's host tensors use it.
absl::StatusOr<std::unique_ptr<DeviceMemory>> InstallMemory(const DeviceSpec& spec, const RunnerOptions& options) {
  InstallCpuAllocator(options.cpu_block_cache_bytes);
  if (spec.budgeted_cpu) return InstallBudgetedCpuMemory(spec.budget_bytes);
  if (spec.torch_device.rfind("cuda", 0) == 0 && torch::cuda::is_available()) {
    const torch::Device device(spec.torch_device);
    return CreateCudaMemory(device.has_index() ? device.index() : 0, options.cuda_memory_fraction,
                            options.cuda_budget_bytes);
  }
  return CreateUntrackedMemory();
}

}  // namespace

// The runner's state; the ladder's models (LadderModels) are its primary and
// fallback.
struct TorchModelRunner::Impl final : LadderModels {
  explicit Impl(RunnerOptions o) : options(std::move(o)) {}

  RunnerOptions options;
  ModelManifest manifest;
  std::string dtype = "float32";
  ModelFile primary_file;  // what the primary runs
  ModelFile cpu_file;      // what the fallback and the device overrides run
  LoadedModel primary;
  std::optional<LoadedModel> fallback;
  // Serves `device: cpu` overrides when neither the fallback nor the primary
  // is a plain CPU model: loaded on the first such job, then kept.
  std::optional<LoadedModel> cpu_copy;
  std::unique_ptr<DeviceMemory> memory;
  CapListener* cap_listener = nullptr;
  std::set<int> unfit;
  RunnerStats stats;
  ResultMaker results{manifest, stats};
  OomLadder ladder{*this, results, stats, *options.clock};

  // Collates `rows`, runs them on `model` and decodes the output: one row
  // per input row. Throws c10::Error (or what the interpreter wraps it in)
  // on failure. `ran_length` (optional) receives the padded length that ran.
  std::vector<std::vector<float>> ForwardRows(LoadedModel& model, const std::vector<TokenRow>& rows,
                                              int64_t padded_length, int64_t* ran_length = nullptr) {
    ChargeScope charge(model.charged);
    torch::InferenceMode guard;
    int64_t length = 0;
    BatchTensors in = Collate(rows, padded_length, manifest.task.type_ids, &length);
    const bool images = !rows.empty() && rows[0].is_image();
    if (images) length = manifest.image->length;
    if (ran_length != nullptr) *ran_length = length;
    MoveTo(in, model.device);
    torch::Tensor out;
    const uint64_t refused = memory->refused_allocations();
    try {
      out = model.backend->Forward(in);
      if (images && manifest.zero_shot) return ScoreLabels(*model.backend, model.device, manifest, rows, out);
    } catch (const std::exception& e) {
      const uint64_t now = memory->refused_allocations();
      if (now > refused && !IsOutOfMemory(e)) ThrowOutOfMemory(e, now - refused);
      throw;
    }
    return DecodeOutput(out, rows, length, manifest.task.task);
  }

  // LadderModels.
  std::vector<std::vector<float>> RunPrimary(const std::vector<TokenRow>& rows, int64_t* padded) override {
    return ForwardRows(primary, rows, 0, padded);
  }
  std::vector<float> RunFallback(const TokenRow& row) override { return ForwardRows(*fallback, {row}, 0)[0]; }
  const std::string& primary_name() const override { return primary.name; }
  const std::string& fallback_name() const override {
    static const std::string kNone;
    return fallback ? fallback->name : kNone;
  }
  void ReleaseCache() override { memory->ReleaseCache(); }

  // The plain float32 CPU model that `device: cpu` overrides run on: the
  // fallback when it is the CPU, else the primary when it is, else a copy of
  // the model loaded on first use.
  absl::StatusOr<LoadedModel*> CpuModel() {
    auto plain_cpu = [](const LoadedModel& m) { return m.device.is_cpu() && !m.charged && !m.autocast.has_value(); };
    if (fallback && plain_cpu(*fallback)) return &*fallback;
    if (plain_cpu(primary)) return &primary;
    if (!cpu_copy) {
      const SteadyTime start = options.clock->Now();
      absl::StatusOr<LoadedModel> loaded = LoadModel(cpu_file, "cpu", "cpu", /*charged=*/false, std::nullopt);
      if (!loaded.ok()) return loaded.status();
      cpu_copy = *std::move(loaded);
      Logger("executor")
          .Info("event=model_loaded name=%s digest=%s device=cpu purpose=device_override load_seconds=%.2f",
                manifest.name, manifest.digest, SecondsBetween(start, options.clock->Now()));
    }
    return &*cpu_copy;
  }

  // A job's `device: cpu` override: the job runs alone on the CPU model,
  // outside the ladder; a failure there is the job's failure record.
  void RunOverride(const Batch& batch, size_t i, SteadyTime batch_start, std::vector<Outcome>& out) {
    const Job& job = batch.jobs[i];
    std::string error;
    const char* failure = reason::kModelError;
    if (absl::StatusOr<LoadedModel*> model = CpuModel(); !model.ok()) {
      error = "device override cpu: " + std::string(model.status().message());
    } else {
      const SteadyTime start = options.clock->Now();
      try {
        auto outputs = ForwardRows(**model, {TokenRow::Of(job)}, 0);
        stats.override_runs++;
        Logger("executor")
            .Info("event=device_override_run job=%s bucket=%d length=%d device=cpu", job.id, batch.bucket_bound,
                  job.length());
        out[i] = results.Make(batch, i, std::move(outputs[0]), (*model)->name, 1, int64_t(job.length()), batch_start,
                              SecondsBetween(start, options.clock->Now()));
        return;
      } catch (const std::exception& e) {
        error = "device override cpu: " + FirstLine(e);
        if (IsOutOfMemory(e)) failure = reason::kOom;
      }
    }
    (failure == reason::kOom ? stats.oom_failures : stats.model_errors)++;
    Logger("executor")
        .Warn("event=job_failed job=%s reason=%s length=%d device=cpu error=\"%s\"", job.id, failure, job.length(),
              error);
    out[i] = FailureFor(job, failure, error);
  }

  // Loading, step 3: one model file on one device, checked and warmed up.
  absl::StatusOr<LoadedModel> LoadModel(const ModelFile& file, const std::string& name, const std::string& device_text,
                                        bool charged, std::optional<at::ScalarType> autocast) {
    LoadedModel m;
    m.name = name;
    try {
      m.device = torch::Device(device_text);
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError("device '" + device_text + "' is not a torch device: " + FirstLine(e));
    }
    if (m.device.is_cuda() && !torch::cuda::is_available()) {
      return absl::FailedPreconditionError(
          "device " + device_text +
          " requested but no CUDA device is available (this build or machine has none); use cpu or cpu-budget:<size>");
    }
    m.charged = charged;
    m.autocast = autocast;
    if (absl::Status same = CheckPackageDigest(file); !same.ok()) return same;
    ChargeScope charge(charged);
    absl::StatusOr<std::unique_ptr<ModelBackend>> backend =
        file.aoti ? LoadAotiBackend(file.path, m.device)
                  : LoadTorchScriptBackend(file.path, m.device, autocast, manifest.image ? manifest.image->method : "");
    if (!backend.ok()) return backend.status();
    m.backend = *std::move(backend);
    if (absl::Status warm = WarmUp(m, file, device_text); !warm.ok()) return warm;
    return m;
  }

  // An aoti package is the one its manifest names.
  absl::Status CheckPackageDigest(const ModelFile& file) const {
    if (!file.aoti) return absl::OkStatus();
    absl::StatusOr<std::string> digest = FileDigest(file.path);
    if (!digest.ok()) return digest.status();
    if (*digest == file.digest) return absl::OkStatus();
    return absl::FailedPreconditionError("aoti package " + file.path + " has digest " + *digest +
                                         ", but the manifest " + options.manifest_path + " says " + file.digest +
                                         ": the package was replaced without its manifest; export the model "
                                         "again (--format aoti)");
  }

  // The first forward passes pay for graph optimisation.
  absl::Status WarmUp(LoadedModel& m, const ModelFile& file, const std::string& device_text) {
    try {
      if (manifest.takes_tokens) {
        const std::vector<int64_t> row(8, 1);
        ForwardRows(m, {{&row}, {&row}}, 0);
        ForwardRows(m, {{&row}}, 0);
      }
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError("model " + file.path + " failed its warm-up forward(input_ids, attention_mask" +
                                        (manifest.task.type_ids ? ", token_type_ids" : "") + ") on " + device_text +
                                        ": " + FirstLine(e));
    }
    if (manifest.image) {
      try {
        const std::vector<float> pixels = SyntheticPixels(*manifest.image, 0);
        const TokenRow image = ImageRow(*manifest.image, pixels);
        ForwardRows(m, {image, image}, 0);
        ForwardRows(m, {image}, 0);
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError("model " + file.path + " failed its warm-up " + manifest.image->method +
                                          "(pixel_values [B, 3, " + std::to_string(manifest.image->height) + ", " +
                                          std::to_string(manifest.image->width) + "]) on " + device_text + ": " +
                                          FirstLine(e));
      }
    }
    // The loading thread keeps no cast weights: the executor thread makes
    // its own on its first batch.
    m.backend->DropCaches();
    return absl::OkStatus();
  }

  // Jobs refused before anything runs (a device override it does not know,
  // a length past max_positions) get their records in `out`; the rest are
  // split into those with a `device: cpu` override and those that run as
  // configured.
  void Triage(const Batch& batch, std::vector<size_t>& overridden, std::vector<size_t>& configured,
              std::vector<Outcome>& out) const {
    for (size_t i = 0; i < batch.jobs.size(); ++i) {
      const Job& job = batch.jobs[i];
      std::string error;
      const char* failure = reason::kInvalid;
      if (!job.device.empty() && job.device != "cpu") {
        error = "unknown device override '" + job.device + "': expected cpu";
      } else if (job.is_image() && (!manifest.image || job.pixel_height != manifest.image->height ||
                                    job.pixel_width != manifest.image->width)) {
        error = manifest.image ? absl::StrFormat("image of %dx%d pixel values, the model takes %dx%d",
                                                 job.pixel_height, job.pixel_width, manifest.image->height,
                                                 manifest.image->width)
                               : "`image`: this model takes no images";
      } else if (job.length() > size_t(manifest.max_positions)) {
        error = absl::StrFormat("input length %d exceeds the model's max_positions %d", job.length(),
                                manifest.max_positions);
        failure = reason::kTooLong;
      } else {
        (job.device.empty() ? configured : overridden).push_back(i);
        continue;
      }
      Logger("executor")
          .Warn("event=job_failed job=%s reason=%s length=%d error=\"%s\"", job.id, failure, job.length(), error);
      out[i] = FailureFor(job, failure, error);
    }
  }
};

TorchModelRunner::TorchModelRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TorchModelRunner::~TorchModelRunner() = default;

absl::StatusOr<std::unique_ptr<TorchModelRunner>> TorchModelRunner::Load(RunnerOptions options) {
  // Step 1: the files, before any device or memory is touched.
  absl::StatusOr<ResolvedModel> resolved = ResolveModel(options);
  if (!resolved.ok()) return resolved.status();
  absl::StatusOr<MklDispatch> mkl = ParseMklDispatch(options.mkl_dispatch);
  if (!mkl.ok()) return mkl.status();
  SetMklDispatch(*mkl);
  if (absl::Status loaded = LoadOpLibraries(options.op_libraries); !loaded.ok()) return loaded;
  auto impl = std::make_unique<Impl>(options);
  impl->manifest = std::move(resolved->manifest);
  impl->primary_file = std::move(resolved->primary_file);
  impl->cpu_file = std::move(resolved->cpu_file);
  impl->dtype = DtypeName(resolved->autocast);
  if (options.intra_op_threads > 0) at::set_num_threads(options.intra_op_threads);
  // Step 2: memory.
  absl::StatusOr<std::unique_ptr<DeviceMemory>> memory = InstallMemory(resolved->spec, options);
  if (!memory.ok()) return memory.status();
  impl->memory = *std::move(memory);
  // Step 3: the models. The fallback is a separate instance, never charged
  // to the budget, and runs in float32.
  const SteadyTime start = options.clock->Now();
  const DeviceSpec& spec = resolved->spec;
  auto primary = impl->LoadModel(impl->primary_file, options.device, spec.torch_device, spec.budgeted_cpu,
                                 resolved->autocast);
  if (!primary.ok()) return primary.status();
  impl->primary = *std::move(primary);
  if (!options.fallback_device.empty()) {
    auto fallback = impl->LoadModel(impl->cpu_file, "cpu", "cpu", /*charged=*/false, std::nullopt);
    if (!fallback.ok()) return fallback.status();
    impl->fallback = *std::move(fallback);
  }
  Logger("executor")
      .Info(
          "event=model_loaded name=%s digest=%s device=%s dtype=%s fallback=%s budget_bytes=%d "
          "allocated_bytes=%d load_seconds=%.2f mkl_dispatch=%s mkl_kernel_path=%d",
          impl->manifest.name, impl->manifest.digest, options.device, impl->dtype,
          options.fallback_device.empty() ? "none" : options.fallback_device, impl->memory->budget_bytes(),
          impl->memory->allocated_bytes(), SecondsBetween(start, options.clock->Now()), options.mkl_dispatch,
          MklKernelPath());
  if (MklRunsGenericKernelsOnAVectorCpu()) {
    Logger("executor").Warn(
        "event=mkl_generic_kernels mkl_dispatch=%s: MKL runs its generic kernels on a CPU with AVX2 (float32 "
        "linears at about half speed); model.mkl_dispatch isa lets it pick by the CPU's instruction sets",
        options.mkl_dispatch);
  }
  return std::unique_ptr<TorchModelRunner>(new TorchModelRunner(std::move(impl)));
}

absl::StatusOr<std::vector<Outcome>> TorchModelRunner::Run(const Batch& batch) {
  Impl& s = *impl_;
  std::vector<Outcome> out(batch.jobs.size());
  if (batch.jobs.empty()) return out;
  const SteadyTime batch_start = s.options.clock->Now();
  std::vector<size_t> overridden;
  std::vector<size_t> configured;
  s.Triage(batch, overridden, configured, out);
  const bool long_lane = batch.bucket_bound > s.manifest.max_tokens;
  if (long_lane && !s.fallback && !configured.empty()) {
    return absl::FailedPreconditionError(
        absl::StrFormat("bucket %d is a long lane (above the model's max_tokens %d): its jobs run alone on the "
                        "fallback device, and none is configured; set model.fallback_device: cpu",
                        batch.bucket_bound, s.manifest.max_tokens));
  }
  for (size_t i : overridden) s.RunOverride(batch, i, batch_start, out);
  if (configured.empty()) return out;
  if (long_lane || s.unfit.count(batch.bucket_bound) > 0) {
    const std::string why =
        long_lane ? absl::StrFormat("bucket %d is a long lane (above max_tokens %d)", batch.bucket_bound,
                                    s.manifest.max_tokens)
                  : absl::StrFormat("bucket %d does not fit the memory budget even for one job", batch.bucket_bound);
    for (size_t i : configured) s.ladder.RunAlone(batch, i, batch_start, why, out);
    return out;
  }
  // An aoti package takes at most max_batch rows; the plan never forms a
  // larger batch, but a cap from elsewhere (tokens_per_batch) might.
  const size_t piece = s.manifest.max_batch > 0 ? size_t(s.manifest.max_batch) : configured.size();
  // A two-tower model's bucket may hold texts and images: each kind runs as
  // its own batch (its own tower), through the same ladder.
  std::vector<size_t> images, tokens;
  for (size_t i : configured) (batch.jobs[i].is_image() ? images : tokens).push_back(i);
  OomLadder::Findings found;
  for (const std::vector<size_t>* kind : {&tokens, &images}) {
    if (kind->empty()) continue;
    const OomLadder::Findings f = s.ladder.Run(batch, *kind, std::min(piece, kind->size()), batch_start, out);
    found.had_oom = found.had_oom || f.had_oom;
    found.largest_ok = std::max(found.largest_ok, f.largest_ok);
  }
  if (found.had_oom) {
    const int failed = int(configured.size());
    const int new_cap = RefitCap(batch.bucket_bound, failed, int(std::max<size_t>(1, found.largest_ok)));
    if (new_cap < failed) {
      s.stats.cap_lowerings++;
      Logger("executor")
          .Warn("event=cap_lowered bucket=%d from_batch=%d new_cap=%d", batch.bucket_bound, failed, new_cap);
      if (s.cap_listener != nullptr) s.cap_listener->OnCapLowered(batch.bucket_bound, new_cap, failed);
    }
  }
  return out;
}

int TorchModelRunner::RefitCap(int bound, int failed, int succeeded) {
  const int64_t budget = impl_->memory->budget_bytes();
  if (budget <= 0) return succeeded;  // nothing to measure against
  const int64_t limit = int64_t(double(budget) * (1.0 - impl_->options.cap_margin));
  const SteadyTime start = impl_->options.clock->Now();
  // Nothing above an aoti package's max_batch is measured (it would not run).
  const int max_batch = impl_->manifest.max_batch;
  const int hi = max_batch > 0 ? std::min(failed, max_batch + 1) : failed;
  absl::StatusOr<int> largest = LargestFittingBatch(*this, bound, 0, hi, limit);
  if (!largest.ok()) {
    Logger("executor")
        .Warn("event=cap_refit_failed bucket=%d error=\"%s\" (keeping %d)", bound, largest.status().message(),
              succeeded);
    return succeeded;
  }
  Logger("executor")
      .Info("event=cap_refit bucket=%d failed_batch=%d succeeded_piece=%d fits=%d seconds=%.2f", bound, failed,
            succeeded, *largest, SecondsBetween(start, impl_->options.clock->Now()));
  return std::max(1, *largest);
}

absl::StatusOr<std::vector<std::vector<float>>> TorchModelRunner::Forward(const std::vector<std::vector<int64_t>>& rows,
                                                                          int padded_length) {
  std::vector<TokenRow> ptrs;
  for (const auto& r : rows) ptrs.push_back({&r});
  return ForwardUnladdered(ptrs, padded_length);
}

absl::StatusOr<std::vector<std::vector<float>>> TorchModelRunner::ForwardUnladdered(const std::vector<TokenRow>& rows,
                                                                                    int padded_length) {
  // Calibration and tests call this (Run does not): what the pass cast is
  // dropped after it, so the peak MeasurePeak reads includes the casts and
  // the calling thread holds no second copy of the weights afterwards. Run
  // keeps its casts across batches.
  struct Drop {
    ModelBackend& backend;
    ~Drop() { backend.DropCaches(); }
  } drop{*impl_->primary.backend};
  try {
    return impl_->ForwardRows(impl_->primary, rows, padded_length);
  } catch (const std::exception& e) {
    if (IsOutOfMemory(e)) {
      impl_->memory->ReleaseCache();
      return absl::ResourceExhaustedError(FirstLine(e));
    }
    return absl::InternalError(FirstLine(e));
  }
}

absl::StatusOr<std::vector<std::vector<float>>> TorchModelRunner::ForwardImages(
    const std::vector<std::vector<float>>& pixels) {
  if (!impl_->manifest.image) return absl::FailedPreconditionError("this model takes no images");
  std::vector<TokenRow> rows;
  for (const auto& p : pixels) {
    if (p.size() != size_t(3) * impl_->manifest.image->height * impl_->manifest.image->width) {
      return absl::InvalidArgumentError("pixel values of " + std::to_string(p.size()) + " floats, expected 3 x " +
                                        std::to_string(impl_->manifest.image->height) + " x " +
                                        std::to_string(impl_->manifest.image->width));
    }
    rows.push_back(ImageRow(*impl_->manifest.image, p));
  }
  return ForwardUnladdered(rows, 0);
}

absl::StatusOr<int64_t> TorchModelRunner::MeasurePeak(int batch, int length) {
  const ModelManifest& m = impl_->manifest;
  // A bucket that holds image jobs (it reaches image.length) is as large as
  // the larger of its image batch and its text batch.
  int64_t image_peak = 0;
  if (m.image && length >= m.image->length) {
    std::vector<std::vector<float>> pixels;
    for (int b = 0; b < batch; ++b) pixels.push_back(SyntheticPixels(*impl_->manifest.image, b));
    impl_->memory->ReleaseCache();
    impl_->memory->ResetPeak();
    auto out = ForwardImages(pixels);
    if (!out.ok()) return out.status();
    image_peak = impl_->memory->peak_bytes();
  }
  length = std::min(length, m.max_text_tokens);
  if (length <= 0) return image_peak;
  // Synthetic ids spread over the vocabulary; every position is real (the
  // worst case for a bucket of this bound).
  std::vector<std::vector<int64_t>> rows(size_t(batch), std::vector<int64_t>(size_t(length), 0));
  for (int b = 0; b < batch; ++b) {
    for (int t = 0; t < length; ++t) rows[b][t] = (int64_t(b) * 7919 + t * 104729) % impl_->manifest.vocab_size;
  }
  impl_->memory->ReleaseCache();
  impl_->memory->ResetPeak();
  auto out = Forward(rows);
  if (!out.ok()) return out.status();
  return std::max(image_peak, impl_->memory->peak_bytes());
}

void TorchModelRunner::SetCapListener(CapListener* listener) { impl_->cap_listener = listener; }
void TorchModelRunner::SetUnfitBuckets(std::set<int> bounds) { impl_->unfit = std::move(bounds); }
const ModelManifest& TorchModelRunner::manifest() const { return impl_->manifest; }
const std::string& TorchModelRunner::device() const { return impl_->options.device; }
const std::string& TorchModelRunner::dtype() const { return impl_->dtype; }
int64_t TorchModelRunner::budget_bytes() { return impl_->memory->budget_bytes(); }
int TorchModelRunner::max_batch() const { return impl_->manifest.max_batch; }
const std::string& TorchModelRunner::primary_digest() const {
  return impl_->primary_file.aoti ? impl_->primary_file.digest : impl_->manifest.digest;
}
DeviceMemory& TorchModelRunner::memory() { return *impl_->memory; }
bool TorchModelRunner::has_fallback() const { return impl_->fallback.has_value(); }
const RunnerStats& TorchModelRunner::stats() const { return impl_->stats; }

}  // namespace qinfer::executor
