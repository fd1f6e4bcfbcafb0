#include "qinfer/tokenizer/tokenizer.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "tokenizer_ffi.h"

namespace qinfer::tokenizer {
namespace {

const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// The Rust library's error message; released when this goes out of scope.
class ErrorMessage {
 public:
  ErrorMessage() = default;
  ErrorMessage(const ErrorMessage&) = delete;
  ErrorMessage& operator=(const ErrorMessage&) = delete;
  ~ErrorMessage() { ffi::qinfer_tok_string_free(&s_); }

  ffi::QinferTokString* out() { return &s_; }
  absl::string_view view() const { return {reinterpret_cast<const char*>(s_.data), s_.len}; }

 private:
  ffi::QinferTokString s_;
};

absl::Status ToStatus(int32_t code, const ErrorMessage& error) {
  switch (code) {
    case ffi::kQinferTokOk:
      return absl::OkStatus();
    case ffi::kQinferTokInvalidArgument:
      return absl::InvalidArgumentError(error.view());
    case ffi::kQinferTokNotFound:
      return absl::NotFoundError(error.view());
    default:
      return absl::InternalError(error.view());
  }
}

// Id sequences returned by the Rust library, copied out (with each
// sequence's spans into `spans` when not null) and released.
std::vector<std::vector<int64_t>> TakeIdLists(ffi::QinferTokIdLists& lists,
                                              std::vector<std::vector<Span>>* spans = nullptr) {
  std::vector<std::vector<int64_t>> out;
  out.reserve(lists.count);
  if (spans != nullptr) spans->clear();
  size_t begin = 0;
  for (size_t i = 0; i < lists.count; ++i) {
    const size_t end = lists.ends[i];
    out.emplace_back(lists.ids + begin, lists.ids + end);
    if (spans != nullptr) {
      std::vector<Span>& s = spans->emplace_back();
      s.reserve(end - begin);
      for (size_t k = begin; k < end; ++k) s.push_back({lists.starts[k], lists.stops[k], lists.special[k] != 0});
    }
    begin = end;
  }
  ffi::qinfer_tok_id_lists_free(&lists);
  return out;
}

}  // namespace

// ------------------------------------------------------------- Encoding

Encoding::Encoding(Handle* handle) : handle_(handle) {}

Encoding::Encoding(Encoding&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Encoding& Encoding::operator=(Encoding&& other) noexcept {
  if (this != &other) {
    ffi::qinfer_tok_encoding_free(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

Encoding::~Encoding() { ffi::qinfer_tok_encoding_free(handle_); }

size_t Encoding::length() const { return ffi::qinfer_tok_encoding_len(handle_); }

bool Encoding::special_tokens_only() const { return ffi::qinfer_tok_encoding_special_only(handle_); }

std::vector<int64_t> Encoding::Ids() const {
  std::vector<uint32_t> ids(length());
  ffi::qinfer_tok_encoding_ids(handle_, ids.data());
  return {ids.begin(), ids.end()};
}

std::vector<std::string> Encoding::Tokens() const {
  std::string bytes(ffi::qinfer_tok_encoding_tokens_bytes(handle_), '\0');
  std::vector<size_t> lengths(length());
  ffi::qinfer_tok_encoding_tokens(handle_, reinterpret_cast<uint8_t*>(bytes.data()), lengths.data());
  std::vector<std::string> tokens;
  tokens.reserve(lengths.size());
  size_t at = 0;
  for (const size_t n : lengths) {
    tokens.emplace_back(bytes, at, n);
    at += n;
  }
  return tokens;
}

std::vector<int64_t> Encoding::TypeIds() const {
  std::vector<uint32_t> type_ids(length());
  ffi::qinfer_tok_encoding_type_ids(handle_, type_ids.data());
  return {type_ids.begin(), type_ids.end()};
}

std::vector<Span> Encoding::Spans() const {
  ffi::QinferTokIdLists lists;
  ErrorMessage error;
  if (ffi::qinfer_tok_encoding_whole(handle_, &lists, error.out()) != ffi::kQinferTokOk) return {};
  std::vector<std::vector<Span>> spans;
  TakeIdLists(lists, &spans);
  return spans.empty() ? std::vector<Span>() : std::move(spans.front());
}

absl::StatusOr<std::vector<int64_t>> Encoding::Truncated(size_t max_length, std::vector<int64_t>* type_ids,
                                                         std::vector<Span>* spans) const {
  ffi::QinferTokIdLists lists;
  ErrorMessage error;
  const int32_t code = ffi::qinfer_tok_encoding_truncated(handle_, max_length, &lists, error.out());
  if (code != ffi::kQinferTokOk) return ToStatus(code, error);
  if (type_ids != nullptr) type_ids->assign(lists.type_ids, lists.type_ids + lists.ids_len);
  std::vector<std::vector<Span>> all_spans;
  auto sequences = TakeIdLists(lists, spans != nullptr ? &all_spans : nullptr);
  if (sequences.size() != 1) {
    return absl::InternalError(absl::StrCat("tokenizer returned ", sequences.size(), " truncated sequences, not 1"));
  }
  if (spans != nullptr) *spans = std::move(all_spans.front());
  return std::move(sequences.front());
}

absl::StatusOr<std::vector<std::vector<int64_t>>> Encoding::Windows(size_t max_length, size_t stride,
                                                                   std::vector<std::vector<Span>>* spans) const {
  ffi::QinferTokIdLists lists;
  ErrorMessage error;
  const int32_t code = ffi::qinfer_tok_encoding_windows(handle_, max_length, stride, &lists, error.out());
  if (code != ffi::kQinferTokOk) return ToStatus(code, error);
  return TakeIdLists(lists, spans);
}

// ------------------------------------------------------------ Tokenizer

Tokenizer::Tokenizer(Handle* handle) : handle_(handle) {}

Tokenizer::~Tokenizer() { ffi::qinfer_tok_free(handle_); }

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::Load(const std::string& path) {
  Handle* handle = nullptr;
  ErrorMessage error;
  const int32_t code = ffi::qinfer_tok_load(Bytes(path), path.size(), &handle, error.out());
  if (code != ffi::kQinferTokOk) return ToStatus(code, error);
  return std::unique_ptr<Tokenizer>(new Tokenizer(handle));
}

size_t Tokenizer::vocab_size() const { return ffi::qinfer_tok_vocab_size(handle_); }

std::string Tokenizer::IdToToken(int64_t id) const {
  if (id < 0 || id > int64_t(UINT32_MAX)) return {};
  ffi::QinferTokString out;
  if (!ffi::qinfer_tok_id_to_token(handle_, uint32_t(id), &out)) return {};
  std::string token(reinterpret_cast<const char*>(out.data), out.len);
  ffi::qinfer_tok_string_free(&out);
  return token;
}

size_t Tokenizer::added_tokens(bool pair) const {
  return pair ? ffi::qinfer_tok_added_tokens_pair(handle_) : ffi::qinfer_tok_added_tokens(handle_);
}

absl::StatusOr<Encoding> Tokenizer::Encode(std::string_view text) const {
  Encoding::Handle* handle = nullptr;
  ErrorMessage error;
  const int32_t code = ffi::qinfer_tok_encode(handle_, Bytes(text), text.size(), &handle, error.out());
  if (code != ffi::kQinferTokOk) return ToStatus(code, error);
  return Encoding(handle);
}

absl::StatusOr<Encoding> Tokenizer::Encode(std::string_view text, std::string_view pair) const {
  Encoding::Handle* handle = nullptr;
  ErrorMessage error;
  const int32_t code = ffi::qinfer_tok_encode_pair(handle_, Bytes(text), text.size(), Bytes(pair), pair.size(),
                                                   /*is_pair=*/true, &handle, error.out());
  if (code != ffi::kQinferTokOk) return ToStatus(code, error);
  return Encoding(handle);
}

}  // namespace qinfer::tokenizer
