// librdkafka's log and error callbacks go to the structured log, redacted
// and rate-limited.
#include "qinfer/kafka/kafka_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "fakes/fake_clock.h"

#include "qinfer/core/logging.h"

namespace qinfer::kafka {
namespace {

using std::chrono::seconds;

constexpr const char* kSecret = "TOPSECRET123";

// A logger writing into a string, at every level.
struct Captured {
  std::ostringstream out;
  Log log;
  explicit Captured(const std::string& name) : log(CaptureLogForTest(name, out)) {}
  std::string text() {
    log.Flush();
    return out.str();
  }
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(KafkaLogTest, ALogLineBecomesOneStructuredEventWithItsLevelAndFacility) {
  Captured c("t1");
  testing::FakeClock clock;
  KafkaLog log(c.log, "consumer", {}, clock);
  log.Log(3, "FAIL", "127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: \"refused\"");
  EXPECT_EQ(c.text(),
            "warning event=kafka_log client=consumer level=err facility=FAIL message=\"127.0.0.1:1/bootstrap: "
            "Connect to ipv4#127.0.0.1:1 failed: \\\"refused\\\"\"\n");
}

TEST(KafkaLogTest, EveryConfiguredSecretValueIsRedactedFromLogAndErrorLines) {
  Captured c("t2");
  testing::FakeClock clock;
  KafkaLog log(c.log, "publisher",
               {{"sasl.oauthbearer.config", std::string("principal=x secret=") + kSecret},
                {"ssl.key.password", "hunter22"},
                {"sasl.username", "alice"}},
               clock);
  log.Log(3, "OAUTHBEARER", std::string("Unrecognized sasl.oauthbearer.config beginning at: secret=") + kSecret);
  log.Log(4, "SSL", "bad password hunter22 for alice");
  log.Error(nullptr, RD_KAFKA_RESP_ERR__AUTHENTICATION, std::string("auth: principal=x secret=") + kSecret);
  const std::string text = c.text();
  EXPECT_EQ(text.find(kSecret), std::string::npos) << text;
  EXPECT_EQ(text.find("hunter22"), std::string::npos) << text;
  EXPECT_NE(text.find("beginning at: <redacted>"), std::string::npos) << text;
  EXPECT_NE(text.find("for alice"), std::string::npos) << "non-secret values stay: " << text;
  EXPECT_NE(text.find("event=kafka_error client=publisher code=_AUTHENTICATION message=\"auth: <redacted>\""),
            std::string::npos)
      << text;
  EXPECT_EQ(log.Redact(std::string("x ") + kSecret), "x <redacted>");
}

TEST(KafkaLogTest, ARepeatedLineIsShownOncePerIntervalWithTheCountSuppressed) {
  Captured c("t3");
  testing::FakeClock clock;
  KafkaLog log(c.log, "consumer", {}, clock, seconds(30));
  // An outage: the same line with changing numbers, from two handles' worth
  // of brokers, every second for a minute.
  for (int i = 0; i < 60; ++i) {
    log.Log(3, "FAIL", "Connect to ipv4#127.0.0.1:1 failed (after " + std::to_string(i) + "ms in state CONNECT)");
    log.Error(nullptr, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, "1/1 brokers are down");
    clock.Advance(seconds(1));
  }
  log.Log(3, "FAIL", "another line");
  const std::string text = c.text();
  EXPECT_EQ(Count(text, "facility=FAIL message=\"Connect"), 2u) << text;
  EXPECT_EQ(Count(text, "code=_ALL_BROKERS_DOWN"), 2u) << text;
  EXPECT_EQ(Count(text, "suppressed=29"), 2u) << "the second of each counts what it held back: " << text;
  EXPECT_EQ(Count(text, "another line"), 1u) << text;
}

TEST(KafkaLogTest, TheOwnerOfAHandleGetsItsOpaqueBack) {
  testing::FakeClock clock;
  Captured c("t4");  // outlives the handle, whose threads may log
  KafkaLog log(c.log, "x", {}, clock);
  int owner = 7;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  log.Install(conf, &owner);
  char err[512];
  ASSERT_EQ(rd_kafka_conf_set(conf, "bootstrap.servers", "127.0.0.1:1", err, sizeof err), RD_KAFKA_CONF_OK);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  ASSERT_NE(rk, nullptr) << err;
  EXPECT_EQ(rd_kafka_opaque(rk), &log);
  EXPECT_EQ(KafkaLog::Owner(rd_kafka_opaque(rk)), &owner);
  rd_kafka_destroy(rk);
}

// What a real handle said, with stderr captured while it lived.
struct HandleRun {
  std::string log;  // the structured log
  std::string stderr_text;
  absl::Status created;
};

HandleRun RunHandle(const std::map<std::string, std::string>& props, std::chrono::milliseconds polled) {
  static int n = 0;
  Captured c("real" + std::to_string(n++));
  HandleRun run;
  std::fflush(stderr);
  char path[] = "/tmp/kafka_log_test_stderr.XXXXXX";
  const int fd = mkstemp(path);
  const int saved = dup(2);
  dup2(fd, 2);
  {
    KafkaLog log(c.log, "producer", props, RealClock());
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    for (const auto& [k, v] : props) {
      EXPECT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err), RD_KAFKA_CONF_OK) << err;
    }
    log.Install(conf, nullptr);
    absl::StatusOr<rd_kafka_t*> rk = NewHandle(RD_KAFKA_PRODUCER, conf, log);
    run.created = rk.status();
    if (rk.ok()) {
      const auto until = std::chrono::steady_clock::now() + polled;
      while (std::chrono::steady_clock::now() < until) rd_kafka_poll(*rk, 100);
      rd_kafka_destroy(*rk);
    }
  }
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  lseek(fd, 0, SEEK_SET);
  run.stderr_text.resize(4096);
  run.stderr_text.resize(std::max<ssize_t>(0, read(fd, run.stderr_text.data(), run.stderr_text.size())));
  close(fd);
  unlink(path);
  run.log = c.text();
  return run;
}

// A broker that refuses connections: librdkafka's FAIL lines reach the log,
// in one format, and none reaches stderr by itself.
TEST(KafkaLogTest, ARealHandlesLinesReachTheLogAndNeverStderr) {
  const HandleRun run =
      RunHandle({{"bootstrap.servers", "127.0.0.1:1"}, {"sasl.password", kSecret}, {"ssl.key.password", kSecret}},
                std::chrono::milliseconds(1500));
  ASSERT_TRUE(run.created.ok()) << run.created;
  EXPECT_EQ(run.stderr_text, "") << "librdkafka printed to stderr itself";
  EXPECT_EQ(run.log.find(kSecret), std::string::npos) << run.log;
  EXPECT_NE(run.log.find("event=kafka_log client=producer level=err facility=FAIL message=\""), std::string::npos)
      << run.log;
}

// The builtin unsecured-JWT handler refuses a malformed config inside
// rd_kafka_new. librdkafka 2.0.2 then dereferences a NULL queue when it
// retries 10 s later (SIGSEGV): NewHandle refuses the handle at once, naming
// the key, with the value and the part librdkafka quotes redacted.
TEST(KafkaLogTest, AnOAuthBearerConfigTheBuiltinHandlerRefusesIsRefusedAtOnceRedacted) {
  const HandleRun run = RunHandle({{"bootstrap.servers", "127.0.0.1:1"},
                                   {"security.protocol", "SASL_PLAINTEXT"},
                                   {"sasl.mechanisms", "OAUTHBEARER"},
                                   {"enable.sasl.oauthbearer.unsecure.jwt", "true"},
                                   {"sasl.oauthbearer.config", std::string("principal=x secret=") + kSecret}},
                                  std::chrono::milliseconds(0));
  EXPECT_TRUE(absl::IsInvalidArgument(run.created)) << run.created;
  const std::string message(run.created.message());
  EXPECT_NE(message.find("sasl.oauthbearer.config=<redacted>"), std::string::npos) << message;
  EXPECT_NE(message.find("beginning at: <redacted>"), std::string::npos) << message;
  EXPECT_EQ(message.find(kSecret), std::string::npos) << message;
  EXPECT_EQ(run.log.find(kSecret), std::string::npos) << run.log;
  EXPECT_NE(run.log.find("event=kafka_error client=producer code=_AUTHENTICATION"), std::string::npos) << run.log;
  EXPECT_EQ(run.stderr_text, "");

  // A configuration librdkafka refuses without naming the key: the key
  // whose value it quotes is named.
  const HandleRun refused = RunHandle({{"bootstrap.servers", "127.0.0.1:1"},
                                       {"security.protocol", "SASL_PLAINTEXT"},
                                       {"sasl.mechanisms", "BOGUS"},
                                       {"sasl.password", kSecret}},
                                      std::chrono::milliseconds(0));
  EXPECT_EQ(refused.created.message(), "kafka producer: Unsupported SASL mechanism: BOGUS (sasl.mechanisms=BOGUS)");

  // A well-formed one makes its token: the handle is kept.
  const HandleRun good = RunHandle({{"bootstrap.servers", "127.0.0.1:1"},
                                    {"security.protocol", "SASL_PLAINTEXT"},
                                    {"sasl.mechanisms", "OAUTHBEARER"},
                                    {"enable.sasl.oauthbearer.unsecure.jwt", "true"},
                                    {"sasl.oauthbearer.config", "principal=alice"}},
                                   std::chrono::milliseconds(0));
  EXPECT_TRUE(good.created.ok()) << good.created;
}

// The one property loop: a refused property is named (its secret value
// never repeated), with where it was set when the caller says.
TEST(KafkaLogTest, ApplyPropertiesNamesTheRefusedPropertyAndWhereItWasSet) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  EXPECT_TRUE(ApplyProperties(conf, {{"linger.ms", "5"}}).ok());
  const absl::Status unknown = ApplyProperties(conf, {{"no.such.property", "1"}}, "kafka.consumer.");
  EXPECT_TRUE(absl::IsInvalidArgument(unknown)) << unknown;
  EXPECT_NE(unknown.message().find("kafka property no.such.property=1: "), std::string::npos) << unknown;
  EXPECT_TRUE(absl::EndsWith(unknown.message(), " (kafka.consumer.no.such.property)")) << unknown;
  const absl::Status secret = ApplyProperties(conf, {{"ssl.key.password", kSecret}, {"linger.ms", "x"}});
  EXPECT_NE(secret.message().find("linger.ms"), std::string::npos) << secret;
  EXPECT_EQ(secret.message().find(kSecret), std::string::npos) << secret;
  rd_kafka_conf_destroy(conf);
}

