// The backend seam: one loaded model file that runs the model contract
// forward(input_ids int64 [B, L], attention_mask int64 [B, L]
//         [, token_type_ids int64 [B, L]]) -> [B, D]
// (the third input only for a model whose manifest lists it in `inputs`).
// TorchModelRunner holds one backend per device it runs on and keeps
// everything else (collation, the OOM ladder, NaN check, calibration) above
// it, so every model format gets the same runner. Private to executor/.
#pragma once

#include <torch/types.h>

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace qinfer::executor {

// Not thread-safe: the runner's thread calls Forward.
// One collated batch, on the backend's device.
struct BatchTensors {
  torch::Tensor ids;
  torch::Tensor mask;
  torch::Tensor type_ids;  // undefined: the model takes no token_type_ids
  // An image batch: pixel_values float32 [B, 3, H, W], and ids, mask and
  // type_ids undefined.
  torch::Tensor pixels;
};

class ModelBackend {
 public:
  virtual ~ModelBackend() = default;
  // Returns the output tensor as the model gives it (any float dtype, on its
  // device): of the image method for an image batch (batch.pixels), of
  // forward otherwise. Throws what the model throws (c10::Error,
  // std::runtime_error); the caller classifies it.
  virtual torch::Tensor Forward(const BatchTensors& batch) = 0;
  // Drops what forward passes keep between calls on the calling thread (a
  // TorchScript model under autocast: the cast weights). Default: nothing.
  virtual void DropCaches() {}
};

// A TorchScript file (torch::jit::load onto `device`, eval mode). With
// `autocast`, every forward runs under autocast to that dtype on the device's
// type; autocast's cache of cast weights is kept across forwards (the weights
// are cast once, not per batch) until DropCaches or the backend's
// destruction (either clears the calling thread's cache; the cache is
// thread-local, another thread's goes with that thread).
// InvalidArgument, naming the file, when it does not load.
// `image_method`: the method image batches run ("forward" for a
// vision-only model, "encode_image" for a two-tower one; "" for a text-only
// model); load fails when the module has no such method.
absl::StatusOr<std::unique_ptr<ModelBackend>> LoadTorchScriptBackend(const std::string& path, torch::Device device,
                                                                     std::optional<at::ScalarType> autocast,
                                                                     const std::string& image_method = "");

// An AOTInductor package (.pt2, torch._inductor.aoti_compile_and_package)
// compiled for `device`'s kind; its precision was fixed at export, so no
// autocast is applied. InvalidArgument, naming the file, when it does not
// load.
absl::StatusOr<std::unique_ptr<ModelBackend>> LoadAotiBackend(const std::string& path, torch::Device device);

}  // namespace qinfer::executor
