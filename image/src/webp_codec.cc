// WebP through libwebp. Pillow decodes every WebP with WebPAnimDecoder
// (RGBA, or RGBX without alpha) and convert("RGB") drops the alpha: a still
// image's RGB is what WebPDecode gives in MODE_RGB; an animation's first
// frame is the anim decoder's first canvas. EXIF and XMP from the
// container's chunks, as Pillow reads them.
#include <webp/decode.h>
#include <webp/demux.h>

#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "codecs.h"

namespace qinfer::image::internal {
namespace {

std::string_view StatusName(VP8StatusCode code) {
  switch (code) {
    case VP8_STATUS_OK: return "ok";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "not enough data";
  }
  return "unknown error";
}

absl::Status WebpFailure(VP8StatusCode code) {
  if (code == VP8_STATUS_NOT_ENOUGH_DATA) return absl::DataLossError("truncated WebP: not enough data");
  return absl::DataLossError(absl::StrCat("corrupt WebP: ", Sv(StatusName(code))));
}

struct DemuxDeleter {
  void operator()(WebPDemuxer* d) const { WebPDemuxDelete(d); }
};
struct AnimDeleter {
  void operator()(WebPAnimDecoder* d) const { WebPAnimDecoderDelete(d); }
};

void CollectMetadata(const WebPDemuxer* demux, Decoded* out) {
  WebPChunkIterator chunk;
  if (WebPDemuxGetChunk(demux, "EXIF", 1, &chunk)) {
    out->exif.assign(reinterpret_cast<const char*>(chunk.chunk.bytes), chunk.chunk.size);
    WebPDemuxReleaseChunkIterator(&chunk);
  }
  if (WebPDemuxGetChunk(demux, "XMP ", 1, &chunk)) {
    out->xmp.assign(reinterpret_cast<const char*>(chunk.chunk.bytes), chunk.chunk.size);
    WebPDemuxReleaseChunkIterator(&chunk);
  }
}

absl::StatusOr<Decoded> FirstFrame(const WebPData& data, Decoded out) {
  WebPAnimDecoderOptions options;
  if (!WebPAnimDecoderOptionsInit(&options)) return absl::InternalError("libwebp: WebPAnimDecoderOptionsInit failed");
  options.color_mode = MODE_RGBA;
  options.use_threads = 0;
  std::unique_ptr<WebPAnimDecoder, AnimDeleter> decoder(WebPAnimDecoderNew(&data, &options));
  if (decoder == nullptr) return absl::DataLossError("corrupt WebP: the animation cannot be read");
  uint8_t* canvas = nullptr;
  int timestamp = 0;
  if (!WebPAnimDecoderGetNext(decoder.get(), &canvas, &timestamp)) {
    return absl::DataLossError("corrupt WebP: the first frame cannot be decoded");
  }
  const size_t count = static_cast<size_t>(out.width * out.height);
  out.rgb.resize(count * 3);
  for (size_t i = 0; i < count; ++i) std::memcpy(&out.rgb[3 * i], canvas + 4 * i, 3);
  return out;
}

}  // namespace

absl::StatusOr<ImageInfo> WebpHeader(std::string_view bytes) {
  WebPBitstreamFeatures features;
  const VP8StatusCode code =
      WebPGetFeatures(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &features);
  if (code != VP8_STATUS_OK) return WebpFailure(code);
  ImageInfo info{Format::kWebp, features.width, features.height};
  if (features.has_animation) {
    WebPData data{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
    std::unique_ptr<WebPDemuxer, DemuxDeleter> demux(WebPDemux(&data));
    if (demux == nullptr) return absl::DataLossError("corrupt WebP: the container cannot be read");
    info.width = WebPDemuxGetI(demux.get(), WEBP_FF_CANVAS_WIDTH);
    info.height = WebPDemuxGetI(demux.get(), WEBP_FF_CANVAS_HEIGHT);
  }
  return info;
}

absl::StatusOr<Decoded> DecodeWebp(std::string_view bytes, const DecodeBudget& budget) {
  absl::StatusOr<ImageInfo> info = WebpHeader(bytes);
  if (!info.ok()) return info.status();
  if (info->width * info->height > budget.max_pixels) {
    return TooManyPixels(info->width, info->height, budget.max_pixels);
  }
  WebPData data{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
  Decoded out;
  out.width = info->width;
  out.height = info->height;
  {
    std::unique_ptr<WebPDemuxer, DemuxDeleter> demux(WebPDemux(&data));
    if (demux != nullptr) {
      CollectMetadata(demux.get(), &out);
      if (WebPDemuxGetI(demux.get(), WEBP_FF_FORMAT_FLAGS) & ANIMATION_FLAG) return FirstFrame(data, std::move(out));
    }
  }
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return absl::InternalError("libwebp: WebPInitDecoderConfig failed");
  out.rgb.resize(static_cast<size_t>(out.width * out.height * 3));
  config.output.colorspace = MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = out.rgb.data();
  config.output.u.RGBA.stride = static_cast<int>(out.width * 3);
  config.output.u.RGBA.size = out.rgb.size();
  const VP8StatusCode code = WebPDecode(data.bytes, data.size, &config);
  WebPFreeDecBuffer(&config.output);
  if (code != VP8_STATUS_OK) return WebpFailure(code);
  return out;
}

}  // namespace qinfer::image::internal