// NewHandle from a log: the handle runs with the log's properties, the
// owner comes back through the opaque, and `configure` sees the
// configuration before the handle is made.
TEST(KafkaLogTest, NewHandleFromALogAppliesItsPropertiesAndLetsTheOwnerConfigure) {
  testing::FakeClock clock;
  // Kept for the test's length: the logger's sink writes into its stream,
  // and the handle's threads may log (a refused connection) at any time.
  Captured good_log("t5"), bad_log("t6");
  KafkaLog log(good_log.log, "producer", {{"bootstrap.servers", "127.0.0.1:1"}, {"linger.ms", "7"}}, clock);
  int owner = 3;
  bool configured = false;
  absl::StatusOr<rd_kafka_t*> rk = NewHandle(RD_KAFKA_PRODUCER, log, &owner, [&](rd_kafka_conf_t* conf) {
    char value[64];
    size_t size = sizeof value;
    configured = rd_kafka_conf_get(conf, "linger.ms", value, &size) == RD_KAFKA_CONF_OK && std::string(value) == "7";
  });
  ASSERT_TRUE(rk.ok()) << rk.status();
  EXPECT_TRUE(configured);
  EXPECT_EQ(KafkaLog::Owner(rd_kafka_opaque(*rk)), &owner);
  rd_kafka_destroy(*rk);

  KafkaLog bad(bad_log.log, "consumer", {{"no.such.property", "1"}}, clock);
  absl::StatusOr<rd_kafka_t*> refused = NewHandle(RD_KAFKA_CONSUMER, bad, nullptr);
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << refused.status();
  EXPECT_NE(refused.status().message().find("no.such.property"), std::string::npos) << refused.status();
}

}  // namespace
}  // namespace qinfer::kafka
