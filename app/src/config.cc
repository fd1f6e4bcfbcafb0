#include "config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>

#include "absl/strings/str_join.h"
#include "qinfer/core/secrets.h"
#include "qinfer/executor/device_memory.h"

namespace qinfer::app {
namespace {

// One setter per scalar key: it parses a string and stores it, or explains.
using Setter = std::function<absl::Status(Config&, const std::string&)>;

// The whole of `v` must be a decimal integer in [min, max]: "12abc", " 12",
// "+12" and "1e3" are errors, and so is a number out of range (never
// clamped, never wrapped).
absl::StatusOr<long long> ParseInt(const std::string& key, const std::string& v, long long min, long long max) {
  long long n = 0;
  const char* end = v.data() + v.size();
  const auto [ptr, ec] = std::from_chars(v.data(), end, n);
  const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (v.empty() || ec == std::errc::invalid_argument || ptr != end) {
    return absl::InvalidArgumentError(key + " = '" + v + "': expected an integer in " + range);
  }
  if (ec == std::errc::result_out_of_range || n > max) {
    return absl::InvalidArgumentError(key + " = " + v + ": must be <= " + std::to_string(max));
  }
  if (n < min) return absl::InvalidArgumentError(key + " = " + v + ": must be >= " + std::to_string(min));
  return n;
}

// The whole of `v` must be a finite number: "0.1x", " 0.1", "nan" and "inf"
// are errors, not 0.1 or a comparison that is always false.
absl::StatusOr<double> ParseDouble(const std::string& key, const std::string& v,
                                   const std::string& expected) {
  double d = 0;
  const char* end = v.data() + v.size();
  const auto [ptr, ec] = std::from_chars(v.data(), end, d);
  if (!v.empty() && ec == std::errc() && ptr == end && std::isfinite(d)) return d;
  return absl::InvalidArgumentError(key + " = '" + v + "': expected " + expected);
}

std::map<std::string, Setter> Setters() {
  std::map<std::string, Setter> s;
  auto str = [](std::function<std::string&(Config&)> field) -> Setter {
    return [field](Config& c, const std::string& v) {
      field(c) = v;
      return absl::OkStatus();
    };
  };
  auto integer = [](const std::string& key, long long min, long long max,
                    std::function<void(Config&, long long)> put) -> Setter {
    return [=](Config& c, const std::string& v) -> absl::Status {
      auto n = ParseInt(key, v, min, max);
      if (!n.ok()) return n.status();
      put(c, *n);
      return absl::OkStatus();
    };
  };
  auto boolean = [](const std::string& key, std::function<bool&(Config&)> field) -> Setter {
    return [=](Config& c, const std::string& v) -> absl::Status {
      if (v == "true" || v == "1") field(c) = true;
      else if (v == "false" || v == "0") field(c) = false;
      else return absl::InvalidArgumentError(key + " = '" + v + "': expected true or false");
      return absl::OkStatus();
    };
  };
  s["model.op_libraries"] = [](Config& c, const std::string& v) -> absl::Status {
    c.model.op_libraries.clear();
    std::stringstream in(v);
    std::string item;
    while (std::getline(in, item, ',')) {
      if (!item.empty()) c.model.op_libraries.push_back(item);
    }
    return absl::OkStatus();
  };
  s["kafka.create_topics"] =
      boolean("kafka.create_topics", [](Config& c) -> bool& { return c.kafka.create_topics; });
  s["kafka.topic_partitions"] = integer("kafka.topic_partitions", 1, 100000, [](Config& c, long long n) {
    c.kafka.topic_partitions = int(n);
  });
  s["kafka.startup_wait_s"] = integer("kafka.startup_wait_s", 1, 3600, [](Config& c, long long n) {
    c.kafka.startup_wait = std::chrono::seconds(n);
  });
  s["limits.max_message_bytes"] = integer("limits.max_message_bytes", 64, 1LL << 31, [](Config& c, long long n) {
    c.limits.max_message_bytes = size_t(n);
  });
  s["limits.max_depth"] = integer("limits.max_depth", 2, 10000, [](Config& c, long long n) {
    c.limits.max_depth = int(n);
  });
  s["limits.max_text_bytes"] = integer("limits.max_text_bytes", 1, 1LL << 31, [](Config& c, long long n) {
    c.limits.max_text_bytes = size_t(n);
  });
  s["limits.max_meta_bytes"] = integer("limits.max_meta_bytes", 0, 1LL << 31, [](Config& c, long long n) {
    c.limits.max_meta_bytes = size_t(n);
  });
  s["admission.too_long"] = [](Config& c, const std::string& v) -> absl::Status {
    if (v != "reject" && v != "truncate" && v != "chunk" && v != "long_lane") {
      return absl::InvalidArgumentError("admission.too_long = '" + v +
                                        "': expected reject, truncate, chunk or long_lane");
    }
    c.admission.too_long = v;
    return absl::OkStatus();
  };
  s["admission.chunk_overlap"] = integer("admission.chunk_overlap", 0, 1 << 30, [](Config& c, long long n) {
    c.admission.chunk_overlap = int(n);
  });
  s["admission.max_chunks"] = integer("admission.max_chunks", 1, 1 << 20, [](Config& c, long long n) {
    c.admission.max_chunks = int(n);
  });
  s["long_lane.max_tokens"] = integer("long_lane.max_tokens", 0, 1 << 30, [](Config& c, long long n) {
    c.long_lane.max_tokens = int(n);
  });
  s["recovery.max_attempts"] = integer("recovery.max_attempts", 1, 1000, [](Config& c, long long n) {
    c.recovery.max_attempts = int(n);
  });
  s["scheduler.max_queued_bytes"] = integer("scheduler.max_queued_bytes", 1, 1LL << 50, [](Config& c, long long n) {
    c.scheduler.max_queued_bytes = size_t(n);
  });
  s["model.path"] = str([](Config& c) -> std::string& { return c.model.path; });
  s["model.manifest"] = str([](Config& c) -> std::string& { return c.model.manifest; });
  s["model.device"] = [](Config& c, const std::string& v) -> absl::Status {
    if (absl::StatusOr<executor::DeviceSpec> spec = executor::DeviceSpec::Parse(v); !spec.ok()) {
      return absl::InvalidArgumentError("model.device = '" + v + "': " + std::string(spec.status().message()));
    }
    c.model.device = v;
    return absl::OkStatus();
  };
  s["model.fallback_device"] = [](Config& c, const std::string& v) -> absl::Status {
    if (v != "auto" && v != "cpu" && v != "none") {
      return absl::InvalidArgumentError("model.fallback_device = '" + v + "': expected auto, cpu or none");
    }
    c.model.fallback_device = v;
    return absl::OkStatus();
  };
  s["model.autocast"] = [](Config& c, const std::string& v) -> absl::Status {
    if (!v.empty() && v != "bf16" && v != "fp16") {
      return absl::InvalidArgumentError("model.autocast = '" + v + "': expected bf16, fp16 or empty (float32)");
    }
    c.model.autocast = v;
    return absl::OkStatus();
  };
  s["memory.plan"] = boolean("memory.plan", [](Config& c) -> bool& { return c.memory.plan; });
  s["memory.margin"] = [](Config& c, const std::string& v) -> absl::Status {
    const std::string expected = "a number in [0, 1), e.g. 0.1";
    auto d = ParseDouble("memory.margin", v, expected);
    if (!d.ok()) return d.status();
    if (!(*d >= 0 && *d < 1)) return absl::InvalidArgumentError("memory.margin = '" + v + "': expected " + expected);
    c.memory.margin = *d;
    return absl::OkStatus();
  };
  s["memory.cuda_memory_fraction"] = [](Config& c, const std::string& v) -> absl::Status {
    const std::string expected = "a number in [0, 1]";
    auto d = ParseDouble("memory.cuda_memory_fraction", v, expected);
    if (!d.ok()) return d.status();
    if (!(*d >= 0 && *d <= 1)) {
      return absl::InvalidArgumentError("memory.cuda_memory_fraction = '" + v + "': expected " + expected);
    }
    c.memory.cuda_memory_fraction = *d;
    return absl::OkStatus();
  };
  s["memory.cuda_budget"] = [](Config& c, const std::string& v) -> absl::Status {
    if (!v.empty()) {
      absl::StatusOr<int64_t> bytes = executor::ParseBytes(v);
      if (!bytes.ok() || *bytes <= 0) {
        return absl::InvalidArgumentError("memory.cuda_budget = '" + v + "': expected a size above 0 (e.g. 20GiB) or empty" +
                                          (bytes.ok() ? "" : ": " + std::string(bytes.status().message())));
      }
    }
    c.memory.cuda_budget = v;
    return absl::OkStatus();
  };
  s["model.threads"] = integer("model.threads", 0, 4096, [](Config& c, long long n) { c.model.threads = int(n); });
  s["kafka.brokers"] = str([](Config& c) -> std::string& { return c.kafka.brokers; });
  s["kafka.group_id"] = str([](Config& c) -> std::string& { return c.kafka.group_id; });
  s["kafka.jobs_topic"] = str([](Config& c) -> std::string& { return c.kafka.jobs_topic; });
  s["kafka.reply_topic"] = str([](Config& c) -> std::string& { return c.kafka.reply_topic; });
  s["kafka.dead_letter_topic"] =
      str([](Config& c) -> std::string& { return c.kafka.dead_letter_topic; });
  s["scheduler.max_tokens"] = integer("scheduler.max_tokens", 0, 1 << 30, [](Config& c, long long n) {
    c.scheduler.max_tokens = int(n);
  });
  s["scheduler.tokens_per_batch"] = integer("scheduler.tokens_per_batch", 1, 1 << 30, [](Config& c, long long n) {
    c.scheduler.tokens_per_batch = int(n);
  });
  s["scheduler.max_batch_size"] = integer("scheduler.max_batch_size", 1, 1 << 20, [](Config& c, long long n) {
    c.scheduler.max_batch_size = int(n);
  });
  s["scheduler.max_batch_delay_ms"] = integer("scheduler.max_batch_delay_ms", 0, 86400000, [](Config& c, long long n) {
    c.scheduler.max_batch_delay = std::chrono::milliseconds(n);
  });
  s["scheduler.formation"] = [](Config& c, const std::string& v) -> absl::Status {
    absl::StatusOr<scheduler::Formation> formation = scheduler::ParseFormation(v);
    if (!formation.ok()) {
      return absl::InvalidArgumentError("scheduler.formation: " + std::string(formation.status().message()));
    }
    c.scheduler.formation = *formation;
    return absl::OkStatus();
  };
  s["scheduler.max_padding"] = [](Config& c, const std::string& v) -> absl::Status {
    const std::string expected = "a fraction in [0, 1) (e.g. 0.08: no job pads more than 8%)";
    auto x = ParseDouble("scheduler.max_padding", v, expected);
    if (!x.ok()) return x.status();
    if (!(*x >= 0 && *x < 1)) return absl::InvalidArgumentError("scheduler.max_padding = '" + v + "': expected " + expected);
    c.scheduler.max_padding = *x;
    return absl::OkStatus();
  };
  s["scheduler.max_queued_jobs"] = integer("scheduler.max_queued_jobs", 1, 1LL << 32, [](Config& c, long long n) {
    c.scheduler.max_queued_jobs = size_t(n);
  });
  s["scheduler.max_queued_tokens"] = integer("scheduler.max_queued_tokens", 1, 1LL << 40, [](Config& c, long long n) {
    c.scheduler.max_queued_tokens = size_t(n);
  });
  s["scheduler.bucket_bounds"] = [](Config& c, const std::string& v) -> absl::Status {
    // Comma-separated in env/flags; a YAML list arrives joined the same way.
    c.scheduler.bucket_bounds.clear();
    std::stringstream in(v);
    std::string item;
    while (std::getline(in, item, ',')) {
      if (item.empty()) continue;
      auto n = ParseInt("scheduler.bucket_bounds", item, 1, 1 << 30);
      if (!n.ok()) return n.status();
      c.scheduler.bucket_bounds.push_back(int(*n));
    }
    return absl::OkStatus();
  };
  s["storage.path"] = str([](Config& c) -> std::string& { return c.storage.path; });
  s["storage.sync"] = boolean("storage.sync", [](Config& c) -> bool& { return c.storage.sync; });
  s["http.listen"] = [](Config& c, const std::string& v) -> absl::Status {
    if (!v.empty()) {
      if (absl::StatusOr<ListenAddress> a = ParseListenAddress(v); !a.ok()) return a.status();
    }
    c.http.listen = v;
    return absl::OkStatus();
  };
  s["shutdown.drain_timeout_s"] = integer("shutdown.drain_timeout_s", 0, 86400, [](Config& c, long long n) {
    c.shutdown.drain_timeout = std::chrono::seconds(n);
  });
  s["health.startup_timeout_s"] = integer("health.startup_timeout_s", 0, 86400, [](Config& c, long long n) {
    c.health.startup_timeout = std::chrono::seconds(n);
  });
  s["health.executor_stall_s"] = integer("health.executor_stall_s", 1, 86400, [](Config& c, long long n) {
    c.health.executor_stall = std::chrono::seconds(n);
  });
  return s;
}

std::string KnownKeys(const std::map<std::string, Setter>& setters) {
  std::vector<std::string> keys;
  for (const auto& [k, _] : setters) keys.push_back(k);
  keys.push_back("kafka.consumer.<librdkafka property>");
  keys.push_back("kafka.producer.<librdkafka property>");
  return absl::StrJoin(keys, ", ");
}

absl::Status Apply(Config& c, const std::map<std::string, Setter>& setters,
                   const std::string& key, const std::string& value,
                   const std::string& where) {
  for (const char* prefix : {"kafka.consumer.", "kafka.producer."}) {
    const std::string p = prefix;
    if (key.rfind(p, 0) == 0 && key.size() > p.size()) {
      (p == "kafka.consumer." ? c.kafka.consumer : c.kafka.producer)[key.substr(p.size())] = value;
      return absl::OkStatus();
    }
  }
  auto it = setters.find(key);
  if (it == setters.end()) {
    return absl::InvalidArgumentError("unknown configuration key '" + key + "' in " +
                                      where + "; known keys: " + KnownKeys(setters));
  }
  absl::Status s = it->second(c, value);
  if (!s.ok()) return absl::InvalidArgumentError(std::string(s.message()) + " (from " + where + ")");
  return absl::OkStatus();
}

// Flattens a YAML mapping into "a.b.c" -> scalar text; sequences of scalars
// are joined with commas.
absl::Status Flatten(const YAML::Node& node, const std::string& prefix,
                     std::vector<std::pair<std::string, std::string>>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string key = prefix.empty() ? kv.first.as<std::string>()
                                             : prefix + "." + kv.first.as<std::string>();
      if (absl::Status s = Flatten(kv.second, key, out); !s.ok()) return s;
    }
  } else if (node.IsSequence()) {
    std::vector<std::string> items;
    for (const auto& item : node) {
      if (!item.IsScalar()) return absl::InvalidArgumentError(prefix + ": expected a list of scalars");
      items.push_back(item.as<std::string>());
    }
    out.emplace_back(prefix, absl::StrJoin(items, ","));
  } else if (node.IsScalar()) {
    out.emplace_back(prefix, node.as<std::string>());
  } else if (node.IsNull() && !prefix.empty()) {
    out.emplace_back(prefix, "");
  }
  return absl::OkStatus();
}

