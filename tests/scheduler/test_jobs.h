// Helpers shared by the scheduler tests.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "qinfer/core/job.h"
#include "qinfer/scheduler/policy.h"

namespace qinfer::scheduler::testing {

// A job with `length` input ids (all 1).
inline Job MakeJob(std::string id, size_t length) {
  Job job;
  job.id = std::move(id);
  job.input_ids.assign(length, 1);
  return job;
}

// The ids of a batch's jobs, in order.
inline std::vector<std::string> Ids(const Batch& batch) {
  std::vector<std::string> ids;
  for (const Job& job : batch.jobs) ids.push_back(job.id);
  return ids;
}

// Buckets (bound: cap): 16: 4, 64: 2, 512: 1.
inline BatchPolicy TestPolicy(std::chrono::milliseconds max_batch_delay, size_t max_queued_jobs) {
  BatchPolicy policy;
  policy.bucket_bounds = {16, 64, 512};
  policy.caps = {4, 2, 1};
  policy.max_batch_delay = max_batch_delay;
  policy.max_queued_jobs = max_queued_jobs;
  policy.max_queued_tokens = 10'000;
  return policy;
}

}  // namespace qinfer::scheduler::testing
