// Decode and ReadHeader: the format from the magic bytes, the bounds from
// the header, then the format's codec, the EXIF orientation and (replay's
// resize policy) the shrink to the bound.
#include "qinfer/image/decode.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codecs.h"

namespace qinfer::image {
namespace {

using internal::Decoded;
using internal::DecodeBudget;

// An output pixel's input pixels and their weights (summing to 1).
using Taps = std::vector<std::pair<int64_t, float>>;

// Area averaging from `in` pixels to `out` (< in): output o covers
// [o*in/out, (o+1)*in/out) of the input, partly covered pixels weighted by
// the part covered.
std::vector<Taps> AreaTaps(int64_t in, int64_t out) {
  std::vector<Taps> taps(static_cast<size_t>(out));
  const double step = static_cast<double>(in) / static_cast<double>(out);
  for (int64_t o = 0; o < out; ++o) {
    const double lo = o * step, hi = std::min<double>(in, (o + 1) * step);
    for (auto i = static_cast<int64_t>(lo); i < in && i < hi; ++i) {
      const double cover = std::min<double>(hi, i + 1) - std::max<double>(lo, i);
      if (cover > 1e-9) taps[static_cast<size_t>(o)].push_back({i, static_cast<float>(cover / step)});
    }
  }
  return taps;
}

constexpr std::string_view kExpected = "(JPEG, PNG, WebP, GIF, BMP or TIFF expected)";

bool StartsWith(std::string_view bytes, std::string_view magic) { return bytes.substr(0, magic.size()) == magic; }

std::optional<Format> Sniff(std::string_view b) {
  if (StartsWith(b, "\xFF\xD8\xFF")) return Format::kJpeg;
  if (StartsWith(b, "\x89PNG\r\n\x1A\n")) return Format::kPng;
  if (StartsWith(b, "GIF87a") || StartsWith(b, "GIF89a")) return Format::kGif;
  if (b.size() >= 12 && StartsWith(b, "RIFF") && b.substr(8, 4) == "WEBP") return Format::kWebp;
  if (StartsWith(b, "BM")) return Format::kBmp;
  if (StartsWith(b, std::string_view("II*\0", 4)) || StartsWith(b, std::string_view("MM\0*", 4)) ||
      StartsWith(b, std::string_view("II+\0", 4)) || StartsWith(b, std::string_view("MM\0+", 4))) {
    return Format::kTiff;
  }
  return std::nullopt;
}

// Formats Pillow (or a browser) knows that this decoder does not.
std::string_view KnownOther(std::string_view b) {
  if (StartsWith(b, "%PDF")) return "PDF";
  if (StartsWith(b, std::string_view("\0\0\1\0", 4))) return "ICO";
  if (StartsWith(b, std::string_view("\0\0\2\0", 4))) return "CUR";
  if (b.size() >= 12 && b.substr(4, 4) == "ftyp") {
    const std::string_view brand = b.substr(8, 4);
    if (brand == "avif" || brand == "avis") return "AVIF";
    if (brand == "heic" || brand == "heix" || brand == "mif1" || brand == "msf1" || brand == "hevc") return "HEIF";
    return "an ISO media file (MP4/MOV/HEIF family)";
  }
  if (StartsWith(b, "8BPS")) return "PSD";
  if (StartsWith(b, std::string_view("\0\0\0\x0CjP  ", 8)) || StartsWith(b, "\xFF\x4F\xFF\x51")) return "JPEG 2000";
  if (StartsWith(b, "\xFF\x0A") || StartsWith(b, std::string_view("\0\0\0\x0CJXL ", 8))) return "JPEG XL";
  if (StartsWith(b, "qoif")) return "QOI";
  if (StartsWith(b, "<svg") || StartsWith(b, "<?xml")) return "SVG/XML";
  if (StartsWith(b, "P1") || StartsWith(b, "P2") || StartsWith(b, "P3") || StartsWith(b, "P4") ||
      StartsWith(b, "P5") || StartsWith(b, "P6")) {
    return "PNM";
  }
  return {};
}

absl::Status NotAnImage(std::string_view bytes) {
  if (bytes.empty()) return absl::UnimplementedError(absl::StrCat("not an image: no bytes ", internal::Sv(kExpected)));
  if (std::string_view other = KnownOther(bytes); !other.empty()) {
    return absl::UnimplementedError(
        absl::StrCat("unsupported image format: ", internal::Sv(other), " ", internal::Sv(kExpected)));
  }
  std::string hex, text;
  for (size_t i = 0; i < std::min<size_t>(bytes.size(), 8); ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    absl::StrAppend(&hex, i ? " " : "", absl::Hex(c, absl::kZeroPad2));
    text.push_back(std::isprint(c) ? static_cast<char>(c) : '.');
  }
  return absl::UnimplementedError(
      absl::StrCat("not an image: the bytes start with ", hex, " (\"", text, "\") ", internal::Sv(kExpected)));
}

absl::StatusOr<Decoded> RunCodec(Format format, std::string_view bytes, const DecodeBudget& budget) {
  switch (format) {
    case Format::kJpeg: return internal::DecodeJpeg(bytes, budget);
    case Format::kPng: return internal::DecodePng(bytes, budget);
    case Format::kWebp: return internal::DecodeWebp(bytes, budget);
    case Format::kGif: return internal::DecodeGif(bytes, budget);
    case Format::kBmp: return internal::DecodeBmp(bytes, budget);
    case Format::kTiff: return internal::DecodeTiff(bytes, budget);
  }
  return absl::InternalError("unknown format");
}

}  // namespace

namespace internal {

absl::Status TooManyPixels(int64_t width, int64_t height, int64_t bound) {
  return absl::ResourceExhaustedError(absl::StrFormat(
      "image is %dx%d = %d pixels, over limits.max_image_pixels %d", width, height, width * height, bound));
}

void ShrinkToPixels(int64_t max_pixels, int64_t* width, int64_t* height, std::vector<uint8_t>* rgb) {
  const int64_t w = *width, h = *height;
  if (w * h <= max_pixels || max_pixels <= 0) return;
  const double scale = std::sqrt(static_cast<double>(max_pixels) / static_cast<double>(w * h));
  int64_t ow = std::max<int64_t>(1, static_cast<int64_t>(w * scale));
  int64_t oh = std::max<int64_t>(1, static_cast<int64_t>(h * scale));
  while (ow * oh > max_pixels) (ow >= oh ? ow : oh) -= 1;
  const std::vector<Taps> tx = AreaTaps(w, ow), ty = AreaTaps(h, oh);
  // Rows stream through: each input row is averaged horizontally once and
  // added to the (at most two) output rows it covers; an output row is
  // written out after its last input row. Memory: the output and two rows.
  std::vector<float> row(static_cast<size_t>(ow * 3)), current(row.size()), next(row.size());
  std::vector<uint8_t> out(static_cast<size_t>(ow * oh * 3));
  int64_t cur = 0;
  for (int64_t y = 0; y < h && cur < oh; ++y) {
    const uint8_t* src = rgb->data() + y * w * 3;
    std::fill(row.begin(), row.end(), 0.0f);
    for (int64_t x = 0; x < ow; ++x) {
      for (const auto& [i, wt] : tx[static_cast<size_t>(x)]) {
        for (int c = 0; c < 3; ++c) row[static_cast<size_t>(x * 3 + c)] += wt * src[i * 3 + c];
      }
    }
    for (int64_t o = cur; o <= std::min(cur + 1, oh - 1); ++o) {
      for (const auto& [i, wt] : ty[static_cast<size_t>(o)]) {
        if (i != y) continue;
        std::vector<float>& acc = o == cur ? current : next;
        for (size_t k = 0; k < row.size(); ++k) acc[k] += wt * row[k];
      }
    }
    while (cur < oh && ty[static_cast<size_t>(cur)].back().first <= y) {
      uint8_t* dst = out.data() + cur * ow * 3;
      for (size_t k = 0; k < current.size(); ++k) {
        dst[k] = static_cast<uint8_t>(std::clamp(std::lround(current[k]), 0L, 255L));
      }
      current.swap(next);
      std::fill(next.begin(), next.end(), 0.0f);
      ++cur;
    }
  }
  *rgb = std::move(out);
  *width = ow;
  *height = oh;
}

}  // namespace internal

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kJpeg: return "JPEG";
    case Format::kPng: return "PNG";
    case Format::kWebp: return "WebP";
    case Format::kGif: return "GIF";
    case Format::kBmp: return "BMP";
    case Format::kTiff: return "TIFF";
  }
  return "unknown";
}

