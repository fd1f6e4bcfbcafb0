#!/usr/bin/env python3
"""The texts of the MiniLM benchmark: three length profiles of real English
from the Python standard library's docstrings (model/make_texts.py's
paragraphs), tokenized by the model's own tokenizer.

    .venv/bin/python bench/real_models/texts.py --tokenizer DIR/tokenizer.json --count N --out DIR [--seed 1]

Profiles (token counts include the special tokens; every text has at most
--max-tokens, default 256, all-MiniLM-L6-v2's max_seq_length: give the
model's, so that no system truncates anything):
  short       short queries: paragraphs of at most 16 words (one-line
              docstring summaries, mostly);
  paragraphs  natural paragraphs: paragraphs of 12 words or more, as written;
  long        long passages of --long-min (default 128) to --max-tokens
              tokens: consecutive paragraphs of one source file joined with a
              space until the passage has --long-min tokens or more (a
              passage that then has more than --max-tokens is dropped); with
              --long-spread, until it has a length drawn uniformly (seeded)
              from --long-min to --max-tokens, so that long passages spread
              over that range instead of gathering at --long-min.
N of each are drawn with a fixed seed. Writes, per profile P,
DIR/P.texts.jsonl ({"id", "text", "tokens"}), DIR/P.textjobs.jsonl
({"id", "text"}: the texts as qinfer text jobs, which serve tokenizes),
DIR/P.jobs.jsonl ({"id", "input_ids"}: the same texts tokenized, for the
executor-only rows, which run no tokenizer) and DIR/profiles.json (counts
and token statistics).
"""

import argparse
import json
import os
import random
import sys
import sysconfig

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model"))
import make_texts  # noqa: E402

MAX_TOKENS = 256
LONG_MIN = 128
PROFILES = ["short", "paragraphs", "long"]


def long_passages(pool, count_tokens, long_min, max_tokens, spread=False, seed=1):
    """Consecutive paragraphs (the pool is in source-file order) joined until
    long_min tokens (spread: a length drawn from long_min..max_tokens);
    passages over max_tokens are dropped."""
    rng = random.Random(seed)
    draw = (lambda: rng.randint(long_min, max_tokens)) if spread else (lambda: long_min)  # noqa: E731
    out, current, target = [], [], draw()
    for para in pool:
        current.append(para)
        text = " ".join(current)
        n = count_tokens(text)
        if n >= target:
            if n <= max_tokens:
                out.append(text)
            current, target = [], draw()
    return out


def candidates(profile, pool, count_tokens, long_min=LONG_MIN, max_tokens=MAX_TOKENS, spread=False):
    if profile == "short":
        return [p for p in pool if len(p.split()) <= 16]
    if profile == "paragraphs":
        return [p for p in pool if len(p.split()) >= 12 and count_tokens(p) <= max_tokens]
    return long_passages(pool, count_tokens, long_min, max_tokens, spread)


def stats(lengths):
    s = sorted(lengths)
    pick = lambda q: s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]  # noqa: E731
    return {"texts": len(s), "tokens": sum(s), "min": s[0], "p50": pick(0.5), "p90": pick(0.9), "max": s[-1]}


def write_profile(out_dir, profile, texts, encode):
    lengths = []
    with open(os.path.join(out_dir, f"{profile}.texts.jsonl"), "w") as t, \
            open(os.path.join(out_dir, f"{profile}.jobs.jsonl"), "w") as j, \
            open(os.path.join(out_dir, f"{profile}.textjobs.jsonl"), "w") as tj:
        for i, text in enumerate(texts, 1):
            ids = encode(text)
            job_id = f"{profile}-{i:05d}"
            lengths.append(len(ids))
            t.write(json.dumps({"id": job_id, "text": text, "tokens": len(ids)}, ensure_ascii=False) + "\n")
            j.write(json.dumps({"id": job_id, "input_ids": ids}) + "\n")
            tj.write(json.dumps({"id": job_id, "text": text}, ensure_ascii=False) + "\n")
    return stats(lengths)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokenizer", required=True, help="the model's tokenizer.json")
    ap.add_argument("--count", type=int, required=True, help="texts per profile")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-tokens", type=int, default=MAX_TOKENS, help="the longest text, in tokens (default 256)")
    ap.add_argument("--long-min", type=int, default=LONG_MIN, help="the shortest long passage (default 128)")
    ap.add_argument("--profiles", default=",".join(PROFILES),
                    help="the profiles to write (default every one; a smoke writes one)")
    ap.add_argument("--long-spread", action="store_true",
                    help="long passages of lengths drawn from --long-min to --max-tokens (default: each ends at "
                         "the first paragraph that takes it past --long-min)")
    a = ap.parse_args()
    if not 0 < a.long_min <= a.max_tokens:
        ap.error(f"--long-min {a.long_min} must be in 1..--max-tokens ({a.max_tokens})")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(a.tokenizer)
    tok.no_truncation()
    tok.no_padding()
    encode = lambda text: tok.encode(text).ids  # noqa: E731
    pool = make_texts.paragraphs(sysconfig.get_paths()["stdlib"], 180)
    os.makedirs(a.out, exist_ok=True)
    report = {"source": "paragraphs of the Python standard library's docstrings (model/make_texts.py), "
                        f"Python {sys.version.split()[0]}", "seed": a.seed, "max_tokens": a.max_tokens,
              "long_min": a.long_min, "long_spread": a.long_spread, "profiles": {}}
    for profile in a.profiles.split(","):
        if profile not in PROFILES:
            ap.error(f"--profiles: {profile!r} is not one of {', '.join(PROFILES)}")
        pool_p = candidates(profile, pool, lambda t: len(encode(t)), a.long_min, a.max_tokens, a.long_spread)
        if len(pool_p) < a.count:
            sys.exit(f"texts.py: only {len(pool_p)} {profile} texts in the standard library, {a.count} wanted")
        texts = random.Random(a.seed).sample(pool_p, a.count)
        report["profiles"][profile] = write_profile(a.out, profile, texts, encode)
        print(f"texts.py: {profile}: {report['profiles'][profile]}", file=sys.stderr)
    with open(os.path.join(a.out, "profiles.json"), "w") as f:
        json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