// Makes the relative paths among `keys` (those the config file set)
// relative to `dir`, the file's directory.
void ResolveAgainst(const std::filesystem::path& dir, const std::set<std::string>& keys, Config& c) {
  auto resolve = [&](const char* key, std::string& p) {
    if (keys.contains(key) && !p.empty() && std::filesystem::path(p).is_relative()) {
      p = (dir / p).lexically_normal().string();
    }
  };
  if (dir.empty()) return;
  resolve("model.path", c.model.path);
  resolve("model.manifest", c.model.manifest);
  for (std::string& lib : c.model.op_libraries) resolve("model.op_libraries", lib);
  resolve("storage.path", c.storage.path);
}

std::string EnvName(const std::string& key) {
  std::string name = "QINFER_";
  for (char ch : key) name += ch == '.' ? '_' : char(std::toupper(static_cast<unsigned char>(ch)));
  return name;
}

}  // namespace

absl::StatusOr<ListenAddress> ParseListenAddress(const std::string& text) {
  const std::string expected = "expected host:port with a port in [0, 65535] (e.g. 127.0.0.1:9400, 0.0.0.0:9400), "
                               "or \"\" to disable";
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError("http.listen = '" + text + "': " + expected);
  }
  ListenAddress a;
  a.host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  int n = -1;
  const auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
  if (port.empty() || ec != std::errc() || ptr != port.data() + port.size() || n < 0 || n > 65535) {
    return absl::InvalidArgumentError("http.listen = '" + text + "': port '" + port + "' is not a port; " + expected);
  }
  a.port = n;
  return a;
}

