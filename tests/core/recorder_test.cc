#include "qinfer/core/recorder.h"

#include <gtest/gtest.h>

#include "fakes/fake_sinks.h"

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

class RecorderTest : public ::testing::Test {
 protected:
  EventLog log_;
  testing::RecordingStore store_{log_};
  testing::ManualPublisher publisher_{log_};
  testing::RecordingAcks acks_{log_};
  OutcomeRecorder recorder_{store_, &publisher_, acks_,
                            {/*store_attempts=*/3, std::chrono::milliseconds(1), 2}};
};

TEST_F(RecorderTest, AcksOnlyAfterTheStoreWrite) {
  ASSERT_TRUE(recorder_.Record({Result("a", 5), Result("b", 6)}).ok());
  EXPECT_EQ(log_.events(), (Events{"put:a", "put:b", "ack:5", "ack:6"}));
}

TEST_F(RecorderTest, AcksAPublishedOutcomeOnlyAfterDelivery) {
  ASSERT_TRUE(recorder_.Record({Result("a", 5, "replies")}).ok());
  EXPECT_EQ(log_.events(), (Events{"put:a", "publish:a"}));
  publisher_.Deliver(absl::OkStatus());
  EXPECT_EQ(log_.events(), (Events{"put:a", "publish:a", "ack:5"}));
}

TEST_F(RecorderTest, RepublishesAfterAFailedDeliveryAndGivesUpUnacked) {
  ASSERT_TRUE(recorder_.Record({Result("a", 5, "replies")}).ok());
  publisher_.Deliver(absl::UnavailableError("broker down"));
  ASSERT_EQ(publisher_.pending(), 1u) << "one retry";
  publisher_.Deliver(absl::UnavailableError("broker down"));
  EXPECT_EQ(publisher_.pending(), 0u) << "publish_attempts=2 reached";
  EXPECT_EQ(log_.events(), (Events{"put:a", "publish:a", "publish:a"}))
      << "never acked: the job is redelivered after a restart";
  EXPECT_EQ(recorder_.stats().publish_retries.load(), 1u);
}

TEST_F(RecorderTest, RetriesATransientStoreFailure) {
  store_.FailNextPuts(2);
  ASSERT_TRUE(recorder_.Record({Result("a", 5)}).ok());
  EXPECT_EQ(log_.events(), (Events{"put_failed", "put_failed", "put:a", "ack:5"}));
}

TEST_F(RecorderTest, NeverAcksWhenTheStoreKeepsFailing) {
  store_.FailNextPuts(3);
  EXPECT_FALSE(recorder_.Record({Result("a", 5)}).ok());
  EXPECT_EQ(log_.events(), (Events{"put_failed", "put_failed", "put_failed"}));
}

}  // namespace
}  // namespace qinfer
