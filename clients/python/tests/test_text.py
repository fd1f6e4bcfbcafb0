"""Text jobs end to end: texts published raw with kcat (no client, no tokenizer on the
producer's side) -> Kafka -> `qinfer serve` on MiniLM, which tokenizes them with the
model's own tokenizer.json -> results equal to SentenceTransformer.encode() of the same
text; over-long texts -> too_long -> `qinfer replay --policy truncate` -> encode()'s
embedding of the text (which cuts at 256 tokens); `chunk` -> the documented pooling of the
tokenizer's overflow windows, computed here; every awkward text -> its documented record,
with the partition moving on behind it.
"""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import qinfer_client as qc

MIN_COSINE = 0.9999
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

# Several scripts, accents, emoji, whitespace runs, punctuation.
TEXTS = [
    "Hello, world!",
    "Zürich, São Paulo and Kraków are cities; 42 is a number, 3.14159 is pi.",
    "東京は日本の首都です。北京是中国的首都。",
    "서울은 대한민국의 수도입니다.",
    "Emoji in a sentence 😀🚀 and a flag 🇫🇷.",
    "  leading and   inner   whitespace\tand a tab\nand a newline  ",
    "Ελληνικά και русский текст в одном предложении.",
    "x",
    "Kafka carries the jobs; RocksDB keeps the results; the executor owns the model.",
]


def kcat_produce(service, jobs):
    """Publishes each job (a dict) with kcat, key = its id, and waits for the broker's acks."""
    kcat = shutil.which("kcat") or shutil.which("kafkacat")
    if kcat is None:
        pytest.skip("kcat is not installed (deploy/setup.sh installs it)")
    lines = "".join(f"{j['id']}\t{json.dumps(j, ensure_ascii=False)}\n" for j in jobs)
    subprocess.run([kcat, "-P", "-b", service.brokers, "-t", service.jobs_topic, "-K", "\t"],
                   input=lines.encode("utf-8"), check=True, timeout=60)


