#include <ATen/autocast_mode.h>
#include <torch/csrc/jit/passes/autocast.h>
#include <torch/script.h>

#include "model_backend.h"

namespace qinfer::executor {
namespace {

class TorchScriptBackend final : public ModelBackend {
 public:
  TorchScriptBackend(torch::jit::Module module, torch::Device device, std::optional<at::ScalarType> autocast,
                     std::string image_method)
      : module_(std::move(module)), type_(device.type()), autocast_(autocast), image_method_(std::move(image_method)) {}

  // The cast cache is thread-local and holds bf16/fp16 copies of this
  // model's weights; they go with the model.
  ~TorchScriptBackend() override { DropCaches(); }

  void DropCaches() override {
    if (autocast_) at::autocast::clear_cache();
  }

  torch::Tensor Forward(const BatchTensors& batch) override {
    std::vector<torch::jit::IValue> inputs;
    if (batch.pixels.defined()) {
      inputs.emplace_back(batch.pixels);
    } else {
      inputs = {batch.ids, batch.mask};
      if (batch.type_ids.defined()) inputs.emplace_back(batch.type_ids);
    }
    const bool image = batch.pixels.defined();
    auto call = [&] {
      return (image ? module_.get_method(image_method_)(std::move(inputs)) : module_.forward(std::move(inputs)))
          .toTensor();
    };
    if (!autocast_) return call();
    const bool previous = at::autocast::is_autocast_enabled(type_);
    at::autocast::set_autocast_enabled(type_, true);
    at::autocast::set_autocast_dtype(type_, *autocast_);
    // Restored on the way out, an exception included; the cache is not
    // cleared here, so the weights are cast once for all batches.
    struct Restore {
      at::DeviceType type;
      bool previous;
      ~Restore() { at::autocast::set_autocast_enabled(type, previous); }
    } restore{type_, previous};
    return call();
  }

 private:
  torch::jit::Module module_;
  at::DeviceType type_;
  std::optional<at::ScalarType> autocast_;
  std::string image_method_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ModelBackend>> LoadTorchScriptBackend(const std::string& path, torch::Device device,
                                                                     std::optional<at::ScalarType> autocast,
                                                                     const std::string& image_method) {
  if (autocast) {
    // TorchScript's own autocast pass (on by default) rewrites the graph
    // with explicit casts of every weight, run again in every forward and
    // never cached. With it off, the ops go through eager autocast, which
    // casts each weight once into its cache. A process-wide libtorch
    // switch; it only matters while autocast is enabled, i.e. inside
    // Forward below.
    torch::jit::setAutocastMode(false);
  }
  try {
    torch::jit::Module module = torch::jit::load(path, device);
    module.eval();
    if (!image_method.empty() && !module.find_method(image_method)) {
      return absl::InvalidArgumentError("TorchScript model " + path + " has no method " + image_method +
                                        " (the manifest's image.method, which image jobs run)");
    }
    return std::unique_ptr<ModelBackend>(
        std::make_unique<TorchScriptBackend>(std::move(module), device, autocast, image_method));
  } catch (const std::exception& e) {
    std::string_view what = e.what();
    return absl::InvalidArgumentError("cannot load TorchScript model " + path + " on " + device.str() + ": " +
                                      std::string(what.substr(0, what.find('\n'))));
  }
}

}  // namespace qinfer::executor
