// The Parquet export (qinfer/export_parquet/parquet_export.h): records made
// by the record writer (OutcomeToJson), written, and read back with Arrow's
// own Parquet reader: every column's type and every value.
#include "qinfer/export_parquet/parquet_export.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <parquet/arrow/reader.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "qinfer/core/outcome_json.h"
#include "qinfer/core/output_encoding.h"
#include "qinfer/core/stored_record.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::export_parquet {
namespace {

namespace fs = std::filesystem;

Outcome Result(std::string id, std::vector<float> output, std::string meta = "") {
  Outcome o;
  o.id = std::move(id);
  o.ok = true;
  o.output = std::move(output);
  o.device = "cpu";
  o.model_name = "m";
  o.model_digest = "sha256:d";
  o.input_length = 7;
  o.completed_at_ms = 1700000000123;
  o.meta_json = std::move(meta);
  return o;
}

Outcome Failure(std::string id, std::string meta = "") {
  Outcome o;
  o.id = std::move(id);
  o.reason = "too_long";
  o.error = "input has 900 tokens, \"max_tokens\" is 512";
  o.input_length = 900;
  o.attempt = 2;
  o.payload = "{\"id\":\"x\"}";
  o.origin = {"jobs", 1, 42, 0};
  o.meta_json = std::move(meta);
  return o;
}

Outcome Encoded(Outcome o, const char* encoding) {
  o.output_bytes = EncodeOutput(o.output, encoding, nullptr);
  o.encoding = encoding;
  o.output.clear();
  return o;
}

class ParquetExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("qinfer-parquet-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "out.parquet").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `records`: stored values (qinfer/core/stored_record.h), coded or JSON
  // text; any other text is passed as a record's text.
  absl::StatusOr<ParquetReport> Write(const std::vector<std::string>& records, ParquetOptions options = {}) {
    auto source = [&records](const std::function<bool(const StoredRecord&)>& visit) {
      std::string text;
      for (const std::string& r : records) {
        if (!visit(ReadStoredValue(r, text).value_or(StoredRecord::Text(r)))) break;
      }
      return absl::OkStatus();
    };
    return WriteParquet(source, path_, options);
  }

  // `outcomes` as the store keeps them (coded, a compact output's bytes
  // apart), or as their JSON text (`coded` false: a store written before
  // that).
  std::shared_ptr<arrow::Table> Export(const std::vector<Outcome>& outcomes, bool coded = true) {
    std::vector<std::string> records;
    for (const Outcome& o : outcomes) {
      std::string json = OutcomeToJson(o);
      records.push_back(coded ? StoredValue(json, o.output_bytes) : std::move(json));
    }
    auto report = Write(records);
    EXPECT_TRUE(report.ok()) << report.status();
    if (!report.ok()) return nullptr;
    EXPECT_EQ(report->rows, int64_t(outcomes.size()));
    return Read();
  }

  std::shared_ptr<arrow::Table> Read() {
    auto file = arrow::io::ReadableFile::Open(path_);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    auto reader = parquet::arrow::OpenFile(*file, arrow::default_memory_pool());
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    auto table = (*reader)->ReadTable();
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return (*table)->CombineChunks().ValueOrDie();
  }

  static std::vector<std::string> Names(const arrow::Table& t) { return t.schema()->field_names(); }
  static std::string Type(const arrow::Table& t, const std::string& column) {
    auto field = t.schema()->GetFieldByName(column);
    return field ? field->type()->ToString() : "(no column " + column + ")";
  }
  static std::shared_ptr<arrow::Scalar> At(const arrow::Table& t, const std::string& column, int64_t row) {
    auto c = t.GetColumnByName(column);
    if (!c) return nullptr;
    return c->GetScalar(row).ValueOrDie();
  }
  static std::string Str(const arrow::Table& t, const std::string& column, int64_t row) {
    auto s = At(t, column, row);
    if (!s) return "(no column)";
    if (!s->is_valid) return "(null)";
    return std::static_pointer_cast<arrow::StringScalar>(s)->value->ToString();
  }
  static std::vector<float> Floats(const std::shared_ptr<arrow::Scalar>& s) {
    std::vector<float> out;
    if (!s || !s->is_valid) return out;
    auto values = std::static_pointer_cast<arrow::FloatArray>(std::static_pointer_cast<arrow::ListScalar>(s)->value);
    for (int64_t i = 0; i < values->length(); ++i) out.push_back(values->Value(i));
    return out;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(ParquetExportTest, VectorsAndFailuresAreTypedColumnsWithTheStoredFloatsExactly) {
  const std::vector<float> v = {0.1f, -1.5e-7f, 3.4e38f, -0.0f, 1.0f};
  auto t = Export({Result("a", v), Failure("b"), Result("c\"quoted\\", {2.5f})});
  ASSERT_TRUE(t);
  EXPECT_EQ(Names(*t), (std::vector<std::string>{"id", "status", "output", "reason", "error", "input_length",
                                                 "completed_at_ms", "attempt", "model_name", "model_digest"}));
  EXPECT_EQ(Type(*t, "output"), "list<element: float>");
  EXPECT_EQ(Type(*t, "input_length"), "int64");
  EXPECT_EQ(Type(*t, "attempt"), "int32");
  EXPECT_FALSE(t->schema()->GetFieldByName("id")->nullable());
  EXPECT_EQ(Floats(At(*t, "output", 0)), v);
  EXPECT_EQ(Str(*t, "status", 0), "ok");
  EXPECT_EQ(Str(*t, "reason", 0), "(null)");
  EXPECT_EQ(Str(*t, "model_digest", 0), "sha256:d");
  EXPECT_EQ(At(*t, "completed_at_ms", 0)->ToString(), "1700000000123");
  EXPECT_FALSE(At(*t, "output", 1)->is_valid) << "a failure has no output";
  EXPECT_EQ(Str(*t, "status", 1), "failed");
  EXPECT_EQ(Str(*t, "reason", 1), "too_long");
  EXPECT_EQ(Str(*t, "error", 1), "input has 900 tokens, \"max_tokens\" is 512");
  EXPECT_EQ(At(*t, "attempt", 1)->ToString(), "2");
  EXPECT_EQ(At(*t, "input_length", 1)->ToString(), "900");
  EXPECT_EQ(Str(*t, "id", 2), "c\"quoted\\") << "an escaped string reads as what it stands for";
}

TEST_F(ParquetExportTest, MetaWithTheSameSimpleKeysEverywhereIsAColumnAKey) {
  auto t = Export({Result("a", {1}, R"({"id":"mine","n":1,"ok":true,"title":"One","w":null})"),
                   Failure("b", R"({"id":"theirs","n":2.5,"ok":false,"title":"Two","w":null})"),
                   Result("c", {1}, R"({"id":"x","n":3,"ok":null,"title":null,"w":null})")});
  ASSERT_TRUE(t);
  EXPECT_EQ(Type(*t, "meta_id"), "string") << "a key named like a record column gets meta_";
  EXPECT_EQ(Type(*t, "n"), "double") << "integers and floats: double";
  EXPECT_EQ(Type(*t, "ok"), "bool");
  EXPECT_EQ(Type(*t, "title"), "string");
  EXPECT_EQ(Type(*t, "w"), "string") << "only nulls: a string column of nulls";
  EXPECT_EQ(t->schema()->GetFieldByName("meta"), nullptr);
  EXPECT_EQ(Str(*t, "meta_id", 1), "theirs");
  EXPECT_EQ(Str(*t, "id", 1), "b");
  EXPECT_EQ(At(*t, "n", 1)->ToString(), "2.5");
  EXPECT_EQ(At(*t, "n", 2)->ToString(), "3");
  EXPECT_EQ(At(*t, "ok", 0)->ToString(), "true");
  EXPECT_FALSE(At(*t, "ok", 2)->is_valid);
  EXPECT_EQ(Str(*t, "title", 2), "(null)");

  auto ints = Export({Result("a", {1}, R"({"n":1})"), Result("b", {1}, R"({"n":-9007199254740993})")});
  ASSERT_TRUE(ints);
  EXPECT_EQ(Type(*ints, "n"), "int64");
  EXPECT_EQ(At(*ints, "n", 1)->ToString(), "-9007199254740993") << "an int64 kept exactly, not through a double";
}

TEST_F(ParquetExportTest, MetaThatDiffersIsOneJsonColumnHoldingItAsSent) {
  const std::string nested = R"({"a":{"b":["]","}","\"",{"c":"[{"}]},"t":"x"})";
  for (const auto& [second, why] : std::vector<std::pair<std::string, std::string>>{
           {nested, "a nested value"},
           {R"({"t":"y","u":1})", "another key"},
           {R"({"t":1})", "another type"},
           {"", "a record without meta"}}) {
    auto t = Export({Result("a", {1}, R"({"t":"x"})"), Result("b", {1}, second)});
    ASSERT_TRUE(t) << why;
    EXPECT_EQ(Type(*t, "meta"), "string") << why;
    EXPECT_EQ(t->schema()->GetFieldByName("t"), nullptr) << why;
    EXPECT_EQ(Str(*t, "meta", 0), R"({"t":"x"})") << why;
    EXPECT_EQ(Str(*t, "meta", 1), second.empty() ? "(null)" : second) << why << ": byte for byte as sent";
  }
}

