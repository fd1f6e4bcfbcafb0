// The routes of `serve`'s HTTP front end (/healthz, /readyz, /metrics,
// /status), and what their handlers read. The front end itself (the server
// thread, its start and stop) is HttpFrontEnd.
#pragma once

#include <prometheus/registry.h>

#include <chrono>
#include <functional>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "http_front_end.h"
#include "qinfer/consumer/kafka_job_source.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/health.h"
#include "qinfer/core/mutex.h"
#include "qinfer/pipeline/service_metrics.h"
#include "qinfer/pipeline/service_snapshot.h"
#include "serve_options.h"

namespace qinfer::app {

// What the handlers read of the service while it is built and runs: no
// snapshot until it is built, no partitions until its consumer exists.
// Thread-safe.
class LiveView {
 public:
  // The snapshot of the running service; what it reads must outlive the
  // HTTP front end's Stop.
  void SetSnapshot(std::function<pipeline::ServiceSnapshot()> snapshot);
  // The consumer's figures; nullptr: none (yet, or any more). Not owned.
  void SetConsumer(const consumer::SourceStats* stats);

  // nullopt while the service is still being built.
  std::optional<pipeline::ServiceSnapshot> Snapshot() const;
  // 0 without a consumer.
  int AssignedPartitions() const;

 private:
  mutable Mutex mu_;
  std::function<pipeline::ServiceSnapshot()> snapshot_ ABSL_GUARDED_BY(mu_);
  const consumer::SourceStats* consumer_ ABSL_GUARDED_BY(mu_) = nullptr;
};

// What the handlers read besides the view. Not owned: each must outlive the
// front end's Stop.
struct ServeRoutes {
  const Health& health;
  const Clock& clock;
  std::chrono::nanoseconds stall{0};  // /healthz's executor stall bound
  pipeline::ServiceMetrics& metrics;
  const prometheus::Registry& registry;
  const LiveView& view;
};

// Adds the four routes to `http`, then starts it on options.listen (""
// starts nothing) and logs event=http_listening. Errors (InvalidArgument)
// name http.listen: an address that does not parse, or one that cannot be
// bound. REQUIRES: `http` not started.
absl::Status StartServeHttp(HttpFrontEnd& http, const HttpOptions& options, const ServeRoutes& routes);

}  // namespace qinfer::app
