// The tokenizer pool (`tokenizer.threads`) against the real broker: mixed
// text and id jobs over three partitions, decoded by 1, 2 and 4 workers,
// give the same records, each the one the tokenizer library's own encoding
// gives, with every offset committed; a SIGKILL and a rebalance while the
// pool decodes lose nothing and commit nothing ahead of its record.
//
// The model is the no-op model with MiniLM's tokenizer (model/export_noop.py
// --tokenizer, QINFER_TEST_MODEL_TEXT_DIR): its forward costs nothing, so
// the pool's decoding is what a run spends its time on, and a row's output
// is the mean of its ids (a fingerprint of the tokenization).
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "kafka_test_util.h"
#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::testing {
namespace {

using std::chrono::seconds;

constexpr int kPartitions = 3;
constexpr size_t kMaxTokens = 128;  // the text model's manifest (CMake: --max-tokens)

const char* const kWords[] = {
    "the",      "quick",     "brown",   "fox",        "jumps",       "over",      "lazy",     "dog",
    "river",    "bank",      "Paris",   "Berlin",     "conference",  "morning",   "beach",    "sunset",
    "football", "team",      "won",     "championship", "parliament", "budget",   "majority", "scientists",
    "frog",     "rainforest", "galaxy", "telescope",  "billions",    "delayed",   "snow",     "wonderful",
    "salty",    "lighthouse", "guides", "ships",      "capital",     "Australia", "Canberra", "distributed",
    "stream",   "scheduler", "buckets", "tokenization", "unbelievably", "café",    "naïve",    "42",
    "3.14",     "don't",     "U.S.A.",  "e-mail",     "!",           "?",         "(",        ")"};

std::string Text(std::mt19937& rng, int words) {
  std::uniform_int_distribution<size_t> pick(0, std::size(kWords) - 1);
  std::string text;
  for (int w = 0; w < words; ++w) {
    if (w > 0) text += ' ';
    text += kWords[pick(rng)];
  }
  return text;
}

// `count` jobs, two text jobs to one id job; texts of min..max words, some
// longer than the model's 128 tokens (truncated, admission.too_long).
std::vector<std::pair<std::string, std::string>> MixedJobs(int count, int min_words, int max_words, int64_t vocab,
                                                           uint32_t seed, const std::string& prefix) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> words(min_words, max_words);
  std::uniform_int_distribution<int> length(1, 60);
  std::uniform_int_distribution<int64_t> id(1000, vocab - 1);
  std::vector<std::pair<std::string, std::string>> jobs;
  for (int i = 0; i < count; ++i) {
    const std::string name = prefix + std::to_string(i);
    nlohmann::json job = {{"id", name}};
    if (i % 3 == 2) {
      std::vector<int64_t> ids(size_t(length(rng)));
      for (int64_t& t : ids) t = id(rng);
      job["input_ids"] = ids;
    } else {
      job["text"] = Text(rng, words(rng));
    }
    jobs.emplace_back(name, job.dump());
  }
  return jobs;
}

// What the no-op model returns for `ids` (model/export_noop.py): the mean
// of the ids over vocab, times (d + 1) / dim in column d.
std::vector<float> NoopOutput(const std::vector<int64_t>& ids, int64_t vocab, size_t dim) {
  double sum = 0;
  for (int64_t t : ids) sum += double(t);
  const double mean = sum / double(ids.size());
  std::vector<float> out(dim);
  for (size_t d = 0; d < dim; ++d) out[d] = float(mean * double(d + 1) / double(dim * size_t(vocab)));
  return out;
}

bool Near(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::fabs(a[i] - b[i]) > 1e-6f * std::max(1.0f, std::fabs(b[i]))) return false;
  }
  return true;
}

class TokenizerPoolTest : public BrokerTest {
 protected:
  void SetUp() override {
    BrokerTest::SetUp();
    if (IsSkipped()) return;
    if (std::string(QINFER_TEST_MODEL_TEXT_DIR).empty()) {
      GTEST_SKIP() << "no text model: the build's venv lacks what exports MiniLM's tokenizer (run deploy/setup.sh)";
    }
    const nlohmann::json manifest =
        nlohmann::json::parse(std::ifstream(std::string(QINFER_TEST_MODEL_TEXT_DIR) + "/manifest.json"));
    vocab_ = manifest.at("vocab_size").get<int64_t>();
    dim_ = manifest.at("dim").get<size_t>();
    auto tokenizer = tokenizer::Tokenizer::Load(std::string(QINFER_TEST_MODEL_TEXT_DIR) + "/tokenizer.json");
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    tokenizer_ = *std::move(tokenizer);
  }

