// `qinfer status`: asks a running instance (GET /status on its http.listen
// address) and prints its figures as a table, or as JSON for scripts.
#pragma once

#include <string>

namespace qinfer::app {

struct StatusOptions {
  std::string address = "127.0.0.1:9400";  // host:port of the instance
  bool json = false;
  int timeout_seconds = 5;
};

// 0 on success; 1 when the instance cannot be reached or answers with an
// error (said on stderr).
int Status(const StatusOptions& options);

}  // namespace qinfer::app
