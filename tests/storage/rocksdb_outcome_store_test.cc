#include "qinfer/storage/rocksdb_outcome_store.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/table.h>

#include "qinfer/core/json_scan.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/core/output_encoding.h"

namespace qinfer::storage {
namespace {

using Kind = RocksDbOutcomeStore::Kind;

Outcome Result(std::string id, std::vector<float> output = {1.0f, 2.0f}) {
  Outcome o;
  o.id = std::move(id);
  o.ok = true;
  o.output = std::move(output);
  o.device = "cpu";
  o.bucket = 64;
  o.batch_size = 8;
  o.padded_length = 64;
  o.model_name = "mini";
  o.model_digest = "sha256:abc";
  o.queue_seconds = 0.25;
  o.run_seconds = 0.5;
  o.completed_at_ms = 1700000000000;
  o.input_length = 17;
  return o;
}

Outcome Failure(std::string id, std::string reason = reason::kOom) {
  Outcome o;
  o.id = std::move(id);
  o.ok = false;
  o.reason = std::move(reason);
  o.error = "out of memory";
  o.input_length = 4096;
  o.payload = R"({"id":"x","input_ids":[1,2,3]})";
  o.origin.topic = "jobs";
  o.origin.partition = 3;
  o.origin.offset = 42;
  o.completed_at_ms = 1700000000001;
  return o;
}

Outcome Attempt(Outcome o, int attempt) {
  o.attempt = attempt;
  return o;
}

// The column families of a store an older version wrote (before ranks),
// "default" spelled out: RocksDB's kDefaultColumnFamilyName may not be
// initialised yet when this is.
const std::vector<std::string> kOlderStore = {"default", "results", "failed", "meta", "attempts", "history"};

// The store's database opened directly, every column family by name: what a
// test uses to lay out or damage a store as nothing else could.
struct RawStore {
  // The store in `dir` as it is; or, with `create`, a new one with those
  // column families (in that order: handles[i] is create[i]).
  explicit RawStore(const std::string& dir, std::vector<std::string> create = {}) {
    rocksdb::DBOptions options;
    options.create_if_missing = !create.empty();
    options.create_missing_column_families = !create.empty();
    std::vector<std::string> names = std::move(create);
    if (names.empty()) {
      EXPECT_TRUE(rocksdb::DB::ListColumnFamilies(options, dir, &names).ok());
    }
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const std::string& name : names) cfs.emplace_back(name, rocksdb::ColumnFamilyOptions());
    rocksdb::DB* raw = nullptr;
    EXPECT_TRUE(rocksdb::DB::Open(options, dir, cfs, &handles, &raw).ok());
    db.reset(raw);
  }
  ~RawStore() {
    for (rocksdb::ColumnFamilyHandle* h : handles) EXPECT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    EXPECT_TRUE(db->Close().ok());
  }
  rocksdb::ColumnFamilyHandle* cf(const std::string& name) {
    for (rocksdb::ColumnFamilyHandle* h : handles) {
      if (h->GetName() == name) return h;
    }
    ADD_FAILURE() << "no column family " << name;
    return nullptr;
  }
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
};

class RocksDbOutcomeStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) / "store-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    dir_ = (std::filesystem::path(root_) / "db").string();
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }

  std::unique_ptr<RocksDbOutcomeStore> OpenOrDie(RocksDbOutcomeStore::Options options = {}) {
    auto store = RocksDbOutcomeStore::Open(dir_, options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  RocksDbOutcomeStore& store() {
    if (store_ == nullptr) store_ = OpenOrDie();
    return *store_;
  }

  void PutOrDie(std::vector<Outcome> outcomes) { ASSERT_TRUE(store().Put(outcomes).ok()); }

  std::optional<Outcome> GetOrDie(const std::string& id) {
    auto got = store().Get(id);
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? *got : std::nullopt;
  }

  std::vector<Outcome> HistoryOrDie(const std::string& id) {
    auto history = store().History(id);
    EXPECT_TRUE(history.ok()) << history.status();
    return history.ok() ? *history : std::vector<Outcome>{};
  }

  uint64_t Results() { return store().CountResults().value(); }
  uint64_t Failures() { return store().CountFailures().value(); }
  uint64_t Superseded() { return store().CountSuperseded().value(); }

  // Everything a reader can see of `ids`: final state, history and counts.
  struct State {
    std::map<std::string, std::optional<Outcome>> records;
    std::map<std::string, std::vector<Outcome>> history;
    uint64_t results = 0, failures = 0, superseded = 0;
    friend bool operator==(const State&, const State&) = default;
  };
  State StateOf(const std::vector<std::string>& ids) {
    State state;
    for (const std::string& id : ids) {
      state.records[id] = GetOrDie(id);
      state.history[id] = HistoryOrDie(id);
    }
    state.results = Results();
    state.failures = Failures();
    state.superseded = Superseded();
    return state;
  }

  std::string root_;
  std::string dir_;
  std::unique_ptr<RocksDbOutcomeStore> store_;
};

TEST_F(RocksDbOutcomeStoreTest, OpenCreatesMissingDirectories) {
  dir_ = (std::filesystem::path(root_) / "a" / "b" / "db").string();
  EXPECT_NE(OpenOrDie(), nullptr);
  EXPECT_TRUE(std::filesystem::is_directory(dir_));
}

TEST_F(RocksDbOutcomeStoreTest, GetOfMissingIdReturnsNullopt) {
  PutOrDie({Result("a")});
  EXPECT_EQ(GetOrDie("missing"), std::nullopt);
}

TEST_F(RocksDbOutcomeStoreTest, SameIdWrittenTwiceKeepsOneRecordWithLatest) {
  PutOrDie({Result("a", {1.0f})});
  PutOrDie({Result("a", {2.0f})});
  EXPECT_EQ(Results(), 1u);
  EXPECT_EQ(GetOrDie("a")->output, std::vector<float>{2.0f});

  PutOrDie({Failure("f", reason::kOom)});
  PutOrDie({Failure("f", reason::kTooLong)});
  EXPECT_EQ(Failures(), 1u);
  EXPECT_EQ(GetOrDie("f")->reason, reason::kTooLong);
}

TEST_F(RocksDbOutcomeStoreTest, SameIdTwiceInOneBatchKeepsTheLater) {
  PutOrDie({Result("a", {1.0f}), Result("a", {3.0f})});
  EXPECT_EQ(Results(), 1u);
  EXPECT_EQ(GetOrDie("a")->output, std::vector<float>{3.0f});
}

TEST_F(RocksDbOutcomeStoreTest, ResultAfterFailureReplacesTheFailure) {
  PutOrDie({Failure("a")});
  PutOrDie({Result("a")});
  EXPECT_EQ(Results(), 1u);
  EXPECT_EQ(Failures(), 0u);
  EXPECT_TRUE(GetOrDie("a")->ok);
}

TEST_F(RocksDbOutcomeStoreTest, ResultAfterFailureInOneBatchReplacesIt) {
  PutOrDie({Failure("a"), Result("a")});
  EXPECT_EQ(Results(), 1u);
  EXPECT_EQ(Failures(), 0u);
}

TEST_F(RocksDbOutcomeStoreTest, ResultOfAReplayMovesTheFailureToHistory) {
  const Outcome failed = Attempt(Failure("a", reason::kTooLong), 0);
  PutOrDie({failed});
  PutOrDie({Attempt(Result("a", {4.0f}), 1)});
  std::optional<Outcome> got = GetOrDie("a");
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->ok);
  EXPECT_EQ(got->attempt, 1);
  EXPECT_EQ(HistoryOrDie("a"), std::vector<Outcome>{failed});
  EXPECT_EQ(Results(), 1u);
  EXPECT_EQ(Failures(), 0u);
  EXPECT_EQ(Superseded(), 1u);
}

