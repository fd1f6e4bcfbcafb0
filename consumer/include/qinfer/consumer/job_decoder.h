// Decoding and validation of job messages (DESIGN.md, "Messages").
// Everything is checked here, on the consumer thread, before any tensor is
// built: an out-of-range token id on CUDA is a device-side assert that
// poisons the whole process, not a catchable error.
#pragma once

#include <cstdint>
#include <string_view>
#include <variant>

#include "qinfer/core/job.h"

namespace qinfer::consumer {

struct DecoderLimits {
  int64_t vocab_size = 0;  // ids must be in [0, vocab_size)
  size_t max_tokens = 0;   // longer inputs get a `too_long` failure record
};

// One message as read from the source; views stay valid for the call only.
struct RawMessage {
  std::string_view key;    // empty when the message has none
  std::string_view value;
  Origin origin;
};

// Either a valid Job or a failure record (reason `invalid` or `too_long`)
// that carries the original payload so that `replay` can re-publish it.
using Decoded = std::variant<Job, Outcome>;

// Pure function; thread-safe.
Decoded DecodeJob(const RawMessage& message, const DecoderLimits& limits);

// A failure record for `message` (its payload and origin kept for replay).
Outcome FailureForMessage(const RawMessage& message, std::string id,
                          const char* reason, std::string error,
                          size_t input_length);

}  // namespace qinfer::consumer
