// For tests: a manifest.json with a given body in a fresh temporary
// directory, removed with the object. dir() is where a test puts the files
// beside it (a model path the manifest's checks name).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace qinfer::testing {

class ManifestFile {
 public:
  explicit ManifestFile(const std::string& body) {
    std::string dir = (std::filesystem::path(::testing::TempDir()) / "manifest-test-XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << dir;
    dir_ = dir;
    std::ofstream(path()) << body;
  }
  ~ManifestFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ManifestFile(const ManifestFile&) = delete;
  ManifestFile& operator=(const ManifestFile&) = delete;

  std::string path() const { return (dir_ / "manifest.json").string(); }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace qinfer::testing
