#pragma once

#include <string>

namespace qinfer::app {

struct ResultsOptions {
  std::string store;      // the RocksDB directory (storage.path)
  std::string id;         // print this one record, with the records it superseded
  std::string export_to;  // write all records as JSONL; "-" = stdout
  bool count = false;     // print counts of results, failures and superseded records
  bool summary = false;   // throughput and per-bucket batching figures
  bool failures_only = false;
};

// Reads the result store; safe while a server holds it open. Returns the
// process exit code (1: id not found).
int Results(const ResultsOptions& options);

}  // namespace qinfer::app
