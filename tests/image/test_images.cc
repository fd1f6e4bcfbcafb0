#include "test_images.h"

#include <algorithm>
#include <csetjmp>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>
#include <png.h>
#include <zlib.h>

namespace qinfer::image::testing {
namespace {

void PngWrite(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), length);
}
void PngFlush(png_structp) {}

void Put32(std::string* out, uint32_t v) {
  for (int shift : {24, 16, 8, 0}) out->push_back(static_cast<char>(v >> shift));
}

void Chunk(std::string* out, const char* type, const std::string& data) {
  Put32(out, static_cast<uint32_t>(data.size()));
  const std::string body = std::string(type, 4) + data;
  out->append(body);
  const auto* bytes = reinterpret_cast<const Bytef*>(body.data());
  Put32(out, static_cast<uint32_t>(crc32(0, bytes, static_cast<uInt>(body.size()))));
}

}  // namespace

std::string EncodePng(int width, int height, int color_type, int depth, const std::vector<uint8_t>& rows,
                      const std::string& exif) {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return {};
  }
  png_set_write_fn(png, &out, PngWrite, PngFlush);
  png_set_IHDR(png, info, width, height, depth, color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (color_type == PNG_COLOR_TYPE_PALETTE) {
    png_color palette[256];
    for (int i = 0; i < 256; ++i) palette[i] = {uint8_t(i), uint8_t(255 - i), uint8_t(i * 7)};
    png_set_PLTE(png, info, palette, 1 << depth);
  }
  if (!exif.empty()) {
    png_set_eXIf_1(png, info, static_cast<png_uint_32>(exif.size()),
                   reinterpret_cast<png_bytep>(const_cast<char*>(exif.data())));
  }
  png_write_info(png, info);
  const size_t stride = png_get_rowbytes(png, info);
  for (int y = 0; y < height; ++y) png_write_row(png, const_cast<uint8_t*>(rows.data() + stride * y));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

std::string EncodeJpeg(int width, int height, int components, const std::vector<uint8_t>& pixels,
                       const std::string& app1, bool progressive) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr err;
  cinfo.err = jpeg_std_error(&err);
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = components;
  cinfo.in_color_space = components == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 90, TRUE);
  if (progressive) jpeg_simple_progression(&cinfo);
  jpeg_start_compress(&cinfo, TRUE);
  if (!app1.empty()) {
    jpeg_write_marker(&cinfo, JPEG_APP0 + 1, reinterpret_cast<const JOCTET*>(app1.data()),
                      static_cast<unsigned>(app1.size()));
  }
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(pixels.data()) + size_t{cinfo.next_scanline} * width * components;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::string out(reinterpret_cast<const char*>(buffer), size);
  std::free(buffer);
  return out;
}

std::string ExifWithOrientation(int orientation) {
  std::string tiff("II*\0\x08\0\0\0", 8);  // little-endian, IFD0 at offset 8
  const uint8_t ifd[] = {1, 0,                                          // one entry
                         0x12, 0x01, 3, 0, 1, 0, 0, 0,                  // 274, SHORT, count 1
                         uint8_t(orientation), 0, 0, 0,                 // the value
                         0, 0, 0, 0};                                   // no next IFD
  tiff.append(reinterpret_cast<const char*>(ifd), sizeof(ifd));
  return std::string("Exif\0\0", 6) + tiff;
}

std::string PngHeaderClaiming(uint32_t width, uint32_t height) {
  std::string out("\x89PNG\r\n\x1A\n", 8);
  std::string ihdr;
  Put32(&ihdr, width);
  Put32(&ihdr, height);
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB
  Chunk(&out, "IHDR", ihdr);
  Chunk(&out, "IDAT", std::string("\x78\x9c\x03\x00\x00\x00\x00\x01", 8));
  Chunk(&out, "IEND", "");
  return out;
}

std::string PngBomb(int width, int height) {
  std::vector<uint8_t> rows(static_cast<size_t>((width + 7) / 8) * height, 0);
  return EncodePng(width, height, PNG_COLOR_TYPE_GRAY, 1, rows);
}

std::string GifWithScreen(uint16_t width, uint16_t height) {
  std::string out = "GIF89a";
  out.push_back(static_cast<char>(width & 0xFF));
  out.push_back(static_cast<char>(width >> 8));
  out.push_back(static_cast<char>(height & 0xFF));
  out.push_back(static_cast<char>(height >> 8));
  out += std::string("\x80\x00\x00", 3);                       // global table of 2 colours
  out += std::string("\x00\x00\x00\xFF\xFF\xFF", 6);           // black, white
  out += std::string("\x2C\0\0\0\0\x01\0\x01\0\0", 10);        // a 1x1 frame at (0, 0)
  out += std::string("\x02\x02\x44\x01\x00\x3B", 6);           // LZW data, trailer
  return out;
}

std::vector<uint8_t> Gradient(int width, int height) {
  std::vector<uint8_t> px(static_cast<size_t>(width) * height * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = &px[(static_cast<size_t>(y) * width + x) * 3];
      p[0] = static_cast<uint8_t>(x * 255 / std::max(1, width - 1));
      p[1] = static_cast<uint8_t>(y * 255 / std::max(1, height - 1));
      p[2] = static_cast<uint8_t>((x * 7 + y * 13) & 0xFF);
    }
  }
  return px;
}

}  // namespace qinfer::image::testing
