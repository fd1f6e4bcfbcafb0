#include "kafka_test_util.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::testing {
namespace {

rd_kafka_conf_t* Conf(const std::string& brokers, std::map<std::string, std::string> extra = {}) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  extra["bootstrap.servers"] = brokers;
  for (const auto& [k, v] : extra) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      ADD_FAILURE() << k << ": " << err;
    }
  }
  return conf;
}

}  // namespace

std::string TestBrokers() {
  const char* b = std::getenv("QINFER_TEST_BROKERS");
  return b == nullptr ? "" : b;
}

std::string UniqueName(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + "-" + std::to_string(getpid()) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000) + "-" +
         std::to_string(counter++);
}

void CreateTopic(const std::string& brokers, const std::string& topic, int partitions) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, Conf(brokers), err, sizeof(err));
  ASSERT_NE(rk, nullptr) << err;
  rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, err, sizeof(err));
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &nt, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
  ASSERT_NE(ev, nullptr) << "CreateTopics timed out";
  const rd_kafka_CreateTopics_result_t* res = rd_kafka_event_CreateTopics_result(ev);
  size_t n = 0;
  const rd_kafka_topic_result_t** results = rd_kafka_CreateTopics_result_topics(res, &n);
  ASSERT_EQ(n, 1u);
  rd_kafka_resp_err_t e = rd_kafka_topic_result_error(results[0]);
  EXPECT_TRUE(e == RD_KAFKA_RESP_ERR_NO_ERROR || e == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
      << topic << ": " << rd_kafka_err2str(e);
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(nt);
  // The broker answers CreateTopics before its metadata lists the topic (on
  // a loaded machine, seconds before): wait until every partition has a
  // leader, so that neither a first produce nor a serve's start-up topic
  // check races the creation.
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool ready = false;
  while (!ready && std::chrono::steady_clock::now() < deadline) {
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(rk, 0, rkt, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      ready = md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR && md->topics[0].partition_cnt > 0;
      for (int i = 0; ready && i < md->topics[0].partition_cnt; ++i) {
        ready = md->topics[0].partitions[i].leader >= 0;
      }
      rd_kafka_metadata_destroy(md);
    }
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(rk);
  ASSERT_TRUE(ready) << topic << ": no leader for every partition 30 s after CreateTopics";
}

void Produce(const std::string& brokers, const std::string& topic,
             const std::vector<std::pair<std::string, std::string>>& messages) {
  char err[512];
  static std::atomic<int> failed{0};
  failed = 0;
  rd_kafka_conf_t* conf = Conf(brokers, {{"enable.idempotence", "true"}, {"linger.ms", "5"}});
  rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void*) {
    if (m->err) failed++;
  });
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  ASSERT_NE(rk, nullptr) << err;
  for (const auto& [key, value] : messages) {
    while (true) {
      rd_kafka_resp_err_t e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()),
                                                RD_KAFKA_V_KEY(key.empty() ? nullptr : key.data(), key.size()),
                                                RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      ASSERT_EQ(e, RD_KAFKA_RESP_ERR__QUEUE_FULL) << rd_kafka_err2str(e);
      rd_kafka_poll(rk, 50);
    }
    rd_kafka_poll(rk, 0);
  }
  ASSERT_EQ(rd_kafka_flush(rk, 60000), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(failed.load(), 0) << "undelivered test messages";
  rd_kafka_destroy(rk);
}

namespace {

// `request` again every half second until it succeeds, for up to two
// minutes: right after a broker restart, a partition's leader or the group
// coordinator takes as long as the machine makes it (30 tries of half a
// second ran out on a loaded machine), so the wait is a deadline, not a count.
template <typename Request>
rd_kafka_resp_err_t AfterARestart(Request request) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  rd_kafka_resp_err_t e = request();
  while (e != RD_KAFKA_RESP_ERR_NO_ERROR && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    e = request();
  }
  return e;
}

}  // namespace

int64_t EndOffsetTotal(const std::string& brokers, const std::string& topic, int partitions) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, Conf(brokers), err, sizeof(err));
  int64_t total = 0;
  for (int p = 0; p < partitions; ++p) {
    int64_t low = 0, high = 0;
    // Right after a broker restart a partition may have no leader yet.
    const rd_kafka_resp_err_t e = AfterARestart(
        [&] { return rd_kafka_query_watermark_offsets(rk, topic.c_str(), p, &low, &high, 10000); });
    EXPECT_EQ(e, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(e);
    total += high;
  }
  rd_kafka_destroy(rk);
  return total;
}

