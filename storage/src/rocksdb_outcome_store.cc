#include "qinfer/storage/rocksdb_outcome_store.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <map>
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
#include "qinfer/core/stored_record.h"
#include "qinfer/storage/attempt_table.h"
#include "refusing_file_system.h"
#include "store_impl.h"
#include "store_layout.h"

namespace qinfer::storage {

RocksDbOutcomeStore::RocksDbOutcomeStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RocksDbOutcomeStore::~RocksDbOutcomeStore() = default;

namespace {

// The store's directory: created for a read-write store, required for a
// read-only one.
absl::Status PrepareDir(const std::string& dir, bool read_only) {
  std::error_code ec;
  if (read_only) {
    if (!std::filesystem::exists(dir, ec)) return absl::NotFoundError("store path=" + dir + " does not exist");
  } else if (!std::filesystem::create_directories(dir, ec) && ec) {
    return absl::UnavailableError("store path=" + dir + ": cannot create directory: " + ec.message());
  }
  return absl::OkStatus();
}

// Every column family already there, plus ours (RocksDB opens all or none).
// A read-only open of a store written before attempts, history or ranks were
// kept goes without them; one without results, failed or meta is not an
// outcome store.
absl::StatusOr<std::vector<std::string>> ColumnFamilyNames(const rocksdb::DBOptions& db_options,
                                                           const std::string& dir, bool read_only) {
  std::vector<std::string> names;
  rocksdb::Status listed = rocksdb::DB::ListColumnFamilies(db_options, dir, &names);
  if (!listed.ok()) {
    if (read_only) return FromRocks(listed, "open read-only", dir);
    names = {rocksdb::kDefaultColumnFamilyName};  // a new database
  }
  for (const char* ours : {kResultsCf, kFailedCf, kMetaCf, kAttemptsCf, kHistoryCf, kRanksCf}) {
    if (std::find(names.begin(), names.end(), ours) != names.end()) continue;
    const std::string_view name = ours;
    if (read_only && (name == kAttemptsCf || name == kHistoryCf || name == kRanksCf)) continue;
    if (read_only) {
      return absl::FailedPreconditionError("store path=" + dir + " is not an outcome store: column family " + ours +
                                           " is missing");
    }
    names.push_back(ours);
  }
  return names;
}

}  // namespace

absl::Status RocksDbOutcomeStore::Impl::OpenDb(rocksdb::DBOptions db_options,
                                               const std::vector<rocksdb::ColumnFamilyDescriptor>& descriptors) {
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
      return absl::UnavailableError("store path=" + dir + ": cannot create a temporary directory for the read-only "
                                    "instance");
    }
    secondary_dir = tmpl;
    db_options.max_open_files = -1;
    s = rocksdb::DB::OpenAsSecondary(db_options, dir, secondary_dir, descriptors, &handles, &raw);
  } else {
    s = rocksdb::DB::Open(db_options, dir, descriptors, &handles, &raw);
  }
  if (!s.ok()) return FromRocks(s, options.read_only ? "open read-only" : "open", dir);
  db.reset(raw);
  const std::map<std::string_view, rocksdb::ColumnFamilyHandle**> ours = {
      {kResultsCf, &results}, {kFailedCf, &failed}, {kMetaCf, &meta},
      {kAttemptsCf, &attempts}, {kHistoryCf, &history}, {kRanksCf, &ranks}};
  for (rocksdb::ColumnFamilyHandle* h : handles) {
    if (auto it = ours.find(h->GetName()); it != ours.end()) *it->second = h;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<RocksDbOutcomeStore>> RocksDbOutcomeStore::OpenRefusingLogWritesForTest(
    const std::string& dir, std::shared_ptr<const std::atomic<bool>> refuse) {
  return OpenWith(dir, {}, NewLogRefusingEnv(std::move(refuse)));
}

absl::StatusOr<std::unique_ptr<RocksDbOutcomeStore>> RocksDbOutcomeStore::Open(const std::string& dir,
                                                                               Options options) {
  return OpenWith(dir, options, nullptr);
}

absl::StatusOr<std::unique_ptr<RocksDbOutcomeStore>> RocksDbOutcomeStore::OpenWith(
    const std::string& dir, Options options, std::unique_ptr<rocksdb::Env> env) {
  if (absl::Status s = PrepareDir(dir, options.read_only); !s.ok()) return s;
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = !options.read_only;
  db_options.create_missing_column_families = !options.read_only;
  db_options.db_write_buffer_size = kMemtableBytes;
  // Table files are opened (all of them: max_open_files is -1) one after
  // another. The default, 16, started 16 short-lived threads for each
  // column family on every open, about 130 for a `results --count`, and
  // the open took no less time for it (0.32 s either way, a store of four
  // table files).
  db_options.max_file_opening_threads = 1;
  absl::StatusOr<std::vector<std::string>> names = ColumnFamilyNames(db_options, dir, options.read_only);
  if (!names.ok()) return names.status();
  const std::shared_ptr<rocksdb::Cache> block_cache = rocksdb::NewLRUCache(kBlockCacheBytes);
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& name : *names) descriptors.emplace_back(name, ColumnFamilyOptions(block_cache, name));

  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->options = options;
  if (env != nullptr) {
    impl->env = std::move(env);
    db_options.env = impl->env.get();
  }
  if (absl::Status s = impl->OpenDb(db_options, descriptors); !s.ok()) return s;
  {
    MutexLock lock(&impl->write_mu);  // no other thread has the store yet
    if (absl::Status s = impl->LoadAttempts(); !s.ok()) return s;
  }
  if (!options.read_only) {
    if (absl::Status s = impl->RankAll(); !s.ok()) return s;
  }
  impl->log.At(impl->LifecycleLevel(), "event=store_opened path=%v read_only=%v sync=%v", dir, options.read_only,
               options.sync);
  return std::unique_ptr<RocksDbOutcomeStore>(new RocksDbOutcomeStore(std::move(impl)));
}