def cosines(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.fixture(scope="module")
def st_model(manifest):
    from sentence_transformers import SentenceTransformer
    st = SentenceTransformer(os.path.dirname(qc.default_tokenizer_path()), device="cpu")
    st.max_seq_length = manifest["max_tokens"]
    return st


def long_texts(count, min_tokens, tokenizer):
    sys.path.insert(0, os.path.join(REPO, "model"))
    import make_texts
    pool = make_texts.make_texts(4000, seed=7)
    # Over-long paragraphs: glue neighbours until they pass min_tokens.
    out, cur = [], ""
    for t in pool:
        cur = (cur + " " + t).strip()
        if len(tokenizer.encode(cur).ids) > min_tokens:
            out.append(cur)
            cur = ""
            if len(out) == count:
                return out
    raise AssertionError("not enough text for the long inputs")


def test_texts_sent_raw_with_kcat_equal_encode(service, st_model):
    c = service.client(progress=False)
    c._remember_start_offsets()
    ids = [f"kcat-{i}" for i in range(len(TEXTS))]
    kcat_produce(service, [{"id": i, "text": t} for i, t in zip(ids, TEXTS)])
    got = {r.id: r for r in c.results(ids, timeout=120)}
    want = st_model.encode(TEXTS, convert_to_numpy=True, normalize_embeddings=False)
    cos = cosines([got[i].output for i in ids], want)
    assert cos.min() >= MIN_COSINE, dict(zip(ids, cos.round(6)))
    tok = qc.load_tokenizer()
    for i, t in zip(ids, TEXTS):
        assert got[i].record["input_length"] == len(tok.encode(t).ids), "input_length is the token count"


def test_over_long_texts_are_too_long_then_truncate_equals_encode(service, st_model, manifest):
    c = service.client(progress=False)
    tok = qc.load_tokenizer()
    texts = long_texts(6, manifest["max_tokens"] + 20, tok)
    ids = [f"long-{i}" for i in range(len(texts))]
    c._remember_start_offsets()
    kcat_produce(service, [{"id": i, "text": t} for i, t in zip(ids, texts)])
    failures = {r.id: r for r in c.results(ids, timeout=120, on_failure="yield")}
    for i, t in zip(ids, texts):
        assert isinstance(failures[i], qc.Failure) and failures[i].reason == "too_long", failures[i]
        assert f"input length {len(tok.encode(t).ids)} exceeds max_tokens" in failures[i].error

    c.replay(store=service.store, ids=ids, policy="truncate", binary=service.binary)
    got = {r.id: r for r in c.results(ids, timeout=180)}
    want = st_model.encode(texts, convert_to_numpy=True, normalize_embeddings=False)
    cos = cosines([got[i].output for i in ids], want)
    assert cos.min() >= MIN_COSINE, dict(zip(ids, cos.round(6)))
    for i, t in zip(ids, texts):
        r = got[i].record
        assert r["policy"] == "truncate" and r["attempt"] == 1
        assert r["input_length"] == manifest["max_tokens"]
        assert r["original_length"] == len(tok.encode(t).ids)


def test_chunk_pools_the_tokenizers_windows_as_documented(service, manifest):
    import torch
    from tokenizers import Tokenizer

    c = service.client(progress=False)
    tok = qc.load_tokenizer()
    texts = long_texts(8, 2 * manifest["max_tokens"], tok)[-3:]
    ids = [f"chunk-{i}" for i in range(len(texts))]
    c._remember_start_offsets()
    kcat_produce(service, [{"id": i, "text": t, "policy": "chunk"} for i, t in zip(ids, texts)])
    got = {r.id: r for r in c.results(ids, timeout=180)}

    # The documented rule, computed here: the tokenizer's overflow windows at max_tokens with
    # stride = admission.chunk_overlap, each run through the model alone, the mean weighted by
    # each window's token count, then scaled to unit length (the manifest says normalized).
    windowing = Tokenizer.from_file(qc.default_tokenizer_path())
    windowing.no_padding()
    windowing.enable_truncation(manifest["max_tokens"], stride=service.chunk_overlap)
    model = torch.jit.load(os.path.join(service.model_dir, "model.pt")).eval()
    assert manifest["normalized"] is True
    for i, t in zip(ids, texts):
        e = windowing.encode(t)
        windows = [e.ids] + [o.ids for o in e.overflowing]
        assert len(windows) >= 3
        outs = []
        with torch.inference_mode():
            for w in windows:
                x = torch.tensor([w], dtype=torch.int64)
                outs.append(model(x, torch.ones_like(x))[0].double().numpy())
        weights = np.array([len(w) for w in windows], dtype=np.float64)
        pooled = (np.stack(outs) * weights[:, None]).sum(axis=0) / weights.sum()
        pooled /= np.linalg.norm(pooled)
        r = got[i]
        assert r.record["policy"] == "chunk" and r.record["windows"] == len(windows)
        assert abs(np.linalg.norm(r.output) - 1.0) < 1e-5, "a pooled result is unit length"
        assert cosines([r.output], [pooled])[0] >= MIN_COSINE


# Each awkward text and its documented record (docs/guide/text-jobs.md, "Awkward texts").
AWKWARD = [
    ("empty", {"text": ""}, "invalid", "`text` is empty"),
    ("spaces", {"text": "   \t\n   "}, "invalid", "no token besides the tokenizer's special tokens"),
    ("controls", {"text": "\u0001\u0002\u0003"}, "invalid", "no token besides"),
    ("specials", {"text": "[CLS] [SEP]"}, "invalid", "no token besides"),
    ("huge-word", {"text": "a" * 5000}, "invalid", "[UNK]"),
    ("not-a-string", {"text": 42}, "invalid", "`text` must be a string"),
    ("both", {"text": "hi", "input_ids": [101, 102]}, "invalid", "exactly one of"),
]


def test_awkward_texts_get_their_documented_records_and_the_partition_moves_on(service):
    c = service.client(progress=False)
    c._remember_start_offsets()
    jobs = [{"id": f"awkward-{name}", **fields} for name, fields, _, _ in AWKWARD]
    kcat = shutil.which("kcat")
    if kcat is None:
        pytest.skip("kcat is not installed (deploy/setup.sh installs it)")
    # A lone surrogate, escaped as JSON allows and Python's json writes it: not valid UTF-16.
    raw = ['awkward-surrogate\t{"id": "awkward-surrogate", "text": "a lone \\ud800 here"}']
    lines = "".join(f"{j['id']}\t{json.dumps(j)}\n" for j in jobs) + "\n".join(raw) + "\n"
    # A good text behind them, on the same partition (one key would hash anywhere: use -p 0).
    lines += 'awkward-after\t{"id": "awkward-after", "text": "still served"}\n'
    subprocess.run([kcat, "-P", "-b", service.brokers, "-t", service.jobs_topic, "-p", "0", "-K", "\t"],
                   input=lines.encode(), check=True, timeout=60)
    ids = [j["id"] for j in jobs] + ["awkward-surrogate", "awkward-after"]
    got = {r.id: r for r in c.results(ids, timeout=120, on_failure="yield")}
    for name, _, reason, needle in AWKWARD:
        f = got[f"awkward-{name}"]
        assert isinstance(f, qc.Failure) and f.reason == reason, (name, f)
        assert needle in f.error, (name, f.error)
    assert got["awkward-surrogate"].reason == "invalid"
    assert "not valid JSON" in got["awkward-surrogate"].error
    assert isinstance(got["awkward-after"], qc.Result), "the partition moved on behind them"


def test_submit_text_reads_id_text_lines(service, tmp_path, st_model):
    c = service.client(progress=False)
    c._remember_start_offsets()
    path = tmp_path / "texts.jsonl"
    path.write_text('{"id": "st-1", "content": "Submitted by the CLI."}\n{"id": "st-2"}\n'
                    '{"id": "st-3", "content": "A second text."}\n')
    run = subprocess.run([service.binary, "submit", "--text", "--text-field", "content", "--brokers",
                          service.brokers, "--topic", service.jobs_topic, str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "line 2: no string `content`, skipped" in run.stderr
    assert "submitted 2 of 2 jobs" in run.stdout
    got = {r.id: r for r in c.results(["st-1", "st-3"], timeout=120)}
    want = st_model.encode(["Submitted by the CLI.", "A second text."], convert_to_numpy=True)
    assert cosines([got["st-1"].output, got["st-3"].output], want).min() >= MIN_COSINE


def test_the_docs_kcat_route_runs_as_written(service, tmp_path, st_model):
    """docs/guide/text-jobs.md, "Embed a million texts", "With kcat alone", and README's tour print
    the same command line; run as printed (only the broker address and the topic replaced), it
    gives encode()'s embeddings."""
    if shutil.which("kcat") is None or shutil.which("jq") is None:
        pytest.skip("kcat and jq are needed (deploy/setup.sh installs both)")
    docs = open(os.path.join(REPO, "docs", "guide", "text-jobs.md"), encoding="utf-8").read()
    section = docs[docs.index("**With kcat alone**"):]
    [command] = [line for line in section.splitlines() if line.startswith("jq ") and "kcat -P" in line][:1]
    readme = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
    tour = readme[readme.index("## A short tour"):]
    assert [line for line in tour.splitlines() if line.startswith("jq ") and "kcat -P" in line][:1] == [command]
    assert "-b 127.0.0.1:9092 -t jobs" in command
    command = command.replace("-b 127.0.0.1:9092 -t jobs", f"-b {service.brokers} -t {service.jobs_topic}")
    texts = {"readme-1": "The README's route, run as written.", "readme-2": "Ünïcode and 😀 too."}
    (tmp_path / "texts.jsonl").write_text(
        "".join(json.dumps({"id": i, "text": t, "extra": 1}) + "\n" for i, t in texts.items()))
    c = service.client(progress=False)
    c._remember_start_offsets()
    subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=tmp_path, check=True, timeout=60)
    got = {r.id: r for r in c.results(list(texts), timeout=120)}
    want = st_model.encode(list(texts.values()), convert_to_numpy=True)
    assert cosines([got[i].output for i in texts], want).min() >= MIN_COSINE


def test_the_docs_python_snippet_runs_as_written(service, st_model):
    """docs/guide/python-client.md: its snippet, run as printed (only the broker address and the
    three topics replaced), prints each id once with the first three values of encode()'s
    embedding of its text."""
    section = open(os.path.join(REPO, "docs", "guide", "python-client.md"), encoding="utf-8").read()
    start = section.index("```python\n") + len("```python\n")
    snippet = section[start:section.index("```", start)]
    for printed, ours in [('"127.0.0.1:9092"', repr(service.brokers)),
                          ('jobs_topic="jobs"', f"jobs_topic={service.jobs_topic!r}"),
                          ('reply_topic="results"', f"reply_topic={service.reply_topic!r}"),
                          ('dead_letter_topic="jobs-failed"', f"dead_letter_topic={service.dlq_topic!r}")]:
        assert snippet.count(printed) == 1, f"the docs' snippet no longer has {printed}"
        snippet = snippet.replace(printed, ours)
    texts = ["first text", "second text"]
    assert all(repr(t).replace("'", '"') in snippet for t in texts), "the docs' snippet changed its texts"
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "clients", "python", "src"))
    run = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True,
                         timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2, run.stdout
    want = st_model.encode(texts, convert_to_numpy=True)
    printed = {}
    for line in lines:
        job_id, rest = line.split(" ", 1)
        printed[job_id] = [float(v) for v in rest.strip("[]").replace(",", " ").split()]
    # submit() numbers the ids in the order of the texts.
    assert len(printed) == 2
    for (job_id, first3), w in zip(sorted(printed.items()), want):
        assert len(first3) == 3, job_id
        # MiniLM's manifest says `normalized`, as encode() is: the values themselves agree.
        np.testing.assert_allclose(first3, w[:3], rtol=1e-3, atol=1e-4)
