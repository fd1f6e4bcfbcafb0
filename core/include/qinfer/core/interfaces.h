// The small interfaces between modules. `app` wires concrete classes to them;
// every module is testable alone against fakes (tests/fakes/).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qinfer/core/job.h"

namespace qinfer {

// Runs batches through a model. Owned and called by one thread only.
class ModelRunner {
 public:
  virtual ~ModelRunner() = default;
  // Returns one outcome per job of `batch`, in order: a result, or a failure
  // record for a job that could not be run. A non-OK status means the whole
  // batch could not be attempted (e.g. the model is not loaded); the caller
  // then owns the jobs and must record them as failed.
  virtual absl::StatusOr<std::vector<Outcome>> Run(const Batch& batch) = 0;
};

// Durable storage of outcomes, keyed by job id (idempotent).
// Thread-safe.
class OutcomeStore {
 public:
  virtual ~OutcomeStore() = default;
  // Returns OK once every outcome is durable. On error nothing may be
  // assumed written. `json[i]` is outcomes[i]'s documented form,
  // OutcomeToJson(outcomes[i]) (qinfer/core/outcome_json.h): the recording
  // path encodes each outcome once, for its store write and its reply.
  // REQUIRES: json.size() == outcomes.size().
  virtual absl::Status Put(std::span<const Outcome> outcomes, std::span<const std::string> json) = 0;
  // Put, with the JSON encoded here.
  absl::Status Put(std::span<const Outcome> outcomes);
};

// Publishes outcomes to Kafka (reply topic for results, dead-letter topic for
// failures). Thread-safe.
class OutcomePublisher {
 public:
  using Done = std::function<void(absl::Status)>;
  virtual ~OutcomePublisher() = default;
  // True when `outcome` has somewhere to go (reply_to, or a default topic).
  virtual bool WantsToPublish(const Outcome& outcome) const = 0;
  // Queues `outcome`; `done` runs exactly once, on a publisher thread, when
  // the broker acknowledged it or delivery failed for good. `json` is
  // OutcomeToJson(outcome), encoded once by the caller for the store and the
  // reply (a result's reply carries these bytes); it need only live for the
  // call.
  virtual void Publish(const Outcome& outcome, std::string_view json, Done done) = 0;
  // Publish, with the JSON encoded here.
  void Publish(const Outcome& outcome, Done done);
  // Serves delivery reports; waits at most `timeout` for all in flight.
  virtual absl::Status Flush(std::chrono::milliseconds timeout) = 0;
};

// Durable per-message attempt counts, for crash-loop isolation (docs/design/guarantees.md,
// "Poison isolation"): an attempt is recorded before a job runs, and
// forgotten when the job's outcome is stored (unless that outcome is its
// `crash` record) or, earlier, once its run is known to have ended (see
// BeginAttempts). A job whose count reaches K without an outcome took the
// process down K times. Thread-safe.
class AttemptLog {
 public:
  virtual ~AttemptLog() = default;
  // Attempts begun so far for each origin (0: none), in order.
  virtual absl::StatusOr<std::vector<int>> Attempts(std::span<const Origin> origins) const = 0;
  // Adds one attempt to each of `origins` and, in the same durable write,
  // forgets the attempts of `finished`: messages whose run ended without
  // taking the process down, whose outcomes may not be stored yet (the
  // executor records a batch while the next one runs). So a crash counts
  // against the jobs that were running, not against those waiting to be
  // recorded. OK once that is durable.
  virtual absl::Status BeginAttempts(std::span<const Origin> origins, std::span<const Origin> finished) = 0;
  // BeginAttempts with nothing finished.
  absl::Status BeginAttempts(std::span<const Origin> origins) { return BeginAttempts(origins, {}); }
};

// Small durable values beside the outcomes (the memory plan, keyed by what
// it was measured for). Thread-safe.
class MetaStore {
 public:
  virtual ~MetaStore() = default;
  // Durable like an outcome write.
  virtual absl::Status PutMeta(const std::string& key, const std::string& value) = 0;
  // nullopt for a missing key.
  virtual absl::StatusOr<std::optional<std::string>> GetMeta(const std::string& key) const = 0;
};

// Receives acknowledgements: the job at `origin` has a durable record.
// Thread-safe.
class AckSink {
 public:
  virtual ~AckSink() = default;
  virtual void Ack(const Origin& origin) = 0;
};

}  // namespace qinfer

namespace qinfer {

// Where a source hands decoded jobs: the scheduler's queue. Thread-safe.
class JobQueue {
 public:
  virtual ~JobQueue() = default;
  // Queues `job`. An error (e.g. OutOfRange: longer than the longest bucket)
  // means the queue did not take it; the caller records the failure.
  virtual absl::Status Push(Job job) = 0;
  // Backpressure, with hysteresis: a source pauses while IsFull() and
  // resumes once HasRoomToResume().
  virtual bool IsFull() const = 0;
  virtual bool HasRoomToResume() const = 0;
};

// Where the executor takes its batches from: the scheduler's queue.
// Thread-safe.
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // A ready batch, waiting at most `max_wait` for one; nullopt when none
  // became ready. After Close() it never waits.
  virtual std::optional<Batch> WaitNextBatch(std::chrono::milliseconds max_wait) = 0;
  // Refuses further jobs and wakes every waiter; what is queued stays for
  // DrainAll. Idempotent.
  virtual void Close() = 0;
  virtual bool closed() const = 0;
  // Everything queued, in batches.
  virtual std::vector<Batch> DrainAll() = 0;
};

// Where outcomes go to become durable, then published and acked: the
// OutcomeRecorder (recorder.h). Thread-safe.
class OutcomeSink {
 public:
  virtual ~OutcomeSink() = default;
  // All of `outcomes` in one store write, then published and acked; a
  // non-OK status when the store keeps failing (nothing acked).
  virtual absl::Status Record(std::vector<Outcome> outcomes) = 0;
};

}  // namespace qinfer
