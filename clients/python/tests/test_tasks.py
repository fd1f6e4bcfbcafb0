"""Classify, rerank, tag, end to end: a checkpoint made here, exported, served, and equal to its library.

For every family (BERT, RoBERTa, XLM-RoBERTa; MiniLM's real weights with
seeded heads) and task (classify, rerank, tokens; embed beside them), and for MPNet,
ModernBERT, DeBERTa-v2 and Qwen3 on every task they have a head for, the checkpoint comes from
tests/tasks/make_checkpoint.py (transformers' config classes and save_pretrained, a
tokenizer trained there), model/export_hf.py exports it, `qinfer serve` runs it on the
real broker, jobs go in raw through kcat (`key<TAB>value` lines), and the replies are
compared with what the model's own library computes on the same texts:

  classify  top label equal, every score within 1e-4 of pipeline("text-classification",
            top_k=None) (softmax; sigmoid per label for a multi-label classifier)
  rerank    score within 1e-4 of sentence-transformers' CrossEncoder.predict (a pair over the
            model's length under truncate too: cut longest first on both sides)
  tokens    entities equal (label, start, end, text), scores within 1e-4, to
            pipeline("token-classification", aggregation_strategy="simple"); a long text under
            chunk equal to the same pipeline with stride = admission.chunk_overlap
  embed     cosine >= 0.9999 to SentenceTransformer(dir).encode

Awkward inputs on the same partition (an empty pair, a pair that is not a string, a pair
over limits.max_text_bytes, a pair to an embed model) each get their documented record,
and the jobs published after them still get their results.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import Service, _require_env

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PYTHON = sys.executable
TOLERANCE = 1e-4

QUERIES = ["what is a lighthouse?", "how do bees make honey", "the weather in paris", "x"]
PASSAGES = [
    "A lighthouse is a tower with a bright light that guides ships at night.",
    "Bees collect nectar from flowers and turn it into honey inside the hive.",
    "Paris is often rainy in the autumn, and the weather changes quickly.",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z " * 3,
]
TEXTS = QUERIES + PASSAGES


def script(path):
    """The module at REPO/`path`, imported once: the checkpoint maker and the exporter run in
    this process (each would pay for importing torch and transformers again in its own)."""
    name = os.path.splitext(os.path.basename(path))[0]
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, path))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def make_checkpoint(ckpt, family, task, *extra):
    script("tests/tasks/make_checkpoint.py").main(["--family", family, "--task", task, "--out", str(ckpt), *extra])


def make_package(tmp, family, task, *extra):
    ckpt, pkg = tmp / f"ckpt-{family}-{task}", tmp / f"pkg-{family}-{task}"
    make_checkpoint(ckpt, family, task, *extra)
    sys.path.insert(0, os.path.join(REPO, "model"))  # export_hf's own imports (qinfer_model, aoti_export)
    script("model/export_hf.py").main([str(ckpt), "--out", str(pkg)])
    return ckpt, pkg


def serve(tmp, pkg, extra="", **service_args):
    _require_env()
    if shutil.which("kcat") is None:
        pytest.skip("kcat is needed (deploy/setup.sh installs it)")
    svc = Service(tmp, os.environ["QINFER_TEST_BROKERS"], os.environ["QINFER_BINARY"], str(pkg), extra=extra,
                  **service_args)
    try:
        svc.wait_ready()
    except Exception:
        svc.stop()
        raise
    return svc


def publish_raw(svc, jobs):
    """Each job as a `key<TAB>value` line through kcat, all on partition 0 (in order)."""
    lines = "".join(f"{job['id']}\t{json.dumps(job, ensure_ascii=False)}\n" for job in jobs)
    subprocess.run(["kcat", "-P", "-b", svc.brokers, "-t", svc.jobs_topic, "-K", "\t", "-p", "0"],
                   input=lines.encode(), check=True, timeout=60)


def run_jobs(svc, jobs):
    c = svc.client(progress=False)
    c._remember_start_offsets()
    publish_raw(svc, jobs)
    got = {r.id: r for r in c.results([j["id"] for j in jobs], timeout=120, on_failure="yield")}
    c.close()
    return got


def stop(svc):
    rc = svc.stop()
    assert rc == 0, f"qinfer serve exited {rc}:\n{svc.tail()}"


def check_classify(svc, ckpt, pairs):
    from transformers import pipeline
    pipe = pipeline("text-classification", model=str(ckpt), top_k=None)
    jobs = [{"id": f"c{i}", "text": t} for i, t in enumerate(TEXTS)]
    inputs = list(TEXTS)
    if pairs:
        jobs += [{"id": f"p{i}", "text": q, "text_pair": p} for i, (q, p) in enumerate(zip(QUERIES, PASSAGES))]
        inputs += [{"text": q, "text_pair": p} for q, p in zip(QUERIES, PASSAGES)]
    got = run_jobs(svc, jobs)
    want = pipe(inputs)
    for job, expected in zip(jobs, want):
        r = got[job["id"]]
        assert getattr(r, "reason", None) is None, f"{job['id']} failed: {r}"
        assert r.label == expected[0]["label"], (job, r.scores, expected)
        assert [s["label"] for s in r.scores] == [e["label"] for e in expected] or \
            max(abs(a["score"] - b["score"]) for a, b in zip(r.scores, expected)) < TOLERANCE
        by_label = {s["label"]: s["score"] for s in r.scores}
        assert set(by_label) == {e["label"] for e in expected}
        assert max(abs(by_label[e["label"]] - e["score"]) for e in expected) < TOLERANCE, (r.scores, expected)
    return len(jobs)


def check_rerank(svc, ckpt):
    from sentence_transformers import CrossEncoder
    # The last pair is longer than the model (max_tokens): under truncate it is cut longest
    # first, as CrossEncoder's tokenizer call (truncation=True) cuts it.
    long_passage = " ".join(PASSAGES * 12)
    pairs = [(q, p) for q in QUERIES for p in PASSAGES[:2]] + [(QUERIES[0], PASSAGES[3]), (QUERIES[1], long_passage)]
    jobs = [{"id": f"r{i}", "text": q, "text_pair": p} for i, (q, p) in enumerate(pairs)]
    jobs[-1]["policy"] = "truncate"
    got = run_jobs(svc, jobs)
    assert got[jobs[-1]["id"]].record.get("policy") == "truncate", got[jobs[-1]["id"]]
    want = CrossEncoder(str(ckpt), device="cpu").predict(pairs)
    scores = np.array([got[j["id"]].score for j in jobs], dtype=np.float64)
    assert np.abs(scores - want).max() < TOLERANCE, (scores, want)
    return len(jobs)


def check_embed(svc, ckpt):
    from sentence_transformers import SentenceTransformer
    # encode() cuts at max_seq_length (64 here): the long passage is truncated on both sides.
    jobs = [{"id": f"e{i}", "text": t, "policy": "truncate"} for i, t in enumerate(TEXTS)]
    got = run_jobs(svc, jobs)
    assert got["e7"].record.get("policy") == "truncate"
    want = SentenceTransformer(str(ckpt), device="cpu").encode(TEXTS, convert_to_numpy=True)
    out = np.array([got[j["id"]].output for j in jobs], dtype=np.float64)
    cos = (out * want).sum(1) / (np.linalg.norm(out, axis=1) * np.linalg.norm(want, axis=1))
    assert cos.min() >= 0.9999, cos
    return len(jobs)


def check_tokens(svc, ckpt, texts, **pipeline_args):
    """Entities equal (label, start, end, text) with scores within 1e-4 of the token-classification
    pipeline (aggregation "simple"); every token's label too, where the result has them."""
    from transformers import pipeline
    pipe = pipeline("token-classification", model=str(ckpt), aggregation_strategy="simple", **pipeline_args)
    policy = {"policy": "chunk"} if "stride" in pipeline_args else {}
    jobs = [{"id": f"k{i}", "text": t, **policy} for i, t in enumerate(texts)]
    got = run_jobs(svc, jobs)
    entities = 0
    for job, text in zip(jobs, texts):
        r = got[job["id"]]
        assert getattr(r, "reason", None) is None, f"{job['id']} failed: {r}"
        want = pipe(text)
        mine = r.record["entities"]
        assert [(e["label"], e["start"], e["end"], e["text"]) for e in mine] == \
            [(w["entity_group"], w["start"], w["end"], text[w["start"]:w["end"]]) for w in want], (text, mine, want)
        assert all(abs(e["score"] - float(w["score"])) < TOLERANCE for e, w in zip(mine, want))
        entities += len(mine)
        if not policy:
            tokens = r.record["tokens"]
            assert all(text[t["start"]:t["end"]] for t in tokens if t["end"] > t["start"])
    assert entities > 0, "the random tagger found no entity: the comparison proved nothing"
    return entities


