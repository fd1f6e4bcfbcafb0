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
#include "table_shape.h"

namespace qinfer::export_parquet {

using nlohmann::json;

namespace {

// A record as the columns read it: its fields, and its meta parsed when
// meta is columns.
struct Row {
  const RecordFields& r;
  const json& meta;
};

struct Column {
  std::shared_ptr<arrow::Field> field;
  std::function<arrow::Status(const Row&, arrow::ArrayBuilder&)> append;
  // A vector column: its float leaves are written plain, uncompressed and
  // without min/max statistics (float32 values do not compress, and their
  // bounds are of no use to a reader).
  bool vectors = false;
};

absl::Status FromArrow(const arrow::Status& s, std::string_view what) {
  if (s.ok()) return absl::OkStatus();
  return absl::InternalError(std::string(what) + ": " + s.ToString());
}

arrow::Status AppendFloats(arrow::ArrayBuilder& b, const float* v, size_t n) {
  auto& list = static_cast<arrow::ListBuilder&>(b);
  ARROW_RETURN_NOT_OK(list.Append());
  return static_cast<arrow::FloatBuilder*>(list.value_builder())->AppendValues(v, int64_t(n));
}

// A string member; empty is null where `nullable`.
Column StringColumn(std::string name, std::string RecordFields::*member, bool nullable = true) {
  auto append = [member, nullable](const Row& row, arrow::ArrayBuilder& b) {
    const std::string& v = row.r.*member;
    auto& builder = static_cast<arrow::StringBuilder&>(b);
    return nullable && v.empty() ? builder.AppendNull() : builder.Append(v);
  };
  return {arrow::field(name, arrow::utf8(), nullable), append, false};
}

// An integer member; 0 is null where `zero_is_null` (a member the record
// leaves out when 0).
template <typename Builder, typename T>
Column IntColumn(std::string name, std::shared_ptr<arrow::DataType> type, T RecordFields::*member,
                 bool zero_is_null = false) {
  auto append = [member, zero_is_null](const Row& row, arrow::ArrayBuilder& b) {
    auto& builder = static_cast<Builder&>(b);
    const T v = row.r.*member;
    return zero_is_null && v == 0 ? builder.AppendNull() : builder.Append(v);
  };
  return {arrow::field(name, type), append, false};
}

Column OutputColumn(const TableShape& shape, OutputForm form) {
  const std::string name = shape.OutputColumn(form);
  auto floats = arrow::list(arrow::float32());
  switch (form) {
    case OutputForm::kPacked:
      return {arrow::field(name, arrow::binary()),
              [](const Row& row, arrow::ArrayBuilder& b) {
                auto& builder = static_cast<arrow::BinaryBuilder&>(b);
                return row.r.form == OutputForm::kPacked ? builder.Append(row.r.packed) : builder.AppendNull();
              },
              false};
    case OutputForm::kSparse:
      return {arrow::field(name, arrow::struct_({arrow::field("indices", arrow::list(arrow::int32())),
                                                 arrow::field("values", floats)})),
              [](const Row& row, arrow::ArrayBuilder& b) {
                auto& builder = static_cast<arrow::StructBuilder&>(b);
                if (row.r.form != OutputForm::kSparse) return builder.AppendNull();
                ARROW_RETURN_NOT_OK(builder.Append());
                auto& indices = static_cast<arrow::ListBuilder&>(*builder.field_builder(0));
                ARROW_RETURN_NOT_OK(indices.Append());
                ARROW_RETURN_NOT_OK(static_cast<arrow::Int32Builder*>(indices.value_builder())
                                        ->AppendValues(row.r.indices.data(), int64_t(row.r.indices.size())));
                return AppendFloats(*builder.field_builder(1), row.r.floats.data(), row.r.floats.size());
              },
              true};
    case OutputForm::kRows:
      return {arrow::field(name, arrow::list(floats)),
              [](const Row& row, arrow::ArrayBuilder& b) {
                auto& builder = static_cast<arrow::ListBuilder&>(b);
                if (row.r.form != OutputForm::kRows) return builder.AppendNull();
                ARROW_RETURN_NOT_OK(builder.Append());
                const size_t width = row.r.rows > 0 ? row.r.floats.size() / size_t(row.r.rows) : 0;
                for (int i = 0; i < row.r.rows; ++i) {
                  ARROW_RETURN_NOT_OK(
                      AppendFloats(*builder.value_builder(), row.r.floats.data() + size_t(i) * width, width));
                }
                return arrow::Status::OK();
              },
              true};
    default:
      return {arrow::field(name, floats),
              [](const Row& row, arrow::ArrayBuilder& b) {
                if (row.r.form != OutputForm::kFloats) return static_cast<arrow::ListBuilder&>(b).AppendNull();
                return AppendFloats(b, row.r.floats.data(), row.r.floats.size());
              },
              true};
  }
}

template <typename Builder>
Builder& Child(arrow::StructBuilder& s, int i) {
  return static_cast<Builder&>(*s.field_builder(i));
}

// A list of objects (classify's scores, tokens' entities and tokens), a
// struct an object, its fields in the record's order of keys.
template <typename T>
Column ListOfStructs(std::string name, std::vector<std::shared_ptr<arrow::Field>> fields,
                     bool RecordFields::*has, std::vector<T> RecordFields::*items,
                     arrow::Status (*write)(const T&, arrow::StructBuilder&)) {
  auto append = [has, items, write](const Row& row, arrow::ArrayBuilder& b) {
    auto& list = static_cast<arrow::ListBuilder&>(b);
    if (!(row.r.*has)) return list.AppendNull();
    ARROW_RETURN_NOT_OK(list.Append());
    auto& item = static_cast<arrow::StructBuilder&>(*list.value_builder());
    for (const T& v : row.r.*items) {
      ARROW_RETURN_NOT_OK(item.Append());
      ARROW_RETURN_NOT_OK(write(v, item));
    }
    return arrow::Status::OK();
  };
  return {arrow::field(name, arrow::list(arrow::struct_(std::move(fields)))), append, false};
}

arrow::Status WriteScore(const LabelScore& s, arrow::StructBuilder& b) {
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 0).Append(s.label));
  return Child<arrow::FloatBuilder>(b, 1).Append(s.score);
}

