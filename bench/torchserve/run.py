#!/usr/bin/env python3
"""Replay a qinfer jobs file through a real TorchServe 0.12.0 and measure it.

Run with the TorchServe venv's python (bench/torchserve/setup.sh prints it):

    PY=$(bench/torchserve/setup.sh)
    $PY bench/torchserve/run.py --model models/tiny --jobs jobs.jsonl \\
        --batch-size 8 --threads 2 --out result.json [--rounds 1] [--concurrency N]

--jobs/--out may repeat (one result file per jobs file): the files are
replayed one after the other through one server start.

Steps: archive DIR/model.pt with bench/torchserve/handler.py
(torch-model-archiver, into a temp model store); start `torchserve --start
--ncs` with a config.properties for offline use on 127.0.0.1 (token auth
off, model API on, free ports, no system metrics); register the model through
the management API with one worker, batch_size B and max_batch_delay
(default 50 ms); warm it up; replay every line of the JSONL file as one POST
/predictions/qinfer, from --concurrency (default 2 x B) threads with
keep-alive connections; stop TorchServe and every process it started (also
on an error, SIGINT or SIGTERM).

The result JSON (--out, also printed):
  system               "torchserve-0.12.0"
  batch_size, max_batch_delay_ms, threads, concurrency, rounds
  jobs                 requests sent: lines of the file x rounds
  jobs_per_round       lines of the file
  ok                   200 replies naming the right job id
  errors               non-200 replies (and 200s naming another id)
  transport_errors     requests that got no HTTP reply (connection failures)
  lost                 jobs - ok
  wall_s               first send to last reply (median over rounds)
  jobs_per_s           ok / wall_s (median over rounds)
  real_tokens_per_s    sum of len(input_ids) over ok jobs / wall_s (median)
  padded_tokens_per_s  padded tokens / wall_s (median)
  padding_efficiency   real tokens / padded tokens, where a batch of B rows
                       padded to L counts B x L (each reply reports L; the
                       sum of L over the replies is the sum of B x L over
                       the batches) (median)
  p50_ms, p99_ms       per-request latency, send to reply, ok requests only
                       (median over rounds)
  batches, mean_batch  forwards seen in the replies, ok / batches (median)
  forward_s            time in the model's forward, summed over those
                       batches (the handler times it) (median)
  forward_share        forward_s / wall_s: the rest is TorchServe (HTTP,
                       frontend queue, batching delay, worker IPC, JSON,
                       padding) and the client (median)
  per_round            the same figures for each round
  host                 cpus and the 1-minute load average at start and end
                       (other work on the machine skews the figures)
  logs                 the directory holding TorchServe's logs
With --rounds K the server stays up between rounds; each round replays the
whole file.

Only the standard library is used here; torch runs inside TorchServe's worker.
"""

import argparse
import ctypes
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

SYSTEM = "torchserve-0.12.0"
MODEL_NAME = "qinfer"
HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    print(f"[torchserve-bench] {msg}", file=sys.stderr, flush=True)


class Failure(Exception):
    """A step of the benchmark failed; the message says which and why."""


# ---------------------------------------------------------------- jobs


def load_jobs(path):
    """[(body bytes, id, real tokens)] for every non-empty line, in file order."""
    jobs = []
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                job = json.loads(line)
                ids = job.get("input_ids")
                tokens = len(ids) if isinstance(ids, list) else 0
                job_id = job.get("id")
            except (ValueError, AttributeError):
                tokens, job_id = 0, None
            jobs.append((line, job_id if job_id is not None else f"line-{n}", tokens))
    if not jobs:
        raise Failure(f"no jobs in {path}")
    return jobs


