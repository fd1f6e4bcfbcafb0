// End-to-end: the real qinfer binary against the real broker, the real
// TorchScript model and a real RocksDB store.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "kafka_test_util.h"
#include "qinfer/core/json_scan.h"
#include "qinfer/core/outcome_json.h"
#include "util/run_command.h"
#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::testing {
namespace {

using std::chrono::seconds;

constexpr int64_t kVocab = 4096;  // the test model's manifest
constexpr int kMaxTokens = 512;

// The OpenMP threads an aoti export's cpu/float32 package was compiled for
// (its manifest's packages."cpu/float32".threads): serve and the reference
// runner run exactly that many, so the test's verdict does not depend on
// how many cores this machine lends it (under taskset to one core the
// default, one thread per core, is refused by name, as it should be).
int PackageThreads(const std::string& dir) {
  std::ifstream in(dir + "/manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(in);
  return manifest.at("packages").at("cpu/float32").at("threads").get<int>();
}

class ServeIntegrationTest : public BrokerTest {
 protected:
  std::string Yaml() { return ServeYaml(brokers_, topic_, group_, store_); }

  // Waits until everything published is committed, then stops the service
  // with SIGTERM and expects a clean exit.
  void DrainAndStop(ServeProcess& serve, int partitions, seconds timeout = seconds(240)) {
    ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, partitions, timeout))
        << "committed " << CommittedTotal(brokers_, group_, topic_, partitions) << " of "
        << EndOffsetTotal(brokers_, topic_, partitions) << "\n"
        << serve.LogTail();
    ASSERT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();
  }
};

TEST_F(ServeIntegrationTest, FiveThousandJobsOverThreePartitionsGetExactlyFiveThousandResults) {
  CreateTopic(brokers_, topic_, 3);
  auto jobs = MakeJobs(5000, kVocab, kMaxTokens, 1, "job-");
  Produce(brokers_, topic_, jobs);
  ServeProcess serve(dir_.string(), Yaml());
  DrainAndStop(serve, 3);

  EXPECT_EQ(CommittedTotal(brokers_, group_, topic_, 3), EndOffsetTotal(brokers_, topic_, 3));
  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), 5000u);
  ExpectSound(AuditRun(brokers_, group_, topic_, 3, records), /*complete=*/true);

  // Every output belongs to its id: a sample run alone, unbatched and
  // unpadded, through the same model gives the same vector.
  executor::RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  auto reference = executor::TorchModelRunner::Load(options);
  ASSERT_TRUE(reference.ok()) << reference.status();
  std::set<int> buckets;
  size_t batched = 0, compared = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& [id, value] = jobs[i];
    auto it = records.find(id);
    ASSERT_NE(it, records.end()) << id;
    const Outcome& o = it->second;
    ASSERT_TRUE(o.ok) << id << ": " << o.error;
    const auto input = nlohmann::json::parse(value).at("input_ids").get<std::vector<int64_t>>();
    ASSERT_EQ(o.input_length, input.size()) << id << ": the length that ran is the length submitted";
    ASSERT_EQ(o.output.size(), 128u) << id;
    EXPECT_LE(o.input_length, size_t(o.bucket));
    EXPECT_LE(size_t(o.padded_length), size_t(o.bucket)) << id << ": padded to its batch, within its bucket";
    EXPECT_GE(size_t(o.padded_length), o.input_length) << id;
    buckets.insert(o.bucket);
    if (o.batch_size > 1) ++batched;
    if (i % 50 != 0) continue;
    auto alone = (*reference)->Forward({input});
    ASSERT_TRUE(alone.ok()) << alone.status();
    ASSERT_EQ((*alone)[0].size(), o.output.size());
    for (size_t d = 0; d < o.output.size(); ++d) {
      ASSERT_NEAR(o.output[d], (*alone)[0][d], 1e-4) << id << " dim " << d << " (batch of " << o.batch_size << ")";
    }
    ++compared;
  }
  EXPECT_EQ(compared, 100u);
  EXPECT_GE(buckets.size(), 4u) << "long-tailed lengths spread over several buckets";
  // Everything was waiting in Kafka before the start: nearly every job runs
  // in a batch with others.
  EXPECT_GT(batched, jobs.size() * 9 / 10) << "jobs that ran in a batch of more than one";
}

