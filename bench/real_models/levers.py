#!/usr/bin/env python3
"""Side by side: qinfer's executor on MiniLM in several configurations, the
rounds alternating, so that a lever (an export option, a precision) is
measured against its baseline in the same minutes on the same machine.

    .venv/bin/python bench/real_models/levers.py --texts DIR --out FILE.json \\
        --config TAG=MODEL_DIR[,file=F][,autocast=bf16][,env=NAME:VALUE][,set=KEY:VALUE][,bin=DIR][,load=B:P]... \\
        [--config ...] \\
        [--profiles short,paragraphs,long] [--rounds 3] [--threads 2] \\
        [--device cpu-budget:4GiB] [--bin build] [--plans DIR] \
        [--serve --brokers HOST:PORT --kafka-dir KDIR]

DIR holds bench/real_models/texts.py's P.jobs.jsonl (and P.textjobs.jsonl). Each round runs every
configuration once per profile (build/bench/policy_bench --policies qinfer
--rounds 1 --warmup-rounds 2: a fresh process, two untimed rounds, one timed),
in the order given, then the next round; env=NAME:VALUE (repeatable) sets an
environment variable for that configuration's processes (OMP_WAIT_POLICY:
PASSIVE, say); set=KEY:VALUE (repeatable) sets a configuration key of its
serve runs (tokenizer.threads:2, say; the executor-only run has no such
keys, except model.mkl_dispatch, which policy_bench takes as
--mkl-dispatch); bin=DIR runs that configuration with DIR's qinfer and
bench/policy_bench instead of --bin's, so that two builds are compared side
by side; load=BUSY_US:PERIOD_US runs a process beside that configuration's
runs that keeps one thread busy BUSY_US of every PERIOD_US (1000:20000: 5%
of a core), standing for the service's other threads, so that what a little
work beside the forward pass costs it is measured (the report has the
load's CPU share of one core per run). A configuration's memory plan is
cached in --plans (default ~/.cache/qinfer/bench-minilm/levers) by its tag,
so only its first run calibrates. FILE.json holds every round, the median
real tokens/s and jobs/s per configuration and profile, and each median over
the first configuration's (the baseline). The first configuration's outputs
are the reference of a min cosine per configuration and profile.

--serve adds, in each round right after a configuration's executor run,
`qinfer serve` end to end on the same texts as text jobs (bench/common/e2e.py
--rounds 1 --warm-rounds 2: one serve process, two untimed passes, one
timed), against a running broker (deploy/kafka-local.sh start KDIR PORT);
each configuration keeps its store (and so its plan) in --plans. The report
then also has serve's medians and serve over executor per configuration and
profile.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time


def parse_config(text):
    tag, _, rest = text.partition("=")
    parts = rest.split(",")
    config = {"tag": tag, "model": os.path.abspath(parts[0]), "file": None, "autocast": "", "env": {}, "set": {},
              "bin": None, "load": None}
    for part in parts[1:]:
        key, _, value = part.partition("=")
        if key in ("env", "set") and ":" in value:
            name, _, setting = value.partition(":")
            config[key][name] = setting
        elif key in ("file", "autocast"):
            config[key] = value
        elif key == "bin":
            config[key] = os.path.abspath(value)
        elif key == "load":
            busy, _, period = value.partition(":")
            if not (busy.isdigit() and period.isdigit() and 0 < int(busy) < int(period)):
                raise argparse.ArgumentTypeError(f"--config {text}: load={value}: expected BUSY_US:PERIOD_US, "
                                                 "0 < BUSY_US < PERIOD_US (1000:20000)")
            config[key] = [int(busy), int(period)]
        else:
            raise argparse.ArgumentTypeError(f"--config {text}: unknown key '{key}' (file, autocast, env=NAME:VALUE, "
                                             "set=KEY:VALUE, bin, load=BUSY_US:PERIOD_US)")
    if not tag or not parts[0]:
        raise argparse.ArgumentTypeError(f"--config {text}: expected TAG=MODEL_DIR[,file=F][,autocast=bf16]")
    if config["file"] is None:
        manifest = json.load(open(os.path.join(config["model"], "manifest.json")))
        config["file"] = ("model.pt" if manifest.get("format", "torchscript") == "torchscript"
                          else manifest["packages"]["cpu/float32"]["file"])
    return config


def outputs(path):
    with open(path) as f:
        return {r["id"]: r["output"] for r in map(json.loads, f)}


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


# The side load: one thread busy BUSY_US of every PERIOD_US until killed.
LOAD = """
import sys, time
busy, period = int(sys.argv[1]) / 1e6, int(sys.argv[2]) / 1e6
while True:
    start = time.monotonic()
    while time.monotonic() - start < busy:
        pass
    time.sleep(max(0.0, period - (time.monotonic() - start)))
