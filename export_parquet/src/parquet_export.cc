#include "qinfer/export_parquet/parquet_export.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <parquet/arrow/schema.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include <filesystem>
#include <future>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "block_keeping_pool.h"
#include "record_fields.h"
#include "table_columns.h"
#include "table_shape.h"

namespace qinfer::export_parquet {

using nlohmann::json;

namespace {

absl::Status FromArrow(const arrow::Status& s, std::string_view what) {
  if (s.ok()) return absl::OkStatus();
  return absl::InternalError(std::string(what) + ": " + s.ToString());
}

// The lengths of a builder and of its list children (a vector's floats,
// a vector a token's rows and floats) in the row group just built...
std::vector<int64_t> ListLengths(arrow::ArrayBuilder& builder) {
  std::vector<int64_t> lengths = {builder.length()};
  for (arrow::ArrayBuilder* b = &builder; b->type()->id() == arrow::Type::LIST;) {
    b = static_cast<arrow::ListBuilder*>(b)->value_builder();
    lengths.push_back(b->length());
  }
  return lengths;
}

// ...reserved again once it is finished, so that the next row group's
// vectors go into memory of their size at once rather than into buffers
// that double (each time fresh pages the kernel must zero, and a copy).
arrow::Status ReserveListLengths(arrow::ArrayBuilder& builder, const std::vector<int64_t>& lengths) {
  arrow::ArrayBuilder* b = &builder;
  for (size_t i = 0; i < lengths.size(); ++i) {
    ARROW_RETURN_NOT_OK(b->Reserve(lengths[i]));
    if (i + 1 < lengths.size()) b = static_cast<arrow::ListBuilder*>(b)->value_builder();
  }
  return arrow::Status::OK();
}

// Rows into builders, a row group at a time, into the file.
class Writer {
 public:
  Writer(std::vector<Column> columns, const ParquetOptions& options)
      : columns_(std::move(columns)), options_(options) {}

  absl::Status Open(const std::string& path) {
    arrow::FieldVector fields;
    parquet::WriterProperties::Builder properties;
    properties.compression(parquet::Compression::SNAPPY)->max_row_group_length(options_.row_group_rows);
    // No page-level size statistics (level histograms over every float of
    // every vector: a tenth of the export's time, and no reader needs them).
    properties.set_size_statistics_level(parquet::SizeStatisticsLevel::None)->memory_pool(&pool_);
    std::set<std::string> vectors;
    for (const Column& c : columns_) {
      fields.push_back(c.field);
      if (c.vectors) vectors.insert(c.field->name());
      std::unique_ptr<arrow::ArrayBuilder> builder;
      if (auto s = arrow::MakeBuilder(&pool_, c.field->type(), &builder); !s.ok()) {
        return FromArrow(s, "column " + c.field->name());
      }
      builders_.push_back(std::move(builder));
    }
    schema_ = arrow::schema(std::move(fields));
    // The vector columns' float leaves, by the paths Parquet's schema gives
    // them (a list's values are `NAME.list.element`).
    std::shared_ptr<parquet::SchemaDescriptor> leaves;
    if (auto s = parquet::arrow::ToParquetSchema(schema_.get(), *parquet::default_writer_properties(), &leaves);
        !s.ok()) {
      return FromArrow(s, "the Parquet schema");
    }
    for (int i = 0; i < leaves->num_columns(); ++i) {
      const parquet::ColumnDescriptor* leaf = leaves->Column(i);
      if (leaf->physical_type() != parquet::Type::FLOAT || !vectors.contains(leaf->path()->ToDotVector().front())) {
        continue;
      }
      const std::string path = leaf->path()->ToDotString();
      properties.disable_dictionary(path)
          ->compression(path, parquet::Compression::UNCOMPRESSED)
          ->disable_statistics(path);
    }
    auto file = arrow::io::FileOutputStream::Open(path);
    if (!file.ok()) return FromArrow(file.status(), "cannot write " + path);
    file_ = *file;
    auto writer = parquet::arrow::FileWriter::Open(*schema_, &pool_, file_,
                                                   properties.build(), parquet::default_arrow_writer_properties());
    if (!writer.ok()) return FromArrow(writer.status(), "cannot write " + path);
    writer_ = *std::move(writer);
    return absl::OkStatus();
  }

