#include "qinfer/pipeline/service_snapshot.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "absl/strings/str_format.h"

namespace qinfer::pipeline {
namespace {

using nlohmann::json;

std::string Bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? absl::StrFormat("%d B", n) : absl::StrFormat("%.1f %s", v, units[u]);
}

std::string Duration(double seconds) {
  const int64_t s = int64_t(seconds);
  if (s < 60) return absl::StrFormat("%ds", s);
  if (s < 3600) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  return absl::StrFormat("%dh%02dm", s / 3600, (s / 60) % 60);
}

// The precision probe's entry: the cosine one (embed) or the scores one.
// Throws json::exception for a field that is missing or of the wrong type.
void ReadPrecision(const json& p, ServiceSnapshot& s) {
  s.precision_dtype = p.at("dtype").get<std::string>();
  s.precision_rows = p.at("rows").get<int>();
  s.precision_scores = p.contains("max_score_diff");
  if (s.precision_scores) {
    s.precision_max_score_diff = p.at("max_score_diff").get<double>();
    s.precision_label_changes = p.at("label_changes").get<int>();
    s.precision_bound = p.at("bound").get<double>();
  } else {
    s.precision_min_cosine = p.at("min_cosine").get<double>();
    s.precision_floor = p.at("floor").get<double>();
  }
}

}  // namespace

std::string SnapshotToJson(const ServiceSnapshot& s) {
  json j;
  j["version"] = s.version;
  j["libtorch"] = s.libtorch;
  j["model"] = {{"name", s.model}, {"digest", s.model_digest}};
  j["device"] = s.device;
  j["fallback_device"] = s.fallback_device;
  j["threads"] = {{"intra_op", s.intra_op_threads}, {"inter_op", s.inter_op_threads}};
  j["mkl"] = {{"dispatch", s.mkl_dispatch}, {"kernel_path", s.mkl_kernel_path}};
  if (!s.precision_dtype.empty() && s.precision_scores) {
    j["precision"] = {{"dtype", s.precision_dtype},
                      {"max_score_diff", s.precision_max_score_diff},
                      {"label_changes", s.precision_label_changes},
                      {"rows", s.precision_rows},
                      {"bound", s.precision_bound}};
  } else if (!s.precision_dtype.empty()) {
    j["precision"] = {{"dtype", s.precision_dtype},
                      {"min_cosine", s.precision_min_cosine},
                      {"rows", s.precision_rows},
                      {"floor", s.precision_floor}};
  }
  j["uptime_seconds"] = s.uptime_seconds;
  j["ready"] = {{"ok", s.ready}, {"text", s.readiness}};
  j["live"] = {{"ok", s.live}, {"text", s.liveness}};
  j["heartbeat_age_seconds"] = s.heartbeat_age_seconds;
  j["fatal_cause"] = s.fatal_cause;
  j["buckets"] = json::array();
  for (const BucketSnapshot& b : s.buckets) {
    j["buckets"].push_back({{"bound", b.bound},
                            {"cap", b.cap},
                            {"unfit", b.unfit},
                            {"queued_jobs", b.queued_jobs},
                            {"queued_bytes", b.queued_bytes},
                            {"batches", b.batches},
                            {"jobs", b.jobs},
                            {"real_tokens", b.real_tokens},
                            {"padded_tokens", b.padded_tokens},
                            {"padding_efficiency", b.padding_efficiency()}});
  }
  j["partitions"] = json::array();
  for (const PartitionSnapshot& p : s.partitions) {
    j["partitions"].push_back({{"partition", p.partition},
                               {"committed_offset", p.committed_offset ? json(*p.committed_offset) : json(nullptr)},
                               {"high_watermark", p.high_watermark},
                               {"lag", p.lag}});
  }
  json busy = json::array();
  for (uint64_t ns : s.decode_worker_busy_ns) busy.push_back(double(ns) * 1e-9);
  j["consumer"] = {{"assigned_partitions", s.assigned_partitions},
                   {"paused", s.paused},
                   {"decoding", s.decoding},
                   {"decode_worker_busy_seconds", busy}};
  j["records"] = s.records;
  j["memory"] = {{"allocated", s.memory_allocated},
                 {"reserved", s.memory_reserved},
                 {"peak", s.memory_peak},
                 {"budget", s.memory_budget}};
  j["cpu_block_cache"] = s.cpu_block_cache;
  j["stats"] = s.stats;
  return j.dump();
}

