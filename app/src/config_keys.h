// The configuration's key table (config.h): each key declared once, with
// its kind, bounds, parser, emitter and documentation. config.cc loads,
// dumps and documents the configuration off it. Private to app/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "config.h"

namespace qinfer::app {

// ---------------------------------------------------------------------------
// The key table. Each key is declared once, in kKeys below; parsing (file,
// environment, --set), the dump, the defaults file and the table of
// docs/guide/configuration.md are all read off it.

enum class Kind {
  kText,      // a string: free, one of `choices`, or passing `check`
  kBool,      // true | false (also 1 | 0)
  kInteger,   // a whole number in [min, max]
  kNumber,    // a finite number in [low, high], [low, high), (low, high] or (low, high)
  kTexts,     // a list of strings (a YAML list, or comma-separated)
  kIntegers,  // a list of whole numbers, each in [min, max]
  kMap,       // section.key.<property>: librdkafka properties, verbatim
};

struct Key;
// Parses the whole of `value`, checks it and stores it; errors name the key.
using SetFn = absl::Status (*)(const Key& key, Config& config, const std::string& value);
// Writes "leaf: value" into the section's YAML map (a kMap only when it is
// not empty).
using EmitFn = void (*)(const Key& key, const Config& config, YAML::Emitter& out);
// A kText key's own check; the error it returns names the key.
using CheckFn = absl::Status (*)(const std::string& key, const std::string& value);
using PropertiesFn = std::map<std::string, std::string>& (*)(Config& config);

struct Key {
  const char* name;  // "section.key"
  Kind kind;
  SetFn set;  // null for kMap
  EmitFn emit;
  const char* doc;                       // what it does, markdown
  const char* note = nullptr;            // what the default means, where its value does not say it
  long long min = 0, max = 0;            // kInteger, kIntegers
  double low = 0, high = 0;              // kNumber
  bool high_open = false;                // kNumber: high itself is refused
  bool low_open = false;                 // kNumber: low itself is refused
  std::array<const char*, 4> choices{};  // kText: the accepted values ("": empty), when they are a fixed set
  CheckFn check = nullptr;               // kText
  const char* accepts = nullptr;         // what is accepted, where kind, choices and bounds do not say it
  bool path = false;                     // relative paths from a file resolve against its directory
  bool required = false;                 // no default: DefaultConfigFile prints a placeholder
  PropertiesFn properties = nullptr;     // kMap
  const char* example = nullptr;         // kMap: one "property: value" line for the defaults file

  constexpr Key Note(const char* n) const {
    Key k = *this;
    k.note = n;
    return k;
  }
  constexpr Key LowOpen() const {
    Key k = *this;
    k.low_open = true;
    return k;
  }
  constexpr Key Path() const {
    Key k = *this;
    k.path = true;
    return k;
  }
  constexpr Key Required() const {
    Key k = *this;
    k.required = true;
    return k;
  }
  constexpr Key Accepts(const char* a) const {
    Key k = *this;
    k.accepts = a;
    return k;
  }
  constexpr Key Check(CheckFn f, const char* a) const {
    Key k = *this;
    k.check = f;
    k.accepts = a;
    return k;
  }
  constexpr Key Choices(std::array<const char*, 4> c) const {
    Key k = *this;
    k.choices = c;
    return k;
  }
};

inline std::string SectionOf(const Key& k) {
  const std::string_view name = k.name;
  return std::string(name.substr(0, name.find('.')));
}
inline std::string LeafOf(const Key& k) {
  const std::string_view name = k.name;
  return std::string(name.substr(name.find('.') + 1));
}

// The whole of `v` must be a decimal integer in [min, max]: "12abc", " 12",
// "+12" and "1e3" are errors, and so is a number out of range (never
// clamped, never wrapped).
absl::StatusOr<long long> ParseInt(const std::string& key, const std::string& v, long long min, long long max);

// The whole of `v` must be a finite number: "0.1x", " 0.1", "nan" and "inf"
// are errors, not 0.1 or a comparison that is always false.
absl::StatusOr<double> ParseDouble(const std::string& key, const std::string& v, const std::string& expected);

// The shortest text that reads back to exactly `x` (0.1, not
// 0.10000000000000001).
std::string Shortest(double x);

// Every key, in the order the defaults file and docs/guide/configuration.md's table list them.
std::span<const Key> ConfigKeyTable();

// The key `name` ("section.key"), or null; kMap keys are found by FindMap.
const Key* FindKey(std::string_view name);

// The kMap key `name` belongs to ("kafka.consumer.fetch.max.bytes" to
// kafka.consumer), and the property it names.
const Key* FindMap(std::string_view name, std::string* property);

// Every key's name, for an error that names an unknown one.
std::string KnownKeys();

// A kText key's accepted values ("a | b", or with markdown "`a`, `b`").
std::string ChoiceList(const Key& k, bool markdown);

// A kNumber key's range ("[0, 1)").
std::string NumberRange(const Key& k);

// "a,b,,c" as {"a", "b", "c"}.
std::vector<std::string> SplitList(const std::string& v);

}  // namespace qinfer::app
