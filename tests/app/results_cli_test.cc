// `qinfer results` through the real binary on a real store (RocksDB, written
// here as the service writes it): what its outputs promise, value by value.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "qinfer/core/outcome_json.h"
#include "qinfer/core/output_encoding.h"
#include "qinfer/storage/rocksdb_outcome_store.h"
#include "util/run_command.h"

namespace qinfer::app {
namespace {

using nlohmann::json;

class ResultsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (std::filesystem::temp_directory_path() / "qinfer-results-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    store_ = (dir_ / "store").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Store(const std::vector<Outcome>& outcomes) {
    auto store = storage::RocksDbOutcomeStore::Open(store_);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Put(outcomes).ok());
  }

  // `qinfer results --store STORE args`: its standard output; the test
  // fails on an exit status other than 0.
  std::string Results(const std::string& args) {
    auto [rc, out] = qinfer::testing::RunCommand(std::string(QINFER_BINARY) + " --log-level warn results --store " +
                                                 store_ + " " + args);
    EXPECT_EQ(rc, 0) << out;
    return out;
  }

  std::filesystem::path dir_;
  std::string store_;
};

Outcome Encoded(std::string id, const std::vector<float>& v, const char* encoding) {
  Outcome o;
  o.id = std::move(id);
  o.ok = true;
  o.model_name = "m";
  o.completed_at_ms = 1765000000000;
  o.output_bytes = EncodeOutput(v, encoding, nullptr);
  o.encoding = encoding;
  return o;
}

// --decode writes a packed output as the integers its encoding stands for:
// binary's as sentence-transformers' quantize_embeddings(x, "binary") gives
// them, int8 (packbits(x > 0) - 128, so a byte whose first bit is set is
// 0 or more, one whose first bit is clear is negative), ubinary's as uint8
// (packbits(x > 0)); from --export and from --id alike.
TEST_F(ResultsCliTest, DecodeWritesBinaryAsTheSignedValuesQuantizeEmbeddingsGives) {
  // Four bytes of eight signs each: none above 0, all but the first, only
  // the first, all.
  std::vector<float> v;
  for (int byte = 0; byte < 4; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      const bool positive = byte == 3 || (byte == 1 && bit > 0) || (byte == 2 && bit == 0);
      v.push_back(positive ? 0.5f + float(bit) : -0.25f - float(bit));
    }
  }
  Store({Encoded("b", v, encoding::kBinary), Encoded("u", v, encoding::kUbinary)});
  std::map<std::string, json> decoded;
  std::istringstream lines(Results("--export - --decode"));
  for (std::string line; std::getline(lines, line);) {
    json record = json::parse(line);
    decoded[record["id"]] = record;
  }
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_EQ(decoded["b"]["output"], json::parse("[-128,-1,0,127]")) << "packbits: 0, 127, 128, 255; minus 128";
  EXPECT_EQ(decoded["b"]["encoding"], "binary");
  EXPECT_EQ(decoded["u"]["output"], json::parse("[0,127,128,255]"));
  EXPECT_EQ(json::parse(Results("--id b --decode"))["output"], decoded["b"]["output"]);
}

}  // namespace
}  // namespace qinfer::app
