#include <cctype>
#include <cstdio>

#include "qinfer/executor/device_memory.h"

namespace qinfer::executor {

absl::StatusOr<int64_t> ParseBytes(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return absl::InvalidArgumentError("'" + text + "' is not a size (e.g. 512MiB, 2GiB)");
  double value = 0;
  try {
    value = std::stod(text.substr(0, i));
  } catch (const std::exception&) {
    return absl::InvalidArgumentError("'" + text + "' is not a size (e.g. 512MiB, 2GiB)");
  }
  const std::string unit = text.substr(i);
  double scale = 0;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "KiB")
    scale = 1024.0;
  else if (unit == "MiB")
    scale = 1024.0 * 1024;
  else if (unit == "GiB")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "KB")
    scale = 1e3;
  else if (unit == "MB")
    scale = 1e6;
  else if (unit == "GB")
    scale = 1e9;
  else
    return absl::InvalidArgumentError("'" + text + "': unknown unit '" + unit + "' (B, KiB, MiB, GiB, KB, MB, GB)");
  const double bytes = value * scale;
  if (bytes < 1) return absl::InvalidArgumentError("'" + text + "': size must be positive");
  return int64_t(bytes);
}

std::string FormatBytes(int64_t bytes) {
  char buf[32];
  const double b = double(bytes);
  if (b >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  else if (b >= 1024.0 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
  else if (b >= 1024.0)
    std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%lld B", (long long)bytes);
  return buf;
}

absl::StatusOr<DeviceSpec> DeviceSpec::Parse(const std::string& text) {
  DeviceSpec spec;
  const std::string prefix = "cpu-budget:";
  if (text.rfind(prefix, 0) == 0) {
    auto bytes = ParseBytes(text.substr(prefix.size()));
    if (!bytes.ok()) {
      return absl::InvalidArgumentError("device '" + text + "': " + std::string(bytes.status().message()));
    }
    spec.torch_device = "cpu";
    spec.budget_bytes = *bytes;
    spec.budgeted_cpu = true;
    return spec;
  }
  if (text == "cpu" || text.rfind("cuda", 0) == 0) {
    spec.torch_device = text;
    return spec;
  }
  return absl::InvalidArgumentError("device '" + text +
                                    "' is not one of: cpu, cuda:N, cpu-budget:<size> (e.g. cpu-budget:512MiB)");
}

}  // namespace qinfer::executor