TEST_F(RocksDbOutcomeStoreTest, FailuresOfLaterAttemptsKeepTheEarlierOnesInOrder) {
  const Outcome a0 = Attempt(Failure("a", reason::kTooLong), 0);
  const Outcome a1 = Attempt(Failure("a", reason::kOom), 1);
  PutOrDie({a0});
  PutOrDie({a1});
  EXPECT_EQ(GetOrDie("a"), a1);
  EXPECT_EQ(HistoryOrDie("a"), std::vector<Outcome>{a0});
  EXPECT_EQ(Failures(), 1u);
  EXPECT_EQ(Superseded(), 1u);

  PutOrDie({Attempt(Result("a"), 2)});
  EXPECT_TRUE(GetOrDie("a")->ok);
  EXPECT_EQ(HistoryOrDie("a"), (std::vector<Outcome>{a0, a1}));
  EXPECT_EQ(Failures(), 0u);
  EXPECT_EQ(Superseded(), 2u);
}

TEST_F(RocksDbOutcomeStoreTest, HistoryIteratesByAttemptNotByDigitsWritten) {
  // 2 < 10 as numbers but "10" < "2" as text: the key is zero-padded.
  PutOrDie({Attempt(Failure("a"), 2)});
  PutOrDie({Attempt(Failure("a"), 10)});
  PutOrDie({Attempt(Failure("a"), 11)});
  std::vector<Outcome> history = HistoryOrDie("a");
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].attempt, 2);
  EXPECT_EQ(history[1].attempt, 10);
  EXPECT_EQ(GetOrDie("a")->attempt, 11);
}

TEST_F(RocksDbOutcomeStoreTest, TheSamePutTwiceLeavesTheSameState) {
  const std::vector<std::string> ids = {"a", "b", "c"};
  const std::vector<std::vector<Outcome>> puts = {
      {Attempt(Failure("a", reason::kTooLong), 0)},         {Attempt(Failure("a", reason::kOom), 1)},
      {Attempt(Failure("b"), 0), Attempt(Failure("b"), 1)}, {Attempt(Result("a"), 2), Attempt(Failure("c"), 3)},
      {Attempt(Failure("c"), 0), Attempt(Result("b"), 2)},
  };
  for (const std::vector<Outcome>& put : puts) {
    PutOrDie(put);
    const State once = StateOf(ids);
    PutOrDie(put);
    EXPECT_EQ(StateOf(ids), once) << "after a Put of " << put.size() << " outcomes, starting with " << put.front().id;
  }
  EXPECT_EQ(Superseded(), 5u) << "a: 0 and 1; b: 0 and 1; c: 0";
}

TEST_F(RocksDbOutcomeStoreTest, AFailureOfTheSameAttemptOverwritesWithoutHistory) {
  PutOrDie({Attempt(Failure("a", reason::kOom), 1)});
  PutOrDie({Attempt(Failure("a", reason::kModelError), 1)});
  EXPECT_EQ(GetOrDie("a")->reason, reason::kModelError);
  EXPECT_TRUE(HistoryOrDie("a").empty());
  EXPECT_EQ(Failures(), 1u);
  EXPECT_EQ(Superseded(), 0u);
}

TEST_F(RocksDbOutcomeStoreTest, AnEarlierAttemptArrivingLateGoesToHistory) {
  // The original message redelivered after its replay already failed.
  const Outcome a0 = Attempt(Failure("a", reason::kTooLong), 0);
  const Outcome a1 = Attempt(Failure("a", reason::kOom), 1);
  PutOrDie({a1});
  PutOrDie({a0});
  EXPECT_EQ(GetOrDie("a"), a1);
  EXPECT_EQ(HistoryOrDie("a"), std::vector<Outcome>{a0});
  EXPECT_EQ(Failures(), 1u);
}

TEST_F(RocksDbOutcomeStoreTest, AFailureOfALaterAttemptSupersedesAResultKeptInHistory) {
  // A replay that failed: the later attempt is the final state, the result
  // of the earlier one stays readable.
  const Outcome r0 = Attempt(Result("a"), 0);
  PutOrDie({r0});
  PutOrDie({Attempt(Failure("a"), 1)});
  EXPECT_FALSE(GetOrDie("a")->ok);
  EXPECT_EQ(GetOrDie("a")->attempt, 1);
  EXPECT_EQ(HistoryOrDie("a"), std::vector<Outcome>{r0});
  EXPECT_EQ(Results(), 0u);
  EXPECT_EQ(Failures(), 1u);
  EXPECT_EQ(Superseded(), 1u);
}

TEST_F(RocksDbOutcomeStoreTest, AResultOfAnEarlierAttemptNeverReplacesALaterResult) {
  // The original message (or a stale replay of it) run after a replay of
  // the job already has a result: the later result stays.
  const Outcome r2 = Attempt(Result("a", {2.0f}), 2);
  const Outcome r1 = Attempt(Result("a", {1.0f}), 1);
  PutOrDie({r2});
  PutOrDie({r1});
  EXPECT_EQ(GetOrDie("a"), r2);
  EXPECT_EQ(HistoryOrDie("a"), std::vector<Outcome>{r1});
  EXPECT_EQ(Results(), 1u);
  EXPECT_EQ(Superseded(), 1u);
  PutOrDie({Attempt(Result("a", {0.0f}), 0)});
  EXPECT_EQ(GetOrDie("a"), r2);
  ASSERT_EQ(HistoryOrDie("a").size(), 2u);
  EXPECT_EQ(HistoryOrDie("a")[0].attempt, 0) << "history in attempt order";
  EXPECT_EQ(HistoryOrDie("a")[1], r1);
}

