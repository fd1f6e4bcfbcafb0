#include "qinfer/core/interfaces.h"

#include "qinfer/core/outcome_json.h"

namespace qinfer {

absl::Status OutcomeStore::Put(std::span<const Outcome> outcomes) {
  std::vector<std::string> json;
  json.reserve(outcomes.size());
  for (const Outcome& o : outcomes) json.push_back(OutcomeToJson(o));
  return Put(outcomes, json);
}

void OutcomePublisher::Publish(const Outcome& outcome, Done done) {
  Publish(outcome, OutcomeToJson(outcome), std::move(done));
}

}  // namespace qinfer