// end, label, score, start and text (entities) or token (tokens).
template <typename T, std::string T::*kText>
arrow::Status WriteSpan(const T& t, arrow::StructBuilder& b) {
  ARROW_RETURN_NOT_OK(Child<arrow::Int32Builder>(b, 0).Append(t.end));
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 1).Append(t.label));
  ARROW_RETURN_NOT_OK(Child<arrow::FloatBuilder>(b, 2).Append(t.score));
  ARROW_RETURN_NOT_OK(Child<arrow::Int32Builder>(b, 3).Append(t.start));
  return Child<arrow::StringBuilder>(b, 4).Append(t.*kText);
}

std::vector<std::shared_ptr<arrow::Field>> SpanFields(const char* text) {
  return {arrow::field("end", arrow::int32()), arrow::field("label", arrow::utf8()),
          arrow::field("score", arrow::float32()), arrow::field("start", arrow::int32()),
          arrow::field(text, arrow::utf8())};
}

Column MetaValueColumn(const MetaColumn& c) {
  static const std::shared_ptr<arrow::DataType> kTypes[] = {arrow::utf8(), arrow::utf8(), arrow::int64(),
                                                            arrow::float64(), arrow::boolean()};
  auto append = [key = c.key, type = c.type](const Row& row, arrow::ArrayBuilder& b) {
    const auto found = row.meta.find(key);
    if (found == row.meta.end() || found->is_null()) return b.AppendNull();
    switch (type) {
      case MetaType::kInt:
        return static_cast<arrow::Int64Builder&>(b).Append(found->get<int64_t>());
      case MetaType::kDouble:
        return static_cast<arrow::DoubleBuilder&>(b).Append(found->get<double>());
      case MetaType::kBool:
        return static_cast<arrow::BooleanBuilder&>(b).Append(found->get<bool>());
      default:
        return static_cast<arrow::StringBuilder&>(b).Append(found->get_ref<const std::string&>());
    }
  };
  return {arrow::field(c.name, kTypes[size_t(c.type)]), append, false};
}