// The aoti export of the test model (the same weights, AOTInductor packages)
// serves what the TorchScript export computes: each job's result equals the
// TorchScript model's output for that job, padded as it ran.
TEST_F(ServeIntegrationTest, TheAotiExportServesTheSameOutputsAsTheTorchScriptExport) {
  CreateTopic(brokers_, topic_, 2);
  auto jobs = MakeJobs(300, kVocab, kMaxTokens, 5, "a-");
  Produce(brokers_, topic_, jobs);
  std::string yaml = Yaml();
  const std::string torchscript = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt";
  const std::string aoti = std::string(QINFER_TEST_MODEL_AOTI_DIR) + "/model-cpu-float32.pt2";
  ASSERT_NE(yaml.find(torchscript), std::string::npos);
  yaml.replace(yaml.find(torchscript), torchscript.size(), aoti);
  const int threads = PackageThreads(QINFER_TEST_MODEL_AOTI_DIR);
  ServeProcess serve(dir_.string(), yaml, {"--set", "model.threads=" + std::to_string(threads)});
  DrainAndStop(serve, 2);

  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), 300u);
  executor::RunnerOptions options;
  options.model_path = torchscript;
  auto reference = executor::TorchModelRunner::Load(options);
  ASSERT_TRUE(reference.ok()) << reference.status();
  options.model_path = aoti;
  options.intra_op_threads = threads;
  auto served = executor::TorchModelRunner::Load(options);
  ASSERT_TRUE(served.ok()) << served.status();
  size_t batched = 0;
  for (const auto& [id, value] : jobs) {
    const Outcome& o = records.at(id);
    ASSERT_TRUE(o.ok) << id << ": " << o.error;
    EXPECT_EQ(o.model_digest, (*served)->manifest().digest) << id;
    const auto input = nlohmann::json::parse(value).at("input_ids").get<std::vector<int64_t>>();
    auto want = (*reference)->Forward({input}, o.padded_length);
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ(o.output.size(), (*want)[0].size()) << id;
    for (size_t d = 0; d < o.output.size(); ++d) {
      ASSERT_NEAR(o.output[d], (*want)[0][d], 1e-5) << id << " dim " << d << " (batch of " << o.batch_size << ")";
    }
    if (o.batch_size > 1) ++batched;
  }
  EXPECT_GT(batched, jobs.size() / 2) << "the aoti packages ran batches, not only single jobs";
}

// The frozen export's bfloat16 package (constants folded, oneDNN linears
// with prepacked weights) serves what the unfrozen bfloat16 package
// computes for each job, padded as it ran: cosine 0.9999 or more.
TEST_F(ServeIntegrationTest, TheFrozenBf16PackageServesTheUnfrozenPackagesOutputs) {
  CreateTopic(brokers_, topic_, 2);
  auto jobs = MakeJobs(200, kVocab, kMaxTokens, 5, "z-");
  Produce(brokers_, topic_, jobs);
  std::string yaml = Yaml();
  const std::string torchscript = std::string(QINFER_TEST_MODEL_DIR) + "/model.pt\n";
  const std::string frozen = std::string(QINFER_TEST_MODEL_AOTI_FROZEN_DIR) + "/model-cpu-float32.pt2";
  ASSERT_NE(yaml.find(torchscript), std::string::npos);
  yaml.replace(yaml.find(torchscript), torchscript.size(), frozen + "\n  autocast: bf16\n");
  const int threads = PackageThreads(QINFER_TEST_MODEL_AOTI_FROZEN_DIR);
  ServeProcess serve(dir_.string(), yaml, {"--set", "model.threads=" + std::to_string(threads)});
  DrainAndStop(serve, 2);

  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), 200u);
  executor::RunnerOptions options;
  options.model_path = std::string(QINFER_TEST_MODEL_AOTI_DIR) + "/model-cpu-float32.pt2";
  options.autocast = "bf16";
  options.intra_op_threads = PackageThreads(QINFER_TEST_MODEL_AOTI_DIR);
  auto unfrozen = executor::TorchModelRunner::Load(options);
  ASSERT_TRUE(unfrozen.ok()) << unfrozen.status();
  size_t batched = 0;
  for (const auto& [id, value] : jobs) {
    const Outcome& o = records.at(id);
    ASSERT_TRUE(o.ok) << id << ": " << o.error;
    const auto input = nlohmann::json::parse(value).at("input_ids").get<std::vector<int64_t>>();
    auto want = (*unfrozen)->Forward({input}, o.padded_length);
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ(o.output.size(), (*want)[0].size()) << id;
    double dot = 0, a = 0, b = 0;
    for (size_t d = 0; d < o.output.size(); ++d) {
      dot += double(o.output[d]) * (*want)[0][d];
      a += double(o.output[d]) * o.output[d];
      b += double((*want)[0][d]) * (*want)[0][d];
    }
    EXPECT_GE(dot / std::sqrt(a * b), 0.9999) << id << " (batch of " << o.batch_size << ")";
    if (o.batch_size > 1) ++batched;
  }
  EXPECT_GT(batched, jobs.size() / 2) << "the frozen package ran batches, not only single jobs";
}

