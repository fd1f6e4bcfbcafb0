#include "qinfer/replay/replay.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace qinfer::replay {

using nlohmann::json;

bool Selected(const Outcome& f, const Selection& s) {
  if (f.ok) return false;
  if (!s.reasons.empty() && !s.reasons.contains(f.reason)) return false;
  if (!s.ids.empty() && !s.ids.contains(f.id)) return false;
  return f.completed_at_ms >= s.since_ms && f.completed_at_ms <= s.until_ms;
}

const std::vector<std::string>& KnownReasons() {
  static const std::vector<std::string> kReasons = {reason::kInvalid, reason::kTooLong,    reason::kTooLarge,
                                                    reason::kOom,     reason::kModelError, reason::kCrash,
                                                    reason::kUndeliverable};
  return kReasons;
}

absl::Status CheckSelection(const Selection& s) {
  const std::vector<std::string>& known = KnownReasons();
  for (const std::string& r : s.reasons) {
    if (std::find(known.begin(), known.end(), r) != known.end()) continue;
    std::string list;
    for (size_t i = 0; i < known.size(); ++i) list += (i == 0 ? "" : i + 1 == known.size() ? " or " : ", ") + known[i];
    return absl::InvalidArgumentError("--reason " + r + ": expected " + list);
  }
  return absl::OkStatus();
}

