// Publisher tests that need no broker: configuration errors, topic choice,
// and that every `done` runs exactly once, on the publisher thread, when
// nothing can be delivered. Delivery to a real broker is covered by
// tests/integration.
#include "qinfer/storage/kafka_outcome_publisher.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "qinfer/core/recorder.h"

namespace qinfer::storage {
namespace {

using std::chrono::milliseconds;

// Nothing listens on port 1: connections are refused at once.
constexpr const char* kNoBroker = "127.0.0.1:1";

Outcome Result(std::string id, std::string reply_to = "") {
  Outcome o;
  o.id = std::move(id);
  o.ok = true;
  o.output = {1.0f};
  o.reply_to = std::move(reply_to);
  return o;
}

Outcome Failure(std::string id) {
  Outcome o;
  o.id = std::move(id);
  o.reason = reason::kInvalid;
  o.error = "bad";
  return o;
}

// Collects done calls; thread-safe.
class Completions {
 public:
  OutcomePublisher::Done Callback(const std::string& id) {
    return [this, id](absl::Status s) {
      std::lock_guard lock(mu_);
      calls_.push_back({id, s, std::this_thread::get_id()});
      cv_.notify_all();
    };
  }
  bool WaitFor(size_t n, milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return calls_.size() >= n; });
  }
  struct Call {
    std::string id;
    absl::Status status;
    std::thread::id thread;
  };
  std::vector<Call> calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Call> calls_;
};

PublisherConfig Config() {
  PublisherConfig c;
  c.brokers = kNoBroker;
  c.default_reply_topic = "results";
  c.dead_letter_topic = "dead";
  c.close_timeout = milliseconds(200);
  return c;
}

TEST(KafkaOutcomePublisherTest, CreateWithUnknownPropertyNamesIt) {
  PublisherConfig c = Config();
  c.properties["no.such.property"] = "1";
  auto p = KafkaOutcomePublisher::Create(c);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("no.such.property"), std::string::npos) << p.status();
}

TEST(KafkaOutcomePublisherTest, CreateWithBadPropertyValueNamesTheProperty) {
  PublisherConfig c = Config();
  c.properties["linger.ms"] = "soon";
  auto p = KafkaOutcomePublisher::Create(c);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("linger.ms"), std::string::npos) << p.status();
}

TEST(KafkaOutcomePublisherTest, CreateWithoutBrokersFails) {
  PublisherConfig c = Config();
  c.brokers.clear();
  auto p = KafkaOutcomePublisher::Create(c);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("brokers"), std::string::npos) << p.status();
}

TEST(KafkaOutcomePublisherTest, CreateRejectsIdempotenceWithoutAcksAll) {
  // librdkafka checks the combination; the error comes back, not a crash.
  PublisherConfig c = Config();
  c.properties["acks"] = "1";
  auto p = KafkaOutcomePublisher::Create(c);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("acks"), std::string::npos) << p.status();
}

