#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

#include <dlfcn.h>

#include "model_backend.h"

namespace qinfer::executor {
namespace {

class AotiBackend final : public ModelBackend {
 public:
  AotiBackend(std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader, bool cpu) : loader_(std::move(loader)) {
    // A CUDA package puts its weights on the card itself; whether the
    // caching allocator's figures include them is not checked here (CI has
    // no GPU), so nothing is added for it.
    if (!cpu) return;
    // A CPU package's weights sit in its library's mapped file, which no
    // allocator sees. So that the budgeted CPU device holds them as a GPU
    // would (and as it holds a TorchScript model's), the backend keeps an
    // allocation of their size while it lives (never written, so it costs
    // address space, not resident memory).
    int64_t bytes = 0;
    for (const auto& [name, tensor] : loader_->get_runner()->extract_constants_map(/*use_inactive=*/false)) {
      bytes += int64_t(tensor.nbytes());
    }
    weights_ = at::empty({bytes}, at::kByte);
  }

  torch::Tensor Forward(const BatchTensors& batch) override {
    std::vector<at::Tensor> inputs{batch.ids, batch.mask};
    if (batch.type_ids.defined()) inputs.push_back(batch.type_ids);
    std::vector<at::Tensor> outputs = loader_->run(inputs);
    if (outputs.size() != 1) {
      throw std::runtime_error("AOTInductor package returned " + std::to_string(outputs.size()) +
                               " outputs, expected one tensor ([B, D], or [B, T, L] for tokens)");
    }
    return outputs[0];
  }

 private:
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader_;
  at::Tensor weights_;  // the CPU weights' bytes, for the allocator's figures
};

}  // namespace

absl::StatusOr<std::unique_ptr<ModelBackend>> LoadAotiBackend(const std::string& path, torch::Device device) {
  // A package's model library names libtorch.so, which a build linked with
  // torch_cpu and c10 only has not loaded, and the loader's dlopen of the
  // model does not search this binary's rpath: so it is loaded here, by the
  // rpath, before the first package. The handle is never closed (the models
  // use it while the process lives).
  static void* const libtorch = dlopen("libtorch.so", RTLD_NOW | RTLD_GLOBAL);
  if (libtorch == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError("cannot load AOTInductor package " + path + ": libtorch.so does not load (" +
                                         (why != nullptr ? why : "unknown dlopen error") + ")");
  }
  try {
    // One runner, used by the executor thread only; a CUDA package runs on
    // the configured card.
    const c10::DeviceIndex index = device.is_cuda() ? (device.has_index() ? device.index() : 0) : -1;
    auto loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(path, "model", /*run_single_threaded=*/false,
                                                                           /*num_runners=*/1, index);
    return std::unique_ptr<ModelBackend>(std::make_unique<AotiBackend>(std::move(loader), device.is_cpu()));
  } catch (const std::exception& e) {
    std::string_view what = e.what();
    return absl::InvalidArgumentError("cannot load AOTInductor package " + path + " on " + device.str() + ": " +
                                      std::string(what.substr(0, what.find('\n'))));
  }
}

}  // namespace qinfer::executor
