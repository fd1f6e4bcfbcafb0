// The outcome store's state, shared by its write side
// (rocksdb_outcome_store.cc: open, Put, attempts, meta) and its read side
// (store_reads.cc). Private to storage/.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "qinfer/core/logging.h"
#include "qinfer/core/mutex.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/core/stored_record.h"
#include "qinfer/storage/attempt_table.h"
#include "qinfer/storage/rocksdb_outcome_store.h"
#include "store_layout.h"

namespace qinfer::storage {

struct RocksDbOutcomeStore::Impl {
  std::string dir;
  Options options;
  std::string secondary_dir;  // read-only only: the follower's own info log
  std::unique_ptr<rocksdb::Env> env;  // Options::refuse_log_writes_for_test only; outlives db
  std::unique_ptr<rocksdb::DB> db;
  // Every handle opened, ours and any column families a later version added
  // (RocksDB requires opening them all); destroyed before the DB.
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::ColumnFamilyHandle* results = nullptr;
  rocksdb::ColumnFamilyHandle* failed = nullptr;
  rocksdb::ColumnFamilyHandle* meta = nullptr;
  rocksdb::ColumnFamilyHandle* attempts = nullptr;  // null: an older read-only store
  rocksdb::ColumnFamilyHandle* history = nullptr;   // null: an older read-only store
  rocksdb::ColumnFamilyHandle* ranks = nullptr;     // null: an older read-only store
  // Serialises Put, PutMeta and BeginAttempts, and guards attempt_table.
  mutable Mutex write_mu;
  // The attempts column family in memory (see attempt_table.h). Loaded at
  // Open (and Refresh) and changed only after the write that changes the
  // column family succeeded; only this process writes the store (RocksDB's
  // LOCK file), so it is exact, and Attempts reads no RocksDB at all. It
  // holds the messages that began an attempt and have no outcome yet (and
  // the crash records' counts): about what is in flight.
  AttemptTable attempt_table ABSL_GUARDED_BY(write_mu);

