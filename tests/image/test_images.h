// Images made in the tests with the codec libraries' own encoders (libpng,
// libjpeg), and EXIF blocks made by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qinfer::image::testing {

// A PNG of `rows` (height rows of width * channels samples of `depth` bits,
// packed, big-endian for 16): color_type as libpng's PNG_COLOR_TYPE_*.
// `exif`: an eXIf chunk's contents (a TIFF structure) when not empty.
std::string EncodePng(int width, int height, int color_type, int depth, const std::vector<uint8_t>& rows,
                      const std::string& exif = "");

// An RGB (components 3) or grey (1) JPEG at quality 90; `app1`: an APP1
// marker's contents (e.g. "Exif\0\0" + TIFF) when not empty; `progressive`.
std::string EncodeJpeg(int width, int height, int components, const std::vector<uint8_t>& pixels,
                       const std::string& app1 = "", bool progressive = false);

// "Exif\0\0" and a little-endian TIFF structure whose IFD0 holds one
// entry: Orientation (274) = `orientation`, a SHORT.
std::string ExifWithOrientation(int orientation);

// A PNG's signature and IHDR claiming width x height 8-bit RGB, then one
// small IDAT and IEND: only the header is true to its claim.
std::string PngHeaderClaiming(uint32_t width, uint32_t height);

// A valid 1-bit grey PNG of width x height, all zero: a decompression bomb
// of a few tens of KiB for a large claim.
std::string PngBomb(int width, int height);

// A GIF whose logical screen is width x height with one 1x1 frame.
std::string GifWithScreen(uint16_t width, uint16_t height);

// Gradient RGB pixels, distinct enough to tell orientations apart.
std::vector<uint8_t> Gradient(int width, int height);

}  // namespace qinfer::image::testing