TEST(KafkaOutcomePublisherTest, CreateNeedsNoBrokerAndClosesPromptly) {
  const auto start = std::chrono::steady_clock::now();
  {
    auto p = KafkaOutcomePublisher::Create(Config());
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_TRUE((*p)->Flush(milliseconds(10)).ok());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(KafkaOutcomePublisherTest, WantsToPublishFollowsConfiguredTopics) {
  PublisherConfig c = Config();
  auto both = KafkaOutcomePublisher::Create(c).value();
  EXPECT_TRUE(both->WantsToPublish(Result("a")));
  EXPECT_TRUE(both->WantsToPublish(Failure("b")));

  c.default_reply_topic.clear();
  c.dead_letter_topic.clear();
  auto none = KafkaOutcomePublisher::Create(c).value();
  EXPECT_FALSE(none->WantsToPublish(Result("a")));
  EXPECT_TRUE(none->WantsToPublish(Result("a", "my-replies")));
  EXPECT_FALSE(none->WantsToPublish(Failure("b")));
}

TEST(KafkaOutcomePublisherTest, PublishWithoutTopicFailsOnPublisherThread) {
  PublisherConfig c = Config();
  c.dead_letter_topic.clear();
  Completions done;  // outlives the publisher, whose destructor may call it
  auto p = KafkaOutcomePublisher::Create(c).value();
  p->Publish(Failure("b"), done.Callback("b"));
  ASSERT_TRUE(done.WaitFor(1, milliseconds(5000)));
  ASSERT_TRUE(p->Flush(milliseconds(1000)).ok());
  std::vector<Completions::Call> calls = done.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(calls[0].thread, std::this_thread::get_id());
}

TEST(KafkaOutcomePublisherTest, UndeliverableMessagesFailOnceEachAfterTimeout) {
  PublisherConfig c = Config();
  c.properties["message.timeout.ms"] = "300";
  Completions done;  // outlives the publisher, whose destructor may call it
  auto p = KafkaOutcomePublisher::Create(c).value();
  p->Publish(Result("a"), done.Callback("a"));
  p->Publish(Failure("b"), done.Callback("b"));
  EXPECT_EQ(p->InFlight(), 2u);

  ASSERT_TRUE(p->Flush(milliseconds(10000)).ok());
  EXPECT_EQ(p->InFlight(), 0u);
  std::vector<Completions::Call> calls = done.calls();
  ASSERT_EQ(calls.size(), 2u);
  for (const auto& call : calls) {
    EXPECT_EQ(call.status.code(), absl::StatusCode::kDeadlineExceeded) << call.status;
    EXPECT_NE(call.status.message().find("job=" + call.id), std::string::npos) << call.status;
    EXPECT_NE(call.thread, std::this_thread::get_id());
  }
}

// A full producer queue is waited out on the publisher's clock, up to
// queue_full_timeout, then the outcome fails (the recorder retries it):
// driven here by a fake clock, so the two seconds pass at once.
TEST(KafkaOutcomePublisherTest, AFullQueueIsWaitedOutOnTheClockThenTheOutcomeFails) {
  testing::FakeClock clock;
  PublisherConfig c = Config();
  c.properties["queue.buffering.max.messages"] = "1";
  c.queue_full_timeout = milliseconds(2000);
  c.clock = &clock;
  Completions done;
  auto p = KafkaOutcomePublisher::Create(c).value();
  p->Publish(Result("a"), done.Callback("a"));  // fills the queue: no broker takes it
  const auto real_start = std::chrono::steady_clock::now();
  p->Publish(Result("b"), done.Callback("b"));
  EXPECT_LT(std::chrono::steady_clock::now() - real_start, std::chrono::seconds(1)) << "no real sleeping";
  EXPECT_GE(clock.slept(), milliseconds(2000));
  EXPECT_LE(clock.slept(), milliseconds(2010));
  ASSERT_TRUE(done.WaitFor(1, milliseconds(5000)));
  const Completions::Call failed = done.calls()[0];
  EXPECT_EQ(failed.id, "b");
  EXPECT_EQ(failed.status.code(), absl::StatusCode::kResourceExhausted) << failed.status;
  EXPECT_FALSE(IsPermanentDeliveryError(failed.status)) << "the recorder publishes it again";
}

TEST(KafkaOutcomePublisherTest, FlushTimesOutWhileMessagesAreOutstanding) {
  Completions done;  // outlives the publisher, whose destructor may call it
  auto p = KafkaOutcomePublisher::Create(Config()).value();
  p->Publish(Result("a"), done.Callback("a"));
  absl::Status s = p->Flush(milliseconds(50));
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_EQ(p->InFlight(), 1u);
}

TEST(KafkaOutcomePublisherTest, DestructorCancelsOutstandingExactlyOnce) {
  Completions done;
  {
    auto p = KafkaOutcomePublisher::Create(Config()).value();  // 200 ms close
    for (int i = 0; i < 3; ++i) {
      p->Publish(Result("r" + std::to_string(i)), done.Callback("r" + std::to_string(i)));
    }
  }
  std::vector<Completions::Call> calls = done.calls();
  ASSERT_EQ(calls.size(), 3u);
  for (const auto& call : calls) {
    EXPECT_EQ(call.status.code(), absl::StatusCode::kCancelled) << call.status;
  }
}

TEST(KafkaOutcomePublisherTest, DoneMayRepublishAndDestructorStillEnds) {
  // The recorder retries a failed delivery from inside `done`.
  Completions done;
  std::atomic<int> attempts{0};
  {
    PublisherConfig c = Config();
    c.properties["message.timeout.ms"] = "100";
    auto p = KafkaOutcomePublisher::Create(c).value();
    KafkaOutcomePublisher* raw = p.get();
    std::function<void(absl::Status)> retry = [&](absl::Status s) {
      if (!s.ok() && ++attempts < 3) {
        raw->Publish(Result("a"), retry);
        return;
      }
      done.Callback("a")(s);
    };
    p->Publish(Result("a"), retry);
    ASSERT_TRUE(p->Flush(milliseconds(10000)).ok());
  }
  EXPECT_EQ(attempts.load(), 3);
  ASSERT_EQ(done.calls().size(), 1u);
  EXPECT_FALSE(done.calls()[0].status.ok());
}

}  // namespace
}  // namespace qinfer::storage
