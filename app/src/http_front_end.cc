#include "http_front_end.h"

#include "qinfer/core/clock.h"
#include "qinfer/core/thread_name.h"

#include <chrono>

namespace qinfer::app {

HttpFrontEnd::~HttpFrontEnd() { Stop(); }

absl::Status HttpFrontEnd::Start(const std::string& host, int port) {
  MutexLock lock(&mu_);
  if (thread_.joinable() || loop_done_.load()) {
    return absl::FailedPreconditionError("the HTTP front end was started already");
  }
  const int bound =
      port == 0 ? server_.bind_to_any_port(host.c_str()) : (server_.bind_to_port(host.c_str(), port) ? port : -1);
  if (bound <= 0) return absl::FailedPreconditionError("cannot bind " + host + ":" + std::to_string(port));
  port_ = bound;
  thread_ = std::thread([this] {
    StageThread stage("http");
    server_.listen_after_bind();
    loop_done_ = true;
  });
  return absl::OkStatus();
}

void HttpFrontEnd::Stop() {
  MutexLock lock(&mu_);
  if (!thread_.joinable()) return;
  // Until the loop has begun, httplib's stop() is a no-op: wait for it (it
  // begins as soon as the thread runs), or for the loop to have ended by
  // itself (an accept() error). Then one stop() shuts the socket, and the
  // blocked accept() returns.
  while (!server_.is_running() && !loop_done_.load()) {
    RealClock().SleepFor(std::chrono::microseconds(200));
  }
  if (!loop_done_.load()) server_.stop();
  thread_.join();
}

}  // namespace qinfer::app
