#include "qinfer/core/secrets.h"

#include <algorithm>
#include <cctype>

namespace qinfer {

bool IsSecretProperty(std::string_view key) {
  std::string k(key);
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  // ssl.key.pem and its alias ssl_key hold a private key; the OAUTHBEARER
  // config string may hold a client secret.
  return k.find("password") != std::string::npos || k.find("secret") != std::string::npos || k == "ssl.key.pem" ||
         k == "ssl_key" || k == "sasl.oauthbearer.config";
}

std::string ShownValue(std::string_view key, std::string_view value) {
  return IsSecretProperty(key) ? std::string(kRedacted) : std::string(value);
}

SecretRedactor::SecretRedactor(const std::map<std::string, std::string>& properties) {
  for (const auto& [key, value] : properties) {
    if (IsSecretProperty(key)) Add(value);
  }
}

void SecretRedactor::Add(std::string_view value) {
  auto keep = [this](std::string_view s) {
    if (s.empty() || std::find(secrets_.begin(), secrets_.end(), s) != secrets_.end()) return;
    secrets_.emplace_back(s);
  };
  keep(value);
  size_t at = 0;
  while (at < value.size()) {
    const size_t begin = value.find_first_not_of(" \t\r\n", at);
    if (begin == std::string_view::npos) break;
    size_t end = value.find_first_of(" \t\r\n", begin);
    if (end == std::string_view::npos) end = value.size();
    const std::string_view piece = value.substr(begin, end - begin);
    if (piece.size() >= kMinPiece) keep(piece);
    if (const size_t eq = piece.find('='); eq != std::string_view::npos && piece.size() - eq - 1 >= kMinPiece) {
      keep(piece.substr(eq + 1));
    }
    at = end;
  }
  // Longest first, so that a whole value is replaced before its pieces.
  std::stable_sort(secrets_.begin(), secrets_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string SecretRedactor::Redact(std::string_view text) const {
  std::string out(text);
  for (const std::string& secret : secrets_) {
    for (size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + kRedacted.size())) {
      out.replace(at, secret.size(), kRedacted);
    }
  }
  return out;
}

std::string PropertyError(std::string_view key, std::string_view value, std::string_view error) {
  SecretRedactor redactor;
  if (IsSecretProperty(key)) redactor.Add(value);
  return "kafka property " + std::string(key) + "=" + ShownValue(key, value) + ": " + redactor.Redact(error);
}

}  // namespace qinfer
