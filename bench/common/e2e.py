#!/usr/bin/env python3
"""End to end: the same jobs through the whole service (broker, consumer,
scheduler, executor, RocksDB), for comparison with policy_bench's
executor-only figures on the same jobs, model, device and threads.

    bench/common/e2e.py --qinfer build/qinfer --brokers HOST:PORT --kafka-dir DIR \
        --model DIR --jobs FILE.jsonl --workload NAME --out FILE.json \
        [--device cpu-budget:256MiB] [--threads 2] [--max-padding 0.08] [--replies]
        [--rounds R] [--warm-rounds W] [--store DIR] [--autocast bf16] [--model-file model.pt]
        [--embeddings FILE.jsonl] [--set KEY=VALUE] [--logs DIR]

The jobs are published first (a backlog, as offline work has), then
`qinfer serve` runs until every job has its record (--idle-exit). Timed from
the start of the first batch to the last durable result, both taken from the
records (results --summary counts the same way): model loading and
calibration are outside it, as they are for policy_bench. Latency per job is
its queue plus run time from its record (the time in Kafka before the
consumer read it is not in it). Standard library only.

Without --warm-rounds each round is a fresh `serve` process (a restarted
service: its first batches of every shape pay for graph optimisation and
kernel set-up). With --warm-rounds W one `serve` process takes W + R passes
over the jobs, each published once the last is durable (polled on /status),
with ids suffixed ~TAGpK, and the R passes after the W warm ones are reported:
a service that has been running, measured as policy_bench measures the
executor (--warmup-rounds). The first pass is kept as "cold".
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def percentile(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(p * (len(values) - 1) + 0.5))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qinfer", default="build/qinfer")
    ap.add_argument("--brokers", required=True)
    ap.add_argument("--kafka-dir", required=True, help="the broker's deploy/kafka-local.sh directory")
    ap.add_argument("--model", required=True, help="directory with model.pt and manifest.json")
    ap.add_argument("--jobs", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cpu-budget:256MiB")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-padding", type=float, default=0.08)
    ap.add_argument("--rounds", type=int, default=1, help="serve runs over the same jobs; the median is reported")
    ap.add_argument("--warm-rounds", type=int, default=0,
                    help="one serve process for every round, after W passes that are not reported (default 0: a "
                         "fresh process per round)")
    ap.add_argument("--replies", action="store_true", help="also publish every result to a reply topic")
    ap.add_argument("--autocast", default="", help="model.autocast (bf16 | fp16; default: none, float32)")
    ap.add_argument("--model-file", default="model.pt", help="the model file inside --model (model.path)")
    ap.add_argument("--embeddings", help="write every job's output of the last round here, one "
                                         "{\"id\", \"output\"} per line")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="one more config key for serve (repeatable), after the bench's own")
    ap.add_argument("--logs", help="keep every serve log in this directory (serve-WORKLOAD-N.log)")
    ap.add_argument("--store", help="the result store to use and keep (its memory plan is reused by the next "
                                    "run); default: a temporary one")
    a = ap.parse_args()

    with open(a.jobs) as f:
        lines = [line for line in f if line.strip()]
    jobs = {json.loads(line)["id"] for line in lines}  # input_ids or text jobs
    work = tempfile.mkdtemp(prefix="qinfer-e2e-")
    cold = None
    try:
        # The first round calibrates (unless --store holds a plan) and later
        # rounds reuse its plan, as a restarted service would.
        store = a.store or os.path.join(work, "store")
        if a.warm_rounds > 0:
            passes = one_process(a, lines, jobs, store, work)
            cold, rounds = passes[0], passes[a.warm_rounds:]
        else:
            rounds = [one_round(a, lines, jobs, store, work, index) for index in range(a.rounds)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ranked = sorted(rounds, key=lambda r: r["real_tokens_per_s"])
    report = dict(ranked[(len(ranked) - 1) // 2])  # the median round (the lower one of an even count)
    keys = ("real_tokens_per_s", "jobs_per_s", "wall_s", "p50_ms", "p99_ms", "lost")
    report["rounds"] = [{k: r[k] for k in keys} for r in rounds]
    report["lost"] = max(r["lost"] for r in rounds)
    report["warm_rounds"] = a.warm_rounds
    if cold is not None:
        report["cold"] = {k: cold[k] for k in keys}
    with open(a.out, "w") as f:
        json.dump(report, f, indent=2)
    print(f"e2e.py: {a.workload}: {report['real_tokens_per_s']:.0f} tok/s, {report['jobs_per_s']:.1f} jobs/s, "
          f"padding {report['padding_efficiency']:.3f}, lost {report['lost']} (median of {len(rounds)}"
          f"{f' after {a.warm_rounds} warm' if a.warm_rounds else ''}) -> {a.out}",
          file=sys.stderr)


def kafka_local():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(repo, "deploy", "kafka-local.sh")


def serve_command(a, tag, topic, replies, store, extra=()):
    sets = {"model.path": os.path.join(os.path.abspath(a.model), a.model_file), "model.device": a.device,
            "model.autocast": a.autocast,
            "model.threads": str(a.threads), "kafka.brokers": a.brokers, "kafka.group_id": f"bench-{tag}",
            "kafka.jobs_topic": topic, "kafka.reply_topic": replies if a.replies else "",
            "kafka.dead_letter_topic": "", "storage.path": store, "http.listen": "",
            "scheduler.max_padding": str(a.max_padding)}
    sets.update(extra)
    cmd = [a.qinfer, "serve", "--idle-exit", "3"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    for kv in a.set:
        cmd += ["--set", kv]
    return cmd


def fresh_topics(a):
    tag = f"{a.workload}-{int(time.time() * 1000)}"
    topic, replies = f"bench-{tag}", f"bench-{tag}-results"
    run([kafka_local(), "create-topic", a.kafka_dir, topic, "3", replies, "3"], stdout=subprocess.DEVNULL)
    return tag, topic, replies


def keep_log(a, log_path, name):
    if a.logs:
        os.makedirs(a.logs, exist_ok=True)
        shutil.copy(log_path, os.path.join(a.logs, f"serve-{a.workload}-{name}.log"))


def stored_records(a, store):
    export = subprocess.run([a.qinfer, "results", "--store", store, "--export", "-"], check=True,
                            capture_output=True, text=True).stdout
    return [json.loads(line) for line in export.splitlines() if line.strip()]


def renamed(lines, suffix):
    """The jobs of `lines` with `suffix` on every id, as JSONL."""
    out = []
    for line in lines:
        job = json.loads(line)
        job["id"] += suffix
        out.append(json.dumps(job) + "\n")
    return "".join(out)


def one_round(a, lines, jobs, store, work, index):
    """Publishes the jobs to a fresh topic and serves them with a fresh group
    into `store`; returns the figures of this round's records."""
    tag, topic, replies = fresh_topics(a)
    # Ids of this round only (~TAGp0): a reused store holds earlier rounds'
    # records, and a job whose id has one costs serve a read and parse of it.
    path = os.path.join(work, f"round-{index}.jsonl")
    with open(path, "w") as f:
        f.write(renamed(lines, f"~{tag}p0"))
    run([a.qinfer, "submit", "--brokers", a.brokers, "--topic", topic, path], stdout=subprocess.DEVNULL)
    log_path = os.path.join(work, f"serve-{index}.log")
    with open(log_path, "w") as log:
        rc = subprocess.run(serve_command(a, tag, topic, replies, store), stdout=log,
                            stderr=subprocess.STDOUT).returncode
    keep_log(a, log_path, str(index + 1))
    if rc != 0:
        sys.stderr.write(open(log_path).read()[-4000:])
        sys.exit(f"e2e.py: qinfer serve exited {rc}")
    records = records_by_pass(a, store, jobs, tag, 1)[0]
    report = figures(a, jobs, records, f"round {index + 1}/{a.rounds}")
    if a.embeddings and index == a.rounds - 1:
        write_embeddings(a.embeddings, records)
    return report


