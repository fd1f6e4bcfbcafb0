// The items of a result's lists read back from their JSON (nlohmann's
// from_json, found by argument-dependent lookup: `j.get<std::vector<Entity>>()`):
// classify's `scores`, tokens' `entities` and `tokens`, as OutcomeToJson
// (outcome_json.h) writes them. A missing or mistyped member throws
// nlohmann::json::exception. For readers that link nlohmann_json
// themselves (OutcomeFromJson, the Parquet export).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "qinfer/core/job.h"

namespace qinfer {

void from_json(const nlohmann::json& j, LabelScore& s);
void from_json(const nlohmann::json& j, Entity& e);
void from_json(const nlohmann::json& j, TokenLabel& t);

}  // namespace qinfer
