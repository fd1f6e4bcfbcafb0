// What `serve` refuses at start-up, before it reaches any broker: each case
// exits with its documented code and names what to fix.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <tuple>

#include "util/run_command.h"

namespace qinfer::app {
namespace {

class ServeStartUpRefusalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (std::filesystem::temp_directory_path() / "qinfer-refusal-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `qinfer serve` with `sets`; (exit code, stdout and stderr).
  std::pair<int, std::string> Serve(const std::string& sets) const {
    return qinfer::testing::RunCommand(std::string("timeout -s KILL 60 ") + QINFER_BINARY +
                                       " serve --set storage.path=" + (dir_ / "store").string() +
                                       " --set http.listen= --set kafka.brokers=127.0.0.1:1 " + sets + " 2>&1");
  }
  std::filesystem::path dir_;
};

// model.pt replaced, the old manifest.json kept: refused by name, exit 2,
// before any broker is asked (the brokers here do not exist).
TEST_F(ServeStartUpRefusalTest, AModelFileSwappedUnderItsManifestIsRefused) {
  std::filesystem::copy_file(std::string(QINFER_TEST_MODEL_LONG_DIR) + "/model.pt", dir_ / "model.pt");
  std::filesystem::copy_file(std::string(QINFER_TEST_MODEL_DIR) + "/manifest.json", dir_ / "manifest.json");
  auto [rc, out] = Serve("--set model.path=" + (dir_ / "model.pt").string());
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("event=start_failed"), std::string::npos) << out;
  EXPECT_NE(out.find("model.path " + (dir_ / "model.pt").string() + " has digest sha256:"), std::string::npos) << out;
  EXPECT_NE(out.find("the model file was replaced without its manifest"), std::string::npos) << out;
}

// Brokers that do not answer may come up: exit 75 (retry), not 2, after
// kafka.startup_wait_s rather than a fixed 15 s.
TEST_F(ServeStartUpRefusalTest, BrokersThatDoNotAnswerExitTransientAfterTheConfiguredWait) {
  const auto start = std::chrono::steady_clock::now();
  auto [rc, out] =
      Serve("--set model.path=" + std::string(QINFER_TEST_MODEL_DIR) + "/model.pt --set kafka.startup_wait_s=1");
  EXPECT_EQ(rc, 75) << out;
  EXPECT_NE(out.find("no broker answered within 1000 ms"), std::string::npos) << out;
  EXPECT_NE(out.find("kafka.startup_wait_s = 1"), std::string::npos) << out;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(12)) << "waited the old fixed 15 s?";
}

// A librdkafka property that cannot be set is a configuration error (2),
// found before any network step, even with brokers that do not answer.
TEST_F(ServeStartUpRefusalTest, ABadLibrdkafkaPropertyIsAConfigurationErrorBeforeAnyNetworkStep) {
  for (const std::string set : {"kafka.consumer.fetch.max.bites=1", "kafka.producer.linger.ms=soon"}) {
    const std::string property = set.substr(0, set.find('='));
    auto [rc, out] = Serve("--set model.path=" + std::string(QINFER_TEST_MODEL_DIR) +
                           "/model.pt --set kafka.startup_wait_s=30 --set " + set);
    EXPECT_EQ(rc, 2) << set << ":\n" << out;
    EXPECT_NE(out.find("(" + property + ")"), std::string::npos) << set << ":\n" << out;
    EXPECT_EQ(out.find("no broker answered"), std::string::npos) << set << ":\n" << out;
  }
}

// A bad port was read as 0 by atoi and the failure that followed was the
// unreachable broker (issue 20 item 9): now exit 2 naming http.listen, with
// no network step.
TEST_F(ServeStartUpRefusalTest, ABadHttpListenPortIsRefusedNamingTheKeyNotTheBrokers) {
  for (const std::string listen : {"127.0.0.1:notaport", ":94OO"}) {
    auto [rc, out] = Serve("--set model.path=" + std::string(QINFER_TEST_MODEL_DIR) +
                           "/model.pt --set kafka.startup_wait_s=30 --set http.listen=" + listen);
    EXPECT_EQ(rc, 2) << listen << ":\n" << out;
    EXPECT_NE(out.find("http.listen = '" + listen + "'"), std::string::npos) << out;
    EXPECT_EQ(out.find("no broker answered"), std::string::npos) << out;
  }
}

