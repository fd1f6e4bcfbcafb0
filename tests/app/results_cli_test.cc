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

// A result whose output is `bytes` in `encoding`.
Outcome Packed(std::string id, std::string bytes, const char* encoding) {
  Outcome o;
  o.id = std::move(id);
  o.ok = true;
  o.model_name = "m";
  o.completed_at_ms = 1765000000000;
  o.output_bytes = std::move(bytes);
  o.encoding = encoding;
  return o;
}

// `v` encoded as the service encodes it (binary, ubinary: no ranges).
Outcome Encoded(std::string id, const std::vector<float>& v, const char* encoding) {
  return Packed(std::move(id), EncodeOutput(v, encoding, nullptr), encoding);
}

// --decode writes a packed output as the integers its encoding stands for:
// binary's as sentence-transformers' quantize_embeddings(x, "binary") gives
// them, int8 (packbits(x > 0) - 128, so a byte whose first bit is set is
// 0 or more, one whose first bit is clear is negative), ubinary's as uint8
// (packbits(x > 0)); int8 and uint8 as their bytes read signed and
// unsigned; from --export and from --id alike.
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
  // int8 and uint8 at their ends, and a packed output of no bytes.
  const std::string ends("\x80\x7f\xff\x00", 4);
  Store({Encoded("b", v, encoding::kBinary), Encoded("u", v, encoding::kUbinary), Packed("i", ends, encoding::kInt8),
         Packed("j", ends, encoding::kUint8), Packed("none", "", encoding::kBinary)});
  std::map<std::string, json> decoded;
  std::istringstream lines(Results("--export - --decode"));
  for (std::string line; std::getline(lines, line);) {
    json record = json::parse(line);
    decoded[record["id"]] = record;
  }
  ASSERT_EQ(decoded.size(), 5u);
  EXPECT_EQ(decoded["b"]["output"], json::parse("[-128,-1,0,127]")) << "packbits: 0, 127, 128, 255; minus 128";
  EXPECT_EQ(decoded["b"]["encoding"], "binary");
  EXPECT_EQ(decoded["u"]["output"], json::parse("[0,127,128,255]"));
  EXPECT_EQ(decoded["i"]["output"], json::parse("[-128,127,-1,0]"));
  EXPECT_EQ(decoded["j"]["output"], json::parse("[128,127,255,0]"));
  EXPECT_EQ(decoded["none"]["output"], json::parse("[]"));
  EXPECT_EQ(json::parse(Results("--id b --decode"))["output"], decoded["b"]["output"]);
}

}  // namespace
}  // namespace qinfer::app
