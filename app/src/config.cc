#include "config.h"

#include "config_keys.h"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "qinfer/core/secrets.h"
#include "qinfer/executor/device_memory.h"

extern char** environ;  // POSIX: the process's environment

namespace qinfer::app {

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

absl::StatusOr<double> ParseDouble(const std::string& key, const std::string& v, const std::string& expected) {
  double d = 0;
  const char* end = v.data() + v.size();
  const auto [ptr, ec] = std::from_chars(v.data(), end, d);
  if (!v.empty() && ec == std::errc() && ptr == end && std::isfinite(d)) return d;
  return absl::InvalidArgumentError(key + " = '" + v + "': expected " + expected);
}

std::string Shortest(double x) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(x);
}

std::string ChoiceList(const Key& k, bool markdown) {
  std::vector<std::string> items;
  bool empty = false;
  for (const char* c : k.choices) {
    if (c == nullptr) continue;
    if (*c == '\0')
      empty = true;
    else
      items.push_back(markdown ? "`" + std::string(c) + "`" : std::string(c));
  }
  if (empty) items.push_back("empty");
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  }
  return out;
}

std::string NumberRange(const Key& k) {
  return (k.low_open ? "(" : "[") + Shortest(k.low) + ", " + Shortest(k.high) + (k.high_open ? ")" : "]");
}

std::vector<std::string> SplitList(const std::string& v) { return absl::StrSplit(v, ',', absl::SkipEmpty()); }