int64_t CommittedTotal(const std::string& brokers, const std::string& group, const std::string& topic, int partitions) {
  int64_t total = 0;
  for (int64_t offset : CommittedOffsets(brokers, group, topic, partitions)) {
    total += std::max<int64_t>(0, offset);
  }
  return total;
}

bool WaitForCommitted(const std::string& brokers, const std::string& group, const std::string& topic, int partitions,
                      std::chrono::seconds timeout) {
  const int64_t end = EndOffsetTotal(brokers, topic, partitions);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (CommittedTotal(brokers, group, topic, partitions) == end) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

bool WaitForCommittedAtLeast(const std::string& brokers, const std::string& group, const std::string& topic,
                             int partitions, int64_t count, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (CommittedTotal(brokers, group, topic, partitions) >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::map<std::string, Outcome> ReadStore(const std::string& dir) {
  using storage::RocksDbOutcomeStore;
  RocksDbOutcomeStore::Options options;
  options.read_only = true;
  auto store = RocksDbOutcomeStore::Open(dir, options);
  EXPECT_TRUE(store.ok()) << store.status();
  std::map<std::string, Outcome> records;
  if (!store.ok()) return records;
  EXPECT_TRUE((*store)
                  ->ForEach(RocksDbOutcomeStore::Kind::kAll,
                            [&](const Outcome& o) {
                              EXPECT_TRUE(records.emplace(o.id, o).second) << "two records for id " << o.id;
                              return true;
                            })
                  .ok());
  return records;
}

std::vector<int64_t> CommittedOffsets(const std::string& brokers, const std::string& group, const std::string& topic,
                                      int partitions) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, Conf(brokers, {{"group.id", group}}), err, sizeof(err));
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p) rd_kafka_topic_partition_list_add(list, topic.c_str(), p);
  std::vector<int64_t> offsets(size_t(partitions), -1);
  // Right after a broker restart the group coordinator may not be ready
  // ("Not coordinator" while it loads the offsets topic).
  const rd_kafka_resp_err_t e = AfterARestart([&] { return rd_kafka_committed(rk, list, 10000); });
  EXPECT_EQ(e, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(e);
  for (int i = 0; i < list->cnt; ++i) offsets[size_t(list->elems[i].partition)] = list->elems[i].offset;
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_destroy(rk);
  return offsets;
}

namespace {

// Lines of a command's standard output; fails the test if it fails.
std::vector<std::string> CommandLines(const std::string& cmd) {
  std::vector<std::string> lines;
  FILE* pipe = popen(cmd.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << cmd;
  if (pipe == nullptr) return lines;
  char* line = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, pipe)) > 0) {
    std::string s(line, size_t(n));
    if (!s.empty() && s.back() == '\n') s.pop_back();
    lines.push_back(std::move(s));
  }
  free(line);
  EXPECT_EQ(pclose(pipe), 0) << "failed: " << cmd;
  return lines;
}

}  // namespace

std::map<std::pair<int, int64_t>, std::string> MessageIds(const std::string& brokers, const std::string& topic) {
  std::map<std::pair<int, int64_t>, std::string> ids;
  // The key is last on the line: it may hold spaces.
  for (const std::string& line :
       CommandLines("kcat -q -b " + brokers + " -C -t " + topic + " -o beginning -e -f '%p %o %k\\n'")) {
    std::istringstream in(line);
    int p = -1;
    int64_t o = -1;
    in >> p >> o;
    std::string key;
    std::getline(in, key);
    if (!key.empty() && key[0] == ' ') key.erase(0, 1);
    ids[{p, o}] = key.empty() ? topic + "/" + std::to_string(p) + "/" + std::to_string(o) : key;
  }
  return ids;
}