TAG_TEXTS = ["Anna Smith flew from Paris to New York on Monday.", "Zoë lives in Kraków near the Vistula.",
             "the quick brown fox jumps over the lazy dog " * 2, "x"]


# Served: BERT (WordPiece, token types), RoBERTa (byte-level BPE), XLM-R (Unigram). DistilBERT,
# BERT's tokenizer without token types, is checked at the model by tests/python/test_export_hf.py
# (its served cases were the price of the new families' below).
FAMILIES = ["bert", "roberta", "xlm-roberta"]


@pytest.mark.parametrize("family", FAMILIES)
def test_tokens_equal_the_token_classification_pipeline(tmp_path, family):
    ckpt, pkg = make_package(tmp_path, family, "tokens")
    svc = serve(tmp_path, pkg)
    try:
        check_tokens(svc, ckpt, TAG_TEXTS)
        # An input_ids job to a tagger: refused by name; the job behind it still runs.
        got = run_jobs(svc, [{"id": "ids-to-tagger", "input_ids": [2, 5, 3]},
                             {"id": "pair-to-tagger", "text": "Anna", "text_pair": "Smith"}, {"id": "after", "text": "Anna"}])
        assert got["ids-to-tagger"].reason == "invalid" and "send `text`" in got["ids-to-tagger"].error
        assert got["pair-to-tagger"].reason == "invalid"
        assert "`text_pair`: this model's task is tokens" in got["pair-to-tagger"].error
        assert "entities" in got["after"].record
    finally:
        stop(svc)


def test_tokens_of_a_long_text_under_chunk_equal_the_pipeline_with_stride(tmp_path):
    ckpt, pkg = make_package(tmp_path, "bert", "tokens")
    manifest = json.load(open(pkg / "manifest.json"))
    svc = serve(tmp_path, pkg)
    try:
        # Words straddle the window edges: the windows overlap by chunk_overlap tokens, the
        # pipeline's stride.
        words = "Anna Smith flew from Paris to New York and met Zoë in Kraków on Monday".split()
        long_text = " ".join(words[i % len(words)] for i in range(3 * manifest["max_tokens"]))
        got = check_tokens(svc, ckpt, [long_text, TAG_TEXTS[0]], stride=svc.chunk_overlap)
        assert got > 0
    finally:
        stop(svc)


