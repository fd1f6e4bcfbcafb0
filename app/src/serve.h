#pragma once

#include <string>
#include <vector>

#include "config.h"

namespace qinfer::app {

struct ServeOptions {
  // Batch mode: exit once the topic has been drained — every consumed job
  // has a durable record and nothing new arrived for this long. 0: run until
  // SIGINT/SIGTERM.
  int idle_exit_seconds = 0;
  // Calibrate the memory plan even when a stored one matches.
  bool recalibrate = false;
};

// Runs the service until SIGINT/SIGTERM (or idle exit); returns the exit
// code. Bad configuration fails fast with a message naming the key.
int Serve(const Config& config, const ServeOptions& options);

}  // namespace qinfer::app
