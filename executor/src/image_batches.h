// What an image batch needs beside collation (batch_io.h): the zero-shot
// scoring of a two-tower model's labels, and synthetic images for the
// warm-up and the memory plan's calibration.
#pragma once

#include <torch/types.h>

#include <vector>

#include "batch_io.h"
#include "model_backend.h"
#include "qinfer/executor/model_manifest.h"

namespace qinfer::executor {

// zero_shot: the rows of an image batch (`image_out`, the image method's
// [B, D] features) that carry candidate labels get one logit a label, as
// the zero-shot-image-classification pipeline computes it: logit_scale *
// cos(image features, hypothesis features) + logit_bias, every row's
// hypotheses run through the text tower (forward, on `backend` at `device`)
// as one batch, padded as the manifest's text_padding says; the other rows
// keep their image features. Throws what the model throws.
std::vector<std::vector<float>> ScoreLabels(ModelBackend& backend, torch::Device device,
                                            const ModelManifest& manifest, const std::vector<TokenRow>& rows,
                                            const torch::Tensor& image_out);

// Synthetic pixel values of `image`'s shape (3 x height x width): a ramp in
// the normalised range, varied by `seed`.
std::vector<float> SyntheticPixels(const ModelManifest::Image& image, int seed);

// The row of `pixels` (outliving it) for an image of `image`'s shape.
TokenRow ImageRow(const ModelManifest::Image& image, const std::vector<float>& pixels);

}  // namespace qinfer::executor