@pytest.mark.parametrize("family", FAMILIES)
def test_classify_equals_the_text_classification_pipeline(tmp_path, family):
    ckpt, pkg = make_package(tmp_path, family, "classify")
    manifest = json.load(open(pkg / "manifest.json"))
    assert (manifest["task"], manifest["activation"], manifest["labels"]) == ("classify", "softmax",
                                                                              ["NEG", "NEU", "POS"])
    svc = serve(tmp_path, pkg)
    try:
        check_classify(svc, ckpt, pairs=True)
    finally:
        stop(svc)


@pytest.mark.parametrize("family", FAMILIES)
def test_rerank_equals_cross_encoder_predict(tmp_path, family):
    ckpt, pkg = make_package(tmp_path, family, "rerank")
    svc = serve(tmp_path, pkg)
    try:
        check_rerank(svc, ckpt)
    finally:
        stop(svc)


@pytest.mark.parametrize("family", ["roberta", "xlm-roberta"])  # BERT's: the docs' Parquet route, < 1e-4
def test_embed_equals_encode(tmp_path, family):
    ckpt, pkg = make_package(tmp_path, family, "embed", "--st")
    svc = serve(tmp_path, pkg)
    try:
        check_embed(svc, ckpt)
        # A pair to an embed model: refused by name; the job behind it still runs.
        got = run_jobs(svc, [{"id": "pair-to-embed", "text": "q", "text_pair": "p"}, {"id": "after", "text": "q"}])
        assert got["pair-to-embed"].reason == "invalid"
        assert "`text_pair`: this model's task is embed" in got["pair-to-embed"].error
        assert got["after"].output is not None
    finally:
        stop(svc)


@pytest.mark.parametrize("family,projection", [("bert", None), ("roberta", 8)])
def test_token_embed_equals_encode_token_embeddings(tmp_path, family, projection):
    """A sentence-transformers directory exported with --task token_embed (with a ColBERT-style Dense of the token
    vectors, or without): each result is a vector a token, special tokens included, equal to
    encode(output_value="token_embeddings") within 1e-4; a result over limits.max_result_bytes is one too_long
    record saying how many tokens fit, and the job behind it on the partition still gets its result."""
    from sentence_transformers import SentenceTransformer
    extra = ["--token-projection", str(projection)] if projection else []
    ckpt = tmp_path / f"ckpt-{family}"
    make_checkpoint(ckpt, family, "embed", "--st", *extra)
    pkg = tmp_path / f"pkg-{family}"
    sys.path.insert(0, os.path.join(REPO, "model"))
    script("model/export_hf.py").main([str(ckpt), "--out", str(pkg), "--task", "token_embed"])
    manifest = json.load(open(pkg / "manifest.json"))
    assert manifest["task"] == "token_embed" and manifest["output"] == "token_embeddings"
    assert manifest["dim"] == (projection or 32)
    # The queries' results (a few tokens) fit the bound; the long text's (about 40 tokens, under max_tokens) not.
    long_text = " ".join("abcdefghijklmnopqrstuvwxyz"[i % 26] for i in range(40))
    bound = 3000 if projection else 8000
    svc = serve(tmp_path, pkg, extra=f"limits:\n  max_result_bytes: {bound}\n")
    try:
        jobs = [{"id": f"t{i}", "text": t} for i, t in enumerate(QUERIES)]
        jobs += [{"id": "too-big", "text": long_text}, {"id": "after", "text": QUERIES[0]},
                 {"id": "ubinary-to-token-embed", "text": "x", "encoding": "ubinary"},
                 {"id": "b64", "text": QUERIES[0], "encoding": "base64"}]
        got = run_jobs(svc, jobs)
    finally:
        stop(svc)
    st = SentenceTransformer(str(ckpt), device="cpu")
    want = st.encode(QUERIES, output_value="token_embeddings")
    for i, rows in enumerate(want):
        out = np.array(got[f"t{i}"].output, dtype=np.float64)
        assert out.shape == tuple(rows.shape), (out.shape, tuple(rows.shape))
        assert np.abs(out - rows.numpy()).max() < TOLERANCE
    assert got["too-big"].reason == "too_long"
    assert f"more than limits.max_result_bytes {bound}: replay it with --truncate-to N" in got["too-big"].error
    assert np.array(got["after"].output).shape == tuple(want[0].shape)
    assert "`encoding` ubinary: this model's task is token_embed" in got["ubinary-to-token-embed"].error
    assert got["b64"].record["encoding"] == "base64" and got["b64"].record["rows"] == len(want[0])
    assert np.abs(np.array(got["b64"].output) - np.array(got["t0"].output)).max() <= 1e-6, "the float32 values"
    assert "or send it with `encoding` base64" in got["too-big"].error
    check_token_embed_chunk(tmp_path, ckpt, pkg, st)


