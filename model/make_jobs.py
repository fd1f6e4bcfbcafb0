#!/usr/bin/env python3
"""Generate a JSONL file of qinfer jobs with a long-tailed length distribution.

    python3 model/make_jobs.py --out jobs.jsonl --count 1000 --vocab 4096 \
        --max-tokens 512 --seed 1 [--invalid 16] [--reply-to results] \
        [--labels bad.jsonl]

Each valid line is {"id": "job-000001", "input_ids": [...]} (plus
"reply_to" with --reply-to). Lengths are log-normal with a median of about
40 tokens, plus ~2% of jobs near --max-tokens, clipped to [1, max-tokens];
token ids are uniform in [0, vocab).

--invalid K adds K invalid lines at random positions, ids "bad-0001"...
in file order, cycling through these kinds (bad-0001 is the first kind):

  kind               expected reason   what is wrong
  out_of_range       invalid           one id >= vocab
  negative           invalid           one id < 0
  non_integer        invalid           one id is 2.5-like (a JSON float)
  missing_input_ids  invalid           no "input_ids" key
  empty_input_ids    invalid           "input_ids": []
  too_long           too_long          max-tokens+1 .. 1.25*max-tokens valid ids
  not_json           invalid           the line is not JSON (it still names its id)
  not_array          invalid           "input_ids" is a string

--labels FILE writes one {"id", "kind", "reason", "line"} object per
invalid line (line numbers from 1) so tests can check every failure record.
Output is deterministic for a given seed (and Python's `random` module).
Only the standard library is used.
"""

import argparse
import json
import math
import random
import sys

INVALID_KINDS = [
    ("out_of_range", "invalid"),
    ("negative", "invalid"),
    ("non_integer", "invalid"),
    ("missing_input_ids", "invalid"),
    ("empty_input_ids", "invalid"),
    ("too_long", "too_long"),
    ("not_json", "invalid"),
    ("not_array", "invalid"),
]

MEDIAN_TOKENS = 40
SIGMA = 0.9           # log-normal shape: p90 ~ 3.2x, p99 ~ 8x the median
NEAR_MAX_FRACTION = 0.02


def job_length(rng: random.Random, max_tokens: int) -> int:
    if rng.random() < NEAR_MAX_FRACTION:
        n = rng.randint(max(1, int(0.9 * max_tokens)), max_tokens)
    else:
        n = round(rng.lognormvariate(math.log(MEDIAN_TOKENS), SIGMA))
    return min(max(n, 1), max_tokens)


def dumps(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"))


def invalid_line(rng: random.Random, kind: str, job_id: str, vocab: int,
                 max_tokens: int, reply_to: str | None) -> str:
    def ids(n: int) -> list:
        return [rng.randrange(vocab) for _ in range(n)]

    def obj(input_ids) -> dict:
        o = {"id": job_id, "input_ids": input_ids}
        if reply_to:
            o["reply_to"] = reply_to
        return o

    n = job_length(rng, max_tokens)
    if kind == "out_of_range":
        row = ids(n)
        row[rng.randrange(n)] = vocab + rng.randrange(1000)
        return dumps(obj(row))
    if kind == "negative":
        row = ids(n)
        row[rng.randrange(n)] = -1 - rng.randrange(vocab)
        return dumps(obj(row))
    if kind == "non_integer":
        row = ids(n)
        row[rng.randrange(n)] = rng.randrange(vocab) + 0.5
        return dumps(obj(row))
    if kind == "missing_input_ids":
        o = obj(None)
        del o["input_ids"]
        return dumps(o)
    if kind == "empty_input_ids":
        return dumps(obj([]))
    if kind == "too_long":
        return dumps(obj(ids(rng.randint(max_tokens + 1, max_tokens + max(1, max_tokens // 4)))))
    if kind == "not_json":
        # Truncated JSON: a consumer cannot parse it, a human can still find it.
        return f'{job_id}: not JSON {{"id": "{job_id}", "input_ids": [1, 2'
    if kind == "not_array":
        return dumps(obj(" ".join(str(i) for i in ids(min(n, 8)))))
    raise ValueError(kind)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="See the module docstring for the invalid kinds.")
    ap.add_argument("--out", required=True, help="output JSONL file ('-' for stdout)")
    ap.add_argument("--count", type=int, required=True, help="number of valid jobs")
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--max-tokens", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--invalid", type=int, default=0, metavar="K",
                    help="also write K invalid lines at random positions")
    ap.add_argument("--reply-to", metavar="TOPIC", help='add "reply_to": TOPIC to every job')
    ap.add_argument("--labels", metavar="FILE",
                    help="write the kind and expected reason of each invalid line here")
    a = ap.parse_args()
    if a.count < 0 or a.invalid < 0 or a.vocab < 1 or a.max_tokens < 1:
        ap.error("need count >= 0, invalid >= 0, vocab >= 1, max-tokens >= 1")

    rng = random.Random(a.seed)
    total = a.count + a.invalid
    bad_slots = set(rng.sample(range(total), a.invalid))

    lines, labels, lengths = [], [], []
    n_good = n_bad = 0
    for slot in range(total):
        if slot in bad_slots:
            kind, reason = INVALID_KINDS[n_bad % len(INVALID_KINDS)]
            n_bad += 1
            job_id = f"bad-{n_bad:04d}"
            lines.append(invalid_line(rng, kind, job_id, a.vocab, a.max_tokens, a.reply_to))
            labels.append({"id": job_id, "kind": kind, "reason": reason, "line": slot + 1})
        else:
            n_good += 1
            n = job_length(rng, a.max_tokens)
            lengths.append(n)
            job = {"id": f"job-{n_good:06d}", "input_ids": [rng.randrange(a.vocab) for _ in range(n)]}
            if a.reply_to:
                job["reply_to"] = a.reply_to
            lines.append(dumps(job))

    text = "\n".join(lines) + ("\n" if lines else "")
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)
    if a.labels:
        with open(a.labels, "w") as f:
            f.writelines(dumps(lab) + "\n" for lab in labels)

    if lengths:
        s = sorted(lengths)
        pct = lambda p: s[min(len(s) - 1, int(p * len(s)))]  # noqa: E731
        stats = (f"lengths min {s[0]} median {pct(0.5)} p90 {pct(0.9)} p99 {pct(0.99)} "
                 f"max {s[-1]}, {sum(s)} tokens")
    else:
        stats = "no valid jobs"
    print(f"make_jobs.py: {a.count} jobs + {a.invalid} invalid -> {a.out}; {stats}", file=sys.stderr)


if __name__ == "__main__":
    main()
