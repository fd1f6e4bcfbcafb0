#include "qinfer/executor/torch_model_runner.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

#include "absl/strings/str_format.h"
#include "device_memory_impl.h"
#include "model_backend.h"
#include "qinfer/executor/calibrator.h"
#include "qinfer/executor/model_digest.h"
#include "qinfer/core/logging.h"

namespace qinfer::executor {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

// The TorchScript interpreter re-throws an error raised inside forward() as
// another exception type whose message carries the original text, so an OOM
// is recognised by type where it survives and by message where it does not
// (pytorch/pytorch#148642).
bool IsOutOfMemory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr) return true;
  std::string_view what = e.what();
  return what.find("out of memory") != std::string_view::npos ||
         what.find("OutOfMemoryError") != std::string_view::npos;
}

// One line that says what went wrong. TorchScript wraps the original error
// as "The following operation failed in the TorchScript interpreter." plus a
// traceback, and puts the original message ("RuntimeError: ...") last.
std::string FirstLine(const std::exception& e) {
  std::string_view what = e.what();
  std::string_view first = what.substr(0, what.find('\n'));
  if (first.find("TorchScript interpreter") == std::string_view::npos) return std::string(first);
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.remove_suffix(1);
  const size_t last_break = what.rfind('\n');
  return std::string(last_break == std::string_view::npos ? what : what.substr(last_break + 1));
}

// Where `row` first holds NaN or Inf, if anywhere.
std::optional<size_t> FirstNonFinite(const std::vector<float>& row) {
  for (size_t i = 0; i < row.size(); ++i) {
    if (!std::isfinite(row[i])) return i;
  }
  return std::nullopt;
}

// Loads the libraries that register custom ops; the model's code names those
// ops, so they must exist before torch::jit::load. The handles are never
// closed: unloading would unregister ops that loaded models still call.
absl::Status LoadOpLibraries(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      const char* why = dlerror();
      return absl::InvalidArgumentError("cannot load op library " + path + ": " +
                                        (why != nullptr ? why : "unknown dlopen error"));
    }
    Logger("executor").Info("event=op_library_loaded path=%s", path);
  }
  return absl::OkStatus();
}

// One row of a batch: its ids and, for a pair, their token types (null:
// every token of segment 0). Views: the row outlives the forward pass.
struct TokenRow {
  const std::vector<int64_t>* ids = nullptr;
  const std::vector<int64_t>* type_ids = nullptr;
  static TokenRow Of(const Job& job) { return {&job.input_ids, job.type_ids.empty() ? nullptr : &job.type_ids}; }
};

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

// The file a LoadedModel runs: the TorchScript model.path, or the aoti
// package chosen for a device kind and precision.
struct ModelFile {
  std::string path;
  std::string digest;  // the manifest's digest for it; checked on load (aoti)
  bool aoti = false;
};

std::string DtypeName(std::optional<at::ScalarType> precision) {
  if (!precision) return "float32";
  return *precision == at::kBFloat16 ? "bfloat16" : "float16";
}

// An aoti export runs one package per device kind and precision: the
// primary's (kind of `torch_device`, `precision`: model.autocast) and the
// plain CPU one (cpu/float32) of the fallback and the device overrides.
absl::StatusOr<ModelFile> FileFor(const ModelManifest& m, const RunnerOptions& options,
                                  const std::string& torch_device, std::optional<at::ScalarType> precision) {
  if (m.format != "aoti") return ModelFile{options.model_path, "", false};
  const std::string kind = torch_device.rfind("cuda", 0) == 0 ? "cuda" : "cpu";
  const std::string key = kind + "/" + DtypeName(precision);
  if (auto it = m.packages.find(key); it != m.packages.end()) return ModelFile{it->second.path, it->second.digest, true};
  std::string have;
  for (const auto& [k, p] : m.packages) have += (have.empty() ? "" : ", ") + k;
  return absl::FailedPreconditionError(
      "model.path " + options.model_path + " is an aoti export with the packages [" + have + "]; device " +
      options.device + (options.autocast.empty() ? "" : " with model.autocast " + options.autocast) +
      " needs the package " + key + " (an AOTInductor package's device and precision are fixed when it is " +
      "compiled): export it with model/export_model.py --format aoti --devices " + kind + " --dtypes " +
      DtypeName(precision) + (kind == "cuda" ? " on a machine with CUDA" : "") +
      " (model/export_minilm.py for MiniLM), or run on a device and precision the export has");
}