// `meta` whose strings hold brackets, braces, quotes and backslashes,
// nested in objects and arrays, with the producer's own spacing: each must
// come back byte for byte, whatever a scanner that counts brackets would
// make of it. Keyed tm-<i>; the first is too long (a failure record).
const std::vector<std::string> kTrickyMeta = {
    R"({"s":"}]\"{[","a":[{"b":"]}"},["\"","{"]],"o":{"x":{"y":"[{\"}"}}})",
    R"( [ "}" , {"k" : "]\"{", "e": "\\"} ,  [[ ]], {} ] )",
    R"({"q":"\\\"","n":{"m":["{","}",{"]":"["}]},"t":true,"z":null,"u":"\u007d\u005d"})",
    R"("]}{[\" , \"meta\": {")",
    R"({"meta":{"meta":"}"},"input_ids":"[1,2]","id":"not-this"})",
};

std::vector<std::pair<std::string, std::string>> TrickyMetaJobs(const std::string& reply_to) {
  std::vector<std::pair<std::string, std::string>> jobs;
  std::string long_ids;
  for (int i = 0; i < kMaxTokens + 1; ++i) long_ids += (i ? ",3" : "3");
  for (size_t i = 0; i < kTrickyMeta.size(); ++i) {
    const std::string id = "tm-" + std::to_string(i);
    const std::string ids = i == 0 ? long_ids : "5,6,7";
    // meta before and after the other members, in turn.
    jobs.emplace_back(id, i % 2 == 0 ? R"({"meta": )" + kTrickyMeta[i] + R"(, "id":")" + id + R"(","input_ids":[)" +
                                           ids + R"(],"reply_to":")" + reply_to + R"("})"
                                     : R"({"id":")" + id + R"(","input_ids":[)" + ids + R"(],"reply_to":")" +
                                           reply_to + R"(","meta":)" + kTrickyMeta[i] + "}");
  }
  return jobs;
}

// The meta member of one exported or replied line, as its bytes.
std::string MetaBytes(const std::string& json) {
  std::optional<std::string_view> meta = RawJsonMember(json, "meta");
  return meta ? std::string(*meta) : "<none>";
}

