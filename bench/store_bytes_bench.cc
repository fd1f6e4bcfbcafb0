// What a store of records costs on disk: the records of an export (one JSON
// record a line, as `qinfer results --export` writes them), written under
// their ids into a fresh RocksDB with the block compression the result store
// uses (it sets none of its own: RocksDB's default, Snappy where the library
// has it), flushed and compacted into one level, then measured.
//
//   build/bench/store_bytes_bench --export FILE.jsonl --db DIR [--out FILE.json]
//
// JSON: {records, value_bytes_per_record (the records' own bytes, what the
// store's values hold), sst_bytes_per_record (the table files after a full
// compaction, keys, index and filter included), compression}.
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table_properties.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app("store_bytes_bench: table-file bytes per record of an export");
  std::string export_file, db_dir, out;
  app.add_option("--export", export_file, "JSONL records (qinfer results --export)")->required();
  app.add_option("--db", db_dir, "a directory for the RocksDB (must not exist)")->required();
  app.add_option("--out", out, "write the JSON here too");
  CLI11_PARSE(app, argc, argv);
  if (std::filesystem::exists(db_dir)) {
    std::cerr << "store_bytes_bench: " << db_dir << " exists\n";
    return 2;
  }
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, db_dir, &raw);
  if (!s.ok()) {
    std::cerr << "store_bytes_bench: " << s.ToString() << "\n";
    return 2;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  std::ifstream in(export_file);
  std::string line;
  uint64_t records = 0, value_bytes = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line);
    s = db->Put(rocksdb::WriteOptions(), j.at("id").get<std::string>(), line);
    if (!s.ok()) break;
    ++records;
    value_bytes += line.size();
  }
  if (s.ok()) s = db->Flush(rocksdb::FlushOptions());
  if (s.ok()) s = db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr);
  uint64_t sst_bytes = 0;
  if (s.ok() && !db->GetIntProperty(rocksdb::DB::Properties::kTotalSstFilesSize, &sst_bytes)) {
    s = rocksdb::Status::NotFound("total-sst-files-size");
  }
  if (!s.ok() || records == 0) {
    std::cerr << "store_bytes_bench: " << (s.ok() ? "no records in " + export_file : s.ToString()) << "\n";
    return 2;
  }
  std::string compression;
  rocksdb::TablePropertiesCollection tables;
  if (db->GetPropertiesOfAllTables(&tables).ok()) {
    for (const auto& [file, props] : tables) compression = props->compression_name;
  }
  const nlohmann::json result = {
      {"records", records},
      {"value_bytes_per_record", double(value_bytes) / double(records)},
      {"sst_bytes_per_record", double(sst_bytes) / double(records)},
      {"compression", compression}};
  std::cout << result.dump() << "\n";
  if (!out.empty()) std::ofstream(out) << result.dump(2) << "\n";
  return 0;
}
