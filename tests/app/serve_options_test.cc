// serve's configuration into each module's options: pure functions, checked
// without Kafka, torch or a model (the test links no torch).
#include "serve_options.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>

namespace qinfer::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

executor::ModelManifest Manifest() {
  executor::ModelManifest m;
  m.name = "tiny";
  m.digest = "sha256:abc";
  m.vocab_size = 4096;
  m.max_tokens = 512;
  m.max_positions = 1024;
  m.output = "pooled";
  m.normalized = true;
  m.end_token_id = 102;
  return m;
}

Config KafkaConfig() {
  Config c;
  c.kafka.brokers = "b1:9092,b2:9092";
  c.kafka.group_id = "g";
  c.kafka.jobs_topic = "jobs-t";
  c.kafka.reply_topic = "replies-t";
  c.kafka.dead_letter_topic = "dlq-t";
  c.kafka.consumer = {{"fetch.max.bytes", "1000"}};
  c.kafka.producer = {{"linger.ms", "7"}};
  return c;
}

TEST(ServeOptionsTest, TheTopicCheckNamesEveryConfiguredTopicWithTheProducersProperties) {
  Config c = KafkaConfig();
  c.kafka.create_topics = true;
  c.kafka.topic_partitions = 6;
  c.kafka.startup_wait = seconds(4);
  const consumer::TopicCheck t = TopicCheckFrom(c);
  EXPECT_EQ(t.brokers, "b1:9092,b2:9092");
  EXPECT_EQ(t.properties, c.kafka.producer);
  EXPECT_EQ(t.topics, (std::vector<std::string>{"jobs-t", "replies-t", "dlq-t"}));
  EXPECT_TRUE(t.create);
  EXPECT_EQ(t.partitions, 6);
  EXPECT_EQ(t.timeout, milliseconds(4000));
}

TEST(ServeOptionsTest, TheTopicCheckKeepsEmptyTopicNamesForEnsureTopicsToSkip) {
  Config c = KafkaConfig();
  c.kafka.reply_topic = "";
  c.kafka.dead_letter_topic = "";
  EXPECT_EQ(TopicCheckFrom(c).topics, (std::vector<std::string>{"jobs-t", "", ""}));
}

TEST(ServeOptionsTest, TheConsumerReadsTheJobsTopicWithTheMessageBoundsAgainstTheModel) {
  Config c = KafkaConfig();
  c.limits.max_message_bytes = 5000;
  c.limits.max_depth = 9;
  c.limits.max_meta_bytes = 700;
  c.limits.max_text_bytes = 800;
  c.admission.too_long = "chunk";
  c.admission.chunk_overlap = 16;
  c.admission.max_chunks = 5;
  c.long_lane.max_tokens = 900;
  c.scheduler.max_queued_jobs = 300;
  c.scheduler.max_queued_bytes = 4000;
  // Only the pointers are passed on: any address stands for a tokenizer.
  const int stand_in[2] = {0, 0};
  const auto* tokenizer = reinterpret_cast<const tokenizer::Tokenizer*>(&stand_in[0]);
  const auto* second = reinterpret_cast<const tokenizer::Tokenizer*>(&stand_in[1]);
  const std::vector<const tokenizer::Tokenizer*> handles = {tokenizer, second};
  const consumer::SourceConfig s = SourceConfigFrom(c, Manifest(), {}, 256, handles);
  EXPECT_EQ(s.brokers, "b1:9092,b2:9092");
  EXPECT_EQ(s.group_id, "g");
  EXPECT_EQ(s.topics, std::vector<std::string>{"jobs-t"});
  EXPECT_EQ(s.properties, c.kafka.consumer);
  const consumer::DecoderLimits& l = s.limits;
  EXPECT_EQ(l.vocab_size, 4096);
  EXPECT_EQ(l.max_tokens, 256u) << "the longest bucket, not the model's max_tokens";
  EXPECT_EQ(l.max_message_bytes, 5000u);
  EXPECT_EQ(l.max_depth, 9);
  EXPECT_EQ(l.max_meta_bytes, 700u);
  EXPECT_EQ(l.max_text_bytes, 800u);
  EXPECT_EQ(l.too_long_policy, "chunk");
  EXPECT_EQ(l.chunk_overlap, 16u);
  EXPECT_EQ(l.max_chunks, 5u);
  EXPECT_TRUE(l.chunk_allowed);
  EXPECT_EQ(l.long_lane_max_tokens, 900u);
  EXPECT_EQ(l.tokenizer, tokenizer);
  EXPECT_EQ(l.end_token_id, 102);
  // The tokenizer pool: a worker per handle, each with its own, and the
  // queue's bounds on what it holds.
  ASSERT_EQ(s.decode_workers.size(), 2u);
  EXPECT_EQ(s.decode_workers[0].tokenizer, tokenizer);
  EXPECT_EQ(s.decode_workers[1].tokenizer, second);
  EXPECT_EQ(s.decode_workers[1].max_meta_bytes, 700u) << "every worker has the same bounds";
  EXPECT_EQ(s.decode_pool.max_messages, 300u);
  EXPECT_EQ(s.decode_pool.max_bytes, 4000u);
}

