#include "qinfer/kafka/kafka_log.h"

#include <cctype>
#include <utility>

#include "qinfer/core/logging.h"

namespace qinfer::kafka {
namespace {

// syslog's names, as librdkafka's levels are syslog levels.
std::string_view LevelName(int level) {
  static constexpr std::string_view kNames[] = {"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"};
  return level >= 0 && level <= 7 ? kNames[level] : "debug";
}

// librdkafka logs a refused connection as LOG_ERR (3), yet it retries by
// itself: a degraded mode, so warn; only what it calls critical is an error.
LogLevel LogLevelOf(int level) {
  return level <= 2 ? LogLevel::kError : level <= 4 ? LogLevel::kWarn : level == 5 ? LogLevel::kInfo : LogLevel::kDebug;
}

// One line of the log: quotes and line breaks escaped.
std::string Quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n' || c == '\r') {
      out.append("\\n");
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// The rate limiter's key: a broker outage repeats one line with changing
// numbers ("after 1002ms in state CONNECT, 3 identical error(s) suppressed").
std::string RepeatKey(std::string_view facility, std::string_view message) {
  std::string key(facility);
  key.push_back('|');
  bool in_digits = false;
  for (char c : message) {
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!digit)
      key.push_back(c);
    else if (!in_digits)
      key.push_back('#');
    in_digits = digit;
  }
  return key;
}

}  // namespace

KafkaLog::KafkaLog(qinfer::Log log, std::string client, const std::map<std::string, std::string>& properties,
                   const Clock& clock, std::chrono::seconds repeat_interval)
    : log_(std::move(log)),
      client_(std::move(client)),
      properties_(properties),
      redactor_(properties),
      clock_(clock),
      repeat_interval_(repeat_interval) {}

void KafkaLog::Install(rd_kafka_conf_t* conf, void* owner) {
  owner_ = owner;
  rd_kafka_conf_set_opaque(conf, this);
  rd_kafka_conf_set_log_cb(conf, &KafkaLog::OnLog);
  rd_kafka_conf_set_error_cb(conf, &KafkaLog::OnError);
}

bool KafkaLog::Admit(std::string_view facility, std::string_view message, uint64_t* suppressed) {
  const SteadyTime now = clock_.Now();
  MutexLock lock(&mu_);
  if (shown_.size() >= kMaxRemembered) shown_.clear();
  auto [it, fresh] = shown_.try_emplace(RepeatKey(facility, message), Shown{now, 0});
  if (fresh) {
    *suppressed = 0;
    return true;
  }
  if (now - it->second.at < repeat_interval_) {
    ++it->second.suppressed;
    return false;
  }
  *suppressed = std::exchange(it->second.suppressed, 0);
  it->second.at = now;
  return true;
}

void KafkaLog::Log(int level, std::string_view facility, std::string_view message) {
  const LogLevel lvl = LogLevelOf(level);
  if (!log_.Enabled(lvl)) return;
  const std::string text = Redact(message);
  uint64_t suppressed = 0;
  if (!Admit(facility, text, &suppressed)) return;
  if (suppressed > 0) {
    log_.At(lvl, "event=kafka_log client=%v level=%v facility=%v message=\"%v\" suppressed=%v", client_,
            LevelName(level), facility, Quoted(text), suppressed);
  } else {
    log_.At(lvl, "event=kafka_log client=%v level=%v facility=%v message=\"%v\"", client_, LevelName(level), facility,
            Quoted(text));
  }
}

