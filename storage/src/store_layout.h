// How the outcome store lays its data out in RocksDB (the column families of
// rocksdb_outcome_store.h): key formats, the rank of a record, the column
// families' options, and RocksDB's statuses as absl's. Private to storage/.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <rocksdb/cache.h>
#include <rocksdb/options.h>
#include <rocksdb/status.h>

#include "absl/status/status.h"
#include "qinfer/core/job.h"

namespace qinfer::storage {

inline constexpr const char* kResultsCf = "results";
inline constexpr const char* kFailedCf = "failed";
inline constexpr const char* kMetaCf = "meta";
inline constexpr const char* kAttemptsCf = "attempts";
inline constexpr const char* kHistoryCf = "history";
inline constexpr const char* kRanksCf = "ranks";

// The key in `meta` that says every final record has its rank in `ranks`
// (written once: at creation, or after the records of an older store were
// ranked at open).
inline constexpr const char* kRanksCompleteKey = "ranks_complete";

// An id's final record as Put ranks it: result or failure, and its attempt.
// Kept in `ranks` beside the record (key: the id), so that Put never reads
// or parses an earlier record to rank a new one.
struct Rank {
  bool ok = false;
  int attempt = 0;
};

// "<attempt>r" for a result, "<attempt>f" for a failure.
std::string EncodeRank(const Rank& rank);
// nullopt when `value` is not an encoded rank.
std::optional<Rank> DecodeRank(std::string_view value);

// True when `a` must give way to `b`: a later attempt wins, and within one
// attempt a result wins over a failure (a job re-run after a crash that ran
// out of memory this time keeps the result of its first run). Neither gives
// way to the other when they rank the same: the later write replaces the
// record in place.
bool Outranked(const Rank& a, const Rank& b);

// An id's history keys start with this: the id and a NUL.
std::string HistoryPrefix(std::string_view id);

// REQUIRES: attempt >= 0 (Put rejects negative ones).
std::string HistoryKey(std::string_view id, int attempt, bool ok);

// True when `key` is a history key of the id whose prefix is `prefix`, not
// one of a longer id that shares it (ids may hold a NUL byte).
bool IsHistoryKeyOf(std::string_view key, std::string_view prefix);

// "topic/partition/offset".
std::string AttemptKey(const Origin& o);
// The same into `key` (replacing what it held), reusing its buffer.
void AttemptKeyInto(const Origin& o, std::string& key);

// The store's memory, one bound for all column families (docs/operations/sizing.md, "Sizing a
// pod's memory"): their memtables together flush at kMemtableBytes (RocksDB's
// default is 64 MiB x 2 per family), and they share one block cache of
// kBlockCacheBytes (by default each family has its own).
inline constexpr size_t kMemtableBytes = size_t{64} << 20;
inline constexpr size_t kBlockCacheBytes = size_t{32} << 20;

// Options of the column family `name`: XXH3 block checksums and a Bloom
// filter on the keys, and for `ranks` one on its memtable too (see the .cc).
rocksdb::ColumnFamilyOptions ColumnFamilyOptions(const std::shared_ptr<rocksdb::Cache>& block_cache,
                                                 std::string_view name);

// RocksDB's status as absl's, naming the operation and the store's path.
absl::Status FromRocks(const rocksdb::Status& s, std::string_view op, const std::string& dir);

}  // namespace qinfer::storage
