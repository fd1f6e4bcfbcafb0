// Logging without spdlog's headers, for code that cannot include them (torch
// ships a clashing fmt). Writes through the same named loggers as Logger().
#pragma once

#include <string>

namespace qinfer {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError };

// Thread-safe.
void PlainLog(const std::string& logger, LogLevel level, const std::string& message);

}  // namespace qinfer