std::vector<std::string> ConfigKeys() {
  std::vector<std::string> keys;
  for (const auto& [key, _] : Setters()) keys.push_back(key);
  return keys;
}

absl::StatusOr<Config> LoadConfig(const std::string& path,
                                  const std::vector<std::string>& overrides) {
  Config c;
  const auto setters = Setters();
  if (!path.empty()) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(path);
    } catch (const YAML::Exception& e) {
      return absl::InvalidArgumentError("cannot read config " + path + ": " + e.what());
    }
    std::vector<std::pair<std::string, std::string>> flat;
    if (!root.IsNull()) {
      if (!root.IsMap()) return absl::InvalidArgumentError("config " + path + " must be a YAML mapping");
      if (absl::Status s = Flatten(root, "", flat); !s.ok()) return s;
    }
    for (const auto& [k, v] : flat) {
      if (absl::Status s = Apply(c, setters, k, v, path); !s.ok()) return s;
    }
    std::set<std::string> from_file;
    for (const auto& [k, _] : flat) from_file.insert(k);
    ResolveAgainst(std::filesystem::path(path).parent_path(), from_file, c);
  }
  // Environment: only the scalar keys (librdkafka properties go in the file
  // or in --set).
  for (const auto& [key, _] : setters) {
    if (const char* v = std::getenv(EnvName(key).c_str()); v != nullptr) {
      if (absl::Status s = Apply(c, setters, key, v, "environment " + EnvName(key)); !s.ok()) return s;
    }
  }
  for (const std::string& o : overrides) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError("--set '" + o + "': expected section.key=value");
    }
    if (absl::Status s = Apply(c, setters, o.substr(0, eq), o.substr(eq + 1), "--set"); !s.ok()) return s;
  }
  if (c.model.path.empty()) {
    return absl::InvalidArgumentError(
        "model.path is not set: point it at a TorchScript model.pt (model/export_model.py writes one)");
  }
  if (c.kafka.jobs_topic.empty()) return absl::InvalidArgumentError("kafka.jobs_topic is empty");
  if (c.storage.path.empty()) return absl::InvalidArgumentError("storage.path is empty");
  return c;
}

