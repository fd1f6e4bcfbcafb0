// The documented JSON form of results and failure records (docs/design/messages.md,
// "Message formats"): the reply / dead-letter message value, and the RocksDB value
// under the job id (there a compact output is kept as its bytes, and every
// read gives these bytes back: stored_record.h).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "qinfer/core/job.h"

namespace qinfer {

// Result: {"id","status":"ok","output":[...],"input_length","device","bucket",
//          "batch_size","padded_length","model":{"name","digest"},
//          "timings":{"queue_seconds","run_seconds"},"completed_at_ms"}, and
//          by the model's task (task.h):
//          classify "label" and "scores":[{"label","score"}] by score
//          descending, rerank "score", tokens "entities":[{"end","label",
//          "score","start","text"}] and "tokens":[{"end","label","score",
//          "start","token"}], sparse "output":{"indices","values"} (the
//          non-zero weights by index), token_embed "output":[[...], ...]
//          (a vector a token); with a compact encoding (a job's `encoding`,
//          output_encoding.h), "encoding" and "output" as the base64 text
//          of its bytes (a vector a token's with "rows")
// Failure: {"id","status":"failed","reason","error","input_length",
//           "payload" (or "payload_base64"),"payload_truncated"? (the
//           message was over its bound: "payload" is its first bytes),
//           "attempt","completed_at_ms","source":{"topic","partition",
//           "offset"}}
// Both, when they apply: "attempt", "replay_of":{"topic","partition",
// "offset"}, "policy" (truncate | chunk | long_lane), "original_length",
// "windows", "reply_to", "meta" (the job's, as sent), "delivery_error".
// One line; members in byte order of their keys. Output values are written in
// the shortest form that reads back as the same float32 (0.1, not the
// 0.10000000149011612 it widens to); integral ones keep ".0"; NaN/Inf, which
// JSON cannot hold, are null (results never carry them: such an output is a
// model_error). Written directly, without a JSON document: the recording path
// encodes every outcome once, for its store write and its reply.
std::string OutcomeToJson(const Outcome& outcome);

// OutcomeToJson(outcome) plus, when `history` is not empty, "history": the
// OutcomeToJson objects of `history` in the order given (the failure records
// the outcome superseded, oldest first). One line, like OutcomeToJson.
std::string OutcomeWithHistoryToJson(const Outcome& outcome, std::span<const Outcome> history);

// Parses what OutcomeToJson wrote. Errors name the first bad field.
absl::StatusOr<Outcome> OutcomeFromJson(std::string_view json);

// A stored record (OutcomeToJson's bytes) with a compact `output` written
// as JSON numbers (DecodedOutputJson): base64's floats (a vector a token's
// as its "rows" arrays), the record then byte for byte what the float
// encoding writes ("encoding" and "rows" left out); the
// quantized encodings' integers ("encoding" kept: it says what they are).
// Any other record is returned as it is. An error when the record does not
// parse.
absl::StatusOr<std::string> WithDecodedOutput(std::string json);

}  // namespace qinfer