namespace {

absl::Status Apply(Config& c, const std::string& name, const std::string& value, const std::string& where) {
  std::string property;
  if (const Key* map = FindMap(name, &property); map != nullptr) {
    map->properties(c)[property] = value;
    return absl::OkStatus();
  }
  const Key* k = FindKey(name);
  if (k == nullptr) {
    return absl::InvalidArgumentError("unknown configuration key '" + name + "' in " + where +
                                      "; known keys: " + KnownKeys());
  }
  absl::Status s = k->set(*k, c, value);
  if (!s.ok()) return absl::InvalidArgumentError(std::string(s.message()) + " (from " + where + ")");
  return absl::OkStatus();
}

// Flattens a YAML mapping into "a.b.c" -> scalar text; sequences of scalars
// are joined with commas.
absl::Status Flatten(const YAML::Node& node, const std::string& prefix,
                     std::vector<std::pair<std::string, std::string>>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string key = prefix.empty() ? kv.first.as<std::string>() : prefix + "." + kv.first.as<std::string>();
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

// A path key's value from a file: its relative paths made relative to
// `dir`, the file's directory.
std::string ResolveAgainst(const std::filesystem::path& dir, const Key& k, const std::string& value) {
  std::vector<std::string> items = k.kind == Kind::kTexts ? SplitList(value) : std::vector<std::string>{value};
  for (std::string& p : items) {
    if (!p.empty() && std::filesystem::path(p).is_relative()) p = (dir / p).lexically_normal().string();
  }
  return absl::StrJoin(items, ",");
}

absl::Status ApplyFile(Config& c, const std::string& path) {
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
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (auto& [k, v] : flat) {
    const Key* key = FindKey(k);
    if (key != nullptr && key->path && !dir.empty()) v = ResolveAgainst(dir, *key, v);
    if (absl::Status s = Apply(c, k, v, path); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::string EnvName(const std::string& key) {
  std::string name = "QINFER_";
  for (char ch : key) name += ch == '.' ? '_' : char(std::toupper(static_cast<unsigned char>(ch)));
  return name;
}

// QINFER_KAFKA_CONSUMER_SASL_PASSWORD=x is kafka.consumer's sasl.password:
// librdkafka's property names are lower case with dots and no underscores.
absl::Status ApplyEnvironmentProperties(Config& c, const Key& k) {
  const std::string prefix = EnvName(k.name) + "_";
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq <= prefix.size() || entry.substr(0, prefix.size()) != prefix) continue;
    std::string property;
    for (char ch : entry.substr(prefix.size(), eq - prefix.size())) {
      property += ch == '_' ? '.' : char(std::tolower(static_cast<unsigned char>(ch)));
    }
    k.properties(c)[property] = std::string(entry.substr(eq + 1));
  }
  return absl::OkStatus();
}

absl::Status ApplyEnvironment(Config& c) {
  for (const Key& k : ConfigKeyTable()) {
    if (k.kind == Kind::kMap) {
      if (absl::Status s = ApplyEnvironmentProperties(c, k); !s.ok()) return s;
      continue;
    }
    const std::string env = EnvName(k.name);
    if (const char* v = std::getenv(env.c_str()); v != nullptr) {
      if (absl::Status s = Apply(c, k.name, v, "environment " + env); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> ParseSizeOrZero(const std::string& text) {
  if (text == "0") return int64_t{0};
  return executor::ParseBytes(text);
}

absl::StatusOr<ListenAddress> ParseListenAddress(const std::string& text) {
  const std::string expected =
      "expected host:port with a port in [0, 65535] (e.g. 127.0.0.1:9400, 0.0.0.0:9400), "
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
  for (const Key& k : ConfigKeyTable()) {
    if (k.kind != Kind::kMap) keys.push_back(k.name);
  }
  return keys;
}

std::vector<std::string> ConfigPropertySections() {
  std::vector<std::string> sections;
  for (const Key& k : ConfigKeyTable()) {
    if (k.kind == Kind::kMap) sections.push_back(k.name);
  }
  return sections;
}

absl::StatusOr<Config> LoadConfig(const std::string& path, const std::vector<std::string>& overrides, ConfigUse use) {
  Config c;
  if (!path.empty()) {
    if (absl::Status s = ApplyFile(c, path); !s.ok()) return s;
  }
  if (absl::Status s = ApplyEnvironment(c); !s.ok()) return s;
  for (const std::string& o : overrides) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError("--set '" + o + "': expected section.key=value");
    }
    if (absl::Status s = Apply(c, o.substr(0, eq), o.substr(eq + 1), "--set"); !s.ok()) return s;
  }
  if (use == ConfigUse::kServe && c.model.path.empty()) {
    return absl::InvalidArgumentError(
        "model.path is not set: point it at a TorchScript model.pt (model/export_model.py writes one)");
  }
  if (c.kafka.jobs_topic.empty()) return absl::InvalidArgumentError("kafka.jobs_topic is empty");
  if (c.storage.path.empty()) return absl::InvalidArgumentError("storage.path is empty");
  return c;
}

std::string DumpConfig(const Config& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  std::string section;
  for (const Key& k : ConfigKeyTable()) {
    if (SectionOf(k) != section) {
      if (!section.empty()) out << YAML::EndMap;
      section = SectionOf(k);
      out << YAML::Key << section << YAML::Value << YAML::BeginMap;
    }
    k.emit(k, c, out);
  }
  out << YAML::EndMap << YAML::EndMap;
  return out.c_str();
}

namespace {

// `doc` as "  # " comment lines of at most about 100 columns, markdown's
// backticks dropped.
std::string CommentLines(const std::string& doc) {
  std::string text;
  for (char ch : doc) {
    if (ch != '`') text += ch;
  }
  std::string out, line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line.empty() && line.size() + 1 + word.size() > 96) {
      out += "  # " + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + std::string(word);
  }
  return out + "  # " + line + "\n";
}

// What a key accepts, in markdown, for docs/guide/configuration.md's table.
std::string AcceptsCell(const Key& k) {
  switch (k.kind) {
    case Kind::kBool:
      return "`true` or `false`";
    case Kind::kInteger:
      return "integer in [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]";
    case Kind::kNumber:
      return "number in " + NumberRange(k);
    case Kind::kIntegers:
      return "list of integers in [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]";
    case Kind::kMap:
      return "librdkafka properties";
    case Kind::kTexts:
    case Kind::kText:
      if (k.accepts != nullptr) return k.accepts;
      return k.choices[0] != nullptr ? ChoiceList(k, true) : "text";
  }
  return "";
}

// A key's default, in markdown, from a default Config.
std::string DefaultCell(const Key& k, const YAML::Node& defaults) {
  if (k.required) return "(required)";
  std::string value;
  if (k.kind == Kind::kMap) {
    value = "empty";
  } else {
    const YAML::Node node = defaults[SectionOf(k)][LeafOf(k)];
    YAML::Emitter text;
    if (node.IsSequence()) text << YAML::Flow;
    text << node;
    value = node.IsScalar() && node.Scalar().empty() ? "empty" : "`" + std::string(text.c_str()) + "`";
  }
  return k.note == nullptr ? value : value + ": " + k.note;
}

}  // namespace

std::string DefaultConfigFile() {
  std::ostringstream out;
  out << "# qinfer configuration, every key at its default (qinfer config --print-defaults).\n"
         "# Override with QINFER_<SECTION>_<KEY> environment variables or --set section.key=value.\n"
         "# Relative paths resolve against this file's directory.\n"
         "# librdkafka properties go under kafka.consumer and kafka.producer, passed through unchanged.\n";
  const YAML::Node root = YAML::Load(DumpConfig(Config{}));
  std::string section;
  for (const Key& k : ConfigKeyTable()) {
    if (SectionOf(k) != section) out << (section = SectionOf(k)) << ":\n";
    if (k.kind == Kind::kMap) {
      // Empty by default: a commented example.
      out << CommentLines(k.doc) << "  # " << LeafOf(k) << ":\n  #   " << k.example << "\n";
      continue;
    }
    out << CommentLines(k.note == nullptr ? std::string(k.doc)
                                          : std::string(k.doc) + "; default " + DefaultCell(k, root));
    if (k.required) {
      // No default: a placeholder that loads, and fails start-up by name
      // ("no such file") until it is replaced.
      out << "  # REQUIRED: no default; replace the placeholder\n";
      out << "  " << LeafOf(k) << ": " << kModelPathPlaceholder << "\n";
      continue;
    }
    const YAML::Node node = root[section][LeafOf(k)];
    YAML::Emitter value;
    if (node.IsSequence()) value << YAML::Flow;
    value << node;
    out << "  " << LeafOf(k) << ": " << value.c_str() << "\n";
  }
  return out.str();
}

std::string ConfigTableMarkdown() {
  const YAML::Node defaults = YAML::Load(DumpConfig(Config{}));
  std::string out = "| key | accepts | default | meaning |\n|---|---|---|---|\n";
  for (const Key& k : ConfigKeyTable()) {
    const std::string name = k.kind == Kind::kMap ? std::string(k.name) + ".*" : std::string(k.name);
    out += "| `" + name + "` | " + AcceptsCell(k) + " | " + DefaultCell(k, defaults) + " | " + k.doc + " |\n";
  }
  return out;
}

}  // namespace qinfer::app
