#include "qinfer/storage/rocksdb_outcome_store.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/snapshot.h>
#include <rocksdb/write_batch.h>

#include "qinfer/core/logging.h"
#include "qinfer/core/mutex.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/storage/attempt_table.h"

namespace qinfer::storage {
namespace {

constexpr const char* kResultsCf = "results";
constexpr const char* kFailedCf = "failed";
constexpr const char* kMetaCf = "meta";
constexpr const char* kAttemptsCf = "attempts";
constexpr const char* kHistoryCf = "history";

// Digits of the attempt in a history key: any non-negative int fits, and
// zero-padding makes an id's entries sort by attempt.
constexpr size_t kAttemptDigits = 10;

std::string HistoryPrefix(std::string_view id) {
  std::string key(id);
  key.push_back('\0');
  return key;
}

// A superseded result's key ends in this byte after the digits; a failure's
// key ends with the digits (as before results were kept), so an id's entries
// sort by attempt and, within one attempt, the failure before the result.
constexpr char kResultSuffix = 'r';

// REQUIRES: attempt >= 0 (Put rejects negative ones).
std::string HistoryKey(std::string_view id, int attempt, bool ok) {
  const std::string digits = std::to_string(attempt);
  std::string key = HistoryPrefix(id) + std::string(kAttemptDigits - digits.size(), '0') + digits;
  if (ok) key.push_back(kResultSuffix);
  return key;
}

// True when `key` is a history key of the id whose prefix is `prefix`, not
// one of a longer id that shares it (ids may hold a NUL byte).
bool IsHistoryKeyOf(std::string_view key, std::string_view prefix) {
  if (!key.starts_with(prefix)) return false;
  std::string_view rest = key.substr(prefix.size());
  if (rest.size() == kAttemptDigits + 1 && rest.back() == kResultSuffix) {
    rest.remove_suffix(1);
  }
  return rest.size() == kAttemptDigits &&
         std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// An id's final record as Put finds it: result or failure, its attempt and
// its stored form.
struct FinalRecord {
  bool ok = false;
  int attempt = 0;
  std::string json;
};

// True when `a` must give way to `b`: a later attempt wins, and within one
// attempt a result wins over a failure (a job re-run after a crash that ran
// out of memory this time keeps the result of its first run). Neither gives
// way to the other when they rank the same: the later write replaces the
// record in place.
bool Outranked(const FinalRecord& a, const FinalRecord& b) {
  return std::pair(a.attempt, a.ok) < std::pair(b.attempt, b.ok);
}

// "topic/partition/offset".
std::string AttemptKey(const Origin& o) {
  std::string key;
  key.reserve(o.topic.size() + 24);
  key += o.topic;
  char buf[24];
  key += '/';
  key.append(buf, std::to_chars(buf, buf + sizeof(buf), o.partition).ptr);
  key += '/';
  key.append(buf, std::to_chars(buf, buf + sizeof(buf), o.offset).ptr);
  return key;
}

// The store's memory, one bound for all column families (README, "Sizing a
// pod's memory"): their memtables together flush at kMemtableBytes (RocksDB's
// default is 64 MiB x 2 per family, 640 MiB for our five), and they share one
// block cache of kBlockCacheBytes (by default each family has its own).
constexpr size_t kMemtableBytes = size_t{64} << 20;
constexpr size_t kBlockCacheBytes = size_t{32} << 20;

// Options of every column family. Block checksums are XXH3 rather than
// RocksDB's default CRC32C: Debian's librocksdb is built without SSE4.2, so
// its CRC32C is the table-driven software loop (about 0.3 GB/s here), while
// XXH3 needs no special instructions. (The write-ahead log always uses
// CRC32C; only table files have a choice.) The checksum type is recorded per
// file, so stores written with CRC32C stay readable.
rocksdb::ColumnFamilyOptions ColumnFamilyOptions(const std::shared_ptr<rocksdb::Cache>& block_cache) {
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::BlockBasedTableOptions table;
  table.checksum = rocksdb::kXXH3;
  table.block_cache = block_cache;
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

}  // namespace

struct RocksDbOutcomeStore::Impl {
  std::string dir;
  Options options;
  std::string secondary_dir;  // read-only only: the follower's own info log
  std::unique_ptr<rocksdb::DB> db;
  // Every handle opened, ours and any column families a later version added
  // (RocksDB requires opening them all); destroyed before the DB.
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::ColumnFamilyHandle* results = nullptr;
  rocksdb::ColumnFamilyHandle* failed = nullptr;
  rocksdb::ColumnFamilyHandle* meta = nullptr;
  rocksdb::ColumnFamilyHandle* attempts = nullptr;  // null: an older read-only store
  rocksdb::ColumnFamilyHandle* history = nullptr;   // null: an older read-only store
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
          log.Warn("store sync_wal_failed path=%v error=\"%v\"", dir, s.ToString());
        }
      }
      for (rocksdb::ColumnFamilyHandle* h : handles) {
        db->DestroyColumnFamilyHandle(h);
      }
      rocksdb::Status s = db->Close();
      if (!s.ok()) {
        log.Warn("store close_failed path=%v error=\"%v\"", dir, s.ToString());
      }
      db.reset();
      log.At(LifecycleLevel(), "store closed path=%v", dir);
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

