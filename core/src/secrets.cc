#include "qinfer/core/secrets.h"

#include <algorithm>
#include <cctype>

namespace qinfer {

bool IsSecretProperty(std::string_view key) {
  std::string k(key);
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  // ssl.key.pem and its alias ssl_key hold a private key; the OAUTHBEARER
  // config string may hold a client secret.
  return k.find("password") != std::string::npos || k.find("secret") != std::string::npos ||
         k == "ssl.key.pem" || k == "ssl_key" || k == "sasl.oauthbearer.config";
}

std::string ShownValue(std::string_view key, std::string_view value) {
  return IsSecretProperty(key) ? std::string(kRedacted) : std::string(value);
}

std::string PropertyError(std::string_view key, std::string_view value, std::string_view error) {
  std::string why(error);
  if (IsSecretProperty(key) && !value.empty()) {
    for (size_t at = why.find(value); at != std::string::npos; at = why.find(value, at + kRedacted.size())) {
      why.replace(at, value.size(), kRedacted);
    }
  }
  return "kafka property " + std::string(key) + "=" + ShownValue(key, value) + ": " + why;
}

}  // namespace qinfer
