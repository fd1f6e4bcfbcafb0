#include "status.h"

#include <httplib.h>

#include <iostream>

#include "qinfer/pipeline/service_snapshot.h"

namespace qinfer::app {

int Status(const StatusOptions& options) {
  const size_t colon = options.address.rfind(':');
  if (colon == std::string::npos) {
    std::cerr << "qinfer status: --address " << options.address << ": expected host:port\n";
    return 2;
  }
  httplib::Client client(options.address.substr(0, colon), std::atoi(options.address.c_str() + colon + 1));
  client.set_connection_timeout(options.timeout_seconds, 0);
  client.set_read_timeout(options.timeout_seconds, 0);
  httplib::Result res = client.Get("/status");
  if (!res) {
    std::cerr << "qinfer status: no instance answers at " << options.address << " (" << httplib::to_string(res.error())
              << "); is `qinfer serve` running with http.listen set to that address?\n";
    return 1;
  }
  if (res->status != 200) {
    std::cerr << "qinfer status: " << options.address << " answered " << res->status << ": " << res->body << "\n";
    return 1;
  }
  auto snapshot = pipeline::SnapshotFromJson(res->body);
  if (!snapshot.ok()) {
    std::cerr << "qinfer status: " << options.address << " sent an unreadable status: " << snapshot.status().message()
              << "\n";
    return 1;
  }
  if (options.json) {
    std::cout << res->body << "\n";
  } else {
    std::cout << pipeline::FormatSnapshot(*snapshot);
  }
  return 0;
}

}  // namespace qinfer::app
