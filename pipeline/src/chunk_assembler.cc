#include "qinfer/pipeline/chunk_assembler.h"

#include <algorithm>
#include <cmath>

#include "qinfer/core/task.h"

namespace qinfer::pipeline {

void ChunkAssembler::Take(Partial& p, const Job& window, Outcome outcome) {
  if (outcome.entities) {
    if (!p.entities) p.entities.emplace();
    for (Entity& e : *outcome.entities) p.entities->push_back(std::move(e));
  }
  if (outcome.output_rows > 0) {
    const size_t width = outcome.output.size() / size_t(outcome.output_rows);
    const size_t from = size_t(std::max(0, window.keep_from));
    const size_t to = size_t(std::max(int(from), outcome.output_rows - std::max(0, window.keep_tail)));
    p.rows[window.window].assign(outcome.output.begin() + ptrdiff_t(from * width),
                                 outcome.output.begin() + ptrdiff_t(to * width));
    p.width = width;
  } else {
    const double w = double(window.length());
    if (p.sum.empty()) p.sum.assign(outcome.output.size(), 0.0);
    for (size_t d = 0; d < std::min(p.sum.size(), outcome.output.size()); ++d) {
      p.sum[d] += w * double(outcome.output[d]);
    }
    p.weight += w;
  }
  // The job ran where its windows ran; batch figures are the largest.
  p.pooled.device = outcome.device;
  p.pooled.bucket = std::max(p.pooled.bucket, outcome.bucket);
  p.pooled.batch_size = std::max(p.pooled.batch_size, outcome.batch_size);
  p.pooled.padded_length += outcome.padded_length;
  p.pooled.model_name = outcome.model_name;
  p.pooled.model_digest = outcome.model_digest;
  p.pooled.queue_seconds = std::max(p.pooled.queue_seconds, outcome.queue_seconds);
  p.pooled.run_seconds += outcome.run_seconds;
}

std::optional<Outcome> ChunkAssembler::Add(const Job& window, Outcome outcome) {
  const Key key{window.id, window.origin.topic, window.origin.partition, window.origin.offset};
  Partial& p = partial_[key];
  if (p.received == 0) {
    p.pooled = OutcomeFor(window);
    p.pooled.input_length = window.original_length;
    p.pooled.policy = "chunk";
    p.pooled.windows = window.windows;
    p.pooled.padded_length = 0;
  }
  p.received++;
  if (window.window == 0) p.payload = window.payload;
  if (!outcome.ok) {
    if (!p.failed || window.window < p.failed_window) {
      p.failed = std::move(outcome);
      p.failed_window = window.window;
    }
  } else if (!p.failed) {
    Take(p, window, std::move(outcome));
  }
  if (p.received < window.windows) return std::nullopt;

  Partial done = std::move(p);
  partial_.erase(key);
  if (done.failed) {
    Outcome f = std::move(*done.failed);
    Outcome job = done.pooled;
    job.ok = false;
    job.reason = f.reason;
    job.error =
        "window " + std::to_string(done.failed_window + 1) + " of " + std::to_string(window.windows) + ": " + f.error;
    job.payload = std::move(done.payload);
    job.output.clear();
    return job;
  }
  Outcome job = std::move(done.pooled);
  job.ok = true;
  if (done.entities) {
    job.entities = MergeWindowEntities(std::move(*done.entities));
    return job;
  }
  if (!done.rows.empty()) {
    for (auto& [w, rows] : done.rows) job.output.insert(job.output.end(), rows.begin(), rows.end());
    job.payload = std::move(done.payload);  // not written with a result; a too_long record for its size needs it
    job.output_rows = done.width > 0 ? int(job.output.size() / done.width) : 0;
    return job;
  }
  job.output.resize(done.sum.size());
  double norm = 0;
  for (size_t d = 0; d < done.sum.size(); ++d) {
    done.sum[d] /= done.weight;
    norm += done.sum[d] * done.sum[d];
  }
  norm = std::sqrt(norm);
  const double scale = normalize_ && norm > 0 ? 1.0 / norm : 1.0;
  for (size_t d = 0; d < done.sum.size(); ++d) job.output[d] = float(done.sum[d] * scale);
  return job;
}

}  // namespace qinfer::pipeline
