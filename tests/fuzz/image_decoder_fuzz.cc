// libFuzzer target over the image decoder (qinfer/image/decode.h: ReadHeader,
// Decode with and without downscale_to_bound) and the codec libraries under
// it. Built and run by tests/fuzz/run.sh (target image_decoder) from the
// decode sources alone: no torch. Seeds: tests/fuzz/image_corpus/ (made by
// tests/fuzz/make_image_corpus.py).
//
// The input is the file's bytes, untouched (so the seeds stay real images).
// Small bounds keep every decode cheap: 1 MiB of bytes, 2^20 pixels; an
// input of odd length is decoded with downscale_to_bound.
//
// Invariants (a violation calls __builtin_trap(), which libFuzzer reports
// as a crash and saves as an artifact):
//   - every failure is ResourceExhausted, Unimplemented or DataLoss, with a
//     message, and its label is one of the three;
//   - a decoded image has positive sides, width * height * 3 bytes, and at
//     most the bound of pixels;
//   - ReadHeader agrees with Decode: it fails when Decode reports the bytes
//     are no image, and a decoded image without downscale has the header's
//     pixel count (the orientation may swap the sides).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "qinfer/image/decode.h"

namespace {

using qinfer::image::Decode;
using qinfer::image::ImageLimits;
using qinfer::image::ReadHeader;

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "image_decoder_fuzz: invariant violated: %s\n", what);
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ImageLimits limits;
  limits.max_pixels = int64_t{1} << 20;
  limits.max_bytes = size_t{1} << 20;
  const bool downscale = size % 2 == 1;
  auto header = ReadHeader(bytes);
  auto image = Decode(bytes, limits, downscale);
  if (!image.ok()) {
    const absl::StatusCode code = image.status().code();
    Check(code == absl::StatusCode::kResourceExhausted || code == absl::StatusCode::kUnimplemented ||
              code == absl::StatusCode::kDataLoss,
          "a failure outside the three classes");
    Check(!image.status().message().empty(), "a failure without a message");
    const std::string_view label = qinfer::image::DecodeFailureLabel(image.status());
    Check(label == "too_large" || label == "unsupported_format" || label == "corrupt", "an unknown label");
    return 0;
  }
  Check(image->width > 0 && image->height > 0, "a decoded side of 0");
  Check(image->rgb.size() == static_cast<size_t>(image->width * image->height * 3), "a buffer not w*h*3");
  Check(image->width * image->height <= limits.max_pixels, "a decoded image over the bound");
  Check(header.ok(), "Decode succeeded where ReadHeader failed");
  if (!downscale) {
    Check(header->width * header->height == image->width * image->height, "Decode's size differs from the header's");
  }
  return 0;
}
