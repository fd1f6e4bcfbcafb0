#!/usr/bin/env python3
"""A lever measured for issue 30 and not built: oneDNN Graph (LLGA) fusion
(torch.jit.enable_onednn_fusion) on MiniLM's TorchScript export, which fuses
attention and the linears' epilogues into oneDNN partitions. The same export
is loaded twice, with and without the fusion, and the two run the same batch
alternately, round by round, on the benchmark's thread count, under bf16
autocast or in float32.

    .venv/bin/python bench/real_models/llga.py --model build/minilm --out FILE.json
        [--shapes 16x160,32x16] [--dtypes bf16,fp32] [--rounds 5] [--reps 3] [--threads 2]

A shape is batch x tokens of random ids (long passages are 128-240 tokens,
short texts 6-45). Each round times --reps forwards of each arm; the figure
is the median over rounds, and llga_over_plain is plain's time over LLGA's
(above 1: the fusion is faster). min_cosine compares the two arms' last
outputs. This Python process does not answer MKL's vendor check as qinfer
does (executor/include/qinfer/executor/mkl_dispatch.h), so on a CPU not made
by Intel its plain float32 linears run MKL's generic kernels and the float32
ratio overstates what the fusion would give qinfer; bf16 goes to oneDNN in
both arms.
"""

import argparse
import datetime
import json
import os
import statistics
import time

import torch


def forward_seconds(model, ids, mask, bf16, reps):
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        start = time.perf_counter()
        for _ in range(reps):
            out = model(ids, mask)
        seconds = (time.perf_counter() - start) / reps
    return seconds, (out[0] if isinstance(out, (tuple, list)) else out).float()


def measure(path, batch, tokens, dtype, rounds, reps):
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 20000, (batch, tokens), generator=g)
    mask = torch.ones(batch, tokens, dtype=torch.long)
    bf16 = dtype == "bf16"
    models = {}
    for fuse in (False, True):
        torch.jit.enable_onednn_fusion(fuse)
        models[fuse] = torch.jit.load(path).eval()
        for _ in range(3):  # TorchScript's profiling runs, and LLGA's compile
            forward_seconds(models[fuse], ids, mask, bf16, 1)
    times = {False: [], True: []}
    outs = {}
    for _ in range(rounds):
        for fuse in (False, True):
            torch.jit.enable_onednn_fusion(fuse)
            seconds, outs[fuse] = forward_seconds(models[fuse], ids, mask, bf16, reps)
            times[fuse].append(seconds)
    torch.jit.enable_onednn_fusion(False)
    plain, llga = statistics.median(times[False]), statistics.median(times[True])
    return {
        "batch": batch, "tokens": tokens, "dtype": dtype,
        "plain_ms": round(plain * 1e3, 2), "llga_ms": round(llga * 1e3, 2),
        "llga_over_plain": round(plain / llga, 3),
        "plain_ms_rounds": [round(t * 1e3, 2) for t in times[False]],
        "llga_ms_rounds": [round(t * 1e3, 2) for t in times[True]],
        "min_cosine": round(torch.nn.functional.cosine_similarity(outs[False], outs[True], dim=-1).min().item(), 6),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a TorchScript export's directory (model.pt)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default="16x160,32x16")
    ap.add_argument("--dtypes", default="bf16,fp32")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    path = os.path.join(a.model, "model.pt")
    results = []
    for shape in a.shapes.split(","):
        batch, tokens = (int(x) for x in shape.split("x"))
        for dtype in a.dtypes.split(","):
            r = measure(path, batch, tokens, dtype, a.rounds, a.reps)
            print(f"llga.py: {batch}x{tokens} {dtype}: plain {r['plain_ms']} ms, LLGA {r['llga_ms']} ms, "
                  f"LLGA {r['llga_over_plain']}x, min cosine {r['min_cosine']}", flush=True)
            results.append(r)
    with open(a.out, "w") as f:
        json.dump({"model": path, "torch": torch.__version__, "threads": a.threads, "rounds": a.rounds,
                   "reps": a.reps, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   "command": "bench/real_models/llga.py " + " ".join(f"--{k} {v}" for k, v in vars(a).items()),
                   "results": results}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
