// `qinfer results --export FILE.parquet`: a store's final records as one
// Parquet file, a row a record, typed columns (docs/guide/results.md;
// docs/design/storage.md, "The Parquet export").
//
// Columns, in this order, each only when some record has it (the first
// five always):
//   id, status                         string, never null
//   output                             the records' output: list<float>
//                                      (a vector; base64 decoded), binary
//                                      (binary, ubinary, int8, uint8: the
//                                      packed bytes), struct<indices:
//                                      list<int32>, values: list<float>>
//                                      (sparse) or list<list<float>> (a
//                                      vector a token). A store that holds
//                                      more than one form writes one column
//                                      a form: output (floats), output_packed,
//                                      output_sparse, output_rows.
//   encoding                           string: the encoding a record was written in
//   label, scores                      classify: string, list<struct<label, score>>
//   score                              rerank: float
//   entities, tokens                   tokens: list<struct<end, label, score, start, text|token>>
//   reason, error                      string: a failure's (null on a result)
//   input_length, completed_at_ms      int64
//   attempt                            int32
//   model_name, model_digest           string
//   policy, windows, original_length   how an over-long input was admitted
//   meta                               every key a column of its own (string,
//                                      int64, double or bool) when every
//                                      record's `meta` has the same keys with
//                                      values of one simple type each (null
//                                      allowed); a key named like a column
//                                      above is `meta_<key>`. Otherwise one
//                                      column `meta`: each record's meta as
//                                      its JSON text, as sent.
// Floats are the stored float32 values exactly. Strings are compressed with
// Snappy; float columns are written plain and uncompressed (float32
// vectors do not compress, and Snappy only costs time there).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/core/stored_record.h"

namespace qinfer::export_parquet {

// Calls `visit` with each record (OutcomeToJson's bytes, as the store keeps
// them: qinfer/core/stored_record.h) until it returns false; a failed read is the status. Called once where the first 4,096
// records' shape (output form, members, meta's keys and types) holds every
// later record, as in a store of one task and one kind of meta; else again,
// twice more (the table's shape from every record, then its rows), so it
// must give the same records each time (a store read from one snapshot
// does).
using RecordSource = std::function<absl::Status(const std::function<bool(const StoredRecord&)>& visit)>;

struct ParquetOptions {
  // Records a row group (one batch in memory: about 1.6 KB a row for a
  // 384-d vector).
  int64_t row_group_rows = 32768;
  // Called every `progress_every` rows of the second pass.
  int64_t progress_every = 250000;
  std::function<void(int64_t rows)> progress;
};

struct ParquetReport {
  int64_t rows = 0;
  std::vector<std::string> columns;
  bool meta_as_json = false;  // meta went into one JSON column
  // 1: the store's first records planned the table and every later record
  // fitted it; 2: one did not, and the table was planned from a pass over
  // every record first.
  int passes = 1;
};

// Writes the records of `source` to `path` (through `path`.partial, renamed
// once the file is complete: a failed export leaves no file behind). An
// error names the record it could not read, or the file it could not write.
absl::StatusOr<ParquetReport> WriteParquet(const RecordSource& source, const std::string& path,
                                           const ParquetOptions& options = {});

}  // namespace qinfer::export_parquet