def check_token_embed_chunk(tmp_path, ckpt, pkg, st):
    """A text over max_tokens under chunk: the library's own overflow windows (stride = the service's
    chunk_overlap), each run through the model as SentenceTransformer runs it, stitched by position: every token
    of the whole text once, in order (a later window's first chunk_overlap tokens, the stride, are the previous
    window's last), [CLS] and [SEP] at its ends; the result equals that within 1e-4."""
    import torch
    from transformers import AutoTokenizer
    text = " ".join(TEXTS * 3)
    (tmp_path / "chunk").mkdir()
    svc = serve(tmp_path / "chunk", pkg)
    try:
        got = run_jobs(svc, [{"id": "long", "text": text, "policy": "chunk"}])["long"]
        max_tokens, overlap = json.load(open(pkg / "manifest.json"))["max_tokens"], svc.chunk_overlap
    finally:
        stop(svc)
    tok = AutoTokenizer.from_pretrained(str(ckpt))
    whole = tok(text)["input_ids"]
    windows = tok(text, max_length=max_tokens, stride=overlap, truncation=True, return_overflowing_tokens=True,
                  return_special_tokens_mask=True)
    assert len(windows["input_ids"]) > 1 and len(whole) > max_tokens
    rows, ids = [], []
    for w, (window_ids, special) in enumerate(zip(windows["input_ids"], windows["special_tokens_mask"])):
        mask = torch.ones(1, len(window_ids), dtype=torch.long)
        with torch.inference_mode():
            features = st.forward({"input_ids": torch.tensor([window_ids]), "attention_mask": mask})
        vectors = features["token_embeddings"][0]
        special = [bool(x) for x in special]
        head = special.index(False)
        tail = special[::-1].index(False)
        keep_from = 0 if w == 0 else head + overlap  # the tokenizer's stride: the previous window's last tokens
        keep_to = len(window_ids) - (0 if w == len(windows["input_ids"]) - 1 else tail)
        rows += vectors[keep_from:keep_to].tolist()
        ids += window_ids[keep_from:keep_to]
    assert ids == whole, "stitched, every token of the text once, in order"
    out = np.array(got.output, dtype=np.float64)
    assert got.record["windows"] == len(windows["input_ids"]) and got.record["policy"] == "chunk"
    assert out.shape == (len(whole), np.array(rows).shape[1])
    assert np.abs(out - np.array(rows)).max() < TOLERANCE


SPARSE_CASES = [("bert", "max", "relu"), ("roberta", "sum", "log1p_relu")]


@pytest.mark.parametrize("family,strategy,activation", SPARSE_CASES)
def test_sparse_equals_sparse_encoder(tmp_path, family, strategy, activation):
    """A SparseEncoder directory (an MLM and SpladePooling) served as task sparse: each result's
    {indices, values} equals SparseEncoder.encode's non-zero weights (the same indices, but for a weight under
    1e-5 whose logit's sign float32 may flip; values within 1e-4), and a job's top_k equals
    encode(max_active_dims=k). Fields of other tasks are refused by name; the job behind them runs."""
    from sentence_transformers import SparseEncoder
    ckpt, pkg = make_package(tmp_path, family, "sparse", "--splade-pooling", strategy,
                             "--splade-activation", activation)
    manifest = json.load(open(pkg / "manifest.json"))
    assert manifest["task"] == "sparse" and manifest["sparse"] == {"pooling_strategy": strategy,
                                                                    "activation": activation}
    svc = serve(tmp_path, pkg)
    try:
        jobs = [{"id": f"s{i}", "text": t, "policy": "truncate"} for i, t in enumerate(TEXTS)]
        jobs += [{"id": f"k{i}", "text": t, "top_k": 5} for i, t in enumerate(QUERIES)]
        jobs += [{"id": "dims-to-sparse", "text": "x", "dimensions": 4},
                 {"id": "b64-to-sparse", "text": "x", "encoding": "base64"},
                 {"id": "chunk-to-sparse", "text": "a lighthouse " * 200, "policy": "chunk"},
                 {"id": "after", "text": TEXTS[0]}]
        got = run_jobs(svc, jobs)
    finally:
        stop(svc)
    enc = SparseEncoder(str(ckpt), device="cpu")
    want = enc.encode(TEXTS, convert_to_tensor=True, convert_to_sparse_tensor=False).numpy()
    for i in range(len(TEXTS)):
        out = got[f"s{i}"].output
        assert set(out) == {"indices", "values"} and out["indices"] == sorted(out["indices"])
        dense = np.zeros(want.shape[1], dtype=np.float32)
        dense[out["indices"]] = out["values"]
        assert np.abs(dense - want[i]).max() < TOLERANCE, (i, np.abs(dense - want[i]).max())
        flipped = ((dense != 0) != (want[i] != 0)) & (np.maximum(dense, want[i]) >= 1e-5)
        assert not flipped.any(), (i, np.flatnonzero(flipped))
    top = enc.encode(QUERIES, max_active_dims=5, convert_to_tensor=True, convert_to_sparse_tensor=False).numpy()
    for i in range(len(QUERIES)):
        out = got[f"k{i}"].output
        assert len(out["indices"]) == min(5, int((want[i] != 0).sum())), out
        assert out["indices"] == np.flatnonzero(top[i]).tolist(), (out, np.flatnonzero(top[i]))
    assert "`dimensions`: this model's task is sparse" in got["dims-to-sparse"].error
    assert "`encoding` base64: this model's task is sparse" in got["b64-to-sparse"].error
    assert got["chunk-to-sparse"].reason == "too_long"
    assert "policy chunk is not defined for task sparse" in got["chunk-to-sparse"].error
    assert got["after"].output["indices"], "the job behind the refused ones still gets its result"


