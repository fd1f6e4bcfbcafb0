// TIFF's first directory through libtiff, read from memory
// (TIFFClientOpenExt) with error and warning handlers of this call's own
// (TIFFOpenOptions), and converted as Pillow's modes convert("RGB"):
//   grey (MinIsBlack) 1/2/4/8-bit scaled to 8 (0/255, x85, x17, as is);
//   16-bit grey ("I;16") clipped to 255; MinIsWhite inverted;
//   RGB 8-bit, 16-bit cut to the high byte ("RGB;16"); extra samples
//   (alpha) dropped; palette through the colour map's high bytes; CMYK
//   (Separated, 4 samples) through cmyk2rgb; YCbCr under JPEG compression
//   decoded to RGB by libjpeg (JPEGCOLORMODE RGB, what Pillow asks too).
// Strips or tiles, samples contiguous or (strips only) separate planes.
// The orientation tag is returned for the EXIF step, as Pillow's
// getexif() reads it from the directory.
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "codecs.h"

namespace qinfer::image::internal {
namespace {

struct Memory {
  const uint8_t* data;
  toff_t size;
  toff_t offset;
  std::string error;  // the first error libtiff reported
};

tsize_t ReadProc(thandle_t h, tdata_t buf, tsize_t size) {
  auto* m = static_cast<Memory*>(h);
  const toff_t n = std::min<toff_t>(static_cast<toff_t>(size), m->size - std::min(m->offset, m->size));
  if (n > 0) std::memcpy(buf, m->data + m->offset, n);
  m->offset += n;
  return static_cast<tsize_t>(n);
}
tsize_t WriteProc(thandle_t, tdata_t, tsize_t) { return -1; }
toff_t SeekProc(thandle_t h, toff_t offset, int whence) {
  auto* m = static_cast<Memory*>(h);
  if (whence == SEEK_SET) m->offset = offset;
  if (whence == SEEK_CUR) m->offset += offset;
  if (whence == SEEK_END) m->offset = m->size + offset;
  return m->offset;
}
int CloseProc(thandle_t) { return 0; }
toff_t SizeProc(thandle_t h) { return static_cast<Memory*>(h)->size; }
int MapProc(thandle_t, tdata_t*, toff_t*) { return 0; }
void UnmapProc(thandle_t, tdata_t, toff_t) {}

int OnError(TIFF*, void* user, const char* module, const char* format, va_list args) {
  auto* m = static_cast<Memory*>(user);
  if (m->error.empty()) {
    char text[512];
    std::vsnprintf(text, sizeof(text), format, args);
    m->error = absl::StrCat(module != nullptr ? module : "libtiff", ": ", text);
  }
  return 1;  // handled: nothing printed
}
int OnWarning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

// `max_alloc`: the most libtiff may allocate at once (its strip and tile
// buffers, sized by the file's claims).
absl::StatusOr<TiffPtr> Open(std::string_view bytes, Memory* m, tmsize_t max_alloc) {
  *m = {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0, {}};
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, OnError, m);
  TIFFOpenOptionsSetWarningHandlerExtR(options, OnWarning, m);
  TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_alloc);
  // "m": no memory mapping; the reads come from `m`.
  TIFF* tif = TIFFClientOpenExt("image", "rm", m, ReadProc, WriteProc, SeekProc, CloseProc, SizeProc, MapProc,
                                UnmapProc, options);
  TIFFOpenOptionsFree(options);
  if (tif == nullptr) {
    return absl::DataLossError(absl::StrCat("corrupt TIFF: ", m->error.empty() ? "unreadable" : m->error));
  }
  return TiffPtr(tif);
}

absl::Status TiffFailure(const Memory& m, std::string_view what) {
  return absl::DataLossError(absl::StrCat("corrupt TIFF: ", m.error.empty() ? Sv(what) : absl::string_view(m.error)));
}

// What the directory says about the samples, and how to make RGB of them.
struct Layout {
  uint32_t width = 0, height = 0;
  uint16_t bits = 1, samples = 1, photometric = PHOTOMETRIC_MINISBLACK, planar = PLANARCONFIG_CONTIG;
  uint16_t* colormap[3] = {nullptr, nullptr, nullptr};
};

