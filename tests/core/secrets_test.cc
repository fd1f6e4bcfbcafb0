// Secret librdkafka properties are never shown.
#include "qinfer/core/secrets.h"

#include <gtest/gtest.h>

namespace qinfer {
namespace {

TEST(SecretsTest, PasswordsKeysAndClientSecretsAreSecret) {
  for (const char* key : {"sasl.password", "ssl.key.password", "ssl.keystore.password", "ssl.key.pem", "ssl_key",
                          "sasl.oauthbearer.client.secret", "sasl.oauthbearer.config", "SASL.PASSWORD"}) {
    EXPECT_TRUE(IsSecretProperty(key)) << key;
  }
  for (const char* key : {"sasl.username", "bootstrap.servers", "ssl.key.location", "linger.ms"}) {
    EXPECT_FALSE(IsSecretProperty(key)) << key;
  }
  EXPECT_EQ(ShownValue("sasl.password", "hunter2"), "<redacted>");
  EXPECT_EQ(ShownValue("sasl.username", "alice"), "alice");
}

TEST(SecretsTest, APropertyErrorNeverRepeatsASecretValue) {
  const std::string error = PropertyError("ssl.key.password", "hunter2", "Invalid value \"hunter2\" for property");
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
  EXPECT_EQ(error, "kafka property ssl.key.password=<redacted>: Invalid value \"<redacted>\" for property");
  EXPECT_EQ(PropertyError("linger.ms", "x", "Invalid value \"x\""), "kafka property linger.ms=x: Invalid value \"x\"");
}

TEST(SecretsTest, TheRedactorRemovesSecretValuesAndThePiecesALibraryQuotes) {
  const SecretRedactor redactor({{"sasl.oauthbearer.config", "principal=x secret=TOPSECRET123"},
                                 {"sasl.password", "hunter2"},
                                 {"sasl.username", "alice"}});
  EXPECT_EQ(redactor.Redact("config principal=x secret=TOPSECRET123 refused"), "config <redacted> refused");
  // librdkafka quotes the config from where its parser stopped.
  EXPECT_EQ(redactor.Redact("Unrecognized sasl.oauthbearer.config beginning at: secret=TOPSECRET123"),
            "Unrecognized sasl.oauthbearer.config beginning at: <redacted>");
  EXPECT_EQ(redactor.Redact("value TOPSECRET123 and hunter2 for alice"), "value <redacted> and <redacted> for alice");
  // Pieces shorter than kMinPiece (the principal `x`) are not secrets of their own.
  EXPECT_EQ(redactor.Redact("principal x"), "principal x");
  EXPECT_TRUE(SecretRedactor(std::map<std::string, std::string>{{"sasl.username", "alice"}}).empty());
}

TEST(SecretsTest, APropertyErrorNeverRepeatsAPieceOfASecretValue) {
  const std::string error = PropertyError("sasl.oauthbearer.config", "principal=x secret=TOPSECRET123",
                                          "Unrecognized sasl.oauthbearer.config beginning at: secret=TOPSECRET123");
  EXPECT_EQ(error.find("TOPSECRET123"), std::string::npos) << error;
}

}  // namespace
}  // namespace qinfer
