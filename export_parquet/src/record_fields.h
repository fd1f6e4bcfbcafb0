// What the Parquet export reads from one stored record (OutcomeToJson's
// bytes, qinfer/core/outcome_json.h, as the store keeps them:
// qinfer/core/stored_record.h), without a JSON document: a record is mostly
// its vector, read here straight into floats.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "qinfer/core/job.h"
#include "qinfer/core/stored_record.h"

namespace qinfer::export_parquet {

// The form of a record's `output`: none (a failure), a vector of floats
// (embed, classify and rerank logits, base64's decoded values), packed bytes
// (binary, ubinary, int8, uint8), sparse {indices, values}, or a vector a
// token (token_embed, as numbers or base64 with "rows").
enum class OutputForm { kNone, kFloats, kPacked, kSparse, kRows };

// Its column name's suffix and a word for messages: "", "packed", "sparse",
// "rows".
std::string_view OutputFormName(OutputForm form);

struct RecordFields {
  std::string id;
  bool ok = false;  // status "ok"; else "failed"
  std::string reason, error;
  std::string encoding;  // "" when `output` is numbers
  std::string label;
  std::string model_name, model_digest;
  std::string policy;
  int64_t input_length = 0;
  int64_t completed_at_ms = 0;
  int64_t original_length = 0;  // 0: absent
  int32_t attempt = 0;
  int32_t windows = 0;  // 0: absent
  std::optional<float> score;
  OutputForm form = OutputForm::kNone;
  // kFloats: the vector; kRows: rows x (size / rows) values; kSparse: the
  // values, beside `indices`.
  std::vector<float> floats;
  std::vector<int32_t> indices;
  int rows = 0;
  std::string packed;  // kPacked: the bytes
  bool has_scores = false, has_entities = false, has_tokens = false;
  std::vector<LabelScore> scores;
  std::vector<Entity> entities;
  std::vector<TokenLabel> tokens;
  // `meta` as it stands in the record (the job's, as sent); empty: none.
  std::string meta;
};

// Reads `record` (the store's: its text, a compact output's bytes apart)
// into `out` (whose buffers are reused: read record after record into one
// RecordFields). values = false reads only what a table's
// shape needs (status, the output's form, which members are present, meta),
// leaving the vector, the scores and the strings but id unread. An error
// names the record's id and the member it could not read.
absl::Status ReadRecordFields(const StoredRecord& record, bool values, RecordFields& out);

}  // namespace qinfer::export_parquet