TEST(ServeOptionsTest, TheTokenizerPoolTakesTheCoresTheModelLeavesAtLeastOne) {
  Config c;
  EXPECT_EQ(TokenizerThreads(c, 2), 1) << "the model's threads take every core by default";
  c.model.threads = 2;
  EXPECT_EQ(TokenizerThreads(c, 16), 14);
  c.model.threads = 32;
  EXPECT_EQ(TokenizerThreads(c, 16), 1);
  c.tokenizer.threads = 3;
  EXPECT_EQ(TokenizerThreads(c, 16), 3) << "tokenizer.threads, when set, wins";
}

TEST(ServeOptionsTest, AModelWhoseTaskIsNotEmbedAllowsNoChunksAndItsPairsReachTheDecoder) {
  executor::ModelManifest m = Manifest();
  const consumer::SourceConfig embed = SourceConfigFrom(Config{}, m, {}, 512, {});
  EXPECT_TRUE(embed.limits.chunk_allowed);
  EXPECT_FALSE(embed.limits.pairs);
  EXPECT_EQ(embed.limits.task, "embed");
  m.output = "logits";
  m.task.task = task::kRerank;
  m.task.activation = activation::kSigmoid;
  m.task.pairs = true;
  m.task.type_ids = true;
  const consumer::SourceConfig s = SourceConfigFrom(Config{}, m, {}, 512, {});
  EXPECT_FALSE(s.limits.chunk_allowed);
  EXPECT_TRUE(s.limits.pairs);
  EXPECT_TRUE(s.limits.type_ids);
  EXPECT_EQ(s.limits.task, "rerank");
  EXPECT_EQ(s.limits.tokenizer, nullptr);
  EXPECT_EQ(s.limits.long_lane_max_tokens, 0u);
  EXPECT_EQ(LoopOptionsFrom(Config{}, m, {}).task, m.task) << "the executor loop finishes results by the task";
}

TEST(ServeOptionsTest, TheStoreSyncsOnlyWhenConfigured) {
  Config c;
  EXPECT_FALSE(StoreOptionsFrom(c).sync);
  EXPECT_FALSE(StoreOptionsFrom(c).read_only);
  c.storage.sync = true;
  EXPECT_TRUE(StoreOptionsFrom(c).sync);
}

TEST(ServeOptionsTest, ThePublisherSendsRepliesAndDeadLettersAndClosesWithinASecond) {
  const Config c = KafkaConfig();
  const storage::PublisherConfig p = PublisherConfigFrom(c);
  EXPECT_EQ(p.brokers, "b1:9092,b2:9092");
  EXPECT_EQ(p.default_reply_topic, "replies-t");
  EXPECT_EQ(p.dead_letter_topic, "dlq-t");
  EXPECT_EQ(p.properties, c.kafka.producer);
  EXPECT_EQ(p.close_timeout, milliseconds(1000));
  EXPECT_EQ(p.queue_full_timeout, storage::PublisherConfig{}.queue_full_timeout) << "left at its default";
}