std::vector<ReadMessage> ReadTopic(const std::string& brokers, const std::string& topic) {
  std::vector<ReadMessage> out;
  // kcat's JSON envelope, one message per line: headers come as a flat
  // [name, value, ...] array, so values may hold any character.
  for (const std::string& line : CommandLines("kcat -q -b " + brokers + " -C -t " + topic + " -o beginning -e -J")) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) {
      ADD_FAILURE() << "kcat printed something that is not a JSON object: " << line;
      continue;
    }
    ReadMessage m;
    if (j.contains("key") && j["key"].is_string()) m.key = j["key"].get<std::string>();
    if (j.contains("payload") && j["payload"].is_string()) m.value = j["payload"].get<std::string>();
    m.partition = j.value("partition", -1);
    m.offset = j.value("offset", int64_t{-1});
    if (j.contains("headers") && j["headers"].is_array()) {
      const auto& h = j["headers"];
      for (size_t i = 0; i + 1 < h.size(); i += 2) {
        m.headers[h[i].get<std::string>()] = h[i + 1].is_string() ? h[i + 1].get<std::string>() : "";
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

Audit AuditAgainst(const std::string& brokers, const std::string& topic, const std::vector<int64_t>& committed,
                   const std::map<std::string, Outcome>& records) {
  Audit a;
  a.records = records.size();
  for (const auto& [where, id] : MessageIds(brokers, topic)) {
    a.messages++;
    const auto& [p, offset] = where;
    const bool has_record = records.contains(id);
    if (!has_record) {
      a.lost++;
      if (a.first_problem.empty()) a.first_problem = "no record for " + id;
    }
    if (offset < committed[size_t(p)] && !has_record) {
      a.committed_ahead++;
      a.first_problem = "offset " + std::to_string(offset) + " of partition " + std::to_string(p) +
                        " committed without a record for " + id;
    }
  }
  for (int64_t c : committed) a.committed += std::max<int64_t>(0, c);
  return a;
}

}  // namespace

Audit AuditRun(const std::string& brokers, const std::string& group, const std::string& topic, int partitions,
               const std::map<std::string, Outcome>& records) {
  return AuditAgainst(brokers, topic, CommittedOffsets(brokers, group, topic, partitions), records);
}

Audit AuditNow(const std::string& brokers, const std::string& group, const std::string& topic, int partitions,
               const std::vector<std::string>& stores) {
  const std::vector<int64_t> committed = CommittedOffsets(brokers, group, topic, partitions);
  std::map<std::string, Outcome> records;
  for (const std::string& store : stores) {
    // A job that moved between the instances may have a record in each.
    for (auto& [id, o] : ReadStore(store)) records.emplace(id, std::move(o));
  }
  return AuditAgainst(brokers, topic, committed, records);
}

void ExpectSound(const Audit& a, bool complete) {
  EXPECT_EQ(a.committed_ahead, 0) << a.first_problem;
  if (complete) {
    EXPECT_EQ(a.lost, 0) << a.first_problem;
    EXPECT_EQ(a.committed, a.messages) << "every message committed";
    EXPECT_EQ(int64_t(a.records), a.messages) << "one record per message";
  }
}

void BrokerTest::SetUp() {
  brokers_ = TestBrokers();
  if (brokers_.empty()) {
    GTEST_SKIP() << "QINFER_TEST_BROKERS is not set: run through ctest, whose `kafka` "
                    "fixture starts a local broker (deploy/kafka-local.sh)";
  }
  topic_ = UniqueName("jobs");
  group_ = UniqueName("group");
  dir_ = std::filesystem::temp_directory_path() / UniqueName("qinfer-it");
  std::filesystem::create_directories(dir_);
  store_ = (dir_ / "store").string();
}

void BrokerTest::TearDown() {
  if (!HasFailure() && !dir_.empty()) std::filesystem::remove_all(dir_);
}

std::vector<std::string> WithShortSession(std::vector<std::string> args) {
  args.insert(args.end(), {"--set", "kafka.consumer.session.timeout.ms=6000", "--set",
                           "kafka.consumer.heartbeat.interval.ms=1000"});
  return args;
}

std::vector<std::string> WithHoldFile(std::vector<std::string> args, const std::filesystem::path& hold) {
  args.insert(args.end(), {"--test-hold-file", hold.string()});
  return args;
}

void HoldThenProduce(const std::string& brokers, const std::string& topic, const std::filesystem::path& hold,
                     const std::vector<std::pair<std::string, std::string>>& messages) {
  std::ofstream(hold) << "hold\n";
  std::this_thread::sleep_for(std::chrono::seconds(1));
  Produce(brokers, topic, messages);
}

int64_t SummaryField(const std::string& log, const std::string& field) {
  const size_t line = log.rfind("event=summary ");
  if (line == std::string::npos) return -1;
  const size_t end = log.find('\n', line);
  const std::string summary = log.substr(line, end - line);
  const size_t at = summary.find(" " + field + "=");
  if (at == std::string::npos) return -1;
  return std::atoll(summary.c_str() + at + field.size() + 2);
}

std::vector<std::pair<std::string, std::string>> MakeJobs(int count, int64_t vocab, int max_tokens, uint32_t seed,
                                                          const std::string& id_prefix, const std::string& reply_to) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> length(std::log(40.0), 0.9);
  std::uniform_int_distribution<int64_t> token(0, vocab - 1);
  std::vector<std::pair<std::string, std::string>> jobs;
  for (int i = 0; i < count; ++i) {
    const int n = std::clamp(int(length(rng)), 1, max_tokens);
    std::string id = id_prefix + std::to_string(i);
    std::ostringstream v;
    v << R"({"id":")" << id << R"(","input_ids":[)";
    for (int t = 0; t < n; ++t) v << (t ? "," : "") << token(rng);
    v << "]";
    if (!reply_to.empty()) v << R"(,"reply_to":")" << reply_to << '"';
    v << R"(,"meta":{"n":)" << i << "}}";
    jobs.emplace_back(id, v.str());
  }
  return jobs;
}