  // Reads the attempts column family into a fresh attempt_table.
  absl::Status LoadAttempts() ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu) {
    attempt_table = AttemptTable();
    if (attempts == nullptr) return absl::OkStatus();  // an older read-only store
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), attempts));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      attempt_table.Load(it->key().ToStringView(), it->value().ToStringView());
    }
    return FromRocks(it->status(), "read attempts", dir);
  }

  // Adds `change`'s writes to `batch`.
  void AddWrites(const AttemptTable::Change& change, rocksdb::WriteBatch& batch) const {
    for (const AttemptTable::Write& w : change.writes) {
      if (w.value) {
        batch.Put(attempts, w.key, *w.value);
      } else {
        batch.Delete(attempts, w.key);
      }
    }
  }
  // A write failed: the log may hold a partial record, and syncing it again
  // trips an assertion inside RocksDB. Recovery at the next open handles it.
  std::atomic<bool> write_failed{false};
  Log log = Logger("storage");

  ~Impl() {
    if (db != nullptr) {
      if (!options.read_only && !write_failed.load()) {
        rocksdb::Status s = db->SyncWAL();
        if (!s.ok()) {
          log.Warn("event=store_sync_wal_failed path=%v error=\"%v\"", dir, s.ToString());
        }
      }
      for (rocksdb::ColumnFamilyHandle* h : handles) {
        db->DestroyColumnFamilyHandle(h);
      }
      rocksdb::Status s = db->Close();
      if (!s.ok()) {
        log.Warn("event=store_close_failed path=%v error=\"%v\"", dir, s.ToString());
      }
      db.reset();
      log.At(LifecycleLevel(), "event=store_closed path=%v", dir);
    }
    if (!secondary_dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(secondary_dir, ec);
    }
  }

  rocksdb::WriteOptions WriteOpts() const {
    rocksdb::WriteOptions w;
    w.sync = options.sync;
    w.disableWAL = false;  // the WAL is what makes an acknowledged Put durable
    return w;
  }

  // Opening and closing is a lifecycle event of the service that writes the
  // store; the command-line readers (results, replay, status) open it
  // read-only on every run, where the lines are noise.
  LogLevel LifecycleLevel() const { return options.read_only ? LogLevel::kDebug : LogLevel::kInfo; }

  absl::Status CheckWritable() const {
    if (options.read_only) {
      return absl::FailedPreconditionError("store path=" + dir + " is open read-only");
    }
    return absl::OkStatus();
  }

  // The final records' ranks of `outcomes`' ids, in their order, from
  // `ranks` (Open made it complete) in one MultiGet: no record is read.
  absl::StatusOr<std::vector<std::optional<Rank>>> StoredRanks(const rocksdb::ReadOptions& ro,
                                                               std::span<const Outcome> outcomes) const {
    std::vector<rocksdb::Slice> keys;
    keys.reserve(outcomes.size());
    for (const Outcome& o : outcomes) keys.emplace_back(o.id);
    std::vector<rocksdb::PinnableSlice> values(keys.size());
    std::vector<rocksdb::Status> statuses(keys.size());
    db->MultiGet(ro, ranks, keys.size(), keys.data(), values.data(), statuses.data());
    std::vector<std::optional<Rank>> found(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      if (statuses[i].IsNotFound()) continue;
      if (!statuses[i].ok()) return FromRocks(statuses[i], "get rank", dir);
      found[i] = DecodeRank(values[i].ToStringView());
      if (!found[i]) {
        return absl::DataLossError("store path=" + dir + " cf=" + kRanksCf + " id=" + outcomes[i].id + ": rank '" +
                                   std::string(values[i].ToStringView()) + "' does not parse");
      }
    }
    return found;
  }

  // Ranks every final record of a store written before ranks were kept
  // (parsing each once, here), then marks the ranks complete. A new store is
  // marked at once.
  absl::Status RankAll() {
    std::string done;
    if (db->Get(rocksdb::ReadOptions(), meta, kRanksCompleteKey, &done).ok()) return absl::OkStatus();
    rocksdb::WriteBatch batch;
    uint64_t ranked = 0;
    for (rocksdb::ColumnFamilyHandle* cf : {failed, results}) {
      std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), cf));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        absl::StatusOr<Outcome> o = OutcomeOf(cf, it->key().ToStringView(), it->value().ToStringView());
        if (!o.ok()) return o.status();
        batch.Put(ranks, it->key(), EncodeRank({cf == results, o->attempt}));
        ++ranked;
      }
      if (absl::Status s = FromRocks(it->status(), "rank records", dir); !s.ok()) return s;
    }
    batch.Put(meta, kRanksCompleteKey, "1");
    if (absl::Status s = FromRocks(db->Write(WriteOpts(), &batch), "write ranks", dir); !s.ok()) return s;
    if (ranked > 0) log.Info("event=store_ranked path=%v records=%v", dir, ranked);
    return absl::OkStatus();
  }

  absl::StatusOr<std::optional<Outcome>> GetFrom(rocksdb::ColumnFamilyHandle* cf, const rocksdb::ReadOptions& ro,
                                                 const std::string& id) const {
    rocksdb::PinnableSlice value;
    rocksdb::Status s = db->Get(ro, cf, id, &value);
    if (s.IsNotFound()) return std::nullopt;
    if (!s.ok()) return FromRocks(s, "get", dir);
    absl::StatusOr<Outcome> o = OutcomeOf(cf, id, value.ToStringView());
    if (!o.ok()) return o.status();
    return std::optional<Outcome>(*std::move(o));
  }

  // The record a value of `cf` under key `id` holds (stored_record.h), its
  // text decoded into `text`, or DataLoss naming them.
  absl::StatusOr<StoredRecord> RecordOf(rocksdb::ColumnFamilyHandle* cf, std::string_view id,
                                        std::string_view value, std::string& text) const {
    std::optional<StoredRecord> r = ReadStoredValue(value, text);
    if (!r) return Unparsable(cf, id, absl::DataLossError("not a stored record: neither coded nor JSON text"));
    return *r;
  }

  // The same, parsed.
  absl::StatusOr<Outcome> OutcomeOf(rocksdb::ColumnFamilyHandle* cf, std::string_view id,
                                    std::string_view value) const {
    std::string text;
    absl::StatusOr<StoredRecord> r = RecordOf(cf, id, value, text);
    if (!r.ok()) return r.status();
    std::string buffer;
    absl::StatusOr<Outcome> o = OutcomeFromJson(r->Json(buffer));
    if (!o.ok()) return Unparsable(cf, id, o.status());
    return o;
  }

  // What one Put builds: its write, the final records it already wrote (an
  // id's later outcomes in the same batch rank against them), and counts.
  struct PutState {
    explicit PutState(size_t bytes) : batch(bytes) {}
    const rocksdb::ReadOptions ro;
    rocksdb::WriteBatch batch;
    std::unordered_map<std::string_view, std::pair<Rank, std::string_view>> final_here;
    size_t kept_older = 0;  // outcomes that went to history as they came
    size_t superseded = 0;  // final records moved to history
  };

  absl::Status OpenDb(rocksdb::DBOptions db_options, const std::vector<rocksdb::ColumnFamilyDescriptor>& descriptors);
  // Put's refusals, before anything is read or written.
  absl::Status CheckBatch(std::span<const Outcome> outcomes, std::span<const std::string> json) const;
  // Adds outcome `o` (stored as `value`: its JSON text, or that made
  // compact, stored_record.h) to the write, ranked against its id's final
  // record (DESIGN: a record never replaces a later attempt's). `stored`:
  // o.id's final rank before this batch (StoredRanks).
  absl::Status AddOutcome(const Outcome& o, std::string_view value, std::optional<Rank> stored, PutState& put)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu);

  absl::Status Unparsable(rocksdb::ColumnFamilyHandle* cf, std::string_view id, const absl::Status& why) const {
    return absl::DataLossError("store path=" + dir + " cf=" + cf->GetName() + " id=" + std::string(id) +
                               ": record does not parse: " + std::string(why.message()));
  }

  absl::StatusOr<uint64_t> Count(rocksdb::ColumnFamilyHandle* cf) const {
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;  // a full scan should not evict hot blocks
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
    uint64_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    if (!it->status().ok()) return FromRocks(it->status(), "iterate", dir);
    return n;
  }

  // Calls fn(column family, id, the record as stored) for each record of
  // `kind` (kAll: results, then failures), on one snapshot of a read-write
  // store, until fn returns false (OK) or an error (which ends the visit
  // with it).
  absl::Status Visit(
      RocksDbOutcomeStore::Kind kind,
      const std::function<absl::StatusOr<bool>(rocksdb::ColumnFamilyHandle*, std::string_view, std::string_view)>& fn)
      const {
    using Kind = RocksDbOutcomeStore::Kind;
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    std::optional<rocksdb::ManagedSnapshot> snapshot;
    if (!options.read_only) {
      snapshot.emplace(db.get());
      ro.snapshot = snapshot->snapshot();
    }
    for (rocksdb::ColumnFamilyHandle* cf : {results, failed}) {
      if ((cf == results && kind == Kind::kFailures) || (cf == failed && kind == Kind::kResults)) continue;
      std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        absl::StatusOr<bool> more = fn(cf, it->key().ToStringView(), it->value().ToStringView());
        if (!more.ok()) return more.status();
        if (!*more) return absl::OkStatus();
      }
      if (absl::Status s = FromRocks(it->status(), "iterate", dir); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
};

}  // namespace qinfer::storage