namespace {

// The shortest text that reads back to exactly `x` (0.1, not
// 0.10000000000000001).
std::string Shortest(double x) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(x);
}

}  // namespace

std::string DumpConfig(const Config& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "model" << YAML::Value << YAML::BeginMap
      << YAML::Key << "path" << YAML::Value << c.model.path
      << YAML::Key << "manifest" << YAML::Value << c.model.manifest
      << YAML::Key << "device" << YAML::Value << c.model.device
      << YAML::Key << "fallback_device" << YAML::Value << c.model.fallback_device
      << YAML::Key << "autocast" << YAML::Value << c.model.autocast
      << YAML::Key << "threads" << YAML::Value << c.model.threads
      << YAML::Key << "op_libraries" << YAML::Value << YAML::Flow << c.model.op_libraries
      << YAML::EndMap;
  out << YAML::Key << "memory" << YAML::Value << YAML::BeginMap
      << YAML::Key << "plan" << YAML::Value << c.memory.plan
      << YAML::Key << "margin" << YAML::Value << Shortest(c.memory.margin)
      << YAML::Key << "cuda_memory_fraction" << YAML::Value << Shortest(c.memory.cuda_memory_fraction)
      << YAML::Key << "cuda_budget" << YAML::Value << c.memory.cuda_budget << YAML::EndMap;
  out << YAML::Key << "kafka" << YAML::Value << YAML::BeginMap
      << YAML::Key << "brokers" << YAML::Value << c.kafka.brokers
      << YAML::Key << "group_id" << YAML::Value << c.kafka.group_id
      << YAML::Key << "jobs_topic" << YAML::Value << c.kafka.jobs_topic
      << YAML::Key << "reply_topic" << YAML::Value << c.kafka.reply_topic
      << YAML::Key << "dead_letter_topic" << YAML::Value << c.kafka.dead_letter_topic
      << YAML::Key << "create_topics" << YAML::Value << c.kafka.create_topics
      << YAML::Key << "topic_partitions" << YAML::Value << c.kafka.topic_partitions
      << YAML::Key << "startup_wait_s" << YAML::Value << c.kafka.startup_wait.count();
  for (const auto& [name, properties] : {std::pair{"consumer", &c.kafka.consumer},
                                         std::pair{"producer", &c.kafka.producer}}) {
    if (properties->empty()) continue;
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : *properties) out << YAML::Key << k << YAML::Value << ShownValue(k, v);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "limits" << YAML::Value << YAML::BeginMap
      << YAML::Key << "max_message_bytes" << YAML::Value << c.limits.max_message_bytes
      << YAML::Key << "max_depth" << YAML::Value << c.limits.max_depth
      << YAML::Key << "max_meta_bytes" << YAML::Value << c.limits.max_meta_bytes
      << YAML::Key << "max_text_bytes" << YAML::Value << c.limits.max_text_bytes << YAML::EndMap;
  out << YAML::Key << "admission" << YAML::Value << YAML::BeginMap
      << YAML::Key << "too_long" << YAML::Value << c.admission.too_long
      << YAML::Key << "chunk_overlap" << YAML::Value << c.admission.chunk_overlap
      << YAML::Key << "max_chunks" << YAML::Value << c.admission.max_chunks << YAML::EndMap;
  out << YAML::Key << "long_lane" << YAML::Value << YAML::BeginMap
      << YAML::Key << "max_tokens" << YAML::Value << c.long_lane.max_tokens << YAML::EndMap;
  out << YAML::Key << "recovery" << YAML::Value << YAML::BeginMap
      << YAML::Key << "max_attempts" << YAML::Value << c.recovery.max_attempts << YAML::EndMap;
  out << YAML::Key << "scheduler" << YAML::Value << YAML::BeginMap
      << YAML::Key << "bucket_bounds" << YAML::Value << YAML::Flow << c.scheduler.bucket_bounds
      << YAML::Key << "max_tokens" << YAML::Value << c.scheduler.max_tokens
      << YAML::Key << "tokens_per_batch" << YAML::Value << c.scheduler.tokens_per_batch
      << YAML::Key << "max_batch_size" << YAML::Value << c.scheduler.max_batch_size
      << YAML::Key << "max_batch_delay_ms" << YAML::Value << c.scheduler.max_batch_delay.count()
      << YAML::Key << "formation" << YAML::Value << scheduler::FormationName(c.scheduler.formation)
      << YAML::Key << "max_padding" << YAML::Value << Shortest(c.scheduler.max_padding)
      << YAML::Key << "max_queued_jobs" << YAML::Value << c.scheduler.max_queued_jobs
      << YAML::Key << "max_queued_tokens" << YAML::Value << c.scheduler.max_queued_tokens
      << YAML::Key << "max_queued_bytes" << YAML::Value << c.scheduler.max_queued_bytes << YAML::EndMap;
  out << YAML::Key << "storage" << YAML::Value << YAML::BeginMap
      << YAML::Key << "path" << YAML::Value << c.storage.path
      << YAML::Key << "sync" << YAML::Value << c.storage.sync << YAML::EndMap;
  out << YAML::Key << "http" << YAML::Value << YAML::BeginMap
      << YAML::Key << "listen" << YAML::Value << c.http.listen << YAML::EndMap;
  out << YAML::Key << "shutdown" << YAML::Value << YAML::BeginMap
      << YAML::Key << "drain_timeout_s" << YAML::Value << c.shutdown.drain_timeout.count()
      << YAML::EndMap;
  out << YAML::Key << "health" << YAML::Value << YAML::BeginMap
      << YAML::Key << "executor_stall_s" << YAML::Value << c.health.executor_stall.count()
      << YAML::Key << "startup_timeout_s" << YAML::Value << c.health.startup_timeout.count()
      << YAML::EndMap;
  out << YAML::EndMap;
  return out.c_str();
}

