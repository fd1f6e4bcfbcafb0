// The process's torch as the runner's callers see it: its version, CUDA
// devices, the CPU's capability as an aoti package names it, and the
// intra-op threads (torch_model_runner.h declares them).
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/cuda.h>

#include <dlfcn.h>

#include <fstream>
#include <string>

#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::executor {

int CudaDeviceCount() { return int(torch::cuda::device_count()); }

std::string TorchVersion() { return QINFER_TORCH_VERSION; }

// The CPU's flags as the kernel lists them (/proc/cpuinfo's first "flags"
// line), for the features torch's C++ API stopped exposing (libtorch 2.11 has
// no at::cpu::is_avx512_bf16_supported or is_amx_tile_supported; the Python
// probes aoti_export.py uses are there in every version). The kernel lists a
// feature only where the CPU has it and the kernel enables it, which is what
// torch's probes check.
static bool CpuHasFlag(const std::string& flag) {
  static const std::string flags = [] {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("flags", 0) == 0) return line.substr(line.find(':') + 1) + " ";
    }
    return std::string();
  }();
  return flags.find(" " + flag + " ") != std::string::npos;
}

std::string CpuCapability() {
  std::string name = at::get_cpu_capability();
  if (CpuHasFlag("avx512_bf16")) name += "+avx512_bf16";
  if (CpuHasFlag("amx_tile")) name += "+amx";
  return name;
}

TorchThreads CurrentTorchThreads() { return {int(at::get_num_threads()), int(at::get_num_interop_threads())}; }

bool ReleaseIntraOpWorkersOfThisThread() {
  // libtorch's OpenMP runtime (the wheel's libgomp), found at run time: this
  // module is not built with -fopenmp. omp_pause_soft is 1.
  using PauseAll = int (*)(int);
  static const auto pause = reinterpret_cast<PauseAll>(dlsym(RTLD_DEFAULT, "omp_pause_resource_all"));
  return pause != nullptr && pause(1) == 0;
}

}  // namespace qinfer::executor