  absl::Status Add(const Row& row) {
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (auto s = columns_[i].append(row, *builders_[i]); !s.ok()) {
        return FromArrow(s, "record " + row.r.id + ", column " + columns_[i].field->name());
      }
    }
    if (++pending_ == options_.row_group_rows) return Flush();
    return absl::OkStatus();
  }

  absl::Status Close() {
    if (absl::Status s = Flush(); !s.ok()) return s;
    if (absl::Status s = Wait(); !s.ok()) return s;
    if (auto s = writer_->Close(); !s.ok()) return FromArrow(s, "closing the file");
    return FromArrow(file_->Close(), "closing the file");
  }

  ~Writer() { (void)Wait(); }

 private:
  // The rows so far as a row group, written on a thread of its own while
  // the next is read (encoding and writing a row group costs about what
  // reading it does); one write at a time, in order.
  absl::Status Flush() {
    if (pending_ == 0 && written_ > 0) return absl::OkStatus();
    arrow::ArrayVector arrays;
    for (auto& builder : builders_) {
      const std::vector<int64_t> lengths = ListLengths(*builder);
      std::shared_ptr<arrow::Array> array;
      if (auto s = builder->Finish(&array); !s.ok()) return FromArrow(s, "a row group");
      arrays.push_back(std::move(array));
      if (auto s = ReserveListLengths(*builder, lengths); !s.ok()) return FromArrow(s, "a row group");
    }
    auto table = arrow::Table::Make(schema_, arrays, pending_);
    if (absl::Status s = Wait(); !s.ok()) return s;
    write_ = std::async(std::launch::async, [writer = writer_.get(), table, rows = std::max<int64_t>(pending_, 1)] {
      return writer->WriteTable(*table, rows);
    });
    written_ += pending_;
    pending_ = 0;
    return absl::OkStatus();
  }

  // The write in flight, finished.
  absl::Status Wait() {
    if (!write_.valid()) return absl::OkStatus();
    return FromArrow(write_.get(), "writing a row group");
  }

  BlockKeepingPool pool_{arrow::default_memory_pool()};  // outlives every buffer below
  std::vector<Column> columns_;
  ParquetOptions options_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders_;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<arrow::io::FileOutputStream> file_;
  std::unique_ptr<parquet::arrow::FileWriter> writer_;
  std::future<arrow::Status> write_;
  int64_t pending_ = 0, written_ = 0;
};



// Reads records into the table a plan makes, counting them.
class RowReader {
 public:
  RowReader(const TableShape& shape, const Plan& plan, const ParquetOptions& options)
      : shape_(shape), plan_(plan), options_(options) {}

  // `record` into `writer`, unless the table cannot hold it (`fits` false).
  absl::Status Append(const StoredRecord& record, Writer& writer, bool& fits) {
    if (absl::Status s = ReadRecordFields(record, true, r_); !s.ok()) return s;
    // meta is parsed only where it is columns.
    if (!plan_.meta_columns.empty()) meta_ = json::parse(r_.meta, nullptr, false);
    const json& meta = !plan_.meta_columns.empty() && meta_.is_object() ? meta_ : no_meta_;
    fits = shape_.Fits(r_, meta, plan_.meta_columns);
    if (!fits) return absl::OkStatus();
    if (absl::Status s = writer.Add(Row{r_, meta}); !s.ok()) return s;
    if (++rows_ % options_.progress_every == 0 && options_.progress) options_.progress(rows_);
    return absl::OkStatus();
  }

  int64_t rows() const { return rows_; }