TEST_F(RocksDbOutcomeStoreTest, AResultOfALaterAttemptMovesTheEarlierResultToHistory) {
  const Outcome r0 = Attempt(Result("a", {1.0f}), 0);
  const Outcome r1 = Attempt(Result("a", {2.0f}), 1);
  PutOrDie({r0});
  PutOrDie({r1});
  EXPECT_EQ(GetOrDie("a"), r1);
  EXPECT_EQ(HistoryOrDie("a"), std::vector<Outcome>{r0});
  EXPECT_EQ(Results(), 1u);
}

TEST_F(RocksDbOutcomeStoreTest, FinalRecordAndHistoryDoNotDependOnTheOrderOutcomesArrive) {
  // One job's tries: too long, replayed with `reject` (too long again), the
  // same attempt re-run after a crash (out of memory, then a result), and
  // a replay with a policy. Every order, one outcome per Put and all in one
  // Put, ends in the same state: attempt 2's result, the rest in attempt
  // order, the failure of attempt 1 before its result.
  const std::vector<Outcome> tries = {
      Attempt(Failure("x", reason::kTooLong), 0),
      Attempt(Failure("x", reason::kTooLong), 1),
      Attempt(Failure("x", reason::kOom), 1),
      Attempt(Result("x", {1.0f}), 1),
      Attempt(Result("x", {2.0f}), 2),
  };
  // The two failures of attempt 1 rank the same (the later one written
  // wins), so only one of them takes part in each order.
  std::vector<int> order = {0, 1, 3, 4};
  int n = 0;
  do {
    for (bool one_put : {false, true}) {
      const std::string id = "x" + std::to_string(n++);
      std::vector<Outcome> put;
      for (int i : order) {
        Outcome o = tries[size_t(i)];
        o.id = id;
        put.push_back(o);
      }
      if (one_put) {
        PutOrDie(put);
      } else {
        for (const Outcome& o : put) PutOrDie({o});
      }
      std::optional<Outcome> final_record = GetOrDie(id);
      ASSERT_TRUE(final_record.has_value());
      EXPECT_TRUE(final_record->ok) << id;
      EXPECT_EQ(final_record->attempt, 2) << id;
      std::vector<std::pair<int, bool>> history;
      for (const Outcome& h : HistoryOrDie(id)) history.emplace_back(h.attempt, h.ok);
      EXPECT_EQ(history, (std::vector<std::pair<int, bool>>{{0, false}, {1, false}, {1, true}}))
          << id << (one_put ? " in one Put" : " one per Put");
    }
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(n, 48);
  EXPECT_EQ(Results(), 48u);
  EXPECT_EQ(Failures(), 0u);
  EXPECT_EQ(Superseded(), 48u * 3);
}

// The newest attempt wins inside one write too, for an id the store already
// holds: the write's older attempt, ranked above the stored record but
// below the write's newer one, goes to history whichever of the two comes
// first in the write, and whether the stored record's rank was written by
// this process or read back after a reopen.
TEST_F(RocksDbOutcomeStoreTest, InOneWriteAnOlderAttemptNeverReplacesANewerOneForAnIdAlreadyStored) {
  int n = 0;
  for (bool reopen : {false, true}) {
    for (bool newer_first : {true, false}) {
      for (bool newer_ok : {true, false}) {
        const std::string id = "s" + std::to_string(n++);
        Outcome stored = Attempt(Failure(id, reason::kTooLong), 1);
        PutOrDie({stored});
        if (reopen) {
          store_.reset();
          store();
        }
        Outcome older = Attempt(Result(id, {2.0f}), 2);
        Outcome newer = newer_ok ? Attempt(Result(id, {3.0f}), 3) : Attempt(Failure(id, reason::kOom), 3);
        PutOrDie(newer_first ? std::vector<Outcome>{newer, older} : std::vector<Outcome>{older, newer});
        const std::string where = id + (reopen ? " after a reopen" : "") + (newer_first ? ", newer first" : ", older first");
        std::optional<Outcome> final_record = GetOrDie(id);
        ASSERT_TRUE(final_record.has_value()) << where;
        EXPECT_EQ(final_record->attempt, 3) << where;
        EXPECT_EQ(final_record->ok, newer_ok) << where;
        std::vector<std::pair<int, bool>> history;
        for (const Outcome& h : HistoryOrDie(id)) history.emplace_back(h.attempt, h.ok);
        EXPECT_EQ(history, (std::vector<std::pair<int, bool>>{{1, false}, {2, true}})) << where;
      }
    }
  }
  EXPECT_EQ(Results() + Failures(), 8u) << "one final record per id";
}

TEST_F(RocksDbOutcomeStoreTest, OneSpanAppliesTheRulesInOrder) {
  const Outcome a0 = Attempt(Failure("a", reason::kTooLong), 0);
  const Outcome a1 = Attempt(Failure("a", reason::kOom), 1);
  const Outcome a2 = Attempt(Result("a"), 2);
  const Outcome a3 = Attempt(Failure("a"), 3);
  const Outcome b1 = Attempt(Failure("b", reason::kOom), 1);
  const Outcome b0 = Attempt(Failure("b", reason::kTooLong), 0);
  PutOrDie({a0, b1, a1, a2, a3, b0, Attempt(Failure("b", reason::kModelError), 1)});
  EXPECT_EQ(GetOrDie("a"), a3) << "attempt 3 came after the result of 2: the later attempt wins";
  EXPECT_EQ(HistoryOrDie("a"), (std::vector<Outcome>{a0, a1, a2}));
  EXPECT_EQ(GetOrDie("b")->reason, reason::kModelError) << "the same attempt overwrites";
  EXPECT_EQ(HistoryOrDie("b"), std::vector<Outcome>{b0});
  EXPECT_EQ(Results(), 0u);
  EXPECT_EQ(Failures(), 2u);
  EXPECT_EQ(Superseded(), 4u);
}

TEST_F(RocksDbOutcomeStoreTest, HistoryOfAnIdHoldsNoEntriesOfIdsThatExtendIt) {
  // Ids may hold a NUL byte, the separator in history keys.
  const std::string longer(
      "a\0"
      "0000000001",
      12);
  PutOrDie({Attempt(Failure("a"), 0), Attempt(Failure(longer), 0)});
  PutOrDie({Attempt(Result("a"), 1), Attempt(Result(longer), 1)});
  EXPECT_EQ(HistoryOrDie("a").size(), 1u);
  EXPECT_EQ(HistoryOrDie(longer).size(), 1u);
  EXPECT_TRUE(HistoryOrDie("missing").empty());
}

TEST_F(RocksDbOutcomeStoreTest, OutcomeWithANegativeAttemptRejectsTheWholeBatch) {
  absl::Status s = store().Put(std::vector<Outcome>{Failure("a"), Attempt(Failure("b"), -1)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("id b"), std::string::npos) << s;
  EXPECT_EQ(Failures(), 0u);
}

TEST_F(RocksDbOutcomeStoreTest, FailureOfTheSameAttemptAfterAResultKeepsTheResult) {
  // A job re-run after a crash that ran out of memory this time.
  PutOrDie({Result("a", {7.0f})});
  PutOrDie({Failure("a")});
  EXPECT_EQ(Results(), 1u);
  EXPECT_EQ(Failures(), 0u);
  std::optional<Outcome> got = GetOrDie("a");
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->ok);
  EXPECT_EQ(got->output, std::vector<float>{7.0f});
  EXPECT_EQ(HistoryOrDie("a"), std::vector<Outcome>{Failure("a")}) << "kept as history, as when it arrives first";
}

TEST_F(RocksDbOutcomeStoreTest, FailureAfterResultInOneBatchKeepsTheResult) {
  PutOrDie({Result("a"), Failure("a"), Failure("b")});
  EXPECT_EQ(Results(), 1u);
  EXPECT_EQ(Failures(), 1u);
  EXPECT_TRUE(GetOrDie("a")->ok);
  EXPECT_FALSE(GetOrDie("b")->ok);
  EXPECT_EQ(Superseded(), 1u);
}

TEST_F(RocksDbOutcomeStoreTest, CountsAreExactAfterAThousandOutcomePut) {
  std::vector<Outcome> outcomes;
  for (int i = 0; i < 1000; ++i) {
    outcomes.push_back(i % 4 == 0 ? Failure("job-" + std::to_string(i)) : Result("job-" + std::to_string(i)));
  }
  PutOrDie(outcomes);
  EXPECT_EQ(Results(), 750u);
  EXPECT_EQ(Failures(), 250u);
}

TEST_F(RocksDbOutcomeStoreTest, EmptyPutSucceeds) {
  EXPECT_TRUE(store().Put({}).ok());
  EXPECT_EQ(Results(), 0u);
}

TEST_F(RocksDbOutcomeStoreTest, OutcomeWithEmptyIdRejectsTheWholeBatch) {
  absl::Status s = store().Put(std::vector<Outcome>{Result("a"), Result("")});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(Results(), 0u);
}

TEST_F(RocksDbOutcomeStoreTest, ConcurrentWritersNeverLeaveTwoRecordsForAnId) {
  // The consumer thread (failures) and the executor thread (results) both
  // write; a failure racing a result for the same id must not survive it.
  constexpr int kIds = 500;
  RocksDbOutcomeStore& s = store();
  std::thread failures([&] {
    for (int i = 0; i < kIds; ++i) {
      EXPECT_TRUE(s.Put(std::vector<Outcome>{Failure("id-" + std::to_string(i))}).ok());
    }
  });
  std::thread results([&] {
    for (int i = 0; i < kIds; ++i) {
      EXPECT_TRUE(s.Put(std::vector<Outcome>{Result("id-" + std::to_string(i))}).ok());
    }
  });
  failures.join();
  results.join();
  EXPECT_EQ(Results(), static_cast<uint64_t>(kIds));
  EXPECT_EQ(Failures(), 0u);
}

TEST_F(RocksDbOutcomeStoreTest, ForEachVisitsEachRecordOnce) {
  PutOrDie({Result("r1"), Result("r2"), Result("r3"), Failure("f1"), Failure("f2")});
  std::map<std::string, int> seen;
  auto visit = [&](const Outcome& o) {
    ++seen[o.id];
    return true;
  };
  ASSERT_TRUE(store().ForEach(Kind::kAll, visit).ok());
  EXPECT_EQ(seen, (std::map<std::string, int>{{"f1", 1}, {"f2", 1}, {"r1", 1}, {"r2", 1}, {"r3", 1}}));

  seen.clear();
  ASSERT_TRUE(store().ForEach(Kind::kResults, visit).ok());
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_FALSE(seen.contains("f1"));

  seen.clear();
  ASSERT_TRUE(store().ForEach(Kind::kFailures, visit).ok());
  EXPECT_EQ(seen, (std::map<std::string, int>{{"f1", 1}, {"f2", 1}}));
}

// `results --export`: each record as the bytes it was stored as, not parsed
// and re-encoded (a meta's whitespace and key order as the producer sent
// them), results then failures.
TEST_F(RocksDbOutcomeStoreTest, ForEachJsonPassesEachRecordThroughAsItsStoredBytes) {
  Outcome r = Result("r1");
  r.meta_json = R"({"z": 1,   "a" : [ 2 ]})";
  Outcome f = Failure("f1");
  const std::vector<Outcome> outcomes = {r, f};
  // Bytes no encoder writes: the store keeps what it is given.
  const std::vector<std::string> json = {
      R"({"id":"r1","ok":true,"output":[0.5],  "meta":{"z": 1,   "a" : [ 2 ]},"attempt":0})",
      R"({"id":"f1","ok":false,"reason":"invalid","error":"bad",  "attempt":0})"};
  ASSERT_TRUE(store().Put(outcomes, json).ok());
  std::vector<std::string> seen;
  ASSERT_TRUE(store()
                  .ForEachJson(Kind::kAll,
                               [&](std::string_view record) {
                                 seen.emplace_back(record);
                                 return true;
                               })
                  .ok());
  EXPECT_EQ(seen, json);
  seen.clear();
  ASSERT_TRUE(store().ForEachJson(Kind::kFailures, [&](std::string_view record) {
    seen.emplace_back(record);
    return false;
  }).ok());
  EXPECT_EQ(seen, std::vector<std::string>{json[1]});
}

TEST_F(RocksDbOutcomeStoreTest, ForEachJsonRefusesARecordThatIsNotOneLineOfAnObjectNamingItsId) {
  ASSERT_TRUE(store().Put(std::vector<Outcome>{Result("split")}, std::vector<std::string>{"{\"id\":\"split\",\n}"}).ok());
  absl::Status s = store().ForEachJson(Kind::kAll, [](std::string_view) { return true; });
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("split"), std::string::npos) << s;
}

