// Image jobs: the decoder reads an image's bytes (`image`: base64 or a data:
// URI; `image_url`: file:// under inputs.image_roots, http(s)://), bounds
// them, decodes and prepares them with the model's image processor (the real
// image module over libpng), and refuses every bad input with a record that
// names the field. Images are PNGs written here with libpng; URLs are served
// by a real HTTP server on the loopback.
#include <gtest/gtest.h>
#include <httplib.h>
#include <png.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "decoder_paths.h"
#include "qinfer/consumer/decode_pool.h"
#include "qinfer/consumer/job_decoder.h"
#include "qinfer/image/processor.h"
#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::consumer {
namespace {

// A width x height RGB PNG of a gradient.
std::string Png(int width, int height) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = png_uint_32(width);
  image.height = png_uint_32(height);
  image.format = PNG_FORMAT_RGB;
  std::vector<uint8_t> pixels(size_t(width) * height * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = uint8_t((i * 7) % 251);
  png_alloc_size_t size = 0;
  EXPECT_TRUE(png_image_write_get_memory_size(image, size, 0, pixels.data(), 0, nullptr));
  std::string out(size, '\0');
  EXPECT_TRUE(png_image_write_to_memory(&image, out.data(), &size, 0, pixels.data(), 0, nullptr));
  out.resize(size);
  return out;
}

// A ViT-style processor: every image becomes 8x8, bilinear, rescaled and normalised.
constexpr const char* kProcessor = R"({"image_processor_type": "ViTImageProcessor", "do_resize": true,
  "size": {"height": 8, "width": 8}, "resample": 2, "do_rescale": true, "rescale_factor": 0.00392156862745098,
  "do_normalize": true, "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]})";

class ImageJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto processor = image::ImageProcessor::FromJson(kProcessor);
    ASSERT_TRUE(processor.ok()) << processor.status();
    processor_.emplace(*std::move(processor));
    limits_.vocab_size = 100;
    limits_.max_tokens = 16;
    limits_.image_processor = &*processor_;
    limits_.image_length = 5;
    limits_.image_stats = &stats_;
    root_ = std::filesystem::temp_directory_path() / ("qinfer-image-job-" + std::to_string(::getpid()));
    std::filesystem::create_directories(root_ / "in");
    limits_.image_roots = {std::filesystem::canonical(root_ / "in").string()};
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  Decoded Decode(const std::string& value) const {
    RawMessage m;
    m.value = value;
    m.origin = {"jobs", 0, 7, 1};
    return DecodeJob(m, limits_);
  }
  static std::string Inline(const std::string& bytes, const std::string& extra = "") {
    return R"({"id":"p1","image":")" + absl::Base64Escape(bytes) + "\"" + extra + "}";
  }
  static std::string Url(const std::string& url, const std::string& extra = "") {
    return R"({"id":"p1","image_url":")" + url + "\"" + extra + "}";
  }
  static Job OneJob(const Decoded& d) {
    const auto* jobs = std::get_if<std::vector<Job>>(&d);
    if (jobs == nullptr) {
      ADD_FAILURE() << "expected a job, got: " << std::get<Outcome>(d).error;
      return {};
    }
    EXPECT_EQ(jobs->size(), 1u);
    return jobs->front();
  }
  // The record, which must be a failure of `reason` whose error holds `words`.
  static Outcome Refused(const Decoded& d, const std::string& reason, const std::string& words) {
    const auto* out = std::get_if<Outcome>(&d);
    if (out == nullptr) {
      ADD_FAILURE() << "expected a failure record saying " << words;
      return {};
    }
    EXPECT_FALSE(out->ok);
    EXPECT_EQ(out->reason, reason) << out->error;
    EXPECT_NE(out->error.find(words), std::string::npos) << out->error;
    EXPECT_EQ(out->id, "p1");
    return *out;
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::filesystem::path path = root_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }

  std::optional<image::ImageProcessor> processor_;
  DecodeStats stats_;
  DecoderLimits limits_;
  std::filesystem::path root_;
};

TEST_F(ImageJobTest, AnInlineImageBecomesTheProcessorsPixelValuesAtTheImageLength) {
  const Job job = OneJob(Decode(Inline(Png(16, 12))));
  EXPECT_TRUE(job.is_image());
  EXPECT_EQ(job.pixels.size(), 3u * 8 * 8);
  EXPECT_EQ(job.pixel_height, 8);
  EXPECT_EQ(job.pixel_width, 8);
  EXPECT_EQ(job.length(), 5u) << "an image's length is its tower's (the manifest's image.length)";
  EXPECT_TRUE(job.input_ids.empty());
  for (float v : job.pixels) ASSERT_TRUE(v >= -1.0f && v <= 1.0f) << "normalised with mean and std 0.5";
  // The same bytes as a data: URI give the same pixel values.
  const std::string uri = R"({"id":"p1","image":"data:image/png;base64,)" + absl::Base64Escape(Png(16, 12)) + "\"}";
  EXPECT_EQ(OneJob(Decode(uri)).pixels, job.pixels);
  EXPECT_EQ(stats_.image_jobs.load(), 2u);
  EXPECT_GT(stats_.image_decode_ns.load(), 0u);
}

