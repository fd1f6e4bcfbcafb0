"""Compact outputs, end to end: MiniLM served with calibration ranges, jobs sent raw through kcat with
each `encoding`, and every result read back and compared with sentence-transformers.

  float     JSON numbers, cosine >= 0.9999 to SentenceTransformer.encode (as the other served tests)
  base64    little-endian float32 whose values equal the float job's of the same text within 1e-6
            (the two jobs may run in different batches, whose sums may round apart by an ulp)
  ubinary   quantize_embeddings(v, "ubinary") bit for bit, v the float job's output for the same text,
  binary    but for a value within 1e-6 of 0 (whose sign another batch's rounding may flip)
  int8      quantize_embeddings(v, "int8" | "uint8", ranges=...) for the ranges the service was given
  uint8     (output.int8_ranges), but for a value within 1e-6 of a bucket's edge; with `dimensions`,
            the first N ranges. (v, not encode(text): v is within the served model's own tolerance
            of encode's, about 1e-5 here, which moves a few percent of the 1/255-of-a-range buckets;
            the encoding itself must add nothing, so it is checked on v. The test prints how many
            values differ and how many lie that close to an edge.)
  refused   an unknown encoding, and a compact one beside `dimensions` beyond the model, are `invalid`
            naming the field; the job behind them on the partition still gets its result

`qinfer results --export - --decode` then writes each compact output as numbers: base64's record is
the float record of the same values (no "encoding"), the quantized ones' integers keep their "encoding"
(binary's and int8's signed, as quantize_embeddings gives them).
"""

import base64
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import qinfer_client as qc
from conftest import Service, _require_env

TEXTS = ["the lighthouse guides ships at night", "bees make honey in the hive", "rain in paris in autumn",
         "a b c d e f g", "how do I reset my password?", "quarterly revenue grew by nine percent"]
# Not the texts above: some of their values fall outside the ranges and are clipped, as the library clips them.
CALIBRATION = ["what is the capital of france", "the cat sat on the mat", "an apple a day",
                       "neural networks learn representations", "the train was late again", "x"]
EDGE = 1e-6


@pytest.fixture(scope="module")
def st_model():
    from sentence_transformers import SentenceTransformer
    return SentenceTransformer(os.path.dirname(qc.default_tokenizer_path()), device="cpu")


@pytest.fixture(scope="module")
def ranges(st_model):
    emb = st_model.encode(CALIBRATION, convert_to_numpy=True)
    return np.vstack([emb.min(axis=0), emb.max(axis=0)]).astype(np.float32)


@pytest.fixture(scope="module")
def served(tmp_path_factory, ranges):
    _require_env()
    if shutil.which("kcat") is None:
        pytest.skip("kcat is needed (deploy/setup.sh installs it)")
    tmp = tmp_path_factory.mktemp("encodings")
    ranges_file = tmp / "ranges.json"
    ranges_file.write_text(json.dumps(ranges.tolist()))
    svc = Service(tmp, os.environ["QINFER_TEST_BROKERS"], os.environ["QINFER_BINARY"],
                  os.environ["QINFER_MINILM_DIR"], extra=f"output:\n  int8_ranges: {ranges_file}\n")
    try:
        svc.wait_ready()
        yield svc
    finally:
        rc = svc.stop()
    assert rc == 0, f"qinfer serve exited {rc}:\n{svc.tail()}"


def run_jobs(svc, jobs):
    c = svc.client(progress=False)
    c._remember_start_offsets()
    lines = "".join(f"{j['id']}\t{json.dumps(j)}\n" for j in jobs)
    subprocess.run(["kcat", "-P", "-b", svc.brokers, "-t", svc.jobs_topic, "-K", "\t", "-p", "0"],
                   input=lines.encode(), check=True, timeout=60)
    got = {r.id: r for r in c.results([j["id"] for j in jobs], timeout=120, on_failure="yield")}
    c.close()
    return got


def packed(record, dtype):
    return np.frombuffer(base64.b64decode(record["output"]), dtype=dtype)


def assert_equal_but_at_edges(got, want, near_edge, what):
    """Equal everywhere but where the float value lies within EDGE of where the quantized value changes."""
    differ = got != want
    assert not (differ & ~near_edge).any(), (what, np.flatnonzero(differ & ~near_edge))
    print(f"{what}: {int(differ.sum())} of {differ.size} differ, all within {EDGE} of an edge "
          f"({int(near_edge.sum())} such values)")


