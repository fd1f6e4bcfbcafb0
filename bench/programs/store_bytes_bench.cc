// What a store of records costs on disk: the result store `qinfer serve`
// wrote, opened directly (every column family, as RocksDB requires), its
// `results` column family measured as it holds them: each value's bytes
// (the record's coded text, a compact output kept apart as its bytes:
// qinfer/core/stored_record.h), then the table files after a flush and a
// full compaction with the store's block compression (it sets none of its
// own: RocksDB's default, Snappy where the library has it).
//
//   build/bench/store_bytes_bench --store DIR [--out FILE.json]
//
// JSON: {records, value_bytes_per_record, sst_bytes_per_record (keys, index
// and filter included), compression}. The compaction rewrites the store's
// files: run it on a store made for the benchmark.
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table_properties.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
  CLI::App app("store_bytes_bench: value and table-file bytes per result of a store");
  std::string dir, out;
  app.add_option("--store", dir, "a result store (qinfer serve's store.path)")->required();
  app.add_option("--out", out, "write the JSON here too");

  CLI11_PARSE(app, argc, argv);
  auto fail = [](const std::string& what) {
    std::cerr << "store_bytes_bench: " << what << "\n";
    return 2;
  };
  rocksdb::DBOptions options;
  std::vector<std::string> names;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(options, dir, &names);
  if (!s.ok()) return fail(s.ToString());
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const std::string& name : names) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(options, dir, families, &handles, &raw);
  if (!s.ok()) return fail(s.ToString());
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::ColumnFamilyHandle* results = nullptr;
  for (rocksdb::ColumnFamilyHandle* h : handles) {
    if (h->GetName() == "results") results = h;
  }
  if (results == nullptr) return fail(dir + " has no results column family");
  uint64_t records = 0, value_bytes = 0;
  {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), results));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ++records;
      value_bytes += it->value().size();
    }
    s = it->status();
  }
  if (s.ok()) s = db->Flush(rocksdb::FlushOptions(), results);
  if (s.ok()) s = db->CompactRange(rocksdb::CompactRangeOptions(), results, nullptr, nullptr);
  uint64_t sst_bytes = 0;
  if (s.ok() && !db->GetIntProperty(results, rocksdb::DB::Properties::kTotalSstFilesSize, &sst_bytes)) {
    s = rocksdb::Status::NotFound("total-sst-files-size");
  }
  std::string compression;
  rocksdb::TablePropertiesCollection tables;
  if (s.ok() && db->GetPropertiesOfAllTables(results, &tables).ok()) {
    for (const auto& [file, props] : tables) compression = props->compression_name;
  }
  for (rocksdb::ColumnFamilyHandle* h : handles) db->DestroyColumnFamilyHandle(h);
  if (!s.ok() || records == 0) return fail(s.ok() ? "no results in " + dir : s.ToString());
  const nlohmann::json result = {{"records", records},
                                 {"value_bytes_per_record", double(value_bytes) / double(records)},
                                 {"sst_bytes_per_record", double(sst_bytes) / double(records)},
                                 {"compression", compression}};
  std::cout << result.dump() << "\n";
  if (!out.empty()) std::ofstream(out) << result.dump(2) << "\n";
  return 0;
}
