// Which of MKL's kernels the process runs.
//
// libtorch's CPU GEMMs that oneDNN does not take go to the MKL linked into
// libtorch_cpu: the float32 linears of a model (addmm), and the bf16 GEMMs
// inside scaled-dot-product attention. MKL asks whether the CPU is Intel's
// before it looks at the CPU's instruction sets, and on any other CPU it
// runs its generic kernels: on an AMD EPYC with AVX-512 that made MiniLM's
// float32 forward pass half as fast, and its bf16 one up to 1.34× slower on
// long passages, where attention weighs most
// (bench/real_models/results/minilm-levers-mkl-dispatch.json).
//
// MKL's question is the function mkl_serv_intel_cpu_true, which
// libtorch_cpu calls through the dynamic linker. This module defines it, and
// every executable that links qinfer::executor exports it (the target's
// link options), so MKL gets this module's answer instead of its own:
//   - MklDispatch::kIsa (model.mkl_dispatch `isa`, the default): yes, on
//     any x86 CPU; MKL then picks its kernels by the instruction sets the
//     CPU reports (cpuid), as it does on Intel's;
//   - MklDispatch::kVendor (`vendor`): yes only on Intel's CPUs, which is
//     MKL's own answer.
// MKL asks once, at its first call, and keeps the answer for the process:
// set it before the first forward pass (TorchModelRunner::Load does, from
// RunnerOptions::mkl_dispatch).
#pragma once

#include <string_view>

#include "absl/status/statusor.h"

namespace qinfer::executor {

enum class MklDispatch { kIsa, kVendor };

// "isa" or "vendor"; InvalidArgument naming any other value.
absl::StatusOr<MklDispatch> ParseMklDispatch(std::string_view name);

// The answer MKL gets when it first asks (see above).
void SetMklDispatch(MklDispatch dispatch);

// The kernel path MKL chose, as MKL numbers it (mkl_serv_cpu_detect): 0 is
// its generic code, higher numbers are wider vector instruction sets; -1
// where libtorch has no MKL (not x86-64). Asking fixes MKL's choice if
// nothing has yet.
int MklKernelPath();

// True when MKL runs its generic kernels (MklKernelPath() 0) on a CPU that
// has AVX2: float32 linears at about half their speed. Load then logs
// event=mkl_generic_kernels (warn).
bool MklRunsGenericKernelsOnAVectorCpu();

}  // namespace qinfer::executor
