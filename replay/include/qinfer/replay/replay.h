// Replay: turning failure records back into jobs (docs/design/messages.md).
// What to select, what the re-published job says, and how progress reads.
// No Kafka and no RocksDB: `qinfer replay` feeds it records from the store
// or the dead-letter topic and publishes what it returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/job.h"

namespace qinfer::replay {

// Which failure records to replay; an empty set matches everything.
struct Selection {
  std::set<std::string> reasons;
  std::set<std::string> ids;
  int64_t since_ms = 0;  // completed_at_ms within [since_ms, until_ms]
  int64_t until_ms = std::numeric_limits<int64_t>::max();
};

bool Selected(const Outcome& failure, const Selection& selection);

// The reasons a selection may name: those of failure records, and
// `undeliverable` (the dead-letter topic's notices), in that order.
const std::vector<std::string>& KnownReasons();

// Checks the selection; InvalidArgument naming a reason that no record can
// have (a typo would otherwise select nothing, silently), with the list.
absl::Status CheckSelection(const Selection& selection);

// What changes in the replayed job.
struct Overrides {
  std::string policy;   // "", truncate, chunk, long_lane or reject
  int truncate_to = 0;  // 0: none
  std::string device;   // "" or cpu
  int max_tokens = 0;   // > 0: inputs up to this many tokens, in the long lane
};

// Checks the overrides for consistency; the error names the flag.
absl::Status CheckOverrides(const Overrides& overrides);

struct Limits {
  int max_attempts = 3;  // the replayed attempt may be at most this
  bool force = false;    // replay past max_attempts anyway
};

// The job message that replays `failure`: its original message with `id`
// set (so the replay keeps the id even when it came from the key),
// `attempt` = failure.attempt + 1, `replay_of` = the coordinates of the
// first message of this job (the failure's own replay_of, else its
// origin), and the overrides. Errors:
//  - FailedPrecondition: the attempt would pass max_attempts, or the
//    failure is `invalid` (the same message fails the same way), unless
//    force; it is an `undeliverable` notice (the job has a result; only its
//    reply was lost, and the notice carries neither); the record keeps
//    only a prefix of its message; the message is not a JSON object with
//    exactly one of input_ids and text (a text job replays as its text,
//    tokenized again by the service); it is longer than
//    overrides.max_tokens (a text: its record's input_length).
//  - InvalidArgument: failure is a result, not a failure record.
absl::StatusOr<std::string> ReplayMessage(const Outcome& failure, const Overrides& overrides, const Limits& limits);

// Progress of a long selection: a line at most every `interval`, with the
// count, rate and (when the total is known) percentage and ETA.
class Progress {
 public:
  Progress(const Clock& clock, uint64_t total, std::chrono::milliseconds interval);
  // `done` so far; a line to print, or nullopt when the last was too recent.
  std::optional<std::string> Update(uint64_t done);
  // The closing line: count and rate over the whole run.
  std::string Final(uint64_t done) const;
  double seconds() const;

 private:
  const Clock& clock_;
  const uint64_t total_;
  const std::chrono::milliseconds interval_;
  const SteadyTime start_;
  SteadyTime last_;
};

}  // namespace qinfer::replay