namespace {

// One line on each key, for DefaultConfigFile. A key missing here fails the
// config test that prints the defaults.
const std::map<std::string, std::string>& KeyDocs() {
  static const auto* docs = new std::map<std::string, std::string>{
      {"model.path", "TorchScript model.pt (required; model/export_model.py writes one)"},
      {"model.manifest", "the model's manifest; empty: manifest.json beside model.path"},
      {"model.device", "cpu | cuda:N | cpu-budget:<size> (a CPU with a memory budget, e.g. 2GiB)"},
      {"model.fallback_device", "where single jobs that do not fit the device run: auto | cpu | none"},
      {"model.autocast", "empty (float32) | bf16 | fp16"},
      {"model.threads", "torch intra-op threads; 0: libtorch's default (one per core)"},
      {"model.op_libraries", "shared libraries with TorchScript custom ops, loaded before the model"},
      {"memory.plan", "calibrate (or load) a memory plan when the device has a budget"},
      {"memory.margin", "plan within budget * (1 - margin)"},
      {"memory.cuda_memory_fraction", "(0, 1]: cap the CUDA allocator (emulate a smaller card); 0: no cap"},
      {"memory.cuda_budget", "plan within this on CUDA (e.g. 20GiB); empty: the (capped) card"},
      {"kafka.brokers", "bootstrap servers, host:port[,host:port...]"},
      {"kafka.group_id", "consumer group: instances in one group share the jobs topic's partitions"},
      {"kafka.jobs_topic", "where jobs are read"},
      {"kafka.reply_topic", "results of jobs without reply_to; empty: none"},
      {"kafka.dead_letter_topic", "failure records; empty: none"},
      {"kafka.create_topics", "create missing topics at start-up instead of refusing to start"},
      {"kafka.topic_partitions", "partitions of topics created by create_topics"},
      {"kafka.startup_wait_s", "how long start-up waits for a broker to answer; then exit 75 (transient: retry)"},
      {"limits.max_message_bytes", "largest job message; a larger one is an `invalid` record"},
      {"limits.max_depth", "deepest JSON nesting of a job message"},
      {"limits.max_meta_bytes", "largest `meta` object of a job"},
      {"limits.max_text_bytes", "longest `text` of a job, checked before tokenizing; longer is `too_long`"},
      {"admission.too_long", "inputs over scheduler.max_tokens: reject | truncate | chunk | long_lane"},
      {"admission.chunk_overlap", "with chunk: tokens shared by neighbouring windows"},
      {"admission.max_chunks", "with chunk: most windows per input; beyond it `too_long`"},
      {"long_lane.max_tokens", "inputs up to this many tokens run alone on the fallback device; 0: off"},
      {"recovery.max_attempts", "attempts a job may take without an outcome before a `crash` record"},
      {"scheduler.bucket_bounds", "length buckets, e.g. [32, 128, 512]; empty: powers of two to max_tokens"},
      {"scheduler.max_tokens", "longest input admitted; 0: the model manifest's max_tokens"},
      {"scheduler.tokens_per_batch", "batch cap = tokens_per_batch / bucket bound, where no memory plan applies"},
      {"scheduler.max_batch_size", "most jobs in one batch"},
      {"scheduler.max_batch_delay_ms", "longest a job waits for its batch to fill"},
      {"scheduler.formation", "which jobs make a batch: length (runs of similar length, least padding) | arrival (FIFO)"},
      {"scheduler.max_padding", "with formation length: no job of a batch pads more than this fraction of its row"},
      {"scheduler.max_queued_jobs", "jobs held before the consumer pauses"},
      {"scheduler.max_queued_tokens", "tokens held before the consumer pauses"},
      {"scheduler.max_queued_bytes", "bytes held (ids, payloads, meta) before the consumer pauses"},
      {"storage.path", "the RocksDB result store"},
      {"storage.sync", "fsync every store write"},
      {"http.listen", "host:port of /healthz, /readyz, /metrics and /status; empty: off"},
      {"shutdown.drain_timeout_s", "on SIGTERM, how long the drain, the reply flush and the final commit may take"},
      {"health.executor_stall_s", "/healthz fails once the executor has not beaten for this long"},
      {"health.startup_timeout_s", "/healthz fails once start-up has taken longer than this; 0: never"},
  };
  return *docs;
}

}  // namespace

