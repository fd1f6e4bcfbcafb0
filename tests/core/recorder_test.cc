#include "qinfer/core/recorder.h"

#include <gtest/gtest.h>

#include <sstream>

#include "fakes/fake_clock.h"
#include "fakes/fake_sinks.h"
#include "qinfer/core/outcome_json.h"

namespace qinfer {
namespace {

using testing::EventLog;
using Events = std::vector<std::string>;

Outcome Result(std::string id, int64_t offset, std::string reply_to = "") {
  Outcome o;
  o.id = std::move(id);
  o.ok = true;
  o.reply_to = std::move(reply_to);
  o.origin = {"jobs", 0, offset, 1};
  return o;
}

// Remembers how long each store write took, as the recorder reports it.
class WriteTimes final : public RecordObserver {
 public:
  void OnStored(std::span<const Outcome> outcomes, std::chrono::nanoseconds write_time) override {
    times.push_back(write_time);
  }
  std::vector<std::chrono::nanoseconds> times;
};

class RecorderTest : public ::testing::Test {
 protected:
  testing::FakeClock clock_;
  WriteTimes write_times_;
  EventLog log_;
  testing::RecordingStore store_{log_};
  testing::ManualPublisher publisher_{log_};
  testing::RecordingAcks acks_{log_};
  Health health_;
  StoreWrites writes_{health_, {.attempts = 3, .backoff = std::chrono::milliseconds(100), .clock = &clock_}};
  OutcomeRecorder recorder_{store_,
                            &publisher_,
                            acks_,
                            writes_,
                            health_,
                            {.publish_attempts = 2,
                             .observer = &write_times_,
                             .clock = &clock_}};
};

TEST_F(RecorderTest, AcksOnlyAfterTheStoreWrite) {
  ASSERT_TRUE(recorder_.Record({Result("a", 5), Result("b", 6)}).ok());
  EXPECT_EQ(log_.events(), (Events{"put:a", "put:b", "ack:5", "ack:6"}));
}

// An offset tracker whose acks take `each` on the fake clock.
class SlowAcks final : public AckSink {
 public:
  SlowAcks(testing::FakeClock& clock, std::chrono::nanoseconds each) : clock_(clock), each_(each) {}
  void Ack(const Origin&) override { clock_.Advance(each_); }

