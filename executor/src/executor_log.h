// Logging for translation units that include torch headers. libtorch ships
// its own copy of fmt, which clashes with the Debian fmt that spdlog uses, so
// torch code formats with absl::StrFormat and logs through core's
// header-only-free entry point (qinfer/core/plain_log.h).
#pragma once

#include <string>

#include "qinfer/core/plain_log.h"

namespace qinfer::executor::log {

inline void Debug(const std::string& m) { PlainLog("executor", LogLevel::kDebug, m); }
inline void Info(const std::string& m) { PlainLog("executor", LogLevel::kInfo, m); }
inline void Warn(const std::string& m) { PlainLog("executor", LogLevel::kWarn, m); }

}  // namespace qinfer::executor::log