absl::StatusOr<Layout> ReadLayout(TIFF* tif, const Memory& m) {
  Layout l;
  if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l.width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l.height)) {
    return TiffFailure(m, "no image width or length");
  }
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &l.bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &l.samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &l.planar);
  uint16_t format = SAMPLEFORMAT_UINT;
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
  if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &l.photometric)) {
    return absl::UnimplementedError("TIFF without a photometric interpretation is not supported");
  }
  uint16_t compression = COMPRESSION_NONE;
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
  if (l.photometric == PHOTOMETRIC_YCBCR) {
    if (compression != COMPRESSION_JPEG) {
      return absl::UnimplementedError("YCbCr TIFF without JPEG compression is not supported");
    }
    TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    l.photometric = PHOTOMETRIC_RGB;
  }
  const auto unsupported = [&] {
    return absl::UnimplementedError(absl::StrCat("TIFF of photometric ", l.photometric, ", ", l.samples, " samples of ",
                                                 l.bits, " bits (sample format ", format,
                                                 ") is not supported"));
  };
  if (format != SAMPLEFORMAT_UINT) return unsupported();
  switch (l.photometric) {
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_MINISWHITE:
      if (l.samples < 1 || (l.bits != 1 && l.bits != 2 && l.bits != 4 && l.bits != 8 && l.bits != 16)) {
        return unsupported();
      }
      if (l.photometric == PHOTOMETRIC_MINISWHITE && l.bits == 16) return unsupported();
      break;
    case PHOTOMETRIC_RGB:
      if (l.samples < 3 || (l.bits != 8 && l.bits != 16)) return unsupported();
      break;
    case PHOTOMETRIC_PALETTE:
      if (l.samples < 1 || l.bits > 8 || !TIFFGetField(tif, TIFFTAG_COLORMAP, &l.colormap[0], &l.colormap[1],
                                                        &l.colormap[2])) {
        return unsupported();
      }
      break;
    case PHOTOMETRIC_SEPARATED:
      if (l.samples < 4 || l.bits != 8) return unsupported();
      break;
    default:
      return unsupported();
  }
  if (l.planar == PLANARCONFIG_SEPARATE && TIFFIsTiled(tif)) {
    return absl::UnimplementedError("tiled TIFF with separate planes is not supported");
  }
  return l;
}

// Sample `s` of pixel `x` in a row of packed samples (MSB first).
inline uint32_t Sample(const uint8_t* row, const Layout& l, int64_t x, int s, int samples_in_row) {
  const int64_t i = x * samples_in_row + s;
  switch (l.bits) {
    case 8: return row[i];
    case 16: {
      uint16_t v;
      std::memcpy(&v, row + 2 * i, 2);
      return v;
    }
    default: {
      const int64_t bit = i * l.bits;
      const int shift = 8 - l.bits - static_cast<int>(bit % 8);
      return (row[bit / 8] >> shift) & ((1u << l.bits) - 1);
    }
  }
}

// One pixel to RGB. `row[s]` holds sample s's row (the same row for
// contiguous samples, where `per_row` is l.samples; 1 for separate planes).
void ToRgb(const Layout& l, const uint8_t* const* rows, int per_row, int64_t x, uint8_t* out) {
  const auto sample = [&](int s) { return Sample(rows[per_row == 1 ? s : 0], l, x, per_row == 1 ? 0 : s, per_row); };
  const uint32_t max = (1u << l.bits) - 1;
  switch (l.photometric) {
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_MINISWHITE: {
      uint32_t v = sample(0);
      if (l.photometric == PHOTOMETRIC_MINISWHITE) v = max - v;
      const uint8_t c =
          l.bits == 16 ? static_cast<uint8_t>(std::min<uint32_t>(v, 255)) : static_cast<uint8_t>(v * 255 / max);
      out[0] = out[1] = out[2] = c;
      return;
    }
    case PHOTOMETRIC_RGB:
      for (int c = 0; c < 3; ++c) out[c] = static_cast<uint8_t>(l.bits == 16 ? sample(c) >> 8 : sample(c));
      return;
    case PHOTOMETRIC_PALETTE: {
      const uint32_t i = sample(0);
      for (int c = 0; c < 3; ++c) out[c] = static_cast<uint8_t>(l.colormap[c][i] >> 8);
      return;
    }
    case PHOTOMETRIC_SEPARATED: {
      const uint8_t cmyk[4] = {uint8_t(sample(0)), uint8_t(sample(1)), uint8_t(sample(2)), uint8_t(sample(3))};
      CmykToRgb(cmyk, out);
      return;
    }
  }
}