TEST_F(ImageJobTest, BadInlineImagesAreRecordsNamingTheField) {
  Refused(Decode(R"({"id":"p1","image":"not base64!"})"), reason::kInvalid, "`image` is not base64");
  Refused(Decode(R"({"id":"p1","image":"data:text/plain;base64,aGVsbG8="})"), reason::kInvalid, "data:image/");
  Refused(Decode(Inline("hello, this is no image")), reason::kInvalid, "`image`");
  const std::string png = Png(16, 12);
  Refused(Decode(Inline(png.substr(0, png.size() / 2))), reason::kInvalid, "`image`");
  Refused(Decode(R"({"id":"p1","image":""})"), reason::kInvalid, "`image` is empty");
  Refused(Decode(R"({"id":"p1","image":7})"), reason::kInvalid, "`image` must be a string");
  EXPECT_EQ(stats_.image_source.load(), 2u) << "not base64, and a data: URI that is no image's";
  EXPECT_EQ(stats_.image_unsupported.load() + stats_.image_corrupt.load(), 2u);
  EXPECT_EQ(stats_.image_jobs.load(), 0u);
}

TEST_F(ImageJobTest, ExactlyOneInputAndImageFieldsOnlyWhereTheModelTakesThem) {
  const std::string b64 = absl::Base64Escape(Png(4, 4));
  Refused(Decode(R"({"id":"p1","text":"a","image":")" + b64 + "\"}"), reason::kInvalid, "exactly one of");
  Refused(Decode(R"({"id":"p1","image_url":"file:///x","image":")" + b64 + "\"}"), reason::kInvalid,
          "exactly one of");
  Refused(Decode(R"({"id":"p1","text":"a","candidate_labels":["cat"]})"), reason::kInvalid,
          "`candidate_labels` goes with an image");
  Refused(Decode(Inline(Png(4, 4), R"(,"text_pair":"b")")), reason::kInvalid, "`text_pair` goes with text");
  Refused(Decode(Inline(Png(4, 4), R"(,"truncate_to":3)")), reason::kInvalid, "`truncate_to` goes with a text");
  Refused(Decode(Inline(Png(4, 4), R"(,"policy":"chunk")")), reason::kInvalid, "an image takes resize");
  Refused(Decode(R"({"id":"p1","input_ids":[1,2],"policy":"resize"})"), reason::kInvalid, "resize is for image");
  // A text-only model refuses an image; a vision-only model a text.
  DecoderLimits text_only = limits_;
  text_only.image_processor = nullptr;
  RawMessage m;
  const std::string inline_image = Inline(Png(4, 4));
  m.value = inline_image;
  Refused(DecodeJob(m, text_only), reason::kInvalid, "`image`: this model takes no images");
  DecoderLimits vision_only = limits_;
  vision_only.takes_tokens = false;
  m.value = R"({"id":"p1","input_ids":[1,2]})";
  Refused(DecodeJob(m, vision_only), reason::kInvalid, "`input_ids`: this model takes images only");
  m.value = R"({"id":"p1"})";
  Refused(DecodeJob(m, vision_only), reason::kInvalid, "`image` is missing");
  Refused(Decode(Inline(Png(4, 4), R"(,"candidate_labels":["cat"])")), reason::kInvalid, "no text tower");
}

TEST_F(ImageJobTest, BoundsHoldBeforeDecodingAndPolicyResizeScalesDownToThePixelBound) {
  limits_.max_image_bytes = 64;
  Refused(Decode(Inline(Png(64, 64))), reason::kTooLarge, "limits.max_image_bytes 64");
  limits_.max_image_bytes = size_t{1} << 20;
  limits_.max_image_pixels = 1000;
  const Outcome big = Refused(Decode(Inline(Png(100, 40))), reason::kTooLarge, "--policy resize");
  EXPECT_FALSE(big.payload.empty()) << "the record keeps the message, so that replay can send it again";
  EXPECT_EQ(stats_.image_too_large.load(), 2u);
  const Job resized = OneJob(Decode(Inline(Png(100, 40), R"(,"policy":"resize")")));
  EXPECT_EQ(resized.policy, "resize");
  EXPECT_EQ(resized.pixels.size(), 3u * 8 * 8);
  const Job small = OneJob(Decode(Inline(Png(20, 20), R"(,"policy":"resize")")));
  EXPECT_EQ(small.policy, "") << "policy resize is applied only where the image is over the bound";
}