 private:
  const TableShape& shape_;
  const Plan& plan_;
  const ParquetOptions& options_;
  RecordFields r_;
  json meta_;
  const json no_meta_ = json::object();
  int64_t rows_ = 0;
};

// The file closed, and what went into it.
absl::Status Finish(const Plan& plan, const RowReader& rows, Writer& writer, ParquetReport& report) {
  report.columns.clear();
  for (const Column& c : plan.columns) report.columns.push_back(c.field->name());
  report.meta_as_json = plan.meta_as_json;
  report.rows = rows.rows();
  return writer.Close();
}

// Records read before the table is planned: the store's first records, in
// one pass; every record, in two.
constexpr size_t kProbeRecords = 4096;

// The one pass: the first kProbeRecords records' shape plans the table, and
// the rest are written as they are read. `refit`: a later record does not
// fit that shape (another output form, a member or a meta key the first
// ones lack); nothing is kept then, and the caller takes two passes.
absl::Status WriteInOnePass(const RecordSource& source, const std::string& partial, const ParquetOptions& options,
                            ParquetReport& report, bool& refit) {
  TableShape shape;
  std::vector<std::string> probe;
  RecordFields r;
  std::optional<Plan> plan;
  std::optional<Writer> writer;
  std::optional<RowReader> rows;
  auto start = [&]() -> absl::Status {
    plan = PlanOf(shape);
    writer.emplace(plan->columns, options);
    if (absl::Status s = writer->Open(partial); !s.ok()) return s;
    rows.emplace(shape, *plan, options);
    bool fits = true;
    for (size_t i = 0; i < probe.size() && fits; ++i) {
      if (absl::Status s = rows->Append(StoredRecord::Text(probe[i]), *writer, fits); !s.ok()) return s;
    }
    probe = {};
    return fits ? absl::OkStatus() : absl::InternalError("a record does not fit the shape made of it");
  };
  absl::Status bad;
  std::string text;
  absl::Status read = source([&](const StoredRecord& record) {
    if (!writer) {
      bad = ReadRecordFields(record, false, r);
      if (bad.ok()) shape.Add(r);
      probe.emplace_back(record.Json(text));
      if (bad.ok() && probe.size() == kProbeRecords) bad = start();
      return bad.ok();
    }
    bool fits = true;
    bad = rows->Append(record, *writer, fits);
    refit = !fits;
    return bad.ok() && fits;
  });
  if (read.ok() && bad.ok() && !writer) bad = start();  // a store of fewer records
  if (!read.ok()) return read;
  if (!bad.ok() || refit) return bad;
  return Finish(*plan, *rows, *writer, report);
}

// Two passes: the shape of every record, then the rows.
absl::Status WriteInTwoPasses(const RecordSource& source, const std::string& partial, const ParquetOptions& options,
                              ParquetReport& report) {
  TableShape shape;
  RecordFields r;
  absl::Status bad;
  absl::Status read = source([&](const StoredRecord& record) {
    bad = ReadRecordFields(record, false, r);
    if (bad.ok()) shape.Add(r);
    return bad.ok();
  });
  if (!read.ok()) return read;
  if (!bad.ok()) return bad;
  const Plan plan = PlanOf(shape);
  Writer writer(plan.columns, options);
  if (absl::Status s = writer.Open(partial); !s.ok()) return s;
  RowReader rows(shape, plan, options);
  read = source([&](const StoredRecord& record) {
    bool fits = true;
    bad = rows.Append(record, writer, fits);
    if (bad.ok() && !fits) bad = absl::FailedPreconditionError("the store changed between the passes");
    return bad.ok();
  });
  if (!read.ok()) return read;
  if (!bad.ok()) return bad;
  if (rows.rows() != shape.records()) {
    return absl::FailedPreconditionError("the store gave " + std::to_string(rows.rows()) + " records, its first pass " +
                                         std::to_string(shape.records()));
  }
  return Finish(plan, rows, writer, report);
}

}  // namespace

absl::StatusOr<ParquetReport> WriteParquet(const RecordSource& source, const std::string& path,
                                           const ParquetOptions& options) {
  const std::string partial = path + ".partial";
  ParquetReport report;
  bool refit = false;
  absl::Status s = WriteInOnePass(source, partial, options, report, refit);
  if (s.ok() && refit) {
    report = {};
    report.passes = 2;
    s = WriteInTwoPasses(source, partial, options, report);
  }
  std::error_code ec;
  if (s.ok()) std::filesystem::rename(partial, path, ec);
  if (s.ok() && ec) s = absl::InternalError("cannot rename " + partial + " to " + path + ": " + ec.message());
  if (!s.ok()) std::filesystem::remove(partial, ec);
  if (!s.ok()) return s;
  return report;
}

}  // namespace qinfer::export_parquet
