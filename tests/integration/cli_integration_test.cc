// The user's commands and the operator's endpoints through the real binary:
// `qinfer submit` publishes a JSONL file, `serve` answers /healthz, /readyz
// and /metrics while it runs, and `qinfer results` reads the store back.
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "kafka_test_util.h"
#include "qinfer/core/outcome_json.h"

namespace qinfer::testing {
namespace {

using std::chrono::seconds;

constexpr int64_t kVocab = 4096;
constexpr int kMaxTokens = 512;

class CliIntegrationTest : public BrokerTest {
 protected:
  std::string Qinfer(const std::string& args) { return std::string(QINFER_BINARY) + " --log-level warn " + args; }
};

TEST_F(CliIntegrationTest, SubmitServeAndReadTheResultsBackThroughTheCli) {
  CreateTopic(brokers_, topic_, 2);
  auto jobs = MakeJobs(300, kVocab, kMaxTokens, 21, "cli-");
  const std::string file = (dir_ / "jobs.jsonl").string();
  {
    std::ofstream out(file);
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (i == 7) {  // a user's column rides along in `meta`
        nlohmann::json with_title = nlohmann::json::parse(jobs[i].second);
        with_title["title"] = "seven";
        out << with_title.dump() << "\n";
      } else {
        out << jobs[i].second << "\n";
      }
      if (i == 100) {  // one bad line, one blank one, a column that collides with a `meta` key
        out << "not json\n\n" << R"({"id":"cli-collide","input_ids":[1,2],"meta":{"n":1},"n":2})" << "\n";
      }
    }
  }
  auto [submit_rc, submitted] =
      RunCommand(Qinfer("submit --no-progress --brokers " + brokers_ + " --topic " + topic_ + " " + file) + " 2>&1");
  ASSERT_EQ(submit_rc, 0) << submitted;
  EXPECT_NE(submitted.find("submit: line 102: not a JSON object, skipped"), std::string::npos) << submitted;
  EXPECT_NE(submitted.find("submit: line 104: has the field `n` and a key `n` in its `meta`, skipped"),
            std::string::npos)
      << submitted;
  EXPECT_NE(submitted.find("submitted 300 of 300 jobs to " + topic_ +
                           " (acknowledged by the broker); "
                           "skipped 2 bad lines"),
            std::string::npos)
      << submitted;
  EXPECT_EQ(EndOffsetTotal(brokers_, topic_, 2), 300) << "the bad line is not published";

