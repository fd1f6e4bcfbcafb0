#include "qinfer/consumer/message_handler.h"

namespace qinfer::consumer {

void MessageHandler::Handle(const RawMessage& raw) {
  if (Track(raw)) Process(raw);
}

size_t MessageHandler::Process(const RawMessage& raw) {
  Decoded decoded = DecodeJob(raw, limits_);
  size_t tokens = 0;
  if (auto* jobs = std::get_if<std::vector<Job>>(&decoded)) {
    std::optional<Outcome> too_long = Queue(raw, *jobs, tokens);
    if (!too_long) return tokens;
    decoded = *std::move(too_long);
  }
  Outcome& failure = std::get<Outcome>(decoded);
  stats_.rejected++;
  log_.Debug("event=rejected job=%v partition=%v offset=%v reason=%v error=\"%v\"", failure.id, raw.origin.partition,
             raw.origin.offset, failure.reason, failure.error);
  absl::Status s = records_.Record({std::move(failure)});
  if (!s.ok()) {
    log_.Error("event=record_failed partition=%v offset=%v error=\"%v\"", raw.origin.partition, raw.origin.offset,
               std::string(s.message()));
  }
  return 0;
}

std::optional<Outcome> MessageHandler::Queue(const RawMessage& raw, std::vector<Job>& jobs, size_t& tokens) {
  const Job& first = jobs.front();
  if (first.replay_of.offset >= 0) stats_.replays++;
  std::string id = first.id;
  const size_t length = first.windows > 0 ? first.original_length : first.length();
  if (first.windows > 0) {
    // Windows run as ordinary jobs; the executor pools them back.
    log_.Debug("event=chunked job=%v length=%v windows=%v", id, length, jobs.size());
  }
  absl::Status pushed;
  for (Job& job : jobs) {
    const size_t job_tokens = job.length();
    pushed = queue_.Push(std::move(job));
    if (!pushed.ok()) break;
    tokens += job_tokens;
  }
  if (pushed.ok()) {
    log_.Trace("event=queued job=%v partition=%v offset=%v length=%v", id, raw.origin.partition, raw.origin.offset,
               length);
    return std::nullopt;
  }
  if (!absl::IsOutOfRange(pushed)) {
    // The queue is closed (shutting down): the job has no record, so it
    // stays unacked and its offset uncommitted; the next run reads it.
    stats_.refused++;
    log_.Debug("event=push_refused job=%v partition=%v offset=%v error=\"%v\"", id, raw.origin.partition,
               raw.origin.offset, std::string(pushed.message()));
    return std::nullopt;
  }
  // Longer than the longest bucket: a `too_long` record.
  return FailureForMessage(raw, id, reason::kTooLong, std::string(pushed.message()), length);
}

}  // namespace qinfer::consumer
