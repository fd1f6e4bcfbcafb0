#!/usr/bin/env python3
"""Memory and time at a decoder embedder's long buckets: Qwen3-Embedding-0.6B's shape, measured.

    .venv/bin/python bench/long_window/long_window.py [--window 8192] [--layers 2] [--budget 3GiB]
                                          [--out bench/long_window/results/long-window-qwen3.json] [--work DIR]

Makes a sentence-transformers directory of Qwen3-Embedding-0.6B's shape (hidden 1024, 16 query heads and 8
key/value heads of 128, MLP 3072, vocabulary 151,669, lasttoken pooling) with random weights (speed and
memory do not depend on their values) and --layers layers (default 2: inference frees each layer's
activations before the next, so the activation peak of one job does not grow with the layer count; the
weights do, and the report gives both), its window --window tokens, with the tiny Qwen tokenizer of
tests/tasks/make_checkpoint.py (ids only matter as ids here). model/export_hf.py exports it (its own
checks run at the full window), then build/bench/policy_bench calibrates the memory plan on
`cpu-budget:--budget` for the buckets 512 .. window and runs one job of --window tokens through it.

Writes --out: the plan (batch and peak bytes per bucket), the calibration's seconds, the weights' bytes
of the measured model and of the 28-layer one, the seconds of one full-window job, and the machine.
Standard library, torch, transformers and sentence-transformers (the project venv).
"""

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "tasks"))
sys.path.insert(0, os.path.join(REPO, "model"))

# Qwen3-Embedding-0.6B's config.json (hidden, heads, MLP, vocabulary, layers, RoPE base).
SHAPE = dict(hidden_size=1024, num_attention_heads=16, num_key_value_heads=8, head_dim=128,
             intermediate_size=3072, vocab_size=151669, rope_theta=1000000.0)
FULL_LAYERS = 28


def make_checkpoint(out: str, window: int, layers: int) -> int:
    """The directory; returns the number of parameters of the measured model."""
    import torch
    import transformers as tf

    import make_checkpoint as mc

    torch.manual_seed(0)
    tokenizer = mc.make_tokenizer("qwen3")
    eos = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    config = tf.Qwen3Config(num_hidden_layers=layers, max_position_embeddings=window, pad_token_id=eos,
                            bos_token_id=eos, eos_token_id=eos, tie_word_embeddings=False, **SHAPE)
    model = tf.Qwen3Model(config).eval()
    tokenizer.model_max_length = window
    mc.save_st(out, model, tokenizer, max_seq_length=window, pooling="lasttoken")
    return sum(p.numel() for p in model.parameters())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--window", type=int, default=8192)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--budget", default="3GiB", help="the cpu-budget device's size")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "long_window", "results", "long-window-qwen3.json"))
    ap.add_argument("--work", help="scratch directory (default: a temporary one)")
    ap.add_argument("--policy-bench", default=os.path.join(REPO, "build", "bench", "policy_bench"))
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="qinfer-long-window-")
    ckpt, pkg = os.path.join(work, "checkpoint"), os.path.join(work, "package")
    t0 = time.monotonic()
    params = make_checkpoint(ckpt, a.window, a.layers)
    import export_hf

    t1 = time.monotonic()
    export_hf.main([ckpt, "--out", pkg])
    t2 = time.monotonic()
    rng = random.Random(1)
    jobs = os.path.join(work, "jobs.jsonl")
    with open(jobs, "w") as f:
        f.write(json.dumps({"id": "window", "input_ids": [rng.randrange(3, 1100) for _ in range(a.window)]}) + "\n")
    report_path = os.path.join(work, "policy_bench.json")
    cmd = [a.policy_bench, "--model", pkg, "--jobs", jobs, "--out", report_path, "--device",
           f"cpu-budget:{a.budget}", "--threads", str(a.threads), "--policies", "qinfer", "--rounds", "1",
           "--max-batch-size", "64"]
    print("$ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    with open(report_path) as f:
        report = json.load(f)
    weights = params * 4
    per_layer = (params - SHAPE["vocab_size"] * SHAPE["hidden_size"]) / a.layers
    full = SHAPE["vocab_size"] * SHAPE["hidden_size"] + per_layer * FULL_LAYERS
    run = report["policies"]["qinfer"]["rounds"][0]
    result = {
        "what": "a Qwen3-Embedding-0.6B-shaped decoder's long buckets on the budgeted CPU device "
                "(bench/long_window/long_window.py)",
        "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "shape": SHAPE, "layers_measured": a.layers, "window": a.window, "budget": a.budget,
        "threads": a.threads,
        "weights_bytes_float32": {"measured_model": weights, f"{FULL_LAYERS}_layers": int(full * 4)},
        "plan": report["plan"], "calibration_s": round(report["calibration_s"], 1),
        "budget_bytes": report["budget_bytes"],
        "one_window_job": {"seconds": round(run["wall_s"], 2), "peak_bytes": run["peak_bytes"],
                           "ok": run["ok"], "oom_events": run["oom_events"]},
        "seconds": {"checkpoint": round(t1 - t0, 1), "export": round(t2 - t1, 1)},
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    for e in report["plan"]:
        print(f"bucket {e['bound']:>6}: batch {e['batch_size']:>3}, peak {e['peak_bytes'] / 2**20:8.1f} MiB")
    print(f"one {a.window}-token job: {run['wall_s']:.1f} s, peak {run['peak_bytes'] / 2**20:.1f} MiB; "
          f"weights {weights / 2**20:.0f} MiB ({a.layers} layers), {full * 4 / 2**20:.0f} MiB at {FULL_LAYERS}; "
          f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
