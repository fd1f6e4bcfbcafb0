#include "qinfer/executor/mkl_dispatch.h"

#include <atomic>
#include <string>

namespace qinfer::executor {
namespace {

std::atomic<MklDispatch> g_dispatch{MklDispatch::kIsa};

}  // namespace

absl::StatusOr<MklDispatch> ParseMklDispatch(std::string_view name) {
  if (name == "isa") return MklDispatch::kIsa;
  if (name == "vendor") return MklDispatch::kVendor;
  return absl::InvalidArgumentError("model.mkl_dispatch: unknown value '" + std::string(name) +
                                    "' (expected isa or vendor)");
}

void SetMklDispatch(MklDispatch dispatch) { g_dispatch.store(dispatch, std::memory_order_relaxed); }

}  // namespace qinfer::executor

// MKL's own functions (libtorch_cpu exports both): mkl_serv_cpu_detect
// reports what MKL chose; mkl_serv_intel_cpu_true is the question this module
// answers in MKL's place. libtorch ships MKL on x86-64 only.
#if defined(__x86_64__)
extern "C" {

int mkl_serv_cpu_detect(void);

int mkl_serv_intel_cpu_true(void) {
  if (qinfer::executor::g_dispatch.load(std::memory_order_relaxed) == qinfer::executor::MklDispatch::kIsa) return 1;
  __builtin_cpu_init();
  return __builtin_cpu_is("intel") ? 1 : 0;
}

}  // extern "C"

int qinfer::executor::MklKernelPath() { return mkl_serv_cpu_detect(); }

bool qinfer::executor::MklRunsGenericKernelsOnAVectorCpu() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && MklKernelPath() == 0;
}
#else
int qinfer::executor::MklKernelPath() { return -1; }
bool qinfer::executor::MklRunsGenericKernelsOnAVectorCpu() { return false; }
#endif