  std::string Yaml(const std::string& store, int threads) const {
    std::ostringstream y;
    y << "model:\n  path: " << QINFER_TEST_MODEL_TEXT_DIR << "/model.pt\n  threads: 1\n"
      << "tokenizer:\n  threads: " << threads << "\n"
      << "kafka:\n  brokers: " << brokers_ << "\n  jobs_topic: " << topic_ << "\n  group_id: " << group_ << "\n"
      << "scheduler:\n  max_batch_delay_ms: 20\n  max_queued_jobs: 512\n"
      << "admission:\n  too_long: truncate\n"
      << "storage:\n  path: " << store << "\n"
      << "http:\n  listen: \"\"\n";
    return y.str();
  }

  // The record each job must get: the no-op output of the ids the tokenizer
  // library gives its text (truncated to the model's tokens), or of its ids.
  std::map<std::string, std::vector<float>> Expected(const std::vector<std::pair<std::string, std::string>>& jobs) {
    std::map<std::string, std::vector<float>> expected;
    for (const auto& [id, value] : jobs) {
      const nlohmann::json job = nlohmann::json::parse(value);
      std::vector<int64_t> ids;
      if (job.contains("input_ids")) {
        ids = job["input_ids"].get<std::vector<int64_t>>();
      } else {
        auto encoding = tokenizer_->Encode(job["text"].get<std::string>());
        EXPECT_TRUE(encoding.ok()) << encoding.status();
        if (!encoding.ok()) continue;
        auto kept = encoding->Truncated(kMaxTokens);
        EXPECT_TRUE(kept.ok()) << kept.status();
        if (!kept.ok()) continue;
        ids = *std::move(kept);
      }
      expected.emplace(id, NoopOutput(ids, vocab_, dim_));
    }
    return expected;
  }

  // Every job has an ok record equal to `expected`'s, and the run is sound.
  void ExpectEveryRecord(const std::map<std::string, std::vector<float>>& expected,
                         const std::map<std::string, Outcome>& records) {
    size_t wrong = 0;
    for (const auto& [id, output] : expected) {
      auto it = records.find(id);
      ASSERT_NE(it, records.end()) << "no record for " << id;
      ASSERT_TRUE(it->second.ok) << id << ": " << it->second.reason << " " << it->second.error;
      if (!Near(it->second.output, output) && ++wrong <= 3) ADD_FAILURE() << id << ": not the tokenizer's ids";
    }
    EXPECT_EQ(wrong, 0u);
    ExpectSound(AuditRun(brokers_, group_, topic_, kPartitions, records), /*complete=*/true);
  }

  int64_t vocab_ = 0;
  size_t dim_ = 0;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
};

// One topic, read by a fresh group per pool size: 1, 2 and 4 workers give
// every job the record the library's encoding gives, so the same records,
// and every partition's offsets are committed to its end.
TEST_F(TokenizerPoolTest, OneTwoAndFourWorkersGiveTheTokenizersRecordsAndCommitEveryOffset) {
  CreateTopic(brokers_, topic_, kPartitions);
  auto jobs = MixedJobs(10000, 1, 60, vocab_, 31, "p-");
  Produce(brokers_, topic_, jobs);
  const auto expected = Expected(jobs);
  const std::string group_base = group_;
  std::map<std::string, Outcome> first;
  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE("tokenizer.threads " + std::to_string(threads));
    group_ = group_base + "-" + std::to_string(threads);
    const std::string store = (dir_ / ("store-" + std::to_string(threads))).string();
    ServeProcess serve(dir_.string(), Yaml(store, threads));
    ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, kPartitions, seconds(240))) << serve.LogTail();
    ASSERT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();
    EXPECT_NE(serve.Log().find("event=tokenizer_pool threads=" + std::to_string(threads)), std::string::npos);
    // Committed to the end, partition by partition.
    const std::vector<int64_t> committed = CommittedOffsets(brokers_, group_, topic_, kPartitions);
    int64_t total = 0;
    for (int64_t c : committed) total += c;
    EXPECT_EQ(total, EndOffsetTotal(brokers_, topic_, kPartitions));
    auto records = ReadStore(store);
    ExpectEveryRecord(expected, records);
    if (threads == 1) {
      first = std::move(records);
      continue;
    }
    for (const auto& [id, o] : records) EXPECT_EQ(o.output, first.at(id).output) << id;
  }
}

