#include "batch_io.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "absl/strings/str_format.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/task.h"

namespace qinfer::executor {
namespace {

// Where `row` first holds NaN or Inf, if anywhere.
std::optional<size_t> FirstNonFinite(const std::vector<float>& row) {
  for (size_t i = 0; i < row.size(); ++i) {
    if (!std::isfinite(row[i])) return i;
  }
  return std::nullopt;
}

}  // namespace

BatchTensors Collate(const std::vector<TokenRow>& rows, int64_t padded_length, bool with_type_ids, int64_t* length) {
  const int64_t batch = int64_t(rows.size());
  if (!rows.empty() && rows[0].is_image()) {
    const int64_t h = rows[0].height, w = rows[0].width;
    BatchTensors in;
    in.pixels = torch::empty({batch, 3, h, w}, torch::kFloat32);
    float* data = in.pixels.data_ptr<float>();
    for (int64_t b = 0; b < batch; ++b) {
      const TokenRow& row = rows[b];
      if (!row.is_image() || row.height != h || row.width != w || int64_t(row.pixels->size()) != 3 * h * w) {
        throw std::runtime_error(absl::StrFormat("image rows of one batch differ in shape: row %d is %dx%d, row 0 "
                                                 "%dx%d (or not an image)",
                                                 b, row.height, row.width, h, w));
      }
      std::copy(row.pixels->begin(), row.pixels->end(), data + b * 3 * h * w);
    }
    *length = 0;  // an image has no padded length (the caller knows its tower's)
    return in;
  }
  int64_t l = padded_length;
  for (const TokenRow& row : rows) l = std::max<int64_t>(l, int64_t(row.ids->size()));
  *length = l;
  BatchTensors in;
  in.ids = torch::zeros({batch, l}, torch::kInt64);
  in.mask = torch::zeros({batch, l}, torch::kInt64);
  if (with_type_ids) in.type_ids = torch::zeros({batch, l}, torch::kInt64);
  int64_t* ids_data = in.ids.data_ptr<int64_t>();
  int64_t* mask_data = in.mask.data_ptr<int64_t>();
  int64_t* types_data = in.type_ids.defined() ? in.type_ids.data_ptr<int64_t>() : nullptr;
  for (int64_t b = 0; b < batch; ++b) {
    const std::vector<int64_t>& row = *rows[b].ids;
    std::copy(row.begin(), row.end(), ids_data + b * l);
    std::fill_n(mask_data + b * l, row.size(), int64_t{1});
    std::fill_n(mask_data + b * l, std::min(row.size(), size_t(std::max(0, rows[b].pool_skip))), int64_t{2});
    const std::vector<int64_t>* types = rows[b].type_ids;
    if (types_data != nullptr && types != nullptr && types->size() == row.size()) {
      std::copy(types->begin(), types->end(), types_data + b * l);
    }
  }
  return in;
}

void MoveTo(BatchTensors& in, torch::Device device) {
  if (device == torch::kCPU) return;
  if (in.pixels.defined()) {
    in.pixels = in.pixels.to(device);
    return;
  }
  in.ids = in.ids.to(device);
  in.mask = in.mask.to(device);
  if (in.type_ids.defined()) in.type_ids = in.type_ids.to(device);
}

std::vector<std::vector<float>> DecodeOutput(const torch::Tensor& model_out, const std::vector<TokenRow>& rows,
                                             int64_t length, const std::string& task) {
  const int64_t batch = int64_t(rows.size());
  const torch::Tensor out = model_out.to(torch::kCPU, torch::kFloat32).contiguous();
  const float* data = out.data_ptr<float>();
  std::vector<std::vector<float>> result(batch);
  if (task == task::kTokens || task == task::kTokenEmbed) {
    if (out.dim() != 3 || out.size(0) != batch || out.size(1) != length) {
      throw std::runtime_error("model returned a " + std::to_string(out.dim()) +
                               "-d tensor, expected [B, L, C] (task " + task + ")");
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

bool IsOutOfMemory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr) return true;
  std::string_view what = e.what();
  return what.find("out of memory") != std::string_view::npos ||
         what.find("OutOfMemoryError") != std::string_view::npos;
}

// TorchScript wraps the original error as "The following operation failed in
// the TorchScript interpreter." plus a traceback, and puts the original
// message ("RuntimeError: ...") last.
std::string FirstLine(const std::exception& e) {
  std::string_view what = e.what();
  std::string_view first = what.substr(0, what.find('\n'));
  if (first.find("TorchScript interpreter") == std::string_view::npos) return std::string(first);
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.remove_suffix(1);
  const size_t last_break = what.rfind('\n');
  return std::string(last_break == std::string_view::npos ? what : what.substr(last_break + 1));
}

void ThrowOutOfMemory(const std::exception& e, uint64_t refused) {
  TORCH_CHECK_WITH(OutOfMemoryError, false, "out of memory in the model's forward (", refused,
                   " allocation(s) refused): ", FirstLine(e));
  std::abort();  // not reached: TORCH_CHECK_WITH(.., false, ..) throws
}

Outcome ResultMaker::Make(const Batch& batch, size_t i, std::vector<float> output, const std::string& device,
                          size_t ran_with, int64_t padded, SteadyTime batch_start, double run_seconds) const {
  const Job& job = batch.jobs[i];
  if (const std::optional<size_t> bad = FirstNonFinite(output)) {
    const std::string error =
        absl::StrFormat("model output has a non-finite value (NaN/Inf) at position %d of %d", *bad, output.size());
    stats_.model_errors++;
    Logger("executor")
        .Warn("event=job_failed job=%s reason=model_error length=%d device=%s error=\"%s\"", job.id, job.length(),
              device, error);
    return FailureFor(job, reason::kModelError, error);
  }
  Outcome o = OutcomeFor(job);
  o.ok = true;
  o.output = std::move(output);
  o.device = device;
  o.bucket = batch.bucket_bound;
  o.batch_size = int(ran_with);
  o.padded_length = int(padded);
  o.model_name = manifest_.name;
  o.model_digest = manifest_.digest;
  o.queue_seconds = job.enqueued_at == SteadyTime{} ? 0.0 : SecondsBetween(job.enqueued_at, batch_start);
  o.run_seconds = run_seconds;
  return o;
}

}  // namespace qinfer::executor