TEST_F(ParquetExportTest, CompactEncodingsAreFloatsForBase64AndBytesForThePackedOnes) {
  const std::vector<float> v = {0.25f, -1.0f, 0.0f, 3.0f, -0.5f, 2.0f, 1.0f, -7.0f, 0.125f};
  auto t = Export({Encoded(Result("a", v), encoding::kBase64), Result("b", v)});
  ASSERT_TRUE(t);
  EXPECT_EQ(Type(*t, "output"), "list<element: float>");
  EXPECT_EQ(Floats(At(*t, "output", 0)), v) << "base64's float32 values, exactly";
  EXPECT_EQ(Str(*t, "encoding", 0), "base64");
  EXPECT_EQ(Str(*t, "encoding", 1), "(null)");

  auto packed = Export({Encoded(Result("a", v), encoding::kUbinary), Encoded(Result("b", v), encoding::kBinary)});
  ASSERT_TRUE(packed);
  EXPECT_EQ(Type(*packed, "output"), "binary");
  auto bytes = std::static_pointer_cast<arrow::BinaryScalar>(At(*packed, "output", 0));
  EXPECT_EQ(bytes->value->ToString(), EncodeOutput(v, encoding::kUbinary, nullptr));
  EXPECT_EQ(Str(*packed, "encoding", 1), "binary");

  auto mixed = Export({Encoded(Result("a", v), encoding::kUbinary), Result("b", v), Failure("c")});
  ASSERT_TRUE(mixed);
  EXPECT_EQ(Type(*mixed, "output"), "list<element: float>") << "floats keep `output`";
  EXPECT_EQ(Type(*mixed, "output_packed"), "binary");
  EXPECT_FALSE(At(*mixed, "output", 0)->is_valid);
  EXPECT_TRUE(At(*mixed, "output_packed", 0)->is_valid);
  EXPECT_EQ(Floats(At(*mixed, "output", 1)), v);
  EXPECT_FALSE(At(*mixed, "output_packed", 1)->is_valid);
}