absl::StatusOr<ServiceSnapshot> SnapshotFromJson(const std::string& text) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return absl::InvalidArgumentError("status: not a JSON object");
  ServiceSnapshot s;
  try {
    s.version = j.at("version").get<std::string>();
    s.libtorch = j.at("libtorch").get<std::string>();
    s.model = j.at("model").at("name").get<std::string>();
    s.model_digest = j.at("model").at("digest").get<std::string>();
    s.device = j.at("device").get<std::string>();
    s.fallback_device = j.at("fallback_device").get<std::string>();
    s.intra_op_threads = j.at("threads").at("intra_op").get<int>();
    s.inter_op_threads = j.at("threads").at("inter_op").get<int>();
    if (j.contains("mkl")) {  // absent from the JSON of an older instance
      s.mkl_dispatch = j.at("mkl").at("dispatch").get<std::string>();
      s.mkl_kernel_path = j.at("mkl").at("kernel_path").get<int>();
    }
    if (j.contains("precision")) ReadPrecision(j.at("precision"), s);  // only when a probe ran
    s.uptime_seconds = j.at("uptime_seconds").get<double>();
    s.ready = j.at("ready").at("ok").get<bool>();
    s.readiness = j.at("ready").at("text").get<std::string>();
    s.live = j.at("live").at("ok").get<bool>();
    s.liveness = j.at("live").at("text").get<std::string>();
    s.heartbeat_age_seconds = j.at("heartbeat_age_seconds").get<double>();
    s.fatal_cause = j.at("fatal_cause").get<std::string>();
    for (const json& b : j.at("buckets")) {
      BucketSnapshot bucket;
      bucket.bound = b.at("bound").get<int>();
      bucket.cap = b.at("cap").get<int>();
      bucket.unfit = b.at("unfit").get<bool>();
      bucket.queued_jobs = b.at("queued_jobs").get<uint64_t>();
      bucket.queued_bytes = b.at("queued_bytes").get<uint64_t>();
      bucket.batches = b.at("batches").get<uint64_t>();
      bucket.jobs = b.at("jobs").get<uint64_t>();
      bucket.real_tokens = b.at("real_tokens").get<uint64_t>();
      bucket.padded_tokens = b.at("padded_tokens").get<uint64_t>();
      s.buckets.push_back(bucket);
    }
    for (const json& p : j.at("partitions")) {
      PartitionSnapshot partition;
      partition.partition = p.at("partition").get<int32_t>();
      if (const json& c = p.at("committed_offset"); !c.is_null()) partition.committed_offset = c.get<int64_t>();
      partition.lag = p.at("lag").get<int64_t>();
      // Absent from the JSON of an older instance.
      partition.high_watermark = p.value("high_watermark", int64_t{-1});
      s.partitions.push_back(partition);
    }
    const json& c = j.at("consumer");
    s.assigned_partitions = c.at("assigned_partitions").get<int>();
    s.paused = c.at("paused").get<bool>();
    s.decoding = c.value("decoding", uint64_t{0});  // absent from an older instance's JSON
    if (c.contains("decode_worker_busy_seconds")) {  // absent from an older instance's JSON
      for (const json& seconds : c.at("decode_worker_busy_seconds")) {
        s.decode_worker_busy_ns.push_back(uint64_t(std::llround(seconds.get<double>() * 1e9)));
      }
    }
    s.records = j.at("records").get<std::map<std::string, uint64_t>>();
    const json& m = j.at("memory");
    s.memory_allocated = m.at("allocated").get<uint64_t>();
    s.memory_reserved = m.at("reserved").get<uint64_t>();
    s.memory_peak = m.at("peak").get<uint64_t>();
    s.memory_budget = m.at("budget").get<uint64_t>();
    if (j.contains("cpu_block_cache")) {  // absent from the JSON of an older instance
      s.cpu_block_cache = j.at("cpu_block_cache").get<std::map<std::string, uint64_t>>();
    }
    s.stats = j.at("stats").get<std::map<std::string, std::map<std::string, uint64_t>>>();
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(std::string("status: ") + e.what());
  }
  return s;
}

