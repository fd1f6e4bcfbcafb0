// PNG through libpng, converted as Pillow opens and converts it: palette
// looked up (tRNS ignored, as convert("RGB") ignores "transparency"), grey
// of 1, 2 or 4 bits scaled to 8 (0/255, x85, x17), alpha dropped, 16-bit
// samples cut to their high byte (Pillow's "RGB;16B", "LA;16B" unpackers)
// except 16-bit grey, which Pillow opens as "I;16" and convert("RGB")
// clips to 255. No gamma or colour profile is applied (Pillow applies none).
//
// libpng reports errors through png_error, which longjmps back to the
// function that called it; those functions hold only plain data.
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <png.h>

#include "absl/strings/str_cat.h"
#include "codecs.h"

namespace qinfer::image::internal {
namespace {

struct PngState {
  png_structp png;
  png_infop info;
  png_infop end_info;
  const uint8_t* data;
  size_t size;
  size_t offset;
  char message[256];
  bool truncated;
};

void OnError(png_structp png, png_const_charp message) {
  auto* s = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(s->message, sizeof(s->message), "%s", message);
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}

void Read(png_structp png, png_bytep out, png_size_t length) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  if (length > s->size - s->offset) {
    s->truncated = true;
    png_error(png, "unexpected end of file");
  }
  std::memcpy(out, s->data + s->offset, length);
  s->offset += length;
}

// Phase 1: signature and chunks up to the image data. 0 on success.
int ReadPngInfo(PngState* s, const uint8_t* data, size_t size) {
  std::memset(s, 0, sizeof(*s));
  s->data = data;
  s->size = size;
  s->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, OnError, OnWarning);
  if (s->png == nullptr) return 1;
  s->info = png_create_info_struct(s->png);
  s->end_info = png_create_info_struct(s->png);
  if (s->info == nullptr || s->end_info == nullptr) return 1;
  if (setjmp(png_jmpbuf(s->png))) return 1;
  png_set_read_fn(s->png, s, Read);
  // Bounds are checked before decoding; libpng's own (1,000,000 a side)
  // would refuse the biggest images the limits allow.
  png_set_user_limits(s->png, 0x7fffffff, 0x7fffffff);
  png_read_info(s->png, s->info);
  return 0;
}

// Phase 2: the image, with the transformations that make `rows` RGB8 (or
// grey16 for clip_grey16). 0 on success.
int ReadPngImage(PngState* s, uint8_t** rows) {
  if (setjmp(png_jmpbuf(s->png))) return 1;
  png_read_image(s->png, rows);
  return 0;
}

// Phase 3: the chunks after the image (an eXIf there, text). Pillow reads
// them too and stops quietly at a broken one; so does this.
void ReadPngEnd(PngState* s) {
  if (setjmp(png_jmpbuf(s->png))) return;
  png_read_end(s->png, s->end_info);
}

void Destroy(PngState* s) {
  if (s->png != nullptr) png_destroy_read_struct(&s->png, &s->info, &s->end_info);
}

absl::Status PngFailure(const PngState& s) {
  if (s.truncated) return absl::DataLossError(absl::StrCat("truncated PNG: ", s.message));
  return absl::DataLossError(absl::StrCat("corrupt PNG: ", s.message));
}

// Sets the transformations; returns true when 16-bit grey is read as is
// (to be clipped afterwards).
bool SetTransforms(png_structp png, png_infop info) {
  const int color = png_get_color_type(png, info);
  const int depth = png_get_bit_depth(png, info);
  const bool grey16 = depth == 16 && (color == PNG_COLOR_TYPE_GRAY);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  // A palette's tRNS becomes alpha in libpng's palette expansion: dropped too.
  if ((color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS)) png_set_strip_alpha(png);
  if (depth == 16 && !grey16) png_set_strip_16(png);
  if (grey16) png_set_swap(png);  // host order, to clip as numbers
  if (!grey16 && (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA)) png_set_gray_to_rgb(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  return grey16;
}

// Pillow's "Raw profile type exif" text: "\nexif\n<length>\n<hex lines>".
std::string FromRawProfile(std::string_view text) {
  int newlines = 0;
  size_t i = 0;
  for (; i < text.size() && newlines < 3; ++i) newlines += text[i] == '\n';
  std::string out;
  int high = -1;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    const int v = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (v < 0) continue;
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<char>(high * 16 + v));
      high = -1;
    }
  }
  return out;
}