TEST_F(ParquetExportTest, ACodedStoredRecordExportsAsItsTextDoes) {
  const std::vector<float> v = {0.25f, -1.0f, 0.0f, 3.0f, -0.5f, 2.0f, 1.0f, -7.0f, 0.125f};
  Outcome rows = Encoded(Result("r", {1, 2, 3, 4, 5, 6}), encoding::kBase64);
  rows.output_rows = 3;
  const std::vector<Outcome> outcomes = {Encoded(Result("a", v), encoding::kBase64),
                                         Encoded(Result("b", v), encoding::kUbinary),
                                         Encoded(Result("c", v), encoding::kBinary), rows, Result("d", v),
                                         Failure("f")};
  auto as_text = Export(outcomes, /*coded=*/false);
  auto coded = Export(outcomes);
  ASSERT_TRUE(as_text && coded);
  EXPECT_TRUE(coded->Equals(*as_text)) << coded->ToString() << "\n" << as_text->ToString();
  EXPECT_EQ(Floats(At(*coded, "output", 0)), v);
}

TEST_F(ParquetExportTest, SparseAndPerTokenOutputsAreNestedColumns) {
  Outcome sparse = Result("s", {0.5f, 1.25f});
  sparse.sparse_indices = std::vector<int32_t>{3, 1017};
  auto t = Export({sparse});
  ASSERT_TRUE(t);
  EXPECT_EQ(Type(*t, "output"), "struct<indices: list<element: int32>, values: list<element: float>>");
  auto s = std::static_pointer_cast<arrow::StructScalar>(At(*t, "output", 0));
  EXPECT_EQ(s->field("indices").ValueOrDie()->ToString(), "list<element: int32>[3, 1017]");
  EXPECT_EQ(Floats(s->field("values").ValueOrDie()), (std::vector<float>{0.5f, 1.25f}));

  Outcome rows = Result("r", {1, 2, 3, 4, 5, 6});
  rows.output_rows = 3;
  Outcome rows_base64 = Encoded(rows, encoding::kBase64);
  rows_base64.id = "r64";
  rows_base64.output_rows = 3;
  auto tokens = Export({rows, rows_base64});
  ASSERT_TRUE(tokens);
  EXPECT_EQ(Type(*tokens, "output"), "list<element: list<element: float>>");
  for (int64_t row : {0, 1}) {
    EXPECT_EQ(At(*tokens, "output", row)->ToString(), "list<element: list<element: float>>[list<element: float>[1, 2], list<element: float>[3, 4], "
              "list<element: float>[5, 6]]") << row;
  }
}

