#include "qinfer/core/logging.h"
#include "qinfer/core/plain_log.h"

#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace qinfer {

std::shared_ptr<spdlog::logger> Logger(const std::string& name) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  if (auto existing = spdlog::get(name)) return existing;
  auto logger = spdlog::stderr_color_mt(name);
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%n] %v");
  logger->set_level(spdlog::get_level());
  return logger;
}

}  // namespace qinfer

namespace qinfer {

void PlainLog(const std::string& logger, LogLevel level, const std::string& message) {
  static constexpr spdlog::level::level_enum kLevels[] = {
      spdlog::level::trace, spdlog::level::debug, spdlog::level::info,
      spdlog::level::warn, spdlog::level::err};
  Logger(logger)->log(kLevels[int(level)], "{}", message);
}

}  // namespace qinfer
