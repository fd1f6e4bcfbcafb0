#include "qinfer/pipeline/service_metrics.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "qinfer/core/health.h"

namespace qinfer::pipeline {
namespace {

using prometheus::Labels;

prometheus::Family<prometheus::Counter>& Counter(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}

// Seconds, from 1 ms to about 2 minutes.
const prometheus::Histogram::BucketBoundaries& TimeBuckets() {
  static const auto* b = new prometheus::Histogram::BucketBoundaries{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                                     0.5,   1,      2.5,   5,    10,    30,   60,  120};
  return *b;
}
const prometheus::Histogram::BucketBoundaries& BatchSizeBuckets() {
  static const auto* b = new prometheus::Histogram::BucketBoundaries{1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  return *b;
}

// The failure reasons a record can carry: a fixed set, exported from 0.
constexpr const char* kReasons[] = {reason::kInvalid, reason::kTooLong,    reason::kTooLarge,
                                    reason::kOom,     reason::kModelError, reason::kCrash};
constexpr const char* kDevice[] = {"allocated", "reserved", "peak", "budget"};

struct ProcessStats {
  double cpu_seconds = 0;
  double resident_bytes = 0;
  double start_time_seconds = 0;
  double open_fds = 0;
};

// From /proc/self (Linux): zeros where it cannot be read.
ProcessStats ReadProcessStats() {
  ProcessStats p;
  const double ticks = double(::sysconf(_SC_CLK_TCK));
  const double page = double(::sysconf(_SC_PAGESIZE));
  std::ifstream stat_file("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  // Fields after the command name, which is in parentheses and may hold
  // spaces: state is field 3, utime 14, stime 15, starttime 22, rss 24.
  const size_t close = stat.rfind(')');
  if (close != std::string::npos && ticks > 0) {
    std::istringstream in(stat.substr(close + 2));
    std::vector<std::string> f((std::istream_iterator<std::string>(in)), std::istream_iterator<std::string>());
    auto field = [&f](size_t n) { return n - 3 < f.size() ? std::stod(f[n - 3]) : 0.0; };
    p.cpu_seconds = (field(14) + field(15)) / ticks;
    p.resident_bytes = field(24) * page;
    std::ifstream boot("/proc/stat");
    std::string key;
    double btime = 0;
    while (boot >> key) {
      if (key == "btime") {
        boot >> btime;
        break;
      }
    }
    p.start_time_seconds = btime + field(22) / ticks;
  }
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    p.open_fds++;
  }
  return p;
}

}  // namespace

ServiceMetrics::ServiceMetrics(prometheus::Registry& r, std::span<const StatGroup> groups)
#define QINFER_METRIC_REGISTER_(field, type, metric, labels, help) \
  field##_(prometheus::Build##type().Name(metric).Help(help).Register(r)),
    : QINFER_SERVICE_METRICS(QINFER_METRIC_REGISTER_)
#undef QINFER_METRIC_REGISTER_
      latency_(latency_seconds_.Add({}, TimeBuckets())),
      store_write_(store_write_seconds_.Add({}, TimeBuckets())) {
  // Everything with a fixed label set starts at 0, so that rates and alerts
  // are defined before the first event.
  outcome_counters_["ok"] = &outcomes_.Add({{"status", "ok"}, {"reason", ""}});
  for (const char* reason : kReasons) {
    outcome_counters_[reason] = &outcomes_.Add({{"status", "failed"}, {"reason", reason}});
  }
  for (const StatGroup& group : groups) {
    for (const StatDef& def : group.defs) AddStat(r, group.component, def);
  }
  for (const char* kind : kDevice) device_bytes_.Add({{"kind", kind}});
  assigned_.Add({});
  paused_.Add({});
  decoding_.Add({});
  for (const char* cause : {fatal_cause::kStore, fatal_cause::kConsumer, fatal_cause::kProducer}) {
    fatal_.Add({{"cause", cause}});
  }
  ready_.Add({});
  heartbeat_age_.Add({});
  process_cpu_.Add({});
  process_rss_.Add({});
  process_start_.Add({});
  process_fds_.Add({});
  // The process figures are true from the first scrape, start-up included
  // (process_start_time_seconds 0 read as an uptime of 56 years).
  UpdateProcess();
}

void ServiceMetrics::SetIdentity(const ServiceSnapshot& s) {
  build_info_
      .Add({{"version", s.version},
            {"libtorch", s.libtorch},
            {"model", s.model},
            {"model_digest", s.model_digest},
            {"device", s.device}})
      .Set(1);
  torch_threads_.Add({{"kind", "intra_op"}}).Set(s.intra_op_threads);
  torch_threads_.Add({{"kind", "inter_op"}}).Set(s.inter_op_threads);
  if (s.mkl_kernel_path >= 0) mkl_kernel_path_.Add({{"dispatch", s.mkl_dispatch}}).Set(s.mkl_kernel_path);
  if (!s.precision_dtype.empty() && s.precision_scores) {
    precision_scores_.Add({{"dtype", s.precision_dtype}}).Set(s.precision_max_score_diff);
  } else if (!s.precision_dtype.empty()) {
    precision_.Add({{"dtype", s.precision_dtype}}).Set(s.precision_min_cosine);
  }
}

prometheus::Counter& ServiceMetrics::OutcomeCounter(const std::string& what) {
  if (auto it = outcome_counters_.find(what); it != outcome_counters_.end()) return *it->second;
  // A reason outside the fixed set (none is recorded today): its own series.
  return outcomes_.Add({{"status", "failed"}, {"reason", what}});
}

void ServiceMetrics::OnStored(std::span<const Outcome> outcomes, std::chrono::nanoseconds write_time) {
  store_write_.Observe(std::chrono::duration<double>(write_time).count());
  // A batch's records are nearly always all ok: count runs of one kind.
  std::map<std::string, uint64_t> counts;
  uint64_t ok = 0;
  for (const Outcome& o : outcomes) {
    if (o.ok) {
      ++ok;
    } else {
      counts[o.reason]++;
    }
  }
  if (ok > 0) counts["ok"] += ok;
  for (const auto& [what, n] : counts) OutcomeCounter(what).Increment(double(n));
  MutexLock lock(&mu_);
  for (const auto& [what, n] : counts) records_[what] += n;
}

ServiceMetrics::BucketSeries& ServiceMetrics::SeriesOf(int bucket) {
  MutexLock lock(&mu_);
  auto [it, inserted] = buckets_.try_emplace(bucket);
  if (inserted) {
    const std::string bound = std::to_string(bucket);
    BucketSeries& s = it->second;
    s.batches = &batches_.Add({{"bucket", bound}});
    s.real_tokens = &tokens_.Add({{"bucket", bound}, {"kind", "real"}});
    s.padded_tokens = &tokens_.Add({{"bucket", bound}, {"kind", "padded"}});
    s.batch_size = &batch_size_.Add({{"bucket", bound}}, BatchSizeBuckets());
    s.inference_seconds = &inference_seconds_.Add({{"bucket", bound}}, TimeBuckets());
  }
  return it->second;
}

void ServiceMetrics::OnBatchRecorded(const RecordedBatch& b) {
  // Series are never removed, so the pointers stay valid.
  const BucketSeries& s = SeriesOf(b.bucket);
  s.batches->Increment();
  s.real_tokens->Increment(double(b.real_tokens));
  s.padded_tokens->Increment(double(b.padded_tokens));
  s.batch_size->Observe(double(b.jobs));
  s.inference_seconds->Observe(std::chrono::duration<double>(b.run_time).count());
  if (b.latencies.empty()) return;
  // One update of the histogram for the whole batch instead of one per job.
  const prometheus::Histogram::BucketBoundaries& bounds = TimeBuckets();
  std::vector<double> increments(bounds.size() + 1, 0.0);
  double sum = 0;
  for (std::chrono::nanoseconds latency : b.latencies) {
    const double seconds = std::chrono::duration<double>(latency).count();
    // Prometheus buckets are upper-inclusive: the first bound >= the value.
    increments[size_t(std::lower_bound(bounds.begin(), bounds.end(), seconds) - bounds.begin())]++;
    sum += seconds;
  }
  latency_.ObserveMultiple(increments, sum);
}

ServiceMetrics::StageSeconds ServiceMetrics::Stages() const {
  StageSeconds s;
  for (const prometheus::MetricFamily& family : inference_seconds_.Collect()) {
    for (const prometheus::ClientMetric& m : family.metric) s.inference += m.histogram.sample_sum;
  }
  const prometheus::ClientMetric store = store_write_.Collect();
  s.store_write = store.histogram.sample_sum;
  s.store_writes = store.histogram.sample_count;
  s.job_latency = latency_.Collect().histogram.sample_sum;
  return s;
}

std::map<std::string, uint64_t> ServiceMetrics::records() const {
  MutexLock lock(&mu_);
  return records_;
}

void ServiceMetrics::AddStat(prometheus::Registry& r, const std::string& component, const StatDef& def) {
  prometheus::Family<prometheus::Counter>*& family = stat_families_[def.metric];
  // The family's first counter gives its help (core/stats.h).
  if (family == nullptr) family = &Counter(r, def.metric, def.help);
  Labels labels;
  if (const std::string_view label = def.label; !label.empty()) {
    const size_t eq = label.find('=');
    labels.emplace(std::string(label.substr(0, eq)), std::string(label.substr(eq + 1)));
  }
  // A counter of nanoseconds is exported in seconds, Prometheus's base unit
  // (core/stats.h).
  const double scale = std::string_view(def.name).ends_with("_ns") ? 1e-9 : 1.0;
  stats_.push_back({component, def.name, &family->Add(labels), scale});  // exported from 0
}

void ServiceMetrics::SetTotal(prometheus::Counter& c, uint64_t total, double scale) {
  MutexLock lock(&mu_);
  uint64_t& seen = seen_[&c];
  if (total > seen) c.Increment(double(total - seen) * scale);
  seen = total;
}

void ServiceMetrics::Update(const ServiceSnapshot& s) {
  for (const BucketSnapshot& b : s.buckets) {
    const Labels bucket{{"bucket", std::to_string(b.bound)}};
    queued_jobs_.Add(bucket).Set(double(b.queued_jobs));
    queued_bytes_.Add(bucket).Set(double(b.queued_bytes));
    batch_cap_.Add(bucket).Set(b.cap);
    padding_.Add(bucket).Set(b.padding_efficiency());
  }
  {
    // A partition revoked since the last scrape leaves the lag series, so
    // that a sum over instances counts each partition once.
    MutexLock lock(&mu_);
    std::set<int32_t> now;
    for (const PartitionSnapshot& p : s.partitions) now.insert(p.partition);
    for (int32_t partition : partitions_) {
      if (now.contains(partition)) continue;
      const Labels gone{{"partition", std::to_string(partition)}};
      lag_.Remove(&lag_.Add(gone));
      committed_.Remove(&committed_.Add(gone));
      has_commit_.Remove(&has_commit_.Add(gone));
    }
    partitions_ = std::move(now);
  }
  for (const PartitionSnapshot& p : s.partitions) {
    const Labels partition{{"partition", std::to_string(p.partition)}};
    if (p.lag >= 0) lag_.Add(partition).Set(double(p.lag));
    if (p.committed_offset) {
      committed_.Add(partition).Set(double(*p.committed_offset));
    } else {
      committed_.Remove(&committed_.Add(partition));  // no number an alert could take for an offset
    }
    has_commit_.Add(partition).Set(p.committed_offset ? 1 : 0);
  }
  assigned_.Add({}).Set(s.assigned_partitions);
  paused_.Add({}).Set(s.paused ? 1 : 0);
  decoding_.Add({}).Set(double(s.decoding));
  ready_.Add({}).Set(s.ready ? 1 : 0);
  if (!s.fatal_cause.empty()) fatal_.Add({{"cause", s.fatal_cause}}).Set(1);
  heartbeat_age_.Add({}).Set(s.heartbeat_age_seconds);
  device_bytes_.Add({{"kind", "allocated"}}).Set(double(s.memory_allocated));
  device_bytes_.Add({{"kind", "reserved"}}).Set(double(s.memory_reserved));
  device_bytes_.Add({{"kind", "peak"}}).Set(double(s.memory_peak));
  device_bytes_.Add({{"kind", "budget"}}).Set(double(s.memory_budget));
  for (const auto& [kind, key] : {std::pair{"held", "held_bytes"}, {"free", "free_bytes"}, {"limit", "limit_bytes"}}) {
    if (auto it = s.cpu_block_cache.find(key); it != s.cpu_block_cache.end()) {
      cpu_cache_bytes_.Add({{"kind", kind}}).Set(double(it->second));
    }
  }

  // A total the snapshot does not name stays where it is.
  auto sync = [this](prometheus::Counter& counter, const std::map<std::string, uint64_t>& totals,
                     const std::string& key, double scale = 1.0) {
    if (auto it = totals.find(key); it != totals.end()) SetTotal(counter, it->second, scale);
  };
  sync(cpu_cache_blocks_.Add({{"result", "hit"}}), s.cpu_block_cache, "hits");
  sync(cpu_cache_blocks_.Add({{"result", "miss"}}), s.cpu_block_cache, "misses");
  sync(cpu_cache_blocks_.Add({{"result", "released"}}), s.cpu_block_cache, "released");
  for (size_t w = 0; w < s.decode_worker_busy_ns.size(); ++w) {
    SetTotal(decode_worker_busy_.Add({{"worker", std::to_string(w)}}), s.decode_worker_busy_ns[w], 1e-9);
  }
  for (const StatSeries& stat : stats_) {
    if (auto it = s.stats.find(stat.component); it != s.stats.end()) sync(*stat.counter, it->second, stat.name, stat.scale);
  }

  UpdateProcess();
}

void ServiceMetrics::UpdateProcess() {
  const ProcessStats p = ReadProcessStats();
  {
    MutexLock lock(&mu_);
    if (p.cpu_seconds > process_cpu_seen_) {
      process_cpu_.Add({}).Increment(p.cpu_seconds - process_cpu_seen_);
      process_cpu_seen_ = p.cpu_seconds;
    }
  }
  process_rss_.Add({}).Set(p.resident_bytes);
  process_start_.Add({}).Set(p.start_time_seconds);
  process_fds_.Add({}).Set(p.open_fds);
}

}  // namespace qinfer::pipeline