// An AOTInductor package turns an exception inside its forward into an error
// code, so the OOM that caused it may not be named in what arrives here; the
// device's count of refused allocations says it was one.
[[noreturn]] void ThrowOutOfMemory(const std::exception& e, uint64_t refused) {
  TORCH_CHECK_WITH(OutOfMemoryError, false, "out of memory in the model's forward (", refused,
                   " allocation(s) refused): ", FirstLine(e));
  std::abort();  // not reached: TORCH_CHECK_WITH(.., false, ..) throws
}

}  // namespace

struct TorchModelRunner::Impl {
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
  // Per Run: the ladder's findings for the current batch.
  bool batch_had_oom = false;
  size_t largest_primary_ok = 0;

  // Throws c10::Error (or what the interpreter wraps it in) on failure.
  // `ran_length` (optional) receives the padded length that really ran.
  std::vector<std::vector<float>> ForwardRows(LoadedModel& model, const std::vector<TokenRow>& rows,
                                              int64_t padded_length, int64_t* ran_length = nullptr) {
    const int64_t batch = int64_t(rows.size());
    int64_t length = padded_length;
    for (const TokenRow& row : rows) length = std::max<int64_t>(length, int64_t(row.ids->size()));
    if (ran_length != nullptr) *ran_length = length;

    ChargeScope charge(model.charged);
    torch::InferenceMode guard;
    // Collate on the CPU, then one copy to the device. A model that takes
    // token types gets them for every row (0 where a row has none).
    BatchTensors in;
    in.ids = torch::zeros({batch, length}, torch::kInt64);
    in.mask = torch::zeros({batch, length}, torch::kInt64);
    if (manifest.task.type_ids) in.type_ids = torch::zeros({batch, length}, torch::kInt64);
    int64_t* ids_data = in.ids.data_ptr<int64_t>();
    int64_t* mask_data = in.mask.data_ptr<int64_t>();
    int64_t* types_data = in.type_ids.defined() ? in.type_ids.data_ptr<int64_t>() : nullptr;
    for (int64_t b = 0; b < batch; ++b) {
      const std::vector<int64_t>& row = *rows[b].ids;
      std::copy(row.begin(), row.end(), ids_data + b * length);
      std::fill_n(mask_data + b * length, row.size(), int64_t{1});
      const std::vector<int64_t>* types = rows[b].type_ids;
      if (types_data != nullptr && types != nullptr && types->size() == row.size()) {
        std::copy(types->begin(), types->end(), types_data + b * length);
      }
    }
    if (model.device != torch::kCPU) {
      in.ids = in.ids.to(model.device);
      in.mask = in.mask.to(model.device);
      if (in.type_ids.defined()) in.type_ids = in.type_ids.to(model.device);
    }
    torch::Tensor out;
    const uint64_t refused = memory->refused_allocations();
    try {
      out = model.backend->Forward(in);
    } catch (const std::exception& e) {
      const uint64_t now = memory->refused_allocations();
      if (now > refused && !IsOutOfMemory(e)) ThrowOutOfMemory(e, now - refused);
      throw;
    }
    out = out.to(torch::kCPU, torch::kFloat32).contiguous();
    const float* data = out.data_ptr<float>();
    std::vector<std::vector<float>> result(batch);
    if (manifest.task.task == task::kTokens) {
      // [B, L, C]: each row keeps its own tokens' logits, not its padding's.
      if (out.dim() != 3 || out.size(0) != batch || out.size(1) != length) {
        throw std::runtime_error("model returned a " + std::to_string(out.dim()) +
                                 "-d tensor, expected [B, L, C] (task tokens)");
      }
      const int64_t labels = out.size(2);
      for (int64_t b = 0; b < batch; ++b) {
        const float* row = data + b * length * labels;
        result[b].assign(row, row + int64_t(rows[b].ids->size()) * labels);
      }
      return result;
    }
    if (out.dim() != 2 || out.size(0) != batch) {
      throw std::runtime_error("model returned a " + std::to_string(out.dim()) + "-d tensor, expected [B, D]");
    }
    const int64_t dim = out.size(1);
    for (int64_t b = 0; b < batch; ++b) result[b].assign(data + b * dim, data + (b + 1) * dim);
    return result;
  }

