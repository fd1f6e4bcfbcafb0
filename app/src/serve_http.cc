#include "serve_http.h"

#include <httplib.h>
#include <prometheus/text_serializer.h>

#include "qinfer/core/logging.h"

namespace qinfer::app {

void LiveView::SetSnapshot(std::function<pipeline::ServiceSnapshot()> snapshot) {
  MutexLock lock(&mu_);
  snapshot_ = std::move(snapshot);
}

void LiveView::SetConsumer(const consumer::SourceStats* stats) {
  MutexLock lock(&mu_);
  consumer_ = stats;
}

std::optional<pipeline::ServiceSnapshot> LiveView::Snapshot() const {
  MutexLock lock(&mu_);
  if (!snapshot_) return std::nullopt;
  return snapshot_();
}

int LiveView::AssignedPartitions() const {
  MutexLock lock(&mu_);
  return consumer_ == nullptr ? 0 : consumer_->assigned_partitions.load();
}

namespace {

void Answer(httplib::Response& res, const ProbeResult& probe) {
  res.status = probe.ok ? 200 : 503;
  res.set_content(probe.text + "\n", "text/plain");
}

void AddRoutes(httplib::Server& server, const ServeRoutes& r) {
  server.Get("/healthz", [r](const httplib::Request&, httplib::Response& res) {
    Answer(res, Liveness(r.health, r.clock.Now(), r.stall));
  });
  server.Get("/readyz", [r](const httplib::Request&, httplib::Response& res) {
    Answer(res, Readiness(r.health, r.view.AssignedPartitions()));
  });
  server.Get("/metrics", [r](const httplib::Request&, httplib::Response& res) {
    if (auto snapshot = r.view.Snapshot()) {
      r.metrics.Update(*snapshot);
    } else {
      r.metrics.UpdateProcess();
    }
    res.set_content(prometheus::TextSerializer().Serialize(r.registry.Collect()), "text/plain; version=0.0.4");
  });
  server.Get("/status", [r](const httplib::Request&, httplib::Response& res) {
    auto snapshot = r.view.Snapshot();
    if (!snapshot) {
      res.status = 503;
      res.set_content("{\"error\":\"" + Readiness(r.health, 0).text + "\"}", "application/json");
      return;
    }
    res.set_content(pipeline::SnapshotToJson(*snapshot), "application/json");
  });
}

}  // namespace

absl::Status StartServeHttp(HttpFrontEnd& http, const HttpOptions& options, const ServeRoutes& routes) {
  if (options.listen.empty()) return absl::OkStatus();
  // LoadConfig checked it; a Config built otherwise is checked here.
  absl::StatusOr<ListenAddress> address = ParseListenAddress(options.listen);
  if (!address.ok()) return address.status();
  AddRoutes(http.server(), routes);
  if (!http.Start(address->host, address->port).ok()) {
    return absl::InvalidArgumentError("http.listen=" + options.listen +
                                      ": cannot bind (port in use?); set http.listen to a free host:port or "
                                      "to \\\"\\\" to disable");
  }
  Logger("app").Info("event=http_listening address=%v", options.listen);
  return absl::OkStatus();
}

}  // namespace qinfer::app
