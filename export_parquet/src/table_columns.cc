#include "table_columns.h"

namespace qinfer::export_parquet {

using nlohmann::json;

namespace {

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

}  // namespace

Plan PlanOf(const TableShape& shape) {
  Plan plan;
  plan.columns = Columns(shape, plan);
  return plan;
}

}  // namespace qinfer::export_parquet
