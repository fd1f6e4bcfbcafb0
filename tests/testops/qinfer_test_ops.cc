// TorchScript custom ops for fault tests: a model exported with
// `model/export_model.py --abort-marker ID --op-library <this library>` calls
// them, and whoever loads that model must load this library first
// (RunnerOptions::op_libraries, or torch.ops.load_library in Python).
//
//   qinfer_test::abort_if(Tensor input_ids, int marker) -> Tensor
//     Ends the process with std::abort() (SIGABRT) when any element of
//     input_ids equals marker: the crash a poison input causes, with no
//     exception for anyone to catch. Otherwise returns a copy of input_ids.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstdlib>

namespace {

at::Tensor AbortIf(const at::Tensor& input_ids, int64_t marker) {
  if (input_ids.eq(marker).any().item<bool>()) std::abort();
  // A copy, not input_ids itself: the schema promises a fresh tensor (no
  // alias annotation), and TorchScript's alias analysis relies on it.
  return input_ids.clone();
}

}  // namespace

TORCH_LIBRARY(qinfer_test, m) { m.def("abort_if(Tensor input_ids, int marker) -> Tensor", &AbortIf); }