// Each vector form's floats (a vector, a sparse one's values, a vector a
// token) are written plain and uncompressed, without statistics, whatever
// path Parquet gives them; other float columns (classify's scores) are not.
TEST_F(ParquetExportTest, EveryVectorFormsFloatsArePlainAndUncompressed) {
  Outcome sparse = Result("s", {0.5f, 1.25f});
  sparse.sparse_indices = std::vector<int32_t>{3, 1017};
  Outcome rows = Result("r", {1, 2, 3, 4, 5, 6});
  rows.output_rows = 3;
  Outcome classify = Result("c", {1.5f, -2.0f});
  classify.label = "pos";
  classify.scores = {{"pos", 0.75f}, {"neg", 0.25f}};
  for (const std::vector<Outcome>& records : {std::vector<Outcome>{Result("v", {1, 2})}, std::vector<Outcome>{sparse},
                                              std::vector<Outcome>{rows}, std::vector<Outcome>{classify}}) {
    ASSERT_TRUE(Export(records));
    auto reader = parquet::arrow::OpenFile(arrow::io::ReadableFile::Open(path_).ValueOrDie(),
                                           arrow::default_memory_pool());
    ASSERT_TRUE(reader.ok());
    auto group = (*reader)->parquet_reader()->metadata()->RowGroup(0);
    int vector_floats = 0, other_floats = 0;
    for (int i = 0; i < group->num_columns(); ++i) {
      auto chunk = group->ColumnChunk(i);
      if (chunk->type() != parquet::Type::FLOAT) continue;
      const std::string path = chunk->path_in_schema()->ToDotString();
      if (path.rfind("output.", 0) == 0) {
        ++vector_floats;
        EXPECT_EQ(chunk->compression(), parquet::Compression::UNCOMPRESSED) << path;
        EXPECT_FALSE(chunk->has_dictionary_page()) << path;
        EXPECT_FALSE(chunk->is_stats_set()) << path;
      } else {
        ++other_floats;
        EXPECT_EQ(chunk->compression(), parquet::Compression::SNAPPY) << path;
      }
    }
    EXPECT_EQ(vector_floats, 1) << records[0].id;
    EXPECT_EQ(other_floats, records[0].id == "c" ? 1 : 0) << records[0].id;
  }
}

