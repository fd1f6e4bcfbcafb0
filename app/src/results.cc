#include "results.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "absl/strings/match.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/export_parquet/parquet_export.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::app {

using storage::RocksDbOutcomeStore;

namespace {

// Exit codes: 0 done, 1 no record for the id, 2 the store could not serve.
int Fail(const absl::Status& status, const char* what = "") {
  std::cerr << "results: " << what << status.message() << "\n";
  return 2;
}

// One id's final record with its history, as one JSON object.
int ShowOne(const RocksDbOutcomeStore& store, const std::string& id, bool decode) {
  auto found = store.Get(id);
  if (!found.ok()) return Fail(found.status());
  if (!found->has_value()) {
    std::cerr << "results: no record for id " << id << "\n";
    return 1;
  }
  auto history = store.History(id);
  if (!history.ok()) return Fail(history.status());
  absl::StatusOr<std::string> line = OutcomeWithHistoryToJson(**found, *history);
  if (decode) line = WithDecodedOutput(*std::move(line));
  if (!line.ok()) return Fail(line.status());
  std::cout << *line << "\n";
  return 0;
}

// Every final record (or every failure), one JSON line each, to a file or
// standard output ("-"): the records as written (ForEachJson), not parsed
// and re-encoded.
int Export(const RocksDbOutcomeStore& store, const ResultsOptions& o) {
  std::ofstream file;
  std::ostream* out = &std::cout;
  if (o.export_to != "-") {
    file.open(o.export_to);
    if (!file) {
      std::cerr << "results: cannot write " << o.export_to << "\n";
      return 2;
    }
    out = &file;
  }
  uint64_t n = 0;
  absl::StatusOr<std::string> decoded = std::string();  // --decode: the record being written
  absl::Status s =
      store.ForEachJson(o.failures_only ? RocksDbOutcomeStore::Kind::kFailures : RocksDbOutcomeStore::Kind::kAll,
                        [&](std::string_view json) {
                          if (o.decode) {
                            decoded = WithDecodedOutput(std::string(json));
                            if (!decoded.ok()) return false;
                            json = *decoded;
                          }
                          *out << json << '\n';
                          ++n;
                          return true;
                        });
  if (!decoded.ok()) return Fail(decoded.status(), "cannot decode a record: ");
  if (!s.ok()) return Fail(s);
  if (o.export_to != "-") std::cerr << "results: wrote " << n << " records to " << o.export_to << "\n";
  return 0;
}

// `name` ends in `ext` and is more than it.
bool HasExtension(const std::string& name, absl::string_view ext) {
  return name.size() > ext.size() && absl::EndsWith(name, ext);
}

bool IsParquetName(const std::string& name) { return HasExtension(name, ".parquet"); }

// Every final record (or every failure) as one Parquet file with typed
// columns (qinfer/export_parquet/parquet_export.h).
int ExportParquet(const RocksDbOutcomeStore& store, const ResultsOptions& o) {
  const auto kind = o.failures_only ? RocksDbOutcomeStore::Kind::kFailures : RocksDbOutcomeStore::Kind::kAll;
  export_parquet::ParquetOptions options;
  options.progress = [&o](int64_t rows) {
    std::cerr << "results: " << rows << " records into " << o.export_to << "\n";
  };
  auto written = export_parquet::WriteParquet(
      [&](const std::function<bool(const StoredRecord&)>& visit) { return store.ForEachStored(kind, visit); },
      o.export_to, options);
  if (!written.ok()) return Fail(written.status(), "Parquet export: ");
  std::cerr << "results: wrote " << written->rows << " records to " << o.export_to << " (Parquet, "
            << written->columns.size() << " columns" << (written->meta_as_json ? "; meta as JSON text" : "")
            << ")\n";
  return 0;
}

// What --summary gathers from the records themselves.
struct Summary {
  // A job from a batch of k contributes 1/k of a batch, so the sum over
  // jobs counts batches exactly.
  struct Bucket {
    uint64_t jobs = 0;
    double batches = 0;
    uint64_t real = 0, padded = 0;
  };
  std::map<int, Bucket> buckets;
  std::map<std::string, uint64_t> reasons;
  std::map<std::string, uint64_t> labels;  // classify: results per top label
  uint64_t results = 0, failures = 0, tokens = 0;
  int64_t first_ms = INT64_MAX, last_ms = 0;

