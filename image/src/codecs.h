// The codecs behind Decode and ReadHeader, one per format, each over its
// library. Internal to the image module.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "qinfer/image/decode.h"

namespace qinfer::image::internal {

// Debian's absl has a string_view of its own: std's, for absl::StrCat.
inline absl::string_view Sv(std::string_view s) { return {s.data(), s.size()}; }

// A codec's output: RGB8 rows as Pillow's convert("RGB") gives them, before
// the EXIF orientation, and the metadata that orientation is read from.
struct Decoded {
  int64_t width = 0, height = 0;
  std::vector<uint8_t> rgb;
  // The EXIF block (a TIFF structure, "Exif\0\0" prefixes allowed) and the
  // XMP packet, as Pillow keeps them in info["exif"] and info["xmp"] (PNG:
  // its eXIf chunk or "Raw profile type exif" text, and its
  // "XML:com.adobe.xmp" text).
  std::string exif, xmp;
  // The orientation the format itself carries (TIFF's tag 274); 0: none.
  int orientation = 0;
};

// What a decode may allocate: the most pixels of the image a codec decodes
// (after any scaling it does itself). Codecs that can decode scaled (JPEG)
// pick the smallest reduction that fits; the others refuse over it.
struct DecodeBudget {
  int64_t max_pixels = 0;
  bool scale_to_fit = false;  // may decode at a reduced scale to fit
};

absl::StatusOr<ImageInfo> JpegHeader(std::string_view bytes);
absl::StatusOr<Decoded> DecodeJpeg(std::string_view bytes, const DecodeBudget& budget);

absl::StatusOr<ImageInfo> PngHeader(std::string_view bytes);
absl::StatusOr<Decoded> DecodePng(std::string_view bytes, const DecodeBudget& budget);

absl::StatusOr<ImageInfo> WebpHeader(std::string_view bytes);
absl::StatusOr<Decoded> DecodeWebp(std::string_view bytes, const DecodeBudget& budget);

absl::StatusOr<ImageInfo> GifHeader(std::string_view bytes);
absl::StatusOr<Decoded> DecodeGif(std::string_view bytes, const DecodeBudget& budget);

absl::StatusOr<ImageInfo> BmpHeader(std::string_view bytes);
absl::StatusOr<Decoded> DecodeBmp(std::string_view bytes, const DecodeBudget& budget);

absl::StatusOr<ImageInfo> TiffHeader(std::string_view bytes);
absl::StatusOr<Decoded> DecodeTiff(std::string_view bytes, const DecodeBudget& budget);

// The EXIF orientation (1-8) as Pillow's getexif() finds it: tag 274 of
// the EXIF block's IFD0, else XMP's tiff:Orientation; 1 when neither (or a
// value Pillow would not act on).
int ExifOrientation(const Decoded& decoded);

// Applies orientation 2-8 as Pillow's exif_transpose does (2 mirror, 3 180,
// 4 flip, 5 transpose, 6 rotate 270 ccw, 7 transverse, 8 rotate 90 ccw).
void ApplyOrientation(int orientation, int64_t* width, int64_t* height, std::vector<uint8_t>* rgb);

// Shrinks to at most max_pixels, aspect ratio kept, by an area average
// (antialiased). No-op when already within.
void ShrinkToPixels(int64_t max_pixels, int64_t* width, int64_t* height, std::vector<uint8_t>* rgb);

// Pillow's cmyk2rgb (Convert.c): what convert("RGB") makes of a CMYK pixel.
inline void CmykToRgb(const uint8_t* cmyk, uint8_t* rgb) {
  const int nk = 255 - cmyk[3];
  for (int i = 0; i < 3; ++i) {
    const int t = cmyk[i] * nk + 128;  // MULDIV255
    const int v = nk - (((t >> 8) + t) >> 8);
    rgb[i] = static_cast<uint8_t>(v < 0 ? 0 : v);
  }
}

// "too large" and the other shared messages.
absl::Status TooManyPixels(int64_t width, int64_t height, int64_t bound);

}  // namespace qinfer::image::internal
