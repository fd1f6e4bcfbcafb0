"""Reference equality: 1,000 real paragraphs through client -> Kafka -> qinfer serve (CPU,
MiniLM) -> reply topic -> client equal sentence-transformers' own encode().

The texts are paragraphs of the Python standard library's docstrings
(model/make_texts.py: present wherever Debian 12's python3 is). Every id must
come back exactly once, every embedding must have cosine >= 0.999 with
encode()'s, and the embeddings/s of both paths go to $QINFER_REFERENCE_FIGURES
(default: minilm_reference.json in pytest's temporary directory).
"""

import json
import os
import platform
import sys
import time

import pytest

COUNT = 1000
MIN_COSINE = 0.999
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def test_thousand_paragraphs_match_encode_through_the_whole_path(service, manifest, capfd, tmp_path):
    sys.path.insert(0, os.path.join(REPO, "model"))
    import make_texts
    import numpy as np
    import torch
    from confluent_kafka import Consumer, TopicPartition
    from sentence_transformers import SentenceTransformer

    import qinfer_client as qc

    c = service.client(progress=True)
    # Paragraphs up to the model's max_tokens ([CLS] and [SEP] included): within it encode() and
    # qinfer see the same tokens; longer inputs are a too_long failure by design (test_integration).
    pool = make_texts.make_texts(3 * COUNT, seed=1)
    lengths = [len(x) for x in c.tokenize(pool)]
    texts = [t for t, n in zip(pool, lengths) if n <= manifest["max_tokens"]][:COUNT]
    assert len(texts) == COUNT
    tokens = sorted(len(x) for x in c.tokenize(texts))

    ids = [f"ref-{i:04d}" for i in range(COUNT)]
    t0 = time.monotonic()
    assert c.submit(texts, ids=ids) == ids
    submitted = time.monotonic()
    got = {}
    for r in c.results(ids, timeout=600):
        assert r.id not in got
        got[r.id] = r.output
    path_seconds = time.monotonic() - t0
    assert sorted(got) == ids
    progress = capfd.readouterr().err
    assert f"qinfer submit: {COUNT}/{COUNT}" in progress and f"qinfer results: {COUNT}/{COUNT}" in progress

    # Exactly once on the reply topic itself, not only after the client's de-duplication.
    consumer = Consumer({"bootstrap.servers": service.brokers, "group.id": f"ref-count-{os.getpid()}",
                         "enable.auto.commit": False})
    md = consumer.list_topics(service.reply_topic, timeout=10)
    counts = {}
    for p in md.topics[service.reply_topic].partitions:
        low, high = consumer.get_watermark_offsets(TopicPartition(service.reply_topic, p), timeout=10)
        consumer.assign([TopicPartition(service.reply_topic, p, low)])
        while high > low:
            m = consumer.poll(5)
            assert m is not None, f"reply topic partition {p}: no message before offset {high}"
            if m.error() is None:
                rid = json.loads(m.value())["id"]
                counts[rid] = counts.get(rid, 0) + 1
                if m.offset() + 1 >= high:
                    break
    consumer.close()
    assert {i: counts.get(i, 0) for i in ids} == {i: 1 for i in ids}

    st = SentenceTransformer(os.path.dirname(qc.default_tokenizer_path()), device="cpu")
    st.max_seq_length = manifest["max_tokens"]
    st.encode(texts[:8])  # warm-up, as qinfer serve warmed up before its /readyz
    t1 = time.monotonic()
    want = st.encode(texts, batch_size=32, convert_to_numpy=True)
    encode_seconds = time.monotonic() - t1

    ours = np.array([got[i] for i in ids], dtype=np.float32)
    cos = (ours * want).sum(1) / (np.linalg.norm(ours, axis=1) * np.linalg.norm(want, axis=1))
    worst = int(cos.argmin())
    figures = {
        "texts": COUNT,
        "source": "paragraphs of the Python standard library's docstrings (model/make_texts.py, seed 1, "
                  f"Python {platform.python_version()})",
        "tokens": {"total": sum(tokens), "min": tokens[0], "median": tokens[len(tokens) // 2],
                   "max": tokens[-1]},
        "model": {"name": manifest["name"], "digest": manifest["digest"], "max_tokens": manifest["max_tokens"]},
        "qinfer_path": {
            "what": "client.submit (tokenize + publish) -> Kafka -> qinfer serve (device cpu) -> reply "
                    "topic -> client.results, until the last of the ids arrived",
            "seconds": round(path_seconds, 3), "submit_seconds": round(submitted - t0, 3),
            "embeddings_per_second": round(COUNT / path_seconds, 1)},
        "encode": {"what": "SentenceTransformer.encode(texts, batch_size=32), same process, after the path",
                   "seconds": round(encode_seconds, 3),
                   "embeddings_per_second": round(COUNT / encode_seconds, 1)},
        "cosine": {"min": round(float(cos.min()), 6), "mean": round(float(cos.mean()), 6)},
        "torch_threads": torch.get_num_threads(),
        "cpus": os.cpu_count(),
    }
    out = os.environ.get("QINFER_REFERENCE_FIGURES") or str(tmp_path / "minilm_reference.json")
    with open(out, "w") as f:
        json.dump(figures, f, indent=2)
        f.write("\n")
    print(f"\n{json.dumps(figures, indent=2)}\nfigures written to {out}")
    assert cos.min() >= MIN_COSINE, (f"text {ids[worst]} ({texts[worst][:60]!r}): cosine {cos[worst]:.6f} "
                                     f"< {MIN_COSINE}")