  void Add(const Outcome& r) {
    if (!r.ok) {
      ++failures;
      reasons[r.reason]++;
      return;
    }
    ++results;
    if (!r.label.empty()) labels[r.label]++;
    tokens += r.input_length;
    first_ms = std::min(first_ms, r.completed_at_ms - int64_t(r.run_seconds * 1000));
    last_ms = std::max(last_ms, r.completed_at_ms);
    Bucket& b = buckets[r.bucket];
    b.jobs++;
    b.batches += 1.0 / std::max(1, r.batch_size);
    b.real += r.input_length;
    b.padded += uint64_t(r.padded_length);
  }

  void Print(uint64_t superseded) const {
    std::printf("records: %llu results, %llu failures (final states); %llu superseded records\n",
                (unsigned long long)results, (unsigned long long)failures, (unsigned long long)superseded);
    for (const auto& [reason, n] : reasons) std::printf("  failed %-12s %llu\n", reason.c_str(), (unsigned long long)n);
    if (results > 0) {
      const double seconds = std::max(1, int(last_ms - first_ms)) / 1000.0;
      std::printf("throughput: %.1f jobs/s, %.0f tokens/s over %.1f s (first to last result)\n", results / seconds,
                  tokens / seconds, seconds);
      std::printf("%8s %8s %10s %10s %10s\n", "bucket", "jobs", "batches", "mean_batch", "padding_eff");
      for (const auto& [bound, b] : buckets) {
        std::printf("%8d %8llu %10.0f %10.1f %10.3f\n", bound, (unsigned long long)b.jobs, b.batches,
                    b.jobs / b.batches, b.padded ? double(b.real) / b.padded : 0.0);
      }
    }
    if (!labels.empty()) {
      std::printf("%-24s %8s %8s\n", "label", "results", "share");
      for (const auto& [label, n] : labels) {
        std::printf("%-24s %8llu %8.3f\n", label.c_str(), (unsigned long long)n, double(n) / double(results));
      }
    }
  }
};

int Summarize(const RocksDbOutcomeStore& store, uint64_t superseded) {
  Summary summary;
  absl::Status s = store.ForEach(RocksDbOutcomeStore::Kind::kAll, [&summary](const Outcome& r) {
    summary.Add(r);
    return true;
  });
  if (!s.ok()) return Fail(s);
  summary.Print(superseded);
  return 0;
}

}  // namespace

std::optional<std::string> ExportNameError(const std::string& name) {
  if (name == "-") return std::nullopt;
  for (absl::string_view ext : {".jsonl", ".ndjson", ".parquet"}) {
    if (HasExtension(name, ext)) return std::nullopt;
  }
  return "--export " + name +
         ": not a .jsonl, .ndjson or .parquet name, the formats results writes ('-': JSONL to standard output)";
}

int Results(const ResultsOptions& o) {
  if (o.decode && o.id.empty() && o.export_to.empty()) {
    std::cerr << "results: --decode applies to --id or --export (the records it writes)\n";
    return 2;
  }
  if (!o.export_to.empty()) {
    if (std::optional<std::string> why = ExportNameError(o.export_to)) {
      std::cerr << "results: " << *why << "\n";
      return 2;
    }
    if (o.decode && IsParquetName(o.export_to)) {
      std::cerr << "results: --decode applies to JSONL: a Parquet export always holds base64's values as floats "
                   "and packed encodings as their bytes\n";
      return 2;
    }
  }
  RocksDbOutcomeStore::Options options;
  options.read_only = true;
  auto store = RocksDbOutcomeStore::Open(o.store, options);
  if (!store.ok()) return Fail(store.status());
  if (!o.id.empty()) return ShowOne(**store, o.id, o.decode);
  if (IsParquetName(o.export_to)) return ExportParquet(**store, o);
  if (!o.export_to.empty()) return Export(**store, o);
  auto superseded = (*store)->CountSuperseded();
  if (!superseded.ok()) return Fail(superseded.status(), "cannot count superseded records: ");
  if (o.summary) return Summarize(**store, *superseded);
  auto results = (*store)->CountResults();
  auto failures = (*store)->CountFailures();
  if (!results.ok() || !failures.ok()) {
    return Fail(results.ok() ? failures.status() : results.status(), "cannot count records: ");
  }
  std::cout << "results " << *results << "\nfailures " << *failures << "\nsuperseded " << *superseded << "\n";
  return 0;
}

}  // namespace qinfer::app