def records_by_pass(a, store, jobs, tag, passes):
    """The store's records of this run's passes 0..passes-1 (ids ~TAGpK), one
    list per pass, each record under its job's own id."""
    by_pass = [[] for _ in range(passes)]
    for r in stored_records(a, store):
        base, _, k = r["id"].rpartition(f"~{tag}p")
        if base in jobs and k.isdigit() and int(k) < passes:
            r["id"] = base
            by_pass[int(k)].append(r)
    return by_pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def durable_records(port):
    """Records made durable by the serve on `port` so far (its /status), or None."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=2) as r:
            return sum(json.load(r)["records"].values())
    except (OSError, ValueError, KeyError):
        return None


def one_process(a, lines, jobs, store, work):
    """W + R passes over the jobs through one serve process: pass K's jobs
    (ids suffixed ~TAGpK, this run's alone) are published once every earlier pass is durable, by
    one `qinfer submit -` started before serve and ended after it (so that
    neither its start-up, 0.4 s of CPU, nor its exit is in a pass's
    window). Returns each pass's figures."""
    passes = a.warm_rounds + a.rounds
    tag, topic, replies = fresh_topics(a)
    pass_lines = lambda k: renamed(lines, f"~{tag}p{k}")

    submit = subprocess.Popen([a.qinfer, "submit", "--no-progress", "--brokers", a.brokers, "--topic", topic, "-"],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    submit.stdin.write(pass_lines(0))
    submit.stdin.flush()
    port = free_port()
    log_path = os.path.join(work, "serve.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(serve_command(a, tag, topic, replies, store, {"http.listen": f"127.0.0.1:{port}"}),
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            for k in range(1, passes):
                # Four polls a second: at twenty, this poller and serve's HTTP
                # thread answering it took 1.2% of a 2-core machine's samples
                # (perf record -a) inside the pass being timed. The wait only
                # adds idle time between passes, which no pass's window holds.
                while (durable_records(port) or 0) < k * len(jobs):
                    if proc.poll() is not None:
                        break
                    time.sleep(0.25)
                if proc.poll() is not None:
                    break
                submit.stdin.write(pass_lines(k))
                submit.stdin.flush()
            # submit's stdin stays open until serve has exited: a `qinfer
            # submit` that ends tears libtorch down (tens of ms of CPU),
            # which would otherwise fall inside the last pass's window.
            # librdkafka sends what it was given within linger.ms anyway.
            rc = proc.wait()
            submit.stdin.close()
            if submit.wait() != 0:
                sys.exit(f"e2e.py: qinfer submit exited {submit.returncode}")
        finally:
            for p in (proc, submit):
                if p.poll() is None:
                    p.kill()
    keep_log(a, log_path, "passes")
    if rc != 0:
        sys.stderr.write(open(log_path).read()[-4000:])
        sys.exit(f"e2e.py: qinfer serve exited {rc}")
    by_pass = records_by_pass(a, store, jobs, tag, passes)
    reports = []
    for k, records in enumerate(by_pass):
        name = f"pass {k + 1}/{passes} ({'warm-up' if k < a.warm_rounds else 'reported'})"
        reports.append(figures(a, jobs, records, name))
    if a.embeddings:
        write_embeddings(a.embeddings, by_pass[-1])
    return reports


def write_embeddings(path, records):
    with open(path, "w") as f:
        for r in records:
            if r.get("status") == "ok":
                f.write(json.dumps({"id": r["id"], "output": r["output"]}) + "\n")


def figures(a, jobs, records, name):
    """One round's figures from its records (ids without pass suffixes)."""
    ok = [r for r in records if r.get("status") == "ok"]
    if not ok:
        sys.exit(f"e2e.py: {a.workload}: {name} stored no result")
    first = min(r["completed_at_ms"] - 1000 * r["timings"]["run_seconds"] for r in ok)
    last = max(r["completed_at_ms"] for r in ok)
    wall = max(1e-3, (last - first) / 1000.0)
    real = sum(r["input_length"] for r in ok)
    padded = sum(r["padded_length"] for r in ok)
    latencies = [1000 * (r["timings"]["queue_seconds"] + r["timings"]["run_seconds"]) for r in ok]
    seen = {r["id"] for r in records}
    report = {
        "workload": a.workload, "system": "qinfer serve", "replies": a.replies, "device": a.device,
        "autocast": a.autocast,
        "threads": a.threads, "jobs": len(jobs), "ok": len(ok), "failed": len(records) - len(ok),
        "lost": sum(1 for j in jobs if j not in seen), "wall_s": wall,
        "real_tokens": real, "padded_tokens": padded,
        "padding_efficiency": real / padded if padded else 0.0,
        "real_tokens_per_s": real / wall, "jobs_per_s": len(ok) / wall,
        "p50_ms": percentile(latencies, 0.5), "p99_ms": percentile(latencies, 0.99),
    }
    print(f"e2e.py: {a.workload} {name}: {report['real_tokens_per_s']:.0f} tok/s, lost {report['lost']}",
          file=sys.stderr)
    return report


if __name__ == "__main__":
    main()
