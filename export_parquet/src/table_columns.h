// The table's columns: what each column of the Parquet file is and how a
// record's row appends to it, chosen from the shape the records showed
// (table_shape.h); parquet_export.cc writes the rows into them.
#pragma once

#include <arrow/api.h>

#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "record_fields.h"
#include "table_shape.h"

namespace qinfer::export_parquet {

// A record as the columns read it: its fields, and its meta parsed when
// meta is columns.
struct Row {
  const RecordFields& r;
  const nlohmann::json& meta;
};

struct Column {
  std::shared_ptr<arrow::Field> field;
  std::function<arrow::Status(const Row&, arrow::ArrayBuilder&)> append;
  // A vector column: its float leaves are written plain, uncompressed and
  // without min/max statistics (float32 values do not compress, and their
  // bounds are of no use to a reader).
  bool vectors = false;
};

// The table's columns, in parquet_export.h's order, for what `shape` saw,
// and meta's columns among them.
struct Plan {
  std::vector<Column> columns;
  std::vector<MetaColumn> meta_columns;
  bool meta_as_json = false;
};

// The plan of the table for what `shape` saw.
Plan PlanOf(const TableShape& shape);

}  // namespace qinfer::export_parquet