TEST_F(ServeIntegrationTest, RepliesReadBackByKcatMatchTheStoredResults) {
  CreateTopic(brokers_, topic_, 3);
  const std::string replies = UniqueName("replies");
  CreateTopic(brokers_, replies, 2);
  auto jobs = MakeJobs(300, kVocab, kMaxTokens, 2, "r-", replies);
  const auto tricky = TrickyMetaJobs(replies);
  jobs.insert(jobs.begin() + 150, tricky.begin(), tricky.end());
  Produce(brokers_, topic_, jobs);
  ServeProcess serve(dir_.string(), Yaml());
  DrainAndStop(serve, 3);

  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), 300u + tricky.size());
  // meta: from the store, the reply, the JSONL export and `results --id`.
  auto [rc, exported] = RunCommand(std::string(QINFER_BINARY) + " --log-level warn results --store " + store_ +
                                   " --export -");
  ASSERT_EQ(rc, 0);
  std::map<std::string, std::string> exported_meta;
  std::istringstream lines(exported);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    std::optional<std::string_view> id = RawJsonMember(line, "id");
    ASSERT_TRUE(id.has_value()) << line;
    exported_meta[std::string(id->substr(1, id->size() - 2))] = MetaBytes(line);
  }
  std::map<std::string, std::string> replied_meta;
  for (const ReadMessage& m : ReadTopic(brokers_, replies)) replied_meta[m.key] = MetaBytes(m.value);
  for (size_t i = 0; i < kTrickyMeta.size(); ++i) {
    const std::string id = "tm-" + std::to_string(i);
    std::string sent = kTrickyMeta[i];  // the value's own spacing; none around it
    sent.erase(0, sent.find_first_not_of(' '));
    sent.erase(sent.find_last_not_of(' ') + 1);
    EXPECT_EQ(records.at(id).ok, i != 0) << id << ": " << records.at(id).error;
    EXPECT_EQ(records.at(id).meta_json, sent) << id << " in the store";
    EXPECT_EQ(exported_meta.at(id), sent) << id << " in results --export";
    auto [id_rc, one] = RunCommand(std::string(QINFER_BINARY) + " --log-level warn results --store " + store_ +
                                   " --id " + id);
    EXPECT_EQ(id_rc, 0) << one;
    EXPECT_EQ(MetaBytes(one), sent) << id << " from results --id";
    if (i != 0) {
      EXPECT_EQ(replied_meta.at(id), sent) << id << " in its reply";
    }
  }
  for (const auto& [id, value] : tricky) records.erase(id);
  ASSERT_EQ(records.size(), 300u);
  // An independent client reads the reply topic.
  const std::vector<ReadMessage> messages = ReadTopic(brokers_, replies);
  std::map<std::string, std::string> replied;
  for (const ReadMessage& m : messages) {
    EXPECT_TRUE(replied.emplace(m.key, m.value).second) << "a second reply for " << m.key;
  }
  ASSERT_EQ(messages.size(), 300u + tricky.size() - 1) << "one reply per result, no duplicates";
  ASSERT_EQ(replied.size(), 300u + tricky.size() - 1);
  EXPECT_EQ(EndOffsetTotal(brokers_, replies, 2), int64_t(300 + tricky.size() - 1));
  for (int i = 0; i < 300; ++i) {
    const std::string id = "r-" + std::to_string(i);
    auto reply = OutcomeFromJson(replied.at(id));
    ASSERT_TRUE(reply.ok()) << reply.status();
    const Outcome& stored = records.at(id);
    EXPECT_EQ(reply->id, id);
    EXPECT_EQ(reply->output, stored.output) << id;
    // What was submitted (MakeJobs: {"n": i}), not what the store says.
    EXPECT_EQ(reply->meta_json, R"({"n":)" + std::to_string(i) + "}") << id;
  }
}

