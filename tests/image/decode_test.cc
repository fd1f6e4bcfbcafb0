// Decode's bounds, failures and orientation, on images made here (the
// parity with Pillow, format by format, is tests/python/test_image_prep.py).
#include "qinfer/image/decode.h"

#include <gtest/gtest.h>
#include <png.h>
#include <sys/resource.h>

#include <chrono>
#include <map>

#include "test_images.h"

namespace qinfer::image {
namespace {

using testing::EncodeJpeg;
using testing::EncodePng;
using testing::ExifWithOrientation;
using testing::Gradient;

int64_t PeakRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(DecodeTest, RefusesAPngClaiming30000x30000FromItsHeaderWithoutAllocatingIt) {
  const std::string png = testing::PngHeaderClaiming(30000, 30000);
  const int64_t rss_before = PeakRssKib();
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<RgbImage> image = Decode(png, ImageLimits{});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(image.status().code(), absl::StatusCode::kResourceExhausted) << image.status();
  EXPECT_EQ(Message(image.status()),
            "image is 30000x30000 = 900000000 pixels, over limits.max_image_pixels 178956970");
  EXPECT_EQ(DecodeFailureLabel(image.status()), "too_large");
  EXPECT_LT(elapsed, std::chrono::milliseconds(50));
  // The pixels would be 2.7 GB; the peak grows by far less than 1% of it.
  EXPECT_LT(PeakRssKib() - rss_before, 16 * 1024);
}

TEST(DecodeTest, RefusesARealDecompressionBombByItsHeader) {
  const std::string bomb = testing::PngBomb(20000, 20000);  // 400 megapixels, all zero
  ASSERT_LT(bomb.size(), 200u * 1024);
  const int64_t rss_before = PeakRssKib();
  absl::StatusOr<ImageInfo> info = ReadHeader(bomb);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(*info, (ImageInfo{Format::kPng, 20000, 20000}));
  absl::StatusOr<RgbImage> image = Decode(bomb, ImageLimits{});
  EXPECT_EQ(image.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_LT(PeakRssKib() - rss_before, 16 * 1024);
}

TEST(DecodeTest, RefusesAGifWhoseScreenIsOverTheBound) {
  const std::string gif = testing::GifWithScreen(65535, 65535);
  absl::StatusOr<ImageInfo> info = ReadHeader(gif);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(*info, (ImageInfo{Format::kGif, 65535, 65535}));
  EXPECT_EQ(Decode(gif, ImageLimits{}).status().code(), absl::StatusCode::kResourceExhausted);
  // Within the bound the same file decodes: its 1x1 frame on a black screen.
  absl::StatusOr<RgbImage> small = Decode(testing::GifWithScreen(3, 2), ImageLimits{});
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->width, 3);
  EXPECT_EQ(small->height, 2);
}

TEST(DecodeTest, RefusesBytesOverMaxBytesBeforeReadingThem) {
  ImageLimits limits;
  limits.max_bytes = 100;
  absl::StatusOr<RgbImage> image = Decode(std::string(101, 'x'), limits);
  ASSERT_EQ(image.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(Message(image.status()), "image is 101 bytes, over limits.max_image_bytes 100");
}

TEST(DecodeTest, NamesWhatTheBytesAreWhenTheyAreNoImage) {
  const auto code_and_message = [](std::string_view bytes) {
    absl::Status s = Decode(bytes, ImageLimits{}).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
    EXPECT_EQ(DecodeFailureLabel(s), "unsupported_format");
    return Message(s);
  };
  EXPECT_EQ(code_and_message("hello, world"),
            "not an image: the bytes start with 68 65 6c 6c 6f 2c 20 77 (\"hello, w\") "
            "(JPEG, PNG, WebP, GIF, BMP or TIFF expected)");
  EXPECT_EQ(code_and_message(""), "not an image: no bytes (JPEG, PNG, WebP, GIF, BMP or TIFF expected)");
  EXPECT_EQ(code_and_message("%PDF-1.7\n"),
            "unsupported image format: PDF (JPEG, PNG, WebP, GIF, BMP or TIFF expected)");
  EXPECT_EQ(code_and_message(std::string("\0\0\1\0\1\0\x10\x10", 8)),
            "unsupported image format: ICO (JPEG, PNG, WebP, GIF, BMP or TIFF expected)");
  EXPECT_EQ(code_and_message(std::string("\0\0\0\x1C" "ftypavif", 12)),
            "unsupported image format: AVIF (JPEG, PNG, WebP, GIF, BMP or TIFF expected)");
}

TEST(DecodeTest, TruncatedFilesAreDataLossWithTheLibrarysMessage) {
  const std::vector<uint8_t> px = Gradient(64, 48);
  const std::string jpeg = EncodeJpeg(64, 48, 3, px);
  const std::string png = EncodePng(64, 48, PNG_COLOR_TYPE_RGB, 8, px);
  for (const auto& [name, bytes] : {std::pair{"jpeg", jpeg.substr(0, jpeg.size() / 2)},
                                    std::pair{"progressive", EncodeJpeg(64, 48, 3, px, "", true).substr(0, 400)},
                                    std::pair{"png", png.substr(0, png.size() / 2)}}) {
    absl::Status s = Decode(bytes, ImageLimits{}).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << name << ": " << s;
    EXPECT_EQ(DecodeFailureLabel(s), "corrupt");
    EXPECT_EQ(Message(s).rfind("truncated ", 0), 0u) << name << ": " << s;
  }
  EXPECT_EQ(Message(Decode(jpeg.substr(0, jpeg.size() / 2), ImageLimits{}).status()),
            "truncated JPEG: Premature end of JPEG file");
}

TEST(DecodeTest, CorruptFilesAreDataLoss) {
  const std::vector<uint8_t> px = Gradient(64, 48);
  std::string png = EncodePng(64, 48, PNG_COLOR_TYPE_RGB, 8, px);
  png[png.size() / 2] ^= 0x5A;  // inside IDAT: a CRC or zlib error
  absl::Status s = Decode(png, ImageLimits{}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_EQ(Message(s).rfind("corrupt PNG: ", 0), 0u) << s;
  // A JPEG whose frame header says 0 components.
  std::string jpeg = EncodeJpeg(64, 48, 3, px);
  const size_t sof = jpeg.find("\xFF\xC0");
  ASSERT_NE(sof, std::string::npos);
  jpeg[sof + 9] = 0;
  s = Decode(jpeg, ImageLimits{}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_EQ(Message(s).rfind("corrupt JPEG: ", 0), 0u) << s;
  // Only a signature.
  s = Decode(std::string("\x89PNG\r\n\x1A\n", 8), ImageLimits{}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
}

TEST(DecodeTest, DownscaleToBoundShrinksWithinTheBoundKeepingTheAspectRatio) {
  ImageLimits limits;
  limits.max_pixels = 100000;
  // A JPEG at 12x the bound (decoded at 3/8 scale, then shrunk), a PNG at 3x.
  const std::vector<uint8_t> big = Gradient(1200, 1000), small = Gradient(600, 500);
  for (const std::string& bytes :
       {EncodeJpeg(1200, 1000, 3, big), EncodePng(600, 500, PNG_COLOR_TYPE_RGB, 8, small)}) {
    EXPECT_EQ(Decode(bytes, limits).status().code(), absl::StatusCode::kResourceExhausted);
    absl::StatusOr<RgbImage> image = Decode(bytes, limits, /*downscale_to_bound=*/true);
    ASSERT_TRUE(image.ok()) << image.status();
    EXPECT_LE(image->width * image->height, limits.max_pixels);
    EXPECT_GE(image->width * image->height, limits.max_pixels * 95 / 100);
    EXPECT_NEAR(double(image->width) / double(image->height), 1.2, 0.01);
    EXPECT_EQ(image->rgb.size(), size_t(image->width * image->height * 3));
    // Antialiased: the gradient stays a gradient (the red channel rises along x).
    EXPECT_LT(image->rgb[0], image->rgb[(image->width - 1) * 3]);
  }
}

TEST(DecodeTest, DownscaleToBoundStillRefusesWhatItCannotDecodeWithinFourTimesTheBound) {
  ImageLimits limits;
  limits.max_pixels = 10000;
  const std::vector<uint8_t> px = Gradient(300, 200);  // 6x the bound
  absl::Status s = Decode(EncodePng(300, 200, PNG_COLOR_TYPE_RGB, 8, px), limits, true).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  // A JPEG decodes at 1/8 scale: fine up to 64x the bound.
  absl::StatusOr<RgbImage> jpeg = Decode(EncodeJpeg(300, 200, 3, px), limits, true);
  ASSERT_TRUE(jpeg.ok()) << jpeg.status();
  EXPECT_LE(jpeg->width * jpeg->height, limits.max_pixels);
}

// Pillow's exif_transpose, pixel by pixel, on a 3x2 image.
TEST(DecodeTest, AppliesEveryExifOrientationAsPillowDoes) {
  // Rows of the 3x2 image: a b c / d e f (each pixel one grey level).
  const std::vector<uint8_t> grey = {10, 20, 30, 40, 50, 60};
  const std::map<int, std::pair<int, std::vector<uint8_t>>> expected = {
      {1, {3, {10, 20, 30, 40, 50, 60}}}, {2, {3, {30, 20, 10, 60, 50, 40}}},
      {3, {3, {60, 50, 40, 30, 20, 10}}}, {4, {3, {40, 50, 60, 10, 20, 30}}},
      {5, {2, {10, 40, 20, 50, 30, 60}}}, {6, {2, {40, 10, 50, 20, 60, 30}}},
      {7, {2, {60, 30, 50, 20, 40, 10}}}, {8, {2, {30, 60, 20, 50, 10, 40}}}};
  for (const auto& [orientation, want] : expected) {
    const std::string exif = ExifWithOrientation(orientation).substr(6);  // eXIf holds the TIFF part
    absl::StatusOr<RgbImage> image = Decode(EncodePng(3, 2, PNG_COLOR_TYPE_GRAY, 8, grey, exif), ImageLimits{});
    ASSERT_TRUE(image.ok()) << image.status();
    EXPECT_EQ(image->width, want.first) << orientation;
    std::vector<uint8_t> got;
    for (size_t i = 0; i < image->rgb.size(); i += 3) got.push_back(image->rgb[i]);
    EXPECT_EQ(got, want.second) << "orientation " << orientation;
  }
}

TEST(DecodeTest, ReadsTheOrientationOfAJpegsExifSegment) {
  const std::vector<uint8_t> px = Gradient(40, 20);
  absl::StatusOr<RgbImage> image = Decode(EncodeJpeg(40, 20, 3, px, ExifWithOrientation(6)), ImageLimits{});
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->width, 20);
  EXPECT_EQ(image->height, 40);
  absl::StatusOr<ImageInfo> info = ReadHeader(EncodeJpeg(40, 20, 3, px, ExifWithOrientation(6)));
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(*info, (ImageInfo{Format::kJpeg, 40, 20}));  // as stored
}

TEST(DecodeTest, Grey16PngIsClippedNotShiftedAsPillowConvertsI16) {
  // Big-endian samples 0, 200, 255, 256, 1000, 65535.
  const std::vector<uint8_t> rows = {0, 0, 0, 200, 0, 255, 1, 0, 3, 232, 255, 255};
  absl::StatusOr<RgbImage> image = Decode(EncodePng(6, 1, PNG_COLOR_TYPE_GRAY, 16, rows), ImageLimits{});
  ASSERT_TRUE(image.ok()) << image.status();
  std::vector<uint8_t> got;
  for (size_t i = 0; i < image->rgb.size(); i += 3) got.push_back(image->rgb[i]);
  EXPECT_EQ(got, (std::vector<uint8_t>{0, 200, 255, 255, 255, 255}));
}

TEST(DecodeTest, FailureLabelsAreASmallFixedSet) {
  EXPECT_EQ(DecodeFailureLabel(absl::ResourceExhaustedError("x")), "too_large");
  EXPECT_EQ(DecodeFailureLabel(absl::UnimplementedError("x")), "unsupported_format");
  EXPECT_EQ(DecodeFailureLabel(absl::DataLossError("x")), "corrupt");
  EXPECT_EQ(DecodeFailureLabel(absl::InternalError("x")), "corrupt");
}

}  // namespace
}  // namespace qinfer::image