absl::Status ReadStrips(TIFF* tif, const Layout& l, const Memory& m, Decoded* out) {
  const tmsize_t line = TIFFScanlineSize(tif);
  if (line <= 0) return TiffFailure(m, "no scanline size");
  const int planes = l.planar == PLANARCONFIG_SEPARATE ? l.samples : 1;
  std::vector<std::vector<uint8_t>> buffers(static_cast<size_t>(planes),
                                            std::vector<uint8_t>(static_cast<size_t>(line)));
  std::vector<const uint8_t*> rows(static_cast<size_t>(planes));
  for (int p = 0; p < planes; ++p) rows[static_cast<size_t>(p)] = buffers[static_cast<size_t>(p)].data();
  for (uint32_t y = 0; y < l.height; ++y) {
    for (int p = 0; p < planes; ++p) {
      if (TIFFReadScanline(tif, buffers[static_cast<size_t>(p)].data(), y, static_cast<uint16_t>(p)) < 0) {
        return TiffFailure(m, "a scanline cannot be read");
      }
    }
    uint8_t* dst = &out->rgb[size_t{3} * l.width * y];
    for (uint32_t x = 0; x < l.width; ++x) ToRgb(l, rows.data(), planes == 1 ? l.samples : 1, x, dst + 3 * x);
  }
  return absl::OkStatus();
}

absl::Status ReadTiles(TIFF* tif, const Layout& l, const Memory& m, tmsize_t max_alloc, Decoded* out) {
  uint32_t tw = 0, th = 0;
  TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
  TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
  const tmsize_t tile_bytes = TIFFTileSize(tif);
  const tmsize_t tile_row = TIFFTileRowSize(tif);
  if (tw == 0 || th == 0 || tile_bytes <= 0 || tile_row <= 0) return TiffFailure(m, "bad tile size");
  if (tile_bytes > max_alloc) {
    return absl::ResourceExhaustedError(absl::StrCat("TIFF tiles of ", tw, "x", th, " (", tile_bytes,
                                                     " bytes) are over what the pixel bound allows"));
  }
  std::vector<uint8_t> tile(static_cast<size_t>(tile_bytes));
  for (uint32_t ty = 0; ty < l.height; ty += th) {
    for (uint32_t tx = 0; tx < l.width; tx += tw) {
      if (TIFFReadTile(tif, tile.data(), tx, ty, 0, 0) < 0) return TiffFailure(m, "a tile cannot be read");
      for (uint32_t y = ty; y < std::min(l.height, ty + th); ++y) {
        const uint8_t* row = tile.data() + static_cast<size_t>(tile_row) * (y - ty);
        uint8_t* dst = &out->rgb[(size_t{l.width} * y + tx) * 3];
        for (uint32_t x = 0; x < std::min(tw, l.width - tx); ++x) ToRgb(l, &row, l.samples, x, dst + 3 * x);
      }
    }
  }
  return absl::OkStatus();
}

// 16 bytes a pixel of the budget (a 16-bit CMYKA strip is 10), at least
// 64 MiB, at most 1 GiB.
tmsize_t MaxAlloc(const DecodeBudget& budget) {
  return static_cast<tmsize_t>(std::clamp<int64_t>(16 * budget.max_pixels, int64_t{64} << 20, int64_t{1} << 30));
}

}  // namespace

absl::StatusOr<ImageInfo> TiffHeader(std::string_view bytes) {
  Memory m;
  absl::StatusOr<TiffPtr> tif = Open(bytes, &m, tmsize_t{64} << 20);
  if (!tif.ok()) return tif.status();
  uint32_t w = 0, h = 0;
  if (!TIFFGetField(tif->get(), TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif->get(), TIFFTAG_IMAGELENGTH, &h)) {
    return TiffFailure(m, "no image width or length");
  }
  return ImageInfo{Format::kTiff, w, h};
}

absl::StatusOr<Decoded> DecodeTiff(std::string_view bytes, const DecodeBudget& budget) {
  Memory m;
  absl::StatusOr<TiffPtr> tif = Open(bytes, &m, MaxAlloc(budget));
  if (!tif.ok()) return tif.status();
  absl::StatusOr<Layout> layout = ReadLayout(tif->get(), m);
  if (!layout.ok()) return layout.status();
  const int64_t w = layout->width, h = layout->height;
  if (w * h > budget.max_pixels) return TooManyPixels(w, h, budget.max_pixels);
  Decoded out;
  out.width = w;
  out.height = h;
  out.rgb.resize(static_cast<size_t>(w * h * 3));
  uint16_t orientation = 0;
  if (TIFFGetField(tif->get(), TIFFTAG_ORIENTATION, &orientation)) out.orientation = orientation;
  absl::Status s = TIFFIsTiled(tif->get()) ? ReadTiles(tif->get(), *layout, m, MaxAlloc(budget), &out)
                                           : ReadStrips(tif->get(), *layout, m, &out);
  if (!s.ok()) return s;
  return out;
}

}  // namespace qinfer::image::internal
