// The HTTP front end of `serve` (/healthz, /readyz, /metrics, /status): an
// httplib::Server on a thread of its own, with a start and a stop that are
// safe in every order.
//
// httplib's Server::stop() only shuts the listening socket once the listen
// loop has begun (it checks is_running()); a stop() that comes first does
// nothing, and the loop then blocks in accept() for ever, so a join() after
// it never returns. Stop() here waits for the loop to have begun (or ended)
// before it stops it, and is idempotent.
#pragma once

#include <httplib.h>

#include <atomic>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "qinfer/core/mutex.h"

namespace qinfer::app {

class HttpFrontEnd {
 public:
  HttpFrontEnd() = default;
  // Stops the server (see Stop).
  ~HttpFrontEnd();
  HttpFrontEnd(const HttpFrontEnd&) = delete;
  HttpFrontEnd& operator=(const HttpFrontEnd&) = delete;

  // Where handlers are registered. REQUIRES: before Start.
  httplib::Server& server() { return server_; }

  // Binds host:port (port 0: the kernel's pick, see port()) and serves on a
  // thread of its own. Errors: FailedPrecondition when the address cannot be
  // bound (the key is for the caller to name). Call at most once.
  absl::Status Start(const std::string& host, int port);

  // The bound port; 0 before a successful Start.
  int port() const { return port_.load(); }

  // Stops serving and joins the thread; returns once no handler runs any
  // more. Safe before Start, right after it (before the listen loop began),
  // during a request, and more than once, from any thread.
  void Stop();

 private:
  httplib::Server server_;
  std::atomic<int> port_{0};
  std::atomic<bool> loop_done_{false};
  Mutex mu_;
  std::thread thread_ ABSL_GUARDED_BY(mu_);
};

}  // namespace qinfer::app