  // X's final record in the store (its result, else its failure record),
  // if it has one.
  absl::StatusOr<std::optional<FinalRecord>> StoredRecord(const rocksdb::ReadOptions& ro, const std::string& id) const {
    for (rocksdb::ColumnFamilyHandle* cf : {results, failed}) {
      rocksdb::PinnableSlice value;
      rocksdb::Status s = db->Get(ro, cf, id, &value);
      if (s.IsNotFound()) continue;
      if (!s.ok()) return FromRocks(s, "get", dir);
      absl::StatusOr<Outcome> o = OutcomeFromJson(value.ToStringView());
      if (!o.ok()) return Unparsable(cf, id, o.status());
      return FinalRecord{cf == results, o->attempt, value.ToString()};
    }
    return std::nullopt;
  }

  absl::StatusOr<std::optional<Outcome>> GetFrom(rocksdb::ColumnFamilyHandle* cf, const rocksdb::ReadOptions& ro,
                                                 const std::string& id) const {
    rocksdb::PinnableSlice value;
    rocksdb::Status s = db->Get(ro, cf, id, &value);
    if (s.IsNotFound()) return std::nullopt;
    if (!s.ok()) return FromRocks(s, "get", dir);
    absl::StatusOr<Outcome> o = OutcomeFromJson(value.ToStringView());
    if (!o.ok()) return Unparsable(cf, id, o.status());
    return std::optional<Outcome>(*std::move(o));
  }

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

  // Returns false in *go_on when fn asked to stop.
  absl::Status Visit(rocksdb::ColumnFamilyHandle* cf, const rocksdb::ReadOptions& ro,
                     const std::function<bool(const Outcome&)>& fn, bool* go_on) const {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      absl::StatusOr<Outcome> o = OutcomeFromJson(it->value().ToStringView());
      if (!o.ok()) return Unparsable(cf, it->key().ToStringView(), o.status());
      if (!fn(*o)) {
        *go_on = false;
        return absl::OkStatus();
      }
    }
    return FromRocks(it->status(), "iterate", dir);
  }
};

RocksDbOutcomeStore::RocksDbOutcomeStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RocksDbOutcomeStore::~RocksDbOutcomeStore() = default;

