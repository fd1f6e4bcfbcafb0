#include "qinfer/core/logging.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <ostream>

#include <fmt/format.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace qinfer {

struct Log::Sink {
  std::shared_ptr<spdlog::logger> logger;
};

namespace {

spdlog::level::level_enum ToSpdlog(LogLevel level) {
  static constexpr spdlog::level::level_enum kLevels[] = {spdlog::level::trace, spdlog::level::debug,
                                                          spdlog::level::info, spdlog::level::warn, spdlog::level::err};
  return kLevels[int(level)];
}

}  // namespace

Log Logger(std::string_view name) {
  // One Sink per name, so a handle costs a lookup and no allocation.
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Log::Sink>, std::less<>> sinks;
  std::lock_guard lock(mu);
  if (auto it = sinks.find(name); it != sinks.end()) return Log(it->second);
  std::shared_ptr<spdlog::logger> logger = spdlog::get(std::string(name));
  if (logger == nullptr) {
    logger = spdlog::stderr_color_mt(std::string(name));
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%n] %v");
    logger->set_level(spdlog::get_level());
  }
  auto sink = std::make_shared<const Log::Sink>(Log::Sink{std::move(logger)});
  sinks.emplace(std::string(name), sink);
  return Log(std::move(sink));
}

Log CaptureLogForTest(std::string_view name, std::ostream& out) {
  auto logger =
      std::make_shared<spdlog::logger>(std::string(name), std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  logger->set_pattern("%l %v");
  logger->set_level(spdlog::level::trace);
  return Log(std::make_shared<const Log::Sink>(Log::Sink{std::move(logger)}));
}

struct ScopedLogCapture::State {
  std::shared_ptr<spdlog::logger> logger;
  std::shared_ptr<spdlog::sinks::sink> sink;
  spdlog::level::level_enum level;
};

ScopedLogCapture::ScopedLogCapture(std::string_view name, std::ostream& out, LogLevel level)
    : state_(std::make_unique<State>()) {
  Logger(name);  // creates it unless it exists
  state_->logger = spdlog::get(std::string(name));
  state_->sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  state_->level = state_->logger->level();
  state_->logger->sinks().push_back(state_->sink);
  state_->logger->set_level(ToSpdlog(level));
}

ScopedLogCapture::~ScopedLogCapture() {
  auto& sinks = state_->logger->sinks();
  sinks.erase(std::find(sinks.begin(), sinks.end(), state_->sink));
  state_->logger->set_level(state_->level);
}

bool Log::Enabled(LogLevel level) const { return sink_->logger->should_log(ToSpdlog(level)); }

void Log::Write(LogLevel level, std::string_view line) const {
  sink_->logger->log(ToSpdlog(level), spdlog::string_view_t(line.data(), line.size()));
}

void Log::Flush() const { sink_->logger->flush(); }

void SetLogLevel(std::string_view name) { spdlog::set_level(spdlog::level::from_str(std::string(name))); }

void FlushAllLogs() {
  spdlog::apply_all([](const std::shared_ptr<spdlog::logger>& l) { l->flush(); });
}

namespace log_internal {

std::string ShortestText(Shortest v) {
  return v.is_float ? fmt::format("{}", float(v.value)) : fmt::format("{}", v.value);
}

absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(const Shortest& v,
                                                                                    const absl::FormatConversionSpec&,
                                                                                    absl::FormatSink* sink) {
  sink->Append(ShortestText(v));
  return {true};
}

std::string Render(std::string_view format, const char* v_conversions, absl::Span<const absl::FormatArg> args) {
  // absl (20220623) has no %v: each becomes its argument's conversion.
  std::string spec;
  spec.reserve(format.size());
  size_t arg = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    spec.push_back(format[i]);
    if (format[i] != '%') continue;
    if (i + 1 < format.size() && format[i + 1] == '%') {
      spec.push_back(format[++i]);
      continue;
    }
    for (++i; i < format.size() && IsIn(format[i], kFlagsWidthPrecision); ++i) spec.push_back(format[i]);
    if (i == format.size()) break;
    spec.push_back(format[i] == 'v' && arg < args.size() ? v_conversions[arg] : format[i]);
    ++arg;
  }
  std::string out;
  if (!absl::FormatUntyped(&out, absl::UntypedFormatSpec(spec), args)) {
    return std::string(format) + " (log format does not fit its arguments)";
  }
  return out;
}

}  // namespace log_internal
}  // namespace qinfer