TEST_F(RocksDbOutcomeStoreTest, ForEachStopsWhenCallbackReturnsFalse) {
  PutOrDie({Result("r1"), Result("r2"), Result("r3"), Failure("f1")});
  int calls = 0;
  absl::Status s = store().ForEach(Kind::kAll, [&](const Outcome&) {
    ++calls;
    return calls < 2;
  });
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(calls, 2);
}

TEST_F(RocksDbOutcomeStoreTest, ForEachDoesNotSeeWritesMadeDuringIt) {
  PutOrDie({Result("r1"), Result("r2")});
  int calls = 0;
  absl::Status s = store().ForEach(Kind::kResults, [&](const Outcome& o) {
    ++calls;
    EXPECT_TRUE(store().Put(std::vector<Outcome>{Result(o.id + "-new")}).ok());
    return true;
  });
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(Results(), 4u);
}

TEST_F(RocksDbOutcomeStoreTest, DataSurvivesCloseAndReopen) {
  PutOrDie({Result("r1", {0.5f}), Failure("f1")});
  ASSERT_TRUE(store().PutMeta("plan", "{}").ok());
  store_.reset();  // close

  store_ = OpenOrDie();
  EXPECT_EQ(Results(), 1u);
  EXPECT_EQ(Failures(), 1u);
  EXPECT_EQ(GetOrDie("r1")->output, std::vector<float>{0.5f});
  EXPECT_EQ(store().GetMeta("plan").value(), "{}");
}