TEST(ServeOptionsTest, WithoutAPlanCapsComeFromTheTokenBudgetAndTheBoundsFromTheScheduler) {
  Config c;
  c.scheduler.tokens_per_batch = 1024;
  c.scheduler.max_batch_size = 16;
  c.scheduler.max_batch_delay = milliseconds(7);
  c.scheduler.formation = scheduler::Formation::kArrival;
  c.scheduler.max_padding = 0.25;
  c.scheduler.extra_padding_tokens = 9;
  c.scheduler.max_queued_jobs = 100;
  c.scheduler.max_queued_tokens = 5000;
  c.scheduler.max_queued_bytes = 1 << 20;
  c.limits.max_message_bytes = 3000;
  const DerivedPolicy d = PolicyFrom(c, {32, 128, 512}, std::nullopt);
  EXPECT_EQ(d.policy.bucket_bounds, (std::vector<int>{32, 128, 512}));
  EXPECT_EQ(d.policy.caps, (std::vector<int>{16, 8, 2}));
  EXPECT_TRUE(d.unfit.empty());
  EXPECT_EQ(d.policy.max_batch_delay, milliseconds(7));
  EXPECT_EQ(d.policy.formation, scheduler::Formation::kArrival);
  EXPECT_EQ(d.policy.max_padding, 0.25);
  EXPECT_EQ(d.policy.extra_padding_tokens, 9u);
  EXPECT_EQ(d.policy.max_queued_jobs, 100u);
  EXPECT_EQ(d.policy.max_queued_tokens, 5000u);
  EXPECT_EQ(d.policy.max_queued_bytes, size_t{1} << 20);
  EXPECT_EQ(d.policy.max_job_bytes, 6000u) << "a payload and, parsed, about as much again";
}

TEST(ServeOptionsTest, APlanSetsTheCapsWithinOneAndTheBatchLimitAndMarksWhatDoesNotFit) {
  Config c;
  c.scheduler.max_batch_size = 64;
  MemoryPlan plan;
  plan.bounds = {32, 128, 512};
  plan.entries = {{.bound = 32, .batch_size = 200}, {.bound = 128, .batch_size = 12}, {.bound = 512, .batch_size = 0}};
  const DerivedPolicy d = PolicyFrom(c, plan.bounds, plan);
  EXPECT_EQ(d.policy.caps, (std::vector<int>{64, 12, 1}));
  EXPECT_EQ(d.unfit, std::set<int>{512});
}

TEST(ServeOptionsTest, ALongLaneAddsOneBucketOfOneJobThatRunsOnTheFallbackDevice) {
  Config c;
  c.long_lane.max_tokens = 1024;
  const DerivedPolicy d = PolicyFrom(c, {256, 512}, std::nullopt);
  EXPECT_EQ(d.policy.bucket_bounds, (std::vector<int>{256, 512, 1024}));
  ASSERT_EQ(d.policy.caps.size(), 3u);
  EXPECT_EQ(d.policy.caps.back(), 1);
  EXPECT_EQ(d.unfit, std::set<int>{1024});
}

TEST(ServeOptionsTest, TheQueuedJobBoundIsRaisedToTheLargestCapSoAFullBatchCanForm) {
  Config c;
  c.scheduler.max_queued_jobs = 3;
  c.scheduler.tokens_per_batch = 8192;
  c.scheduler.max_batch_size = 64;
  const DerivedPolicy d = PolicyFrom(c, {16, 512}, std::nullopt);
  EXPECT_EQ(d.policy.caps, (std::vector<int>{64, 16}));
  EXPECT_EQ(d.policy.max_queued_jobs, 64u);
}