TEST_F(ParquetExportTest, ClassifyRerankAndTokensFieldsAreTheirOwnColumns) {
  Outcome classify = Result("c", {1.5f, -2.0f});
  classify.label = "pos";
  classify.scores = {{"pos", 0.75f}, {"neg", 0.25f}};
  Outcome rerank = Result("r", {3.0f});
  rerank.score = 0.875f;
  Outcome tokens = Result("t", {});
  tokens.entities = std::vector<Entity>{{"LOC", "Paris", 10, 15, 0.5f}};
  tokens.tokens = std::vector<TokenLabel>{{"paris", 10, 15, "B-LOC", 0.5f}};
  tokens.policy = "chunk";
  tokens.windows = 3;
  tokens.original_length = 900;
  auto t = Export({classify, rerank, tokens});
  ASSERT_TRUE(t);
  EXPECT_EQ(Type(*t, "scores"), "list<element: struct<label: string, score: float>>");
  EXPECT_EQ(Type(*t, "score"), "float");
  EXPECT_EQ(Type(*t, "entities"),
            "list<element: struct<end: int32, label: string, score: float, start: int32, text: string>>");
  EXPECT_EQ(Type(*t, "tokens"),
            "list<element: struct<end: int32, label: string, score: float, start: int32, token: string>>");
  EXPECT_EQ(Str(*t, "label", 0), "pos");
  EXPECT_EQ(At(*t, "scores", 0)->ToString(), "list<element: struct<label: string, score: float>>[{label:string = pos, score:float = 0.75}, "
            "{label:string = neg, score:float = 0.25}]");
  EXPECT_FALSE(At(*t, "scores", 1)->is_valid);
  EXPECT_EQ(At(*t, "score", 1)->ToString(), "0.875");
  EXPECT_EQ(At(*t, "entities", 2)->ToString(), "list<element: struct<end: int32, label: string, score: float, start: int32, text: string>>[{end:int32 = "
            "15, label:string = LOC, score:float = 0.5, start:int32 = 10, text:string = Paris}]");
  EXPECT_EQ(At(*t, "tokens", 2)->ToString(), "list<element: struct<end: int32, label: string, score: float, start: int32, token: string>>[{end:int32 = "
            "15, label:string = B-LOC, score:float = 0.5, start:int32 = 10, token:string = paris}]");
  EXPECT_EQ(Str(*t, "policy", 2), "chunk");
  EXPECT_EQ(At(*t, "windows", 2)->ToString(), "3");
  EXPECT_FALSE(At(*t, "windows", 0)->is_valid);
  EXPECT_EQ(At(*t, "original_length", 2)->ToString(), "900");
}