def test_every_encoding_reads_back_as_the_library_quantizes(served, st_model, ranges):
    from sentence_transformers.util.quantization import quantize_embeddings
    encodings = ["float", "base64", "ubinary", "binary", "int8", "uint8"]
    jobs = [{"id": f"{enc}-{i}", "text": t, "encoding": enc} for enc in encodings for i, t in enumerate(TEXTS)]
    jobs += [{"id": f"int8-dims-{i}", "text": t, "encoding": "int8", "dimensions": 64} for i, t in enumerate(TEXTS)]
    jobs += [{"id": "unknown", "text": "x", "encoding": "float16"},
             {"id": "after", "text": TEXTS[0], "encoding": "base64"}]
    got = run_jobs(served, jobs)
    want = st_model.encode(TEXTS, convert_to_numpy=True)

    floats = np.array([got[f"float-{i}"].output for i in range(len(TEXTS))], dtype=np.float32)
    cos = (floats * want).sum(1) / (np.linalg.norm(floats, axis=1) * np.linalg.norm(want, axis=1))
    assert cos.min() >= 0.9999, cos
    for i in range(len(TEXTS)):
        rec = got[f"base64-{i}"].record
        assert rec["encoding"] == "base64" and isinstance(rec["output"], str)
        values = packed(rec, "<f4")
        assert values.shape == (384,) and np.abs(values - floats[i]).max() <= 1e-6
        assert got[f"base64-{i}"].output == pytest.approx(values.tolist(), abs=0), "the client decodes it"

    print(f"served float vs encode(): max abs difference {np.abs(floats - want).max():.2e}")
    near_zero = np.abs(floats) < EDGE
    for enc, dtype in (("ubinary", np.uint8), ("binary", np.int8)):
        served_bits = np.array([packed(got[f"{enc}-{i}"].record, dtype) for i in range(len(TEXTS))])
        assert served_bits.shape == (len(TEXTS), 48)
        library = quantize_embeddings(floats, precision=enc)
        near = np.packbits(near_zero, axis=-1) != 0  # a byte holding a value near 0
        assert_equal_but_at_edges(served_bits, library, near, enc)
        assert [got[f"{enc}-0"].output] == served_bits[:1].tolist()

    steps = (ranges[1] - ranges[0]) / 255
    edges = (floats - ranges[0]) / steps
    near_edge = np.abs(edges - np.round(edges)) * steps < EDGE
    for enc, dtype in (("int8", np.int8), ("uint8", np.uint8)):
        served_q = np.array([packed(got[f"{enc}-{i}"].record, dtype) for i in range(len(TEXTS))])
        library = quantize_embeddings(floats, precision=enc, ranges=ranges)
        assert_equal_but_at_edges(served_q, library, near_edge, enc)
    cut = np.array([packed(got[f"int8-dims-{i}"].record, np.int8) for i in range(len(TEXTS))])
    library = quantize_embeddings(floats[:, :64], precision="int8", ranges=ranges[:, :64])
    assert_equal_but_at_edges(cut, library, near_edge[:, :64], "int8 with dimensions 64")

    assert got["unknown"].reason == "invalid"
    assert "`encoding` must be one of float, base64, binary, ubinary, int8, uint8" in got["unknown"].error
    assert got["after"].record["encoding"] == "base64", "the job behind the refused one still runs"


def test_results_decode_writes_compact_outputs_as_numbers(served):
    got = run_jobs(served, [{"id": f"dec-{enc}", "text": TEXTS[1], "encoding": enc}
                            for enc in ("float", "base64", "ubinary", "binary", "int8")])
    out = subprocess.run([served.binary, "results", "--store", served.store, "--export", "-", "--decode"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    decoded = {r["id"]: r for r in map(json.loads, out.splitlines()) if r["id"].startswith("dec-")}
    b64 = decoded["dec-base64"]
    assert "encoding" not in b64
    same = np.array_equal(np.array(b64["output"], dtype=np.float32), np.array(got["dec-base64"].output, np.float32))
    assert same, "the same float32 values (the JSON's shortest forms, the client's widened doubles)"
    assert decoded["dec-ubinary"]["encoding"] == "ubinary"
    assert decoded["dec-ubinary"]["output"] == got["dec-ubinary"].output and len(got["dec-ubinary"].output) == 48
    # binary's bytes are the int8 values quantize_embeddings(x, "binary") gives (the test above): decoded as
    # such, negative ones included (a byte whose first bit is clear), not as unsigned bytes.
    binary = packed(got["dec-binary"].record, np.int8).tolist()
    assert decoded["dec-binary"]["encoding"] == "binary"
    assert decoded["dec-binary"]["output"] == binary and min(binary) < 0, binary
    assert decoded["dec-int8"]["output"] == got["dec-int8"].output
    assert all(-128 <= v <= 127 for v in decoded["dec-int8"]["output"])
    one = subprocess.run([served.binary, "results", "--store", served.store, "--id", "dec-base64", "--decode"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert json.loads(one)["output"] == b64["output"], "--id --decode writes what --export --decode writes"
    plain = subprocess.run([served.binary, "results", "--store", served.store, "--id", "dec-base64"],
                           capture_output=True, text=True, check=True, timeout=60).stdout
    assert json.loads(plain)["output"] == got["dec-base64"].record["output"], "stored as written, base64 text"
