// Secrets among the librdkafka properties a configuration passes through
// (sasl.password, ssl.key.password, ...). Their values are never shown:
// printed configurations, error messages and logs show kRedacted instead.
#pragma once

#include <string>
#include <string_view>

namespace qinfer {

inline constexpr std::string_view kRedacted = "<redacted>";

// True for a property whose value is a secret: a password, a private key or
// a client secret (librdkafka's names and their aliases).
bool IsSecretProperty(std::string_view key);

// `value`, or kRedacted when `key` names a secret.
std::string ShownValue(std::string_view key, std::string_view value);

// The message for a property librdkafka refused: "kafka property KEY=VALUE:
// ERROR", with the value (and any copy of it inside ERROR) redacted when
// KEY names a secret.
std::string PropertyError(std::string_view key, std::string_view value, std::string_view error);

}  // namespace qinfer