TEST_F(ServeIntegrationTest, InvalidMessagesGetFailureRecordsAndValidJobsAllGetResults) {
  CreateTopic(brokers_, topic_, 3);
  const std::string dead_letters = UniqueName("dlq");
  CreateTopic(brokers_, dead_letters, 1);
  auto valid = MakeJobs(1000, kVocab, kMaxTokens, 3, "ok-");
  // 100 invalid messages of ten kinds, interleaved every ten valid jobs.
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"invalid", "not json at all"},
      {"invalid", R"([1,2,3])"},
      {"invalid", R"({"id":"ID"})"},
      {"invalid", R"({"id":"ID","input_ids":"1 2"})"},
      {"invalid", R"({"id":"ID","input_ids":[]})"},
      {"invalid", R"({"id":"ID","input_ids":[1,-5]})"},
      {"invalid", R"({"id":"ID","input_ids":[1,4096]})"},
      {"invalid", R"({"id":"ID","input_ids":[1,2.5]})"},
      {"invalid", R"({"id":"ID","input_ids":[1],"reply_to":7})"},
      // The test model's manifest names no tokenizer: it refuses text.
      {"invalid", R"({"id":"ID","text":"a text for a model without a tokenizer"})"},
      {"too_long", ""},
  };
  std::string long_ids = "[";
  for (int i = 0; i < kMaxTokens + 1; ++i) long_ids += (i ? ",1" : "1");
  long_ids += "]";
  std::vector<std::pair<std::string, std::string>> messages;
  std::map<std::string, std::string> expected_reason;
  for (int i = 0; i < 1000; ++i) {
    messages.push_back(valid[i]);
    if (i % 10 == 9) {
      const int b = i / 10;
      const std::string id = "bad-" + std::to_string(b);
      const auto& [reason, templ] = kinds[b % kinds.size()];
      std::string value = reason == "too_long" ? R"({"id":")" + id + R"(","input_ids":)" + long_ids + "}" : templ;
      if (auto pos = value.find("ID"); pos != std::string::npos) value.replace(pos, 2, id);
      // Messages with no id in the body are keyed, so their id is the key.
      messages.emplace_back(id, value);
      expected_reason[id] = reason;
    }
  }
  Produce(brokers_, topic_, messages);
  ServeProcess serve(dir_.string(), Yaml(), {"--set", "kafka.dead_letter_topic=" + dead_letters});
  DrainAndStop(serve, 3);

  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), 1100u);
  for (const auto& [id, value] : valid) {
    ASSERT_TRUE(records.at(id).ok) << id << ": " << records.at(id).error;
  }
  for (const auto& [id, reason] : expected_reason) {
    const Outcome& o = records.at(id);
    EXPECT_FALSE(o.ok) << id;
    EXPECT_EQ(o.reason, reason) << id << ": " << o.error;
    EXPECT_FALSE(o.error.empty());
    EXPECT_FALSE(o.payload.empty()) << "payload kept for replay";
    if (o.payload.find("\"text\"") != std::string::npos) {
      EXPECT_NE(o.error.find("this model has no tokenizer"), std::string::npos) << id << ": " << o.error;
    }
  }
  EXPECT_EQ(EndOffsetTotal(brokers_, dead_letters, 1), 100) << "every failure on the dead-letter topic";

  // The dead letters, read by an independent client (kcat): the value is
  // the original message, the headers say where it came from and why.
  const auto coordinates = MessageIds(brokers_, topic_);
  std::map<std::string, std::pair<int, int64_t>> where;
  for (const auto& [at, id] : coordinates) where[id] = at;
  std::map<std::string, std::string> sent(messages.begin(), messages.end());
  std::set<std::string> seen;
  for (const ReadMessage& m : ReadTopic(brokers_, dead_letters)) {
    const std::string id = m.headers.at("__qinfer.errors.id");
    EXPECT_EQ(m.key, id);
    EXPECT_TRUE(seen.insert(id).second) << "dead-lettered twice: " << id;
    ASSERT_TRUE(expected_reason.count(id)) << id << " is not one of the bad messages";
    EXPECT_EQ(m.value, sent.at(id)) << id << ": the value is the original message";
    EXPECT_EQ(m.headers.at("__qinfer.errors.reason"), expected_reason.at(id)) << id;
    EXPECT_EQ(m.headers.at("__qinfer.errors.message"), records.at(id).error) << id;
    EXPECT_EQ(m.headers.at("__qinfer.errors.topic"), topic_);
    EXPECT_EQ(m.headers.at("__qinfer.errors.partition"), std::to_string(where.at(id).first)) << id;
    EXPECT_EQ(m.headers.at("__qinfer.errors.offset"), std::to_string(where.at(id).second)) << id;
    EXPECT_EQ(m.headers.at("__qinfer.errors.attempt"), "0") << id;
    EXPECT_GT(std::atoll(m.headers.at("__qinfer.errors.timestamp").c_str()), 1'700'000'000'000LL) << id;
    EXPECT_EQ(m.headers.count("__qinfer.errors.payload_truncated"), 0u) << id;
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST_F(ServeIntegrationTest, SigtermMidRunThenRestartGivesEveryJobExactlyOneRecord) {
  CreateTopic(brokers_, topic_, 3);
  auto jobs = MakeJobs(4000, kVocab, kMaxTokens, 4, "t-");
  Produce(brokers_, topic_, jobs);
  // A small queue bound: the consumer waits for room and, when the executor
  // falls behind for longer than the wait, pauses; so at the stop most jobs
  // are still in Kafka and the drain finishes only what was queued.
  const std::vector<std::string> small_queue = {"--set", "scheduler.max_queued_jobs=256"};
  {
    ServeProcess serve(dir_.string(), Yaml(), small_queue);
    // Stop once some, but not all, offsets are committed.
    ASSERT_TRUE(WaitForCommittedAtLeast(brokers_, group_, topic_, 3, 200, seconds(120))) << serve.LogTail();
    ASSERT_EQ(serve.Stop(SIGTERM), 0) << "clean exit on SIGTERM\n" << serve.LogTail();
    // Whether the queue stays full past the 250 ms wait (a pause) depends on
    // how fast this machine runs the batches; that it filled and held the
    // consumer back does not. Every pause follows a wait.
    const int64_t waits = SummaryField(serve.Log(), "full_waits");
    const int64_t pauses = SummaryField(serve.Log(), "pauses");
    std::printf("full-queue waits: %lld, pauses %lld\n", (long long)waits, (long long)pauses);
    EXPECT_GT(waits, 0) << "the queue bound held the consumer back\n" << serve.LogTail();
    EXPECT_GE(waits, pauses) << serve.LogTail();
    // Paused partitions stop delivering: the queue stays near its bound
    // although 4,000 jobs wait in Kafka. What the tokenizer pool holds
    // counts against the same bound, so the bound is reached by the two.
    const int64_t peak = SummaryField(serve.Log(), "peak_queued");
    const int64_t decoding = SummaryField(serve.Log(), "peak_decoding");
    std::printf("peak queued jobs: %lld, decoding %lld (bound 256 each)\n", (long long)peak, (long long)decoding);
    EXPECT_GE(peak + decoding, 256) << serve.LogTail();
    EXPECT_LE(decoding, 256) << "the pool's own bound";
    EXPECT_LE(peak, 256 + 512) << serve.LogTail();
  }
  const int64_t committed = CommittedTotal(brokers_, group_, topic_, 3);
  EXPECT_GT(committed, 0);
  EXPECT_LT(committed, 4000) << "the stop should land mid-run";
  // A clean stop finishes what it consumed and commits exactly that.
  EXPECT_EQ(int64_t(ReadStore(store_).size()), committed);
  ExpectSound(AuditRun(brokers_, group_, topic_, 3, ReadStore(store_)), /*complete=*/false);

  ServeProcess again(dir_.string(), Yaml(), small_queue);
  DrainAndStop(again, 3);
  // The restart reads from the committed offsets, redoing nothing, unless
  // the group rebalanced during it (the broker is shared with other tests):
  // then what was read and not yet committed (the queue's 256 and the
  // pool's 256 at most) is delivered again once per extra assignment, and
  // the store keeps one record of each (checked below).
  const std::string log = again.Log();
  int64_t assigned = 0;
  for (size_t at = log.find("event=assigned"); at != std::string::npos; at = log.find("event=assigned", at + 1)) {
    ++assigned;
  }
  const int64_t messages = SummaryField(log, "messages");
  if (assigned <= 3) {
    EXPECT_EQ(messages, 4000 - committed) << "the restart reads from the committed offsets, redoing nothing";
  } else {
    EXPECT_GE(messages, 4000 - committed);
    EXPECT_LE(messages, 4000 - committed + (assigned - 3) * 512) << assigned << " partition assignments";
  }
  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), 4000u);
  for (const auto& [id, value] : jobs) ASSERT_TRUE(records.at(id).ok) << id;
}