std::string FormatSnapshot(const ServiceSnapshot& s) {
  std::ostringstream out;
  out << absl::StrFormat("qinfer %s  up %s  libtorch %s  threads %d intra-op / %d inter-op\n", s.version,
                         Duration(s.uptime_seconds), s.libtorch, s.intra_op_threads, s.inter_op_threads);
  out << absl::StrFormat("model   %s  digest %s\n", s.model, s.model_digest.substr(0, 16));
  out << absl::StrFormat("device  %s  fallback %s\n", s.device, s.fallback_device.empty() ? "none" : s.fallback_device);
  if (s.mkl_kernel_path >= 0) {
    out << absl::StrFormat("mkl     dispatch %s  kernel path %d%s\n", s.mkl_dispatch, s.mkl_kernel_path,
                           s.mkl_kernel_path == 0 ? " (generic)" : "");
  }
  if (!s.precision_dtype.empty() && s.precision_scores) {
    out << absl::StrFormat(
        "precision  %s  scores within %.6f of float32's, %d top labels changed, over %d probe rows (bound %g)\n",
        s.precision_dtype, s.precision_max_score_diff, s.precision_label_changes, s.precision_rows,
        s.precision_bound);
  } else if (!s.precision_dtype.empty()) {
    out << absl::StrFormat("precision  %s  min cosine %.6f to float32 over %d probe rows (floor %g)\n",
                           s.precision_dtype, s.precision_min_cosine, s.precision_rows, s.precision_floor);
  }
  out << absl::StrFormat("health  %s; %s\n", s.liveness, s.readiness);

  out << "\nbuckets\n";
  out << absl::StrFormat("  %8s %5s %8s %10s %9s %9s %8s\n", "bound", "cap", "queued", "queued_B", "batches", "jobs",
                         "padding");
  for (const BucketSnapshot& b : s.buckets) {
    out << absl::StrFormat("  %8d %5d %8d %10s %9d %9d %8.3f%s\n", b.bound, b.cap, b.queued_jobs, Bytes(b.queued_bytes),
                           b.batches, b.jobs, b.padding_efficiency(),
                           b.unfit ? "  (unfit: runs alone on the fallback)" : "");
  }

  out << "\nmemory\n";
  if (s.memory_budget > 0) {
    out << absl::StrFormat("  allocated %s  reserved %s  peak %s  budget %s  (peak %.0f%% of budget)\n",
                           Bytes(s.memory_allocated), Bytes(s.memory_reserved), Bytes(s.memory_peak),
                           Bytes(s.memory_budget), 100.0 * double(s.memory_peak) / double(s.memory_budget));
  } else {
    out << absl::StrFormat("  allocated %s  reserved %s  peak %s  (no budget on this device)\n",
                           Bytes(s.memory_allocated), Bytes(s.memory_reserved), Bytes(s.memory_peak));
  }
  if (!s.cpu_block_cache.empty()) {
    auto at = [&s](const char* key) {
      auto it = s.cpu_block_cache.find(key);
      return it == s.cpu_block_cache.end() ? uint64_t{0} : it->second;
    };
    out << absl::StrFormat("  cpu block cache  held %s (free %s) of %s  hits %d  misses %d  released %d\n",
                           Bytes(at("held_bytes")), Bytes(at("free_bytes")), Bytes(at("limit_bytes")), at("hits"),
                           at("misses"), at("released"));
  }

  out << absl::StrFormat("\nconsumer  assigned %d  %s  decoding %d\n", s.assigned_partitions,
                         s.paused ? "PAUSED" : "fetching", s.decoding);
  if (s.partitions.empty()) {
    out << "  lag: not known yet (librdkafka statistics arrive every statistics.interval.ms)\n";
  } else {
    out << absl::StrFormat("  %9s %10s %10s %8s\n", "partition", "committed", "end", "lag");
    auto known = [](int64_t n) { return n < 0 ? std::string("?") : std::to_string(n); };
    for (const PartitionSnapshot& p : s.partitions) {
      out << absl::StrFormat("  %9d %10s %10s %8s\n", p.partition,
                             p.committed_offset ? std::to_string(*p.committed_offset) : std::string("none"),
                             known(p.high_watermark), known(p.lag));
    }
  }

  out << "\nrecords (durable, this run)\n";
  if (s.records.empty()) out << "  none yet\n";
  for (const auto& [what, n] : s.records) out << absl::StrFormat("  %-14s %d\n", what, n);

  auto nonzero = [&out](const char* title, const std::map<std::string, uint64_t>& m) {
    std::string line;
    for (const auto& [k, v] : m) {
      if (v > 0) line += absl::StrFormat("  %s %d", k, v);
    }
    out << absl::StrFormat("\n%s%s\n", title, line.empty() ? std::string("  none") : line);
  };
  for (const auto& [component, counters] : s.stats) nonzero(component.c_str(), counters);
  return out.str();
}

}  // namespace qinfer::pipeline