absl::StatusOr<std::unique_ptr<RocksDbOutcomeStore>> RocksDbOutcomeStore::Open(const std::string& dir,
                                                                               Options options) {
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->options = options;

  std::error_code ec;
  if (options.read_only) {
    if (!std::filesystem::exists(dir, ec)) {
      return absl::NotFoundError("store path=" + dir + " does not exist");
    }
  } else if (!std::filesystem::create_directories(dir, ec) && ec) {
    return absl::UnavailableError("store path=" + dir + ": cannot create directory: " + ec.message());
  }

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = !options.read_only;
  db_options.create_missing_column_families = !options.read_only;
  db_options.db_write_buffer_size = kMemtableBytes;
  const std::shared_ptr<rocksdb::Cache> block_cache = rocksdb::NewLRUCache(kBlockCacheBytes);

  // Open every column family already there, plus ours.
  std::vector<std::string> names;
  rocksdb::Status listed = rocksdb::DB::ListColumnFamilies(db_options, dir, &names);
  if (!listed.ok()) {
    if (options.read_only) return FromRocks(listed, "open read-only", dir);
    names = {rocksdb::kDefaultColumnFamilyName};  // a new database
  }
  for (const char* ours : {kResultsCf, kFailedCf, kMetaCf, kAttemptsCf, kHistoryCf}) {
    if (std::find(names.begin(), names.end(), ours) != names.end()) continue;
    // Stores written before attempts or history were kept are still outcome
    // stores.
    if (options.read_only && (std::string_view(ours) == kAttemptsCf || std::string_view(ours) == kHistoryCf)) {
      continue;
    }
    if (options.read_only) {
      return absl::FailedPreconditionError("store path=" + dir + " is not an outcome store: column family " + ours +
                                           " is missing");
    }
    names.push_back(ours);
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& name : names) {
    descriptors.emplace_back(name, ColumnFamilyOptions(block_cache));
  }

  rocksdb::DB* raw = nullptr;
  rocksdb::Status s;
  if (options.read_only) {
    // A secondary instance, not OpenForReadOnly: RocksDB documents a
    // read-only instance of a database that another process has open for
    // writing as undefined behaviour (compaction deletes files under it).
    // A secondary keeps every file open (max_open_files = -1) and can catch
    // up; it needs a directory of its own for its info log.
    std::string tmpl = (std::filesystem::temp_directory_path() / "qinfer-store-ro-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      return absl::UnavailableError("store path=" + dir +
                                    ": cannot create a temporary directory "
                                    "for the read-only instance");
    }
    impl->secondary_dir = tmpl;
    db_options.max_open_files = -1;
    s = rocksdb::DB::OpenAsSecondary(db_options, dir, impl->secondary_dir, descriptors, &impl->handles, &raw);
  } else {
    s = rocksdb::DB::Open(db_options, dir, descriptors, &impl->handles, &raw);
  }
  if (!s.ok()) {
    return FromRocks(s, options.read_only ? "open read-only" : "open", dir);
  }
  impl->db.reset(raw);
  for (rocksdb::ColumnFamilyHandle* h : impl->handles) {
    if (h->GetName() == kResultsCf) impl->results = h;
    if (h->GetName() == kFailedCf) impl->failed = h;
    if (h->GetName() == kMetaCf) impl->meta = h;
    if (h->GetName() == kAttemptsCf) impl->attempts = h;
    if (h->GetName() == kHistoryCf) impl->history = h;
  }
  {
    MutexLock lock(&impl->write_mu);  // no other thread has the store yet
    if (absl::Status s = impl->LoadAttempts(); !s.ok()) return s;
  }
  impl->log.At(impl->LifecycleLevel(), "store opened path=%v read_only=%v sync=%v", dir, options.read_only,
               options.sync);
  return std::unique_ptr<RocksDbOutcomeStore>(new RocksDbOutcomeStore(std::move(impl)));
}