TEST_F(RocksDbOutcomeStoreTest, AttemptsCountUpSurviveReopenAndEndWithTheOutcome) {
  const Origin a{"jobs", 0, 7, 1}, b{"jobs", 1, 7, 1}, untracked{"", -1, -1, 0};
  const std::vector<Origin> both = {a, b, untracked};
  EXPECT_EQ(store().Attempts(both).value(), (std::vector<int>{0, 0, 0}));
  ASSERT_TRUE(store().BeginAttempts(both).ok());
  ASSERT_TRUE(store().BeginAttempts(std::vector<Origin>{a}).ok());
  EXPECT_EQ(store().Attempts(both).value(), (std::vector<int>{2, 1, 0}));

  store_.reset();  // what a crash leaves behind is what the next run reads
  store_ = OpenOrDie();
  EXPECT_EQ(store().Attempts(both).value(), (std::vector<int>{2, 1, 0}));

  Outcome done = Result("job-a");
  done.origin = a;
  PutOrDie({done});
  EXPECT_EQ(store().Attempts(both).value(), (std::vector<int>{0, 1, 0}))
      << "the outcome's own write forgets its attempts, and only its";

  Outcome crashed = Failure("job-b", reason::kCrash);
  crashed.origin = b;
  PutOrDie({crashed});
  EXPECT_EQ(store().Attempts(both).value(), (std::vector<int>{0, 1, 0}))
      << "a crash record keeps the count that isolates a redelivery";
}

TEST_F(RocksDbOutcomeStoreTest, AttemptsAnOlderVersionWroteCountAndEndWithTheOutcome) {
  // Older versions kept one entry per message: "topic/partition/offset" -> count.
  {
    RawStore old(dir_, kOlderStore);
    ASSERT_TRUE(old.db->Put(rocksdb::WriteOptions(), old.cf("attempts"), "jobs/0/7", "2").ok());
    ASSERT_TRUE(old.db->Put(rocksdb::WriteOptions(), old.cf("attempts"), "jobs/0/8", "1").ok());
  }
  const Origin a{"jobs", 0, 7, 1}, b{"jobs", 0, 8, 1};
  const std::vector<Origin> both = {a, b};
  EXPECT_EQ(store().Attempts(both).value(), (std::vector<int>{2, 1}));
  ASSERT_TRUE(store().BeginAttempts(std::vector<Origin>{b}).ok());
  Outcome done = Result("job-a");
  done.origin = a;
  PutOrDie({done});
  EXPECT_EQ(store().Attempts(both).value(), (std::vector<int>{0, 2}));
  store_.reset();
  store_ = OpenOrDie();
  EXPECT_EQ(store().Attempts(both).value(), (std::vector<int>{0, 2}));
}

TEST_F(RocksDbOutcomeStoreTest, AReadOnlyFollowerReadsTheAttemptsTheWriterBegan) {
  const std::vector<Origin> one = {{"jobs", 0, 9, 1}};
  ASSERT_TRUE(store().BeginAttempts(one).ok());
  ASSERT_TRUE(store().BeginAttempts(one).ok());
  auto ro = OpenOrDie({.read_only = true});
  ASSERT_NE(ro, nullptr);
  EXPECT_EQ(ro->Attempts(one).value(), std::vector<int>{2});
}

TEST_F(RocksDbOutcomeStoreTest, PutWritesTheGivenBytesAndRefusesAMismatchedCount) {
  const Outcome r = Result("r1", {0.1f});
  // Any JSON of the record will do; these bytes have spaces OutcomeToJson
  // never writes, to tell them apart.
  const std::string json = R"({"id": "r1", "status": "ok", "output": [0.1]})";
  EXPECT_EQ(store().Put(std::vector<Outcome>{r}, std::vector<std::string>{}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Results(), 0u) << "nothing written";
  ASSERT_TRUE(store().Put(std::vector<Outcome>{r}, std::vector<std::string>{json}).ok());
  auto raw = GetOrDie("r1");
  ASSERT_TRUE(raw.has_value());
  EXPECT_EQ(raw->output, std::vector<float>{0.1f});
  EXPECT_TRUE(raw->device.empty()) << "read from the given bytes, not re-encoded";
}

TEST_F(RocksDbOutcomeStoreTest, TablesWrittenWithCrc32cChecksumsStayReadable) {
  // Older versions wrote table files with RocksDB's default checksum
  // (CRC32C); new files get XXH3. Both kinds must read in one store.
  {
    rocksdb::DBOptions options;
    options.create_if_missing = true;
    options.create_missing_column_families = true;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const char* name :
         {rocksdb::kDefaultColumnFamilyName.c_str(), "results", "failed", "meta", "attempts", "history"}) {
      cfs.emplace_back(name, rocksdb::ColumnFamilyOptions());
    }
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_, cfs, &handles, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), handles[1], "old", R"({"id":"old","status":"ok","output":[1.0]})").ok());
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions(), handles[1]).ok());
    for (rocksdb::ColumnFamilyHandle* h : handles) {
      ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    }
    ASSERT_TRUE(db->Close().ok());
  }
  for (int i = 0; i < 2000; ++i) PutOrDie({Result("new-" + std::to_string(i))});
  store_.reset();
  {
    // Flush what the store wrote into a table file of its own kind.
    rocksdb::DBOptions options;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(options, dir_, &names).ok());
    rocksdb::BlockBasedTableOptions table;
    table.checksum = rocksdb::kXXH3;
    rocksdb::ColumnFamilyOptions cf;
    cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    for (const std::string& name : names) cfs.emplace_back(name, cf);
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_, cfs, &handles, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions(), handles).ok());
    for (rocksdb::ColumnFamilyHandle* h : handles) {
      ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    }
    ASSERT_TRUE(db->Close().ok());
  }
  EXPECT_TRUE(GetOrDie("old").has_value());
  EXPECT_TRUE(GetOrDie("new-1999").has_value());
  EXPECT_EQ(Results(), 2001u);
}