ServeProcess::ServeProcess(const std::string& dir, const std::string& yaml, std::vector<std::string> extra_args,
                           int64_t max_file_bytes) {
  // A file of its own: several instances may start from one directory.
  static std::atomic<int> instances{0};
  const std::string config = dir + "/qinfer-" + std::to_string(instances++) + ".yaml";
  std::ofstream(config) << yaml;
  log_path_ = dir + "/serve-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + ".log";
  // Everything the child needs is prepared before fork: between fork and
  // exec only async-signal-safe calls are allowed.
  // QINFER_TEST_LOG_LEVEL=debug shows every batch and pause in the logs
  // kept beside a failed test.
  const char* level = std::getenv("QINFER_TEST_LOG_LEVEL");
  std::vector<std::string> args = {QINFER_BINARY, "--log-level", level != nullptr ? level : "info",
                                   "serve",       "--config",    config};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    if (max_file_bytes > 0) {
      struct rlimit limit = {rlim_t(max_file_bytes), rlim_t(max_file_bytes)};
      setrlimit(RLIMIT_FSIZE, &limit);
    }
    execv(args[0].c_str(), argv.data());
    _exit(127);
  }
  close(fd);
}

ServeProcess::~ServeProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

int ServeProcess::Wait(std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pid_ > 0) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      return -1;
    }
    if (std::chrono::steady_clock::now() > deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return -1;
}

int ServeProcess::Stop(int signal, std::chrono::seconds timeout) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal);
  return Wait(timeout);
}

int64_t ServeProcess::RssBytes() const {
  if (pid_ <= 0) return 0;
  std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;
  }
  return 0;
}

std::string ServeProcess::Log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ServeProcess::LogTail(size_t bytes) const {
  std::string s = Log();
  return s.size() > bytes ? s.substr(s.size() - bytes) : s;
}

// A TCP port nothing listens on right now (the kernel's pick).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// The sum of the samples of `family` whose label text contains `labels`
// (e.g. Sample(text, "qinfer_outcomes_total", "status=\"ok\"")); -1 when
// the family has no sample.
double Sample(const std::string& metrics, const std::string& family, const std::string& labels) {
  std::istringstream in(metrics);
  std::string line;
  double sum = 0;
  bool found = false;
  while (std::getline(in, line)) {
    if (line.rfind(family, 0) != 0) continue;
    const char next = line.size() > family.size() ? line[family.size()] : '\0';
    if (next != '{' && next != ' ') continue;
    if (!labels.empty() && line.find(labels) == std::string::npos) continue;
    sum += std::atof(line.c_str() + line.rfind(' ') + 1);
    found = true;
  }
  return found ? sum : -1;
}

std::string ServeYaml(const std::string& brokers, const std::string& topic, const std::string& group,
                      const std::string& store_dir, const std::string& extra) {
  std::ostringstream y;
  y << "model:\n  path: " << QINFER_TEST_MODEL_DIR << "/model.pt\n"
    << "kafka:\n  brokers: " << brokers << "\n  jobs_topic: " << topic << "\n  group_id: " << group << "\n"
    << "scheduler:\n  max_batch_delay_ms: 20\n"
    << "storage:\n  path: " << store_dir << "\n"
    << "http:\n  listen: \"\"\n"
    << extra;
  return y.str();
}

}  // namespace qinfer::testing
