// Reading a member of a JSON object as the bytes it stands as, which a
// parse cannot give back (it re-orders keys and re-spaces values): what
// keeps a job's `meta` as its producer wrote it, from the message to the
// record and back.
#pragma once

#include <optional>
#include <string_view>

namespace qinfer {

// Within `text`, a JSON object known to be valid (it parsed), the text of
// the value of its top-level member `key` as it stands in `text` (the last
// one, as the parse keeps), or nullopt without such a member. A key written
// with escapes is matched as the parse reads it.
std::optional<std::string_view> RawJsonMember(std::string_view text, std::string_view key);

}  // namespace qinfer
