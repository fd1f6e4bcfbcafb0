// The log of one librdkafka handle. librdkafka prints its own lines
// (`%3|1700000000.123|FAIL|rdkafka#consumer-1| ...`) to stderr unless a log
// callback is set, and such a line may quote a property's value, a secret
// among them. Every handle qinfer creates installs a KafkaLog instead: each
// log line becomes
//   event=kafka_log client=<client> level=<syslog name> facility=<fac> message="..."
// and each error callback
//   event=kafka_error client=<client> code=<librdkafka name> message="..."
// on the owner's logger, with every configured secret value redacted
// (SecretRedactor) and the same line (facility and message, digits ignored)
// shown at most once per repeat interval, the next one carrying
// `suppressed=N`.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include <librdkafka/rdkafka.h>

#include "absl/status/statusor.h"

#include "qinfer/core/clock.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/mutex.h"
#include "qinfer/core/secrets.h"

namespace qinfer::kafka {

class KafkaLog {
 public:
  static constexpr std::chrono::seconds kDefaultRepeatInterval{30};
  // Distinct lines remembered for rate limiting; past it the memory restarts.
  static constexpr size_t kMaxRemembered = 256;

  // `client` names the handle in every line (consumer, publisher, ...);
  // `properties` are those set on the handle (their secret values are
  // redacted). `log` and `clock` must outlive this.
  KafkaLog(qinfer::Log log, std::string client, const std::map<std::string, std::string>& properties,
           const Clock& clock, std::chrono::seconds repeat_interval = kDefaultRepeatInterval);
  KafkaLog(const KafkaLog&) = delete;
  KafkaLog& operator=(const KafkaLog&) = delete;

  // Sets the log and error callbacks and the opaque on `conf`. The opaque
  // becomes this KafkaLog; the owner's own callbacks get back `owner` with
  // Owner(opaque). REQUIRES: this outlives the handle made from `conf`
  // (librdkafka logs from its own threads until rd_kafka_destroy returns).
  void Install(rd_kafka_conf_t* conf, void* owner);
  // The `owner` given to Install, from the opaque a librdkafka callback got.
  static void* Owner(void* opaque) { return static_cast<KafkaLog*>(opaque)->owner_; }

  // A librdkafka log line (syslog `level`), or an error callback's. Thread-safe.
  void Log(int level, std::string_view facility, std::string_view message);
  void Error(rd_kafka_t* rk, int err, std::string_view reason);

  // `text` with every configured secret value redacted: for errstr buffers
  // of librdkafka (rd_kafka_new's among them) and message error strings.
  std::string Redact(std::string_view text) const { return redactor_.Redact(text); }

  // `error` (librdkafka's, unredacted) redacted, and when it names none of
  // the configured properties, followed by " (KEY=VALUE, ...)" for those
  // whose value it quotes ("Unsupported SASL mechanism: BOGUS" comes out
  // with "(sasl.mechanisms=BOGUS)"), secret values shown as kRedacted.
  std::string Explain(std::string_view error) const;

  // The first "Failed to acquire SASL OAUTHBEARER token" error reported
  // through Error (redacted); empty when none was. Thread-safe.
  std::string token_failure() const;
  const std::string& client() const { return client_; }
  // The properties given to the constructor.
  const std::map<std::string, std::string>& properties() const { return properties_; }

 private:
  // False when the line was shown within the interval (it is counted);
  // otherwise true, with the count of lines suppressed since.
  bool Admit(std::string_view facility, std::string_view message, uint64_t* suppressed);

  static void OnLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf);
  static void OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque);

  struct Shown {
    SteadyTime at;
    uint64_t suppressed = 0;
  };

  qinfer::Log log_;
  const std::string client_;
  const std::map<std::string, std::string> properties_;
  const SecretRedactor redactor_;
  const Clock& clock_;
  const std::chrono::seconds repeat_interval_;
  void* owner_ = nullptr;
  mutable Mutex mu_;
  std::unordered_map<std::string, Shown> shown_ ABSL_GUARDED_BY(mu_);
  std::string token_failure_ ABSL_GUARDED_BY(mu_);
};

// rd_kafka_new for a `conf` on which `log` is installed, with librdkafka's
// errstr redacted; errors begin "kafka <client>: ". Takes `conf` in every case; the caller owns the handle
// (rd_kafka_destroy) and `log` must outlive it. Serves the errors raised
// while the handle was made (rd_kafka_poll(rk, 0): call it before
// rd_kafka_poll_set_consumer and before anything else polls). Errors,
// InvalidArgument naming the client, and no handle left behind:
// - librdkafka refused the configuration (a property that conflicts with
//   another, say);
// - with enable.sasl.oauthbearer.unsecure.jwt=true, its builtin handler
//   could not make a token from sasl.oauthbearer.config. Such a handle can
//   never authenticate, and librdkafka before 2.2.0 (Debian 12 ships 2.0.2)
//   retries the token 10 s later through a queue it never set up: SIGSEGV
//   in its main thread. The handle is destroyed long before that.
absl::StatusOr<rd_kafka_t*> NewHandle(rd_kafka_type_t type, rd_kafka_conf_t* conf, KafkaLog& log);

// Sets each of `properties` on `conf` unchanged, in key order. Stops at the
// first one librdkafka refuses: InvalidArgument naming the property and
// giving librdkafka's reason, followed by " (<section><key>)" when `section`
// (where the property was set, e.g. "kafka.consumer.") is not empty. The
// value is not added when it is a secret (PropertyError); only librdkafka's
// reason for a malformed value may quote it.
absl::Status ApplyProperties(rd_kafka_conf_t* conf, const std::map<std::string, std::string>& properties,
                             std::string_view section = "");

// The one way qinfer makes a librdkafka handle: a fresh configuration with
// log.properties() applied (ApplyProperties), `log` installed with `owner`
// (KafkaLog::Install), then `configure` (when set) for the owner's own
// callbacks (rebalance, delivery report, statistics), then NewHandle above.
// So the properties a handle runs with are exactly those its log redacts.
// Errors: ApplyProperties's, then NewHandle's. The caller owns the handle
// (rd_kafka_destroy); `log` must outlive it.
absl::StatusOr<rd_kafka_t*> NewHandle(rd_kafka_type_t type, KafkaLog& log, void* owner,
                                      const std::function<void(rd_kafka_conf_t*)>& configure = {});

}  // namespace qinfer::kafka