  const int port = FreePort();
  ServeProcess serve(dir_.string(), ServeYaml(brokers_, topic_, group_, store_,
                                              "http:\n  listen: 127.0.0.1:" + std::to_string(port) + "\n"));
  httplib::Client http("127.0.0.1", port);
  http.set_connection_timeout(1);
  // /readyz turns 200 once partitions are assigned.
  int ready = 0;
  for (int i = 0; i < 300 && ready != 200; ++i) {
    if (auto res = http.Get("/readyz")) ready = res->status;
    if (ready != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(ready, 200) << serve.LogTail();
  ASSERT_TRUE(WaitForCommitted(brokers_, group_, topic_, 2, seconds(120))) << serve.LogTail();

  auto health = http.Get("/healthz");
  ASSERT_TRUE(health) << "no answer on /healthz";
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok\n");
  auto metrics = http.Get("/metrics");
  ASSERT_TRUE(metrics);
  ASSERT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->get_header_value("Content-Type").find("text/plain"), std::string::npos);
  const std::string& text = metrics->body;
  EXPECT_EQ(Sample(text, "qinfer_outcomes_total", "status=\"ok\""), 300) << text;
  EXPECT_EQ(Sample(text, "qinfer_rejected_messages_total"), 0) << text;
  EXPECT_GT(Sample(text, "qinfer_batches_total"), 0) << text;
  for (const char* cause : {"store", "consumer", "producer"}) {
    EXPECT_EQ(Sample(text, "qinfer_fatal", "cause=\"" + std::string(cause) + "\""), 0)
        << "every fatal cause is exported at 0 until raised\n"
        << text;
  }
  EXPECT_EQ(Sample(text, "qinfer_queued_jobs"), 0) << "everything done, nothing queued\n" << text;
  EXPECT_EQ(Sample(text, "qinfer_oom_ladder_total", "stage=\"oom\""), 0) << text;
  auto missing = http.Get("/nothing-here");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  ASSERT_EQ(serve.Stop(SIGTERM), 0) << serve.LogTail();
  EXPECT_FALSE(http.Get("/healthz")) << "the endpoint goes with the process";

  auto [count_rc, counts] = RunCommand(Qinfer("results --store " + store_));
  EXPECT_EQ(count_rc, 0);
  EXPECT_EQ(counts, "results 300\nfailures 0\nsuperseded 0\n");

  auto [id_rc, one] = RunCommand(Qinfer("results --store " + store_ + " --id cli-7"));
  ASSERT_EQ(id_rc, 0) << one;
  auto record = OutcomeFromJson(one.substr(0, one.find('\n')));
  ASSERT_TRUE(record.ok()) << record.status() << ": " << one;
  EXPECT_EQ(record->id, "cli-7");
  EXPECT_TRUE(record->ok);
  EXPECT_EQ(record->output.size(), 128u);
  EXPECT_EQ(record->input_length, nlohmann::json::parse(jobs[7].second).at("input_ids").size());
  EXPECT_EQ(record->meta_json, R"({"n":7,"title":"seven"})") << "the line's column comes back in meta";

  auto [missing_rc, none] = RunCommand(Qinfer("results --store " + store_ + " --id no-such-job") + " 2>&1");
  EXPECT_EQ(missing_rc, 1);
  EXPECT_NE(none.find("no record for id no-such-job"), std::string::npos) << none;

  const std::string csv = (dir_ / "export.csv").string();
  auto [csv_rc, refused] = RunCommand(Qinfer("results --store " + store_ + " --export " + csv) + " 2>&1");
  EXPECT_EQ(csv_rc, 2) << refused;
  EXPECT_NE(refused.find("not a .jsonl, .ndjson or .parquet name"), std::string::npos) << refused;
  EXPECT_FALSE(std::filesystem::exists(csv)) << "no format is written under another format's name";
  const std::string parquet = (dir_ / "export.parquet").string();
  auto [parquet_rc, parquet_wrote] = RunCommand(Qinfer("results --store " + store_ + " --export " + parquet) + " 2>&1");
  EXPECT_EQ(parquet_rc, 0) << parquet_wrote;
  EXPECT_NE(parquet_wrote.find("wrote 300 records to " + parquet + " (Parquet"), std::string::npos) << parquet_wrote;
  auto [decode_rc, no_decode] =
      RunCommand(Qinfer("results --store " + store_ + " --decode --export " + parquet + ".2.parquet") + " 2>&1");
  EXPECT_EQ(decode_rc, 2) << no_decode;
  EXPECT_NE(no_decode.find("--decode applies to JSONL"), std::string::npos) << no_decode;

  const std::string exported = (dir_ / "export.jsonl").string();
  auto [export_rc, wrote] = RunCommand(Qinfer("results --store " + store_ + " --export " + exported) + " 2>&1");
  ASSERT_EQ(export_rc, 0) << wrote;
  EXPECT_NE(wrote.find("wrote 300 records to " + exported), std::string::npos) << wrote;
  std::ifstream in(exported);
  std::set<std::string> ids;
  std::string line;
  while (std::getline(in, line)) {
    auto o = OutcomeFromJson(line);
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_TRUE(ids.insert(o->id).second) << "exported twice: " << o->id;
  }
  std::set<std::string> submitted_ids;
  for (const auto& [id, value] : jobs) submitted_ids.insert(id);
  EXPECT_EQ(ids, submitted_ids);

  auto [summary_rc, summary] = RunCommand(Qinfer("results --store " + store_ + " --summary"));
  ASSERT_EQ(summary_rc, 0) << summary;
  EXPECT_EQ(summary.rfind("records: 300 results, 0 failures (final states); 0 superseded records\n", 0), 0u) << summary;
  EXPECT_NE(summary.find("padding_eff"), std::string::npos) << summary;
}

TEST_F(CliIntegrationTest, SubmitToAnUnreachableBrokerFailsInsteadOfHanging) {
  const std::string file = (dir_ / "jobs.jsonl").string();
  std::ofstream(file) << R"({"id":"a","input_ids":[1,2,3]})"
                      << "\n";
  const auto start = std::chrono::steady_clock::now();
  auto [rc, out] = RunCommand(
      Qinfer("submit --no-progress --brokers 127.0.0.1:1 --topic t -X message.timeout.ms=2000 " + file) + " 2>&1");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("submitted 0 of 1 jobs"), std::string::npos) << out;
  EXPECT_NE(out.find("1 jobs were not delivered"), std::string::npos) << out;
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(30));
}

}  // namespace
}  // namespace qinfer::testing