  // Every path that turns an output row into a result goes through here, so
  // this is where a non-finite row becomes its job's failure instead.
  void FillResult(const Batch& batch, size_t i, std::vector<float> output, const LoadedModel& model, size_t ran_with,
                  int64_t padded, Clock::time_point batch_start, double run_seconds, Outcome& o) {
    const Job& job = batch.jobs[i];
    if (const std::optional<size_t> bad = FirstNonFinite(output)) {
      const std::string error =
          absl::StrFormat("model output has a non-finite value (NaN/Inf) at position %d of %d", *bad, output.size());
      stats.model_errors++;
      Logger("executor")
          .Warn("event=job_failed job=%s reason=model_error length=%d device=%s error=\"%s\"", job.id, job.length(),
                model.name, error);
      o = FailureFor(job, reason::kModelError, error);
      return;
    }
    o = OutcomeFor(job);
    o.ok = true;
    o.output = std::move(output);
    o.device = model.name;
    o.bucket = batch.bucket_bound;
    o.batch_size = int(ran_with);
    o.padded_length = int(padded);
    o.model_name = manifest.name;
    o.model_digest = manifest.digest;
    o.queue_seconds = job.enqueued_at == SteadyTime{} ? 0.0 : SecondsSince(job.enqueued_at, batch_start);
    o.run_seconds = run_seconds;
    o.completed_at_ms = WallMillis();
  }

  // Ladder step 3/4 for one job that cannot run on the primary device.
  void RunAlone(const Batch& batch, size_t i, Clock::time_point batch_start, const std::string& primary_error,
                std::vector<Outcome>& out) {
    const Job& job = batch.jobs[i];
    std::string error = primary_error;
    const char* failure = reason::kOom;
    if (fallback) {
      const auto start = Clock::now();
      try {
        auto outputs = ForwardRows(*fallback, {TokenRow::Of(job)}, 0);
        stats.fallback_runs++;
        Logger("executor")
            .Info("event=fallback_run job=%s bucket=%d length=%d device=%s", job.id, batch.bucket_bound, job.length(),
                  fallback->name);
        FillResult(batch, i, std::move(outputs[0]), *fallback, 1, int64_t(job.length()), batch_start,
                   SecondsSince(start, Clock::now()), out[i]);
        return;
      } catch (const std::exception& e) {
        error = "primary: " + primary_error + "; fallback " + fallback->device.str() + ": " + FirstLine(e);
        // More memory would not help a job the model itself fails on.
        if (!IsOutOfMemory(e)) failure = reason::kModelError;
      }
    }
    (failure == reason::kOom ? stats.oom_failures : stats.model_errors)++;
    Logger("executor")
        .Warn("event=job_failed job=%s reason=%s bucket=%d length=%d error=\"%s\"", job.id, failure, batch.bucket_bound,
              job.length(), error);
    out[i] = FailureFor(job, failure, error);
  }