// Every record is stored coded, smaller than its text, a compact output (a
// job's `encoding`) as its bytes, a quarter smaller than its base64; every
// read gives back the record's text as OutcomeToJson wrote it: Get,
// ForEachJson, a record moved to history, and ForEachStored with the bytes
// apart.
TEST_F(RocksDbOutcomeStoreTest, ACompactOutputIsStoredAsItsBytesAndReadBackAsWritten) {
  auto encoded = [](Outcome o, int attempt) {
    o.output_bytes = EncodeOutput(o.output, encoding::kBase64, nullptr);
    o.encoding = encoding::kBase64;
    o.output.clear();
    o.attempt = attempt;
    return o;
  };
  const Outcome first = encoded(Result("x", std::vector<float>(384, 0.375f)), 0);
  const Outcome second = encoded(Result("x", std::vector<float>(384, -1.5f)), 1);
  const Outcome floats = Result("y", std::vector<float>(384, 0.375f));
  PutOrDie({first, floats});
  PutOrDie({second});
  EXPECT_EQ(OutcomeToJson(*GetOrDie("x")), OutcomeToJson(second));
  ASSERT_EQ(HistoryOrDie("x").size(), 1u);
  EXPECT_EQ(OutcomeToJson(HistoryOrDie("x")[0]), OutcomeToJson(first)) << "moved to history as stored";

  std::map<std::string, std::string> texts;
  ASSERT_TRUE(store()
                  .ForEachJson(Kind::kAll,
                               [&](std::string_view json) {
                                 texts[OutcomeFromJson(json)->id] = std::string(json);
                                 return true;
                               })
                  .ok());
  EXPECT_EQ(texts["x"], OutcomeToJson(second)) << "byte for byte";
  EXPECT_EQ(texts["y"], OutcomeToJson(floats));
  int apart = 0;
  ASSERT_TRUE(store()
                  .ForEachStored(Kind::kResults,
                                 [&](const StoredRecord& r) {
                                   if (r.output_apart) {
                                     ++apart;
                                     EXPECT_EQ(r.output_bytes, second.output_bytes);
                                   }
                                   return true;
                                 })
                  .ok());
  EXPECT_EQ(apart, 1) << "the float record is its text";

  store_.reset();
  RawStore raw(dir_);
  std::string x, y;
  ASSERT_TRUE(raw.db->Get(rocksdb::ReadOptions(), raw.cf("results"), "x", &x).ok());
  ASSERT_TRUE(raw.db->Get(rocksdb::ReadOptions(), raw.cf("results"), "y", &y).ok());
  EXPECT_EQ(y, StoredValue(OutcomeToJson(floats), "")) << "coded";
  EXPECT_LT(y.size(), OutcomeToJson(floats).size());
  EXPECT_EQ(x, StoredValue(OutcomeToJson(second), second.output_bytes));
  EXPECT_NE(x.find(second.output_bytes), std::string::npos) << "384 floats: 1,536 bytes, not 2,048 of base64";
  EXPECT_LT(x.size(), OutcomeToJson(second).size() - 2048 + 1536);
}

// A stored value's counts and positions are varints (stored_record.cc),
// which gain a byte at 128 and at 16,384: a compact output of that many
// bytes and one either side (and of none and one), an output whose text starts at that byte of
// its record, a literal run and a digest's bytes of those lengths, each
// read back exactly from the store, and each value shown to hold the
// boundary itself.
TEST_F(RocksDbOutcomeStoreTest, ValuesAtEveryVarintBoundaryReadBackExactly) {
  const std::vector<size_t> sizes = {127, 128, 129, 16383, 16384, 16385};
  auto varint = [](size_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out += char(uint8_t(v) | 0x80);
    return out + char(v);
  };
  auto compact = [](std::string id, size_t bytes) {
    Outcome o = Result(std::move(id), {});
    for (size_t i = 0; i < bytes; ++i) o.output_bytes += char(uint8_t(i * 37 + 11));
    o.encoding = encoding::kUbinary;
    return o;
  };
  struct Case {
    Outcome outcome;
    std::string holds;  // what its stored value must hold: the boundary
  };
  std::vector<Case> cases;
  // And the smallest compact outputs: none (its text kept whole) and one byte.
  cases.push_back({compact("bytes-0", 0), std::string("\x02\x00", 2)});
  cases.push_back({compact("bytes-1", 1), std::string("\x02\x01", 2)});
  for (size_t n : sizes) {
    cases.push_back({compact("bytes-" + std::to_string(n), n), char(0x02) + varint(n)});
    // The output's text at byte n of the record (16,384 and beside it: a
    // result's members before its output take more than 128 bytes), the id
    // padding the text before it.
    if (n > 1000) {
      Outcome at = compact("at-" + std::to_string(n), 48);
      const std::string key = "\"output\":\"";
      at.id += std::string(n - (OutcomeToJson(at).rfind(key) + key.size()), 'p');
      ASSERT_EQ(OutcomeToJson(at).rfind(key) + key.size(), n);
      cases.push_back({at, char(0x02) + varint(48) + varint(n)});
    }
    // A literal run of n bytes: meta and its comma, between the codes of
    // "meta": and "model".
    Outcome literal = Result("literal-" + std::to_string(n));
    literal.meta_json = R"({"k":")" + std::string(n - 9, 'x') + R"("})";
    cases.push_back({literal, char(0x1f) + varint(n) + literal.meta_json + ","});
    // A hex run of n bytes: a digest of 2n digits.
    Outcome digest = Result("digest-" + std::to_string(n));
    digest.model_digest = "sha256:";
    for (size_t i = 0; i < n; ++i) {
      digest.model_digest += "0123456789abcdef"[i % 16];
      digest.model_digest += "fedcba9876543210"[i * 7 % 16];
    }
    cases.push_back({digest, char(0x1e) + varint(n)});
  }
  std::vector<Outcome> outcomes;
  for (const Case& c : cases) outcomes.push_back(c.outcome);
  PutOrDie(outcomes);

  std::map<std::string, std::string> texts;
  ASSERT_TRUE(store()
                  .ForEachJson(Kind::kAll,
                               [&](std::string_view json) {
                                 texts[std::string(RawJsonMember(json, "id").value_or("?"))] = std::string(json);
                                 return true;
                               })
                  .ok());
  ASSERT_EQ(texts.size(), cases.size());
  for (const Case& c : cases) {
    const std::string& id = c.outcome.id;
    EXPECT_EQ(texts["\"" + id + "\""], OutcomeToJson(c.outcome)) << id.substr(0, 20) << ": byte for byte";
    EXPECT_EQ(OutcomeToJson(GetOrDie(id).value_or(Outcome{})), OutcomeToJson(c.outcome)) << id.substr(0, 20);
  }
  store_.reset();
  RawStore raw(dir_);
  for (const Case& c : cases) {
    std::string value;
    ASSERT_TRUE(raw.db->Get(rocksdb::ReadOptions(), raw.cf("results"), c.outcome.id, &value).ok());
    EXPECT_NE(value.find(c.holds), std::string::npos) << c.outcome.id.substr(0, 20) << ": the boundary is stored";
  }
}

