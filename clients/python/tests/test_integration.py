"""qinfer_client against the real parts: a Kafka broker, `qinfer serve` on MiniLM, the qinfer CLI."""

import json
import math
import subprocess
import time

import pytest

import qinfer_client as qc


def norm(v):
    return math.sqrt(sum(x * x for x in v))


def test_texts_come_back_as_normalised_embeddings_with_meta(service, manifest):
    c = service.client(progress=False)
    texts = ["A short sentence.", "Kafka carries the jobs; RocksDB keeps the results."]
    ids = c.submit(texts, ids=["t-1", "t-2"], meta=[{"n": 1}, {"n": 2}])
    assert ids == ["t-1", "t-2"]
    got = {r.id: r for r in c.results(ids, timeout=120)}
    assert set(got) == {"t-1", "t-2"}
    for i, r in enumerate((got["t-1"], got["t-2"])):
        assert len(r.output) == manifest["dim"] == 384
        assert abs(norm(r.output) - 1.0) < 1e-4
        assert r.record["meta"] == {"n": i + 1}
        assert r.record["model"]["digest"] == manifest["digest"]
    assert got["t-1"].record["input_length"] == len(c.tokenize([texts[0]])[0])


def test_a_records_columns_come_back_in_meta(service):
    c = service.client(progress=False)
    records = [{"id": "rec-1", "text": "A short sentence.", "title": "One", "url": "https://example.org/1"},
               {"id": "rec-2", "text": "Another one.", "meta": {"n": 2}, "rank": 7}]
    assert c.submit(records) == ["rec-1", "rec-2"]
    got = {r.id: r for r in c.results(["rec-1", "rec-2"], timeout=120)}
    assert got["rec-1"].record["meta"] == {"title": "One", "url": "https://example.org/1"}
    assert got["rec-2"].record["meta"] == {"n": 2, "rank": 7}
    assert len(got["rec-1"].output) == 384


def test_the_clients_job_fields_are_the_services(service):
    # A raw job with a field no job carries: the service's refusal lists the job fields it knows.
    c = service.client(progress=False)
    producer = c._get_producer()
    producer.produce(c.jobs_topic, key="unknown-field", value=json.dumps(
        {"id": "unknown-field", "input_ids": [101, 102], "colour": "red"}))
    producer.flush(30)
    [f] = list(c.results(["unknown-field"], timeout=120, on_failure="yield"))
    assert isinstance(f, qc.Failure) and f.reason == "invalid" and "`colour`" in f.error
    listed = f.error[f.error.index("(a job has ") + len("(a job has "):].split(")")[0]
    assert tuple(listed.split(", ")) == qc.JOB_FIELDS


def test_token_id_lists_are_sent_as_they_are(service):
    c = service.client(progress=False)
    [job_id] = c.submit([[101, 7592, 2088, 102]])
    [r] = list(c.results([job_id], timeout=120))
    assert r.record["input_length"] == 4 and len(r.output) == 384


def test_a_failure_record_raises_with_its_reason_and_error(service, manifest):
    c = service.client(progress=False)
    long_text = " ".join(["word"] * (manifest["max_tokens"] + 10))
    [job_id] = c.submit([long_text])
    with pytest.raises(qc.QinferJobFailed) as e:
        list(c.results([job_id], timeout=120))
    assert e.value.id == job_id and e.value.reason == "too_long"
    assert f"max_tokens {manifest['max_tokens']}" in e.value.error


def test_failures_are_yielded_when_asked_beside_results(service, manifest):
    c = service.client(progress=False)
    ids = c.submit([[101, manifest["vocab_size"], 102], [101, 2088, 102]], ids=["bad-vocab", "good"])
    got = {r.id: r for r in c.results(ids, timeout=120, on_failure="yield")}
    assert isinstance(got["bad-vocab"], qc.Failure) and got["bad-vocab"].reason == "invalid"
    assert str(manifest["vocab_size"]) in got["bad-vocab"].error
    assert isinstance(got["good"], qc.Result)


def test_a_timeout_says_how_many_ids_are_missing(service):
    c = service.client(progress=False)
    [job_id] = c.submit([[101, 102]])
    t0 = time.monotonic()
    # The submitted job's reply comes within the timeout (one job on a ready service).
    with pytest.raises(qc.QinferTimeout, match=r"1 of 2 ids still missing after 8 s") as e:
        list(c.results([job_id, "never-submitted"], timeout=8))
    assert e.value.missing == ["never-submitted"]
    assert time.monotonic() - t0 < 18


def test_store_export_reads_back_the_same_embeddings(service, tmp_path):
    c = service.client(progress=False)
    ids = c.submit(["Exported results equal the replies."] * 2)
    from_kafka = {r.id: r.output for r in c.results(ids, timeout=120)}
    export = tmp_path / "export.jsonl"
    subprocess.run([service.binary, "results", "--store", service.store, "--export", str(export)],
                   check=True, capture_output=True, timeout=60)
    from_file = {r.id: r.output for r in c.results(ids, export=str(export))}
    assert from_file == from_kafka


def test_replay_turns_a_too_long_failure_into_a_result(service, manifest):
    c = service.client(progress=False)
    long_text = " ".join(["replay"] * (manifest["max_tokens"] + 5))
    [job_id] = c.submit([long_text])
    [failure] = list(c.results([job_id], timeout=120, on_failure="yield"))
    assert failure.reason == "too_long"
    # The failure record is in the store once the dead letter is out; a dry run lists it.
    dry = c.replay(store=service.store, ids=[job_id], reasons=["too_long"], policy="truncate",
                   dry_run=True, binary=service.binary)
    assert job_id in dry.stdout
    c.replay(store=service.store, ids=[job_id], policy="truncate", brokers=service.brokers,
             topic=service.jobs_topic, binary=service.binary)
    [r] = list(c.results([job_id], timeout=120))
    assert isinstance(r, qc.Result)
    assert r.record["policy"] == "truncate" and r.record["attempt"] == 1
    assert r.record["input_length"] == manifest["max_tokens"]


def test_replay_reports_the_clis_refusal_of_an_invalid_record(service, manifest):
    c = service.client(progress=False)
    [job_id] = c.submit([[101, manifest["vocab_size"] + 1, 102]])
    [failure] = list(c.results([job_id], timeout=120, on_failure="yield"))
    assert failure.reason == "invalid"
    # An invalid message would fail the same way again: qinfer replay refuses it (exit 1).
    with pytest.raises(qc.QinferError, match=r"(?s)exited 1: .*is invalid.*not replayed 1"):
        c.replay(store=service.store, ids=[job_id], binary=service.binary)
