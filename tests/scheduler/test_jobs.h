// Helpers shared by the scheduler tests.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qinfer/core/job.h"

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

}  // namespace qinfer::scheduler::testing