// A value that is no stored record (stored_record.h) is DataLoss naming its
// id, from every read.
TEST_F(RocksDbOutcomeStoreTest, AValueThatIsNoStoredRecordIsDataLossNamingItsId) {
  PutOrDie({Result("ok")});
  store_.reset();
  {
    RawStore raw(dir_);
    ASSERT_TRUE(raw.db->Put(rocksdb::WriteOptions(), raw.cf("results"), "bad", std::string("\x01\xff", 2)).ok());
  }
  auto get = store().Get("bad");
  EXPECT_EQ(get.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(get.status().message().find("id=bad"), std::string::npos) << get.status();
  absl::Status each = store().ForEachStored(Kind::kAll, [](const StoredRecord&) { return true; });
  EXPECT_EQ(each.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(each.message().find("id=bad"), std::string::npos) << each;
}

// Put ranks a new record against an id's final record by its rank, kept
// beside it, never by reading the record: an earlier record that no longer
// parses (a 10,000-float result, damaged here) still ranks, and moves to
// history as the bytes it was.
TEST_F(RocksDbOutcomeStoreTest, AnEarlierRecordIsRankedWithoutBeingParsed) {
  Outcome big = Result("x", std::vector<float>(10000, 0.5f));
  big.attempt = 1;
  PutOrDie({big});
  store_.reset();
  {
    RawStore raw(dir_);
    ASSERT_TRUE(raw.db->Put(rocksdb::WriteOptions(), raw.cf("results"), "x", "not json {").ok());
  }
  Outcome late = Result("x");
  late.attempt = 0;
  ASSERT_TRUE(store().Put(std::vector<Outcome>{late}).ok()) << "a redelivery of the first try ranks below";
  Outcome replay = Result("x");
  replay.attempt = 2;
  ASSERT_TRUE(store().Put(std::vector<Outcome>{replay}).ok());
  ASSERT_TRUE(GetOrDie("x").has_value());
  EXPECT_EQ(GetOrDie("x")->attempt, 2);
  EXPECT_EQ(Superseded(), 2u) << "the late try, then the damaged record";
  store_.reset();
  RawStore raw(dir_);
  std::string moved;
  ASSERT_TRUE(raw.db->Get(rocksdb::ReadOptions(), raw.cf("history"), std::string("x") + '\0' + "0000000001r", &moved)
                  .ok());
  EXPECT_EQ(moved, "not json {") << "moved as the bytes it was stored as";
}

// A store written before ranks were kept gets them at its first read-write
// open, and its records then rank as before.
TEST_F(RocksDbOutcomeStoreTest, AStoreWrittenBeforeRanksIsRankedAtOpen) {
  {
    RawStore old(dir_, kOlderStore);
    Outcome a = Result("a");
    a.attempt = 3;
    Outcome f = Failure("f");
    f.attempt = 1;
    ASSERT_TRUE(old.db->Put(rocksdb::WriteOptions(), old.cf("results"), "a", OutcomeToJson(a)).ok());
    ASSERT_TRUE(old.db->Put(rocksdb::WriteOptions(), old.cf("failed"), "f", OutcomeToJson(f)).ok());
  }
  Outcome late = Result("a");
  late.attempt = 1;
  Outcome same = Failure("f");
  same.attempt = 0;
  PutOrDie({late, same});
  EXPECT_EQ(GetOrDie("a")->attempt, 3) << "an earlier try never replaces a later one";
  EXPECT_EQ(GetOrDie("f")->attempt, 1);
  EXPECT_EQ(Superseded(), 2u);
}

TEST_F(RocksDbOutcomeStoreTest, ReadOnlyStoreRefusesToBeginAttempts) {
  PutOrDie({Result("r1")});
  auto ro = OpenOrDie({.read_only = true});
  ASSERT_NE(ro, nullptr);
  const std::vector<Origin> one = {{"jobs", 0, 1, 1}};
  EXPECT_EQ(ro->BeginAttempts(one).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ro->Attempts(one).value(), std::vector<int>{0});
}

TEST_F(RocksDbOutcomeStoreTest, DeliveryErrorRoundTrips) {
  Outcome r = Result("r1");
  r.delivery_error = "Broker: Unknown topic or partition";
  PutOrDie({r});
  EXPECT_EQ(GetOrDie("r1")->delivery_error, r.delivery_error);
}

TEST_F(RocksDbOutcomeStoreTest, SyncedStoreWritesAndReopens) {
  store_ = OpenOrDie({.sync = true});
  PutOrDie({Result("r1")});
  store_.reset();
  store_ = OpenOrDie();
  EXPECT_EQ(Results(), 1u);
}

TEST_F(RocksDbOutcomeStoreTest, ReadOnlyOpenSeesDataAndRejectsWrites) {
  PutOrDie({Result("r1"), Failure("f1")});
  ASSERT_TRUE(store().PutMeta("k", "v").ok());
  store_.reset();

  auto ro = OpenOrDie({.read_only = true});
  ASSERT_NE(ro, nullptr);
  EXPECT_TRUE(ro->read_only());
  EXPECT_EQ(ro->CountResults().value(), 1u);
  EXPECT_EQ(ro->CountFailures().value(), 1u);
  EXPECT_TRUE(ro->Get("r1").value().has_value());
  EXPECT_EQ(ro->GetMeta("k").value(), "v");
  EXPECT_EQ(ro->Put(std::vector<Outcome>{Result("r2")}).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ro->PutMeta("k", "w").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(ro->Get("r2").value().has_value());
}

TEST_F(RocksDbOutcomeStoreTest, ReadOnlyOpenSeesHistory) {
  const Outcome failed = Attempt(Failure("a"), 0);
  PutOrDie({failed, Attempt(Result("a"), 1)});
  auto ro = OpenOrDie({.read_only = true});
  ASSERT_NE(ro, nullptr);
  EXPECT_EQ(ro->History("a").value(), std::vector<Outcome>{failed});
  EXPECT_EQ(ro->CountSuperseded().value(), 1u);
}

TEST_F(RocksDbOutcomeStoreTest, ReadOnlyOpenOfAStoreWithoutHistoryWorks) {
  // A store as written before attempts and history were kept.
  {
    rocksdb::DBOptions options;
    options.create_if_missing = true;
    options.create_missing_column_families = true;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const char* name : {rocksdb::kDefaultColumnFamilyName.c_str(), "results", "failed", "meta"}) {
      cfs.emplace_back(name, rocksdb::ColumnFamilyOptions());
    }
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_, cfs, &handles, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), handles[1], "r1", R"({"id":"r1","status":"ok","output":[1.0]})").ok());
    for (rocksdb::ColumnFamilyHandle* h : handles) {
      ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    }
    ASSERT_TRUE(db->Close().ok());
  }
  auto ro = OpenOrDie({.read_only = true});
  ASSERT_NE(ro, nullptr);
  EXPECT_TRUE(ro->Get("r1").value().has_value());
  EXPECT_TRUE(ro->History("r1").value().empty());
  EXPECT_EQ(ro->CountSuperseded().value(), 0u);
  ro.reset();

  // A read-write open adds the column family.
  PutOrDie({Attempt(Failure("f"), 0), Attempt(Result("f"), 1)});
  EXPECT_EQ(HistoryOrDie("f").size(), 1u);
}