void KafkaLog::Error(rd_kafka_t* rk, int err, std::string_view reason) {
  const auto code = static_cast<rd_kafka_resp_err_t>(err);
  if (code == RD_KAFKA_RESP_ERR__FATAL && rk != nullptr) {
    // Every later call fails; the owner sees it there. Not rate-limited:
    // there is one.
    char fatal[512];
    const rd_kafka_resp_err_t orig = rd_kafka_fatal_error(rk, fatal, sizeof(fatal));
    log_.Error("event=kafka_error client=%v code=%v fatal=true message=\"%v\"", client_, rd_kafka_err2name(orig),
               Quoted(Redact(fatal)));
    return;
  }
  if (code == RD_KAFKA_RESP_ERR__AUTHENTICATION && reason.find("OAUTHBEARER token") != std::string_view::npos) {
    MutexLock lock(&mu_);
    if (token_failure_.empty()) token_failure_ = Redact(reason);
  }
  // A transport error repeats the log line librdkafka has just written.
  const LogLevel lvl = code == RD_KAFKA_RESP_ERR__TRANSPORT ? LogLevel::kDebug : LogLevel::kWarn;
  if (!log_.Enabled(lvl)) return;
  const std::string text = Redact(reason);
  const std::string_view name = rd_kafka_err2name(code);
  uint64_t suppressed = 0;
  if (!Admit(name, text, &suppressed)) return;
  if (suppressed > 0) {
    log_.At(lvl, "event=kafka_error client=%v code=%v message=\"%v\" suppressed=%v", client_, name, Quoted(text),
            suppressed);
  } else {
    log_.At(lvl, "event=kafka_error client=%v code=%v message=\"%v\"", client_, name, Quoted(text));
  }
}

std::string KafkaLog::Explain(std::string_view error) const {
  std::string out = Redact(error);
  std::string named;
  for (const auto& [key, value] : properties_) {
    if (error.find(key) != std::string_view::npos) return out;
    // Short values ("1", "all") would match by chance.
    if (value.size() >= 3 && error.find(value) != std::string_view::npos) {
      named += (named.empty() ? "" : ", ") + key + "=" + ShownValue(key, value);
    }
  }
  return named.empty() ? out : out + " (" + named + ")";
}

std::string KafkaLog::token_failure() const {
  MutexLock lock(&mu_);
  return token_failure_;
}

absl::StatusOr<rd_kafka_t*> NewHandle(rd_kafka_type_t type, rd_kafka_conf_t* conf, KafkaLog& log) {
  const std::string& client = log.client();
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof(err));
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);  // rd_kafka_new keeps it only on success
    return absl::InvalidArgumentError("kafka " + client + ": " + log.Explain(err));
  }
  // The builtin OAUTHBEARER handler made (or failed to make) its token inside
  // rd_kafka_new; its failure waits on the main queue.
  rd_kafka_poll(rk, 0);
  if (std::string failure = log.token_failure(); !failure.empty()) {
    rd_kafka_destroy(rk);
    return absl::InvalidArgumentError(
        "kafka " + std::string(client) + ": kafka property sasl.oauthbearer.config=" + std::string(kRedacted) +
        " cannot make a token (enable.sasl.oauthbearer.unsecure.jwt=true builds it from that value): " + failure);
  }
  return rk;
}

absl::Status ApplyProperties(rd_kafka_conf_t* conf, const std::map<std::string, std::string>& properties,
                             std::string_view section) {
  char err[512];
  for (const auto& [key, value] : properties) {
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      std::string message = PropertyError(key, value, err);
      if (!section.empty()) message += " (" + std::string(section) + key + ")";
      return absl::InvalidArgumentError(message);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<rd_kafka_t*> NewHandle(rd_kafka_type_t type, KafkaLog& log, void* owner,
                                      const std::function<void(rd_kafka_conf_t*)>& configure) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (absl::Status s = ApplyProperties(conf, log.properties()); !s.ok()) {
    rd_kafka_conf_destroy(conf);
    return s;
  }
  log.Install(conf, owner);
  if (configure) configure(conf);
  return NewHandle(type, conf, log);
}

void KafkaLog::OnLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  static_cast<KafkaLog*>(rd_kafka_opaque(rk))->Log(level, fac != nullptr ? fac : "", buf != nullptr ? buf : "");
}

void KafkaLog::OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  static_cast<KafkaLog*>(opaque)->Error(rk, err, reason != nullptr ? reason : "");
}

}  // namespace qinfer::kafka