TEST_F(ParquetExportTest, RowGroupsHoldTheRowsInOrderAndFloatsArePlainAndUncompressed) {
  std::vector<std::string> records;
  for (int i = 0; i < 10; ++i) records.push_back(OutcomeToJson(Result("id-" + std::to_string(i), {float(i)})));
  ParquetOptions options;
  options.row_group_rows = 4;
  std::vector<int64_t> progress;
  options.progress_every = 5;
  options.progress = [&progress](int64_t rows) { progress.push_back(rows); };
  auto report = Write(records, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(progress, (std::vector<int64_t>{5, 10}));
  auto reader = parquet::arrow::OpenFile(arrow::io::ReadableFile::Open(path_).ValueOrDie(),
                                         arrow::default_memory_pool());
  ASSERT_TRUE(reader.ok());
  auto metadata = (*reader)->parquet_reader()->metadata();
  EXPECT_EQ(metadata->num_row_groups(), 3);
  auto output = metadata->RowGroup(0)->ColumnChunk(2);
  EXPECT_EQ(output->path_in_schema()->ToDotString(), "output.list.element");
  EXPECT_EQ(output->compression(), parquet::Compression::UNCOMPRESSED);
  EXPECT_FALSE(output->has_dictionary_page());
  EXPECT_EQ(metadata->RowGroup(0)->ColumnChunk(0)->compression(), parquet::Compression::SNAPPY);
  auto t = Read();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(Str(*t, "id", i), "id-" + std::to_string(i));
}

// Row groups of MiniLM-sized vectors: every buffer past the pool's 1 MiB
// line, so each row group after the first reuses the last one's blocks.
TEST_F(ParquetExportTest, RowGroupsOfLargeBuffersReuseBlocksAndKeepEveryFloat) {
  constexpr int kRecords = 2500, kDim = 384;
  auto value = [](int i, int j) { return float(i) + float(j) / 1024.0f; };
  std::vector<std::string> records;
  for (int i = 0; i < kRecords; ++i) {
    std::vector<float> v(kDim);
    for (int j = 0; j < kDim; ++j) v[j] = value(i, j);
    records.push_back(OutcomeToJson(Encoded(Result("id-" + std::to_string(i), v), "base64")));
  }
  ParquetOptions options;
  options.row_group_rows = 1000;  // 1.5 MB of floats a row group
  auto report = Write(records, options);
  ASSERT_TRUE(report.ok()) << report.status();
  auto t = Read();
  auto column = std::static_pointer_cast<arrow::ListArray>(t->GetColumnByName("output")->chunk(0));
  auto floats = std::static_pointer_cast<arrow::FloatArray>(column->values());
  ASSERT_EQ(column->length(), kRecords);
  for (int i = 0; i < kRecords; ++i) {
    ASSERT_EQ(column->value_length(i), kDim) << i;
    for (int j = 0; j < kDim; ++j) ASSERT_EQ(floats->Value(column->value_offset(i) + j), value(i, j)) << i << "," << j;
  }
}

TEST_F(ParquetExportTest, ARecordItCannotReadIsNamedAndNoFileIsLeft) {
  const std::string good = OutcomeToJson(Result("a", {1}));
  std::string unknown = good;
  unknown.insert(unknown.size() - 1, R"(,"zz_new":1)");
  std::string bad_output = OutcomeToJson(Result("b", {1}));
  bad_output.replace(bad_output.find("[1.0]"), 5, "[1.0,x]");
  // Members before "id" in the record's order: the id is named all the same.
  std::string unknown_first = good;
  unknown_first.insert(1, R"("aa_new":1,)");
  std::string bad_time = OutcomeToJson(Result("c", {1}));
  bad_time.replace(bad_time.find("1700000000123"), 13, "\"x\"");
  for (const auto& [record, error] : std::vector<std::pair<std::string, std::string>>{
           {unknown, "record a: member `zz_new` is not one a record holds"},
           {unknown_first, "record a: member `aa_new` is not one a record holds"},
           {bad_time, "record c: cannot read `completed_at_ms`"},
           {bad_output, "record b: cannot read `output`"},
           {"[1]", "record : cannot read `(the record is not a JSON object)`"}}) {
    auto report = Write({good, record});
    ASSERT_FALSE(report.ok()) << record;
    EXPECT_EQ(report.status().message(), error);
    EXPECT_FALSE(fs::exists(path_));
    EXPECT_FALSE(fs::exists(path_ + ".partial"));
  }
  auto failing = WriteParquet([](const auto&) { return absl::UnavailableError("store read failed"); }, path_);
  EXPECT_EQ(failing.status().message(), "store read failed");
  EXPECT_FALSE(fs::exists(path_));
}

// One pass where the store's first records (4,096) tell its shape; where a
// later record does not fit it, two, and the same table as if the first
// records had said so.
TEST_F(ParquetExportTest, ALateRecordOfAnotherShapeTakesTwoPassesAndTheTableHoldsIt) {
  auto many = [](const std::string& meta) {
    std::vector<std::string> records;
    for (int i = 0; i < 5000; ++i) {
      records.push_back(OutcomeToJson(Result("id-" + std::to_string(10000 + i), {float(i)},
                                             meta.empty() ? "" : "{\"k\":" + meta + "}")));
    }
    return records;
  };
  auto records = many("1");
  auto report = Write(records);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->passes, 1);
  EXPECT_EQ(report->rows, 5000);
  EXPECT_EQ(Type(*Read(), "k"), "int64");

  Outcome failure = Failure("late-failure", R"({"k":2})");
  Outcome packed = Encoded(Result("late-packed", {1, -1}, R"({"k":2})"), encoding::kUbinary);
  Outcome labelled = Result("late-label", {1}, R"({"k":2})");
  labelled.label = "pos";
  struct Late {
    std::string record, why, column, type;
  };
  for (const Late& late : std::vector<Late>{
           {OutcomeToJson(Result("late", {1}, R"({"k":2.5})")), "a double in an int64 column", "k", "double"},
           {OutcomeToJson(Result("late", {1}, R"({"k":2,"j":1})")), "another key", "meta", "string"},
           {OutcomeToJson(Result("late", {1})), "no meta", "meta", "string"},
           {OutcomeToJson(packed), "another output form", "output_packed", "binary"},
           {OutcomeToJson(labelled), "a member the first records lack", "label", "string"}}) {
    records = many("1");
    records.push_back(late.record);
    report = Write(records);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->passes, 2) << late.why;
    EXPECT_EQ(report->rows, 5001) << late.why;
    auto t = Read();
    EXPECT_EQ(t->num_rows(), 5001);
    EXPECT_EQ(Type(*t, late.column), late.type) << late.why;
  }
  records = many("null");
  records.push_back(OutcomeToJson(Result("late", {1}, R"({"k":"x"})")));
  report = Write(records);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->passes, 2) << "a key null in every first record takes any type after";
  EXPECT_EQ(Str(*Read(), "k", 5000), "x");
  records = many("2.5");
  records.push_back(OutcomeToJson(failure));
  report = Write(records);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->passes, 1) << "an integer fits a double column; a failure fits any table";
  EXPECT_EQ(Str(*Read(), "reason", 5000), "too_long");
}

