#include "qinfer/collect/collector.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_replace.h"
#include "fakes/fake_sinks.h"
#include "qinfer/core/dead_letter.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::collect {
namespace {

using Kind = Reading::Kind;

const Topics kTopics{"replies", "dlq"};

Outcome Result(const std::string& id, float x) {
  Outcome o;
  o.id = id;
  o.ok = true;
  o.output = {x, x + 1};
  o.device = "cpu";
  o.bucket = 16;
  o.batch_size = 4;
  o.padded_length = 12;
  o.input_length = 9;
  o.model_name = "m";
  o.model_digest = "sha256:00";
  o.completed_at_ms = 1000;
  return o;
}

Outcome Failure(const std::string& id, const std::string& why, int attempt) {
  Outcome o;
  o.id = id;
  o.reason = why;
  o.error = "it failed";
  o.input_length = 600;
  o.payload = R"({"id":")" + id + R"(","input_ids":[1,2]})";
  o.attempt = attempt;
  o.origin.topic = "jobs";
  o.origin.partition = 1;
  o.origin.offset = 40 + attempt;
  o.completed_at_ms = 2000 + attempt;
  return o;
}

Message Reply(const Outcome& o, int32_t partition, int64_t offset) {
  Message m;
  m.topic = kTopics.reply;
  m.partition = partition;
  m.offset = offset;
  m.key = o.id;
  m.value = OutcomeToJson(o);
  return m;
}

Message Letter(const Outcome& failure, int32_t partition, int64_t offset) {
  DeadLetter d = ToDeadLetter(failure);
  Message m;
  m.topic = kTopics.dead_letter;
  m.partition = partition;
  m.offset = offset;
  m.key = d.key;
  m.value = d.value;
  m.headers = d.headers;
  return m;
}

// The compact notice OutcomeRecorder sends when a delivery failed for good.
Outcome Notice(Outcome o, const std::string& delivery_error) {
  o.delivery_error = delivery_error;
  o.output.clear();
  o.payload.clear();
  o.payload_truncated = true;
  if (o.ok) {
    o.ok = false;
    o.reason = reason::kUndeliverable;
    o.error = "the result is stored, but its reply could not be delivered";
  }
  return o;
}

Message Raw(const std::string& topic, int64_t offset, const std::string& value) {
  Message m;
  m.topic = topic;
  m.partition = 0;
  m.offset = offset;
  m.value = value;
  return m;
}

TEST(ReadTest, ReplyBecomesTheResultItsJsonHolds) {
  const Outcome result = Result("doc-1", 0.5f);
  Reading r = Read(Reply(result, 0, 7), kTopics);
  ASSERT_EQ(r.kind, Kind::kOutcome) << r.why;
  EXPECT_EQ(r.outcome, *OutcomeFromJson(OutcomeToJson(result)));
  EXPECT_TRUE(r.outcome.ok);
  EXPECT_EQ(r.outcome.output, result.output);
}

TEST(ReadTest, DeadLetterBecomesTheFailureRecordItsHeadersDescribe) {
  Outcome failure = Failure("doc-2", reason::kTooLong, 1);
  failure.replay_of = {"jobs", 0, 3, 0};
  Reading r = Read(Letter(failure, 0, 0), kTopics);
  ASSERT_EQ(r.kind, Kind::kOutcome) << r.why;
  EXPECT_FALSE(r.outcome.ok);
  EXPECT_EQ(r.outcome.id, "doc-2");
  EXPECT_EQ(r.outcome.reason, reason::kTooLong);
  EXPECT_EQ(r.outcome.error, failure.error);
  EXPECT_EQ(r.outcome.payload, failure.payload);
  EXPECT_EQ(r.outcome.attempt, 1);
  EXPECT_EQ(r.outcome.origin, failure.origin);
  EXPECT_EQ(r.outcome.replay_of, failure.replay_of);
  EXPECT_EQ(r.outcome.input_length, 600u);
  EXPECT_EQ(r.outcome.completed_at_ms, failure.completed_at_ms);
}

TEST(ReadTest, NoticeOfAnUndeliveredReplyIsANoticeNotAFailure) {
  Reading r = Read(Letter(Notice(Result("doc-3", 1), "topic gone"), 0, 0), kTopics);
  EXPECT_EQ(r.kind, Kind::kNotice);
  EXPECT_EQ(r.outcome.id, "doc-3");
}

TEST(ReadTest, NoticeOfAnUndeliveredDeadLetterIsTheFailureRecord) {
  Reading r = Read(Letter(Notice(Failure("doc-4", reason::kInvalid, 0), "too large"), 0, 0), kTopics);
  ASSERT_EQ(r.kind, Kind::kOutcome) << r.why;
  EXPECT_EQ(r.outcome.reason, reason::kInvalid);
  EXPECT_EQ(r.outcome.delivery_error, "too large");
  EXPECT_TRUE(r.outcome.payload_truncated);
  EXPECT_TRUE(r.outcome.payload.empty());
}

TEST(ReadTest, OneTopicForBothTellsDeadLettersByTheirHeaders) {
  const Topics same{"out", "out"};
  Message reply = Reply(Result("a", 1), 0, 0);
  reply.topic = "out";
  Message letter = Letter(Failure("b", reason::kOom, 0), 0, 1);
  letter.topic = "out";
  Reading r = Read(reply, same);
  ASSERT_EQ(r.kind, Kind::kOutcome) << r.why;
  EXPECT_TRUE(r.outcome.ok);
  r = Read(letter, same);
  ASSERT_EQ(r.kind, Kind::kOutcome) << r.why;
  EXPECT_EQ(r.outcome.reason, reason::kOom);
}

TEST(ReadTest, MessagesThatAreNotOutcomesAreUnreadableAndSayWhy) {
  Message no_id = Letter(Failure("c", reason::kOom, 0), 0, 0);
  std::erase_if(no_id.headers, [](const auto& h) { return h.first == dlq_header::kId; });
  Message bad_partition = Letter(Failure("c", reason::kOom, 0), 0, 0);
  for (auto& h : bad_partition.headers) {
    if (h.first == dlq_header::kPartition) h.second = "x";
  }
  Message oversized = Reply(Result("d", 1), 0, 0);
  oversized.value.clear();
  oversized.oversized_bytes = 99'000'000;
  Outcome empty_id = Result("", 1);
  const std::string deep = std::string(200, '[') + std::string(200, ']');

  const std::vector<std::pair<Message, std::string>> cases = {
      {Raw("replies", 0, "not json"), "not a JSON object"},
      {Raw("replies", 1, R"({"status":"ok","output":[]})"), "id"},
      {Raw("replies", 2, R"({"id":"e","status":"failed"})"), "reason"},
      {Raw("replies", 2, R"({"id":"e","status":"failed","reason":""})"), "without a reason"},
      {Raw("replies", 3, deep), "nested deeper"},
      {Raw("replies", 4, OutcomeToJson(empty_id)), "empty id"},
      {Raw("elsewhere", 5, OutcomeToJson(Result("f", 1))), "not a collected topic"},
      {Raw("dlq", 6, "payload without headers"), "without header"},
      {no_id, dlq_header::kId},
      {bad_partition, "is not a number"},
      {oversized, "99000000 bytes"},
  };
  for (const auto& [message, why] : cases) {
    Reading r = Read(message, kTopics);
    EXPECT_EQ(r.kind, Kind::kUnreadable) << message.topic << " offset " << message.offset;
    EXPECT_NE(r.why.find(why), std::string::npos) << r.why;
  }
}

TEST(ReadTest, BracketsInsideStringsDoNotCountAsNesting) {
  Outcome o = Result("g", 1);
  o.meta_json = R"({"text":")" + std::string(100, '[') + R"("})";
  Reading r = Read(Reply(o, 0, 0), kTopics);
  ASSERT_EQ(r.kind, Kind::kOutcome) << r.why;
}

class CollectorTest : public ::testing::Test {
 protected:
  testing::EventLog log_;
  testing::RecordingStore store_{log_};
  Collector collector_{store_, kTopics};
};

// A reply is stored as the bytes the serving instance wrote (parsed for its
// id and rank, not re-encoded); a dead letter, which has no record of its
// own, and a reply spread over lines are encoded.
TEST_F(CollectorTest, ARepliesBytesAreStoredAsTheyCameAndADeadLetterIsEncoded) {
  // Bytes no encoder writes (a space after each comma), still an outcome.
  const std::string reply = absl::StrReplaceAll(OutcomeToJson(Result("r1", 1)), {{",\"", ", \""}});
  EXPECT_EQ(collector_.Add(Raw("replies", 1, reply)), Kind::kOutcome);
  const std::string spread = absl::StrReplaceAll(OutcomeToJson(Result("r2", 2)), {{",\"", ",\n\""}});
  EXPECT_EQ(collector_.Add(Raw("replies", 2, spread)), Kind::kOutcome);
  const Outcome failure = Failure("f1", reason::kTooLong, 0);
  EXPECT_EQ(collector_.Add(Letter(failure, 0, 3)), Kind::kOutcome);
  ASSERT_TRUE(collector_.Flush().ok());
  ASSERT_EQ(store_.stored_json.size(), 3u);
  EXPECT_EQ(store_.stored_json[0], reply);
  EXPECT_EQ(store_.stored_json[1], OutcomeToJson(*OutcomeFromJson(spread)));
  EXPECT_EQ(store_.stored_json[2], OutcomeToJson(store_.stored[2]));
  EXPECT_EQ(store_.stored[2].id, "f1");
}

TEST_F(CollectorTest, HeldBytesCountKeysValuesAndHeadersUntilAFlush) {
  Message m = Raw("replies", 1, "garbage");  // 7 bytes
  m.key = "k1";                              // 2
  m.headers = {{"h", "abc"}};                // 4
  collector_.Add(m);
  collector_.Add(Raw("replies", 2, "xyz"));  // 3
  Message big = Raw("replies", 3, "");
  big.oversized_bytes = 1 << 30;  // not copied: counts none
  collector_.Add(big);
  EXPECT_EQ(collector_.held_bytes(), 16u);
  ASSERT_TRUE(collector_.Flush().ok());
  EXPECT_EQ(collector_.held_bytes(), 0u);
}

TEST_F(CollectorTest, FlushWritesHeldOutcomesInOnePutAndCommitsPastEveryMessage) {
  EXPECT_EQ(collector_.Add(Reply(Result("r1", 1), 0, 10)), Kind::kOutcome);
  EXPECT_EQ(collector_.Add(Reply(Result("r2", 2), 1, 4)), Kind::kOutcome);
  EXPECT_EQ(collector_.Add(Raw("replies", 11, "garbage")), Kind::kUnreadable);  // partition 0
  EXPECT_EQ(collector_.Add(Letter(Failure("f1", reason::kTooLong, 0), 2, 0)), Kind::kOutcome);
  EXPECT_EQ(collector_.Add(Letter(Notice(Result("n1", 1), "gone"), 2, 1)), Kind::kNotice);
  EXPECT_EQ(collector_.held(), 5u);
  EXPECT_TRUE(store_.stored.empty()) << "nothing is written before Flush";

  auto positions = collector_.Flush();
  ASSERT_TRUE(positions.ok()) << positions.status();
  EXPECT_EQ(*positions, (std::vector<Position>{{"dlq", 2, 2}, {"replies", 0, 12}, {"replies", 1, 5}}));
  EXPECT_EQ(log_.events(), (std::vector<std::string>{"put:r1", "put:r2", "put:f1"}));
  EXPECT_EQ(collector_.held(), 0u);
  CollectStats want;
  want.messages = 5;
  want.results = 2;
  want.failures = 1;
  want.notices = 1;
  want.unreadable = 1;
  want.writes = 1;
  EXPECT_EQ(collector_.stats(), want);

  // Nothing held: nothing to commit, no write.
  auto again = collector_.Flush();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
  EXPECT_EQ(collector_.stats().writes, 1u);
}

TEST_F(CollectorTest, OnlyUnreadableMessagesAreCommittedWithoutAWrite) {
  collector_.Add(Raw("replies", 0, "{"));
  collector_.Add(Raw("replies", 1, "[]"));
  auto positions = collector_.Flush();
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(*positions, (std::vector<Position>{{"replies", 0, 2}}));
  EXPECT_TRUE(log_.events().empty());
  EXPECT_EQ(collector_.stats().unreadable, 2u);
}

TEST_F(CollectorTest, FailedWriteCommitsNothingAndTheNextFlushWritesTheSameOutcomes) {
  collector_.Add(Reply(Result("r1", 1), 0, 0));
  collector_.Add(Letter(Failure("f1", reason::kOom, 0), 0, 0));
  store_.FailNextPuts(1);
  auto failed = collector_.Flush();
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(absl::IsUnavailable(failed.status()));
  EXPECT_EQ(collector_.held(), 2u);
  EXPECT_EQ(collector_.stats().writes, 0u);

  collector_.Add(Reply(Result("r2", 2), 0, 1));
  auto positions = collector_.Flush();
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(*positions, (std::vector<Position>{{"dlq", 0, 1}, {"replies", 0, 2}}));
  EXPECT_EQ(log_.events(), (std::vector<std::string>{"put_failed", "put:r1", "put:f1", "put:r2"}));
  EXPECT_EQ(collector_.stats().results, 2u);
  EXPECT_EQ(collector_.stats().failures, 1u);
}

// Against the real store: the final state of every id is the same whatever
// order the two topics are read in, and reading everything again (a restart
// before the commit) changes nothing. The superseded records kept as history
// do not depend on the order either: a failure read after its id's later
// result is kept, as one read before it is.
class CollectIntoRocksDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("collect-test-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Collects `messages` into the store at `dir` (a fresh collector, as
  // after a restart); returns (results, failures, superseded) and fills
  // `records` with every final record.
  std::tuple<uint64_t, uint64_t, uint64_t> CollectAll(const std::string& dir, const std::vector<Message>& messages,
                                                      std::map<std::string, Outcome>* records) {
    auto store = storage::RocksDbOutcomeStore::Open(dir);
    EXPECT_TRUE(store.ok()) << store.status();
    Collector collector(**store, kTopics);
    for (const Message& m : messages) collector.Add(m);
    EXPECT_TRUE(collector.Flush().ok());
    records->clear();
    EXPECT_TRUE((*store)
                    ->ForEach(storage::RocksDbOutcomeStore::Kind::kAll,
                              [&](const Outcome& o) {
                                EXPECT_TRUE(records->emplace(o.id, o).second) << o.id;
                                return true;
                              })
                    .ok());
    return {*(*store)->CountResults(), *(*store)->CountFailures(), *(*store)->CountSuperseded()};
  }

  std::vector<Outcome> HistoryOf(const std::string& dir, const std::string& id) {
    auto store = storage::RocksDbOutcomeStore::Open(dir);
    EXPECT_TRUE(store.ok()) << store.status();
    auto history = (*store)->History(id);
    EXPECT_TRUE(history.ok()) << history.status();
    return history.ok() ? *history : std::vector<Outcome>{};
  }

  std::filesystem::path dir_;
};

TEST_F(CollectIntoRocksDbTest, OneFinalRecordPerIdInEitherOrderAndAgainAfterARestart) {
  // "x": failed too_long, then replayed into a result. "y": failed, its
  // replay failed again. "z": a result only.
  const std::vector<Message> replies = {Reply(Result("x", 1), 0, 0), Reply(Result("z", 3), 0, 1)};
  const std::vector<Message> letters = {Letter(Failure("x", reason::kTooLong, 0), 0, 0),
                                        Letter(Failure("y", reason::kOom, 0), 0, 1),
                                        Letter(Failure("y", reason::kOom, 1), 0, 2)};
  std::vector<Message> replies_first = replies;
  replies_first.insert(replies_first.end(), letters.begin(), letters.end());
  // The dead letters first, y's later attempt before its earlier one.
  const std::vector<Message> letters_first = {letters[2], letters[1], letters[0], replies[1], replies[0]};

  std::map<std::string, Outcome> a, b, again;
  const auto counts_a = CollectAll((dir_ / "a").string(), replies_first, &a);
  const auto counts_b = CollectAll((dir_ / "b").string(), letters_first, &b);
  EXPECT_EQ(std::get<0>(counts_a), 2u);  // x, z
  EXPECT_EQ(std::get<1>(counts_a), 1u);  // y, attempt 1
  ASSERT_EQ(a.size(), 3u);
  EXPECT_TRUE(a.at("x").ok);
  EXPECT_TRUE(a.at("z").ok);
  EXPECT_EQ(a.at("y").attempt, 1);
  EXPECT_EQ(a, b) << "the final states do not depend on the order";
  EXPECT_EQ(std::get<0>(counts_b), 2u);
  EXPECT_EQ(std::get<1>(counts_b), 1u);
  // Nor does history: x's failure is kept whether it is read before or
  // after x's result.
  EXPECT_EQ(std::get<2>(counts_a), 2u);  // y attempt 0, x attempt 0
  EXPECT_EQ(std::get<2>(counts_b), 2u);
  for (const char* id : {"x", "y", "z"}) {
    EXPECT_EQ(HistoryOf((dir_ / "a").string(), id), HistoryOf((dir_ / "b").string(), id)) << id;
  }
  const std::vector<Outcome> x_history = HistoryOf((dir_ / "a").string(), "x");
  ASSERT_EQ(x_history.size(), 1u);
  EXPECT_EQ(x_history[0].reason, reason::kTooLong);
  EXPECT_EQ(x_history[0].attempt, 0);

  // Everything read again into the same store: the same state.
  const auto counts_again = CollectAll((dir_ / "a").string(), replies_first, &again);
  EXPECT_EQ(again, a);
  EXPECT_EQ(counts_again, counts_a);
}

}  // namespace
}  // namespace qinfer::collect
