#include "qinfer/core/output_encoding.h"

#include <bit>
#include <cmath>
#include <cstring>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "qinfer/core/json_scan.h"

namespace qinfer {

static_assert(std::endian::native == std::endian::little, "base64 outputs are little-endian float32, written as held");

namespace {

constexpr const char* kNames[] = {encoding::kFloat,  encoding::kBase64, encoding::kBinary,
                                  encoding::kUbinary, encoding::kInt8,   encoding::kUint8};

// numpy.packbits(values > 0): a bit a value, most significant first.
std::string PackedSigns(std::span<const float> values) {
  std::string bytes((values.size() + 7) / 8, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] > 0) bytes[i / 8] = char(uint8_t(bytes[i / 8]) | (0x80u >> (i % 8)));
  }
  return bytes;
}

// quantize_embeddings' int8 / uint8 steps, in float32 as numpy computes
// them: step = (max - min) / 255 (1 where that is 0), the value's bucket
// floor((x - min) / step) clipped to [0, 255]; int8 is the bucket - 128.
std::string Quantized(std::span<const float> values, const QuantizationRanges& ranges, bool signed_bytes) {
  std::string bytes(values.size(), '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const float start = ranges.min[i];
    float step = (ranges.max[i] - start) / 255.0f;
    if (step == 0.0f) step = 1.0f;
    const float bucket = std::fmin(std::fmax(std::floor((values[i] - start) / step), 0.0f), 255.0f);
    const int q = std::isnan(bucket) ? 0 : int(bucket);
    bytes[i] = char(uint8_t(signed_bytes ? q - 128 : q));
  }
  return bytes;
}

}  // namespace

bool IsOutputEncoding(std::string_view name) {
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

std::string OutputEncodingNames() {
  std::string names;
  for (const char* n : kNames) absl::StrAppend(&names, names.empty() ? "" : ", ", n);
  return names;
}

bool NeedsRanges(std::string_view name) { return name == encoding::kInt8 || name == encoding::kUint8; }

absl::StatusOr<QuantizationRanges> QuantizationRangesFromJson(std::string_view text, std::string_view what) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(std::string(what) + ": " + why +
                                      " (int8 ranges are [[min, ...], [max, ...]], one minimum and maximum a "
                                      "dimension: numpy's ranges.tolist())");
  };
  if (j.is_discarded()) return bad("not JSON");
  if (!j.is_array() || j.size() != 2 || !j[0].is_array() || !j[1].is_array()) return bad("not two arrays");
  if (j[0].empty() || j[0].size() != j[1].size()) return bad("the two arrays are empty or of different lengths");
  QuantizationRanges ranges;
  for (size_t row = 0; row < 2; ++row) {
    std::vector<float>& out = row == 0 ? ranges.min : ranges.max;
    for (const nlohmann::json& v : j[row]) {
      if (!v.is_number() || !std::isfinite(v.get<double>())) return bad("a value is not a finite number");
      out.push_back(v.get<float>());
    }
  }
  for (size_t i = 0; i < ranges.dim(); ++i) {
    if (ranges.min[i] > ranges.max[i]) return bad(absl::StrCat("dimension ", i, "'s minimum is above its maximum"));
  }
  return ranges;
}

std::string EncodeOutput(std::span<const float> values, std::string_view encoding,
                         const QuantizationRanges* ranges) {
  if (encoding == encoding::kBase64) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size_bytes());
  }
  if (encoding == encoding::kUbinary || encoding == encoding::kBinary) {
    std::string bytes = PackedSigns(values);
    if (encoding == encoding::kBinary) {
      for (char& b : bytes) b = char(uint8_t(uint8_t(b) - 128));
    }
    return bytes;
  }
  return Quantized(values, *ranges, encoding == encoding::kInt8);
}

absl::Status FloatsOfBase64Output(std::string_view bytes, std::vector<float>& out) {
  if (bytes.size() % sizeof(float) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a base64 output of ", bytes.size(), " bytes is not a whole number of float32 values"));
  }
  out.resize(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> FloatsOfBase64Output(std::string_view bytes) {
  std::vector<float> values;
  if (absl::Status s = FloatsOfBase64Output(bytes, values); !s.ok()) return s;
  return values;
}

absl::StatusOr<std::string> DecodedOutputJson(std::string_view bytes, std::string_view encoding) {
  std::string out;
  if (encoding == encoding::kBase64) {
    absl::StatusOr<std::vector<float>> values = FloatsOfBase64Output(bytes);
    if (!values.ok()) return values.status();
    AppendJsonFloats(out, *values);
    return out;
  }
  const bool signed_bytes = encoding == encoding::kBinary || encoding == encoding::kInt8;
  out = "[";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out += ',';
    const auto b = uint8_t(bytes[i]);
    absl::StrAppend(&out, signed_bytes ? int(int8_t(b)) : int(b));
  }
  out += ']';
  return out;
}

}  // namespace qinfer