// A record after the store's first 4,096 that holds a member none of them
// has: the table gains its column (two passes), and the record's value is
// in it, whichever member it is.
TEST_F(ParquetExportTest, EveryMemberTheFirstRecordsLackIsExportedFromALateRecord) {
  std::vector<std::string> first;
  for (int i = 0; i < 4096; ++i) first.push_back(OutcomeToJson(Result("id-" + std::to_string(10000 + i), {1})));
  auto late = [] { return Result("late", {2}); };
  struct Late {
    Outcome outcome;
    std::string column, value;
  };
  std::vector<Late> cases;
  cases.push_back({late(), "policy", "truncate"});
  cases.back().outcome.policy = "truncate";
  cases.push_back({late(), "windows", "3"});
  cases.back().outcome.windows = 3;
  cases.push_back({late(), "original_length", "900"});
  cases.back().outcome.original_length = 900;
  cases.push_back({late(), "label", "pos"});
  cases.back().outcome.label = "pos";
  cases.push_back({late(), "scores", "{label:string = pos, score:float = 0.75}"});
  cases.back().outcome.scores = {{"pos", 0.75f}};
  cases.push_back({late(), "score", "0.875"});
  cases.back().outcome.score = 0.875f;
  cases.push_back({late(), "entities", "text:string = Paris}"});
  cases.back().outcome.entities = std::vector<Entity>{{"LOC", "Paris", 10, 15, 0.5f}};
  cases.push_back({late(), "tokens", "token:string = paris}"});
  cases.back().outcome.tokens = std::vector<TokenLabel>{{"paris", 10, 15, "B-LOC", 0.5f}};
  cases.push_back({Encoded(late(), encoding::kBase64), "encoding", "base64"});
  cases.push_back({late(), "meta", R"({"title":"x"})"});
  cases.back().outcome.meta_json = R"({"title":"x"})";
  // Every record with meta {"n":1} (a column), the late one with a key more:
  // meta is one JSON column.
  std::vector<std::string> with_meta;
  for (int i = 0; i < 4096; ++i) {
    with_meta.push_back(OutcomeToJson(Result("id-" + std::to_string(10000 + i), {1}, R"({"n":1})")));
  }
  cases.push_back({late(), "meta", R"({"n":1,"title":"x"})"});
  cases.back().outcome.meta_json = R"({"n":1,"title":"x"})";
  for (Late& c : cases) {
    const bool meta_first = c.outcome.meta_json.starts_with(R"({"n")");
    std::vector<std::string> records = meta_first ? with_meta : first;
    records.push_back(StoredValue(OutcomeToJson(c.outcome), c.outcome.output_bytes));
    auto report = Write(records);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->passes, 2) << c.column;
    EXPECT_EQ(report->rows, 4097) << c.column;
    auto t = Read();
    auto value = At(*t, c.column, 4096);
    ASSERT_TRUE(value && value->is_valid) << c.column << ": no column, or null: " << Names(*t).size() << " columns";
    const std::string got = value->type->id() == arrow::Type::STRING ? Str(*t, c.column, 4096) : value->ToString();
    EXPECT_NE(got.find(c.value), std::string::npos) << c.column << ": " << got;
    if (meta_first) {
      EXPECT_EQ(Str(*t, "meta", 0), R"({"n":1})");
    } else {
      EXPECT_FALSE(At(*t, c.column, 0)->is_valid) << c.column << ": null in the records without it";
    }
    EXPECT_EQ(Floats(At(*t, "output", 4096)), std::vector<float>{2}) << c.column;
  }
  // The 4,096th record is one of the first: it plans the table, in one pass.
  std::vector<std::string> records(first.begin(), first.end() - 1);
  records.push_back(OutcomeToJson(cases[0].outcome));
  auto report = Write(records);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->passes, 1);
  EXPECT_EQ(Str(*Read(), "policy", 4095), "truncate");
}

