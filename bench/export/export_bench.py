"""`qinfer results --export` to Parquet beside JSONL, on one store, side by side.

For each store encoding asked (float: JSON numbers; base64), build/bench/fill_store_bench makes a
store of --records MiniLM-shaped results (384 float32 values a vector, the record fields a served
MiniLM result has). Then each round runs both exports of the whole store, in alternating order,
each timed as a process (open, read, write, close: what a user waits for). Figures are medians
over the rounds; records/s = records / median seconds; the ratio is Parquet's records/s over
JSONL's. After the last round pyarrow reads the Parquet file's row count and schema, and DuckDB
its rows, to check the file is whole.

    bench/export/run.sh [--records 1000000] [--rounds 3] [--encodings float,base64] [--baseline BIN] [--out FILE.json]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from stamp import machine  # noqa: E402  (bench/common/stamp.py: the CPU's model name, as every bench stamps it)


def run(cmd):
    t0 = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - t0
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds, done.stdout


def fill_store(a, fill_store_bench, store, encoding):
    fill = [fill_store_bench, "--store", store, "--records", str(a.records)]
    if encoding != "float":
        fill += ["--encoding", encoding]
    fill_s, out = run(fill)
    record_bytes = json.loads(out.strip().splitlines()[-1])["record_bytes"]
    print(f"[export] {encoding}: store of {a.records} records ({record_bytes:.0f} B each) in {fill_s:.1f} s "
          f"by {fill_store_bench}", file=sys.stderr)
    return record_bytes


def bench_store(a, work, encoding):
    store = os.path.join(work, f"store-{encoding}")
    record_bytes = fill_store(a, a.fill_store_bench, store, encoding)
    # The baseline reads a store its own build wrote: the form of a stored
    # record may differ between builds (core/stored_record.h).
    baseline_store = os.path.join(work, f"store-{encoding}-baseline")
    if a.baseline:
        fill_store(a, os.path.join(os.path.dirname(a.baseline), "bench", "fill_store_bench"), baseline_store,
                   encoding)
    files = {"jsonl": os.path.join(work, "out.jsonl"), "parquet": os.path.join(work, "out.parquet"),
             "parquet_baseline": os.path.join(work, "baseline.parquet")}
    formats = ["jsonl", "parquet"] + (["parquet_baseline"] if a.baseline else [])
    seconds = {fmt: [] for fmt in formats}
    sizes = {}
    for r in range(a.rounds):
        for fmt in formats[r % len(formats):] + formats[:r % len(formats)]:
            binary, source = (a.baseline, baseline_store) if fmt == "parquet_baseline" else (a.qinfer, store)
            os.sync()  # the last export's writeback is not this one's time
            s, _ = run([binary, "--log-level", "warn", "results", "--store", source, "--export", files[fmt]])
            seconds[fmt].append(s)
            sizes[fmt] = os.path.getsize(files[fmt])
            os.remove(files[fmt]) if fmt != "parquet" else None
            print(f"[export] {encoding} round {r + 1} {fmt}: {s:.2f} s", file=sys.stderr)
    import duckdb
    import pyarrow.parquet as pq
    meta = pq.ParquetFile(files["parquet"]).metadata
    rows = duckdb.sql(f"SELECT count(*) FROM read_parquet('{files['parquet']}')").fetchall()[0][0]
    assert meta.num_rows == rows == a.records, (meta.num_rows, rows, a.records)
    schema = pq.read_schema(files["parquet"])
    os.remove(files["parquet"])
    shutil.rmtree(store)
    shutil.rmtree(baseline_store, ignore_errors=True)
    result = {"records": a.records, "record_bytes": record_bytes, "parquet_row_groups": meta.num_row_groups,
              "parquet_output_type": str(schema.field("output").type)}
    for fmt in formats:
        median = statistics.median(seconds[fmt])
        result[fmt] = {"seconds": seconds[fmt], "median_seconds": median, "records_per_s": a.records / median,
                       "file_bytes": sizes[fmt], "bytes_per_record": sizes[fmt] / a.records}
    result["parquet_over_jsonl_records_per_s"] = result["parquet"]["records_per_s"] / result["jsonl"]["records_per_s"]
    if a.baseline:
        result["parquet_over_baseline_records_per_s"] = (result["parquet"]["records_per_s"] /
                                                         result["parquet_baseline"]["records_per_s"])
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--records", type=int, default=1000000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--encodings", default="float,base64")
    p.add_argument("--qinfer", default=os.path.join(os.environ.get("QINFER_BIN_DIR", "build"), "qinfer"))
    p.add_argument("--baseline", help="another qinfer binary whose Parquet export runs beside, in the same rounds "
                                      "(say, one built from an earlier commit)")
    p.add_argument("--work", help="a directory for the stores and files (default: a temporary one)")
    p.add_argument("--out", default="bench/export/results/export.json")
    a = p.parse_args()
    a.fill_store_bench = os.path.join(os.path.dirname(a.qinfer), "bench", "fill_store_bench")
    work = a.work or tempfile.mkdtemp(prefix="qinfer-export-bench-")
    os.makedirs(work, exist_ok=True)
    try:
        stores = {e: bench_store(a, work, e) for e in a.encodings.split(",")}
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    out = {"command": " ".join(sys.argv), "machine": {"cpus": os.cpu_count(), "processor": machine()["cpu"]},
           "definitions": {
               "median_seconds": "the median over the rounds of one `qinfer results --export` process, start to exit",
               "records_per_s": "records / median_seconds",
               "parquet_over_jsonl_records_per_s": "Parquet's records/s over JSONL's, on the same store in the same run",
               "parquet_over_baseline_records_per_s": "Parquet's records/s over the --baseline binary's, likewise",
               "rounds": "each round runs every export once, the order rotated a round; os.sync() before each"},
           "baseline": a.baseline,
           "stores": stores}
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=2)
    for e, r in stores.items():
        print(f"{e}: JSONL {r['jsonl']['records_per_s']:,.0f} records/s, Parquet {r['parquet']['records_per_s']:,.0f} "
              f"records/s ({r['parquet_over_jsonl_records_per_s']:.2f}x); files {r['jsonl']['bytes_per_record']:.0f} "
              f"and {r['parquet']['bytes_per_record']:.0f} B a record" +
              (f"; baseline Parquet {r['parquet_baseline']['records_per_s']:,.0f} records/s "
               f"({r['parquet_over_baseline_records_per_s']:.2f}x)" if a.baseline else ""))


if __name__ == "__main__":
    main()
