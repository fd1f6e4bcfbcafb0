// What `serve` refuses at start-up, before it reaches any broker: each case
// exits with its documented code and names what to fix.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

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

}  // namespace
}  // namespace qinfer::app