  // Runs the jobs of `batch` numbered jobs[begin, end) as one batch on the
  // primary device; on failure splits and retries each half (ladder step 1).
  void RunSpan(const Batch& batch, const std::vector<size_t>& jobs, size_t begin, size_t end,
               Clock::time_point batch_start, std::vector<Outcome>& out) {
    std::vector<TokenRow> rows;
    for (size_t k = begin; k < end; ++k) rows.push_back(TokenRow::Of(batch.jobs[jobs[k]]));
    const auto start = Clock::now();
    std::string error;
    bool oom = false;
    try {
      // Padded to the longest job of the span, not to the bucket bound.
      int64_t padded = 0;
      std::vector<std::vector<float>> outputs = ForwardRows(primary, rows, 0, &padded);
      const double run_seconds = SecondsSince(start, Clock::now());
      for (size_t k = begin; k < end; ++k) {
        FillResult(batch, jobs[k], std::move(outputs[k - begin]), primary, end - begin, padded, batch_start,
                   run_seconds, out[jobs[k]]);
      }
      largest_primary_ok = std::max(largest_primary_ok, end - begin);
      return;
    } catch (const std::exception& e) {
      oom = IsOutOfMemory(e);
      error = FirstLine(e);
    }
    if (oom) {
      stats.oom_events++;
      batch_had_oom = true;
      memory->ReleaseCache();
    }
    if (end - begin > 1) {
      stats.splits++;
      const size_t mid = begin + (end - begin) / 2;
      Logger("executor")
          .Debug("event=split bucket=%d batch=%d oom=%s error=\"%s\"", batch.bucket_bound, end - begin,
                 oom ? "true" : "false", error);
      RunSpan(batch, jobs, begin, mid, batch_start, out);
      RunSpan(batch, jobs, mid, end, batch_start, out);
      return;
    }
    if (oom) {
      RunAlone(batch, jobs[begin], batch_start, error, out);
      return;
    }
    const Job& job = batch.jobs[jobs[begin]];
    stats.model_errors++;
    Logger("executor")
        .Warn("event=job_failed job=%s reason=model_error length=%d error=\"%s\"", job.id, job.length(), error);
    out[jobs[begin]] = FailureFor(job, reason::kModelError, error);
  }

  // The plain float32 CPU model that `device: cpu` overrides run on: the
  // fallback when it is the CPU, else the primary when it is, else a copy of
  // the model loaded on first use.
  absl::StatusOr<LoadedModel*> CpuModel() {
    auto plain_cpu = [](const LoadedModel& m) { return m.device.is_cpu() && !m.charged && !m.autocast.has_value(); };
    if (fallback && plain_cpu(*fallback)) return &*fallback;
    if (plain_cpu(primary)) return &primary;
    if (!cpu_copy) {
      const auto start = Clock::now();
      absl::StatusOr<LoadedModel> loaded = LoadModel(cpu_file, "cpu", "cpu", /*charged=*/false, std::nullopt);
      if (!loaded.ok()) return loaded.status();
      cpu_copy = *std::move(loaded);
      Logger("executor")
          .Info(
              "event=model_loaded name=%s digest=%s device=cpu purpose=device_override "
              "load_seconds=%.2f",
              manifest.name, manifest.digest, SecondsSince(start, Clock::now()));
    }
    return &*cpu_copy;
  }