def percentile(sorted_values, q):
    """Nearest-rank percentile of an ascending list; None when empty."""
    if not sorted_values:
        return None
    k = max(0, min(len(sorted_values) - 1, int(round(q / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


# ---------------------------------------------------------------- server


def free_ports(n):
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def write_config(path, ports, queue_size):
    inference, management, metrics, grpc_inference, grpc_management = ports
    props = {
        "inference_address": f"http://127.0.0.1:{inference}",
        "management_address": f"http://127.0.0.1:{management}",
        "metrics_address": f"http://127.0.0.1:{metrics}",
        # The gRPC servers always start in 0.12; keep them off the default
        # 7070/7071 so two runs (or a real TorchServe) do not collide.
        "grpc_inference_address": "127.0.0.1",
        "grpc_management_address": "127.0.0.1",
        "grpc_inference_port": grpc_inference,
        "grpc_management_port": grpc_management,
        # 0.12 turns token authorization on by default (every call would need
        # a key from key_file.json) and the model-control API off; this
        # benchmark registers its model through that API.
        "disable_token_authorization": "true",
        "enable_model_api": "true",
        # Offline: never pip-install a model's requirements.txt.
        "install_py_dep_per_model": "false",
        "default_workers_per_model": 1,
        # No periodic system-metrics subprocess (psutil every minute).
        "disable_system_metrics": "true",
        "metrics_mode": "log",
        # 2 cores: one netty boss/worker pair for HTTP, one client thread for
        # the backend socket (defaults are one per core each).
        "number_of_netty_threads": 2,
        "netty_client_threads": 1,
        # The frontend answers 503 once a model's queue holds this many
        # requests; more than the client ever has in flight.
        "job_queue_size": queue_size,
        "vmargs": "-Xmx1g -XX:+ExitOnOutOfMemoryError",
    }
    with open(path, "w") as f:
        for k, v in props.items():
            f.write(f"{k}={v}\n")


class TorchServe:
    """One TorchServe started in its own session, temp dir and ports.

    stop() is idempotent and leaves no process of that session behind.
    """

    def __init__(self, workdir, venv_bin, model_store, config, ports):
        self.workdir = workdir
        self.venv_bin = venv_bin
        self.model_store = model_store
        self.config = config
        self.inference_port, self.management_port = ports[0], ports[1]
        self.logs = os.path.join(workdir, "logs")
        self.tmp = os.path.join(workdir, "tmp")
        os.makedirs(self.logs, exist_ok=True)
        os.makedirs(self.tmp, exist_ok=True)
        self.env = dict(os.environ)
        # The launcher keeps its pid file in tempfile.gettempdir() and the
        # frontend puts its worker sockets and unpacked models in TEMP: both
        # private to this run.
        self.env.update(TMPDIR=self.tmp, TEMP=self.tmp, LOG_LOCATION=self.logs,
                        METRICS_LOCATION=self.logs)
        self.pgid = None
        self.java_pid = None

    def _torchserve(self, *args, **kw):
        return subprocess.Popen([os.path.join(self.venv_bin, "torchserve"), *args],
                                cwd=self.workdir, env=self.env, **kw)

    def start(self, timeout_s=120):
        out = open(os.path.join(self.logs, "torchserve-stdout.log"), "ab")
        # A session of its own: a terminal's Ctrl-C reaches only this script,
        # which then stops the server; and stop() can signal the whole group
        # (launcher, java frontend, python workers) at once.
        launcher = self._torchserve("--start", "--ncs", "--disable-token-auth",
                                    "--model-store", self.model_store,
                                    "--ts-config", self.config,
                                    stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        self.pgid = launcher.pid
        out.close()
        if launcher.wait(timeout=60) != 0:
            raise Failure(f"torchserve --start exited {launcher.returncode}; see {self.logs}")
        pid_file = os.path.join(self.tmp, ".model_server.pid")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.java_pid is None and os.path.exists(pid_file):
                with open(pid_file) as f:
                    self.java_pid = int(f.read().strip() or 0) or None
            if self.java_pid is not None and not pid_alive(self.java_pid):
                raise Failure(f"the TorchServe frontend (pid {self.java_pid}) died at start-up; "
                              f"see {self.logs}/ts_log.log and torchserve-stdout.log")
            try:
                status, _ = http_call("127.0.0.1", self.inference_port, "GET", "/ping", timeout=2)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.25)
        raise Failure(f"TorchServe did not answer /ping within {timeout_s} s; see {self.logs}")

    def register(self, mar, batch_size, max_batch_delay_ms, timeout_s=300):
        query = urllib.parse.urlencode({
            "url": mar, "model_name": MODEL_NAME, "batch_size": batch_size,
            "max_batch_delay": max_batch_delay_ms, "initial_workers": 1,
            "synchronous": "true"})
        status, body = http_call("127.0.0.1", self.management_port, "POST",
                                 f"/models?{query}", timeout=timeout_s)
        if status != 200:
            raise Failure(f"registering the model: HTTP {status}: {body[:500]!r}; "
                          f"see {self.logs}/model_log.log")
        # synchronous=true can answer a moment before the worker is marked
        # loaded (it then shows as "UNLOADING"): poll until it is READY.
        deadline = time.monotonic() + 60
        while True:
            status, body = http_call("127.0.0.1", self.management_port, "GET",
                                     f"/models/{MODEL_NAME}", timeout=30)
            if status != 200:
                raise Failure(f"describing the model: HTTP {status}: {body[:500]!r}")
            desc = json.loads(body)[0]
            workers = desc.get("workers", [])
            if desc.get("batchSize") != batch_size or desc.get("maxBatchDelay") != max_batch_delay_ms:
                raise Failure(f"the registered model is not what was asked for: {desc}")
            if len(workers) == 1 and workers[0].get("status") == "READY":
                return desc
            if time.monotonic() > deadline:
                raise Failure(f"the model's worker is not READY 60 s after registering: {desc}; "
                              f"see {self.logs}/model_log.log")
            time.sleep(0.2)

    def stop(self):
        if self.pgid is None:
            return
        try:
            stopper = self._torchserve("--stop", stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            msg = stopper.communicate(timeout=60)[0].decode(errors="replace").strip()
            log(f"torchserve --stop: {msg}")
        except (OSError, subprocess.TimeoutExpired) as e:
            log(f"torchserve --stop failed ({e}); signalling its processes")
        # --stop sends SIGTERM to the frontend, which stops its workers on the
        # way out; whatever of the session is still there after that is
        # terminated, then killed.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and group_alive(self.pgid):
            time.sleep(0.2)
        for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            if not group_alive(self.pgid):
                break
            log(f"processes of the TorchServe session {self.pgid} still alive; sending {sig.name}")
            try:
                os.killpg(self.pgid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline and group_alive(self.pgid):
                time.sleep(0.2)
        if group_alive(self.pgid):
            log(f"WARNING: processes of session {self.pgid} survived SIGKILL")
        reap_children()
        self.pgid = None


def become_subreaper():
    """Orphans of this process (the java frontend, once the launcher exits)
    become its children, so reap_children() can collect them; otherwise they
    linger as zombies until PID 1 reaps them. Linux only; best effort."""
    try:
        PR_SET_CHILD_SUBREAPER = 36
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def reap_children(timeout_s=15):
    """Waits for this process's children (orphans it adopted) to be reaped.

    A frontend whose main thread has exited shows as a zombie while its other
    threads still wind down; it can only be reaped after they have.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                log("WARNING: a child of this process is still not reapable")
                return
            time.sleep(0.1)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped by its parent) is not alive.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def group_alive(pgid):
    """Whether any live (non-zombie) process is in process group pgid."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def http_call(host, port, method, path, body=None, timeout=30):
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request(method, path, body=body)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def archive(model_dir, workdir, threads):
    """Builds qinfer.mar in workdir/model-store; returns the store's path."""
    model_pt = os.path.join(model_dir, "model.pt")
    if not os.path.isfile(model_pt):
        raise Failure(f"no model.pt in {model_dir}")
    store = os.path.join(workdir, "model-store")
    os.makedirs(store, exist_ok=True)
    config = os.path.join(workdir, "model-config.yaml")
    with open(config, "w") as f:
        # Read by the handler (context.model_yaml_config). Batching is set by
        # the register call, not here.
        f.write(f"handler:\n  threads: {threads}\n")
    cmd = [os.path.join(os.path.dirname(sys.executable), "torch-model-archiver"),
           "--model-name", MODEL_NAME, "--version", "1.0",
           "--serialized-file", model_pt,
           "--handler", os.path.join(HERE, "handler.py"),
           "--config-file", config,
           "--export-path", store, "--force"]
    manifest = os.path.join(model_dir, "manifest.json")
    if os.path.isfile(manifest):
        cmd += ["--extra-files", manifest]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        raise Failure(f"torch-model-archiver failed: {proc.stdout.decode(errors='replace')}")
    return store


# ---------------------------------------------------------------- client


def replay(port, jobs, concurrency, timeout_s=300):
    """Sends every job once from `concurrency` keep-alive connections.

    Returns one record per job: (status or None, latency s, reply dict or None).
    """
    records = [None] * len(jobs)
    next_index = [0]
    lock = threading.Lock()
    path = f"/predictions/{MODEL_NAME}"
    headers = {"Content-Type": "application/json"}

    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout_s)
        try:
            while True:
                with lock:
                    i = next_index[0]
                    if i >= len(jobs):
                        return
                    next_index[0] = i + 1
                body = jobs[i][0]
                t0 = time.perf_counter()
                try:
                    conn.request("POST", path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    status = resp.status
                except (OSError, http.client.HTTPException):
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout_s)
                    records[i] = (None, time.perf_counter() - t0, None)
                    continue
                latency = time.perf_counter() - t0
                reply = None
                if status == 200:
                    try:
                        reply = json.loads(data)
                    except ValueError:
                        reply = None
                records[i] = (status, latency, reply)
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return records, wall


def summarize(jobs, records, wall):
    ok = errors = transport = 0
    real = padded = 0
    latencies = []
    batches = {}
    threads_seen = set()
    for (_, job_id, tokens), (status, latency, reply) in zip(jobs, records):
        if status is None:
            transport += 1
            continue
        if status != 200 or not isinstance(reply, dict) or reply.get("id") != job_id:
            errors += 1
            continue
        ok += 1
        real += tokens
        padded += int(reply["padded_length"])
        latencies.append(latency)
        batches[reply.get("batch")] = float(reply.get("forward_ms") or 0.0)
        threads_seen.add(reply.get("threads"))
    forward = sum(batches.values()) / 1000.0
    latencies.sort()
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    return {
        "jobs": len(jobs), "ok": ok, "errors": errors, "transport_errors": transport,
        "lost": len(jobs) - ok,
        "wall_s": round(wall, 3),
        "jobs_per_s": round(ok / wall, 2) if wall > 0 else None,
        "real_tokens": real, "padded_tokens": padded,
        "real_tokens_per_s": round(real / wall, 1) if wall > 0 else None,
        "padded_tokens_per_s": round(padded / wall, 1) if wall > 0 else None,
        "padding_efficiency": round(real / padded, 4) if padded else None,
        "p50_ms": round(p50 * 1000, 2) if p50 is not None else None,
        "p99_ms": round(p99 * 1000, 2) if p99 is not None else None,
        "batches": len(batches),
        "mean_batch": round(ok / len(batches), 2) if batches else None,
        "forward_s": round(forward, 3),
        "forward_share": round(forward / wall, 4) if wall > 0 else None,
        "worker_threads": sorted(t for t in threads_seen if t is not None),
    }


def median_of(rounds, key):
    values = [r[key] for r in rounds if r[key] is not None]
    return round(statistics.median(values), 4) if values else None


# ---------------------------------------------------------------- main


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="directory with model.pt (and manifest.json)")
    ap.add_argument("--jobs", required=True, action="append",
                    help="JSONL file, one job per line; repeat it (with as many --out) to replay several "
                         "files through one server start, one after the other")
    ap.add_argument("--batch-size", type=int, required=True, help="TorchServe batch_size")
    ap.add_argument("--threads", type=int, default=2, help="torch intra-op threads in the worker")
    ap.add_argument("--out", required=True, action="append", help="result JSON file, one per --jobs")
    ap.add_argument("--rounds", type=int, default=1, help="replays of the whole file")
    ap.add_argument("--concurrency", type=int,
                    help="requests in flight (default and minimum advised: 2 x batch size)")
    ap.add_argument("--max-batch-delay-ms", type=int, default=50)
    ap.add_argument("--warmup", type=int, help="warm-up requests, not measured (default 4 x batch size)")
    ap.add_argument("--keep-model-store", action="store_true",
                    help="keep the archive and unpacked model in the temp dir (only logs are kept otherwise)")
    args = ap.parse_args(argv)
    if args.batch_size < 1 or args.threads < 1 or args.rounds < 1 or args.max_batch_delay_ms < 0:
        ap.error("--batch-size, --threads and --rounds must be >= 1, --max-batch-delay-ms >= 0")
    if args.concurrency is None:
        args.concurrency = 2 * args.batch_size
    if args.concurrency < 1:
        ap.error("--concurrency must be >= 1")
    if args.warmup is None:
        args.warmup = 4 * args.batch_size
    if len(args.jobs) != len(args.out):
        ap.error(f"{len(args.jobs)} --jobs but {len(args.out)} --out: give one result file per jobs file")
    return args


def main(argv):
    args = parse_args(argv)
    if args.concurrency < 2 * args.batch_size:
        log(f"warning: concurrency {args.concurrency} < 2 x batch size: batches will not stay full")
    job_sets = [load_jobs(path) for path in args.jobs]
    jobs = job_sets[0]
    venv_bin = os.path.dirname(sys.executable)
    if not os.path.exists(os.path.join(venv_bin, "torchserve")):
        raise Failure(f"no torchserve next to {sys.executable}: run this with the python that "
                      "bench/torchserve/setup.sh prints")

    # Short path: the worker's unix socket lives under it (108-byte limit).
    workdir = tempfile.mkdtemp(prefix="qinfer-ts-")
    log(f"logs and config in {workdir} (TorchServe logs: {workdir}/logs)")
    ports = free_ports(5)
    config = os.path.join(workdir, "config.properties")
    write_config(config, ports, queue_size=max(100, 2 * args.concurrency))
    store = archive(args.model, workdir, args.threads)

    become_subreaper()
    server = TorchServe(workdir, venv_bin, store, config, ports)
    # The handler is told its threads by the archive's model config; a
    # QINFER_TS_THREADS in this environment would override --threads.
    server.env.pop("QINFER_TS_THREADS", None)
    server.env["OMP_NUM_THREADS"] = str(args.threads)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    # SIGINT too, explicitly: a shell starts background jobs with SIGINT
    # ignored, and Python then installs no KeyboardInterrupt handler.
    stop_signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in stop_signals:
        signal.signal(sig, on_signal)

    per_set = [[] for _ in job_sets]
    load_start = os.getloadavg()[0]
    try:
        t0 = time.monotonic()
        server.start()
        log(f"TorchServe up in {time.monotonic() - t0:.1f} s "
            f"(inference 127.0.0.1:{ports[0]}, management 127.0.0.1:{ports[1]})")
        t0 = time.monotonic()
        server.register(f"{MODEL_NAME}.mar", args.batch_size, args.max_batch_delay_ms)
        log(f"model registered, one worker READY in {time.monotonic() - t0:.1f} s "
            f"(batch_size={args.batch_size} max_batch_delay={args.max_batch_delay_ms} ms)")
        if args.warmup:
            warm = [jobs[i % len(jobs)] for i in range(args.warmup)]
            records, wall = replay(ports[0], warm, args.concurrency)
            bad = [r for r in records if r[0] != 200]
            log(f"warm-up: {len(warm)} requests in {wall:.2f} s, {len(bad)} not 200")
            if len(bad) == len(warm):
                raise Failure(f"every warm-up request failed (first: HTTP {bad[0][0]}); "
                              f"see {workdir}/logs/model_log.log")
        for path, jobs, per_round in zip(args.jobs, job_sets, per_set):
            for r in range(args.rounds):
                records, wall = replay(ports[0], jobs, args.concurrency)
                summary = summarize(jobs, records, wall)
                per_round.append(summary)
                log(f"{os.path.basename(path)} round {r + 1}/{args.rounds}: {summary['ok']}/{summary['jobs']} ok in "
                    f"{summary['wall_s']} s, {summary['jobs_per_s']} jobs/s, "
                    f"{summary['real_tokens_per_s']} tokens/s, padding efficiency "
                    f"{summary['padding_efficiency']}, p50 {summary['p50_ms']} ms, "
                    f"p99 {summary['p99_ms']} ms, {summary['batches']} batches")
    finally:
        # A second Ctrl-C must not cut the clean-up short.
        for sig in stop_signals:
            signal.signal(sig, signal.SIG_IGN)
        server.stop()
        if not args.keep_model_store:
            shutil.rmtree(store, ignore_errors=True)
            shutil.rmtree(server.tmp, ignore_errors=True)

    lost = 0
    for path, jobs, per_round, out in zip(args.jobs, job_sets, per_set, args.out):
        lost += write_result(args, path, jobs, per_round, out, load_start, workdir)
    return 0 if lost == 0 else 1


def write_result(args, path, jobs, per_round, out, load_start, workdir):
    """Writes (and prints) one jobs file's result JSON; returns its lost jobs."""
    worker_threads = sorted({t for s in per_round for t in s["worker_threads"]})
    if worker_threads and worker_threads != [args.threads]:
        raise Failure(f"the worker ran {worker_threads} intra-op threads, not {args.threads}")
    result = {
        "system": SYSTEM,
        "batch_size": args.batch_size,
        "max_batch_delay_ms": args.max_batch_delay_ms,
        "threads": args.threads,
        "concurrency": args.concurrency,
        "rounds": args.rounds,
        "jobs": sum(s["jobs"] for s in per_round),
        "jobs_per_round": len(jobs),
        "ok": sum(s["ok"] for s in per_round),
        "errors": sum(s["errors"] for s in per_round),
        "transport_errors": sum(s["transport_errors"] for s in per_round),
        "lost": sum(s["lost"] for s in per_round),
    }
    for key in ("wall_s", "jobs_per_s", "real_tokens_per_s", "padded_tokens_per_s",
                "padding_efficiency", "p50_ms", "p99_ms", "batches", "mean_batch",
                "forward_s", "forward_share"):
        result[key] = median_of(per_round, key)
    result["per_round"] = per_round
    # Other load on the machine skews every figure above; say how much there was.
    result["host"] = {"cpus": os.cpu_count(), "loadavg_1m_start": round(load_start, 2),
                      "loadavg_1m_end": round(os.getloadavg()[0], 2)}
    result["logs"] = os.path.join(workdir, "logs")
    result["jobs_file"] = os.path.abspath(path)
    text = json.dumps(result, indent=2)
    out_dir = os.path.dirname(os.path.abspath(out))
    os.makedirs(out_dir, exist_ok=True)
    with open(out + ".tmp", "w") as f:
        f.write(text + "\n")
    os.replace(out + ".tmp", out)
    print(text)
    return result["lost"]


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Failure as e:
        log(f"error: {e}")
        sys.exit(2)
    except KeyboardInterrupt as e:
        log(f"interrupted ({e or 'SIGINT'}); TorchServe stopped")
        sys.exit(130)
