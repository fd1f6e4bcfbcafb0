#include "table_shape.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace qinfer::export_parquet {

using nlohmann::json;

namespace {

// A simple value's type; false for an array or an object.
bool TypeOf(const json& v, MetaType& type) {
  if (v.is_null()) {
    type = MetaType::kNull;
  } else if (v.is_string()) {
    type = MetaType::kString;
  } else if (v.is_boolean()) {
    type = MetaType::kBool;
  } else if (v.is_number_integer()) {
    // An unsigned value past int64's range reads as a double.
    type = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX) ? MetaType::kDouble : MetaType::kInt;
  } else if (v.is_number()) {
    type = MetaType::kDouble;
  } else {
    return false;
  }
  return true;
}

// One column's type over two records: null gives way to any type, int to
// double; any other pair differs (false).
bool Merge(MetaType& have, MetaType seen) {
  if (have == seen || seen == MetaType::kNull) return true;
  if (have == MetaType::kNull) {
    have = seen;
    return true;
  }
  const bool numbers = (have == MetaType::kInt || have == MetaType::kDouble) &&
                       (seen == MetaType::kInt || seen == MetaType::kDouble);
  if (numbers) have = MetaType::kDouble;
  return numbers;
}

}  // namespace

void TableShape::Add(const RecordFields& r) {
  forms_[size_t(r.form)] = forms_[size_t(r.form)] || r.ok;
  encoding |= !r.encoding.empty();
  label |= !r.label.empty();
  scores |= r.has_scores;
  score |= r.score.has_value();
  entities |= r.has_entities;
  tokens |= r.has_tokens;
  policy |= !r.policy.empty();
  windows |= r.windows > 0;
  original_length |= r.original_length > 0;
  any_meta |= !r.meta.empty();
  AddMeta(r.meta);
  ++records_;
}

void TableShape::AddMeta(const std::string& meta) {
  if (!meta_simple_) return;
  // Columns only when every record has meta, with the same keys.
  if (meta.empty() || meta_missing_) {
    meta_missing_ = true;
    meta_simple_ = meta.empty() && meta_keys_.empty();
    return;
  }
  json parsed = json::parse(meta, nullptr, false);
  const bool first = meta_keys_.empty();
  if (!parsed.is_object() || parsed.empty() || (!first && parsed.size() != meta_keys_.size())) {
    meta_simple_ = false;
    return;
  }
  size_t k = 0;
  for (const auto& [key, value] : parsed.items()) {
    MetaType type;
    if (!TypeOf(value, type) || key.empty() || (!first && key != meta_keys_[k])) {
      meta_simple_ = false;
      return;
    }
    if (first) {
      meta_keys_.push_back(key);
      meta_types_.push_back(type);
    } else if (!Merge(meta_types_[k], type)) {
      meta_simple_ = false;
      return;
    }
    ++k;
  }
}

bool TableShape::Fits(const RecordFields& r, const json& meta, const std::vector<MetaColumn>& columns) const {
  if (r.ok && !forms_[size_t(r.form)]) return false;
  const bool members = (encoding || r.encoding.empty()) && (label || r.label.empty()) && (scores || !r.has_scores) &&
                       (score || !r.score) && (entities || !r.has_entities) && (tokens || !r.has_tokens) &&
                       (policy || r.policy.empty()) && (windows || r.windows == 0) &&
                       (original_length || r.original_length == 0) && (any_meta || r.meta.empty());
  if (!members) return false;
  if (columns.empty()) return true;
  if (!meta.is_object() || meta.size() != columns.size()) return false;
  for (const MetaColumn& c : columns) {
    const auto found = meta.find(c.key);
    MetaType type;
    if (found == meta.end() || !TypeOf(*found, type)) return false;
    const bool takes = type == MetaType::kNull || type == c.type ||
                       (type == MetaType::kInt && c.type == MetaType::kDouble);
    if (!takes) return false;
  }
  return true;
}

std::string TableShape::OutputColumn(OutputForm form) const {
  const auto forms = std::count(forms_.begin() + 1, forms_.end(), true);
  if (form == OutputForm::kFloats || forms <= 1) return "output";
  return "output_" + std::string(OutputFormName(form));
}

std::vector<MetaColumn> TableShape::MetaColumns(const std::vector<std::string>& taken) const {
  std::vector<MetaColumn> columns;
  if (!meta_simple_ || meta_keys_.empty()) return columns;
  auto is_taken = [&](const std::string& name) {
    return std::find(taken.begin(), taken.end(), name) != taken.end() ||
           std::any_of(columns.begin(), columns.end(), [&](const MetaColumn& c) { return c.name == name; });
  };
  for (size_t k = 0; k < meta_keys_.size(); ++k) {
    std::string name = meta_keys_[k];
    if (is_taken(name)) name = "meta_" + name;
    if (is_taken(name)) return {};  // no clear name: meta stays one JSON column
    columns.push_back({meta_keys_[k], name, meta_types_[k]});
  }
  return columns;
}

}  // namespace qinfer::export_parquet