absl::StatusOr<ImageInfo> ReadHeader(std::string_view bytes) {
  const std::optional<Format> format = Sniff(bytes);
  if (!format) return NotAnImage(bytes);
  switch (*format) {
    case Format::kJpeg: return internal::JpegHeader(bytes);
    case Format::kPng: return internal::PngHeader(bytes);
    case Format::kWebp: return internal::WebpHeader(bytes);
    case Format::kGif: return internal::GifHeader(bytes);
    case Format::kBmp: return internal::BmpHeader(bytes);
    case Format::kTiff: return internal::TiffHeader(bytes);
  }
  return absl::InternalError("unknown format");
}

absl::StatusOr<RgbImage> Decode(std::string_view bytes, const ImageLimits& limits, bool downscale_to_bound) {
  if (bytes.size() > limits.max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("image is ", bytes.size(), " bytes, over limits.max_image_bytes ", limits.max_bytes));
  }
  absl::StatusOr<ImageInfo> info = ReadHeader(bytes);
  if (!info.ok()) return info.status();
  if (info->width <= 0 || info->height <= 0) {
    return absl::DataLossError(absl::StrCat("corrupt ", internal::Sv(FormatName(info->format)),
                                            ": the header says ", info->width, "x", info->height));
  }
  const int64_t pixels = info->width * info->height;
  DecodeBudget budget{limits.max_pixels, false};
  if (pixels > limits.max_pixels) {
    if (!downscale_to_bound) return internal::TooManyPixels(info->width, info->height, limits.max_pixels);
    // JPEG decodes scaled to fit; the others may decode up to 4x the bound
    // before the shrink, and no further.
    budget = info->format == Format::kJpeg ? DecodeBudget{limits.max_pixels, true}
                                           : DecodeBudget{4 * limits.max_pixels, false};
  }
  absl::StatusOr<Decoded> decoded = RunCodec(info->format, bytes, budget);
  if (!decoded.ok()) return decoded.status();
  RgbImage out{decoded->width, decoded->height, std::move(decoded->rgb)};
  internal::ApplyOrientation(internal::ExifOrientation(*decoded), &out.width, &out.height, &out.rgb);
  if (downscale_to_bound) internal::ShrinkToPixels(limits.max_pixels, &out.width, &out.height, &out.rgb);
  return out;
}

std::string_view DecodeFailureLabel(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kResourceExhausted: return "too_large";
    case absl::StatusCode::kUnimplemented: return "unsupported_format";
    default: return "corrupt";
  }
}

}  // namespace qinfer::image
