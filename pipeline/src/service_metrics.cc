#include "qinfer/pipeline/service_metrics.h"

namespace qinfer::pipeline {
namespace {

prometheus::Family<prometheus::Counter>& Counter(prometheus::Registry& r, const char* name,
                                                 const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}

}  // namespace

ServiceMetrics::ServiceMetrics(prometheus::Registry& r)
    : outcomes(Counter(r, "qinfer_outcomes_total",
                       "Jobs run by the executor with a durable record, by status and reason")),
      batches(Counter(r, "qinfer_batches_total", "Batches with durable records, by bucket bound")),
      tokens(Counter(r, "qinfer_tokens_total", "Tokens of results, real or padded, by bucket bound")),
      store_errors(Counter(r, "qinfer_store_errors_total", "Failed store write attempts")),
      publish_retries(Counter(r, "qinfer_publish_retries_total",
                              "Transient delivery failures published again")),
      undeliverable(Counter(r, "qinfer_undeliverable_total",
                            "Outcomes whose reply or dead letter could not be delivered, by class "
                            "(permanent, retries_exhausted); recorded and acked")),
      dead_letter_notices(Counter(r, "qinfer_dead_letter_notices_total",
                                  "Compact dead-letter notices of undeliverable outcomes")),
      crash_isolated(Counter(r, "qinfer_crash_isolated_total",
                             "Jobs given a crash record after taking the process down")),
      abandoned(Counter(r, "qinfer_abandoned_jobs_total",
                        "Jobs left unacked at a drain timeout or a fatal condition")),
      rejected(Counter(r, "qinfer_rejected_messages_total",
                       "Messages the consumer turned into invalid or too_long records")),
      ladder(Counter(r, "qinfer_oom_ladder_total",
                     "OOM ladder events by stage: oom (caught), split, cap_lowered, fallback "
                     "(job run on the fallback device), failed (oom record)")),
      fatal(prometheus::BuildGauge()
                  .Name("qinfer_fatal")
                  .Help("1 once a fatal condition was raised, by cause (the instance then exits)")
                  .Register(r)),
      queued_jobs(prometheus::BuildGauge()
                      .Name("qinfer_queued_jobs")
                      .Help("Jobs waiting in the scheduler")
                      .Register(r)
                      .Add({})),
      queued_bytes(prometheus::BuildGauge()
                       .Name("qinfer_queued_bytes")
                       .Help("Bytes held by jobs waiting in the scheduler")
                       .Register(r)
                       .Add({})),
      paused(prometheus::BuildGauge()
                 .Name("qinfer_consumer_paused")
                 .Help("1 while the consumer is paused for backpressure")
                 .Register(r)
                 .Add({})),
      device_bytes(prometheus::BuildGauge()
                       .Name("qinfer_device_memory_bytes")
                       .Help("Primary device memory: allocated, peak, reserved, budget")
                       .Register(r)) {
  // Degraded modes start at 0, so that a rate over them is defined.
  store_errors.Add({});
  publish_retries.Add({});
  undeliverable.Add({{"class", "permanent"}});
  undeliverable.Add({{"class", "retries_exhausted"}});
  dead_letter_notices.Add({});
  crash_isolated.Add({});
  abandoned.Add({});
  rejected.Add({});
  for (const char* stage : {"oom", "split", "cap_lowered", "fallback", "failed"}) {
    ladder.Add({{"stage", stage}});
  }
  for (const char* cause : {fatal_cause::kStore, fatal_cause::kConsumer, fatal_cause::kProducer}) {
    fatal.Add({{"cause", cause}});
  }
}

void ServiceMetrics::OnBatchRecorded(const RecordedBatch& b) {
  const std::string bucket = std::to_string(b.bucket);
  batches.Add({{"bucket", bucket}}).Increment();
  tokens.Add({{"bucket", bucket}, {"kind", "real"}}).Increment(double(b.real_tokens));
  tokens.Add({{"bucket", bucket}, {"kind", "padded"}}).Increment(double(b.padded_tokens));
  if (b.ok > 0) outcomes.Add({{"status", "ok"}, {"reason", ""}}).Increment(double(b.ok));
  for (const auto& [reason, n] : b.failed) {
    outcomes.Add({{"status", "failed"}, {"reason", reason}}).Increment(double(n));
  }
}

void ServiceMetrics::SetTotal(prometheus::Family<prometheus::Counter>& family,
                              const prometheus::Labels& labels, uint64_t total) {
  prometheus::Counter& c = family.Add(labels);
  std::lock_guard lock(mu_);
  uint64_t& seen = seen_[&c];
  if (total > seen) c.Increment(double(total - seen));
  seen = total;
}

void ServiceMetrics::Sync(const RecorderStats& rs, const LoopStats& loop, const Health& health) {
  SetTotal(store_errors, {}, rs.store_errors.load());
  SetTotal(publish_retries, {}, rs.publish_retries.load());
  SetTotal(undeliverable, {{"class", "permanent"}}, rs.undeliverable_permanent.load());
  SetTotal(undeliverable, {{"class", "retries_exhausted"}}, rs.undeliverable_exhausted.load());
  SetTotal(dead_letter_notices, {}, rs.dead_letter_notices.load());
  SetTotal(crash_isolated, {}, loop.crash_isolated.load());
  SetTotal(abandoned, {}, loop.abandoned.load());
  if (health.fatal()) fatal.Add({{"cause", health.cause()}}).Set(1);
}

}  // namespace qinfer::pipeline
