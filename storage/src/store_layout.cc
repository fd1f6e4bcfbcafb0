#include "store_layout.h"

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <charconv>
#include <utility>

namespace qinfer::storage {
namespace {

// Digits of the attempt in a history key: any non-negative int fits, and
// zero-padding makes an id's entries sort by attempt.
constexpr size_t kAttemptDigits = 10;

// A superseded result's key ends in this byte after the digits; a failure's
// key ends with the digits (as before results were kept), so an id's entries
// sort by attempt and, within one attempt, the failure before the result.
constexpr char kResultSuffix = 'r';

}  // namespace

std::string EncodeRank(const Rank& rank) { return std::to_string(rank.attempt) + (rank.ok ? "r" : "f"); }

std::optional<Rank> DecodeRank(std::string_view value) {
  if (value.size() < 2 || (value.back() != 'r' && value.back() != 'f')) return std::nullopt;
  Rank rank{value.back() == 'r', 0};
  const char* end = value.data() + value.size() - 1;
  auto [ptr, ec] = std::from_chars(value.data(), end, rank.attempt);
  if (ec != std::errc() || ptr != end || rank.attempt < 0) return std::nullopt;
  return rank;
}

std::string HistoryPrefix(std::string_view id) {
  std::string key(id);
  key.push_back('\0');
  return key;
}

std::string HistoryKey(std::string_view id, int attempt, bool ok) {
  const std::string digits = std::to_string(attempt);
  std::string key = HistoryPrefix(id) + std::string(kAttemptDigits - digits.size(), '0') + digits;
  if (ok) key.push_back(kResultSuffix);
  return key;
}

bool IsHistoryKeyOf(std::string_view key, std::string_view prefix) {
  if (!key.starts_with(prefix)) return false;
  std::string_view rest = key.substr(prefix.size());
  if (rest.size() == kAttemptDigits + 1 && rest.back() == kResultSuffix) {
    rest.remove_suffix(1);
  }
  return rest.size() == kAttemptDigits &&
         std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool Outranked(const Rank& a, const Rank& b) { return std::pair(a.attempt, a.ok) < std::pair(b.attempt, b.ok); }

std::string AttemptKey(const Origin& o) {
  std::string key;
  AttemptKeyInto(o, key);
  return key;
}

void AttemptKeyInto(const Origin& o, std::string& key) {
  key.clear();
  key.reserve(o.topic.size() + 24);
  key += o.topic;
  char buf[24];
  key += '/';
  key.append(buf, std::to_chars(buf, buf + sizeof(buf), o.partition).ptr);
  key += '/';
  key.append(buf, std::to_chars(buf, buf + sizeof(buf), o.offset).ptr);
}

// Options of every column family. Block checksums are XXH3 rather than
// RocksDB's default CRC32C: Debian's librocksdb is built without SSE4.2, so
// its CRC32C is the table-driven software loop (about 0.3 GB/s here), while
// XXH3 needs no special instructions. (The write-ahead log always uses
// CRC32C; only table files have a choice.) The checksum type is recorded per
// file, so stores written with CRC32C stay readable.
rocksdb::ColumnFamilyOptions ColumnFamilyOptions(const std::shared_ptr<rocksdb::Cache>& block_cache,
                                                 std::string_view name) {
  rocksdb::ColumnFamilyOptions cf;
  if (name == kRanksCf) {
    // Put reads an id's rank before each write, and the id is mostly new:
    // a Bloom filter over the memtable's whole keys answers "not here"
    // without searching the skip list (about 1.3 MB beside its 64 MiB).
    cf.memtable_whole_key_filtering = true;
    cf.memtable_prefix_bloom_size_ratio = 0.02;
  }
  rocksdb::BlockBasedTableOptions table;
  table.checksum = rocksdb::kXXH3;
  table.block_cache = block_cache;
  // Put looks up ids that are mostly new: a Bloom filter answers "not here"
  // without reading a block.
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return cf;
}

absl::Status FromRocks(const rocksdb::Status& s, std::string_view op, const std::string& dir) {
  if (s.ok()) return absl::OkStatus();
  std::string msg = "rocksdb ";
  msg.append(op).append(" path=").append(dir).append(": ").append(s.ToString());
  switch (s.code()) {
    case rocksdb::Status::kNotFound:
      return absl::NotFoundError(msg);
    case rocksdb::Status::kCorruption:
      return absl::DataLossError(msg);
    case rocksdb::Status::kNotSupported:
      return absl::UnimplementedError(msg);
    case rocksdb::Status::kInvalidArgument:
      return absl::InvalidArgumentError(msg);
    case rocksdb::Status::kIOError:
      if (s.IsNoSpace()) return absl::ResourceExhaustedError(msg);
      // I/O errors are often transient (the recorder retries them).
      return absl::UnavailableError(msg);
    case rocksdb::Status::kBusy:
    case rocksdb::Status::kTimedOut:
    case rocksdb::Status::kTryAgain:
      return absl::UnavailableError(msg);
    case rocksdb::Status::kAborted:
      return absl::AbortedError(msg);
    case rocksdb::Status::kShutdownInProgress:
      return absl::CancelledError(msg);
    default:
      return absl::InternalError(msg);
  }
}

}  // namespace qinfer::storage
