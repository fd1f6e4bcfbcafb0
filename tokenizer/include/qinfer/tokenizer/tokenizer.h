// The model's own tokenizer: Hugging Face `tokenizers` (the Rust crate, behind
// a small C ABI that this module owns, tokenizer/rust/), loaded from the
// model's tokenizer.json. Truncation and overflow windows are the library's
// own (its truncate-then-post-process), so a window or a truncated sequence
// keeps the special tokens exactly where the model's library puts them.
//
// The padding and truncation settings stored in tokenizer.json are ignored:
// qinfer pads batches itself, and cuts only where its admission policy says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace qinfer::tokenizer {

// Where a token lies in its text: characters (code points) [start, end), as
// Python's tokenizers gives offsets; `special`: the tokenizer added it (the
// post-processor's [CLS]/[SEP], or a special token's string in the text).
struct Span {
  uint32_t start = 0;
  uint32_t end = 0;
  bool special = false;
  friend bool operator==(const Span&, const Span&) = default;
};

// One text, tokenized and not yet truncated. Owns the library's encoding;
// move-only. Thread-compatible (one thread at a time).
class Encoding {
 public:
  Encoding(Encoding&&) noexcept;
  Encoding& operator=(Encoding&&) noexcept;
  ~Encoding();

  // Tokens of the whole sequence, the special tokens the post-processor adds
  // included (what encode(text) returns without truncation).
  size_t length() const;
  // True when every token of the whole sequence is one of the tokenizer's
  // special tokens (for BERT: [CLS], [SEP], [UNK], [PAD], [MASK]): the text
  // yields nothing of its own (empty, whitespace or control characters only,
  // one word too long for the vocabulary, special-token strings only).
  bool special_tokens_only() const;
  // The whole sequence's ids.
  std::vector<int64_t> Ids() const;
  // The whole sequence's type ids (a pair's segment of each token: 0 for
  // the first text and its special tokens, 1 for the second, as the
  // post-processor assigns them; all 0 for one text).
  std::vector<int64_t> TypeIds() const;
  // The whole sequence's spans.
  std::vector<Span> Spans() const;
  // The whole sequence's token strings (for messages).
  std::vector<std::string> Tokens() const;
  // What encode(text) (or encode(text, pair)) returns with truncation to
  // `max_length` tokens, special tokens included (the library's longest-first
  // truncation, right side: a pair loses tokens from its longer text first).
  // `type_ids`, when not null, receives the truncated sequence's type ids.
  // InvalidArgument when max_length leaves no room for content
  // (max_length <= the number of special tokens the post-processor adds).
  // `spans`, when not null, receives its tokens' spans.
  absl::StatusOr<std::vector<int64_t>> Truncated(size_t max_length, std::vector<int64_t>* type_ids = nullptr,
                                                 std::vector<Span>* spans = nullptr) const;
  // The library's overflowing windows at `max_length` with `stride` tokens
  // of overlap: the truncated sequence first, then every overflowing one,
  // each a proper sequence with its special tokens. One window when the text
  // fits. InvalidArgument when max_length leaves no room for content or the
  // stride is not below the content room (max_length - added tokens), and
  // for a pair (which is truncated, never windowed) when stride > 0.
  // `spans`, when not null, receives each window's spans (offsets into the
  // whole text).
  absl::StatusOr<std::vector<std::vector<int64_t>>> Windows(size_t max_length, size_t stride,
                                                           std::vector<std::vector<Span>>* spans = nullptr) const;

  struct Handle;  // the Rust side's encoding

 private:
  friend class Tokenizer;
  explicit Encoding(Handle* handle);
  Handle* handle_;
};

// Immutable once loaded; thread-safe (Encode may run on many threads at once).
class Tokenizer {
 public:
  // Loads tokenizer.json at `path`. NotFound when the file cannot be read;
  // InvalidArgument naming the path and the library's error when it does
  // not parse.
  static absl::StatusOr<std::unique_ptr<Tokenizer>> Load(const std::string& path);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // Ids the tokenizer can produce: its vocabulary plus its added tokens.
  size_t vocab_size() const;
  // Special tokens its post-processor adds to one sequence (2 for BERT), or
  // with `pair` to a pair (3 for BERT, 4 for RoBERTa).
  size_t added_tokens(bool pair = false) const;
  // The vocabulary's string of `id` (what the library's
  // convert_ids_to_tokens gives: "##ing", "Ġword"); empty for an id it does
  // not have.
  std::string IdToToken(int64_t id) const;

  // Tokenizes UTF-8 `text` with the special tokens. InvalidArgument when the
  // text is not UTF-8; Internal when the library fails (the message says
  // why). Never throws, never aborts.
  absl::StatusOr<Encoding> Encode(std::string_view text) const;
  // Tokenizes the pair (text, pair) as the library's encode(text, pair)
  // does: both texts, with the pair's special tokens and type ids. Errors as
  // above.
  absl::StatusOr<Encoding> Encode(std::string_view text, std::string_view pair) const;

  struct Handle;

 private:
  explicit Tokenizer(Handle* handle);
  Handle* handle_;
};

}  // namespace qinfer::tokenizer
