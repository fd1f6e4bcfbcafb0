#!/usr/bin/env python3
"""This machine's GEMM peak, float32 and bfloat16, on large squares and the
benchmark's thread count, through both of torch's CPU GEMM libraries:
torch.matmul (MKL for float32; oneDNN for bf16) and oneDNN's linear
(torch._C._nn.mkldnn_linear on oneDNN tensors). MKL runs its generic kernels
on a CPU not made by Intel (this Python process does not answer MKL's vendor
check as qinfer does: executor/include/qinfer/executor/mkl_dispatch.h), so
matmul alone would understate an AMD CPU's float32 peak by half.

    .venv/bin/python bench/real_models/gemm.py --out FILE.json [--threads 2] [--sizes 1024,2048,4096] [--reps 5]

For each dtype, library and size: one warm-up product, then --reps timed
ones; the size's figure is the median of 2*n^3 / seconds, and the dtype's
peak is the best size's of either library. Writes {"threads",
"fp32_gflops", "bf16_gflops", "sizes": {"fp32": {"matmul": {...},
"onednn": {...}}, ...}}.
"""

import argparse
import json
import statistics
import sys
import time


def gflops(torch, n, dtype, library, reps):
    a = torch.randn(n, n).to(dtype)
    b = torch.randn(n, n).to(dtype)
    if library == "onednn":
        a, w = a.to_mkldnn(), b.t().contiguous().to_mkldnn()
        product = lambda: torch._C._nn.mkldnn_linear(a, w, None)  # noqa: E731
    else:
        product = lambda: torch.matmul(a, b)  # noqa: E731
    product()
    rates = []
    for _ in range(reps):
        t0 = time.perf_counter()
        product()
        rates.append(2.0 * n ** 3 / (time.perf_counter() - t0) / 1e9)
    return statistics.median(rates)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sizes", default="1024,2048,4096")
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    import torch

    torch.set_num_threads(a.threads)
    sizes = [int(s) for s in a.sizes.split(",")]
    report = {"threads": torch.get_num_threads(), "torch": torch.__version__, "sizes": {}}
    for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        per_library = {library: {str(n): gflops(torch, n, dtype, library, a.reps) for n in sizes}
                       for library in ("matmul", "onednn")}
        report["sizes"][name] = per_library
        report[f"{name}_gflops"] = max(max(per_size.values()) for per_size in per_library.values())
    with open(a.out, "w") as f:
        json.dump(report, f, indent=2)
    print(f"gemm.py: {a.threads} threads: fp32 {report['fp32_gflops']:.0f} GFLOP/s, "
          f"bf16 {report['bf16_gflops']:.0f} GFLOP/s -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
