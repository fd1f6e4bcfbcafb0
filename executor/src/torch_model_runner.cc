#include "qinfer/executor/torch_model_runner.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <chrono>
#include <filesystem>

#include "absl/strings/str_format.h"
#include "executor_log.h"

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

}  // namespace

struct TorchModelRunner::Impl {
  RunnerOptions options;
  ModelManifest manifest;
  torch::jit::Module module;
  torch::Device device{torch::kCPU};
  RunnerStats stats;

  // Throws c10::Error (or what the interpreter wraps it in) on failure.
  std::vector<std::vector<float>> ForwardRows(
      const std::vector<const std::vector<int64_t>*>& rows, int64_t padded_length) {
    const int64_t batch = int64_t(rows.size());
    int64_t length = padded_length;
    for (const auto* row : rows) length = std::max<int64_t>(length, int64_t(row->size()));

    torch::InferenceMode guard;
    // Collate on the CPU, then one copy to the device.
    torch::Tensor ids = torch::zeros({batch, length}, torch::kInt64);
    torch::Tensor mask = torch::zeros({batch, length}, torch::kInt64);
    int64_t* ids_data = ids.data_ptr<int64_t>();
    int64_t* mask_data = mask.data_ptr<int64_t>();
    for (int64_t b = 0; b < batch; ++b) {
      const std::vector<int64_t>& row = *rows[b];
      std::copy(row.begin(), row.end(), ids_data + b * length);
      std::fill_n(mask_data + b * length, row.size(), int64_t{1});
    }
    if (device != torch::kCPU) {
      ids = ids.to(device);
      mask = mask.to(device);
    }
    torch::Tensor out = module.forward({ids, mask}).toTensor();
    out = out.to(torch::kCPU, torch::kFloat32).contiguous();
    stats.forward_passes++;
    if (out.dim() != 2 || out.size(0) != batch) {
      throw std::runtime_error("model returned shape " +
                               std::to_string(out.dim()) + "-d, expected [B, D]");
    }
    const int64_t dim = out.size(1);
    const float* data = out.data_ptr<float>();
    std::vector<std::vector<float>> result(batch);
    for (int64_t b = 0; b < batch; ++b) {
      result[b].assign(data + b * dim, data + (b + 1) * dim);
    }
    return result;
  }

  // Runs jobs [begin, end) of `batch`; on failure splits and retries each
  // half, so that only a job that fails alone gets a failure record.
  void RunSpan(const Batch& batch, size_t begin, size_t end,
               Clock::time_point batch_start, std::vector<Outcome>& out) {
    std::vector<const std::vector<int64_t>*> rows;
    for (size_t i = begin; i < end; ++i) rows.push_back(&batch.jobs[i].input_ids);
    int64_t padded = 0;
    for (const auto* r : rows) padded = std::max<int64_t>(padded, int64_t(r->size()));

    const auto start = Clock::now();
    std::string error;
    bool oom = false;
    try {
      std::vector<std::vector<float>> outputs = ForwardRows(rows, 0);
      const auto finish = Clock::now();
      const int64_t now_ms = WallMillis();
      for (size_t i = begin; i < end; ++i) {
        const Job& job = batch.jobs[i];
        Outcome& o = out[i];
        o.id = job.id;
        o.ok = true;
        o.output = std::move(outputs[i - begin]);
        o.device = device.str();
        o.bucket = batch.bucket_bound;
        o.batch_size = int(end - begin);
        o.padded_length = int(padded);
        o.model_name = manifest.name;
        o.model_digest = manifest.digest;
        o.queue_seconds = job.enqueued_at == SteadyTime{}
                              ? 0.0
                              : SecondsSince(job.enqueued_at, batch_start);
        o.run_seconds = SecondsSince(start, finish);
        o.completed_at_ms = now_ms;
        o.input_length = job.length();
        o.reply_to = job.reply_to;
        o.meta_json = job.meta_json;
        o.attempt = job.attempt;
        o.origin = job.origin;
      }
      for (const auto* r : rows) stats.real_tokens += r->size();
      stats.padded_tokens += size_t(padded) * rows.size();
      return;
    } catch (const std::exception& e) {
      oom = IsOutOfMemory(e);
      error = FirstLine(e);
    }
    if (oom) stats.oom_events++;
    if (end - begin > 1) {
      stats.splits++;
      const size_t mid = begin + (end - begin) / 2;
      log::Debug(absl::StrFormat("event=split bucket=%d batch=%d oom=%v error=\"%s\"",
                                 batch.bucket_bound, end - begin, oom, error));
      RunSpan(batch, begin, mid, batch_start, out);
      RunSpan(batch, mid, end, batch_start, out);
      return;
    }
    const Job& job = batch.jobs[begin];
    if (!oom) stats.model_errors++;
    log::Warn(absl::StrFormat("event=job_failed job=%s reason=%s length=%d error=\"%s\"",
                              job.id, oom ? reason::kOom : reason::kModelError,
                              job.length(), error));
    out[begin] = FailureFor(job, oom ? reason::kOom : reason::kModelError, error);
  }
};

