#pragma once

#include <optional>
#include <string>

namespace qinfer::app {

struct ResultsOptions {
  std::string store;      // the RocksDB directory (storage.path)
  std::string id;         // print this one record, with the records it superseded
  // Write all final records to FILE.jsonl or FILE.ndjson (JSONL; "-" =
  // stdout) or FILE.parquet (qinfer/export_parquet/parquet_export.h).
  std::string export_to;
  bool count = false;     // print counts of results, failures and superseded records
  bool summary = false;   // throughput and per-bucket batching figures
  bool failures_only = false;
  // --id and --export: a compact `output` (a job's `encoding`) as JSON
  // numbers (WithDecodedOutput, qinfer/core/outcome_json.h).
  bool decode = false;
};

// Reads the result store; safe while a server holds it open. Returns the
// process exit code (1: id not found; 2: the store could not serve, a
// record could not be exported, or export_to names a format it does not
// write).
int Results(const ResultsOptions& options);

// What is wrong with an export's file name: one not ending in .jsonl,
// .ndjson or .parquet (nor "-") would be another format's name (out.csv)
// holding one of these, so it is refused. nullopt: a name export writes.
std::optional<std::string> ExportNameError(const std::string& name);

}  // namespace qinfer::app