def check_dimensions(svc, ckpt):
    """A job's `dimensions` equals encode(truncate_dim=...); beyond the model's width it is refused by name."""
    from sentence_transformers import SentenceTransformer
    st = SentenceTransformer(str(ckpt), device="cpu")
    width = st.get_embedding_dimension()
    jobs = [{"id": f"d{k}", "text": TEXTS[k % len(TEXTS)], "dimensions": k} for k in (1, 8, width)]
    jobs.append({"id": "too-wide", "text": TEXTS[0], "dimensions": width + 1})
    got = run_jobs(svc, jobs)
    for job in jobs[:-1]:
        want = st.encode([job["text"]], truncate_dim=job["dimensions"], convert_to_numpy=True)[0]
        out = np.array(got[job["id"]].output, dtype=np.float64)
        assert out.shape == want.shape, (job, out.shape)
        assert np.abs(out - want).max() < TOLERANCE, (job, out, want)
    assert got["too-wide"].reason == "invalid" and "`dimensions`" in got["too-wide"].error


def check_prompts(svc, ckpt):
    """A job's `prompt_name` (and none: the default's) equals encode(prompt_name=...); an unknown name,
    or one beside input_ids, is refused by name."""
    from sentence_transformers import SentenceTransformer
    st = SentenceTransformer(str(ckpt), device="cpu")
    names = [None] + sorted(st.prompts)
    jobs = [{"id": f"p{i}-{k}", "text": t, **({"prompt_name": name} if name else {})}
            for i, name in enumerate(names) for k, t in enumerate(QUERIES)]
    jobs += [{"id": "unknown-prompt", "text": "x", "prompt_name": "Query"},
             {"id": "prompt-with-ids", "input_ids": [1, 2], "prompt_name": names[-1]}]
    got = run_jobs(svc, jobs)
    for i, name in enumerate(names):
        want = st.encode(QUERIES, prompt_name=name, convert_to_numpy=True)
        out = np.array([got[f"p{i}-{k}"].output for k in range(len(QUERIES))], dtype=np.float64)
        cos = (out * want).sum(1) / (np.linalg.norm(out, axis=1) * np.linalg.norm(want, axis=1))
        assert cos.min() >= 0.9999, (name, cos)
    assert got["unknown-prompt"].reason == "invalid"
    assert "`prompt_name` 'Query' is not one of this model's prompts: " + ", ".join(sorted(st.prompts)) in \
        got["unknown-prompt"].error
    assert got["prompt-with-ids"].reason == "invalid" and "`prompt_name` goes with `text`" in \
        got["prompt-with-ids"].error
    # The last prompt by name from `qinfer submit --text --prompt-name` and the client's submit(prompt_name=).
    name = names[-1]
    c = svc.client(progress=False)
    c._remember_start_offsets()
    path = os.path.join(os.path.dirname(svc.config), "prompted.jsonl")
    with open(path, "w") as f:
        f.write(json.dumps({"id": "cli-p", "text": QUERIES[0]}) + "\n")
    run = subprocess.run([svc.binary, "submit", "--text", "--prompt-name", name, "--brokers", svc.brokers,
                          "--topic", svc.jobs_topic, str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    ids = c.submit(QUERIES[1:2], prompt_name=name, ids=["py-p"])
    got = {r.id: r for r in c.results(["cli-p"] + ids, timeout=120)}
    c.close()
    want = st.encode(QUERIES[:2], prompt_name=name, convert_to_numpy=True)
    out = np.array([got["cli-p"].output, got["py-p"].output], dtype=np.float64)
    cos = (out * want).sum(1) / (np.linalg.norm(out, axis=1) * np.linalg.norm(want, axis=1))
    assert cos.min() >= 0.9999, (name, cos)


# Prompts as the families' embedders carry them: E5's query/passage with a default (MPNet here, with
# Pooling's include_prompt false: the prompt's tokens left out of the mean), Qwen3-Embedding's instruction
# for queries without one (a byte-level BPE merges across the join).
PROMPTS = {"mpnet": ['{"query": "query: ", "passage": "passage: "}', "query", "--no-include-prompt"],
           "qwen3": ['{"query": "Instruct: find passages\\nQuery:"}', None, None]}


# The families of 2026 (model/families/), every task each has a head for (a decoder has no
# tagger): the raw jobs through kcat, the replies equal to the library. About 2.5 s a case.
# Qwen2, Llama and Mistral share Qwen3's module (model/families/decoders.py) and its shapes.
DECODER_FAMILIES = ("qwen3", "qwen2", "llama", "mistral")
NEW_FAMILY_CASES = [(f, t) for t in ("embed", "classify", "rerank") for f in ("mpnet", "modernbert", "deberta-v2",
                                                                               *DECODER_FAMILIES)] + \
                   [(f, "tokens") for f in ("mpnet", "modernbert", "deberta-v2")]


@pytest.mark.parametrize("family,task", NEW_FAMILY_CASES)
def test_a_new_family_served_equals_its_library(tmp_path, family, task):
    extra = {"embed": ["--st", "--pooling", "lasttoken" if family in DECODER_FAMILIES else "mean"]}.get(task, [])
    if task == "embed" and family in PROMPTS:
        prompts, default, include = PROMPTS[family]
        extra += ["--prompts", prompts] + (["--default-prompt-name", default] if default else []) + \
            ([include] if include else [])
    ckpt, pkg = make_package(tmp_path, family, task, *extra)
    assert json.load(open(pkg / "manifest.json"))["family"] == family
    svc = serve(tmp_path, pkg)
    try:
        if task == "embed":
            check_embed(svc, ckpt)
            check_dimensions(svc, ckpt)
            check_prompts(svc, ckpt)
        elif task == "classify":
            check_classify(svc, ckpt, pairs=True)
            got = run_jobs(svc, [{"id": "dims-to-classifier", "text": "x", "dimensions": 4},
                                 {"id": "prompt-to-classifier", "text": "x", "prompt_name": "query"}])
            assert got["dims-to-classifier"].reason == "invalid"
            assert "`dimensions`: this model's task is classify" in got["dims-to-classifier"].error
            assert got["prompt-to-classifier"].reason == "invalid"
            assert "`prompt_name`: this model has no prompts" in got["prompt-to-classifier"].error
        elif task == "rerank":
            check_rerank(svc, ckpt)
        else:
            check_tokens(svc, ckpt, TAG_TEXTS)
    finally:
        stop(svc)


def test_a_multi_label_classifier_gets_sigmoid_scores(tmp_path):
    ckpt, pkg = make_package(tmp_path, "bert", "multilabel")
    assert json.load(open(pkg / "manifest.json"))["activation"] == "sigmoid"
    svc = serve(tmp_path, pkg)
    try:
        check_classify(svc, ckpt, pairs=False)
    finally:
        stop(svc)


@pytest.mark.parametrize("task", ["classify", "rerank"])
def test_minilm_with_a_seeded_head_equals_its_library(tmp_path, task):
    ckpt, pkg = make_package(tmp_path, "minilm", task)
    svc = serve(tmp_path, pkg)
    try:
        check_classify(svc, ckpt, pairs=True) if task == "classify" else check_rerank(svc, ckpt)
    finally:
        stop(svc)


def test_pairs_from_the_cli_and_the_python_client_equal_cross_encoder_predict(tmp_path):
    """`qinfer submit --text --text-field query --text-pair-field passage` and the client's
    submit(texts, pairs=...) send pairs the service scores as CrossEncoder.predict does."""
    from sentence_transformers import CrossEncoder
    ckpt, pkg = make_package(tmp_path, "roberta", "rerank")
    svc = serve(tmp_path, pkg)
    try:
        c = svc.client(progress=False)
        c._remember_start_offsets()
        path = tmp_path / "pairs.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in [
            {"id": "cli-1", "query": QUERIES[0], "passage": PASSAGES[0]},
            {"id": "cli-2", "query": QUERIES[1]},
            {"id": "cli-3", "query": QUERIES[1], "passage": PASSAGES[1]}]))
        run = subprocess.run([svc.binary, "submit", "--text", "--text-field", "query", "--text-pair-field", "passage",
                              "--brokers", svc.brokers, "--topic", svc.jobs_topic, str(path)],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert "line 2: no string `passage`, skipped" in run.stderr
        assert "submitted 2 of 2 jobs" in run.stdout
        ids = c.submit(QUERIES[2:], pairs=PASSAGES[2:], ids=["py-1", "py-2"])
        got = {r.id: r for r in c.results(["cli-1", "cli-3"] + ids, timeout=120)}
        want = CrossEncoder(str(ckpt), device="cpu").predict(
            [(QUERIES[0], PASSAGES[0]), (QUERIES[1], PASSAGES[1]), (QUERIES[2], PASSAGES[2]), (QUERIES[3], PASSAGES[3])])
        scores = np.array([got[i].score for i in ["cli-1", "cli-3", "py-1", "py-2"]])
        assert np.abs(scores - want).max() < TOLERANCE, (scores, want)
        c.close()
    finally:
        stop(svc)


def test_awkward_pairs_get_their_records_and_the_partition_moves_on(tmp_path):
    ckpt, pkg = make_package(tmp_path, "bert", "rerank")
    svc = serve(tmp_path, pkg)
    try:
        huge = "word " * 60_000  # 300,000 bytes: over limits.max_text_bytes (256 KiB) with its query
        jobs = [
            {"id": "empty-pair", "text": "q", "text_pair": ""},
            {"id": "number-pair", "text": "q", "text_pair": 7},
            {"id": "pair-without-text", "input_ids": [2, 5, 3], "text_pair": "p"},
            {"id": "huge-pair", "text": "q", "text_pair": huge},
            {"id": "fine", "text": QUERIES[0], "text_pair": PASSAGES[0]},
        ]
        got = run_jobs(svc, jobs)
        expected = {
            "empty-pair": ("invalid", "`text_pair` is empty"),
            "number-pair": ("invalid", "`text_pair` must be a string"),
            "pair-without-text": ("invalid", "`text_pair` goes with `text`"),
            "huge-pair": ("too_long", "`text` and `text_pair` are 300001 bytes together"),
        }
        for job_id, (reason, error) in expected.items():
            assert (got[job_id].reason, error in got[job_id].error) == (reason, True), got[job_id]
        assert 0 < got["fine"].score < 1
    finally:
        stop(svc)


def docs_route(page, heading):
    """The command lines of the first bash block under the heading `heading` of docs/`page`."""
    lines = open(os.path.join(REPO, "docs", page), encoding="utf-8").read().splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith("#") and line.lstrip("#").strip() == heading]
    assert len(at) == 1, f"docs/{page} has no heading {heading!r}"
    section = "\n".join(lines[at[0]:]) + "\n"
    start = section.index("```bash\n") + len("```bash\n")
    return [line for line in section[start:section.index("```", start)].splitlines() if line.strip()]


