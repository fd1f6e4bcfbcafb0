// The decoder's two paths side by side, for the tests that compare them.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <variant>

#include "qinfer/consumer/job_decoder.h"

namespace qinfer::consumer {

// DecodeJob (with its fast path for plain messages) and DecodeJobDocument
// give the same answer for `m` under `limits`, the failure records'
// wall-clock times aside; `what` names the case when they do not. Returns
// what the document path gave.
inline Decoded ExpectPathsAgree(const RawMessage& m, const DecoderLimits& limits, std::string_view what) {
  Decoded fast = DecodeJob(m, limits);
  Decoded full = DecodeJobDocument(m, limits);
  if (auto* a = std::get_if<Outcome>(&fast)) a->completed_at_ms = 0;
  if (auto* b = std::get_if<Outcome>(&full)) b->completed_at_ms = 0;
  EXPECT_EQ(fast, full) << what;
  return full;
}

}  // namespace qinfer::consumer