absl::Status RocksDbOutcomeStore::Impl::CheckBatch(std::span<const Outcome> outcomes,
                                                   std::span<const std::string> json) const {
  if (absl::Status st = CheckWritable(); !st.ok()) return st;
  if (json.size() != outcomes.size()) {
    return absl::InvalidArgumentError("store path=" + dir + ": " + std::to_string(outcomes.size()) +
                                      " outcomes but " + std::to_string(json.size()) +
                                      " encoded records; nothing written");
  }
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].id.empty()) {
      return absl::InvalidArgumentError("store path=" + dir + ": outcome " + std::to_string(i) +
                                        " has an empty id; nothing written");
    }
    if (outcomes[i].attempt < 0) {
      return absl::InvalidArgumentError("store path=" + dir + ": outcome " + std::to_string(i) + " (id " +
                                        outcomes[i].id + ") has a negative attempt " +
                                        std::to_string(outcomes[i].attempt) + "; nothing written");
    }
  }
  return absl::OkStatus();
}

absl::Status RocksDbOutcomeStore::Impl::AddOutcome(const Outcome& o, std::string_view value,
                                                   std::optional<Rank> stored, PutState& put) {
  std::optional<Rank> prior = stored;
  std::string_view prior_value;  // set when this batch wrote it
  if (auto it = put.final_here.find(o.id); it != put.final_here.end()) {
    prior = it->second.first;
    prior_value = it->second.second;
  }
  const Rank rank{o.ok, o.attempt};
  if (prior && Outranked(rank, *prior)) {
    // An earlier try arriving late (a redelivery, a stale replay, the
    // other topic read first by `collect`) never replaces a later one;
    // it is kept, in attempt order, as history.
    put.batch.Put(history, HistoryKey(o.id, o.attempt, o.ok), value);
    ++put.kept_older;
    log.Trace("event=store_kept_as_history job=%v attempt=%v final_attempt=%v", o.id, o.attempt, prior->attempt);
    return absl::OkStatus();
  }
  if (prior && Outranked(*prior, rank)) {
    // The final record moves to history as the bytes it was stored as.
    rocksdb::ColumnFamilyHandle* cf = prior->ok ? results : failed;
    rocksdb::PinnableSlice stored;
    if (prior_value.empty()) {
      rocksdb::Status s = db->Get(put.ro, cf, o.id, &stored);
      if (!s.ok()) return FromRocks(s, "get superseded record", dir);
      prior_value = stored.ToStringView();
    }
    put.batch.Put(history, HistoryKey(o.id, prior->attempt, prior->ok), prior_value);
    // Only a record in the other column family is deleted: a tombstone
    // per result would fill the (usually tiny) failed column family that
    // `replay` scans.
    if (prior->ok != o.ok) put.batch.Delete(cf, o.id);
    ++put.superseded;
  }
  put.batch.Put(o.ok ? results : failed, o.id, value);
  put.batch.Put(ranks, o.id, EncodeRank(rank));
  put.final_here[o.id] = {rank, value};
  return absl::OkStatus();
}