// The commit at a stop whose drain is cut short (shutdown.drain_timeout_s 0:
// what is queued at the signal is abandoned, so jobs are read but have no
// record when the final commit runs): it takes each partition only to the
// end of its durable prefix, never past a queued job.
TEST_F(ServeIntegrationTest, SigtermWithAnAbandonedDrainCommitsNoOffsetPastAJobWithoutARecord) {
  CreateTopic(brokers_, topic_, 3);
  auto jobs = MakeJobs(2000, kVocab, kMaxTokens, 6, "a-");
  // Two parts: the second is published only once the executor is held, so
  // it is queued at the signal however fast this machine ran the first (one
  // topic of 2,000 let a fast machine run every job before the hold).
  const std::vector<std::pair<std::string, std::string>> first(jobs.begin(), jobs.begin() + 500);
  const std::vector<std::pair<std::string, std::string>> second(jobs.begin() + 500, jobs.end());
  Produce(brokers_, topic_, first);
  const std::vector<std::string> args = {"--set", "scheduler.max_queued_jobs=256"};
  {
    std::vector<std::string> cut_short = args;
    cut_short.insert(cut_short.end(), {"--set", "shutdown.drain_timeout_s=0"});
    // The executor is held before a batch (--test-hold-file) while the
    // queue fills, and let go only after the signal: the drain then finds a
    // full queue and no time.
    const std::filesystem::path hold = dir_ / "hold";
    ServeProcess serve(dir_.string(), Yaml(), WithHoldFile(cut_short, hold));
    ASSERT_TRUE(WaitForCommittedAtLeast(brokers_, group_, topic_, 3, 200, seconds(120))) << serve.LogTail();
    HoldThenProduce(brokers_, topic_, hold, second);
    std::this_thread::sleep_for(seconds(2));
    ASSERT_EQ(::kill(serve.pid(), SIGTERM), 0);
    std::this_thread::sleep_for(seconds(1));
    std::filesystem::remove(hold);
    ASSERT_EQ(serve.Wait(seconds(60)), 0) << serve.LogTail();
    ASSERT_NE(serve.Log().find("event=jobs_abandoned why=drain_timeout"), std::string::npos)
        << "jobs were queued at the signal\n"
        << serve.LogTail();
  }
  // The final commit is the last word of the stop: audit it before anything
  // else runs.
  const Audit at_stop = AuditRun(brokers_, group_, topic_, 3, ReadStore(store_));
  ExpectSound(at_stop, /*complete=*/false);
  EXPECT_LT(at_stop.committed, 2000) << "the stop should land mid-run";

  ServeProcess again(dir_.string(), Yaml(), args);
  DrainAndStop(again, 3);
  auto records = ReadStore(store_);
  for (const auto& [id, value] : jobs) ASSERT_TRUE(records.at(id).ok) << id;
  ExpectSound(AuditRun(brokers_, group_, topic_, 3, records), /*complete=*/true);
}

