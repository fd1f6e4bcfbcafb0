// A component's counters, declared once (as Envoy declares a component's
// stats in one macro list). Each entry of a component's list names:
//  - the field of its stats struct (a std::atomic<uint64_t>), which is also
//    the counter's name on /status and in the run's summary log line;
//  - the Prometheus counter family it is exported as, with its label
//    ("key=value", or "" for none): several counters may share a family.
//    A counter whose field ends in `_ns` counts nanoseconds and is exported
//    in seconds, Prometheus's base unit (its family ends in
//    `_seconds_total`);
//  - the family's help text (given by the family's first counter; "" after).
// From that one list come the struct's fields, the table of StatDefs that
// /metrics registers its families from, and the name -> value map that
// /status and the summary log print. A counter added to a list reaches all
// of them (tests/app/serve_snapshot_test.cc checks each one does).
//
// A component declares `#define QINFER_FOO_STATS(STAT) STAT(drops,
// "qinfer_foo_drops_total", "", "Frames dropped") ...` and then
// `struct FooStats { QINFER_DECLARE_STATS(QINFER_FOO_STATS) };`.
//
// The figures that are not a component's counter (gauges, histograms, and
// counters /metrics keeps itself) are declared the same way, one list of
// metric families (pipeline/service_metrics.h, QINFER_SERVICE_METRICS): each
// entry names its member, its type (Counter, Gauge, Histogram), the family,
// its label keys ("a,b", or "") and its help. From that list come the
// families /metrics registers and their MetricDefs, which the docs' metric
// tables are checked against (tests/app/serve_snapshot_test.cc).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace qinfer {

struct StatDef {
  const char* name;    // the field, /status and log name
  const char* metric;  // the Prometheus counter family
  const char* label;   // "key=value", or "" for none
  const char* help;    // the family's help; "" where an earlier entry gave it
};

enum class MetricType { kCounter, kGauge, kHistogram };

// One metric family of a list of families.
struct MetricDef {
  const char* metric;  // the Prometheus family
  MetricType type;
  const char* labels;  // its series' label keys, "a,b", or "" for none
  const char* help;
};

// A component's counters by name, read at one moment.
using StatValues = std::map<std::string, uint64_t>;

// One component's list, under the name it has on /status.
struct StatGroup {
  const char* component;
  std::span<const StatDef> defs;
};

#define QINFER_STAT_FIELD_(name, metric, label, help) std::atomic<uint64_t> name{0};
#define QINFER_STAT_DEF_(name, metric, label, help) ::qinfer::StatDef{#name, metric, label, help},
#define QINFER_STAT_VALUE_(name, metric, label, help) {#name, name.load(std::memory_order_relaxed)},
#define QINFER_STAT_FIND_(name, metric, label, help) \
  if (wanted == #name) return &name;

// The members a stats struct derives from its list: the counters, kDefs,
// Values() and Find(name) (the counter of that name, or null).
#define QINFER_DECLARE_STATS(LIST)                                                              \
  LIST(QINFER_STAT_FIELD_)                                                                      \
  static constexpr ::qinfer::StatDef kDefs[] = {LIST(QINFER_STAT_DEF_)};                        \
  ::qinfer::StatValues Values() const { return ::qinfer::StatValues{LIST(QINFER_STAT_VALUE_)}; } \
  std::atomic<uint64_t>* Find(std::string_view wanted) {                                        \
    LIST(QINFER_STAT_FIND_)                                                                     \
    return nullptr;                                                                             \
  }

// The MetricDef of an entry of a list of families.
#define QINFER_METRIC_DEF_(field, type, metric, labels, help) \
  ::qinfer::MetricDef{metric, ::qinfer::MetricType::k##type, labels, help},

}  // namespace qinfer
