// How a result's `output` is written (docs/design/messages.md: a job's
// `encoding`, the configuration's `output.encoding`): JSON numbers, or the
// bytes of a compact form as base64 text. The compact forms are the ones
// text-embeddings-inference and sentence-transformers' quantize_embeddings
// define, so a reader decodes them with the tools it already has.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace qinfer {

namespace encoding {
// JSON numbers (the default; a record without "encoding" holds these).
inline constexpr const char* kFloat = "float";
// Little-endian float32, as text-embeddings-inference's base64 returns them.
inline constexpr const char* kBase64 = "base64";
// quantize_embeddings(x, "ubinary"): numpy.packbits(x > 0), a bit a value,
// the first value the first byte's highest bit, the last byte zero-padded.
inline constexpr const char* kUbinary = "ubinary";
// quantize_embeddings(x, "binary"): the ubinary bytes minus 128, as int8.
inline constexpr const char* kBinary = "binary";
// quantize_embeddings(x, "uint8" | "int8", ranges=...): a byte a value,
// from calibration ranges (QuantizationRanges).
inline constexpr const char* kUint8 = "uint8";
inline constexpr const char* kInt8 = "int8";
}  // namespace encoding

// True for one of the six names above.
bool IsOutputEncoding(std::string_view name);
// The six names, comma-separated, for errors and help.
std::string OutputEncodingNames();
// int8 and uint8: they need calibration ranges.
bool NeedsRanges(std::string_view name);

// Per-dimension calibration ranges of the int8 / uint8 encodings:
// sentence-transformers' `ranges`, a (2, dim) array of each dimension's
// minimum and maximum. A plain value.
struct QuantizationRanges {
  std::vector<float> min;
  std::vector<float> max;
  size_t dim() const { return min.size(); }
  friend bool operator==(const QuantizationRanges&, const QuantizationRanges&) = default;
};

// Ranges from JSON text `[[min...], [max...]]` (numpy's ranges.tolist()):
// two arrays of the same non-zero length, finite numbers, min <= max. The
// error says what is wrong, prefixed by `what` (where the text came from).
absl::StatusOr<QuantizationRanges> QuantizationRangesFromJson(std::string_view text, std::string_view what);

// The bytes `encoding` makes of `values` (not kFloat): base64 4 a value;
// binary and ubinary (size + 7) / 8; int8 and uint8 one a value, with
// `ranges`, whose first values.size() dimensions are used (a job's
// `dimensions` keeps the embedding's first N).
// REQUIRES: IsOutputEncoding(encoding), encoding != kFloat, and for int8 /
// uint8 ranges != nullptr with ranges->dim() >= values.size().
std::string EncodeOutput(std::span<const float> values, std::string_view encoding,
                         const QuantizationRanges* ranges);

// `bytes` (what EncodeOutput made) as JSON numbers: base64's float32 values
// in the shortest form that reads back as the same float; the quantized
// encodings' values as quantize_embeddings returns them (int8 for binary
// and int8, uint8 for ubinary and uint8). An error when base64's bytes are
// not a whole number of floats.
absl::StatusOr<std::string> DecodedOutputJson(std::string_view bytes, std::string_view encoding);

// base64's bytes as floats. An error when they are not a whole number of
// floats.
absl::StatusOr<std::vector<float>> FloatsOfBase64Output(std::string_view bytes);
// The same into `out`, whose buffer is reused (a reader of record after
// record).
absl::Status FloatsOfBase64Output(std::string_view bytes, std::vector<float>& out);

}  // namespace qinfer
