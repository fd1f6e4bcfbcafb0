// ImageProcessor: what FromJson accepts and refuses (by name), the output
// sizes, extreme shapes through Process, and that Process keeps to the
// calling thread. Parity of the values with transformers is
// tests/python/test_image_prep.py.
#include "qinfer/image/processor.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>

#include "test_images.h"

namespace qinfer::image {
namespace {

constexpr std::string_view kClip = R"({
  "crop_size": {"height": 224, "width": 224}, "do_center_crop": true, "do_convert_rgb": true,
  "do_normalize": true, "do_rescale": true, "do_resize": true,
  "image_mean": [0.48145466, 0.4578275, 0.40821073], "image_processor_type": "CLIPImageProcessor",
  "image_std": [0.26862954, 0.26130258, 0.27577711], "resample": 3,
  "rescale_factor": 0.00392156862745098, "size": {"shortest_edge": 224}})";

std::string Error(std::string_view json) {
  absl::StatusOr<ImageProcessor> p = ImageProcessor::FromJson(json);
  EXPECT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << p.status();
  return std::string(p.status().message());
}

RgbImage Image(int width, int height) { return {width, height, testing::Gradient(width, height)}; }

TEST(ProcessorTest, ReadsACLIPConfigInEitherSpellingAndNested) {
  for (const std::string& json :
       {std::string(kClip), std::string(R"({"image_processor_type": "CLIPImageProcessorPil"})"),
        std::string(R"({"feature_extractor_type": "CLIPFeatureExtractor", "size": 224, "crop_size": 224})"),
        R"({"processor_class": "CLIPProcessor", "image_processor": )" + std::string(kClip) + "}"}) {
    absl::StatusOr<ImageProcessor> p = ImageProcessor::FromJson(json);
    ASSERT_TRUE(p.ok()) << p.status() << " for " << json;
    EXPECT_EQ(p->type(), "CLIPImageProcessor");
    EXPECT_EQ(p->out_height(), 224);
    EXPECT_EQ(p->out_width(), 224);
    EXPECT_EQ(p->config().shortest_edge, 224);
    EXPECT_EQ(p->config().resample, 3);
  }
}

TEST(ProcessorTest, RefusesByNameWhatItDoesNotImplement) {
  EXPECT_EQ(Error(R"({"image_processor_type": "CLIPImageProcessor", "do_flip": true})"),
            "image processor: unknown key \"do_flip\"");
  EXPECT_EQ(Error(R"({"image_processor_type": "LlavaNextImageProcessor"})"),
            "image processor: image_processor_type \"LlavaNextImageProcessor\" is not implemented (implemented: "
            "CLIPImageProcessor, SiglipImageProcessor, ViTImageProcessor, BitImageProcessor, "
            "ConvNextImageProcessor)");
  EXPECT_EQ(Error(R"({"image_processor_type": "ViTImageProcessor", "do_pad": true})"),
            "image processor: do_pad true is not implemented");
  EXPECT_EQ(Error(R"({"image_processor_type": "ViTImageProcessor", "resample": 1})"),
            "image processor: resample 1 (LANCZOS) is not implemented (2 BILINEAR or 3 BICUBIC)");
  EXPECT_EQ(Error(R"({"image_processor_type": "ViTImageProcessor", "resample": 0})"),
            "image processor: resample 0 (NEAREST) is not implemented (2 BILINEAR or 3 BICUBIC)");
  EXPECT_EQ(Error(R"({"image_processor_type": "ViTImageProcessor", "size": {"longest_edge": 500}})"),
            "image processor: size with keys {longest_edge} is not implemented ({height, width}, {shortest_edge}, "
            "{shortest_edge, longest_edge} or {max_height, max_width} expected)");
  EXPECT_EQ(Error(R"({"image_processor_type": "ViTImageProcessor", "do_resize": "yes"})"),
            "image processor: do_resize must be true or false");
  EXPECT_EQ(Error("{"), "image processor: not a JSON object");
  EXPECT_EQ(Error("{}"), "image processor: no image_processor_type (or feature_extractor_type) names the class");
}

