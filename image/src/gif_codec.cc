// GIF's first frame through giflib, placed as Pillow places it: on a canvas
// the size of the logical screen (grown to the frame where the frame
// reaches past it), filled with the frame's transparent index where its
// graphic control extension sets one and with index 0 otherwise; then
// convert("RGB") looks every index up in the frame's palette (the local
// one, else the global one; none, or the grey ramp: the index as grey),
// ignoring transparency. An index past the palette's entries is black.
#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "codecs.h"

namespace qinfer::image::internal {
namespace {

struct Input {
  const uint8_t* data;
  size_t size;
  size_t offset;
};

int Read(GifFileType* gif, GifByteType* out, int length) {
  auto* in = static_cast<Input*>(gif->UserData);
  const size_t n = std::min(static_cast<size_t>(length), in->size - in->offset);
  std::memcpy(out, in->data + in->offset, n);
  in->offset += n;
  return static_cast<int>(n);
}

struct GifCloser {
  void operator()(GifFileType* gif) const {
    int error = 0;
    DGifCloseFile(gif, &error);
  }
};
using GifPtr = std::unique_ptr<GifFileType, GifCloser>;

absl::Status GifFailure(int error) {
  const char* text = GifErrorString(error);
  const std::string message = text != nullptr ? text : absl::StrCat("giflib error ", error);
  if (error == D_GIF_ERR_READ_FAILED || error == D_GIF_ERR_EOF_TOO_SOON) {
    return absl::DataLossError(absl::StrCat("truncated GIF: ", message));
  }
  return absl::DataLossError(absl::StrCat("corrupt GIF: ", message));
}

// The first frame's descriptor read, and the transparent index of the
// graphic control extension before it (-1: none).
struct FirstFrame {
  GifPtr gif;
  Input input;
  int transparent = -1;
  int64_t width = 0, height = 0;  // the canvas, as Pillow sizes it
};

absl::Status OpenFirstFrame(std::string_view bytes, FirstFrame* f) {
  f->input = {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0};
  int error = 0;
  f->gif.reset(DGifOpen(&f->input, Read, &error));
  if (f->gif == nullptr) return GifFailure(error);
  GifFileType* gif = f->gif.get();
  for (;;) {
    GifRecordType type;
    if (DGifGetRecordType(gif, &type) == GIF_ERROR) return GifFailure(gif->Error);
    if (type == TERMINATE_RECORD_TYPE) return absl::DataLossError("corrupt GIF: no image in the file");
    if (type == IMAGE_DESC_RECORD_TYPE) break;
    if (type != EXTENSION_RECORD_TYPE) continue;
    int code = 0;
    GifByteType* block = nullptr;
    if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return GifFailure(gif->Error);
    if (code == GRAPHICS_EXT_FUNC_CODE && block != nullptr && block[0] >= 4) {
      f->transparent = (block[1] & 1) ? block[4] : -1;
    }
    while (block != nullptr) {
      if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return GifFailure(gif->Error);
    }
  }
  if (DGifGetImageDesc(gif) == GIF_ERROR) return GifFailure(gif->Error);
  const GifImageDesc& d = gif->Image;
  f->width = std::max<int64_t>(gif->SWidth, int64_t{d.Left} + d.Width);
  f->height = std::max<int64_t>(gif->SHeight, int64_t{d.Top} + d.Height);
  return absl::OkStatus();
}

// GifImagePlugin._is_palette_needed's negation.
bool IsGreyRamp(const ColorMapObject& map) {
  for (int i = 0; i < map.ColorCount; ++i) {
    const GifColorType& c = map.Colors[i];
    if (c.Red != i || c.Green != i || c.Blue != i) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<ImageInfo> GifHeader(std::string_view bytes) {
  FirstFrame f;
  if (absl::Status s = OpenFirstFrame(bytes, &f); !s.ok()) return s;
  return ImageInfo{Format::kGif, f.width, f.height};
}

absl::StatusOr<Decoded> DecodeGif(std::string_view bytes, const DecodeBudget& budget) {
  FirstFrame f;
  if (absl::Status s = OpenFirstFrame(bytes, &f); !s.ok()) return s;
  if (f.width * f.height > budget.max_pixels) return TooManyPixels(f.width, f.height, budget.max_pixels);
  GifFileType* gif = f.gif.get();
  const GifImageDesc& d = gif->Image;
  std::vector<uint8_t> index(static_cast<size_t>(f.width * f.height), f.transparent >= 0 ? f.transparent : 0);
  std::vector<GifPixelType> line(static_cast<size_t>(d.Width));
  // Interlaced rows come in four passes: every 8th from 0, every 8th from
  // 4, every 4th from 2, every 2nd from 1.
  static constexpr int kStart[] = {0, 4, 2, 1}, kStep[] = {8, 8, 4, 2};
  int pass = 0, y = 0;
  for (int n = 0; d.Width > 0 && n < d.Height; ++n) {
    if (DGifGetLine(gif, line.data(), d.Width) == GIF_ERROR) return GifFailure(gif->Error);
    int row = n;
    if (d.Interlace) {
      while (y >= d.Height && pass < 3) y = kStart[++pass];
      row = y;
      y += kStep[pass];
    }
    std::memcpy(&index[static_cast<size_t>((d.Top + row) * f.width + d.Left)], line.data(), line.size());
  }
  const ColorMapObject* map = d.ColorMap != nullptr ? d.ColorMap : gif->SColorMap;
  // Pillow opens a GIF whose palette is the grey ramp (entry i is (i,i,i))
  // as "L": every index is its own grey, past the palette's end too.
  if (map != nullptr && IsGreyRamp(*map)) map = nullptr;
  uint8_t palette[256][3] = {};
  for (int i = 0; i < 256; ++i) {
    if (map == nullptr) {
      palette[i][0] = palette[i][1] = palette[i][2] = static_cast<uint8_t>(i);
    } else if (i < map->ColorCount) {
      palette[i][0] = map->Colors[i].Red;
      palette[i][1] = map->Colors[i].Green;
      palette[i][2] = map->Colors[i].Blue;
    }
  }
  Decoded out;
  out.width = f.width;
  out.height = f.height;
  out.rgb.resize(index.size() * 3);
  for (size_t i = 0; i < index.size(); ++i) std::memcpy(&out.rgb[3 * i], palette[index[i]], 3);
  return out;
}

}  // namespace qinfer::image::internal