TEST_F(ServeIntegrationTest, SigkillMidRunThenRestartLosesNothing) {
  CreateTopic(brokers_, topic_, 3);
  auto jobs = MakeJobs(3000, kVocab, kMaxTokens, 5, "k-");
  // Two parts, as in the abandoned-drain test above: the second is published
  // once the executor is held (--test-hold-file), so jobs read and not yet
  // recorded are in the killed process however fast it ran the first (here
  // one topic of 3,000 was committed whole before the kill landed).
  const std::vector<std::pair<std::string, std::string>> first(jobs.begin(), jobs.begin() + 1200);
  const std::vector<std::pair<std::string, std::string>> second(jobs.begin() + 1200, jobs.end());
  Produce(brokers_, topic_, first);
  // The broker notices a killed member after its session timeout: keep it
  // short so the restarted member gets the partitions soon.
  const std::vector<std::string> args = WithShortSession({"--set", "scheduler.max_queued_jobs=256"});
  {
    const std::filesystem::path hold = dir_ / "hold";
    ServeProcess serve(dir_.string(), Yaml(), WithHoldFile(args, hold));
    ASSERT_TRUE(WaitForCommittedAtLeast(brokers_, group_, topic_, 3, 1000, seconds(120))) << serve.LogTail();
    HoldThenProduce(brokers_, topic_, hold, second);
    std::this_thread::sleep_for(seconds(2));
    EXPECT_EQ(serve.Stop(SIGKILL), 128 + SIGKILL);
    std::filesystem::remove(hold);
  }
  // A killed member's partitions are reassigned once the broker notices it
  // left (session timeout); the restarted member resumes from the commits.
  const int64_t committed = CommittedTotal(brokers_, group_, topic_, 3);
  EXPECT_LT(committed, 3000) << "the kill should land mid-run";
  EXPECT_GE(int64_t(ReadStore(store_).size()), committed);
  ExpectSound(AuditRun(brokers_, group_, topic_, 3, ReadStore(store_)), /*complete=*/false);
  ServeProcess again(dir_.string(), Yaml(), args);
  DrainAndStop(again, 3);
  // It resumes from the committed offsets, not from the beginning; a
  // rebalance when the killed member expires may re-read what was in
  // flight (at most the queue bound, 256, and the jobs awaiting records).
  const int64_t read = SummaryField(again.Log(), "messages");
  EXPECT_GE(read, 3000 - committed);
  EXPECT_LE(read, 3000 - committed + 300) << "committed " << committed;
  auto records = ReadStore(store_);
  ASSERT_EQ(records.size(), 3000u);
  for (const auto& [id, value] : jobs) ASSERT_TRUE(records.at(id).ok) << id;
}

}  // namespace
}  // namespace qinfer::testing
