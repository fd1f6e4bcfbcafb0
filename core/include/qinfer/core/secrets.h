// Secrets among the librdkafka properties a configuration passes through
// (sasl.password, ssl.key.password, ...). Their values are never shown:
// printed configurations, error messages and logs show kRedacted instead.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace qinfer {

inline constexpr std::string_view kRedacted = "<redacted>";

// True for a property whose value is a secret: a password, a private key or
// a client secret (librdkafka's names and their aliases).
bool IsSecretProperty(std::string_view key);

// `value`, or kRedacted when `key` names a secret.
std::string ShownValue(std::string_view key, std::string_view value);

// Removes the secret values of a set of properties from any text (a library's
// log line, an error message): every occurrence of a secret property's value
// becomes kRedacted, and so does every whitespace-separated piece of it (and
// the value part of a `name=value` piece) of at least kMinPiece characters,
// since librdkafka quotes a malformed sasl.oauthbearer.config from the point
// where its parser stopped. Immutable once built: thread-safe.
class SecretRedactor {
 public:
  static constexpr size_t kMinPiece = 4;

  SecretRedactor() = default;
  // Keeps the values of the secret properties among `properties`.
  explicit SecretRedactor(const std::map<std::string, std::string>& properties);

  // Adds `value` (a secret) and its pieces.
  void Add(std::string_view value);
  std::string Redact(std::string_view text) const;
  bool empty() const { return secrets_.empty(); }

 private:
  std::vector<std::string> secrets_;  // longest first
};

// The message for a property librdkafka refused: "kafka property KEY=VALUE:
// ERROR", with the value (and any copy of it inside ERROR) redacted when
// KEY names a secret.
std::string PropertyError(std::string_view key, std::string_view value, std::string_view error);

}  // namespace qinfer
