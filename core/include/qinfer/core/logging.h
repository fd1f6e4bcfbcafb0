// One named spdlog logger per module ("consumer", "scheduler", "executor",
// "storage", "app"). Messages are key=value; payloads are never logged.
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace qinfer {

// Returns the logger called `name`, creating it (stderr, shared format) on
// first use. Thread-safe.
std::shared_ptr<spdlog::logger> Logger(const std::string& name);

}  // namespace qinfer
