// Helpers for integration tests against the real broker that the ctest
// fixture `kafka` starts (deploy/kafka-local.sh). Each test uses topics and
// a consumer group of its own, so tests do not see each other's messages.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <filesystem>

#include <chrono>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "qinfer/core/job.h"
#include "util/run_command.h"

namespace qinfer::testing {

// host:port of the test broker (env QINFER_TEST_BROKERS, set by the ctest
// fixture); empty when there is none.
std::string TestBrokers();

// A name unique to this process and call, for topics, groups and dirs.
std::string UniqueName(const std::string& prefix);

// Creates a topic through the Admin API; fails the test on error.
void CreateTopic(const std::string& brokers, const std::string& topic, int partitions);

// Produces (key, value) messages with an idempotent producer, round-robin
// over partitions when the key is empty; waits for every delivery report.
void Produce(const std::string& brokers, const std::string& topic,
             const std::vector<std::pair<std::string, std::string>>& messages);

// Sum over partitions of the high watermark / the group's committed offset.
int64_t EndOffsetTotal(const std::string& brokers, const std::string& topic, int partitions);
int64_t CommittedTotal(const std::string& brokers, const std::string& group, const std::string& topic, int partitions);

// Waits until the group's committed offsets reach the topic's end offsets.
bool WaitForCommitted(const std::string& brokers, const std::string& group, const std::string& topic, int partitions,
                      std::chrono::seconds timeout);

// Waits until at least `count` offsets of the group are committed.
bool WaitForCommittedAtLeast(const std::string& brokers, const std::string& group, const std::string& topic,
                             int partitions, int64_t count, std::chrono::seconds timeout);

// Every record of a result store (opened read-only): id -> outcome. Fails
// the test if an id has two records.
std::map<std::string, Outcome> ReadStore(const std::string& dir);

// The group's committed offset per partition (-1: none).
std::vector<int64_t> CommittedOffsets(const std::string& brokers, const std::string& group, const std::string& topic,
                                      int partitions);

// The job id of every message of `topic` (its key, else topic/partition/
// offset, as qinfer names keyless jobs), read back with kcat:
// (partition, offset) -> id.
std::map<std::pair<int, int64_t>, std::string> MessageIds(const std::string& brokers, const std::string& topic);

// What every robustness test checks: no job lost, no id with two records,
// no offset committed ahead of its record.
struct Audit {
  int64_t messages = 0;         // on the jobs topic
  size_t records = 0;           // in the store
  int64_t committed = 0;        // sum over partitions
  int64_t committed_ahead = 0;  // committed offsets whose job has no record
  int64_t lost = 0;             // messages without a record (when all committed)
  std::string first_problem;
};
Audit AuditRun(const std::string& brokers, const std::string& group, const std::string& topic, int partitions,
               const std::map<std::string, Outcome>& records);
// The audit at this moment of a live run: the group's committed offsets are
// read first, then `stores` (as secondaries, while their services write), so
// every record that made an offset committable is seen. `lost` counts what
// is still to do.
Audit AuditNow(const std::string& brokers, const std::string& group, const std::string& topic, int partitions,
               const std::vector<std::string>& stores);
// Asserts nothing was lost and nothing committed ahead; `complete`: every
// message must be committed too.
void ExpectSound(const Audit& audit, bool complete);

// Every message of a topic as (key, value, headers "k=v;..." ), via kcat.
struct ReadMessage {
  std::string key, value;
  std::map<std::string, std::string> headers;
  int partition = -1;
  int64_t offset = -1;
};
std::vector<ReadMessage> ReadTopic(const std::string& brokers, const std::string& topic);

// A number from a serve run's `event=summary` line, e.g. SummaryField(log,
// "messages"); -1 when the line or the field is missing.
int64_t SummaryField(const std::string& log, const std::string& field);

// Deterministic jobs with long-tailed lengths (log-normal, median ~40,
// clipped to [1, max_tokens]); returns (id, JSON value) pairs.
std::vector<std::pair<std::string, std::string>> MakeJobs(int count, int64_t vocab, int max_tokens, uint32_t seed,
                                                          const std::string& id_prefix,
                                                          const std::string& reply_to = "");

// `args` with the `serve --set` arguments of a 6 s group session (librdkafka's
// default is 45 s): a member that is killed, or cannot leave its group while
// the broker is stopped, gives its partitions up to the next member in seconds.
std::vector<std::string> WithShortSession(std::vector<std::string> args);

// `args` with serve's hidden test hook, `--test-hold-file hold`: while the
// file exists, start-up waits before it loads the model and the executor
// waits before each batch.
std::vector<std::string> WithHoldFile(std::vector<std::string> args, const std::filesystem::path& hold);

// Holds the executor of a serve started WithHoldFile(..., hold) (creates the
// file), lets the batch it is running end (1 s), then publishes `messages`:
// they are read and queued without records, however fast the machine ran
// what came before. The caller removes `hold` to let the executor go.
void HoldThenProduce(const std::string& brokers, const std::string& topic, const std::filesystem::path& hold,
                     const std::vector<std::pair<std::string, std::string>>& messages);

// A `qinfer serve` child process with its own config and log file.
class ServeProcess {
 public:
  // Writes `yaml` to DIR/qinfer-<n>.yaml and starts build/qinfer serve on it.
  // `max_file_bytes` > 0: RLIMIT_FSIZE of the child (a disk that fills up:
  // writes past it fail with EFBIG).
  ServeProcess(const std::string& dir, const std::string& yaml, std::vector<std::string> extra_args = {},
               int64_t max_file_bytes = 0);
  ~ServeProcess();  // SIGKILLs a child still running

  // Sends `signal`; waits for exit and returns the exit status (-1 on timeout,
  // 128+N when killed by signal N).
  int Stop(int signal, std::chrono::seconds timeout = std::chrono::seconds(60));
  // Waits for the child to exit by itself.
  int Wait(std::chrono::seconds timeout);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Resident set size of the child now, from /proc (0 once it exited).
  int64_t RssBytes() const;
  std::string LogTail(size_t bytes = 4000) const;
  std::string Log() const;

 private:
  pid_t pid_ = -1;
  std::string log_path_;
};

// A TCP port nothing listens on right now (the kernel's pick).
int FreePort();

// The sum of the samples of `family` in a Prometheus text scrape whose label
// text contains `labels` (e.g. Sample(text, "qinfer_outcomes_total",
// "status=\"ok\"")); -1 when the family has no sample.
double Sample(const std::string& metrics, const std::string& family, const std::string& labels = "");

// A config for a test service: the test model, this broker, a fresh group
// and store under `dir`. `extra` is appended verbatim (YAML).
std::string ServeYaml(const std::string& brokers, const std::string& topic, const std::string& group,
                      const std::string& store_dir, const std::string& extra = "");

// A test against the broker with a fresh jobs topic name, consumer group
// and temp dir (holding the store); skips, saying why, when there is no
// broker. The dir is kept when the test failed, for its logs.
class BrokerTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  std::string brokers_, topic_, group_, store_;
  std::filesystem::path dir_;
};

}  // namespace qinfer::testing
