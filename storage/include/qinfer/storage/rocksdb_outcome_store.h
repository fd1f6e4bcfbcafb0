// RocksDbOutcomeStore: the durable record of every job's outcome, keyed by
// job id, in a RocksDB database with six column families:
//   results  ok outcomes        key = job id, value = OutcomeToJson(outcome)
//   failed   failure records    key = job id, value = OutcomeToJson(outcome)
//            (results and failed together hold one final state per id)
//   history  superseded records (failures and results), key = job id + '\0'
//            + attempt as 10 zero-padded digits, + 'r' for a result (an
//            id's entries sort oldest attempt first, within one attempt the
//            failure first), value = OutcomeToJson(outcome)
//   ranks    each final record's rank, key = job id, value = attempt + 'r'
//            (result) or 'f' (failure): what Put ranks a new record
//            against, so it never reads or parses an earlier record
//   meta     small string values (e.g. the calibrated memory plan)
//   attempts attempt counts of jobs that ran without an outcome yet
//            (AttemptLog): one entry per batch begun, key = "#" + sequence,
//            value = "<count> topic/partition/offset" lines; older versions'
//            entries, key = "topic/partition/offset", value = count, are
//            still read (see attempt_table.h)
// RocksDB itself stays out of this header; users need only qinfer::core.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/job.h"
#include "qinfer/core/stored_record.h"

namespace rocksdb {
class Env;
}  // namespace rocksdb

namespace qinfer::storage {

struct RocksDbStoreOptions {
  // Default: false. Put and PutMeta always write the write-ahead log (to the
  // OS) before they return, so a crash of the process loses nothing that was
  // acknowledged. true also fsyncs the log on every write, so acknowledged
  // writes survive an OS crash or power loss too, at the cost of one fsync
  // per Put.
  bool sync = false;
  // Default: false. true opens the database as a read-only follower
  // (RocksDB's "secondary" mode) that is safe while a server holds the
  // database open for writing: it sees everything written up to Open (or the
  // last Refresh). Put and PutMeta then fail with FailedPrecondition.
  // REQUIRES (read_only): `dir` already holds a store.
  bool read_only = false;
};

// Thread-safe: any number of threads may read while others write. Writes
// (Put, PutMeta) are serialised by a mutex inside the store, so the
// read-check-write in Put (see below) never races within this process, and
// RocksDB's LOCK file keeps a second process from opening the same directory
// for writing.
class RocksDbOutcomeStore final : public OutcomeStore, public AttemptLog, public MetaStore {
 public:
  using Options = RocksDbStoreOptions;
  enum class Kind { kResults, kFailures, kAll };

  // Opens (read-write: creating the directory and the column families when
  // missing, and ranking the records of a store written before ranks were
  // kept, once) the store in `dir`. Errors carry RocksDB's message and `dir`;
  // a missing `dir` with read_only is NotFound.
  static absl::StatusOr<std::unique_ptr<RocksDbOutcomeStore>> Open(const std::string& dir, Options options = {});
  // Open (read-write), for tests of a full disk: while *refuse is true,
  // every append to the write-ahead log fails inside RocksDB as on a full
  // disk (NoSpace), so each write (Put, BeginAttempts, PutMeta) fails for
  // real, through RocksDB's own error handling.
  static absl::StatusOr<std::unique_ptr<RocksDbOutcomeStore>> OpenRefusingLogWritesForTest(
      const std::string& dir, std::shared_ptr<const std::atomic<bool>> refuse);

  // Closes the database. Read-write stores sync the write-ahead log first,
  // so a clean shutdown survives an OS crash even with sync = false.
  ~RocksDbOutcomeStore() override;

  RocksDbOutcomeStore(const RocksDbOutcomeStore&) = delete;
  RocksDbOutcomeStore& operator=(const RocksDbOutcomeStore&) = delete;

