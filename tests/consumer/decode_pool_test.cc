// The tokenizer pool without Kafka: what it makes of a stream of mixed
// messages over several partitions (text, ids, invalid, too long) with 1, 2
// and 4 workers is exactly what the consumer thread makes of it alone, and
// every offset becomes committable; its bounds hold while the queue holds
// its workers.
#include "qinfer/consumer/decode_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <thread>

#include "consumer_fakes.h"
#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::consumer {
namespace {

using testing::CommandedQueue;
using testing::KeptRecords;

constexpr int kPartitions = 3;
const char* kWords[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};

// Message i of a mixed stream: texts of 1..12 words (over 8 tokens with
// the special ones: too_long), ids, a malformed one, an id out of range.
std::string Message(int i) {
  switch (i % 5) {
    case 0:
    case 1: {
      std::string text;
      for (int w = 0; w < 1 + i % 12; ++w) text += std::string(w ? " " : "") + kWords[(i + w) % 10];
      return R"({"id":"t)" + std::to_string(i) + R"(","text":")" + text + "\"}";
    }
    case 2:
      return R"({"id":"i)" + std::to_string(i) + R"(","input_ids":[)" + std::to_string(i % 90) + ",1,2]}";
    case 3:
      return "{not json " + std::to_string(i);
    default:
      return R"({"id":"v)" + std::to_string(i) + R"(","input_ids":[100]})";  // past the vocabulary
  }
}

// What a run made: queued jobs by id with their ids, records by id with
// their reason, and the commit points once every queued job is acked too.
struct Made {
  std::map<std::string, std::vector<int64_t>> queued;
  std::map<std::string, std::string> records;
  std::vector<CommitPoint> commits;
  friend bool operator==(const Made&, const Made&) = default;
};

class DecodePoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 4; ++i) {
      auto loaded = tokenizer::Tokenizer::Load(QINFER_TINY_TOKENIZER);
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      tokenizers_.push_back(std::move(*loaded));
    }
  }

  DecoderLimits Limits(int worker) const {
    DecoderLimits limits;
    limits.vocab_size = 100;
    limits.max_tokens = 8;
    limits.tokenizer = tokenizers_[worker].get();
    return limits;
  }

  // Runs `n` messages round-robin over the partitions: on the consumer
  // thread (threads 0) or through a pool of `threads` workers.
  Made Run(int n, int threads) {
    OffsetTracker tracker;
    std::map<int32_t, uint64_t> epochs;
    for (int32_t p = 0; p < kPartitions; ++p) epochs[p] = tracker.Assign("jobs", p);
    CommandedQueue queue;
    KeptRecords records(tracker);
    SourceStats stats;
    DecodeStats decode_stats;
    std::vector<DecoderLimits> limits;
    for (int w = 0; w < std::max(1, threads); ++w) limits.push_back(Limits(w));
    MessageHandler here(limits[0], queue, records, tracker, stats);
    std::unique_ptr<DecodePool> pool;
    if (threads > 0) {
      std::vector<std::unique_ptr<MessageHandler>> handlers;
      for (int w = 0; w < threads; ++w) {
        handlers.push_back(std::make_unique<MessageHandler>(limits[w], queue, records, tracker, stats));
      }
      pool = std::make_unique<DecodePool>(std::move(handlers), DecodePool::Options{}, decode_stats);
    }
    std::vector<std::string> values;
    for (int i = 0; i < n; ++i) values.push_back(Message(i));
    for (int i = 0; i < n; ++i) {
      const int32_t partition = i % kPartitions;
      const RawMessage m{"", values[i], {"jobs", partition, i / kPartitions, epochs[partition]}};
      if (pool == nullptr) {
        here.Handle(m);
      } else if (here.Track(m)) {
        pool->Submit({"", values[i], m.origin});
      }
    }
    if (pool) pool->Drain();
    Made made;
    for (const Job& job : queue.jobs()) {
      made.queued[job.id] = job.input_ids;
      tracker.Ack(job.origin);  // as its result's record would
    }
    for (const Outcome& o : records.records()) made.records[o.id] = o.reason;
    made.commits = tracker.Committable();
    if (pool) {
      EXPECT_EQ(decode_stats.decoded.load(), uint64_t(n));
      EXPECT_EQ(decode_stats.in_flight.load(), 0u);
      EXPECT_GT(decode_stats.decoded_tokens.load(), 0u);
      // Each worker's busy time is its share of the pool's.
      EXPECT_EQ(decode_stats.workers.load(), uint32_t(threads));
      uint64_t busy = 0;
      for (int w = 0; w < threads; ++w) busy += decode_stats.worker_busy_ns[w].load();
      EXPECT_EQ(busy, decode_stats.busy_ns.load());
      EXPECT_EQ(decode_stats.worker_busy_ns[threads].load(), 0u);
    }
    return made;
  }

  std::vector<std::unique_ptr<tokenizer::Tokenizer>> tokenizers_;
};