// What Put reads of an earlier record is its rank (records themselves are
// never parsed to write, AnEarlierRecordIsRankedWithoutBeingParsed): a rank
// that does not parse stops the write, naming the id.
TEST_F(RocksDbOutcomeStoreTest, ARankThatDoesNotParseStopsPutWithItsId) {
  {
    ASSERT_TRUE(store().PutMeta("k", "v").ok());  // creates the store
    store_.reset();
    rocksdb::DBOptions options;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(options, dir_, &names).ok());
    for (const std::string& name : names) {
      cfs.emplace_back(name, rocksdb::ColumnFamilyOptions());
    }
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_, cfs, &handles, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    for (rocksdb::ColumnFamilyHandle* h : handles) {
      if (h->GetName() == "ranks") {
        ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), h, "a", "{not a rank").ok());
      }
      ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    }
    ASSERT_TRUE(db->Close().ok());
  }
  absl::Status s = store().Put(std::vector<Outcome>{Result("a")});
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("id=a"), std::string::npos) << s;
  EXPECT_NE(s.message().find("cf=ranks"), std::string::npos) << s;
  EXPECT_EQ(Results(), 0u) << "nothing written";
}

TEST_F(RocksDbOutcomeStoreTest, ReadOnlyOpenWorksWhileAWriterHoldsTheStore) {
  PutOrDie({Result("r1")});  // the writer stays open, as a server would
  auto ro = OpenOrDie({.read_only = true});
  ASSERT_NE(ro, nullptr);
  EXPECT_TRUE(ro->Get("r1").value().has_value());

  PutOrDie({Result("r2")});
  EXPECT_FALSE(ro->Get("r2").value().has_value());  // not yet
  ASSERT_TRUE(ro->Refresh().ok());
  EXPECT_TRUE(ro->Get("r2").value().has_value());
  EXPECT_EQ(ro->CountResults().value(), 2u);
}

TEST_F(RocksDbOutcomeStoreTest, ReadOnlyOpenOfMissingDirIsNotFound) {
  auto ro = RocksDbOutcomeStore::Open(dir_, {.read_only = true});
  ASSERT_FALSE(ro.ok());
  EXPECT_EQ(ro.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(ro.status().message().find(dir_), std::string::npos) << ro.status();
}

TEST_F(RocksDbOutcomeStoreTest, SecondWriterIsRefusedWithThePath) {
  PutOrDie({Result("r1")});
  auto second = RocksDbOutcomeStore::Open(dir_);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(dir_), std::string::npos) << second.status();
}

TEST_F(RocksDbOutcomeStoreTest, MetaRoundTrips) {
  EXPECT_EQ(store().GetMeta("plan").value(), std::nullopt);
  ASSERT_TRUE(store().PutMeta("plan", R"({"64":32,"128":16})").ok());
  EXPECT_EQ(store().GetMeta("plan").value(), R"({"64":32,"128":16})");
  ASSERT_TRUE(store().PutMeta("plan", "v2").ok());
  EXPECT_EQ(store().GetMeta("plan").value(), "v2");
  // Meta keys live apart from outcome ids.
  EXPECT_EQ(GetOrDie("plan"), std::nullopt);
  EXPECT_EQ(Results(), 0u);
}

TEST_F(RocksDbOutcomeStoreTest, ResultWithMetaAndFloatsRoundTripsEqual) {
  Outcome in = Result("doc-42", {0.1f, -2.5f, 3.4028235e38f, 1e-30f, 0.0f});
  in.reply_to = "replies";
  in.meta_json = R"({"any":"thing","n":[1,2]})";
  in.attempt = 2;
  in.device = "cuda:0";
  // Not stored for results (see outcome_json.h): left at the default so the
  // whole struct can be compared.
  in.origin = Origin{};
  PutOrDie({in});

  std::optional<Outcome> out = GetOrDie("doc-42");
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out, in);
}

TEST_F(RocksDbOutcomeStoreTest, FailureRoundTripsExceptOriginEpoch) {
  Outcome in = Failure("bad-1", reason::kTooLong);
  in.origin.epoch = 9;  // assignment generation: not stored
  in.meta_json = R"({"k":1})";
  PutOrDie({in});

  std::optional<Outcome> out = GetOrDie("bad-1");
  ASSERT_TRUE(out.has_value());
  Outcome expected = in;
  expected.origin.epoch = 0;
  EXPECT_EQ(*out, expected);
}

}  // namespace
}  // namespace qinfer::storage