absl::Status RocksDbOutcomeStore::Put(std::span<const Outcome> outcomes, std::span<const std::string> json) {
  if (absl::Status st = impl_->CheckWritable(); !st.ok()) return st;
  if (json.size() != outcomes.size()) {
    return absl::InvalidArgumentError("store path=" + impl_->dir + ": " + std::to_string(outcomes.size()) +
                                      " outcomes but " + std::to_string(json.size()) +
                                      " encoded records; nothing written");
  }
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].id.empty()) {
      return absl::InvalidArgumentError("store path=" + impl_->dir + ": outcome " + std::to_string(i) +
                                        " has an empty id; nothing written");
    }
    if (outcomes[i].attempt < 0) {
      return absl::InvalidArgumentError("store path=" + impl_->dir + ": outcome " + std::to_string(i) + " (id " +
                                        outcomes[i].id + ") has a negative attempt " +
                                        std::to_string(outcomes[i].attempt) + "; nothing written");
    }
  }
  if (outcomes.empty()) return absl::OkStatus();

  // The existence checks below read the database as the batch is built;
  // holding the write mutex makes check-then-write atomic with respect to
  // every other writer (RocksDB's LOCK file excludes other processes).
  MutexLock lock(&impl_->write_mu);
  const rocksdb::ReadOptions ro;
  // Room for every record up front: a batch of records grows past tens of
  // kilobytes, and growing it by doubling frees what it outgrew each time.
  size_t bytes = 64;
  for (size_t i = 0; i < outcomes.size(); ++i) bytes += json[i].size() + outcomes[i].id.size() + 16;
  rocksdb::WriteBatch batch(bytes);
  // Ids whose final record this batch already wrote or moved: the record
  // as the batch leaves it. Other ids are as the store has them.
  std::unordered_map<std::string_view, std::optional<FinalRecord>> final_here;
  auto current = [&](const std::string& id) -> absl::StatusOr<std::optional<FinalRecord>> {
    if (auto it = final_here.find(id); it != final_here.end()) {
      return it->second;
    }
    return impl_->StoredRecord(ro, id);
  };
  size_t kept_older = 0;  // outcomes that went to history as they came
  size_t superseded = 0;  // final records moved to history
  // The outcomes' messages lose their attempt counts in the same write. A
  // crash record keeps the count: if its message is delivered again (its
  // offset was not committed yet) it is isolated again, not run.
  std::vector<std::string> done;
  if (!impl_->attempt_table.empty()) {
    for (const Outcome& o : outcomes) {
      if (!o.origin.topic.empty() && o.reason != reason::kCrash) {
        done.push_back(AttemptKey(o.origin));
      }
    }
  }
  AttemptTable::Change forget = impl_->attempt_table.Forget(done);
  impl_->AddWrites(forget, batch);
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const Outcome& o = outcomes[i];
    absl::StatusOr<std::optional<FinalRecord>> prior = current(o.id);
    if (!prior.ok()) return prior.status();
    FinalRecord record{o.ok, o.attempt, json[i]};
    if (prior->has_value() && Outranked(record, **prior)) {
      // An earlier try arriving late (a redelivery, a stale replay, the
      // other topic read first by `collect`) never replaces a later one;
      // it is kept, in attempt order, as history.
      batch.Put(impl_->history, HistoryKey(o.id, o.attempt, o.ok), json[i]);
      ++kept_older;
      impl_->log.Trace(
          "store outcome_kept_as_history job=%v attempt=%v "
          "final_attempt=%v",
          o.id, o.attempt, (*prior)->attempt);
      continue;
    }
    if (prior->has_value() && Outranked(**prior, record)) {
      const FinalRecord& old = **prior;
      batch.Put(impl_->history, HistoryKey(o.id, old.attempt, old.ok), old.json);
      // Only a record in the other column family is deleted: a tombstone
      // per result would fill the (usually tiny) failed column family that
      // `replay` scans.
      if (old.ok != o.ok) {
        batch.Delete(old.ok ? impl_->results : impl_->failed, o.id);
      }
      ++superseded;
    }
    batch.Put(o.ok ? impl_->results : impl_->failed, o.id, record.json);
    final_here[o.id] = std::move(record);
  }
  rocksdb::Status s = impl_->db->Write(impl_->WriteOpts(), &batch);
  if (!s.ok()) {
    impl_->write_failed = true;
    return FromRocks(s, "write", impl_->dir);
  }
  impl_->attempt_table.Apply(std::move(forget));
  impl_->log.Debug(
      "store put outcomes=%v kept_as_history=%v "
      "superseded=%v",
      outcomes.size(), kept_older, superseded);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> RocksDbOutcomeStore::Attempts(std::span<const Origin> origins) const {
  std::vector<int> counts(origins.size(), 0);
  MutexLock lock(&impl_->write_mu);
  if (impl_->attempt_table.empty()) return counts;
  for (size_t i = 0; i < origins.size(); ++i) {
    if (!origins[i].topic.empty()) counts[i] = impl_->attempt_table.Count(AttemptKey(origins[i]));
  }
  return counts;
}

absl::Status RocksDbOutcomeStore::BeginAttempts(std::span<const Origin> origins, std::span<const Origin> finished) {
  if (absl::Status st = impl_->CheckWritable(); !st.ok()) return st;
  auto keys = [](std::span<const Origin> of) {
    std::vector<std::string> messages;
    messages.reserve(of.size());
    for (const Origin& origin : of) {
      if (!origin.topic.empty()) messages.push_back(AttemptKey(origin));
    }
    return messages;
  };
  const std::vector<std::string> messages = keys(origins);
  const std::vector<std::string> done = keys(finished);
  if (messages.empty() && done.empty()) return absl::OkStatus();
  MutexLock lock(&impl_->write_mu);
  AttemptTable::Change change = impl_->attempt_table.Begin(messages, done);
  if (change.writes.empty()) return absl::OkStatus();
  rocksdb::WriteBatch batch;
  impl_->AddWrites(change, batch);
  rocksdb::Status s = impl_->db->Write(impl_->WriteOpts(), &batch);
  if (!s.ok()) {
    impl_->write_failed = true;
    return FromRocks(s, "write attempts", impl_->dir);
  }
  impl_->attempt_table.Apply(std::move(change));
  return absl::OkStatus();
}

