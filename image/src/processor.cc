// ImageProcessor::Process: transformers 5.24's PilBackend._preprocess
// (ConvNextImageProcessorPil's resize for ConvNeXt) on one image: resize,
// center_crop, rescale, normalize, with the library's size arithmetic.
// The resize is libtorch's antialiased uint8 interpolate (a port of
// Pillow-SIMD's resampling), run in the order of passes Pillow 13 runs.
#include <torch/torch.h>

#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "qinfer/image/processor.h"

namespace qinfer::image {
namespace {

using Size = std::pair<int64_t, int64_t>;  // (height, width)

// get_resize_output_image_size(image, size, default_to_square=False):
// the short side to `size`, the long side int(size * long / short).
Size ShortestEdgeSize(int64_t h, int64_t w, int64_t size) {
  const int64_t short_side = std::min(h, w), long_side = std::max(h, w);
  const auto new_long = static_cast<int64_t>(static_cast<double>(size * long_side) / static_cast<double>(short_side));
  return w <= h ? Size{new_long, size} : Size{size, new_long};
}

// get_size_with_aspect_ratio((h, w), size, max_size).
Size AspectRatioSize(int64_t h, int64_t w, int64_t size, int64_t max_size) {
  std::optional<double> raw;
  const double min_side = static_cast<double>(std::min(h, w)), max_side = static_cast<double>(std::max(h, w));
  if (max_side / min_side * static_cast<double>(size) > static_cast<double>(max_size)) {
    raw = static_cast<double>(max_size) * min_side / max_side;
    size = static_cast<int64_t>(std::nearbyint(*raw));  // Python's round(): half to even
  }
  if ((h <= w && h == size) || (w <= h && w == size)) return {h, w};
  if (w < h) {
    const double oh = raw ? *raw * static_cast<double>(h) / static_cast<double>(w)
                          : static_cast<double>(size * h) / static_cast<double>(w);
    return {static_cast<int64_t>(oh), size};
  }
  const double ow = raw ? *raw * static_cast<double>(w) / static_cast<double>(h)
                        : static_cast<double>(size * w) / static_cast<double>(h);
  return {size, static_cast<int64_t>(ow)};
}

// get_image_size_for_max_height_width.
Size MaxHeightWidthSize(int64_t h, int64_t w, int64_t max_h, int64_t max_w) {
  const double scale = std::min(static_cast<double>(max_h) / static_cast<double>(h),
                                static_cast<double>(max_w) / static_cast<double>(w));
  return {static_cast<int64_t>(static_cast<double>(h) * scale), static_cast<int64_t>(static_cast<double>(w) * scale)};
}

// PilBackend.resize's size for this config (not ConvNeXt's).
Size ResizeSize(const ImageProcessor::Config& c, int64_t h, int64_t w) {
  if (c.shortest_edge > 0 && c.longest_edge > 0) return AspectRatioSize(h, w, c.shortest_edge, c.longest_edge);
  if (c.shortest_edge > 0) return ShortestEdgeSize(h, w, c.shortest_edge);
  if (c.max_height > 0) return MaxHeightWidthSize(h, w, c.max_height, c.max_width);
  return {c.height, c.width};
}

struct View {  // uint8 HWC pixels, not owned
  int64_t h = 0, w = 0;
  const uint8_t* px = nullptr;
};
struct Hwc {  // uint8 HWC pixels
  int64_t h = 0, w = 0;
  std::vector<uint8_t> px;
  View view() const { return {h, w, px.data()}; }
};

// Image.resize((w, h), filter) of an RGB image. Pillow 13 resamples
// vertically first when the height shrinks by more than twice the width's
// shrink (in pixels), horizontally first otherwise; each pass rounds to
// uint8, so the order shows in the result. One interpolate call is
// libtorch's horizontal-then-vertical; the other order is two calls.
Hwc Resize(View in, Size size, int resample) {
  const auto [nh, nw] = size;
  c10::InferenceMode guard;
  auto input = torch::from_blob(const_cast<uint8_t*>(in.px), {1, in.h, in.w, 3}, torch::kUInt8)
                   .permute({0, 3, 1, 2});
  namespace F = torch::nn::functional;
  using Mode = F::InterpolateFuncOptions::mode_t;
  const Mode mode = resample == 3 ? Mode(torch::kBicubic) : Mode(torch::kBilinear);
  const auto pass = [&](const torch::Tensor& t, int64_t h, int64_t w) {
    return F::interpolate(t, F::InterpolateFuncOptions()
                                 .size(std::vector<int64_t>{h, w})
                                 .mode(mode)
                                 .align_corners(false)
                                 .antialias(true));
  };
  const bool vertical_first = nh != in.h && nw != in.w && nh < in.h && (in.h - nh) > 2 * (in.w - nw);
  torch::Tensor out = vertical_first ? pass(pass(input, nh, in.w), nh, nw) : pass(input, nh, nw);
  // Read through the strides (the layout may be either): a .contiguous()
  // copy of this size would go to the intra-op pool.
  Hwc r{nh, nw, std::vector<uint8_t>(static_cast<size_t>(nh * nw * 3))};
  const uint8_t* data = out.data_ptr<uint8_t>();
  const int64_t sc = out.stride(1), sy = out.stride(2), sx = out.stride(3);
  for (int64_t y = 0; y < nh; ++y) {
    for (int64_t x = 0; x < nw; ++x) {
      for (int64_t c = 0; c < 3; ++c) r.px[static_cast<size_t>((y * nw + x) * 3 + c)] = data[c * sc + y * sy + x * sx];
    }
  }
  return r;
}

// image_transforms.center_crop: the (ch, cw) window around the centre,
// zero-padded where the image is smaller (the library's arithmetic, Python's
// floor division and ceil).
Hwc CenterCrop(View in, int64_t ch, int64_t cw) {
  const auto floor_div2 = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
  const auto axis = [&](int64_t size, int64_t crop, int64_t* pad, int64_t* first) {
    const int64_t start = floor_div2(size - crop);
    const int64_t padded = std::max(crop, size);
    *pad = (padded - size + 1) / 2;  // ceil((padded - size) / 2)
    *first = std::max<int64_t>(0, start + *pad);
  };
  int64_t top_pad, top, left_pad, left;
  axis(in.h, ch, &top_pad, &top);
  axis(in.w, cw, &left_pad, &left);
  Hwc r{ch, cw, std::vector<uint8_t>(static_cast<size_t>(ch * cw * 3), 0)};
  for (int64_t y = 0; y < ch; ++y) {
    const int64_t sy = top + y - top_pad;
    if (sy < 0 || sy >= in.h) continue;
    for (int64_t x = 0; x < cw; ++x) {
      const int64_t sx = left + x - left_pad;
      if (sx < 0 || sx >= in.w) continue;
      std::memcpy(&r.px[static_cast<size_t>((y * cw + x) * 3)], in.px + (sy * in.w + sx) * 3, 3);
    }
  }
  return r;
}

}  // namespace

std::pair<int64_t, int64_t> ImageProcessor::OutputSize(int64_t height, int64_t width) const {
  const Config& c = config_;
  Size s{height, width};
  if (c.do_resize) {
    if (c.type == "ConvNextImageProcessor") {
      s = {c.shortest_edge, c.shortest_edge};  // cropped to it below 384, warped to it from 384
    } else {
      s = ResizeSize(c, height, width);
    }
  }
  if (c.do_center_crop) s = {c.crop_height, c.crop_width};
  return s;
}

int64_t ImageProcessor::out_height() const {
  const Config& c = config_;
  if (c.do_center_crop) return c.crop_height;
  if (c.do_resize && (c.height > 0 || c.type == "ConvNextImageProcessor")) return OutputSize(1, 1).first;
  return 0;
}

int64_t ImageProcessor::out_width() const {
  const Config& c = config_;
  if (c.do_center_crop) return c.crop_width;
  if (c.do_resize && (c.height > 0 || c.type == "ConvNextImageProcessor")) return OutputSize(1, 1).second;
  return 0;
}

absl::StatusOr<PixelValues> ImageProcessor::Process(const RgbImage& image) const {
  const Config& c = config_;
  if (image.width <= 0 || image.height <= 0 ||
      image.rgb.size() != static_cast<size_t>(image.width * image.height * 3)) {
    return absl::InvalidArgumentError(absl::StrCat("image processor: a ", image.width, "x", image.height,
                                                   " image with ", image.rgb.size(), " bytes of RGB"));
  }
  // `img` holds the pixels once an operation made new ones; `view` the
  // current ones (the caller's until then).
  Hwc img;
  View view{image.height, image.width, image.rgb.data()};
  const auto set = [&](Hwc next) {
    img = std::move(next);
    view = img.view();
  };
  // Pillow returns a copy when the size is the same: nothing to do.
  // The library raises ValueError for a size of 0 (an extreme aspect ratio
  // under max_height/max_width or longest_edge): refused here too.
  absl::Status refused;
  const auto resize = [&](Size size) {
    if (size.first <= 0 || size.second <= 0) {
      refused = absl::InvalidArgumentError(absl::StrCat("image processor: a ", view.w, "x", view.h,
                                                        " image resizes to ", size.second, "x", size.first));
      return;
    }
    if (size != Size{view.h, view.w}) set(Resize(view, size, c.resample));
  };
  try {
    if (c.do_resize && c.type == "ConvNextImageProcessor") {
      if (c.shortest_edge < 384) {
        const auto resize_edge = static_cast<int64_t>(static_cast<double>(c.shortest_edge) / c.crop_pct);
        resize(ShortestEdgeSize(view.h, view.w, resize_edge));
        set(CenterCrop(view, c.shortest_edge, c.shortest_edge));
      } else {
        resize({c.shortest_edge, c.shortest_edge});
      }
    } else if (c.do_resize) {
      resize(ResizeSize(c, view.h, view.w));
    }
  } catch (const c10::Error& e) {
    return absl::InternalError(absl::StrCat("image processor: libtorch's resize failed: ", e.what_without_backtrace()));
  }
  if (!refused.ok()) return refused;
  if (c.do_center_crop) set(CenterCrop(view, c.crop_height, c.crop_width));
  // rescale: float32(float64(v) * factor); normalize: (x - mean) / std in
  // float32, as numpy computes them. One table per channel.
  float table[3][256];
  for (int ch = 0; ch < 3; ++ch) {
    for (int v = 0; v < 256; ++v) {
      float x = c.do_rescale ? static_cast<float>(static_cast<double>(v) * c.rescale_factor) : static_cast<float>(v);
      if (c.do_normalize) x = (x - c.image_mean[ch]) / c.image_std[ch];
      table[ch][v] = x;
    }
  }
  PixelValues out{3, view.h, view.w, std::vector<float>(static_cast<size_t>(3 * view.h * view.w))};
  const size_t plane = static_cast<size_t>(view.h * view.w);
  for (size_t i = 0; i < plane; ++i) {
    for (int ch = 0; ch < 3; ++ch) out.values[ch * plane + i] = table[ch][view.px[i * 3 + ch]];
  }
  return out;
}

}  // namespace qinfer::image
