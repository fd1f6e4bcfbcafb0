#include "qinfer/core/job.h"

namespace qinfer {

size_t Job::footprint_bytes() const {
  size_t span_bytes = spans.capacity() * sizeof(TokenSpan);
  for (const TokenSpan& s : spans) span_bytes += s.token.capacity();
  return sizeof(Job) + (input_ids.capacity() + type_ids.capacity()) * sizeof(int64_t) + text.capacity() + span_bytes + id.capacity() + reply_to.capacity() +
         meta_json.capacity() + payload.capacity() + origin.topic.capacity() + policy.capacity() + device.capacity() +
         replay_of.topic.capacity() + pixels.capacity() * sizeof(float) + LabelBytes();
}

size_t Job::LabelBytes() const {
  size_t bytes = (candidate_labels.capacity() * sizeof(std::string)) + label_ids.capacity() * sizeof(label_ids[0]);
  for (const std::string& label : candidate_labels) bytes += label.capacity();
  for (const std::vector<int64_t>& ids : label_ids) bytes += ids.capacity() * sizeof(int64_t);
  return bytes;
}

size_t Batch::total_tokens() const {
  size_t total = 0;
  for (const Job& job : jobs) total += job.length();
  return total;
}

Outcome OutcomeFor(const Job& job) {
  Outcome out;
  out.id = job.id;
  out.input_length = job.length();
  out.reply_to = job.reply_to;
  out.meta_json = job.meta_json;
  out.attempt = job.attempt;
  out.origin = job.origin;
  out.replay_of = job.replay_of;
  out.text = job.text;
  out.spans = job.spans;
  out.candidate_labels = job.candidate_labels;
  if (job.windows == 0) {  // a window's outcome is pooled into its job's
    out.policy = job.policy;
    out.original_length = job.original_length;
  }
  return out;
}

Outcome FailureFor(const Job& job, std::string reason, std::string error) {
  Outcome out = OutcomeFor(job);
  out.ok = false;
  out.reason = std::move(reason);
  out.error = std::move(error);
  out.payload = job.payload;
  return out;
}

}  // namespace qinfer