TEST_F(ImageJobTest, FileUrlsReadOnlyUnderTheImageRoots) {
  const std::string inside = Write("in/a.png", Png(10, 10));
  const Job job = OneJob(Decode(Url("file://" + inside)));
  EXPECT_EQ(job.pixels, OneJob(Decode(Inline(Png(10, 10)))).pixels);
  const std::string outside = Write("b.png", Png(10, 10));
  Refused(Decode(Url("file://" + outside)), reason::kInvalid, "outside inputs.image_roots");
  // A link inside the root to a file outside it is outside.
  std::filesystem::create_symlink(outside, root_ / "in" / "link.png");
  Refused(Decode(Url("file://" + (root_ / "in" / "link.png").string())), reason::kInvalid, "outside");
  Refused(Decode(Url("file://" + (root_ / "in" / "missing.png").string())), reason::kInvalid, "`image_url`");
  Refused(Decode(Url("file://" + (root_ / "in" / ".." / "b.png").string())), reason::kInvalid, "outside");
  Refused(Decode(Url("ftp://host/a.png")), reason::kInvalid, "file:// URL");
  limits_.max_image_bytes = 16;
  Refused(Decode(Url("file://" + inside)), reason::kTooLarge, "limits.max_image_bytes");
  limits_.image_roots.clear();
  Refused(Decode(Url("file://" + inside)), reason::kInvalid, "inputs.image_roots names no directory");
}

TEST_F(ImageJobTest, HttpUrlsAreFetchedWithinTheTimeTheBytesAndTheRedirects) {
  const std::string png = Png(12, 12);
  httplib::Server server;
  server.Get("/a.png", [&](const httplib::Request&, httplib::Response& res) { res.set_content(png, "image/png"); });
  server.Get("/hop", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/a.png"); });
  server.Get("/loop", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/loop"); });
  server.Get("/gone", [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
  server.Get("/slow", [&](const httplib::Request&, httplib::Response& res) {
    // Answers long after the client's 0.3 s have run out, whatever this machine's speed.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    res.set_content(png, "image/png");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const Job job = OneJob(Decode(Url(base + "/a.png")));
  EXPECT_EQ(job.pixels, OneJob(Decode(Inline(png))).pixels);
  EXPECT_EQ(OneJob(Decode(Url(base + "/hop"))).pixels, job.pixels);
  Refused(Decode(Url(base + "/loop")), reason::kInvalid, "more than 3 redirects");
  Refused(Decode(Url(base + "/gone")), reason::kInvalid, "HTTP status 404");
  limits_.image_url_timeout_seconds = 0.3;
  Refused(Decode(Url(base + "/slow")), reason::kInvalid, "no answer within");
  limits_.image_url_timeout_seconds = 10;
  limits_.max_image_bytes = 32;
  Refused(Decode(Url(base + "/a.png")), reason::kTooLarge, "limits.max_image_bytes 32");
  server.stop();
  serving.join();
}

TEST_F(ImageJobTest, CandidateLabelsAreTokenizedInTheHypothesisTemplate) {
  auto tokenizer = tokenizer::Tokenizer::Load(QINFER_TINY_TOKENIZER);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  limits_.tokenizer = tokenizer->get();
  limits_.hypothesis_template = "this is {}";
  limits_.task = "zero_shot";
  const Job job = OneJob(Decode(Inline(Png(9, 9), R"(,"candidate_labels":["one","two three"])")));
  ASSERT_EQ(job.candidate_labels, (std::vector<std::string>{"one", "two three"}));
  ASSERT_EQ(job.label_ids.size(), 2u);
  EXPECT_EQ(job.label_ids[0], (*tokenizer)->Encode("this is one")->Ids());
  EXPECT_EQ(job.label_ids[1], (*tokenizer)->Encode("this is two three")->Ids());
  const Job own = OneJob(Decode(Inline(Png(9, 9), R"(,"candidate_labels":["one"],"hypothesis_template":"{} !")")));
  EXPECT_EQ(own.label_ids[0], (*tokenizer)->Encode("one !")->Ids());
  Refused(Decode(Inline(Png(9, 9), R"(,"candidate_labels":[])")), reason::kInvalid, "non-empty array");
  Refused(Decode(Inline(Png(9, 9), R"(,"candidate_labels":["a",3])")), reason::kInvalid, "`candidate_labels[1]`");
  Refused(Decode(Inline(Png(9, 9), R"(,"candidate_labels":"cat")")), reason::kInvalid, "non-empty array");
  Refused(Decode(Inline(Png(9, 9), R"(,"candidate_labels":["a"],"hypothesis_template":"no slot")")),
          reason::kInvalid, "must hold {} once");
  Refused(Decode(Inline(Png(9, 9), R"(,"hypothesis_template":"{}")")), reason::kInvalid,
          "goes with `candidate_labels`");
  Refused(Decode(Inline(Png(9, 9), R"(,"candidate_labels":["a"],"dimensions":4)")), reason::kInvalid,
          "labels and scores");
  // Without labels, an image job to a zero-shot model is an embedding, `dimensions` and all.
  EXPECT_EQ(OneJob(Decode(Inline(Png(9, 9), R"(,"dimensions":4)"))).dimensions, 4);
}

}  // namespace
}  // namespace qinfer::consumer