absl::Status RocksDbOutcomeStore::Put(std::span<const Outcome> outcomes, std::span<const std::string> json) {
  Impl& s = *impl_;
  if (absl::Status st = s.CheckBatch(outcomes, json); !st.ok()) return st;
  if (outcomes.empty()) return absl::OkStatus();
  // The ranks read below are read as the batch is built; holding the write
  // mutex makes check-then-write atomic with respect to every other writer
  // (RocksDB's LOCK file excludes other processes).
  MutexLock lock(&s.write_mu);
  // Room for every record up front: a batch of records grows past tens of
  // kilobytes, and growing it by doubling frees what it outgrew each time.
  size_t bytes = 64;
  for (size_t i = 0; i < outcomes.size(); ++i) bytes += json[i].size() + 2 * outcomes[i].id.size() + 32;
  Impl::PutState put(bytes);
  // The outcomes' messages lose their attempt counts in the same write. A
  // crash record keeps the count: if its message is delivered again (its
  // offset was not committed yet) it is isolated again, not run.
  std::vector<std::string> done;
  if (!s.attempt_table.empty()) {
    for (const Outcome& o : outcomes) {
      if (!o.origin.topic.empty() && o.reason != reason::kCrash) done.push_back(AttemptKey(o.origin));
    }
  }
  AttemptTable::Change forget = s.attempt_table.Forget(done);
  s.AddWrites(forget, put.batch);
  absl::StatusOr<std::vector<std::optional<Rank>>> stored = s.StoredRanks(put.ro, outcomes);
  if (!stored.ok()) return stored.status();
  // Each record is stored coded, a compact output as its bytes
  // (stored_record.h); the values live until the write, since a later
  // outcome of an id in this batch may move an earlier one's value to
  // history.
  std::vector<std::string> values(outcomes.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    values[i] = StoredValue(json[i], outcomes[i].output_bytes);
    if (absl::Status added = s.AddOutcome(outcomes[i], values[i], (*stored)[i], put); !added.ok()) return added;
  }
  rocksdb::Status written = s.db->Write(s.WriteOpts(), &put.batch);
  if (!written.ok()) {
    s.write_failed = true;
    return FromRocks(written, "write", s.dir);
  }
  s.attempt_table.Apply(std::move(forget));
  s.log.Debug("event=store_put outcomes=%v kept_as_history=%v superseded=%v", outcomes.size(), put.kept_older,
              put.superseded);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> RocksDbOutcomeStore::Attempts(std::span<const Origin> origins) const {
  std::vector<int> counts(origins.size(), 0);
  MutexLock lock(&impl_->write_mu);
  if (impl_->attempt_table.empty()) return counts;
  std::string key;
  for (size_t i = 0; i < origins.size(); ++i) {
    if (origins[i].topic.empty()) continue;
    AttemptKeyInto(origins[i], key);
    counts[i] = impl_->attempt_table.Count(key);
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

absl::Status RocksDbOutcomeStore::PutMeta(const std::string& key, const std::string& value) {
  if (absl::Status st = impl_->CheckWritable(); !st.ok()) return st;
  MutexLock lock(&impl_->write_mu);
  rocksdb::Status s = impl_->db->Put(impl_->WriteOpts(), impl_->meta, key, value);
  if (!s.ok()) impl_->write_failed = true;
  return FromRocks(s, "put meta", impl_->dir);
}

}  // namespace qinfer::storage
