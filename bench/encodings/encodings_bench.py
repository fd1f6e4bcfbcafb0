#!/usr/bin/env python3
"""Store bytes per MiniLM result in each output encoding (issue 49's targets: base64 <= 0.45x float,
ubinary <= 0.05x).

    bench/encodings/run.sh [--texts N] [--out FILE.json]

N real paragraphs (model/make_texts.py) are published once; `qinfer serve --idle-exit` runs MiniLM
(build/minilm) over them once per encoding, each into a store of its own (int8 and uint8 with ranges
taken from the float run's own vectors: a calibration set, as the library's `ranges`). Each store is
measured by build/bench/store_bytes_bench: the bytes its values hold and the table-file bytes after a flush
and a full compaction with the store's compression.
Records/s at the no-op ceiling's workload is bench/pipeline/run.sh --dim 384 --encodings float,base64.
The store keeps each record's text coded and a compact output as its bytes (core/stored_record.h); each
record's text, as `results --export` gives it back, is measured beside.
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench", "pipeline"))
sys.path.insert(0, os.path.join(REPO, "model"))
sys.path.insert(0, os.path.join(REPO, "bench", "common"))
from pipeline_bench import create_topics, die, log, run, summary_fields, write_config  # noqa: E402
from stamp import machine  # noqa: E402  (bench/common/stamp.py: the CPU's model name, as every bench stamps it)

ENCODINGS = ["float", "base64", "binary", "ubinary", "int8", "uint8"]


def serve(a, work, brokers, topic, encoding, ranges_file, n):
    store = os.path.join(work, f"store-{encoding}")
    cfg = os.path.join(work, f"serve-{encoding}.yaml")
    write_config(cfg, os.path.join(a.minilm, "model.pt"), brokers, f"enc-{encoding}-{os.getpid()}", topic, "",
                 store, 64, 0)
    cmd = [a.qinfer, "serve", "-c", cfg, "--idle-exit", "2", "--set", f"output.encoding={encoding}"]
    if ranges_file:
        cmd += ["--set", f"output.int8_ranges={ranges_file}"]
    logf = os.path.join(work, f"serve-{encoding}.log")
    with open(logf, "w") as lf:
        rc = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT).returncode
    text = open(logf).read()
    if rc != 0 or summary_fields(text).get("stored") != n:
        sys.stderr.write(text[-3000:])
        die(f"serve ({encoding}) exited {rc} or did not store {n} records; log {logf}")
    export = os.path.join(work, f"export-{encoding}.jsonl")
    run([a.qinfer, "results", "-s", store, "--export", export], stderr=subprocess.DEVNULL)
    out = run([a.store_bytes_bench, "--store", store], stdout=subprocess.PIPE, text=True).stdout
    measured = json.loads(out)
    lines = [line for line in open(export) if line.strip()]
    measured["text_bytes_per_record"] = sum(len(line.rstrip("\n").encode()) for line in lines) / len(lines)
    return measured, export


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", type=int, default=2000)
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "encodings", "results", "encodings.json"))
    ap.add_argument("--qinfer", default=os.environ.get("QINFER_BIN", os.path.join(REPO, "build", "qinfer")))
    ap.add_argument("--minilm", default=os.path.join(REPO, "build", "minilm"))
    a = ap.parse_args()
    a.qinfer = os.path.abspath(a.qinfer)
    a.store_bytes_bench = os.path.join(os.path.dirname(a.qinfer), "bench", "store_bytes_bench")
    for tool in (a.qinfer, a.store_bytes_bench):
        if not os.access(tool, os.X_OK):
            die(f"no {tool} (build it)")
    import make_texts
    work = tempfile.mkdtemp(prefix="qinfer-encbench-")
    started = time.monotonic()
    broker_dir = os.path.join(work, "kafka")
    try:
        brokers = run([os.path.join(REPO, "deploy", "kafka-local.sh"), "start", broker_dir, "auto"],
                      stdout=subprocess.PIPE, text=True).stdout.strip()
        topic = f"bench-encodings-{int(time.time())}"
        create_topics(brokers, {topic: 1})
        jobs = os.path.join(work, "jobs.jsonl")
        with open(jobs, "w") as f:
            for i, t in enumerate(make_texts.make_texts(a.texts, seed=3)):
                f.write(json.dumps({"id": f"doc-{i:07d}", "text": t}) + "\n")
        run([a.qinfer, "submit", "-b", brokers, "-t", topic, "--no-progress", jobs], stdout=subprocess.DEVNULL)
        results, ranges_file = {}, ""
        for e in ENCODINGS:
            results[e], export = serve(a, work, brokers, topic, e, ranges_file if e.endswith("int8") else "",
                                       a.texts)
            if e == "float":
                vectors = [json.loads(line)["output"] for line in open(export)]
                ranges = [[min(col) for col in zip(*vectors)], [max(col) for col in zip(*vectors)]]
                ranges_file = os.path.join(work, "ranges.json")
                with open(ranges_file, "w") as f:
                    json.dump(ranges, f)
            log(f"{e}: {results[e]['value_bytes_per_record']:.0f} value bytes, "
                f"{results[e]['sst_bytes_per_record']:.0f} table-file bytes a record")
    finally:
        subprocess.run([os.path.join(REPO, "deploy", "kafka-local.sh"), "stop", broker_dir],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)
    base = results["float"]
    for r in results.values():
        r["value_ratio_to_float"] = round(r["value_bytes_per_record"] / base["value_bytes_per_record"], 3)
        r["sst_ratio_to_float"] = round(r["sst_bytes_per_record"] / base["sst_bytes_per_record"], 3)
        r["text_ratio_to_float"] = round(r["text_bytes_per_record"] / base["text_bytes_per_record"], 3)
    result = {
        "texts": a.texts,
        "encodings": results,
        "bench_seconds": round(time.monotonic() - started, 1),
        "setup": {"command": "bench/encodings/run.sh " + " ".join(sys.argv[1:]),
                  "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  "machine": machine(),
                  "model": "all-MiniLM-L6-v2 (build/minilm), 384 dimensions"},
        "definitions": {
            "value_bytes_per_record": "mean bytes of a stored record: the store's value (its coded text, a compact "
                                      "output kept apart as its bytes)",
            "text_bytes_per_record": "mean bytes of a record's JSON line as `results --export` writes it",
            "sst_bytes_per_record": "RocksDB table-file bytes per record after a flush and a full compaction, "
                                    "with the result store's block compression (keys, index and filter included)",
            "ratio_to_float": "the same figure over the float encoding's",
        },
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    log(f"wrote {a.out} in {result['bench_seconds']} s")


if __name__ == "__main__":
    main()
