// serve's routes (/healthz, /readyz, /metrics, /status) over the live view,
// from start-up (no service yet) to a running service, without a model or a
// broker.
#include "serve_http.h"

#include <gtest/gtest.h>
#include <httplib.h>

namespace qinfer::app {
namespace {

class ServeHttpTest : public ::testing::Test {
 protected:
  ServeRoutes Routes() { return {health_, clock_, std::chrono::seconds(5), metrics_, registry_, view_}; }
  httplib::Result Get(const std::string& path) {
    httplib::Client client("127.0.0.1", http_.port());
    client.set_connection_timeout(2);
    return client.Get(path);
  }

  SystemClock clock_;
  Health health_;
  prometheus::Registry registry_;
  pipeline::ServiceMetrics metrics_{registry_};
  LiveView view_;
  HttpFrontEnd http_;
};

TEST_F(ServeHttpTest, AnEmptyListenAddressStartsNothing) {
  ASSERT_TRUE(StartServeHttp(http_, {.listen = ""}, Routes()).ok());
  EXPECT_EQ(http_.port(), 0);
}

TEST_F(ServeHttpTest, AnAddressThatDoesNotParseOrBindNamesHttpListen) {
  absl::Status bad = StartServeHttp(http_, {.listen = "notaport"}, Routes());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("http.listen"), std::string::npos) << bad;
  HttpFrontEnd other;
  // TEST-NET-3: an address of no interface here.
  absl::Status unbound = StartServeHttp(other, {.listen = "203.0.113.1:9400"}, Routes());
  ASSERT_FALSE(unbound.ok());
  EXPECT_NE(unbound.message().find("http.listen=203.0.113.1:9400: cannot bind"), std::string::npos) << unbound;
}

TEST_F(ServeHttpTest, DuringStartUpTheProbesAndMetricsAnswerAndStatusSaysWhyNot) {
  ASSERT_TRUE(StartServeHttp(http_, {.listen = "127.0.0.1:0"}, Routes()).ok());
  ASSERT_GT(http_.port(), 0);
  auto live = Get("/healthz");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  EXPECT_EQ(live->body, "ok\n");
  auto ready = Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  EXPECT_EQ(ready->body, "not ready: starting (loading the model, memory plan)\n");
  auto status = Get("/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 503);
  EXPECT_EQ(status->body, "{\"error\":\"not ready: starting (loading the model, memory plan)\"}");
  auto metrics = Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("process_start_time_seconds"), std::string::npos) << metrics->body;
}

TEST_F(ServeHttpTest, OnceServingStatusIsTheSnapshotAndReadinessCountsTheConsumersPartitions) {
  ASSERT_TRUE(StartServeHttp(http_, {.listen = "127.0.0.1:0"}, Routes()).ok());
  consumer::SourceStats source;
  source.assigned_partitions = 3;
  view_.SetConsumer(&source);
  view_.SetSnapshot([] {
    pipeline::ServiceSnapshot s;
    s.model = "tiny";
    s.assigned_partitions = 3;
    return s;
  });
  health_.SetStarted();
  auto ready = Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  EXPECT_EQ(ready->body, "ready\n");
  auto status = Get("/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
  auto parsed = pipeline::SnapshotFromJson(status->body);
  ASSERT_TRUE(parsed.ok()) << status->body;
  EXPECT_EQ(parsed->model, "tiny");
  EXPECT_EQ(parsed->assigned_partitions, 3);
  view_.SetConsumer(nullptr);
  auto gone = Get("/readyz");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->body, "not ready: no partitions assigned\n");
  http_.Stop();
}

}  // namespace
}  // namespace qinfer::app
