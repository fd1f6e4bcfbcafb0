// The Parquet export's first pass: which columns the records need, and
// whether `meta` can be columns of its own (parquet_export.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record_fields.h"

namespace qinfer::export_parquet {

enum class MetaType { kNull, kString, kInt, kDouble, kBool };

struct MetaColumn {
  std::string key;   // in `meta`
  std::string name;  // the column's: the key, or meta_<key> where a column has that name
  MetaType type = MetaType::kNull;
};

class TableShape {
 public:
  // Adds a record read with values = false (or true).
  void Add(const RecordFields& r);

  int64_t records() const { return records_; }
  bool has(OutputForm form) const { return forms_[size_t(form)]; }
  // The column of `form`'s outputs: "output", or output_<form> when the
  // records hold more than one form (floats keep "output").
  std::string OutputColumn(OutputForm form) const;

  bool encoding = false, label = false, scores = false, score = false, entities = false, tokens = false;
  bool policy = false, windows = false, original_length = false;
  bool any_meta = false;

  // Whether the table this shape makes holds `r` as it is: its output form
  // and every member it has have columns, and, where meta is `columns`
  // (MetaColumns' answer; empty: meta is one JSON column or absent), its
  // meta (`meta`, parsed) has their keys with values each column takes as
  // its type stands (null, or a value of that type; an integer in a double
  // column). A store whose every record fits the shape of its first records
  // has that very shape.
  bool Fits(const RecordFields& r, const nlohmann::json& meta, const std::vector<MetaColumn>& columns) const;

  // Every record's meta has the same keys, each holding one simple type
  // (or null): a column a key, named clear of `taken`. Else empty: one
  // JSON column.
  std::vector<MetaColumn> MetaColumns(const std::vector<std::string>& taken) const;

 private:
  void AddMeta(const std::string& meta);

  int64_t records_ = 0;
  std::array<bool, 5> forms_{};
  bool meta_simple_ = true;
  bool meta_missing_ = false;  // a record so far had no meta
  std::vector<std::string> meta_keys_;
  std::vector<MetaType> meta_types_;
};

}  // namespace qinfer::export_parquet