  // A job's `device: cpu` override: the job runs alone on the CPU model,
  // outside the ladder; a failure there is the job's failure record.
  void RunOverride(const Batch& batch, size_t i, Clock::time_point batch_start, std::vector<Outcome>& out) {
    const Job& job = batch.jobs[i];
    std::string error;
    const char* failure = reason::kModelError;
    if (absl::StatusOr<LoadedModel*> model = CpuModel(); !model.ok()) {
      error = "device override cpu: " + std::string(model.status().message());
    } else {
      const auto start = Clock::now();
      try {
        auto outputs = ForwardRows(**model, {TokenRow::Of(job)}, 0);
        stats.override_runs++;
        Logger("executor")
            .Info("event=device_override_run job=%s bucket=%d length=%d device=cpu", job.id, batch.bucket_bound,
                  job.length());
        FillResult(batch, i, std::move(outputs[0]), **model, 1, int64_t(job.length()), batch_start,
                   SecondsSince(start, Clock::now()), out[i]);
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
    if (file.aoti) {
      absl::StatusOr<std::string> digest = FileDigest(file.path);
      if (!digest.ok()) return digest.status();
      if (*digest != file.digest) {
        return absl::FailedPreconditionError("aoti package " + file.path + " has digest " + *digest +
                                             ", but the manifest " + options.manifest_path + " says " + file.digest +
                                             ": the package was replaced without its manifest; export the model "
                                             "again (--format aoti)");
      }
    }
    ChargeScope charge(charged);
    absl::StatusOr<std::unique_ptr<ModelBackend>> backend =
        file.aoti ? LoadAotiBackend(file.path, m.device) : LoadTorchScriptBackend(file.path, m.device, autocast);
    if (!backend.ok()) return backend.status();
    m.backend = *std::move(backend);
    // Warm-up: the first forward passes pay for graph optimisation.
    try {
      const std::vector<int64_t> row(8, 1);
      ForwardRows(m, {{&row}, {&row}}, 0);
      ForwardRows(m, {{&row}}, 0);
      // The loading thread keeps no cast weights: the executor thread makes
      // its own on its first batch.
      m.backend->DropCaches();
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError("model " + file.path + " failed its warm-up forward(input_ids, attention_mask" +
                                        (manifest.task.type_ids ? ", token_type_ids" : "") + ") on " + device_text +
                                        ": " + FirstLine(e));
    }
    return m;
  }
};

TorchModelRunner::TorchModelRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TorchModelRunner::~TorchModelRunner() = default;

int CudaDeviceCount() { return int(torch::cuda::device_count()); }

std::string TorchVersion() { return QINFER_TORCH_VERSION; }

TorchThreads CurrentTorchThreads() { return {int(at::get_num_threads()), int(at::get_num_interop_threads())}; }

bool ReleaseIntraOpWorkersOfThisThread() {
  // libtorch's OpenMP runtime (the wheel's libgomp), found at run time: this
  // module is not built with -fopenmp. omp_pause_soft is 1.
  using PauseAll = int (*)(int);
  static const auto pause = reinterpret_cast<PauseAll>(dlsym(RTLD_DEFAULT, "omp_pause_resource_all"));
  return pause != nullptr && pause(1) == 0;
}

absl::StatusOr<std::unique_ptr<TorchModelRunner>> TorchModelRunner::Load(RunnerOptions options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(options.model_path, ec)) {
    return absl::NotFoundError("model.path " + options.model_path +
                               ": no such file (a TorchScript model.pt, or the cpu/float32 package of an aoti "
                               "export; model/export_model.py writes either)");
  }
  if (options.manifest_path.empty()) {
    options.manifest_path = (fs::path(options.model_path).parent_path() / "manifest.json").string();
  }
  absl::StatusOr<ModelManifest> manifest = ModelManifest::Load(options.manifest_path);
  if (!manifest.ok()) return manifest.status();
  // The digest every result carries and the memory plan is keyed by is the
  // file's own: a model file replaced under an old manifest is refused, not
  // run under the old file's name.
  absl::StatusOr<std::string> digest = FileDigest(options.model_path);
  if (!digest.ok()) return digest.status();
  if (!manifest->digest.empty() && manifest->digest != *digest) {
    return absl::FailedPreconditionError(
        "model.path " + options.model_path + " has digest " + *digest + ", but its manifest " + options.manifest_path +
        " says " + manifest->digest +
        ": the model file was replaced without its manifest; export the model again with its manifest "
        "(model/export_model.py, or model/check_model.py for a model of your own) or set model.manifest "
        "to this file's manifest");
  }
  manifest->digest = *digest;
  absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(options.device);
  if (!spec.ok()) return spec.status();

  std::optional<at::ScalarType> autocast;
  if (options.autocast == "bf16")
    autocast = at::kBFloat16;
  else if (options.autocast == "fp16")
    autocast = at::kHalf;
  else if (!options.autocast.empty()) {
    return absl::InvalidArgumentError("model.autocast '" + options.autocast + "': expected bf16, fp16 or empty");
  }

  if (manifest->format == "aoti" && manifest->torch_version != TorchVersion()) {
    return absl::FailedPreconditionError("model manifest " + options.manifest_path +
                                         ": the aoti export was made by torch '" + manifest->torch_version +
                                         "', but this qinfer runs libtorch " + TorchVersion() +
                                         ": an AOTInductor package runs only on the torch that compiled it; "
                                         "export it again with this torch (the project's .venv)");
  }
  // Chosen before any device is touched: a missing package is refused the
  // same on a machine without the device.
  absl::StatusOr<ModelFile> primary_file = FileFor(*manifest, options, spec->torch_device, autocast);
  if (!primary_file.ok()) return primary_file.status();
  absl::StatusOr<ModelFile> cpu_file = FileFor(*manifest, options, "cpu", std::nullopt);
  if (!cpu_file.ok()) return cpu_file.status();

  if (absl::Status loaded = LoadOpLibraries(options.op_libraries); !loaded.ok()) return loaded;

  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->manifest = *std::move(manifest);
  impl->primary_file = *std::move(primary_file);
  impl->cpu_file = *std::move(cpu_file);
  if (autocast) impl->dtype = *autocast == at::kBFloat16 ? "bfloat16" : "float16";
  if (options.intra_op_threads > 0) at::set_num_threads(options.intra_op_threads);

  InstallCpuAllocator(options.cpu_block_cache_bytes);
  if (spec->budgeted_cpu) {
    impl->memory = InstallBudgetedCpuMemory(spec->budget_bytes);
  } else if (spec->torch_device.rfind("cuda", 0) == 0 && torch::cuda::is_available()) {
    const int index = torch::Device(spec->torch_device).has_index() ? torch::Device(spec->torch_device).index() : 0;
    auto cuda = CreateCudaMemory(index, options.cuda_memory_fraction, options.cuda_budget_bytes);
    if (!cuda.ok()) return cuda.status();
    impl->memory = *std::move(cuda);
  } else {
    impl->memory = CreateUntrackedMemory();
  }

  const auto start = Clock::now();
  auto primary = impl->LoadModel(impl->primary_file, options.device, spec->torch_device, spec->budgeted_cpu, autocast);
  if (!primary.ok()) return primary.status();
  impl->primary = *std::move(primary);
  if (!options.fallback_device.empty()) {
    if (options.fallback_device != "cpu") {
      return absl::InvalidArgumentError("model.fallback_device '" + options.fallback_device +
                                        "': only cpu (or empty for none) is supported");
    }
    // The fallback is a separate instance, never charged to the budget, and
    // runs in float32.
    auto fallback = impl->LoadModel(impl->cpu_file, "cpu", "cpu", /*charged=*/false, std::nullopt);
    if (!fallback.ok()) return fallback.status();
    impl->fallback = *std::move(fallback);
  }
  Logger("executor")
      .Info(
          "event=model_loaded name=%s digest=%s device=%s dtype=%s fallback=%s budget_bytes=%d "
          "allocated_bytes=%d load_seconds=%.2f",
          impl->manifest.name, impl->manifest.digest, options.device, impl->dtype,
          options.fallback_device.empty() ? "none" : options.fallback_device, impl->memory->budget_bytes(),
          impl->memory->allocated_bytes(), SecondsSince(start, Clock::now()));
  return std::unique_ptr<TorchModelRunner>(new TorchModelRunner(std::move(impl)));
}

absl::StatusOr<std::vector<Outcome>> TorchModelRunner::Run(const Batch& batch) {
  Impl& s = *impl_;
  std::vector<Outcome> out(batch.jobs.size());
  if (batch.jobs.empty()) return out;
  const auto batch_start = Clock::now();
  // Split before anything runs: jobs refused here, jobs with a device
  // override, and the jobs that run as configured (`configured`).
  std::vector<size_t> overridden;
  std::vector<size_t> configured;
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    const Job& job = batch.jobs[i];
    std::string error;
    const char* failure = reason::kInvalid;
    if (!job.device.empty() && job.device != "cpu") {
      error = "unknown device override '" + job.device + "': expected cpu";
    } else if (job.length() > size_t(s.manifest.max_positions)) {
      error = absl::StrFormat("input length %d exceeds the model's max_positions %d", job.length(),
                              s.manifest.max_positions);
      failure = reason::kTooLong;
    } else {
      (job.device.empty() ? configured : overridden).push_back(i);
      continue;
    }
    Logger("executor")
        .Warn("event=job_failed job=%s reason=%s length=%d error=\"%s\"", job.id, failure, job.length(), error);
    out[i] = FailureFor(job, failure, error);
  }
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
    for (size_t i : configured) s.RunAlone(batch, i, batch_start, why, out);
    return out;
  }
  s.batch_had_oom = false;
  s.largest_primary_ok = 0;
  // An aoti package takes at most max_batch rows; the plan never forms a
  // larger batch, but a cap from elsewhere (tokens_per_batch) might.
  const size_t piece = s.manifest.max_batch > 0 ? size_t(s.manifest.max_batch) : configured.size();
  for (size_t begin = 0; begin < configured.size(); begin += piece) {
    s.RunSpan(batch, configured, begin, std::min(configured.size(), begin + piece), batch_start, out);
  }
  if (s.batch_had_oom) {
    const int failed = int(configured.size());
    const int new_cap = RefitCap(batch.bucket_bound, failed, int(std::max<size_t>(1, s.largest_primary_ok)));
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
  const auto start = Clock::now();
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
            succeeded, *largest, SecondsSince(start, Clock::now()));
  return std::max(1, *largest);
}

