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
  // Tests only (`serve --test-hold-file PATH`, left out of --help): while
  // this file exists, start-up waits before it loads the model (a signal
  // ends that wait), and the executor waits before each batch, as a forward
  // pass that hangs would (a signal does not end that one: a test holds the
  // drain with it). "": no hold.
  std::string hold_file_for_test;
};

// Exit codes of `serve` (docs/operations/troubleshooting.md, "Exit codes"): what a supervisor should do
// with each.
inline constexpr int kExitOk = 0;      // a signal, or idle exit: done
inline constexpr int kExitFatal = 1;   // a lasting failure while serving: restart
inline constexpr int kExitConfig = 2;  // cannot start as configured: fix it, retrying will not help
// Cannot start yet, for a reason outside the configuration that may pass
// (the brokers did not answer within kafka.startup_wait_s, a topic not yet
// created): restart with a backoff. EX_TEMPFAIL of sysexits.h.
inline constexpr int kExitTransient = 75;

// Runs the service until SIGINT/SIGTERM (or idle exit); returns one of the
// exit codes above. Bad configuration fails fast with a message naming the
// key.
int Serve(const Config& config, const ServeOptions& options);

}  // namespace qinfer::app