std::string DefaultConfigFile() {
  std::ostringstream out;
  out << "# qinfer configuration, every key at its default (qinfer config --print-defaults).\n"
         "# Override with QINFER_<SECTION>_<KEY> environment variables or --set section.key=value.\n"
         "# Relative paths resolve against this file's directory.\n"
         "# librdkafka properties go under kafka.consumer and kafka.producer, passed through unchanged.\n";
  Config defaults;
  const YAML::Node root = YAML::Load(DumpConfig(defaults));
  const auto& docs = KeyDocs();
  for (const auto& section : root) {
    const std::string name = section.first.as<std::string>();
    out << name << ":\n";
    for (const auto& kv : section.second) {
      const std::string key = name + "." + kv.first.as<std::string>();
      auto doc = docs.find(key);
      out << "  # " << (doc == docs.end() ? std::string("(undocumented)") : doc->second) << "\n";
      if (key == "model.path") {
        // No default: a placeholder that loads, and fails start-up by name
        // ("no such file") until it is replaced.
        out << "  # REQUIRED: no default; replace the placeholder\n";
        out << "  " << kv.first.as<std::string>() << ": " << kModelPathPlaceholder << "\n";
        continue;
      }
      YAML::Emitter value;
      if (kv.second.IsSequence()) value << YAML::Flow;
      value << kv.second;
      out << "  " << kv.first.as<std::string>() << ": " << value.c_str() << "\n";
    }
    if (name == "kafka") {
      out << "  # consumer:            # librdkafka consumer properties, e.g.\n"
             "  #   fetch.max.bytes: 1048576\n"
             "  # producer:            # librdkafka producer properties, e.g.\n"
             "  #   linger.ms: 5\n";
    }
  }
  return out.str();
}

}  // namespace qinfer::app