void CollectMetadata(png_structp png, png_infop info, Decoded* out) {
#ifdef PNG_eXIf_SUPPORTED
  png_bytep exif = nullptr;
  png_uint_32 length = 0;
  if (out->exif.empty() && png_get_eXIf_1(png, info, &length, &exif) != 0 && exif != nullptr) {
    out->exif.assign(reinterpret_cast<const char*>(exif), length);
  }
#endif
  png_textp text = nullptr;
  int count = 0;
  png_get_text(png, info, &text, &count);
  for (int i = 0; i < count; ++i) {
    std::string_view key(text[i].key);
    const size_t n = text[i].compression > 0 ? text[i].itxt_length : text[i].text_length;
    std::string_view value(text[i].text != nullptr ? text[i].text : "", text[i].text != nullptr ? n : 0);
    if (key == "XML:com.adobe.xmp" && out->xmp.empty()) out->xmp.assign(value);
    if (key == "Raw profile type exif" && out->exif.empty()) out->exif = FromRawProfile(value);
  }
}

}  // namespace

absl::StatusOr<ImageInfo> PngHeader(std::string_view bytes) {
  PngState s;
  const int rc = ReadPngInfo(&s, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  absl::Status status = rc == 0 ? absl::OkStatus() : PngFailure(s);
  ImageInfo info{Format::kPng, 0, 0};
  if (rc == 0) info = {Format::kPng, png_get_image_width(s.png, s.info), png_get_image_height(s.png, s.info)};
  Destroy(&s);
  if (!status.ok()) return status;
  return info;
}

absl::StatusOr<Decoded> DecodePng(std::string_view bytes, const DecodeBudget& budget) {
  PngState s;
  Decoded out;
  absl::Status status;
  std::vector<uint8_t> pixels;
  std::vector<uint8_t*> rows;
  bool grey16 = false;
  if (ReadPngInfo(&s, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) != 0) {
    status = PngFailure(s);
  } else {
    out.width = png_get_image_width(s.png, s.info);
    out.height = png_get_image_height(s.png, s.info);
    if (out.width * out.height > budget.max_pixels) {
      status = TooManyPixels(out.width, out.height, budget.max_pixels);
    } else {
      grey16 = SetTransforms(s.png, s.info);
      const size_t stride = png_get_rowbytes(s.png, s.info);
      if (stride != static_cast<size_t>(out.width) * (grey16 ? 2 : 3)) {
        status = absl::InternalError(absl::StrCat("libpng's row is ", stride, " bytes, not ", out.width * 3));
      } else {
        pixels.resize(stride * static_cast<size_t>(out.height));
        rows.resize(static_cast<size_t>(out.height));
        for (size_t y = 0; y < rows.size(); ++y) rows[y] = pixels.data() + y * stride;
        if (ReadPngImage(&s, rows.data()) != 0) {
          status = PngFailure(s);
        } else {
          ReadPngEnd(&s);
          CollectMetadata(s.png, s.info, &out);
          CollectMetadata(s.png, s.end_info, &out);
        }
      }
    }
  }
  Destroy(&s);
  if (!status.ok()) return status;
  if (!grey16) {
    out.rgb = std::move(pixels);
    return out;
  }
  const size_t count = static_cast<size_t>(out.width * out.height);
  out.rgb.resize(count * 3);
  for (size_t i = 0; i < count; ++i) {
    uint16_t v;
    std::memcpy(&v, &pixels[2 * i], 2);
    const uint8_t c = v > 255 ? 255 : static_cast<uint8_t>(v);
    out.rgb[3 * i] = out.rgb[3 * i + 1] = out.rgb[3 * i + 2] = c;
  }
  return out;
}

}  // namespace qinfer::image::internal