// model.autocast bf16 on a model whose bf16 outputs drift (export_model.py
// --bf16-drift): the start-up probe refuses it, exit 2, naming the measured
// cosine, the floor, the dtype and the fix; before any broker is asked.
TEST_F(ServeStartUpRefusalTest, AModelThatDriftsUnderAutocastIsRefusedNamingTheCosineAndTheFix) {
  auto [rc, out] = Serve("--set model.path=" + std::string(QINFER_TEST_MODEL_DRIFT_DIR) +
                         "/model.pt --set model.autocast=bf16 --set kafka.startup_wait_s=30");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("event=start_failed"), std::string::npos) << out;
  EXPECT_NE(out.find("precision probe's minimum cosine similarity to float32 is 0."), std::string::npos) << out;
  EXPECT_NE(out.find("below model.min_cosine 0.999"), std::string::npos) << out;
  EXPECT_NE(out.find("bfloat16"), std::string::npos) << out;
  EXPECT_NE(out.find("model.autocast: empty"), std::string::npos) << out;
  EXPECT_EQ(out.find("no broker answered"), std::string::npos) << out;
  EXPECT_EQ(out.find("event=precision_checked"), std::string::npos) << out;
}

// The same model with a floor it meets, and the test model at the default
// floor: the probe passes (logged), and start-up goes on to the brokers.
TEST_F(ServeStartUpRefusalTest, APrecisionAtOrAboveTheFloorIsLoggedAndStartUpGoesOn) {
  for (const std::string& sets :
       {"--set model.path=" + std::string(QINFER_TEST_MODEL_DRIFT_DIR) + "/model.pt --set model.min_cosine=0.5",
        "--set model.path=" + std::string(QINFER_TEST_MODEL_DIR) + "/model.pt"}) {
    auto [rc, out] = Serve(sets + " --set model.autocast=bf16 --set kafka.startup_wait_s=1");
    EXPECT_EQ(rc, 75) << sets << ":\n" << out;
    EXPECT_NE(out.find("event=precision_checked dtype=bfloat16 min_cosine="), std::string::npos) << out;
    EXPECT_NE(out.find("no broker answered"), std::string::npos) << out;
  }
}

// A rerank model (a tiny BERT cross-encoder made in the build): chunk is
// refused by name for its task in the configuration and in `replay`; under
// model.autocast its probe compares scores, and model.max_score_diff decides.
TEST_F(ServeStartUpRefusalTest, ChunkIsRefusedForARerankModelAndItsAutocastIsProbedOnItsScores) {
  const std::string model = std::string(QINFER_TEST_MODEL_RERANK_DIR) + "/model.pt";
  if (!std::filesystem::exists(model)) {
    GTEST_SKIP() << "no rerank model at " << model << " (the build makes it where the venv imports transformers)";
  }
  auto [rc, out] = Serve("--set model.path=" + model + " --set admission.too_long=chunk");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("admission.too_long=chunk is defined for tasks embed (pooled windows), tokens and "
                     "token_embed (stitched windows); this model's task is rerank"),
            std::string::npos)
      << out;
  std::tie(rc, out) = Serve("--set model.path=" + model + " --set model.autocast=bf16 --set model.max_score_diff=0");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("model.autocast bf16: the precision probe's rerank scores differ from float32's by up to 0."),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("model.max_score_diff 0)"), std::string::npos) << out;
  EXPECT_EQ(out.find("no broker answered"), std::string::npos) << "refused before any broker is asked\n" << out;
  std::tie(rc, out) =
      Serve("--set model.path=" + model + " --set model.autocast=bf16 --set kafka.startup_wait_s=1");
  EXPECT_EQ(rc, 75) << out;
  EXPECT_NE(out.find("event=precision_checked dtype=bfloat16 task=rerank max_score_diff=0."), std::string::npos)
      << out;
  std::tie(rc, out) = qinfer::testing::RunCommand(std::string(QINFER_BINARY) + " replay --set model.path=" + model +
                                                  " --store " + (dir_ / "store").string() +
                                                  " --policy chunk --dry-run 2>&1");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("replay: --policy chunk: the model of this configuration"), std::string::npos) << out;
  EXPECT_NE(out.find("has task rerank, for which no library defines chunk"), std::string::npos) << out;
}

}  // namespace
}  // namespace qinfer::app
