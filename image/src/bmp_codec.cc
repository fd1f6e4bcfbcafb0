// BMP through stb_image (Debian's libstb-dev; its BMP reader only): none of
// the other libraries reads BMP, and stb_image's converts as Pillow's
// convert("RGB") does for the common kinds (24-bit BGR, 32-bit BGRX/BGRA
// with the alpha dropped, 1/4/8-bit palettes, 16-bit 5-5-5). RLE-compressed
// BMPs, which stb_image does not read, are refused as unsupported.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_BMP
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS (1 << 24)
#include <stb/stb_image.h>

#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "codecs.h"

namespace qinfer::image::internal {
namespace {

// The header's compression field (offset 30 in a BITMAPINFOHEADER or
// later; OS/2's 12-byte header has none).
uint32_t Compression(std::string_view bytes) {
  if (bytes.size() < 34) return 0;
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint32_t header = p[14] | p[15] << 8 | p[16] << 16 | uint32_t{p[17]} << 24;
  if (header < 40) return 0;
  return p[30] | p[31] << 8 | p[32] << 16 | uint32_t{p[33]} << 24;
}

absl::Status Unsupported(std::string_view bytes) {
  const uint32_t compression = Compression(bytes);
  if (compression == 1 || compression == 2) {
    return absl::UnimplementedError(
        absl::StrCat("RLE-compressed BMP (compression ", compression, ") is not supported"));
  }
  return absl::OkStatus();
}

absl::Status BmpFailure() {
  const char* reason = stbi_failure_reason();
  return absl::DataLossError(absl::StrCat("corrupt BMP: ", reason != nullptr ? reason : "unreadable"));
}

struct StbFree {
  void operator()(unsigned char* p) const { stbi_image_free(p); }
};

}  // namespace

absl::StatusOr<ImageInfo> BmpHeader(std::string_view bytes) {
  if (bytes.size() > size_t{INT32_MAX}) return absl::ResourceExhaustedError("BMP over 2 GiB");
  if (absl::Status s = Unsupported(bytes); !s.ok()) return s;
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), static_cast<int>(bytes.size()), &w, &h,
                             &channels)) {
    return BmpFailure();
  }
  return ImageInfo{Format::kBmp, w, h};
}

absl::StatusOr<Decoded> DecodeBmp(std::string_view bytes, const DecodeBudget& budget) {
  absl::StatusOr<ImageInfo> info = BmpHeader(bytes);
  if (!info.ok()) return info.status();
  if (info->width * info->height > budget.max_pixels) {
    return TooManyPixels(info->width, info->height, budget.max_pixels);
  }
  int w = 0, h = 0, channels = 0;
  std::unique_ptr<unsigned char, StbFree> pixels(stbi_load_from_memory(
      reinterpret_cast<const stbi_uc*>(bytes.data()), static_cast<int>(bytes.size()), &w, &h, &channels, 3));
  if (pixels == nullptr) return BmpFailure();
  Decoded out;
  out.width = w;
  out.height = h;
  out.rgb.assign(pixels.get(), pixels.get() + size_t{3} * w * h);
  return out;
}

}  // namespace qinfer::image::internal
