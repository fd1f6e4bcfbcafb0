// JPEG through libjpeg-turbo, with the settings Pillow's decoder uses
// (JpegDecode.c): the default islow DCT and fancy upsampling, RGB out of a
// 3-component image, grey out of 1, CMYK out of 4, which Pillow always
// reads as Adobe's inverted CMYK ("CMYK;I") before its cmyk2rgb.
//
// libjpeg's default error handler calls exit(): errors longjmp back here.
// Warnings are ignored, as Pillow's decoder ignores them (corrupt data
// decodes as libjpeg recovers it), except the end of the input before the
// last scanline: Pillow raises "image file is truncated" there, where
// libjpeg would pad the image with grey.
//
// The functions that call libjpeg hold only plain data (no destructors), so
// a longjmp out of libjpeg skips nothing that needed unwinding.
#include <csetjmp>
#include <cstdio>
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <jpeglib.h>
#include <jerror.h>

#include "absl/strings/str_cat.h"
#include "codecs.h"

namespace qinfer::image::internal {
namespace {

struct JpegState {
  jpeg_decompress_struct cinfo;
  jpeg_error_mgr err;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool premature_end;  // the input ended before the image did
  bool out_of_memory;  // over max_memory_to_use (no backing store)
  bool created;
};

void OnError(j_common_ptr cinfo) {
  auto* state = reinterpret_cast<JpegState*>(cinfo->client_data);
  state->out_of_memory = cinfo->err->msg_code == JERR_NO_BACKING_STORE || cinfo->err->msg_code == JERR_OUT_OF_MEMORY;
  (*cinfo->err->format_message)(cinfo, state->message);
  std::longjmp(state->jump, 1);
}

void OnMessage(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  auto* state = reinterpret_cast<JpegState*>(cinfo->client_data);
  if (cinfo->err->msg_code == JWRN_JPEG_EOF && !state->premature_end) {
    state->premature_end = true;
    (*cinfo->err->format_message)(cinfo, state->message);
  }
}

// Phase 1: the header (markers to SOS), the APP1 markers saved when
// `save_app1`. 0 on success.
int ReadJpegHeader(JpegState* s, const uint8_t* data, size_t size, bool save_app1) {
  std::memset(s, 0, sizeof(*s));
  s->cinfo.err = jpeg_std_error(&s->err);
  s->err.error_exit = OnError;
  s->err.emit_message = OnMessage;
  s->cinfo.client_data = s;
  if (setjmp(s->jump)) return 1;
  jpeg_create_decompress(&s->cinfo);
  s->created = true;
  jpeg_mem_src(&s->cinfo, data, static_cast<unsigned long>(size));
  if (save_app1) jpeg_save_markers(&s->cinfo, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&s->cinfo, TRUE);
  return 0;
}

// Phase 2: decompress at eighths/8 scale into `rows` (output_height rows of
// output_width * output_components bytes). 0 on success.
int Decompress(JpegState* s, int eighths, uint8_t* rows, size_t rows_bytes) {
  if (setjmp(s->jump)) return 1;
  s->cinfo.scale_num = static_cast<unsigned>(eighths);
  s->cinfo.scale_denom = 8;
  jpeg_start_decompress(&s->cinfo);
  const size_t stride = size_t{s->cinfo.output_width} * s->cinfo.output_components;
  if (stride * s->cinfo.output_height > rows_bytes) return 2;
  while (s->cinfo.output_scanline < s->cinfo.output_height) {
    JSAMPROW row = rows + stride * s->cinfo.output_scanline;
    if (jpeg_read_scanlines(&s->cinfo, &row, 1) != 1) break;
    if (s->premature_end) return 1;
  }
  return s->premature_end ? 1 : 0;
}

void Destroy(JpegState* s) {
  if (s->created) jpeg_destroy_decompress(&s->cinfo);
  s->created = false;
}

absl::Status JpegFailure(const JpegState& s) {
  if (s.out_of_memory) {
    return absl::ResourceExhaustedError(absl::StrCat("JPEG of ", s.cinfo.image_width, "x", s.cinfo.image_height,
                                                     " needs more decoder memory than the pixel bound allows (",
                                                     s.message, ")"));
  }
  if (s.premature_end) return absl::DataLossError(absl::StrCat("truncated JPEG: ", s.message));
  return absl::DataLossError(absl::StrCat("corrupt JPEG: ", s.message));
}

// Pillow refuses what its SOF handler cannot map to a mode.
absl::Status CheckSupported(const jpeg_decompress_struct& cinfo) {
  if (cinfo.data_precision != 8) {
    return absl::UnimplementedError(absl::StrCat(cinfo.data_precision, "-bit JPEG is not supported (8-bit expected)"));
  }
  const int n = cinfo.num_components;
  if (n != 1 && n != 3 && n != 4) {
    return absl::UnimplementedError(absl::StrCat("JPEG with ", n, " components is not supported (1, 3 or 4 expected)"));
  }
  return absl::OkStatus();
}

// Every Exif APP1 as Pillow joins them (the first whole, the others without
// their "Exif\0\0"), and the XMP packet.
void CollectMetadata(const jpeg_decompress_struct& cinfo, Decoded* out) {
  static constexpr char kExif[] = "Exif\0\0";
  static constexpr char kXmp[] = "http://ns.adobe.com/xap/1.0/";  // then a NUL
  for (jpeg_saved_marker_ptr m = cinfo.marker_list; m != nullptr; m = m->next) {
    if (m->marker != JPEG_APP0 + 1) continue;
    std::string_view data(reinterpret_cast<const char*>(m->data), m->data_length);
    if (data.substr(0, 6) == std::string_view(kExif, 6)) {
      out->exif.append(out->exif.empty() ? data : data.substr(6));
    } else if (data.size() > sizeof(kXmp) && data.substr(0, sizeof(kXmp)) == std::string_view(kXmp, sizeof(kXmp))) {
      out->xmp.assign(data.substr(sizeof(kXmp)));
    }
  }
}

// The scale M/8 to decode at: 8/8 when the image fits the budget;
// otherwise, where the budget allows scaling, the smallest M (1..7) whose
// output still holds at least budget.max_pixels (the shrink after takes it
// to the bound, from no more than 4x the bound: (M+1)^2 / M^2 <= 4), or 1
// when even 1/8 is over it. 0: refused (over the budget at 8/8 with no
// scaling, or over 4x the budget at 1/8).
int PickEighths(const jpeg_decompress_struct& cinfo, const DecodeBudget& budget) {
  const auto pixels = [&](int m) {
    return ((int64_t{cinfo.image_width} * m + 7) / 8) * ((int64_t{cinfo.image_height} * m + 7) / 8);
  };
  if (pixels(8) <= budget.max_pixels) return 8;
  if (!budget.scale_to_fit) return 0;
  for (int m = 7; m >= 1; --m) {
    if (pixels(m) < budget.max_pixels) return m + 1;
  }
  return pixels(1) <= 4 * budget.max_pixels ? 1 : 0;
}

}  // namespace

absl::StatusOr<ImageInfo> JpegHeader(std::string_view bytes) {
  JpegState s;
  const int rc = ReadJpegHeader(&s, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), false);
  absl::Status status = rc == 0 ? absl::OkStatus() : JpegFailure(s);
  ImageInfo info{Format::kJpeg, s.cinfo.image_width, s.cinfo.image_height};
  Destroy(&s);
  if (!status.ok()) return status;
  return info;
}