TEST_F(DecodePoolTest, APoolMakesWhatTheConsumerThreadMakesAndEveryOffsetCommits) {
  constexpr int kMessages = 3000;
  const Made alone = Run(kMessages, 0);
  ASSERT_EQ(alone.queued.size() + alone.records.size(), size_t(kMessages));
  EXPECT_GT(alone.queued.size(), 1000u);
  EXPECT_GT(std::count_if(alone.records.begin(), alone.records.end(),
                          [](const auto& r) { return r.second == reason::kTooLong; }),
            100);
  ASSERT_EQ(alone.commits.size(), size_t(kPartitions));
  for (const CommitPoint& c : alone.commits) EXPECT_EQ(c.next_offset, kMessages / kPartitions);
  for (int threads : {1, 2, 4}) {
    EXPECT_TRUE(Run(kMessages, threads) == alone) << threads << " workers made something else";
  }
}

TEST_F(DecodePoolTest, TheBoundsHoldWhileTheQueueHoldsTheWorkers) {
  OffsetTracker tracker;
  const uint64_t epoch = tracker.Assign("jobs", 0);
  CommandedQueue queue;
  KeptRecords records(tracker);
  SourceStats stats;
  DecodeStats decode_stats;
  const DecoderLimits limits = Limits(0);
  std::vector<std::unique_ptr<MessageHandler>> handlers;
  for (int w = 0; w < 2; ++w) handlers.push_back(std::make_unique<MessageHandler>(limits, queue, records, tracker, stats));
  DecodePool pool(std::move(handlers), {.max_messages = 4, .max_bytes = 1 << 20}, decode_stats);
  queue.Hold(true);
  std::atomic<int> submitted{0};
  std::thread consumer([&] {
    for (int i = 0; i < 10; ++i) {
      const std::string value = R"({"id":"h)" + std::to_string(i) + R"(","input_ids":[1]})";
      const Origin origin{"jobs", 0, i, epoch};
      EXPECT_TRUE(tracker.Track(origin));
      pool.Submit({"", value, origin});
      submitted++;
    }
  });
  // The consumer gets 4 messages in, then waits for room.
  for (int i = 0; i < 200 && submitted.load() < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(submitted.load(), 4);
  EXPECT_EQ(decode_stats.in_flight.load(), 4u);
  queue.Hold(false);
  consumer.join();
  pool.Drain();
  EXPECT_EQ(queue.jobs().size(), 10u);
  EXPECT_EQ(decode_stats.in_flight.load(), 0u);
  EXPECT_GE(decode_stats.waits.load(), 1u);
  // Once full, the consumer waits until the pool is down to half (2): then
  // it submits 2 at least before waiting again, so 10 messages wait 3 times
  // at most, not once for each of the 6 beyond the first 4.
  EXPECT_LE(decode_stats.waits.load(), 3u);
}

}  // namespace
}  // namespace qinfer::consumer
