// A checkpoint's image processor: decoded RGB pixels to the model's
// pixel_values, equal to what transformers' PIL backend computes (5.24:
// PilBackend and the classes below) for an image that load_image gave it.
//
// Implemented classes (the saved "image_processor_type", with or without
// the "Pil" suffix; an old "feature_extractor_type" XFeatureExtractor is
// read as XImageProcessor, as AutoImageProcessor reads it):
//   CLIPImageProcessor     shortest_edge resize, center crop (bicubic)
//   SiglipImageProcessor   height/width resize
//   ViTImageProcessor      height/width resize (bilinear)
//   BitImageProcessor      shortest_edge resize, center crop (DINOv2's)
//   ConvNextImageProcessor crop_pct rule (shortest_edge < 384: resize to
//                          shortest_edge / crop_pct, crop; else warp)
// Sizes: {"height","width"}, {"shortest_edge"} (the long side truncated as
// get_resize_output_image_size computes it), {"shortest_edge",
// "longest_edge"} (get_size_with_aspect_ratio), {"max_height","max_width"},
// or an int/list as get_size_dict reads them. Resample: 2 bilinear,
// 3 bicubic (Pillow's enum), resized with Pillow's filters and antialiasing
// (libtorch's uint8 antialiased interpolate, a port of Pillow-SIMD's
// resampling, within 1-2 levels of 255 of Pillow; the pass order as
// Pillow 13 chooses it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/image/decode.h"

namespace qinfer::image {

// One image's pixel values: CHW float32, as pixel_values[i].
struct PixelValues {
  int64_t channels = 3, height = 0, width = 0;
  std::vector<float> values;
};

// Immutable once made; Process is safe to call from several threads at once.
class ImageProcessor {
 public:
  // From the image processor's JSON: a checkpoint's preprocessor_config.json,
  // or a processor_config.json whose "image_processor" object holds it.
  // Keys missing from the JSON take the class's defaults, as the library's
  // class attributes give them. InvalidArgument, naming it, for: JSON that
  // does not parse, a key the library's processors do not have, an
  // image_processor_type not implemented here, a value of the wrong type,
  // and an option not implemented here being on (do_pad true, a resample
  // other than bilinear or bicubic, a data_format other than
  // channels_first).
  static absl::StatusOr<ImageProcessor> FromJson(std::string_view json);
  // FromJson of the file's contents; NotFound when it cannot be read.
  static absl::StatusOr<ImageProcessor> FromFile(const std::string& path);

  // Resize, center crop, rescale, normalize as configured. InvalidArgument
  // for an empty image or one whose buffer does not match its size;
  // Internal when libtorch fails (its message).
  //
  // Threads: runs on the calling thread. libtorch's uint8 antialiased
  // resize (its AVX2 kernel) does not use the intra-op pool, so several
  // decode workers each take one core (a test checks the process's CPU
  // time); on a CPU without AVX2 libtorch's generic kernel may use the
  // intra-op pool, whose size the caller sets (at::set_num_threads).
  absl::StatusOr<PixelValues> Process(const RgbImage& image) const;

  // The fixed size every image becomes (the crop size, the height/width, or
  // ConvNeXt's square), for the model's one shape. 0 when the output size
  // depends on the image (a shortest_edge or max_height/max_width resize
  // without a crop; see OutputSize).
  int64_t out_height() const;
  int64_t out_width() const;
  // The (height, width) an image of this size becomes.
  std::pair<int64_t, int64_t> OutputSize(int64_t height, int64_t width) const;

  // The implemented class the JSON named, e.g. "CLIPImageProcessor" (for
  // manifests and messages).
  const std::string& type() const { return config_.type; }

  // The configuration as read (the class's defaults filled in).
  struct Config {
    std::string type;
    bool do_resize = false, do_center_crop = false, do_rescale = false, do_normalize = false;
    // size: one of the forms below, the others 0.
    int64_t height = 0, width = 0, shortest_edge = 0, longest_edge = 0, max_height = 0, max_width = 0;
    int64_t crop_height = 0, crop_width = 0;
    int resample = 2;  // Pillow's enum: 2 bilinear, 3 bicubic
    double rescale_factor = 1.0 / 255;
    double crop_pct = 0;  // ConvNeXt only
    float image_mean[3] = {0, 0, 0}, image_std[3] = {1, 1, 1};
  };
  const Config& config() const { return config_; }

 private:
  explicit ImageProcessor(Config config) : config_(std::move(config)) {}
  Config config_;
};

}  // namespace qinfer::image