absl::StatusOr<Decoded> DecodeJpeg(std::string_view bytes, const DecodeBudget& budget) {
  JpegState s;
  Decoded out;
  absl::Status status;
  std::vector<uint8_t> rows;
  if (ReadJpegHeader(&s, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), true) != 0) {
    status = JpegFailure(s);
  } else if (status = CheckSupported(s.cinfo); status.ok()) {
    CollectMetadata(s.cinfo, &out);
    const int n = s.cinfo.num_components;
    s.cinfo.out_color_space = n == 1 ? JCS_GRAYSCALE : n == 3 ? JCS_RGB : JCS_CMYK;
    s.cinfo.dct_method = JDCT_ISLOW;
    s.cinfo.do_fancy_upsampling = TRUE;
    const int eighths = PickEighths(s.cinfo, budget);
    if (eighths == 0) {
      status = TooManyPixels(s.cinfo.image_width, s.cinfo.image_height, budget.max_pixels);
    } else {
      out.width = (int64_t{s.cinfo.image_width} * eighths + 7) / 8;
      out.height = (int64_t{s.cinfo.image_height} * eighths + 7) / 8;
      rows.resize(static_cast<size_t>(out.width * out.height * n));
      // libjpeg's big buffers (a progressive image's coefficients, kept at
      // full size whatever the scale) within 8 bytes a pixel of the budget:
      // libjpeg has no backing store, so over it is an error.
      const int64_t big_buffers = std::min<int64_t>(8 * budget.max_pixels, INT32_MAX) + (1 << 20);
      s.cinfo.mem->max_memory_to_use = static_cast<long>(big_buffers);
      const int rc = Decompress(&s, eighths, rows.data(), rows.size());
      if (rc == 2) status = absl::InternalError("libjpeg's scaled size differs from the one computed");
      if (rc == 1) status = JpegFailure(s);
    }
  }
  Destroy(&s);
  if (!status.ok()) return status;
  const int n = static_cast<int>(rows.size() / static_cast<size_t>(out.width * out.height));
  if (n == 3) {
    out.rgb = std::move(rows);
  } else {
    out.rgb.resize(static_cast<size_t>(out.width * out.height * 3));
    const size_t pixels = static_cast<size_t>(out.width * out.height);
    for (size_t i = 0; i < pixels; ++i) {
      uint8_t* px = &out.rgb[3 * i];
      if (n == 1) {
        px[0] = px[1] = px[2] = rows[i];
      } else {
        const uint8_t* p = &rows[4 * i];
        const uint8_t cmyk[4] = {uint8_t(255 - p[0]), uint8_t(255 - p[1]), uint8_t(255 - p[2]), uint8_t(255 - p[3])};
        CmykToRgb(cmyk, px);
      }
    }
  }
  return out;
}

}  // namespace qinfer::image::internal
