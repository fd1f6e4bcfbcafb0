#include "qinfer/core/output_encoding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "absl/strings/escaping.h"
#include "qinfer/core/outcome_json.h"

namespace qinfer {
namespace {

std::vector<int> Bytes(const std::string& bytes, bool signed_bytes) {
  std::vector<int> out;
  for (char c : bytes) out.push_back(signed_bytes ? int(int8_t(c)) : int(uint8_t(c)));
  return out;
}

// ubinary is numpy.packbits(x > 0): the first value the highest bit, the
// last byte zero-padded; binary is the same bytes minus 128, as int8. The
// values are quantize_embeddings(np.array([[0.5, -1, 0, 2, 3, 4, 5, 6, 7]]),
// "ubinary" | "binary"): [[159, 128]] and [[31, 0]].
TEST(OutputEncodingTest, BinaryAndUbinaryArePackedSignsAsQuantizeEmbeddingsPacksThem) {
  const std::vector<float> x = {0.5f, -1.0f, 0.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f};
  EXPECT_EQ(Bytes(EncodeOutput(x, encoding::kUbinary, nullptr), false), (std::vector<int>{159, 128}));
  EXPECT_EQ(Bytes(EncodeOutput(x, encoding::kBinary, nullptr), true), (std::vector<int>{31, 0}));
  EXPECT_EQ(*DecodedOutputJson(EncodeOutput(x, encoding::kUbinary, nullptr), encoding::kUbinary), "[159,128]");
  EXPECT_EQ(*DecodedOutputJson(EncodeOutput(x, encoding::kBinary, nullptr), encoding::kBinary), "[31,0]");
  EXPECT_EQ(EncodeOutput(std::vector<float>(384, 1.0f), encoding::kUbinary, nullptr).size(), 48u);
}

// int8 / uint8 with ranges: bucket = floor((x - min) / ((max - min) / 255))
// in float32, clipped to [0, 255], a step of 0 taken as 1; int8 = bucket -
// 128. quantize_embeddings(x, "int8" | "uint8", ranges=r) of these values
// gives [[-1, 126, -128, 127, -128, -90, -65]] and [[127, 254, 0, 255, 0,
// 38, 63]]: 1.0 lands in bucket 254 (float32 rounding), 2.0 is clipped, and
// the dimension whose minimum equals its maximum takes a step of 1.
TEST(OutputEncodingTest, Int8AndUint8BucketValuesByTheRangesAsTheLibraryDoes) {
  const std::vector<float> x = {0.0f, 1.0f, -1.0f, 2.0f, 0.3f, -0.7f, 0.25f};
  const QuantizationRanges r{{-1, -1, -1, -1, 0.3f, -1, 0}, {1, 1, 1, 1, 0.3f, 1, 1}};
  EXPECT_EQ(Bytes(EncodeOutput(x, encoding::kInt8, &r), true), (std::vector<int>{-1, 126, -128, 127, -128, -90, -65}));
  EXPECT_EQ(Bytes(EncodeOutput(x, encoding::kUint8, &r), false), (std::vector<int>{127, 254, 0, 255, 0, 38, 63}));
  // A job's `dimensions` keeps the first N values: the first N ranges apply.
  EXPECT_EQ(Bytes(EncodeOutput(std::span(x).first(2), encoding::kUint8, &r), false), (std::vector<int>{127, 254}));
}

TEST(OutputEncodingTest, Base64IsLittleEndianFloat32AndDecodesToTheSameFloats) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::vector<float> x(384);
  for (float& v : x) v = normal(rng);
  x[0] = 0.1f;
  x[1] = -0.0f;
  x[2] = 1e-30f;
  const std::string bytes = EncodeOutput(x, encoding::kBase64, nullptr);
  ASSERT_EQ(bytes.size(), 4 * x.size());
  uint32_t first;
  std::memcpy(&first, bytes.data(), 4);
  EXPECT_EQ(first, 0x3dcccccdu) << "0.1f, least significant byte first";
  absl::StatusOr<std::vector<float>> back = FloatsOfBase64Output(bytes);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), x.size());
  EXPECT_EQ(std::memcmp(back->data(), x.data(), bytes.size()), 0) << "bit for bit";
  EXPECT_FALSE(FloatsOfBase64Output("abc").ok()) << "3 bytes are not a float";
}