TEST(ProcessorTest, FillsMissingKeysWithTheClassDefaults) {
  absl::StatusOr<ImageProcessor> vit = ImageProcessor::FromJson(R"({"image_processor_type": "ViTImageProcessor"})");
  ASSERT_TRUE(vit.ok()) << vit.status();
  EXPECT_EQ(vit->config().resample, 2);
  EXPECT_EQ(vit->out_height(), 224);
  EXPECT_FALSE(vit->config().do_center_crop);
  EXPECT_FLOAT_EQ(vit->config().image_mean[0], 0.5f);
  // An int size is square for ViT (default_to_square) and a shortest edge for CLIP.
  vit = ImageProcessor::FromJson(R"({"image_processor_type": "ViTImageProcessor", "size": 384})");
  ASSERT_TRUE(vit.ok());
  EXPECT_EQ(vit->out_width(), 384);
  absl::StatusOr<ImageProcessor> clip =
      ImageProcessor::FromJson(R"({"image_processor_type": "CLIPImageProcessor", "size": 256,
                                   "do_center_crop": false})");
  ASSERT_TRUE(clip.ok());
  EXPECT_EQ(clip->config().shortest_edge, 256);
  EXPECT_EQ(clip->out_height(), 0);  // depends on the image
  EXPECT_EQ(clip->OutputSize(300, 600), (std::pair<int64_t, int64_t>{256, 512}));
  absl::StatusOr<ImageProcessor> convnext =
      ImageProcessor::FromJson(R"({"image_processor_type": "ConvNextImageProcessor", "size": 224})");
  ASSERT_TRUE(convnext.ok()) << convnext.status();
  EXPECT_EQ(convnext->out_height(), 224);
  EXPECT_DOUBLE_EQ(convnext->config().crop_pct, 0.875);
}

TEST(ProcessorTest, TakesOnePixelAndExtremeAspectRatiosToTheModelsShape) {
  absl::StatusOr<ImageProcessor> clip = ImageProcessor::FromJson(kClip);
  absl::StatusOr<ImageProcessor> siglip = ImageProcessor::FromJson(
      R"({"image_processor_type": "SiglipImageProcessor", "resample": 2, "size": {"height": 64, "width": 48}})");
  ASSERT_TRUE(clip.ok() && siglip.ok());
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{1, 500}, std::pair{500, 1}, std::pair{3000, 4}}) {
    for (const ImageProcessor* p : {&*clip, &*siglip}) {
      absl::StatusOr<PixelValues> pv = p->Process(Image(w, h));
      ASSERT_TRUE(pv.ok()) << pv.status();
      EXPECT_EQ(pv->channels, 3);
      EXPECT_EQ(pv->height, p->out_height()) << w << "x" << h;
      EXPECT_EQ(pv->width, p->out_width()) << w << "x" << h;
      ASSERT_EQ(pv->values.size(), size_t(3 * pv->height * pv->width));
      for (float v : pv->values) ASSERT_TRUE(std::isfinite(v));
    }
  }
}

TEST(ProcessorTest, NormalizesAsNumpyDoesInFloat32) {
  absl::StatusOr<ImageProcessor> p = ImageProcessor::FromJson(
      R"({"image_processor_type": "ViTImageProcessor", "do_resize": false})");
  ASSERT_TRUE(p.ok());
  absl::StatusOr<PixelValues> pv = p->Process(RgbImage{1, 1, {0, 128, 255}});
  ASSERT_TRUE(pv.ok());
  const auto expect = [](int v) { return (static_cast<float>(v * (1.0 / 255)) - 0.5f) / 0.5f; };
  EXPECT_EQ(pv->values, (std::vector<float>{expect(0), expect(128), expect(255)}));
}

TEST(ProcessorTest, RefusesAnImageWhoseBufferDoesNotMatchItsSize) {
  absl::StatusOr<ImageProcessor> p = ImageProcessor::FromJson(kClip);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->Process(RgbImage{2, 2, {1, 2, 3}}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p->Process(RgbImage{}).status().code(), absl::StatusCode::kInvalidArgument);
}

// Several decode workers each call Process: it must not fan out to
// libtorch's intra-op pool (which would have them fight for the cores).
TEST(ProcessorTest, ProcessRunsOnTheCallingThreadAlone) {
  absl::StatusOr<ImageProcessor> p = ImageProcessor::FromJson(kClip);
  ASSERT_TRUE(p.ok());
  const RgbImage big = Image(2400, 1800);
  ASSERT_TRUE(p->Process(big).ok());  // warm up
  const auto cpu_seconds = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  };
  const double cpu0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(p->Process(big).ok());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpu_seconds() - cpu0;
  EXPECT_LT(cpu, 1.25 * wall + 0.02) << "cpu " << cpu << " s over " << wall << " s of wall time";
}

}  // namespace
}  // namespace qinfer::image
