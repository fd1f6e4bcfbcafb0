// Where the test binaries find the build and source trees: at run time, from
// the executable's own location. The test targets name their model packages,
// data files and the qinfer binary relative to these trees
// (qinfer_test_paths in tests/CMakeLists.txt), not by absolute path, so the
// compile command of a test is the same in every clone of the repository and
// the compiler cache (ccache, keyed on the command line) serves a fresh
// clone's build.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace qinfer::testing {

namespace build_paths_internal {

// The nearest directory above this executable that holds CMakeCache.txt;
// aborts with a message where there is none (a test binary copied out of its
// build tree).
inline const std::filesystem::path& BuildDir() {
  static const std::filesystem::path dir = [] {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    for (std::filesystem::path d = ec ? std::filesystem::path() : exe.parent_path(); !d.empty();
         d = d.parent_path()) {
      if (std::filesystem::exists(d / "CMakeCache.txt")) return d;
      if (d == d.root_path()) break;
    }
    std::fprintf(stderr, "build_paths.h: no CMakeCache.txt above %s: run the tests from their build tree\n",
                 exe.c_str());
    std::abort();
  }();
  return dir;
}

// The source tree the build was configured from (CMAKE_HOME_DIRECTORY in
// CMakeCache.txt).
inline const std::filesystem::path& SourceDir() {
  static const std::filesystem::path dir = [] {
    std::ifstream cache(BuildDir() / "CMakeCache.txt");
    constexpr std::string_view kKey = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    for (std::string line; std::getline(cache, line);) {
      if (std::string_view(line).substr(0, kKey.size()) == kKey) return std::filesystem::path(line.substr(kKey.size()));
    }
    std::fprintf(stderr, "build_paths.h: %s/CMakeCache.txt names no CMAKE_HOME_DIRECTORY\n", BuildDir().c_str());
    std::abort();
  }();
  return dir;
}

}  // namespace build_paths_internal

// `relative` under the build tree ("" is the tree itself).
inline std::string InBuild(std::string_view relative) {
  return relative.empty() ? build_paths_internal::BuildDir().string()
                          : (build_paths_internal::BuildDir() / relative).string();
}

// `relative` under the source tree ("" is the tree itself).
inline std::string InSource(std::string_view relative) {
  return relative.empty() ? build_paths_internal::SourceDir().string()
                          : (build_paths_internal::SourceDir() / relative).string();
}

}  // namespace qinfer::testing