TEST(OutputEncodingTest, NamesAndRangesAreCheckedAndErrorsSayWhy) {
  for (const char* name : {"float", "base64", "binary", "ubinary", "int8", "uint8"}) EXPECT_TRUE(IsOutputEncoding(name));
  EXPECT_FALSE(IsOutputEncoding("float32"));
  EXPECT_TRUE(NeedsRanges("int8"));
  EXPECT_FALSE(NeedsRanges("binary"));
  absl::StatusOr<QuantizationRanges> r = QuantizationRangesFromJson("[[-1, 0.5], [1, 2]]", "f");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, (QuantizationRanges{{-1, 0.5f}, {1, 2}}));
  for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
           {"nope", "not JSON"},
           {"[[1, 2]]", "not two arrays"},
           {"[[1], [1, 2]]", "the two arrays are empty or of different lengths"},
           {"[[], []]", "the two arrays are empty"},
           {"[[1, \"x\"], [1, 2]]", "a value is not a finite number"},
           {"[[3, 0], [1, 2]]", "dimension 0's minimum is above its maximum"}}) {
    absl::StatusOr<QuantizationRanges> bad = QuantizationRangesFromJson(text, "ranges.json");
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_NE(bad.status().message().find("ranges.json: " + why), std::string::npos) << bad.status();
  }
}

Outcome EncodedResult(const std::vector<float>& x, const char* name) {
  Outcome o;
  o.id = "e-1";
  o.ok = true;
  o.device = "cpu";
  o.model_name = "m";
  o.model_digest = "sha256:ab";
  o.input_length = 3;
  o.completed_at_ms = 5;
  o.meta_json = R"({"encoding":"not this one","output":"nor this"})";
  if (std::string_view(name) == encoding::kFloat) {
    o.output = x;
  } else {
    o.encoding = name;
    o.output_bytes = EncodeOutput(x, name, nullptr);
  }
  return o;
}

// The record keeps the bytes as base64 text beside "encoding"; it reads
// back as written, and --decode makes a base64 record byte for byte the
// float record of the same values.
TEST(OutputEncodingTest, EncodedRecordsRoundTripAndDecodeToTheFloatRecord) {
  const std::vector<float> x = {0.1f, -0.25f, 3.0f, 1e-8f};
  const std::string as_float = OutcomeToJson(EncodedResult(x, encoding::kFloat));
  const std::string as_base64 = OutcomeToJson(EncodedResult(x, encoding::kBase64));
  EXPECT_NE(as_base64.find(R"("encoding":"base64")"), std::string::npos) << as_base64;
  EXPECT_NE(as_base64.find(R"("output":")" + absl::Base64Escape(EncodeOutput(x, "base64", nullptr)) + "\""),
            std::string::npos);
  absl::StatusOr<Outcome> back = OutcomeFromJson(as_base64);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, EncodedResult(x, encoding::kBase64));
  EXPECT_EQ(*WithDecodedOutput(as_base64), as_float);
  EXPECT_EQ(*WithDecodedOutput(as_float), as_float) << "nothing to decode";

  const std::string as_ubinary = OutcomeToJson(EncodedResult(x, encoding::kUbinary));
  const std::string decoded = *WithDecodedOutput(as_ubinary);
  EXPECT_NE(decoded.find(R"("encoding":"ubinary")"), std::string::npos) << "kept: it says what the integers are";
  EXPECT_NE(decoded.find(R"("output":[176])"), std::string::npos) << decoded;  // 1011 0000
  EXPECT_NE(decoded.find(R"("meta":{"encoding":"not this one","output":"nor this"})"), std::string::npos)
      << "meta's members of the same names are left alone: " << decoded;

  // A vector a token (token_embed) in base64: "rows" says how the bytes split.
  Outcome rows = EncodedResult(x, encoding::kBase64);
  rows.output_rows = 2;
  const std::string as_rows = OutcomeToJson(rows);
  EXPECT_NE(as_rows.find(R"(,"rows":2,)"), std::string::npos) << as_rows;
  EXPECT_EQ(*OutcomeFromJson(as_rows), rows);
  Outcome nested = EncodedResult(x, encoding::kFloat);
  nested.output_rows = 2;
  EXPECT_EQ(*WithDecodedOutput(as_rows), OutcomeToJson(nested)) << "the float record, a vector a token";

  std::string unknown = as_base64;
  unknown.replace(unknown.find("\"base64\""), 8, "\"base65\"");
  EXPECT_FALSE(OutcomeFromJson(unknown).ok());
  EXPECT_FALSE(WithDecodedOutput(unknown).ok());
}

}  // namespace
}  // namespace qinfer
