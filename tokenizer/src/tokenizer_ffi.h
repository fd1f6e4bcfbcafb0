// The C ABI of tokenizer/rust (src/lib.rs there), the only code that touches
// the Hugging Face `tokenizers` crate. Private to this module.
//
// Ownership: what these functions return through an out-parameter (a
// tokenizer, an encoding, an error string, an id list) is allocated by the
// Rust library and must be released with its matching *_free function, never
// with free() or delete; freeing a null or already-emptied object is a no-op.
// Buffers passed in are only written, never kept.
//
// Errors: the fallible calls return a status code (kQinferTok*) and, on
// failure, fill *error with a message. Nothing panics or throws across this
// boundary: a panic inside Rust becomes kQinferTokInternal.
//
// Thread safety: a tokenizer may be used by many threads at once; an
// encoding by one thread at a time. An encoding keeps its tokenizer's data
// alive, so it may outlive the tokenizer handle.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::tokenizer::ffi {

inline constexpr int32_t kQinferTokOk = 0;
inline constexpr int32_t kQinferTokInvalidArgument = 1;
inline constexpr int32_t kQinferTokNotFound = 2;
inline constexpr int32_t kQinferTokInternal = 3;

// A UTF-8 message owned by Rust; release with qinfer_tok_string_free.
struct QinferTokString {
  uint8_t* data = nullptr;
  size_t len = 0;
};

// Id sequences owned by Rust; release with qinfer_tok_id_lists_free.
// Sequence i is ids[ends[i - 1], ends[i]) with ends[-1] taken as 0;
// type_ids[k] is the type id (a pair's segment) of ids[k], [starts[k],
// stops[k]) its span in the text in characters (code points), special[k] 1
// when it is a special token.
struct QinferTokIdLists {
  uint32_t* ids = nullptr;
  uint32_t* type_ids = nullptr;
  uint32_t* starts = nullptr;
  uint32_t* stops = nullptr;
  uint8_t* special = nullptr;
  size_t ids_len = 0;
  size_t* ends = nullptr;
  size_t count = 0;
};

using TokenizerHandle = Tokenizer::Handle;
using EncodingHandle = Encoding::Handle;

extern "C" {

// Loads the tokenizer.json at path[0, path_len) with its stored padding and
// truncation disabled. kQinferTokNotFound when the file cannot be read,
// kQinferTokInvalidArgument when it does not parse.
int32_t qinfer_tok_load(const uint8_t* path, size_t path_len, TokenizerHandle** out, QinferTokString* error);
void qinfer_tok_free(TokenizerHandle* tokenizer);
// The vocabulary plus the added tokens.
size_t qinfer_tok_vocab_size(const TokenizerHandle* tokenizer);
// Special tokens the post-processor adds to a single sequence, and to a pair.
size_t qinfer_tok_added_tokens(const TokenizerHandle* tokenizer);
size_t qinfer_tok_added_tokens_pair(const TokenizerHandle* tokenizer);
// Tokenizes text[0, text_len) with special tokens. kQinferTokInvalidArgument
// when it is not UTF-8, kQinferTokInternal when the library fails.
int32_t qinfer_tok_encode(const TokenizerHandle* tokenizer, const uint8_t* text, size_t text_len, EncodingHandle** out,
                          QinferTokString* error);
// The same for the pair (text, pair) when is_pair, else for text alone.
int32_t qinfer_tok_encode_pair(const TokenizerHandle* tokenizer, const uint8_t* text, size_t text_len,
                               const uint8_t* pair, size_t pair_len, bool is_pair, EncodingHandle** out,
                               QinferTokString* error);

void qinfer_tok_encoding_free(EncodingHandle* encoding);
// Tokens of the whole sequence, special tokens included.
size_t qinfer_tok_encoding_len(const EncodingHandle* encoding);
bool qinfer_tok_encoding_special_only(const EncodingHandle* encoding);
// Writes qinfer_tok_encoding_len() ids to out.
void qinfer_tok_encoding_ids(const EncodingHandle* encoding, uint32_t* out);
// Writes qinfer_tok_encoding_len() type ids to out.
void qinfer_tok_encoding_type_ids(const EncodingHandle* encoding, uint32_t* out);
// Total UTF-8 bytes of the token strings.
size_t qinfer_tok_encoding_tokens_bytes(const EncodingHandle* encoding);
// Writes the token strings back to back to out_bytes
// (qinfer_tok_encoding_tokens_bytes() bytes) and their lengths to out_lens
// (qinfer_tok_encoding_len() entries).
void qinfer_tok_encoding_tokens(const EncodingHandle* encoding, uint8_t* out_bytes, size_t* out_lens);
// The whole sequence as one list.
int32_t qinfer_tok_encoding_whole(const EncodingHandle* encoding, QinferTokIdLists* out, QinferTokString* error);
// The vocabulary's string of `id` into *out (release with
// qinfer_tok_string_free); false when the tokenizer has no such id.
bool qinfer_tok_id_to_token(const TokenizerHandle* tokenizer, uint32_t id, QinferTokString* out);
// One sequence: encode(text) (or the pair) truncated to max_length, longest
// first. kQinferTokInvalidArgument when max_length <= the added tokens.
int32_t qinfer_tok_encoding_truncated(const EncodingHandle* encoding, size_t max_length, QinferTokIdLists* out,
                                      QinferTokString* error);
// The truncated sequence and every overflowing window at (max_length,
// stride). kQinferTokInvalidArgument when max_length <= added tokens or
// stride >= max_length - added tokens, and for a pair when stride > 0.
int32_t qinfer_tok_encoding_windows(const EncodingHandle* encoding, size_t max_length, size_t stride,
                                    QinferTokIdLists* out, QinferTokString* error);

void qinfer_tok_string_free(QinferTokString* s);
void qinfer_tok_id_lists_free(QinferTokIdLists* lists);

}  // extern "C"

}  // namespace qinfer::tokenizer::ffi