"""


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_config(cmd, c, what):
    """Runs `cmd` with configuration `c`'s environment (and its side load);
    exits naming `what` and its stderr if it fails. Returns the side load's
    share of one core over the run, or None without one."""
    load = None
    if c["load"]:
        load = subprocess.Popen([sys.executable, "-c", LOAD, *map(str, c["load"])])
        started = time.monotonic()
    try:
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **c["env"]})
        share = cpu_seconds(load.pid) / (time.monotonic() - started) if load else None
    finally:
        if load:
            load.kill()
            load.wait()
    if done.returncode != 0:
        sys.exit(f"levers.py: {what} failed:\n{done.stderr[-2000:]}")
    return share


def serve(a, c, profile, work):
    """One bench/common/e2e.py run of configuration `c` on the profile's text jobs: its figures."""
    out = os.path.join(work, f"serve-{c['tag']}-{profile}.json")
    cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common", "e2e.py"),
           "--qinfer", os.path.join(c["bin"], "qinfer"), "--brokers", a.brokers, "--kafka-dir", a.kafka_dir,
           "--model", c["model"], "--model-file", c["file"],
           "--jobs", os.path.join(a.texts, f"{profile}.textjobs.jsonl"), "--workload", profile,
           "--device", a.device, "--threads", str(a.threads), "--rounds", "1", "--warm-rounds", "2",
           "--store", os.path.join(a.plans, f"store-{c['tag']}"), "--out", out]
    if c["autocast"]:
        cmd += ["--autocast", c["autocast"]]
    for key, value in c["set"].items():
        cmd += ["--set", f"{key}={value}"]
    share = run_config(cmd, c, f"serve {c['tag']} on {profile}")
    report = json.load(open(out))
    figures = {k: report[k] for k in ("real_tokens_per_s", "jobs_per_s")}
    if share is not None:
        figures["load_share_of_a_core"] = share
    print(f"levers.py:         {profile:10s} {c['tag']:24s} {figures['jobs_per_s']:8.1f} jobs/s serve",
          file=sys.stderr)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--config", type=parse_config, action="append", required=True)
    ap.add_argument("--profiles", default="short,paragraphs,long")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu-budget:4GiB")
    ap.add_argument("--bin", default="build")
    ap.add_argument("--serve", action="store_true", help="serve end to end too (needs --brokers, --kafka-dir)")
    ap.add_argument("--brokers")
    ap.add_argument("--kafka-dir")
    ap.add_argument("--plans", default=os.path.join(os.path.expanduser("~"), ".cache", "qinfer", "bench-minilm",
                                                    "levers"))
    a = ap.parse_args()
    for c in a.config:
        c["bin"] = c["bin"] or a.bin
    if a.serve and not (a.brokers and a.kafka_dir):
        ap.error("--serve needs --brokers and --kafka-dir (a broker of deploy/kafka-local.sh)")
    os.makedirs(a.plans, exist_ok=True)
    profiles = a.profiles.split(",")
    work = tempfile.mkdtemp(prefix="qinfer-levers-")
    runs = {c["tag"]: {p: [] for p in profiles} for c in a.config}
    serve_runs = {c["tag"]: {p: [] for p in profiles} for c in a.config}
    cosines = {c["tag"]: {} for c in a.config}
    for round_index in range(a.rounds):
        for profile in profiles:
            for c in a.config:
                out = os.path.join(work, f"{c['tag']}-{profile}.json")
                emb = os.path.join(work, f"{c['tag']}-{profile}.jsonl")
                cmd = [os.path.join(c["bin"], "bench", "policy_bench"),
                       "--model", c["model"], "--model-file", c["file"],
                       "--jobs", os.path.join(a.texts, f"{profile}.jobs.jsonl"), "--workload", profile,
                       "--policies", "qinfer", "--rounds", "1", "--warmup-rounds", "2", "--out", out,
                       "--outputs", emb, "--device", a.device, "--threads", str(a.threads),
                       "--plan-cache", os.path.join(a.plans, f"plan-{c['tag']}.json")]
                if c["autocast"]:
                    cmd += ["--autocast", c["autocast"]]
                if "model.mkl_dispatch" in c["set"]:  # the one key the executor alone reads too
                    cmd += ["--mkl-dispatch", c["set"]["model.mkl_dispatch"]]
                share = run_config(cmd, c, f"{c['tag']} on {profile}")
                median = json.load(open(out))["policies"]["qinfer"]["median"]
                figures = {k: median[k] for k in ("real_tokens_per_s", "jobs_per_s")}
                if share is not None:
                    figures["load_share_of_a_core"] = share
                runs[c["tag"]][profile].append(figures)
                print(f"levers.py: round {round_index + 1} {profile:10s} {c['tag']:24s} "
                      f"{median['jobs_per_s']:8.1f} jobs/s", file=sys.stderr)
                if a.serve:
                    serve_runs[c["tag"]][profile].append(serve(a, c, profile, work))
                if round_index == a.rounds - 1:
                    base = outputs(os.path.join(work, f"{a.config[0]['tag']}-{profile}.jsonl"))
                    mine = outputs(emb)
                    cosines[c["tag"]][profile] = min(cosine(base[i], mine[i]) for i in base)
    base_tag = a.config[0]["tag"]
    report = {"device": a.device, "threads": a.threads, "rounds": a.rounds, "baseline": base_tag,
              "configs": a.config, "results": {}}
    for c in a.config:
        result = {}
        for profile in profiles:
            med = {k: statistics.median(r[k] for r in runs[c["tag"]][profile])
                   for k in ("real_tokens_per_s", "jobs_per_s")}
            base = statistics.median(r["jobs_per_s"] for r in runs[base_tag][profile])
            result[profile] = {"median": med, "rounds": runs[c["tag"]][profile],
                               "over_baseline": med["jobs_per_s"] / base if base else None,
                               "min_cosine_to_baseline": cosines[c["tag"]].get(profile)}
            if a.serve:
                served = {k: statistics.median(r[k] for r in serve_runs[c["tag"]][profile])
                          for k in ("real_tokens_per_s", "jobs_per_s")}
                result[profile]["serve"] = {"median": served, "rounds": serve_runs[c["tag"]][profile],
                                            "over_executor": served["jobs_per_s"] / med["jobs_per_s"]}
        report["results"][c["tag"]] = result
    with open(a.out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    for c in a.config:
        print(f"{c['tag']:24s} " + "  ".join(
            f"{p} {report['results'][c['tag']][p]['median']['jobs_per_s']:7.1f} jobs/s "
            f"(x{report['results'][c['tag']][p]['over_baseline']:.2f}, "
            f"cos {report['results'][c['tag']][p]['min_cosine_to_baseline']:.5f})" for p in profiles))


if __name__ == "__main__":
    main()
