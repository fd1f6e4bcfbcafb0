// An encoded image file's bytes to RGB pixels, as transformers'
// `load_image` gives them: Pillow's `ImageOps.exif_transpose(img)` then
// `img.convert("RGB")` (Pillow 13), decoded by the formats' own libraries
// (libjpeg-turbo, libpng, libwebp, giflib, libtiff, stb_image for BMP;
// libexif for the EXIF orientation). No torch here: the fuzz target links
// this part alone.
//
// Bounds come first: Decode reads the header (magic bytes and dimensions)
// and checks the encoded bytes and the pixel count against ImageLimits
// before any pixel buffer exists, so a decompression bomb is refused for
// the price of its header.
//
// Thread safety: every function here is safe to call from several threads
// at once (each call owns its decoder; library error handlers are per call).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace qinfer::image {

struct ImageLimits {
  // Most pixels (width * height, as stored) an image may have. Default:
  // Pillow's Image.MAX_IMAGE_PIXELS (over it Pillow warns; over twice it
  // raises DecompressionBombError).
  int64_t max_pixels = 178956970;
  // Most encoded bytes. Default: 20 MiB.
  size_t max_bytes = size_t{20} << 20;
};

enum class Format { kJpeg, kPng, kWebp, kGif, kBmp, kTiff };

// "JPEG", "PNG", "WebP", "GIF", "BMP", "TIFF".
std::string_view FormatName(Format format);

// What the header says. Width and height as stored, before the EXIF
// orientation (a rotated photo's stored width is its displayed height).
struct ImageInfo {
  Format format = Format::kJpeg;
  int64_t width = 0, height = 0;
  friend bool operator==(const ImageInfo&, const ImageInfo&) = default;
};

// Reads only the header (magic bytes and dimensions); never allocates the
// pixel buffer. For a GIF the size is the logical screen grown to its first
// frame, as Pillow sizes it; for an animated WebP, the canvas.
// Errors: Unimplemented (not an image, or a format not listed in Format),
// DataLoss (the header is truncated or corrupt).
absl::StatusOr<ImageInfo> ReadHeader(std::string_view bytes);

// Decoded pixels: `height` rows of `width` RGB triples (HWC, 8 bits a
// channel), the EXIF orientation applied.
struct RgbImage {
  int64_t width = 0, height = 0;
  std::vector<uint8_t> rgb;
  friend bool operator==(const RgbImage&, const RgbImage&) = default;
};

// Decodes `bytes` to RGB. Checks bytes and pixels against `limits` before
// decoding (the header first).
//
// `downscale_to_bound` (replay's policy `resize`): an image over
// limits.max_pixels is decoded and shrunk, aspect ratio kept and
// antialiased (an area average), to at most max_pixels instead of being
// refused. Its decoder never holds more than the bound allows: a JPEG is
// decoded at 1/2 to 1/8 scale by libjpeg where that brings it near the
// bound; a format that cannot decode scaled is refused when its full decode
// would exceed 4 * max_pixels. Images within the bound are decoded as
// without the flag. Over max_bytes is refused either way.
//
// Errors (each class a failure reason, DecodeFailureLabel):
//   ResourceExhausted  too large: bytes over max_bytes, pixels over
//                      max_pixels (the message names the size and the bound)
//   Unimplemented      not an image, or a format or variant not supported
//                      (named: e.g. "12-bit JPEG", "RLE-compressed BMP")
//   DataLoss           truncated or corrupt (the library's message)
absl::StatusOr<RgbImage> Decode(std::string_view bytes, const ImageLimits& limits, bool downscale_to_bound = false);

// A decode failure's metric label, one of a small fixed set: "too_large"
// (ResourceExhausted), "unsupported_format" (Unimplemented), "corrupt"
// (DataLoss and any other code).
std::string_view DecodeFailureLabel(const absl::Status& status);

}  // namespace qinfer::image