absl::StatusOr<std::optional<Outcome>> RocksDbOutcomeStore::Get(const std::string& id) const {
  rocksdb::ReadOptions ro;
  // One view for both lookups, so an id moving from failed to results
  // between them is never missed. A secondary is static between Refresh
  // calls and needs none.
  std::optional<rocksdb::ManagedSnapshot> snapshot;
  if (!impl_->options.read_only) {
    snapshot.emplace(impl_->db.get());
    ro.snapshot = snapshot->snapshot();
  }
  absl::StatusOr<std::optional<Outcome>> result = impl_->GetFrom(impl_->results, ro, id);
  if (!result.ok() || result->has_value()) return result;
  return impl_->GetFrom(impl_->failed, ro, id);
}

absl::StatusOr<std::vector<Outcome>> RocksDbOutcomeStore::History(const std::string& id) const {
  std::vector<Outcome> history;
  if (impl_->history == nullptr) return history;
  const std::string prefix = HistoryPrefix(id);
  rocksdb::ReadOptions ro;
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(ro, impl_->history));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    // An id may itself hold a NUL byte: keys of such an id that extends
    // `id` share the prefix but are longer.
    if (!IsHistoryKeyOf(it->key().ToStringView(), prefix)) continue;
    absl::StatusOr<Outcome> o = OutcomeFromJson(it->value().ToStringView());
    if (!o.ok()) {
      return impl_->Unparsable(
          impl_->history, id + " attempt=" + std::string(it->key().ToStringView().substr(prefix.size())), o.status());
    }
    history.push_back(*std::move(o));
  }
  if (!it->status().ok()) {
    return FromRocks(it->status(), "iterate history", impl_->dir);
  }
  return history;
}

absl::StatusOr<uint64_t> RocksDbOutcomeStore::CountResults() const { return impl_->Count(impl_->results); }

absl::StatusOr<uint64_t> RocksDbOutcomeStore::CountFailures() const { return impl_->Count(impl_->failed); }

absl::StatusOr<uint64_t> RocksDbOutcomeStore::CountSuperseded() const {
  if (impl_->history == nullptr) return 0;
  return impl_->Count(impl_->history);
}

absl::Status RocksDbOutcomeStore::ForEach(Kind kind, const std::function<bool(const Outcome&)>& fn) const {
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  std::optional<rocksdb::ManagedSnapshot> snapshot;
  if (!impl_->options.read_only) {
    snapshot.emplace(impl_->db.get());
    ro.snapshot = snapshot->snapshot();
  }
  bool go_on = true;
  if (kind == Kind::kResults || kind == Kind::kAll) {
    if (absl::Status s = impl_->Visit(impl_->results, ro, fn, &go_on); !s.ok() || !go_on) {
      return s;
    }
  }
  if (kind == Kind::kFailures || kind == Kind::kAll) {
    return impl_->Visit(impl_->failed, ro, fn, &go_on);
  }
  return absl::OkStatus();
}

absl::Status RocksDbOutcomeStore::PutMeta(const std::string& key, const std::string& value) {
  if (absl::Status st = impl_->CheckWritable(); !st.ok()) return st;
  MutexLock lock(&impl_->write_mu);
  rocksdb::Status s = impl_->db->Put(impl_->WriteOpts(), impl_->meta, key, value);
  if (!s.ok()) impl_->write_failed = true;
  return FromRocks(s, "put meta", impl_->dir);
}

absl::StatusOr<std::optional<std::string>> RocksDbOutcomeStore::GetMeta(const std::string& key) const {
  std::string value;
  rocksdb::Status s = impl_->db->Get(rocksdb::ReadOptions(), impl_->meta, key, &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "get meta", impl_->dir);
  return std::optional<std::string>(std::move(value));
}

absl::Status RocksDbOutcomeStore::Refresh() {
  if (!impl_->options.read_only) return absl::OkStatus();
  if (absl::Status s = FromRocks(impl_->db->TryCatchUpWithPrimary(), "catch up", impl_->dir); !s.ok()) {
    return s;
  }
  MutexLock lock(&impl_->write_mu);
  return impl_->LoadAttempts();
}

const std::string& RocksDbOutcomeStore::dir() const { return impl_->dir; }

bool RocksDbOutcomeStore::read_only() const { return impl_->options.read_only; }

}  // namespace qinfer::storage