 private:
  testing::FakeClock& clock_;
  std::chrono::nanoseconds each_;
};

TEST_F(RecorderTest, TheAckStageIsTimedOnTheClock) {
  SlowAcks acks(clock_, std::chrono::milliseconds(2));
  OutcomeRecorder recorder(store_, nullptr, acks, writes_, health_, {.clock = &clock_});
  ASSERT_TRUE(recorder.Record({Result("a", 5), Result("b", 6), Result("c", 7)}).ok());
  EXPECT_EQ(recorder.stats().acked.load(), 3u);
  EXPECT_EQ(recorder.stats().ack_ns.load(), uint64_t(std::chrono::nanoseconds(std::chrono::milliseconds(6)).count()));
}

TEST_F(RecorderTest, AFailureRecordWithNowhereToPublishIsAckedAfterItsWrite) {
  Outcome failure = Result("f", 7);
  failure.ok = false;
  failure.reason = reason::kInvalid;
  ASSERT_TRUE(recorder_.Record({failure}).ok());
  EXPECT_EQ(log_.events(), (Events{"put:f", "ack:7"})) << "no dead-letter topic: acked at once";
}

TEST_F(RecorderTest, AcksAPublishedOutcomeOnlyAfterDelivery) {
  ASSERT_TRUE(recorder_.Record({Result("a", 5, "replies")}).ok());
  EXPECT_EQ(log_.events(), (Events{"put:a", "publish:a"}));
  publisher_.Deliver(absl::OkStatus());
  EXPECT_EQ(log_.events(), (Events{"put:a", "publish:a", "ack:5"}));
}

TEST_F(RecorderTest, TheStoreAndTheReplyGetTheSameBytesEncodedOnce) {
  Outcome a = Result("a", 5, "replies");
  a.output = {0.25f, -1.5f};
  Outcome b = Result("b", 6);  // stored only
  ASSERT_TRUE(recorder_.Record({a, b}).ok());
  a.completed_at_ms = b.completed_at_ms = clock_.WallMillis();  // as the recorder stamped them
  ASSERT_EQ(store_.stored_json.size(), 2u);
  EXPECT_EQ(store_.stored_json[0], OutcomeToJson(a));
  EXPECT_EQ(store_.stored_json[1], OutcomeToJson(b));
  ASSERT_EQ(publisher_.published_json.size(), 1u);
  EXPECT_EQ(publisher_.published_json[0], store_.stored_json[0]);
  // A retry publishes the same bytes again.
  publisher_.Deliver(absl::UnavailableError("broker down"));
  ASSERT_EQ(publisher_.published_json.size(), 2u);
  EXPECT_EQ(publisher_.published_json[1], store_.stored_json[0]);
}

TEST_F(RecorderTest, RepublishesATransientFailureThenRecordsItUndeliverableAndAcks) {
  ASSERT_TRUE(recorder_.Record({Result("a", 5, "replies")}).ok());
  publisher_.Deliver(absl::UnavailableError("broker down"));
  ASSERT_EQ(publisher_.pending(), 1u) << "one retry";
  publisher_.Deliver(absl::UnavailableError("broker down"));
  EXPECT_EQ(publisher_.pending(), 0u) << "publish_attempts=2 reached; the fake has no dead-letter topic";
  EXPECT_EQ(log_.events(), (Events{"put:a", "publish:a", "publish:a", "put:a", "ack:5"}))
      << "the stored result is rewritten with its delivery error, then acked";
  EXPECT_EQ(store_.stored.back().delivery_error, "broker down");
  EXPECT_EQ(store_.stored_json.back(), OutcomeToJson(store_.stored.back())) << "the rewritten record is encoded anew";
  EXPECT_EQ(recorder_.stats().publish_retries.load(), 1u);
  EXPECT_EQ(recorder_.stats().undeliverable_exhausted.load(), 1u);
  EXPECT_FALSE(health_.fatal());
}

TEST_F(RecorderTest, NeverRetriesAPermanentDeliveryErrorAndSendsACompactDeadLetterNotice) {
  publisher_.dead_letters = true;
  Outcome failure = Result("f", 9);
  failure.ok = false;
  failure.reason = reason::kInvalid;
  failure.payload = std::string(2'000'000, 'x');
  ASSERT_TRUE(recorder_.Record({failure}).ok());
  publisher_.Deliver(absl::InvalidArgumentError("Broker: Message size too large"));
  ASSERT_EQ(publisher_.pending(), 1u) << "the compact notice, not a retry";
  const Outcome& notice = publisher_.published.back();
  EXPECT_EQ(notice.id, "f");
  EXPECT_TRUE(notice.payload.empty()) << "no oversized payload in the notice";
  EXPECT_TRUE(notice.payload_truncated);
  EXPECT_EQ(notice.reason, reason::kInvalid);
  EXPECT_EQ(notice.delivery_error, "Broker: Message size too large");
  EXPECT_EQ(notice.origin.offset, 9);
  publisher_.Deliver(absl::OkStatus());
  EXPECT_EQ(log_.events(), (Events{"put:f", "publish:f", "put:f", "publish:f", "ack:9"}));
  EXPECT_EQ(store_.stored.back().payload.size(), 2'000'000u) << "the store keeps the payload";
  EXPECT_EQ(recorder_.stats().undeliverable_permanent.load(), 1u);
  EXPECT_EQ(recorder_.stats().publish_retries.load(), 0u);
  EXPECT_EQ(recorder_.stats().dead_letter_notices.load(), 1u);
}

TEST_F(RecorderTest, AResultWhoseReplyTopicIsMissingIsAnnouncedAsUndeliverableAndAcked) {
  publisher_.dead_letters = true;
  ASSERT_TRUE(recorder_.Record({Result("a", 5, "no-such-topic")}).ok());
  publisher_.Deliver(absl::NotFoundError("Local: Unknown topic"));
  ASSERT_EQ(publisher_.pending(), 1u);
  const Outcome& notice = publisher_.published.back();
  EXPECT_FALSE(notice.ok) << "a notice goes to the dead-letter topic";
  EXPECT_EQ(notice.reason, reason::kUndeliverable);
  EXPECT_TRUE(notice.output.empty());
  // Even a notice that cannot be delivered ends in an ack: the record is
  // durable and says what happened.
  publisher_.Deliver(absl::NotFoundError("Local: Unknown topic"));
  EXPECT_EQ(log_.events(), (Events{"put:a", "publish:a", "put:a", "publish:a", "ack:5"}));
  EXPECT_TRUE(store_.stored.back().ok) << "the stored result stays a result";
  EXPECT_EQ(store_.stored.back().delivery_error, "Local: Unknown topic");
}

TEST_F(RecorderTest, AFatalProducerErrorIsFatalAndLeavesTheJobUnacked) {
  ASSERT_TRUE(recorder_.Record({Result("a", 5, "replies")}).ok());
  publisher_.Deliver(absl::InternalError("fatal idempotent producer error"));
  EXPECT_EQ(publisher_.pending(), 0u);
  EXPECT_EQ(log_.events(), (Events{"put:a", "publish:a"}));
  EXPECT_TRUE(health_.fatal());
  EXPECT_EQ(health_.cause(), fatal_cause::kProducer);
}

TEST_F(RecorderTest, ACancelledDeliveryLeavesTheJobUnackedForTheRestart) {
  ASSERT_TRUE(recorder_.Record({Result("a", 5, "replies")}).ok());
  publisher_.Deliver(absl::CancelledError("publisher closing"));
  EXPECT_EQ(log_.events(), (Events{"put:a", "publish:a"}));
  EXPECT_FALSE(health_.fatal());
}

TEST_F(RecorderTest, RetriesATransientStoreFailure) {
  store_.FailNextPuts(2);
  ASSERT_TRUE(recorder_.Record({Result("a", 5)}).ok());
  EXPECT_EQ(log_.events(), (Events{"put_failed", "put_failed", "put:a", "ack:5"}));
  // On the recorder's clock: 100 ms after the first failure, 200 after the
  // second, and the write's time counts them.
  EXPECT_EQ(clock_.sleeps(), 2);
  EXPECT_EQ(clock_.slept(), std::chrono::milliseconds(300));
  ASSERT_EQ(write_times_.times.size(), 1u);
  EXPECT_EQ(write_times_.times[0], std::chrono::milliseconds(300));
}

TEST_F(RecorderTest, NeverAcksWhenTheStoreKeepsFailingAndRaisesAFatalCondition) {
  store_.FailNextPuts(3);
  EXPECT_FALSE(health_.fatal());
  EXPECT_FALSE(recorder_.Record({Result("a", 5)}).ok());
  EXPECT_EQ(log_.events(), (Events{"put_failed", "put_failed", "put_failed"}));
  EXPECT_TRUE(health_.fatal());
  EXPECT_EQ(health_.cause(), fatal_cause::kStore);
  EXPECT_NE(health_.reason().find("injected store failure"), std::string::npos);
  EXPECT_EQ(writes_.stats().store_errors_results.load(), 3u);
  EXPECT_EQ(writes_.stats().total(), 3u);
}

// A record's completed_at_ms is the clock's wall time as it goes to the
// store (Clock::WallMillis), unless the outcome already carries one (a
// record read back from a topic, an undeliverable reply stored again).
TEST_F(RecorderTest, ARecordIsStampedWithTheClocksWallTimeAsItIsStored) {
  clock_.SetWallMillis(1'765'000'000'123);
  Outcome kept = Result("kept", 6);
  kept.completed_at_ms = 42;
  ASSERT_TRUE(recorder_.Record({Result("a", 5), kept}).ok());
  ASSERT_EQ(store_.stored.size(), 2u);
  EXPECT_EQ(store_.stored[0].completed_at_ms, 1'765'000'000'123);
  EXPECT_NE(store_.stored_json[0].find(R"("completed_at_ms":1765000000123)"), std::string::npos)
      << store_.stored_json[0];
  EXPECT_EQ(store_.stored[1].completed_at_ms, 42);
  clock_.Advance(std::chrono::seconds(2));
  ASSERT_TRUE(recorder_.Record({Result("b", 7)}).ok());
  EXPECT_EQ(store_.stored[2].completed_at_ms, 1'765'000'002'123) << "the wall time moves with the clock";
}

// Every failed try of a store write is one count and one line naming the
// write, whichever write it is; a write whose tries are spent raises the
// store's fatal condition once.
TEST(StoreWritesTest, EachWriteIsRetriedCountedAndNamedAndALastingFailureIsFatal) {
  testing::FakeClock clock;
  Health health;
  std::ostringstream out;
  ScopedLogCapture capture("core", out, LogLevel::kInfo);
  StoreWrites writes(health, {.attempts = 3, .backoff = std::chrono::milliseconds(100), .clock = &clock});
  int calls = 0;
  auto fail_twice = [&] { return ++calls <= 2 ? absl::UnavailableError("disk full") : absl::OkStatus(); };
  ASSERT_TRUE(writes.Write(StoreWrite::kAttempts, fail_twice).ok()) << "a transient failure passes";
  EXPECT_EQ(writes.stats().store_errors_attempts.load(), 2u);
  EXPECT_EQ(clock.slept(), std::chrono::milliseconds(100 + 200)) << "backoff times the try's number";
  EXPECT_FALSE(health.fatal());
  const std::string transient = out.str();
  EXPECT_NE(transient.find("event=store_error write=attempts attempt=1 of=3"), std::string::npos) << transient;
  EXPECT_EQ(transient.find("event=fatal"), std::string::npos) << transient;

  auto always = [] { return absl::ResourceExhaustedError("No space left on device"); };
  EXPECT_FALSE(writes.Write(StoreWrite::kPlan, always).ok());
  EXPECT_EQ(writes.stats().store_errors_plan.load(), 3u);
  EXPECT_TRUE(health.fatal());
  EXPECT_EQ(health.cause(), fatal_cause::kStore);
  EXPECT_NE(health.reason().find("plan writes keep failing: No space left on device"), std::string::npos)
      << health.reason();
  EXPECT_FALSE(writes.Write(StoreWrite::kResults, always).ok());
  EXPECT_EQ(writes.stats().store_errors_results.load(), 3u);
  EXPECT_EQ(writes.stats().total(), 8u);
  const std::string lasting = out.str();
  EXPECT_NE(lasting.find("event=fatal cause=store write=plan"), std::string::npos) << lasting;
  EXPECT_EQ(lasting.find("event=fatal cause=store write=results"), std::string::npos)
      << "the first fatal condition is the one logged";
  EXPECT_EQ(health.reason().find("results"), std::string::npos) << health.reason();
}

TEST(IsPermanentDeliveryErrorTest, ClassifiesByStatusCode) {
  EXPECT_TRUE(IsPermanentDeliveryError(absl::NotFoundError("unknown topic")));
  EXPECT_TRUE(IsPermanentDeliveryError(absl::InvalidArgumentError("too large")));
  EXPECT_TRUE(IsPermanentDeliveryError(absl::PermissionDeniedError("authz")));
  EXPECT_TRUE(IsPermanentDeliveryError(absl::FailedPreconditionError("no topic")));
  EXPECT_FALSE(IsPermanentDeliveryError(absl::UnavailableError("broker down")));
  EXPECT_FALSE(IsPermanentDeliveryError(absl::DeadlineExceededError("timed out")));
  EXPECT_FALSE(IsPermanentDeliveryError(absl::ResourceExhaustedError("queue full")));
}

}  // namespace
}  // namespace qinfer