  // Writes all of `outcomes` in one atomic batch; OK means all are durable
  // (see Options::sync), an error means none were written. An id never has
  // more than one final state (a result or a failure record), and a record
  // never replaces one of a later attempt: records rank by (attempt, result
  // over failure), and for an outcome N of X against X's final record F:
  //  - no F: N becomes X's final record;
  //  - N ranks above F (a replay, or a result of the try that F failed):
  //    N replaces F and F moves to history;
  //  - N ranks below F (an earlier try arriving late: a redelivery after a
  //    replay already ran, a stale replay, `collect` reading the other
  //    topic first): N goes to history and F stays;
  //  - N ranks the same (a redelivery re-running the same try): N replaces
  //    F, nothing goes to history.
  // So the final record and the history of X (attempt order) do not depend
  // on the order the outcomes arrive in, and writing the same outcomes
  // again leaves the same state.
  // Within `outcomes`, the entries apply in order as above.
  // Each outcome's origin (when it has a topic) loses its attempt count in
  // the same write, except for a `crash` record: a redelivery of that
  // message is then isolated again rather than run.
  // The values written are `json` (OutcomeToJson of each outcome, encoded by
  // the caller; the one-argument Put encodes them itself), a compact output
  // kept as its bytes (qinfer/core/stored_record.h): every read gives back
  // `json` byte for byte.
  // Errors: FailedPrecondition when read-only; InvalidArgument for an
  // outcome with an empty id or a negative attempt, or when json.size() !=
  // outcomes.size() (nothing is written); DataLoss naming the id when X's
  // rank does not parse; RocksDB errors otherwise. A record that
  // supersedes another moves that one to history as the bytes it was
  // stored as, unparsed.
  absl::Status Put(std::span<const Outcome> outcomes, std::span<const std::string> json) override;
  using OutcomeStore::Put;

  // AttemptLog. Origins without a topic are counted 0 and never written.
  // Attempts answers from memory: the store mirrors the attempts column
  // family (read at Open and Refresh, updated by its own writes), so the
  // executor's check before each batch costs no RocksDB read. BeginAttempts
  // writes one entry for all of `origins`, and deletes (or rewrites) the
  // entries `finished` leaves, in the same write.
  // Errors: FailedPrecondition when read-only; RocksDB errors otherwise.
  absl::StatusOr<std::vector<int>> Attempts(std::span<const Origin> origins) const override;
  absl::Status BeginAttempts(std::span<const Origin> origins, std::span<const Origin> finished) override;
  using AttemptLog::BeginAttempts;

  // X's result if it has one, else its failure record, else nullopt.
  // The stored form (qinfer/core/outcome_json.h) keeps no `origin` for
  // results and no origin.epoch for failures: those come back defaulted.
  absl::StatusOr<std::optional<Outcome>> Get(const std::string& id) const;

  // The records of X other than its final one: those a higher-ranked record
  // superseded and those that arrived after one (see Put), oldest attempt
  // first (within one attempt the failure first); empty when there are none (and on a read-only open
  // of a store written before history was kept). A record that does not
  // parse is DataLoss naming its id.
  absl::StatusOr<std::vector<Outcome>> History(const std::string& id) const;

  // Exact counts, by iterating over the column family (O(records)).
  // CountResults + CountFailures are the final states; CountSuperseded counts
  // the history entries (superseded records) of all ids.
  absl::StatusOr<uint64_t> CountResults() const;
  absl::StatusOr<uint64_t> CountFailures() const;
  absl::StatusOr<uint64_t> CountSuperseded() const;

  // Calls `fn` once per record of `kind`, in byte order of id (kAll: all
  // results, then all failures), over one consistent view of the store;
  // stops early, returning OK, when `fn` returns false. `fn` may call this
  // store (including Put); it does not see those writes. A record that does
  // not parse stops the iteration with DataLoss naming its id.
  absl::Status ForEach(Kind kind, const std::function<bool(const Outcome&)>& fn) const;
  // The same, passing each record as OutcomeToJson wrote it (one line of
  // JSON), unparsed: what `results --export` writes. A record that is not
  // one line of a JSON object stops the iteration with DataLoss naming its
  // id.
  absl::Status ForEachJson(Kind kind, const std::function<bool(std::string_view json)>& fn) const;
  // The same, passing each record as it is stored (a compact output's bytes
  // apart from the text, undecoded): what the Parquet export reads. A value
  // that is not a stored record stops the iteration with DataLoss naming
  // its id.
  absl::Status ForEachStored(Kind kind, const std::function<bool(const StoredRecord&)>& fn) const;

  // Small string values outside the outcome key space. PutMeta is durable
  // like Put; GetMeta returns nullopt for a missing key.
  absl::Status PutMeta(const std::string& key, const std::string& value) override;
  absl::StatusOr<std::optional<std::string>> GetMeta(const std::string& key) const override;

  // Read-only stores: catch up with what the writing process has written
  // since Open (a reader polling a running instance's store). Read-write stores: no-op, OK.
  absl::Status Refresh();

  const std::string& dir() const;
  bool read_only() const;

 private:
  struct Impl;
  explicit RocksDbOutcomeStore(std::unique_ptr<Impl> impl);
  // Open, on `env` where it is not null (the store keeps it).
  static absl::StatusOr<std::unique_ptr<RocksDbOutcomeStore>> OpenWith(const std::string& dir, Options options,
                                                                       std::unique_ptr<rocksdb::Env> env);
  std::unique_ptr<Impl> impl_;
};

}  // namespace qinfer::storage
