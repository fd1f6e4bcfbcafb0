// A result store of N MiniLM-shaped records, to time `qinfer results
// --export` on (bench/export/run.sh): each a result as a served MiniLM
// job's (OutcomeToJson: 384 float32 values drawn from N(0, 1/sqrt(384)),
// the spread of a normalized MiniLM vector, in their shortest form; a
// model name and digest, timings, a bucket, meta {"n": i, "source":
// "bench"}), or base64 with --encoding base64, written through the store's
// own Put in batches of 1,000.
//
//   build/bench/fill_store_bench --store DIR --records 1000000 [--encoding base64] [--dim 384]
#include <CLI/CLI.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <random>

#include "qinfer/core/outcome_json.h"
#include "qinfer/core/output_encoding.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

int main(int argc, char** argv) {
  CLI::App app("fill_store_bench: a result store of N MiniLM-shaped records");
  std::string store_dir, encoding;
  int64_t records = 0;
  int dim = 384;
  app.add_option("--store", store_dir, "the store directory (must not exist)")->required();
  app.add_option("--records", records, "how many")->required()->check(CLI::PositiveNumber);
  app.add_option("--encoding", encoding, "base64: the vectors as base64 (default: JSON numbers)")
      ->check(CLI::IsMember({"", "base64"}));
  app.add_option("--dim", dim, "values a vector")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  if (std::filesystem::exists(store_dir)) {
    std::cerr << "fill_store_bench: " << store_dir << " exists\n";
    return 2;
  }
  auto store = qinfer::storage::RocksDbOutcomeStore::Open(store_dir);
  if (!store.ok()) {
    std::cerr << "fill_store_bench: " << store.status() << "\n";
    return 2;
  }
  std::mt19937 rng(42);
  std::normal_distribution<float> value(0.0f, 1.0f / std::sqrt(float(dim)));
  std::vector<qinfer::Outcome> batch;
  std::vector<std::string> json;
  uint64_t bytes = 0;
  for (int64_t i = 0; i < records; ++i) {
    qinfer::Outcome o;
    char id[32];
    std::snprintf(id, sizeof(id), "doc-%09lld", static_cast<long long>(i));
    o.id = id;
    o.ok = true;
    o.output.resize(size_t(dim));
    for (float& v : o.output) v = value(rng);
    if (!encoding.empty()) {
      o.output_bytes = qinfer::EncodeOutput(o.output, encoding, nullptr);
      o.encoding = encoding;
      o.output.clear();
    }
    o.device = "cpu";
    o.bucket = 64;
    o.batch_size = 32;
    o.padded_length = 64;
    o.input_length = 20 + i % 44;
    o.model_name = "all-MiniLM-L6-v2";
    o.model_digest = "sha256:4d09a6e4cf32cdb69e85c392b22c8f22bc20d74e1fc8b4580719daa0da7c7426";
    o.queue_seconds = 0.0123;
    o.run_seconds = 0.0456;
    o.completed_at_ms = 1796430324140 + i;
    o.meta_json = "{\"n\":" + std::to_string(i) + ",\"source\":\"bench\"}";
    json.push_back(qinfer::OutcomeToJson(o));
    bytes += json.back().size();
    batch.push_back(std::move(o));
    if (batch.size() == 1000 || i + 1 == records) {
      if (absl::Status s = (*store)->Put(batch, json); !s.ok()) {
        std::cerr << "fill_store_bench: " << s << "\n";
        return 1;
      }
      batch.clear();
      json.clear();
    }
  }
  std::cout << "{\"records\": " << records << ", \"record_bytes\": " << double(bytes) / double(records) << "}\n";
  return 0;
}