// Long texts (150-400 words, truncated to 128 tokens: decoding is the run's
// bottleneck): the service is killed while its two workers decode, twice,
// then finishes; nothing is lost and nothing committed ahead of its record.
TEST_F(TokenizerPoolTest, ASigkillWhileThePoolDecodesLosesNothing) {
  CreateTopic(brokers_, topic_, kPartitions);
  constexpr int kJobs = 20000;
  auto jobs = MixedJobs(kJobs, 150, 400, vocab_, 32, "k-");
  Produce(brokers_, topic_, jobs);
  // Static membership: the restart takes its partitions back at once.
  const std::vector<std::string> args = {"--set", "kafka.consumer.group.instance.id=" + UniqueName("pool")};
  for (int64_t mark : {kJobs / 10, kJobs / 4}) {
    ServeProcess serve(dir_.string(), Yaml(store_, 2), args);
    ASSERT_TRUE(WaitForCommittedAtLeast(brokers_, group_, topic_, kPartitions, mark, seconds(240))) << serve.LogTail();
    EXPECT_EQ(serve.Stop(SIGKILL), 128 + SIGKILL);
    const Audit mid = AuditRun(brokers_, group_, topic_, kPartitions, ReadStore(store_));
    std::printf("[ kill  ] committed %lld of %d, records %zu\n", (long long)mid.committed, kJobs, mid.records);
    ExpectSound(mid, /*complete=*/false);
    ASSERT_LT(mid.committed, kJobs) << "the kill should land mid-run";
  }
  ServeProcess last(dir_.string(), Yaml(store_, 2), args);
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, kPartitions, seconds(240))) << last.LogTail();
  ASSERT_EQ(last.Stop(SIGTERM), 0) << last.LogTail();
  ExpectEveryRecord(Expected(jobs), ReadStore(store_));
}

// A second member joins while the first one's worker decodes (one worker,
// long texts: the run lasts past the join): the revoke drains the pool
// before it commits; at that moment and at the end nothing is lost and
// nothing committed ahead of its record. What a is still running for a
// revoked partition may be redone by b (at-least-once): at most what a held
// queued, each store keeping one record per id.
TEST_F(TokenizerPoolTest, ARebalanceWhileThePoolDecodesLosesNothing) {
  CreateTopic(brokers_, topic_, kPartitions);
  constexpr int kJobs = 20000;
  auto jobs = MixedJobs(kJobs, 150, 400, vocab_, 33, "r-");
  Produce(brokers_, topic_, jobs);
  const std::vector<std::string> stores = {(dir_ / "a").string(), (dir_ / "b").string()};
  ServeProcess a(dir_.string(), Yaml(stores[0], 1));
  ASSERT_TRUE(WaitForCommittedAtLeast(brokers_, group_, topic_, kPartitions, kJobs / 10, seconds(240))) << a.LogTail();
  ServeProcess b(dir_.string(), Yaml(stores[1], 2));
  const auto deadline = std::chrono::steady_clock::now() + seconds(120);
  while (a.Log().find("event=revoked") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(a.Log().find("event=revoked"), std::string::npos) << a.LogTail();
  const Audit at_revoke = AuditNow(brokers_, group_, topic_, kPartitions, stores);
  std::printf("[ revoke ] committed %lld of %d, records %zu\n", (long long)at_revoke.committed, kJobs,
              at_revoke.records);
  ExpectSound(at_revoke, /*complete=*/false);
  EXPECT_LT(at_revoke.committed, kJobs) << "the rebalance should land mid-run";
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, kPartitions, seconds(240))) << b.LogTail();
  for (ServeProcess* p : {&a, &b}) ASSERT_EQ(p->Stop(SIGTERM), 0) << p->LogTail();
  std::map<std::string, Outcome> all;
  size_t twice = 0;
  for (const std::string& s : stores) {
    for (auto& [id, o] : ReadStore(s)) twice += all.emplace(id, std::move(o)).second ? 0 : 1;
  }
  std::printf("[ group ] %zu ids recorded by both members\n", twice);
  EXPECT_LE(twice, 512u) << "more redone than a's queue (scheduler.max_queued_jobs) holds";
  ExpectEveryRecord(Expected(jobs), all);
}

}  // namespace
}  // namespace qinfer::testing