// Every kind of record a store holds, exported from a real store as
// `results --export` reads it (ForEachStored: the final records): a result
// whose reply was undeliverable, a replay's result that superseded its
// too_long failure, a chunked result, a too_long failure, a failure whose
// dead letter was undeliverable.
TEST_F(ParquetExportTest, EveryKindOfStoredRecordExportsFromTheStore) {
  Outcome failed = Failure("replayed");
  failed.attempt = 0;
  Outcome replayed = Result("replayed", {1, 2});
  replayed.attempt = 1;
  replayed.replay_of = failed.origin;
  replayed.policy = "truncate";
  replayed.original_length = 900;
  replayed.input_length = 512;
  Outcome undelivered = Result("undelivered", {3, 4});
  undelivered.reply_to = "replies";
  undelivered.delivery_error = "Broker: Message size too large";
  Outcome chunked = Result("chunked", {5, 6});
  chunked.policy = "chunk";
  chunked.windows = 3;
  chunked.original_length = 1400;
  Outcome dead_letter = Failure("dead-letter");
  dead_letter.delivery_error = "Broker: Unknown topic or partition";
  {
    auto store = storage::RocksDbOutcomeStore::Open((dir_ / "store").string());
    ASSERT_TRUE(store.ok()) << store.status();
    const std::vector<Outcome> first = {failed, undelivered, chunked, Failure("too-long"), dead_letter};
    ASSERT_TRUE((*store)->Put(first).ok());
    ASSERT_TRUE((*store)->Put(std::vector<Outcome>{replayed}).ok());
    ASSERT_EQ((*store)->CountSuperseded().value(), 1u);
    auto report = WriteParquet(
        [&](const std::function<bool(const StoredRecord&)>& visit) {
          return (*store)->ForEachStored(storage::RocksDbOutcomeStore::Kind::kAll, visit);
        },
        path_);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->rows, 5) << "the final records";
  }
  auto t = Read();
  std::map<std::string, int64_t> row;
  for (int64_t i = 0; i < t->num_rows(); ++i) row[Str(*t, "id", i)] = i;
  ASSERT_EQ(row.size(), 5u);
  EXPECT_EQ(Str(*t, "status", row["replayed"]), "ok");
  EXPECT_EQ(At(*t, "attempt", row["replayed"])->ToString(), "1");
  EXPECT_EQ(Str(*t, "policy", row["replayed"]), "truncate");
  EXPECT_EQ(At(*t, "original_length", row["replayed"])->ToString(), "900");
  EXPECT_EQ(At(*t, "input_length", row["replayed"])->ToString(), "512");
  EXPECT_EQ(Floats(At(*t, "output", row["replayed"])), (std::vector<float>{1, 2}));
  EXPECT_EQ(Floats(At(*t, "output", row["undelivered"])), (std::vector<float>{3, 4}));
  EXPECT_EQ(Str(*t, "policy", row["chunked"]), "chunk");
  EXPECT_EQ(At(*t, "windows", row["chunked"])->ToString(), "3");
  EXPECT_EQ(At(*t, "original_length", row["chunked"])->ToString(), "1400");
  for (const char* id : {"too-long", "dead-letter"}) {
    EXPECT_EQ(Str(*t, "status", row[id]), "failed") << id;
    EXPECT_EQ(Str(*t, "reason", row[id]), "too_long") << id;
    EXPECT_EQ(Str(*t, "error", row[id]), "input has 900 tokens, \"max_tokens\" is 512") << id;
    EXPECT_EQ(At(*t, "attempt", row[id])->ToString(), "2") << id;
  }
}

TEST_F(ParquetExportTest, AnEmptyStoreIsAFileOfNoRows) {
  auto t = Export({});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->num_rows(), 0);
  EXPECT_EQ(Names(*t).front(), "id");
}

// libparquet carries an OpenSSL of its own, its symbols exported; a binary
// that loads it before Debian's libcrypto binds librdkafka's and its own
// OpenSSL calls to that copy (rdkafka's SSL then crashes). cmake/Arrow.cmake
// makes libcrypto.so.3 the first library needed: checked here.
TEST(ParquetLinking, OpenSslCallsBindToTheSystemLibcrypto) {
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&EVP_sha256), &info), 0);
  ASSERT_NE(info.dli_fname, nullptr);
  EXPECT_NE(std::string(info.dli_fname).find("libcrypto.so.3"), std::string::npos) << info.dli_fname;
  unsigned char digest[32];
  unsigned int size = 0;
  EXPECT_EQ(EVP_Digest("abc", 3, digest, &size, EVP_sha256(), nullptr), 1);
  EXPECT_EQ(size, 32u);
}

}  // namespace
}  // namespace qinfer::export_parquet
