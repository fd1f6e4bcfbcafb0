#!/usr/bin/env python3
"""This machine's GEMM peak, float32 and bfloat16, with torch.matmul on large
squares and the benchmark's thread count.

    .venv/bin/python bench/minilm/gemm.py --out FILE.json [--threads 2] [--sizes 1024,2048,4096] [--reps 5]

For each dtype and size: one warm-up product, then --reps timed ones; the
size's figure is the median of 2*n^3 / seconds, and the dtype's peak is the
best size's. Writes {"threads", "fp32_gflops", "bf16_gflops", "sizes": {...}}.
"""

import argparse
import json
import statistics
import sys
import time


def gflops(torch, n, dtype, reps):
    a = torch.randn(n, n).to(dtype)
    b = torch.randn(n, n).to(dtype)
    torch.matmul(a, b)
    rates = []
    for _ in range(reps):
        t0 = time.perf_counter()
        torch.matmul(a, b)
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
        per_size = {str(n): gflops(torch, n, dtype, a.reps) for n in sizes}
        report["sizes"][name] = per_size
        report[f"{name}_gflops"] = max(per_size.values())
    with open(a.out, "w") as f:
        json.dump(report, f, indent=2)
    print(f"gemm.py: {a.threads} threads: fp32 {report['fp32_gflops']:.0f} GFLOP/s, "
          f"bf16 {report['bf16_gflops']:.0f} GFLOP/s -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