// meta as a column a key where the shape allows (returned), else one JSON
// column.
std::vector<MetaColumn> AddMetaColumns(const TableShape& shape, std::vector<Column>& columns, bool& meta_as_json) {
  meta_as_json = false;
  if (!shape.any_meta) return {};
  std::vector<std::string> taken;
  for (const Column& c : columns) taken.push_back(c.field->name());
  taken.push_back("meta");
  std::vector<MetaColumn> keys = shape.MetaColumns(taken);
  for (const MetaColumn& key : keys) columns.push_back(MetaValueColumn(key));
  if (keys.empty()) {
    meta_as_json = true;
    columns.push_back(StringColumn("meta", &RecordFields::meta));
  }
  return keys;
}

// The table's columns, in parquet_export.h's order, for what `shape` saw,
// and meta's columns among them.
struct Plan {
  std::vector<Column> columns;
  std::vector<MetaColumn> meta_columns;
  bool meta_as_json = false;
};

std::vector<Column> Columns(const TableShape& shape, Plan& plan) {
  std::vector<Column> columns;
  columns.push_back(StringColumn("id", &RecordFields::id, false));
  columns.push_back({arrow::field("status", arrow::utf8(), false),
                     [](const Row& row, arrow::ArrayBuilder& b) {
                       return static_cast<arrow::StringBuilder&>(b).Append(row.r.ok ? "ok" : "failed");
                     },
                     {}});
  for (OutputForm form : {OutputForm::kFloats, OutputForm::kPacked, OutputForm::kSparse, OutputForm::kRows}) {
    if (shape.has(form)) columns.push_back(OutputColumn(shape, form));
  }
  if (shape.encoding) columns.push_back(StringColumn("encoding", &RecordFields::encoding));
  if (shape.label) columns.push_back(StringColumn("label", &RecordFields::label));
  if (shape.scores) {
    columns.push_back(ListOfStructs<LabelScore>(
        "scores", {arrow::field("label", arrow::utf8()), arrow::field("score", arrow::float32())},
        &RecordFields::has_scores, &RecordFields::scores, &WriteScore));
  }
  if (shape.score) {
    columns.push_back({arrow::field("score", arrow::float32()),
                       [](const Row& row, arrow::ArrayBuilder& b) {
                         auto& builder = static_cast<arrow::FloatBuilder&>(b);
                         return row.r.score ? builder.Append(*row.r.score) : builder.AppendNull();
                       },
                       {}});
  }
  if (shape.entities) {
    columns.push_back(ListOfStructs<Entity>("entities", SpanFields("text"), &RecordFields::has_entities,
                                            &RecordFields::entities, &WriteSpan<Entity, &Entity::text>));
  }
  if (shape.tokens) {
    columns.push_back(ListOfStructs<TokenLabel>("tokens", SpanFields("token"), &RecordFields::has_tokens,
                                                &RecordFields::tokens, &WriteSpan<TokenLabel, &TokenLabel::token>));
  }
  columns.push_back(StringColumn("reason", &RecordFields::reason));
  columns.push_back(StringColumn("error", &RecordFields::error));
  columns.push_back(IntColumn<arrow::Int64Builder>("input_length", arrow::int64(), &RecordFields::input_length));
  columns.push_back(
      IntColumn<arrow::Int64Builder>("completed_at_ms", arrow::int64(), &RecordFields::completed_at_ms));
  columns.push_back(IntColumn<arrow::Int32Builder>("attempt", arrow::int32(), &RecordFields::attempt));
  columns.push_back(StringColumn("model_name", &RecordFields::model_name));
  columns.push_back(StringColumn("model_digest", &RecordFields::model_digest));
  if (shape.policy) columns.push_back(StringColumn("policy", &RecordFields::policy));
  if (shape.windows) {
    columns.push_back(IntColumn<arrow::Int32Builder>("windows", arrow::int32(), &RecordFields::windows, true));
  }
  if (shape.original_length) {
    columns.push_back(IntColumn<arrow::Int64Builder>("original_length", arrow::int64(),
                                                     &RecordFields::original_length, true));
  }
  plan.meta_columns = AddMetaColumns(shape, columns, plan.meta_as_json);
  return columns;
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

Plan PlanOf(const TableShape& shape) {
  Plan plan;
  plan.columns = Columns(shape, plan);
  return plan;
}

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
