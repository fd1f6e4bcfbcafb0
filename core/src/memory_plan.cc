#include "qinfer/core/memory_plan.h"

#include <algorithm>

#include <cstdio>
#include <nlohmann/json.hpp>

namespace qinfer {

using nlohmann::json;

std::string MemoryPlan::Key() const {
  std::string key = "plan/" + model_digest + "/" + device + "/" + dtype + "/" + std::to_string(budget_bytes) +
                    "/torch-" + torch_version + "/m" + std::to_string(int(margin * 1000)) + "/b" +
                    std::to_string(max_batch_size) + "/";
  for (size_t i = 0; i < bounds.size(); ++i) key += (i ? "," : "") + std::to_string(bounds[i]);
  return key;
}

std::string PlanToJson(const MemoryPlan& p) {
  json entries = json::array();
  for (const PlanEntry& e : p.entries) {
    entries.push_back({{"bound", e.bound},
                       {"batch_size", e.batch_size},
                       {"peak_bytes", e.peak_bytes},
                       {"calibration_seconds", e.calibration_seconds},
                       {"lowered_from", e.lowered_from}});
  }
  json j = {{"model_digest", p.model_digest},
            {"device", p.device},
            {"dtype", p.dtype},
            {"torch_version", p.torch_version},
            {"budget_bytes", p.budget_bytes},
            {"margin", p.margin},
            {"max_batch_size", p.max_batch_size},
            {"bounds", p.bounds},
            {"entries", entries},
            {"created_at_ms", p.created_at_ms}};
  return j.dump();
}

absl::StatusOr<MemoryPlan> PlanFromJson(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return absl::DataLossError("stored plan is not JSON");
  MemoryPlan p;
  try {
    p.model_digest = j.at("model_digest").get<std::string>();
    p.device = j.at("device").get<std::string>();
    p.dtype = j.at("dtype").get<std::string>();
    p.torch_version = j.at("torch_version").get<std::string>();
    p.budget_bytes = j.at("budget_bytes").get<int64_t>();
    p.margin = j.at("margin").get<double>();
    p.max_batch_size = j.at("max_batch_size").get<int>();
    p.bounds = j.at("bounds").get<std::vector<int>>();
    p.created_at_ms = j.value("created_at_ms", int64_t{0});
    for (const json& e : j.at("entries")) {
      PlanEntry entry;
      entry.bound = e.at("bound").get<int>();
      entry.batch_size = e.at("batch_size").get<int>();
      entry.peak_bytes = e.at("peak_bytes").get<int64_t>();
      entry.calibration_seconds = e.value("calibration_seconds", 0.0);
      entry.lowered_from = e.value("lowered_from", 0);
      p.entries.push_back(entry);
    }
  } catch (const json::exception& e) {
    return absl::DataLossError(std::string("stored plan: ") + e.what());
  }
  if (p.entries.size() != p.bounds.size()) return absl::DataLossError("stored plan: entries do not match bounds");
  return p;
}

std::string FormatPlan(const MemoryPlan& p) {
  std::string out;
  char line[256];
  std::snprintf(
      line, sizeof line,
      "memory plan: device %s, dtype %s, budget %.1f MiB, margin %.0f%% (plan limit %.1f MiB), max batch %d\n",
      p.device.c_str(), p.dtype.c_str(), p.budget_bytes / 1048576.0, p.margin * 100, p.limit_bytes() / 1048576.0,
      p.max_batch_size);
  out += line;
  std::snprintf(line, sizeof line, "%8s %7s %12s %12s %9s %9s  %s\n", "bucket", "batch", "tokens/batch", "peak_MiB",
                "%budget", "calib_s", "note");
  out += line;
  for (const PlanEntry& e : p.entries) {
    std::string note;
    if (!e.fits()) note = "does not fit: jobs go to the fallback device or fail with oom";
    if (e.lowered_from > 0) note = "lowered from " + std::to_string(e.lowered_from) + " after an OOM";
    std::snprintf(line, sizeof line, "%8d %7d %12d %12.1f %8.1f%% %9.2f  %s\n", e.bound, e.batch_size,
                  e.batch_size * e.bound, e.peak_bytes / 1048576.0,
                  p.budget_bytes ? 100.0 * double(e.peak_bytes) / double(p.budget_bytes) : 0.0, e.calibration_seconds,
                  note.c_str());
    out += line;
  }
  return out;
}

absl::StatusOr<FittingBatch> BisectFittingBatch(const FitsFn& fits, FittingBatch lo, int hi) {
  while (hi - lo.batch > 1) {
    const int mid = lo.batch + (hi - lo.batch) / 2;
    int64_t peak = 0;
    absl::StatusOr<bool> fit = fits(mid, &peak);
    if (!fit.ok()) return fit.status();
    if (*fit) {
      lo = {mid, peak};
    } else {
      hi = mid;
    }
  }
  return lo;
}

absl::StatusOr<FittingBatch> SearchFittingBatch(const FitsFn& fits, int first, int max_batch, int64_t limit_bytes) {
  // Invariant: `lo` fits (batch 0: none known), `hi` does not (max + 1: unknown).
  FittingBatch lo, before_lo;
  int hi = max_batch + 1;
  first = std::clamp(first, 1, max_batch);
  // Tries b: moves lo up to it when it fits, hi down when it does not.
  auto step = [&](int b) -> absl::StatusOr<bool> {
    int64_t peak = 0;
    absl::StatusOr<bool> fit = fits(b, &peak);
    if (!fit.ok()) return fit.status();
    if (*fit) {
      before_lo = lo;
      lo = {b, peak};
    } else {
      hi = b;
    }
    return *fit;
  };
  // The doubling step `next`, or less: the batch where the line through the
  // last two fitting peaks meets limit_bytes (at least lo + 1, so that the
  // plan is still proved tight). Twice at most: where the peaks are not a
  // line, doubling and bisection take over.
  int predictions = limit_bytes > 0 ? 2 : 0;
  auto predicted = [&](int next) {
    if (predictions == 0 || before_lo.batch == 0 || lo.peak <= before_lo.peak) return next;
    const double per_row = double(lo.peak - before_lo.peak) / double(lo.batch - before_lo.batch);
    const int64_t more = int64_t(double(limit_bytes - lo.peak) / per_row);
    if (int64_t(lo.batch) + more >= next) return next;  // the doubling step is nearer: no guess spent
    --predictions;
    return int(std::max<int64_t>(int64_t(lo.batch) + more, lo.batch + 1));
  };
  absl::StatusOr<bool> fit = step(first);
  if (!fit.ok()) return fit.status();
  if (*fit) {
    while (lo.batch < max_batch) {
      fit = step(predicted(std::min(lo.batch * 2, max_batch)));
      if (!fit.ok()) return fit.status();
      if (!*fit) break;
    }
  } else {
    for (int b = 1; b < hi; b *= 2) {
      fit = step(b);
      if (!fit.ok()) return fit.status();
      if (!*fit) break;
    }
  }
  if (lo.batch >= max_batch) return lo;
  return BisectFittingBatch(fits, lo, hi);
}

}  // namespace qinfer