TEST(ServeOptionsTest, TheLoopDrainsWithinTheBoundRecordsOnAThreadOfItsOwnAndHasNoHook) {
  Config c;
  c.shutdown.drain_timeout = seconds(12);
  c.recovery.max_attempts = 5;
  const pipeline::LoopOptions o = LoopOptionsFrom(c, Manifest(), {});
  EXPECT_EQ(o.drain_timeout, milliseconds(12000));
  EXPECT_EQ(o.max_attempts, 5);
  EXPECT_TRUE(o.normalize_pooled) << "the manifest's normalized";
  EXPECT_EQ(o.record_queue, 2u);
  EXPECT_FALSE(o.before_batch) << "only serve's test hold sets one";
  EXPECT_EQ(o.poll, pipeline::LoopOptions{}.poll);
  executor::ModelManifest m = Manifest();
  m.normalized = false;
  EXPECT_FALSE(LoopOptionsFrom(c, m, {}).normalize_pooled);
}

// output.encoding and the int8 ranges (output.int8_ranges, else the
// manifest's), checked against the model before anything runs, and handed
// to the decoder (which refuses int8 without ranges) and the loop (which
// writes the encodings).
TEST(ServeOptionsTest, OutputSettingsAreCheckedAgainstTheModelAndReachTheDecoderAndTheLoop) {
  executor::ModelManifest m = Manifest();
  m.dim = 2;
  Config c;
  absl::StatusOr<OutputSettings> plain = OutputSettingsFrom(c, m);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->encoding, "float");
  EXPECT_FALSE(plain->int8_ranges);
  EXPECT_FALSE(SourceConfigFrom(c, m, *plain, 512, {}).limits.int8_ranges);

  c.output.encoding = "int8";
  EXPECT_NE(OutputSettingsFrom(c, m).status().message().find("output.encoding=int8 needs calibration ranges"),
            std::string::npos);
  m.int8_ranges = QuantizationRanges{{-1, -1}, {1, 1}};
  absl::StatusOr<OutputSettings> from_manifest = OutputSettingsFrom(c, m);
  ASSERT_TRUE(from_manifest.ok()) << from_manifest.status();
  EXPECT_EQ(from_manifest->int8_ranges, m.int8_ranges);
  EXPECT_TRUE(SourceConfigFrom(c, m, *from_manifest, 512, {}).limits.int8_ranges);
  const pipeline::LoopOptions loop = LoopOptionsFrom(c, m, *from_manifest);
  EXPECT_EQ(loop.encoding, "int8");
  EXPECT_EQ(loop.int8_ranges, m.int8_ranges);

  const std::string file = ::testing::TempDir() + "/output-settings-ranges.json";
  std::filesystem::remove(file);
  c.output.int8_ranges = file;
  EXPECT_NE(OutputSettingsFrom(c, m).status().message().find("output.int8_ranges: cannot read " + file),
            std::string::npos);
  std::ofstream(file) << "[[-2, -3, -4], [2, 3, 4]]";
  EXPECT_NE(OutputSettingsFrom(c, m).status().message().find(
                "output.int8_ranges have 3 dimensions; the model's embedding has 2"),
            std::string::npos);
  std::ofstream(file) << "[[-2, -3], [2, 3]]";
  absl::StatusOr<OutputSettings> from_file = OutputSettingsFrom(c, m);
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  EXPECT_EQ(from_file->int8_ranges, (QuantizationRanges{{-2, -3}, {2, 3}})) << "the file wins over the manifest";

  c = Config{};
  c.output.encoding = "base64";
  m.task.task = task::kRerank;
  EXPECT_NE(OutputSettingsFrom(c, m).status().message().find(
                "output.encoding=base64: this model's task is rerank; the compact encodings are for embeddings"),
            std::string::npos);
}

TEST(ServeOptionsTest, HttpListensWhereConfiguredWithTheExecutorStallBound) {
  Config c;
  c.http.listen = "0.0.0.0:9500";
  c.health.executor_stall = seconds(9);
  const HttpOptions h = HttpOptionsFrom(c);
  EXPECT_EQ(h.listen, "0.0.0.0:9500");
  EXPECT_EQ(h.executor_stall, seconds(9));
  c.http.listen = "";
  EXPECT_EQ(HttpOptionsFrom(c).listen, "") << "no front end";
}

}  // namespace
}  // namespace qinfer::app