def run_route(tmp, page, heading, checkpoint_name, family, task, jsonl_name, rows, *extra):
    """Runs the route under `heading` of docs/`page` as printed, in `tmp`, with only the paths of the
    venv's python, the exporter and the binary made absolute, and the broker, topic and
    configuration replaced by the test's."""
    _require_env()
    for tool in ("kcat", "jq"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is needed (deploy/setup.sh installs it)")
    ckpt = tmp / checkpoint_name
    make_checkpoint(ckpt, family, task, *extra)
    (tmp / jsonl_name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    brokers, run = os.environ["QINFER_TEST_BROKERS"], os.urandom(4).hex()
    topic = f"jobs-route-{run}"
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": brokers})
    for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(30)
    config = tmp / "route.yaml"
    config.write_text(f"""model:
  path: unused.pt
kafka:
  brokers: {brokers}
  group_id: route-{run}
  jobs_topic: {topic}
  reply_topic: results-route-{run}
  dead_letter_topic: failed-route-{run}
  create_topics: true
""")
    lines = docs_route(page, heading)
    replaced = [(".venv/bin/python model/export_hf.py", f"{PYTHON} {REPO}/model/export_hf.py"),
                ("build/qinfer", os.environ["QINFER_BINARY"]),
                ("-b 127.0.0.1:9092 -t jobs", f"-b {brokers} -t {topic}"),
                ("--config deploy/quickstart.yaml", f"--config {config}")]
    for printed, _ in replaced:
        if printed.startswith("-b ") and not any("kcat" in line for line in lines):
            continue  # a route that publishes with `qinfer submit`
        assert any(printed in line for line in lines), f"docs/{page}'s route no longer has {printed!r}"
    outputs = []
    for line in lines:
        for printed, ours in replaced:
            line = line.replace(printed, ours)
        if line.startswith(".venv/bin/python "):  # a script of the route's own (the export's is replaced above)
            line = PYTHON + line[len(".venv/bin/python"):]
        done = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=tmp, capture_output=True, text=True,
                              timeout=300, env=dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1"))
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        outputs.append(done.stdout)
    return ckpt, outputs


@pytest.mark.parametrize("family", ["deberta-v2"])  # BERT's rerank is served above
def test_the_docs_rerank_route_runs_as_printed(tmp_path, family):
    from sentence_transformers import CrossEncoder
    rows = [{"id": f"q{i}", "query": q, "passage": p} for i, (q, p) in enumerate(zip(QUERIES, PASSAGES))]
    ckpt, _ = run_route(tmp_path, "guide/tasks.md", "Rerank from a checkpoint directory", "my-cross-encoder",
                        family, "rerank", "pairs.jsonl", rows)
    records = {r["id"]: r for r in map(json.loads, open(tmp_path / "scores.jsonl"))}
    want = CrossEncoder(str(ckpt), device="cpu").predict([(r["query"], r["passage"]) for r in rows])
    got = np.array([records[r["id"]]["score"] for r in rows])
    assert np.abs(got - want).max() < TOLERANCE, (got, want)


@pytest.mark.parametrize("family", ["modernbert"])  # RoBERTa's classify is served above
def test_the_docs_classify_route_runs_as_printed(tmp_path, family):
    from transformers import pipeline
    rows = [{"id": f"t{i}", "text": t} for i, t in enumerate(TEXTS)]
    ckpt, outputs = run_route(tmp_path, "guide/tasks.md", "Classify from a checkpoint directory", "my-classifier",
                              family, "classify", "texts.jsonl", rows)
    records = {r["id"]: r for r in map(json.loads, open(tmp_path / "labels.jsonl"))}
    want = pipeline("text-classification", model=str(ckpt), top_k=None)([r["text"] for r in rows])
    for row, expected in zip(rows, want):
        record = records[row["id"]]
        assert record["label"] == expected[0]["label"]
        scores = {s["label"]: s["score"] for s in record["scores"]}
        assert max(abs(scores[e["label"]] - e["score"]) for e in expected) < TOLERANCE
    summary = outputs[-1]
    counts = {}
    for e in want:
        counts[e[0]["label"]] = counts.get(e[0]["label"], 0) + 1
    for label, n in counts.items():
        assert any(line.split()[:2] == [label, str(n)] for line in summary.splitlines()), summary


def test_the_docs_tag_route_runs_as_printed(tmp_path):
    from transformers import pipeline
    words = "Anna Smith flew from Paris to New York and met Zoë in Kraków on Monday".split()
    long_text = " ".join(words[i % len(words)] for i in range(300))  # over max_tokens: windows
    texts = TAG_TEXTS + [long_text]
    rows = [{"id": f"t{i}", "text": t} for i, t in enumerate(texts)]
    ckpt, _ = run_route(tmp_path, "guide/tasks.md", "Tag from a checkpoint directory", "my-tagger", "distilbert",
                        "tokens", "texts.jsonl", rows)
    records = {r["id"]: r for r in map(json.loads, open(tmp_path / "entities.jsonl"))}
    # The route's serve runs with the test configuration's admission.chunk_overlap (0 here:
    # the default) as the pipeline's stride.
    pipe = pipeline("token-classification", model=str(ckpt), aggregation_strategy="simple", stride=0)
    for row in rows:
        record = records[row["id"]]
        assert record["status"] == "ok", record
        want = pipe(row["text"])
        assert [(e["label"], e["start"], e["end"], e["text"]) for e in record["entities"]] == \
            [(w["entity_group"], w["start"], w["end"], row["text"][w["start"]:w["end"]]) for w in want]
    assert records[f"t{len(texts) - 1}"]["windows"] > 1


@pytest.mark.parametrize("family,pooling", [("qwen3", "lasttoken")])  # MPNet's embed is served above
def test_the_docs_embed_route_runs_as_printed(tmp_path, family, pooling):
    # Qwen3-Embedding's layout: a decoder pooled by its last token.
    from sentence_transformers import SentenceTransformer
    rows = [{"id": f"t{i}", "text": t} for i, t in enumerate(TEXTS)]
    ckpt, _ = run_route(tmp_path, "guide/tasks.md", "Embed from a checkpoint directory", "my-embedder", family, "embed",
                        "texts.jsonl", rows, "--st", "--pooling", pooling)
    records = {r["id"]: r for r in map(json.loads, open(tmp_path / "vectors.jsonl"))}
    want = SentenceTransformer(str(ckpt), device="cpu").encode([r["text"] for r in rows], convert_to_numpy=True)
    got = np.array([records[r["id"]]["output"] for r in rows], dtype=np.float64)
    cos = (got * want).sum(1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1))
    assert cos.min() >= 0.9999, cos


def test_the_docs_parquet_route_runs_as_printed(tmp_path):
    # Your columns ride along (qinfer submit moves them into meta) and come back as Parquet columns; DuckDB
    # and pyarrow read the file, its rows are `results --count`'s and its vectors encode()'s.
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq
    from sentence_transformers import SentenceTransformer
    rows = [{"id": f"d{i}", "text": t, "title": f"Title {i}", "url": f"https://example.org/{i}", "rank": i}
            for i, t in enumerate(TEXTS)]
    ckpt, outputs = run_route(tmp_path, "guide/results.md", "Parquet, into DuckDB", "my-embedder", "bert", "embed",
                              "docs.jsonl", rows, "--st")
    counts = dict(line.split() for line in outputs[4].splitlines())
    assert counts == {"results": str(len(rows)), "failures": "0", "superseded": "0"}
    printed = outputs[5]
    for r in rows:
        assert f"('{r['id']}', '{r['title']}', '{r['url']}', {r['rank']}, " in printed, printed
    where = tmp_path / 'docs.parquet'
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{where}')").fetchall() == [(len(rows),)]
    table = pq.read_table(tmp_path / "docs.parquet")
    assert table.schema.field("output").type == pa.list_(pa.float32())
    assert table.schema.field("title").type == pa.string() and table.schema.field("rank").type == pa.int64()
    assert table.schema.field("id").nullable is False and "meta" not in table.schema.names
    got = {r["id"]: r for r in table.to_pylist()}
    want = SentenceTransformer(str(ckpt), device="cpu").encode(TEXTS)
    for i, r in enumerate(rows):
        assert got[r["id"]]["status"] == "ok" and got[r["id"]]["url"] == r["url"]
        assert np.abs(np.array(got[r["id"]]["output"], dtype=np.float32) - want[i]).max() < TOLERANCE


def test_the_docs_compact_vectors_route_runs_as_printed(tmp_path):
    from sentence_transformers import SentenceTransformer
    rows = [{"id": f"t{i}", "text": t} for i, t in enumerate(TEXTS)]
    ckpt, _ = run_route(tmp_path, "guide/results.md", "Compact vectors, into numpy", "my-embedder", "bert", "embed",
                        "texts.jsonl", rows, "--st")
    ids = (tmp_path / "ids.txt").read_text().split()
    got = np.load(tmp_path / "vectors.npy")
    assert sorted(ids) == sorted(r["id"] for r in rows) and got.dtype == np.float32
    want = SentenceTransformer(str(ckpt), device="cpu").encode([TEXTS[int(i[1:])] for i in ids])
    assert np.abs(got - want).max() < TOLERANCE


def test_the_docs_sparse_route_runs_as_printed(tmp_path):
    from sentence_transformers import SparseEncoder
    rows = [{"id": f"t{i}", "text": t} for i, t in enumerate(TEXTS)]
    ckpt, _ = run_route(tmp_path, "guide/results.md", "Sparse weights", "my-splade", "bert", "sparse", "texts.jsonl",
                        rows)
    records = {r["id"]: r for r in map(json.loads, open(tmp_path / "sparse.jsonl"))}
    want = SparseEncoder(str(ckpt), device="cpu").encode(TEXTS, max_active_dims=64, convert_to_tensor=True,
                                                         convert_to_sparse_tensor=False).numpy()
    for i in range(len(TEXTS)):
        out = records[f"t{i}"]["output"]
        assert out["indices"] == np.flatnonzero(want[i]).tolist()
        assert np.abs(np.array(out["values"]) - want[i][out["indices"]]).max() < TOLERANCE


def test_the_docs_token_vectors_route_runs_as_printed(tmp_path):
    from sentence_transformers import SentenceTransformer
    long_text = " ".join(TEXTS * 3)  # over max_tokens (64): windows
    rows = [{"id": f"t{i}", "text": t} for i, t in enumerate(TEXTS + [long_text])]
    ckpt, _ = run_route(tmp_path, "guide/results.md", "A vector a token", "my-colbert", "bert", "embed", "texts.jsonl",
                        rows, "--st", "--token-projection", "8")
    records = {r["id"]: r for r in map(json.loads, open(tmp_path / "tokens.jsonl"))}
    st = SentenceTransformer(str(ckpt), device="cpu")
    for i, want in enumerate(st.encode(TEXTS, output_value="token_embeddings")):
        got = np.array(records[f"t{i}"]["output"])
        if records[f"t{i}"].get("windows"):  # over max_tokens: all its tokens, where encode() truncates
            assert got.shape == (len(st.tokenizer(TEXTS[i])["input_ids"]), want.shape[1])
            continue
        assert got.shape == tuple(want.shape) and np.abs(got - want.numpy()).max() < TOLERANCE
    whole = records[f"t{len(TEXTS)}"]
    assert whole["windows"] > 1 and len(whole["output"]) == len(st.tokenizer(long_text)["input_ids"])
