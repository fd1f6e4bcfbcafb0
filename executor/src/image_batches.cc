#include "image_batches.h"

namespace qinfer::executor {

std::vector<std::vector<float>> ScoreLabels(ModelBackend& backend, torch::Device device,
                                            const ModelManifest& manifest, const std::vector<TokenRow>& rows,
                                            const torch::Tensor& image_out) {
  std::vector<std::vector<float>> result = DecodeOutput(image_out, rows, 0, manifest.task.task);
  std::vector<TokenRow> hypotheses;
  for (const TokenRow& row : rows) {
    if (row.label_ids == nullptr) continue;
    for (const std::vector<int64_t>& ids : *row.label_ids) hypotheses.push_back({&ids});
  }
  if (hypotheses.empty()) return result;
  const ModelManifest::ZeroShot& z = *manifest.zero_shot;
  int64_t length = 0;
  BatchTensors text = Collate(hypotheses, z.text_padding == "max_length" ? z.text_max_length : 0, false, &length);
  MoveTo(text, device);
  const torch::Tensor text_out = backend.Forward(text).to(torch::kFloat32);
  const torch::Tensor images = image_out.to(torch::kFloat32);
  const torch::Tensor text_unit = text_out / text_out.norm(2, -1, true);
  int64_t next = 0;
  for (size_t b = 0; b < rows.size(); ++b) {
    if (rows[b].label_ids == nullptr) continue;
    const int64_t count = int64_t(rows[b].label_ids->size());
    const torch::Tensor image = images[int64_t(b)];
    const torch::Tensor image_unit = image / image.norm(2, -1, true);
    const torch::Tensor logits =
        (torch::matmul(text_unit.narrow(0, next, count), image_unit) * z.logit_scale + z.logit_bias)
            .to(torch::kCPU)
            .contiguous();
    result[b].assign(logits.data_ptr<float>(), logits.data_ptr<float>() + count);
    next += count;
  }
  return result;
}

std::vector<float> SyntheticPixels(const ModelManifest::Image& image, int seed) {
  std::vector<float> pixels(size_t(3) * image.height * image.width);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = float(int64_t(i * 7 + size_t(seed) * 31) % 255) / 127.5f - 1;
  return pixels;
}

TokenRow ImageRow(const ModelManifest::Image& image, const std::vector<float>& pixels) {
  TokenRow row;
  row.pixels = &pixels;
  row.height = image.height;
  row.width = image.width;
  return row;
}

}  // namespace qinfer::executor
