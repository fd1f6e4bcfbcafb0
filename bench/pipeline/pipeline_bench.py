#!/usr/bin/env python3
"""The pipeline ceiling: qinfer serve with a no-op model, beside kcat.

Run through bench/pipeline/run.sh (see its header for the options). Builds
nothing: it runs an existing qinfer binary. Steps:

  1. a broker: $QINFER_BENCH_BROKERS, or its own (deploy/kafka-local.sh on a
     free port, with LogAppendTime timestamps), stopped at the end;
  2. a no-op TorchScript model (model/export_noop.py);
  3. N tiny jobs (1-4 token ids, seeded) published with `qinfer submit`;
  4. rounds of three arms on the same topic:
       kcat      kcat -C ... -e -o beginning -q | wc -l, timed from start to
                 exit (start-up and metadata included);
       storage   qinfer serve --idle-exit, results to RocksDB only;
       replies   the same plus a reply topic (every result published);
     each serve run reads the whole topic in a consumer group of its own,
     into a store of its own.
  5. medians and every run to a JSON file.

How a serve run is timed (model load, group join and the idle wait are
outside it): from the earliest job's arrival in the scheduler to the last
record, both read back from the records themselves. Every result stores
completed_at_ms (wall clock, when the batch's outputs were taken) and its
timings (queue_seconds: arrival to batch start; run_seconds: the forward).
  start = min(completed_at_ms - 1000 * (queue_seconds + run_seconds))
  end   = max(completed_at_ms) (storage); with replies also the broker's
          LogAppendTime of the last reply, whichever is later
  jobs_per_s = N / (end - start)
The serve log's summary line must show every job stored (and acked,
published) or the run fails.
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
from stamp import machine  # noqa: E402  (bench/common/stamp.py: the CPU's model name, as every bench stamps it)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def log(msg: str) -> None:
    print(f"pipeline-bench: {msg}", file=sys.stderr, flush=True)


def die(msg: str) -> None:
    log(f"error: {msg}")
    sys.exit(1)


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, **kw)


def gen_jobs(path: str, n: int, seed: int, vocab: int) -> int:
    import random
    rng = random.Random(seed)
    tokens = 0
    with open(path, "w") as f:
        for i in range(n):
            k = rng.randint(1, 4)
            tokens += k
            ids = ",".join(str(rng.randrange(vocab)) for _ in range(k))
            f.write(f'{{"id":"j{i:07d}","input_ids":[{ids}]}}\n')
    return tokens


WORDS = ("the service reads each job from the topic tokenizes its text with the model's own tokenizer "
         "and buckets it by length before one executor thread runs the batch on the device while results "
         "go to the store and replies are published to their topic when a reply is wanted").split()


def gen_text_jobs(path: str, texts_path: str, n: int, seed: int) -> None:
    """n text jobs of 8-40 words (the tokenizer pool's workload), and the
    same texts for tokenizer_bench's single-thread rate."""
    import random
    rng = random.Random(seed)
    with open(path, "w") as f, open(texts_path, "w") as g:
        for i in range(n):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
            f.write(json.dumps({"id": f"t{i:07d}", "text": text}) + "\n")
            g.write(json.dumps({"text": text}) + "\n")


def create_topics(brokers: str, topics: dict) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": brokers})
    futures = admin.create_topics([NewTopic(t, p, 1) for t, p in topics.items()])
    for t, fut in futures.items():
        fut.result(30)


def kcat_count(brokers: str, topic: str, fmt: str | None = None) -> tuple[float, list[str]]:
    """(seconds, lines) of kcat reading the whole topic."""
    cmd = ["kcat", "-C", "-b", brokers, "-t", topic, "-e", "-o", "beginning", "-q"]
    if fmt:
        cmd += ["-f", fmt]
    t0 = time.monotonic()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return time.monotonic() - t0, out.splitlines()


def kcat_rate(brokers: str, topic: str, n: int) -> dict:
    # As in the brief: kcat piped to wc -l, timed around the pipeline.
    t0 = time.monotonic()
    p = subprocess.run(f"kcat -C -b {brokers} -t {topic} -e -o beginning -q | wc -l",
                       shell=True, check=True, stdout=subprocess.PIPE, text=True)
    seconds = time.monotonic() - t0
    count = int(p.stdout.strip())
    if count != n:
        die(f"kcat read {count} messages of {n}")
    return {"messages": count, "seconds": round(seconds, 4), "msgs_per_s": round(n / seconds)}


def write_config(path: str, model: str, brokers: str, group: str, jobs_topic: str,
                 reply_topic: str, store: str, max_batch_size: int, threads: int,
                 tokenizer_threads: int = 0) -> None:
    with open(path, "w") as f:
        f.write(f"""model:
  path: {model}
  device: cpu
  threads: {threads}
tokenizer:
  threads: {tokenizer_threads}
kafka:
  brokers: {brokers}
  group_id: {group}
  jobs_topic: {jobs_topic}
  reply_topic: "{reply_topic}"
scheduler:
  max_batch_size: {max_batch_size}
storage:
  path: {store}
http:
  listen: ""
""")


def summary_fields(log_text: str, event: str = "summary") -> dict:
    marker = f"event={event} "
    for line in log_text.splitlines():
        if marker in line:
            fields = {}
            for part in line.split(marker, 1)[1].split():
                if "=" in part:
                    k, v = part.split("=", 1)
                    try:
                        fields[k] = float(v) if "." in v else int(v)
                    except ValueError:
                        fields[k] = v
            return fields
    return {}


def serve_once(a, work: str, brokers: str, jobs_topic: str, model: str, n: int, tag: str,
               reply_topic: str, tokenizer_threads: int = 0, sets: tuple = ()) -> dict:
    store = os.path.join(work, f"store-{tag}")
    cfg = os.path.join(work, f"serve-{tag}.yaml")
    write_config(cfg, model, brokers, f"bench-{tag}-{os.getpid()}", jobs_topic, reply_topic, store,
                 a.max_batch_size, a.threads, tokenizer_threads)
    logf = os.path.join(work, f"serve-{tag}.log")
    cmd = [a.qinfer, "serve", "-c", cfg, "--idle-exit", str(a.idle_exit)]
    for kv in [*a.set, *sets]:
        cmd += ["--set", kv]
    if a.perf:
        callgraph = os.environ.get("QINFER_PERF_CALLGRAPH", "-g").split()
        cmd = ["perf", "record", *callgraph, "-F", "999", "-o", os.path.join(work, f"perf-{tag}.data"), "--"] + cmd
    t0 = time.monotonic()
    with open(logf, "w") as lf:
        rc = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - t0
    text = open(logf).read()
    if rc != 0:
        sys.stderr.write(text[-3000:])
        die(f"serve ({tag}) exited {rc}; log {logf}")
    summ = summary_fields(text)
    want = {"stored": n, "acked": n, "jobs_run": n}
    if reply_topic:
        want["published"] = n
    for k, v in want.items():
        if summ.get(k) != v:
            die(f"serve ({tag}): summary {k}={summ.get(k)}, want {v}; log {logf}")
    # Read the records back.
    export = os.path.join(work, f"export-{tag}.jsonl")
    run([a.qinfer, "results", "-s", store, "--export", export], stderr=subprocess.DEVNULL)
    start = None
    end = 0
    last_arrival = 0
    count = 0
    queue_waits = []
    with open(export) as f:
        for line in f:
            r = json.loads(line)
            if r.get("status") != "ok":
                die(f"serve ({tag}): a record is not ok: {line[:200]}")
            count += 1
            t = r["timings"]
            queue_waits.append(t["queue_seconds"])
            arrived = r["completed_at_ms"] - 1000.0 * (t["queue_seconds"] + t["run_seconds"])
            start = arrived if start is None else min(start, arrived)
            last_arrival = max(last_arrival, arrived)
            end = max(end, r["completed_at_ms"])
    if count != n:
        die(f"serve ({tag}): {count} records, want {n}")
    res = {"store_last_ms": end}
    if reply_topic:
        _, lines = kcat_count(brokers, reply_topic, "%T\n")
        if len(lines) != n:
            die(f"serve ({tag}): {len(lines)} replies, want {n}")
        last_reply = max(int(x) for x in lines)
        res["last_reply_ms"] = last_reply
        end = max(end, last_reply)
    seconds = (end - start) / 1000.0
    res.update({
        "jobs": n,
        "seconds": round(seconds, 4),
        "jobs_per_s": round(n / seconds),
        "arrivals_per_s": round(n / max((last_arrival - start) / 1000.0, 1e-6)),
        "tail_ms": round(end - last_arrival, 1),
        "store_only_seconds": round((res["store_last_ms"] - start) / 1000.0, 4),
        "serve_wall_seconds": round(wall, 2),
        "stages": stages_of(text, n, queue_waits, res),
        "summary": summ,
    })
    if not a.keep:
        shutil.rmtree(store, ignore_errors=True)
        os.remove(export)
    return res


def single_thread_tokenizer(a, work: str, texts_file: str) -> dict:
    """tokenizer_bench's single-thread rate on the same texts."""
    out = os.path.join(work, "tokenizer.json")
    bench = os.path.join(os.path.dirname(a.qinfer), "bench", "tokenizer_bench")
    run([bench, "--tokenizer", os.path.join(REPO, "build", "minilm", "tokenizer.json"), "--texts", texts_file,
         "--rounds", "3", "--passes", "1", "--out", out], stdout=subprocess.DEVNULL)
    return json.load(open(out))


# Python `tokenizers` (the package the model's library runs; issue 31 measured its rate as the reference):
# Tokenizer.encode one text at a time on one thread, as a Python pipeline tokenizes, median of 3 passes.
PYTHON_TOKENIZERS = """
import json, statistics, sys, time
import tokenizers
from tokenizers import Tokenizer
tok = Tokenizer.from_file(sys.argv[1]); tok.no_padding(); tok.no_truncation()
texts = [json.loads(line)["text"] for line in open(sys.argv[2])]
rates = []
for _ in range(3):
    start = time.perf_counter()
    for text in texts:
        tok.encode(text)
    rates.append(len(texts) / (time.perf_counter() - start))
print(json.dumps({"texts_per_second": statistics.median(rates), "version": tokenizers.__version__}))
"""


def python_single_thread_tokenizer(a, texts_file: str) -> dict:
    """Python tokenizers' single-thread rate on the same texts."""
    out = run([a.python, "-c", PYTHON_TOKENIZERS, os.path.join(REPO, "build", "minilm", "tokenizer.json"),
               texts_file], stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def write_text_result(a, singles: list, text_runs: dict, started: float) -> None:
    rate = statistics.median(s["texts_per_second"] for s, _ in singles)
    python_rate = statistics.median(p["texts_per_second"] for _, p in singles)
    pools = {}
    for t, rs in text_runs.items():
        jobs_per_s = median([x["jobs_per_s"] for x in rs])
        pools[str(t)] = {
            "jobs_per_s": jobs_per_s,
            "stages": median_stages(rs),
            "target_jobs_per_s": round(0.8 * t * rate),
            "ratio_to_threads_x_single": round(statistics.median(x["ratio_to_threads_x_single"] for x in rs), 3),
            "ratio_to_threads_x_python_single": round(
                statistics.median(x["ratio_to_threads_x_python_single"] for x in rs), 3),
            "arrivals_per_s": median([x["arrivals_per_s"] for x in rs]),
            "arrivals_ratio_to_threads_x_single": round(
                statistics.median(x["arrivals_ratio_to_threads_x_single"] for x in rs), 3),
            "tail_ms": statistics.median(x["tail_ms"] for x in rs),
            "runs": rs,
        }
    result = {
        "workload": "text: 8-40 words a job, MiniLM's tokenizer, a no-op model, storage only",
        "jobs": a.jobs,
        "rounds": a.rounds,
        "single_thread_texts_per_s": round(rate),
        "single_thread_tokens_per_s": round(statistics.median(s["tokens_per_second"] for s, _ in singles)),
        "python_single_thread_texts_per_s": round(python_rate),
        "python_tokenizers_version": singles[0][1]["version"],
        "tokens": singles[0][0]["tokens"],
        "tokenizer_threads": pools,
        "cores": os.cpu_count(),
        "bench_seconds": round(time.monotonic() - started, 1),
        "date": datetime.date.today().isoformat(),
        "command": "bench/pipeline/run.sh --workload text " + f"--jobs {a.jobs} --rounds {a.rounds} "
                   f"--tokenizer-threads {a.tokenizer_threads}",
        "definitions": {
            "single_thread_texts_per_s": "bench/tokenizer_bench on the same texts, one thread (median of 3), "
                                         "measured right before each round's serve runs; here the median over "
                                         "rounds, in each run its round's: qinfer's own tokenizer library, the "
                                         "rate its pool's workers start from",
            "python_single_thread_texts_per_s": "Python tokenizers' Tokenizer.encode on the same texts, one text "
                                                "at a time on one thread (median of 3), measured the same way: "
                                                "the rate issue 31 quoted",
            "ratio_to_threads_x_single": "in a run, jobs_per_s / (tokenizer.threads x its round's "
                                         "single_thread_texts_per_s); for a pool, the median over its runs",
            "ratio_to_threads_x_python_single": "the same against python_single_thread_texts_per_s",
            "tokens": "tokens of the texts, special tokens included (tokenizer_bench)",
            "jobs_per_s": "median over rounds of jobs / (last record - first arrival in the scheduler)",
            "arrivals_per_s": "median over rounds of " + ARRIVALS_DEFINITION,
            "arrivals_ratio_to_threads_x_single": "arrivals_per_s / (tokenizer.threads x the round's "
                                                  "single_thread_texts_per_s), median over runs",
            "tail_ms": TAIL_DEFINITION,
            "target_jobs_per_s": "0.8 x tokenizer.threads x the single-thread rate (issue 31)",
            "stages": STAGES_DEFINITION,
        },
    }
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    log(f"wrote {a.out}")


ARRIVALS_DEFINITION = (
    "jobs / (last arrival in the scheduler - first): the rate the consumer (and the tokenizer pool) "
    "delivered jobs at, which is the steady rate of the whole pipeline while the scheduler's queue "
    "stays short (its peak is the summary's peak_queued)")
TAIL_DEFINITION = (
    "last record (or reply) - last arrival: mostly the last partial batches' wait, "
    "scheduler.max_batch_delay_ms (50 ms by default), which a finite run pays once")

STAGES_DEFINITION = (
    "per stage, median over rounds (serve's event=stage_summary and the records): "
    "decode_us_per_job (the tokenizer pool's busy time / jobs), queue_wait_ms_median "
    "(arrival in the scheduler to the batch's start), inference_us_per_job (forward "
    "passes / jobs), store_write_us_per_job (store writes / jobs), jobs_per_store_write, "
    "ack_us_per_job (the recorder marking offsets committable / jobs), offset_store_us_per_job "
    "(the consumer thread storing committable offsets for librdkafka's commit / jobs), offset_stores, "
    "job_latency_ms_mean (arrival to durable record), publish_tail_ms (replies: last "
    "reply after the last record); cpu_us_per_job_<stage>: CPU time of qinfer's threads of that "
    "stage per job (consumer, decode, executor, record, publish, lag, http; serve's "
    "event=thread_cpu_summary, the whole run including start-up), _other: the rest of the process "
    "(librdkafka, RocksDB, torch), _process: all of it")


def stages_of(log_text: str, n: int, queue_waits: list, res: dict) -> dict:
    """Where a run's time went, per job, from serve's event=stage_summary
    line and the records (docs/benchmarks/pipeline.md, "How a serve run is timed")."""
    st = summary_fields(log_text, "stage_summary")
    if not st:
        return {}
    stages = {
        "decode_us_per_job": round(1e6 * st["decode_seconds"] / n, 2),
        "queue_wait_ms_median": round(1000 * statistics.median(queue_waits), 2),
        "inference_us_per_job": round(1e6 * st["inference_seconds"] / n, 2),
        "store_write_us_per_job": round(1e6 * st["store_write_seconds"] / n, 2),
        "jobs_per_store_write": round(n / max(1, st["store_writes"]), 1),
        "job_latency_ms_mean": round(1000 * st["job_latency_seconds"] / n, 2),
    }
    if "ack_seconds" in st:  # not from a qinfer that predates these stages
        stages["ack_us_per_job"] = round(1e6 * st["ack_seconds"] / n, 3)
        stages["offset_store_us_per_job"] = round(1e6 * st["offset_store_seconds"] / n, 3)
        stages["offset_stores"] = int(st["offset_stores"])
    if "last_reply_ms" in res:
        stages["publish_tail_ms"] = res["last_reply_ms"] - res["store_last_ms"]
    # CPU per job by thread (serve's event=thread_cpu_summary): qinfer's
    # stage threads, and "other" (librdkafka, RocksDB, torch) = process - them.
    cpu = summary_fields(log_text, "thread_cpu_summary")
    if cpu:
        named = sum(v for k, v in cpu.items() if k != "process")
        for k, v in sorted(cpu.items()):
            if k != "process":
                stages[f"cpu_us_per_job_{k}"] = round(1e6 * v / n, 2)
        stages["cpu_us_per_job_other"] = round(1e6 * (cpu.get("process", named) - named) / n, 2)
        stages["cpu_us_per_job_process"] = round(1e6 * cpu.get("process", named) / n, 2)
    return stages


def median_stages(runs: list) -> dict:
    keys = runs[0].get("stages", {}).keys() if runs else []
    return {k: statistics.median(r["stages"][k] for r in runs if k in r["stages"]) for k in keys}


def median(xs):
    return round(statistics.median(xs)) if xs else None


def main() -> None:
    ap = argparse.ArgumentParser(description="qinfer's no-op pipeline ceiling beside kcat")
    ap.add_argument("--jobs", type=int, default=100000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "pipeline", "results", "pipeline.json"))
    ap.add_argument("--partitions", type=int, default=1, help="partitions of the jobs topic")
    ap.add_argument("--max-batch-size", type=int, default=64, help="scheduler.max_batch_size")
    ap.add_argument("--threads", type=int, default=1, help="model.threads")
    ap.add_argument("--idle-exit", type=int, default=1, help="serve --idle-exit seconds")
    ap.add_argument("--arms", default="kcat,storage,replies",
                    help="comma-separated subset of kcat,storage,replies")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a configuration key of every serve run (repeatable), e.g. kafka.producer.linger.ms=20")
    ap.add_argument("--dim", type=int, default=8, help="the no-op model's output width (384: MiniLM's)")
    ap.add_argument("--encodings", default="",
                    help="storage arm once per output.encoding in this list each round (e.g. float,base64), "
                         "side by side; JSON: encodings{name: {jobs_per_s, ratio_to_float, runs}}")
    ap.add_argument("--perf", action="store_true",
                    help="run each serve under `perf record -g` (data kept in the work dir)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--qinfer", default=os.environ.get("QINFER_BIN",
                                                       os.path.join(REPO, "build", "qinfer")))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--workload", choices=["ids", "text"], default="ids",
                    help="ids: 1-4 token ids a job; text: 8-40 words a job, tokenized by the service with "
                         "MiniLM's tokenizer (a no-op model that names it), storage only")
    ap.add_argument("--tokenizer-threads", default="1,2",
                    help="text: the tokenizer.threads values to run, side by side each round")
    a = ap.parse_args()
    arms = [x for x in a.arms.split(",") if x]
    if a.jobs < 1 or a.rounds < 1 or not set(arms) <= {"kcat", "storage", "replies"}:
        ap.error("need --jobs >= 1, --rounds >= 1 and arms from kcat,storage,replies")
    if not os.access(a.qinfer, os.X_OK):
        die(f"no qinfer binary at {a.qinfer} (build it, or set QINFER_BIN)")
    if shutil.which("kcat") is None:
        die("kcat not found (deploy/setup.sh installs it)")
    a.qinfer = os.path.abspath(a.qinfer)
    work = tempfile.mkdtemp(prefix="qinfer-pipebench-")
    started = time.monotonic()
    own_broker = None
    brokers = os.environ.get("QINFER_BENCH_BROKERS", "")
    try:
        if not brokers:
            own_broker = os.path.join(work, "kafka")
            env = dict(os.environ)
            # The broker's own append time on every message: when the last
            # reply landed, read back with kcat.
            env["QINFER_KAFKA_PROPS"] = (env.get("QINFER_KAFKA_PROPS", "") +
                                         "\nlog.message.timestamp.type=LogAppendTime").strip()
            log(f"starting a broker in {own_broker}")
            # auto: a free port pair, another if one is taken before the broker binds it.
            brokers = run([os.path.join(REPO, "deploy", "kafka-local.sh"), "start", own_broker, "auto"],
                          stdout=subprocess.PIPE, text=True, env=env).stdout.strip()
        stamp = f"{int(time.time())}-{os.getpid()}"
        jobs_topic = f"bench-pipeline-{stamp}"
        reply_topics = [f"{jobs_topic}-replies-{r}" for r in range(a.rounds)]
        create_topics(brokers, {jobs_topic: a.partitions, **{t: 1 for t in reply_topics}})

        model_dir = os.path.join(work, "model")
        export = [a.python, os.path.join(REPO, "model", "export_noop.py"), "--out", model_dir, "--dim", str(a.dim)]
        if a.workload == "text":
            export += ["--tokenizer", os.path.join(REPO, "build", "minilm", "tokenizer.json"), "--max-tokens", "128"]
        run(export, stdout=subprocess.DEVNULL)
        manifest = json.load(open(os.path.join(model_dir, "manifest.json")))

        jobs_file = os.path.join(work, "jobs.jsonl")
        if a.workload == "text":
            texts_file = os.path.join(work, "texts.jsonl")
            gen_text_jobs(jobs_file, texts_file, a.jobs, seed=1)
            tokens = None
        else:
            tokens = gen_jobs(jobs_file, a.jobs, seed=1, vocab=manifest["vocab_size"])
        t0 = time.monotonic()
        run([a.qinfer, "submit", "-b", brokers, "-t", jobs_topic, "--no-progress", jobs_file],
            stdout=subprocess.DEVNULL)
        submit_seconds = time.monotonic() - t0
        log(f"published {a.jobs} jobs" + (f" ({tokens} tokens)" if tokens else "") + f" in {submit_seconds:.1f} s")

        if a.workload == "text":
            pools = [int(x) for x in a.tokenizer_threads.split(",") if x]
            text_runs = {t: [] for t in pools}
            singles = []
            for r in range(a.rounds):
                # This machine's speed moves by half within an hour, so each round measures the
                # single-thread rates right before its serve runs, and each run is read against them.
                single = single_thread_tokenizer(a, work, texts_file)
                python_single = python_single_thread_tokenizer(a, texts_file)
                singles.append((single, python_single))
                log(f"round {r + 1} single-thread tokenizer: {single['texts_per_second']:.0f} texts/s "
                    f"({single['tokens_per_second']:.0f} tokens/s); Python tokenizers "
                    f"{python_single['version']}: {python_single['texts_per_second']:.0f} texts/s")
                for t in pools:
                    res = serve_once(a, work, brokers, jobs_topic, os.path.join(model_dir, "model.pt"), a.jobs,
                                     f"text-{t}-{r}", "", tokenizer_threads=t)
                    res["single_thread_texts_per_s"] = round(single["texts_per_second"])
                    res["python_single_thread_texts_per_s"] = round(python_single["texts_per_second"])
                    res["ratio_to_threads_x_single"] = round(res["jobs_per_s"] / (t * single["texts_per_second"]), 3)
                    res["ratio_to_threads_x_python_single"] = round(
                        res["jobs_per_s"] / (t * python_single["texts_per_second"]), 3)
                    res["arrivals_ratio_to_threads_x_single"] = round(
                        res["arrivals_per_s"] / (t * single["texts_per_second"]), 3)
                    text_runs[t].append(res)
                    log(f"round {r + 1} text, tokenizer.threads {t}: {res['jobs_per_s']} jobs/s "
                        f"({res['ratio_to_threads_x_single']} of threads x the single-thread tokenizer, "
                        f"{res['ratio_to_threads_x_python_single']} of threads x Python's); arrivals "
                        f"{res['arrivals_per_s']}/s ({res['arrivals_ratio_to_threads_x_single']}), "
                        f"tail {res['tail_ms']} ms")
            write_text_result(a, singles, text_runs, started)
            return
        runs = {arm: [] for arm in arms}
        encodings = [x for x in a.encodings.split(",") if x]
        by_encoding = {e: [] for e in encodings}
        for r in range(a.rounds):
            for e in encodings:
                by_encoding[e].append(serve_once(a, work, brokers, jobs_topic, os.path.join(model_dir, "model.pt"),
                                                 a.jobs, f"storage-{e}-{r}", "", sets=(f"output.encoding={e}",)))
                log(f"round {r + 1} storage only, output.encoding {e}: {by_encoding[e][-1]['jobs_per_s']} jobs/s")
            if "kcat" in arms:
                runs["kcat"].append(kcat_rate(brokers, jobs_topic, a.jobs))
                log(f"round {r + 1} kcat: {runs['kcat'][-1]['msgs_per_s']} msgs/s")
            if "storage" in arms:
                runs["storage"].append(serve_once(a, work, brokers, jobs_topic,
                                                  os.path.join(model_dir, "model.pt"), a.jobs,
                                                  f"storage-{r}", ""))
                log(f"round {r + 1} storage only: {runs['storage'][-1]['jobs_per_s']} jobs/s")
            if "replies" in arms:
                runs["replies"].append(serve_once(a, work, brokers, jobs_topic,
                                                  os.path.join(model_dir, "model.pt"), a.jobs,
                                                  f"replies-{r}", reply_topics[r]))
                log(f"round {r + 1} replies: {runs['replies'][-1]['jobs_per_s']} jobs/s")
    finally:
        if own_broker is not None:
            subprocess.run([os.path.join(REPO, "deploy", "kafka-local.sh"), "stop", own_broker],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if a.keep or a.perf:
            log(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    def commit() -> str:
        try:
            return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], check=True,
                                  stdout=subprocess.PIPE, text=True).stdout.strip()
        except (subprocess.CalledProcessError, FileNotFoundError):
            return ""

    result = {
        "jobs": a.jobs,
        "tokens": tokens,
        "rounds": a.rounds,
        "kcat_msgs_per_s": median([x["msgs_per_s"] for x in runs.get("kcat", [])]),
        "storage_only_jobs_per_s": median([x["jobs_per_s"] for x in runs.get("storage", [])]),
        "replies_jobs_per_s": median([x["jobs_per_s"] for x in runs.get("replies", [])]),
        "storage_stages": median_stages(runs.get("storage", [])),
        "replies_stages": median_stages(runs.get("replies", [])),
        "submit_seconds": round(submit_seconds, 2),
        "bench_seconds": round(time.monotonic() - started, 1),
        "runs": runs,
        "encodings": {e: {"jobs_per_s": median([x["jobs_per_s"] for x in by_encoding[e]]),
                          "runs": by_encoding[e]} for e in encodings},
        "setup": {
            "command": "bench/pipeline/run.sh " + " ".join(sys.argv[1:]),
            "qinfer": a.qinfer,
            "commit": commit(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(),
            "brokers": "own (deploy/kafka-local.sh)" if own_broker else "QINFER_BENCH_BROKERS",
            "partitions": a.partitions,
            "max_batch_size": a.max_batch_size,
            "model_threads": a.threads,
            "set": a.set,
            "model": {"name": manifest["name"], "digest": manifest["digest"], "dim": manifest["dim"]},
        },
        "definitions": {
            "kcat_msgs_per_s": "jobs / seconds of `kcat -C -e -o beginning -q | wc -l` on the jobs "
                               "topic, start-up included",
            "storage_only_jobs_per_s": "jobs / (last record's completed_at_ms - earliest arrival in "
                                       "the scheduler), results to RocksDB only",
            "replies_jobs_per_s": "the same with every result also published to a reply topic; the "
                                  "end is the later of the last record and the last reply's "
                                  "broker timestamp (LogAppendTime with the bench's own broker)",
            "arrival": "completed_at_ms - 1000 * (queue_seconds + run_seconds) of each record",
            "arrivals_per_s": "in each run, " + ARRIVALS_DEFINITION,
            "tail_ms": "in each run, " + TAIL_DEFINITION,
            "stages": STAGES_DEFINITION,
        },
    }
    if "float" in result["encodings"]:
        for e, v in result["encodings"].items():
            v["ratio_to_float"] = round(v["jobs_per_s"] / result["encodings"]["float"]["jobs_per_s"], 3)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    encoded = "".join(f", output.encoding {e} {v['jobs_per_s']} jobs/s" for e, v in result["encodings"].items())
    log(f"kcat {result['kcat_msgs_per_s']} msgs/s, storage only {result['storage_only_jobs_per_s']} "
        f"jobs/s, replies {result['replies_jobs_per_s']} jobs/s{encoded} (medians of {a.rounds}); "
        f"wrote {a.out} in {result['bench_seconds']} s")


if __name__ == "__main__":
    main()
