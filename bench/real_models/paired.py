#!/usr/bin/env python3
"""Paired rounds against one peer, for a figure near a target on a noisy machine.

    PEER_PY bench/real_models/paired.py --peer openvino --weights DIR --exports DIR --texts DIR \\
        --profile long --config TAG=MODEL_DIR[,autocast=bf16] [--config ...] [--pairs 10] \\
        [--bin build] [--threads 2] [--device cpu-budget:4GiB] [--plans DIR] --out FILE.json

run with the peer's venv (bench/real_models/setup-peer.sh; peers.py's systems). The peer's model is loaded
once; each pair is one timed encode() pass of the profile's texts (batch 32, as peers.py) and, right
after it, each configuration's executor (build/bench/policy_bench, policy qinfer: a fresh process, one
warm-up round, one timed round) on the same texts' token ids. This machine has phases at about half
speed that last minutes: a whole benchmark (bench/real_models/run.sh) times each system minutes apart, so
one of its ratios may pair a fast phase with a slow one. Here each ratio is taken within a pair, seconds
apart, and FILE.json has every pair, the per-pair ratios (configuration ÷ peer, and each configuration
÷ the first) and their medians.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402


def parse_config(text):
    tag, _, rest = text.partition("=")
    model, *options = rest.split(",")
    config = {"tag": tag, "model": os.path.abspath(model), "autocast": ""}
    for option in options:
        key, _, value = option.partition("=")
        if key != "autocast":
            raise SystemExit(f"paired.py: --config {text}: unknown option {key!r} (autocast=bf16 only)")
        config["autocast"] = value
    if not tag or not os.path.isfile(os.path.join(config["model"], "manifest.json")):
        raise SystemExit(f"paired.py: --config {text}: TAG=MODEL_DIR, a directory with a manifest.json")
    return config


def executor_jobs_per_s(c, a, out):
    cmd = [os.path.join(a.bin, "bench", "policy_bench"), "--model", c["model"],
           "--jobs", os.path.join(a.texts, f"{a.profile}.jobs.jsonl"), "--workload", a.profile,
           "--policies", "qinfer", "--rounds", "1", "--warmup-rounds", "1", "--out", out,
           "--device", a.device, "--threads", str(a.threads),
           "--plan-cache", os.path.join(a.plans, f"plan-{c['tag']}.json")]
    if c["autocast"]:
        cmd += ["--autocast", c["autocast"]]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"paired.py: {c['tag']}: policy_bench exited {run.returncode}: {run.stderr[-2000:]}")
    return json.load(open(out))["policies"]["qinfer"]["median"]["jobs_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", required=True, choices=peers.SYSTEMS)
    ap.add_argument("--weights", required=True, help="the sentence-transformers directory the peer loads")
    ap.add_argument("--exports", required=True, help="where the peer's ONNX/OpenVINO exports are kept")
    ap.add_argument("--texts", required=True, help="bench/real_models/texts.py's directory")
    ap.add_argument("--profile", default="long", choices=peers.PROFILES)
    ap.add_argument("--config", action="append", required=True, type=parse_config)
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--bin", default="build")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu-budget:4GiB")
    ap.add_argument("--plans", default=os.path.expanduser("~/.cache/qinfer/bench-minilm/paired"))
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.pairs < 1:
        raise SystemExit("paired.py: --pairs: at least 1")
    os.makedirs(a.plans, exist_ok=True)
    model = peers.load_model(a.peer, a.weights, a.exports, a.threads)
    texts, _ = peers.load_texts(a.texts, a.profile)
    peers.encode(model, texts[:32], 32)  # warm-up, not timed
    pairs = []
    for i in range(a.pairs):
        start = time.perf_counter()
        peers.encode(model, texts, 32)
        row = {a.peer: len(texts) / (time.perf_counter() - start)}
        for c in a.config:
            row[c["tag"]] = executor_jobs_per_s(c, a, a.out + ".run.json")
        pairs.append(row)
        print(f"paired.py: pair {i + 1}/{a.pairs}: " + ", ".join(f"{k} {v:.2f}/s" for k, v in row.items()),
              file=sys.stderr)
    os.remove(a.out + ".run.json")
    first = a.config[0]["tag"]
    ratios = {f"{c['tag']}/{a.peer}": [r[c["tag"]] / r[a.peer] for r in pairs] for c in a.config}
    ratios.update({f"{c['tag']}/{first}": [r[c["tag"]] / r[first] for r in pairs] for c in a.config[1:]})
    report = {"what": f"paired rounds (bench/real_models/paired.py), profile {a.profile}: {a.peer}'s encode() "
                      "beside qinfer's executor, jobs per second",
              "peer": a.peer, "profile": a.profile, "texts": len(texts), "threads": a.threads, "device": a.device,
              "configs": a.config, "pairs": pairs,
              "medians": {k: statistics.median(r[k] for r in pairs) for k in pairs[0]},
              "ratios": ratios, "median_ratios": {k: statistics.median(v) for k, v in ratios.items()}}
    with open(a.out, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report["median_ratios"]))


if __name__ == "__main__":
    main()