absl::StatusOr<std::vector<std::vector<float>>> TorchModelRunner::Forward(const std::vector<std::vector<int64_t>>& rows,
                                                                          int padded_length) {
  std::vector<TokenRow> ptrs;
  for (const auto& r : rows) ptrs.push_back({&r});
  // Calibration and tests call this (Run does not): what the pass cast is
  // dropped after it, so the peak MeasurePeak reads includes the casts and
  // the calling thread holds no second copy of the weights afterwards. Run
  // keeps its casts across batches.
  struct Drop {
    ModelBackend& backend;
    ~Drop() { backend.DropCaches(); }
  } drop{*impl_->primary.backend};
  try {
    return impl_->ForwardRows(impl_->primary, ptrs, padded_length);
  } catch (const std::exception& e) {
    if (IsOutOfMemory(e)) {
      impl_->memory->ReleaseCache();
      return absl::ResourceExhaustedError(FirstLine(e));
    }
    return absl::InternalError(FirstLine(e));
  }
}

absl::StatusOr<int64_t> TorchModelRunner::MeasurePeak(int batch, int length) {
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
  return impl_->memory->peak_bytes();
}

void TorchModelRunner::SetCapListener(CapListener* listener) { impl_->cap_listener = listener; }
void TorchModelRunner::SetUnfitBuckets(std::set<int> bounds) { impl_->unfit = std::move(bounds); }
const ModelManifest& TorchModelRunner::manifest() const { return impl_->manifest; }
const std::string& TorchModelRunner::device() const { return impl_->options.device; }
const std::string& TorchModelRunner::dtype() const { return impl_->dtype; }
const std::string& TorchModelRunner::primary_digest() const {
  return impl_->primary_file.aoti ? impl_->primary_file.digest : impl_->manifest.digest;
}
DeviceMemory& TorchModelRunner::memory() { return *impl_->memory; }
bool TorchModelRunner::has_fallback() const { return impl_->fallback.has_value(); }
const RunnerStats& TorchModelRunner::stats() const { return impl_->stats; }

}  // namespace qinfer::executor
