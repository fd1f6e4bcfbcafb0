// UTF-8 validity, for bytes that came from outside (Kafka keys, payloads)
// before they are put in JSON records.
#pragma once

#include <string_view>

namespace qinfer {

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, nothing
// above U+10FFFF).
bool IsValidUtf8(std::string_view s);

// The longest prefix of `s` of at most `max_bytes` that does not end inside
// a multi-byte character. REQUIRES: IsValidUtf8(s).
std::string_view Utf8Prefix(std::string_view s, size_t max_bytes);

}  // namespace qinfer