TorchModelRunner::TorchModelRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TorchModelRunner::~TorchModelRunner() = default;

absl::StatusOr<std::unique_ptr<TorchModelRunner>> TorchModelRunner::Load(
    RunnerOptions options) {
  namespace fs = std::filesystem;
  if (options.manifest_path.empty()) {
    options.manifest_path =
        (fs::path(options.model_path).parent_path() / "manifest.json").string();
  }
  absl::StatusOr<ModelManifest> manifest = ModelManifest::Load(options.manifest_path);
  if (!manifest.ok()) return manifest.status();

  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->manifest = *std::move(manifest);
  try {
    impl->device = torch::Device(options.device);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError("device '" + options.device +
                                      "' is not a torch device (cpu, cuda:0): " +
                                      FirstLine(e));
  }
  if (impl->device.is_cuda() && !torch::cuda::is_available()) {
    return absl::FailedPreconditionError(
        "device " + options.device + " requested but no CUDA device is available "
        "(this build or machine has none); use device: cpu");
  }
  if (options.intra_op_threads > 0) at::set_num_threads(options.intra_op_threads);
  const auto start = Clock::now();
  try {
    impl->module = torch::jit::load(options.model_path, impl->device);
    impl->module.eval();
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError("cannot load TorchScript model " +
                                      options.model_path + ": " + FirstLine(e));
  }
  // Warm-up: the first forward pass pays for graph optimisation.
  try {
    std::vector<int64_t> row(8, 1);
    impl->ForwardRows({&row, &row}, 0);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        "model " + options.model_path +
        " failed its warm-up forward(input_ids, attention_mask): " + FirstLine(e));
  }
  impl->stats = RunnerStats{};
  log::Info(absl::StrFormat(
      "event=model_loaded name=%s digest=%s device=%s load_seconds=%.2f",
      impl->manifest.name, impl->manifest.digest, impl->device.str(),
      SecondsSince(start, Clock::now())));
  return std::unique_ptr<TorchModelRunner>(new TorchModelRunner(std::move(impl)));
}

absl::StatusOr<std::vector<Outcome>> TorchModelRunner::Run(const Batch& batch) {
  std::vector<Outcome> out(batch.jobs.size());
  if (batch.jobs.empty()) return out;
  impl_->stats.batches++;
  impl_->RunSpan(batch, 0, batch.jobs.size(), Clock::now(), out);
  return out;
}

absl::StatusOr<std::vector<std::vector<float>>> TorchModelRunner::Forward(
    const std::vector<std::vector<int64_t>>& rows, int padded_length) {
  std::vector<const std::vector<int64_t>*> ptrs;
  for (const auto& r : rows) ptrs.push_back(&r);
  try {
    return impl_->ForwardRows(ptrs, padded_length);
  } catch (const std::exception& e) {
    if (IsOutOfMemory(e)) return absl::ResourceExhaustedError(FirstLine(e));
    return absl::InternalError(FirstLine(e));
  }
}

const ModelManifest& TorchModelRunner::manifest() const { return impl_->manifest; }
const std::string& TorchModelRunner::device() const { return impl_->options.device; }
const RunnerStats& TorchModelRunner::stats() const { return impl_->stats; }

}  // namespace qinfer::executor