absl::Status CheckOverrides(const Overrides& o) {
  if (!o.policy.empty() && o.policy != "truncate" && o.policy != "chunk" && o.policy != "long_lane" &&
      o.policy != "reject" && o.policy != "resize") {
    return absl::InvalidArgumentError("--policy " + o.policy +
                                      ": expected truncate, chunk, long_lane or reject (over-long inputs), or resize "
                                      "(images over limits.max_image_pixels)");
  }
  if (!o.device.empty() && o.device != "cpu") {
    return absl::InvalidArgumentError("--device " + o.device + ": expected cpu");
  }
  if (o.truncate_to < 0) return absl::InvalidArgumentError("--truncate-to must be positive");
  if (o.max_tokens < 0) return absl::InvalidArgumentError("--max-tokens must be positive");
  if (o.max_tokens > 0 && !o.policy.empty() && o.policy != "long_lane") {
    return absl::InvalidArgumentError("--max-tokens runs long inputs in the long lane; it cannot go with --policy " +
                                      o.policy);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReplayMessage(const Outcome& f, const Overrides& o, const Limits& limits) {
  if (f.ok) return absl::InvalidArgumentError("job " + f.id + " has a result, not a failure record");
  const int attempt = f.attempt + 1;
  if (attempt > limits.max_attempts && !limits.force) {
    return absl::FailedPreconditionError("job " + f.id + ": attempt " + std::to_string(attempt) +
                                         " would pass --max-attempts " + std::to_string(limits.max_attempts) +
                                         " (--force replays it anyway)");
  }
  if (f.reason == reason::kInvalid && !limits.force) {
    return absl::FailedPreconditionError("job " + f.id + " is invalid (" + f.error +
                                         "): a replay would fail the same way; fix the message and submit it "
                                         "again (--force replays it, e.g. after raising the limit it broke)");
  }
  if (f.reason == reason::kUndeliverable) {
    return absl::FailedPreconditionError(
        "job " + f.id + " has a result: this is an undeliverable notice, its reply" +
        (f.delivery_error.empty() ? std::string() : " (" + f.delivery_error + ")") +
        " was not delivered, and the notice holds neither the result nor the job; read the result with "
        "`qinfer results --id " +
        f.id + "` on the store of the instance that ran it (or publish the original, " + f.origin.topic + "/" +
        std::to_string(f.origin.partition) + "/" + std::to_string(f.origin.offset) + ", again to run it again)");
  }
  if (f.payload_truncated) {
    return absl::FailedPreconditionError("job " + f.id + ": the record keeps only a prefix of its message (" +
                                         f.origin.topic + "/" + std::to_string(f.origin.partition) + "/" +
                                         std::to_string(f.origin.offset) + "); publish the original again");
  }
  json job = json::parse(f.payload, nullptr, /*allow_exceptions=*/false);
  const bool has_ids = job.is_object() && job.contains("input_ids") && job["input_ids"].is_array();
  const bool has_text = job.is_object() && job.contains("text") && job["text"].is_string();
  const bool has_image = job.is_object() && ((job.contains("image") && job["image"].is_string()) ||
                                             (job.contains("image_url") && job["image_url"].is_string()));
  if (job.is_discarded() || int(has_ids) + int(has_text) + int(has_image) != 1) {
    return absl::FailedPreconditionError("job " + f.id + " (" + f.reason +
                                         "): its message is not a job with input_ids, text, image or image_url; "
                                         "fix it and submit it again");
  }
  if (has_image && ((!o.policy.empty() && o.policy != "resize") || o.truncate_to > 0 || o.max_tokens > 0)) {
    return absl::FailedPreconditionError("job " + f.id + " is an image job: of the overrides it takes --policy "
                                         "resize and --device");
  }
  if (!has_image && o.policy == "resize") {
    return absl::FailedPreconditionError("job " + f.id + ": --policy resize is for image jobs (it scales an image "
                                         "down to limits.max_image_pixels)");
  }
  // A text replays as the text: the service tokenizes it again, and its
  // record says how many tokens it had.
  const size_t length = has_ids ? job["input_ids"].size() : f.input_length;
  if (o.max_tokens > 0 && length > size_t(o.max_tokens)) {
    return absl::FailedPreconditionError("job " + f.id + ": " + std::to_string(length) +
                                         " tokens, more than --max-tokens " + std::to_string(o.max_tokens));
  }
  job["id"] = f.id;
  job["attempt"] = attempt;
  const Origin& first = f.replay_of.topic.empty() ? f.origin : f.replay_of;
  job["replay_of"] = {{"topic", first.topic}, {"partition", first.partition}, {"offset", first.offset}};
  if (!o.policy.empty()) job["policy"] = o.policy;
  if (o.max_tokens > 0) job["policy"] = "long_lane";
  if (o.truncate_to > 0) job["truncate_to"] = o.truncate_to;
  if (!o.device.empty()) job["device"] = o.device;
  return job.dump(-1, ' ', false, json::error_handler_t::replace);
}

Progress::Progress(const Clock& clock, uint64_t total, std::chrono::milliseconds interval)
    : clock_(clock), total_(total), interval_(interval), start_(clock.Now()), last_(start_) {}

double Progress::seconds() const { return std::chrono::duration<double>(clock_.Now() - start_).count(); }

std::optional<std::string> Progress::Update(uint64_t done) {
  const SteadyTime now = clock_.Now();
  if (now - last_ < interval_) return std::nullopt;
  last_ = now;
  const double s = seconds();
  const double rate = s > 0 ? double(done) / s : 0;
  char line[160];
  if (total_ > 0) {
    const double eta = rate > 0 ? double(total_ - std::min(done, total_)) / rate : 0;
    std::snprintf(line, sizeof line, "%llu/%llu (%.0f%%), %.0f/s, ETA %.0f s", (unsigned long long)done,
                  (unsigned long long)total_, 100.0 * double(done) / double(total_), rate, eta);
  } else {
    std::snprintf(line, sizeof line, "%llu, %.0f/s", (unsigned long long)done, rate);
  }
  return std::string(line);
}

std::string Progress::Final(uint64_t done) const {
  const double s = seconds();
  char line[120];
  std::snprintf(line, sizeof line, "%llu in %.1f s (%.0f/s)", (unsigned long long)done, s,
                s > 0 ? double(done) / s : 0.0);
  return line;
}

}  // namespace qinfer::replay
