#!/usr/bin/env python3
"""The GPU bench's driver: bench/gpu/run.sh builds policy_bench, then calls this.

    python3 bench/gpu/bench.py device [--device SPEC]
    python3 bench/gpu/bench.py run --policy-bench BIN --work DIR --out DIR --deadline EPOCH
        [--device SPEC] [--model bert-base|minilm|tiny] [--rounds 3] [--jobs N]
        [--threads 4] [--max-batch-size N] [--policies a,b,...] [--build-seconds S]

`device` prints what torch sees (JSON) and exits 1 when no CUDA device is
visible. `run` exports the model with this Python's torch, writes the
workloads, runs policy_bench on each one with bf16 autocast and the CUDA
allocator capped at 24 GiB of the card, and writes into --out one JSON file per
workload (policy_bench's report), probe.json, gpu_summary.json and
gpu_summary.md. Only the standard library and torch are used.

Sizing. Everything has to end by --deadline (run.sh sets it from --minutes,
counting the build). A small probe run (bimodal, 400 jobs, one round)
calibrates the memory plan, which every later run reuses (--plan-cache), and
measures the fixed cost of a policy_bench process (CUDA start, model load; the
largest seen is used) and bimodal's time per job. Then each workload in
turn (bimodal, lognormal-1.0, lognormal-0.5, text: the costliest per job first)
gets an equal share of the time left and as many jobs as fit in it, with a
margin of 1.5 on the estimate, at --rounds rounds (fewer rounds rather than
fewer than 400 jobs). A workload not measured yet is estimated from the others
by time = a * jobs + b * tokens (least squares over the runs so far). Every run
also has a hard timeout at the deadline; a workload that times out or gets no
time is reported as such, and the exit status is 3 (4 when a run failed).
--jobs N fixes the job count (no probe, no timeout sizing).

Test hook: --device cpu-budget:<size> runs everything on the CPU
without autocast or memory fraction, so the whole command can be checked on a
machine without a GPU; its results are marked as a test run.
"""

import argparse
import gzip
import json
import os
import platform
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
GIB = 1 << 30
EMULATED_CARD_BYTES = 24 * GIB
VOCAB = 30522  # the text workload's tokenizer (BERT uncased WordPiece)
MAX_TOKENS = 512
# In the order they run: the costliest per job first (the probe measured it),
# the cheapest and best predicted last, where an overrun has no one to eat into.
WORKLOADS = ["bimodal", "lognormal-1.0", "lognormal-0.5", "text"]
CANONICAL_ORDER = ["lognormal-0.5", "lognormal-1.0", "bimodal", "text"]  # bench/common/workloads.py's
TEXT_FILE = os.path.join(HERE, "data", "text.jsonl.gz")
# export_model.py's shape arguments; vocab and max tokens are the workloads'.
MODELS = {
    "bert-base": ["--dim", "768", "--layers", "12", "--heads", "12"],
    "minilm": ["--dim", "384", "--layers", "6", "--heads", "12"],
    "tiny": [],  # export_model.py's defaults: dim 128, 2 layers, 4 heads
}
PROBE_WORKLOAD, PROBE_JOBS = "bimodal", 400
MIN_JOBS, MAX_JOBS = 400, 200000
SAFETY = 1.5      # on the estimated variable time
RESERVE_S = 15    # kept back at the end for the summary


def say(message: str) -> None:
    print(f"bench.py: {message}", flush=True)


def is_test_device(device: str) -> bool:
    return device != "" and not device.startswith("cuda")


# ---- device ----------------------------------------------------------------

def device_info(device: str) -> dict:
    import torch

    info = {"torch": torch.__version__, "torch_cuda": torch.version.cuda, "python": platform.python_version(),
            "cuda_available": bool(torch.cuda.is_available()),
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI)}
    if info["cuda_available"]:
        p = torch.cuda.get_device_properties(0)
        info.update(gpu=p.name, gpu_count=torch.cuda.device_count(), total_memory=int(p.total_memory),
                    capability=f"{p.major}.{p.minor}")
    info["test_device"] = device if is_test_device(device) else None
    return info


def cmd_device(a: argparse.Namespace) -> int:
    try:
        info = device_info(a.device)
    except ImportError as e:
        print(f"bench.py: cannot import torch with {sys.executable} ({e}); pass --python to run.sh", file=sys.stderr)
        return 1
    print(json.dumps(info))
    if info["test_device"]:
        return 0
    if not info["cuda_available"]:
        cuda = f"a CUDA {info['torch_cuda']} build" if info["torch_cuda"] else "a CPU-only build"
        print(f"bench.py: NO CUDA DEVICE is visible to torch {info['torch']} ({cuda}, "
              f"CUDA_VISIBLE_DEVICES={info['cuda_visible_devices']!r}); this bench needs one. "
              "(To test the script without a GPU: run.sh --device cpu-budget:512MiB.)", file=sys.stderr)
        return 1
    return 0


# ---- inputs ----------------------------------------------------------------

def export_model(work: str, model: str, aoti: list[str] | None = None,
                 timeout: float | None = None) -> tuple[str, float]:
    """Exports (or reuses) the model with this Python's torch; returns its dir and seconds spent.
    `aoti`: export_model.py's --format aoti arguments (the packages' targets), else TorchScript."""
    import torch

    out = os.path.join(work, f"model-{model}" + ("-aoti" if aoti else ""))
    args = ["--vocab", str(VOCAB), "--max-tokens", str(MAX_TOKENS)] + MODELS[model] + (aoti or [])
    stamp = json.dumps({"args": args, "torch": torch.__version__})
    stamp_path = os.path.join(out, "export.stamp")
    if os.path.exists(os.path.join(out, "manifest.json")) and os.path.exists(stamp_path):
        with open(stamp_path) as f:
            if f.read() == stamp:
                say(f"model: reusing {out}")
                return out, 0.0
    t0 = time.monotonic()
    say(f"model: exporting {model} ({' '.join(args)}) to {out}")
    subprocess.run([sys.executable, os.path.join(REPO, "model", "export_model.py"), "--out", out] + args,
                   check=True, timeout=timeout)
    with open(stamp_path, "w") as f:
        f.write(stamp)
    return out, time.monotonic() - t0


def text_jobs() -> list[str]:
    with gzip.open(TEXT_FILE, "rt") as f:
        return [line for line in f if line.strip()]


def write_jobs(work: str, name: str, count: int) -> str:
    """DIR/<name>-<count>.jsonl: synthetic ones from bench/common/workloads.py, text from the shipped file."""
    path = os.path.join(work, "jobs", f"{name}-{count}.jsonl")
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if name == "text":
        lines = text_jobs()[:count]
        with open(path + ".tmp", "w") as f:
            f.writelines(lines)
    else:
        tmp_dir = path + ".d"
        subprocess.run([sys.executable, os.path.join(REPO, "bench", "common", "workloads.py"), "--out", tmp_dir,
                        "--names", name, "--count", str(count), "--vocab", str(VOCAB),
                        "--max-tokens", str(MAX_TOKENS)], check=True)
        os.replace(os.path.join(tmp_dir, f"{name}.jsonl"), path + ".tmp")
    os.replace(path + ".tmp", path)
    return path


def mean_tokens(work: str, name: str) -> float:
    """Mean job length, from a 2000-job sample (the synthetic generators are seeded)."""
    if name == "text":
        lines = text_jobs()
    else:
        with open(write_jobs(work, name, 2000)) as f:
            lines = f.readlines()
    return sum(len(json.loads(line)["input_ids"]) for line in lines) / len(lines)


# ---- runs ------------------------------------------------------------------

class Estimate:
    """time(process) = fixed + rounds * per_job(workload) * jobs, learnt from the runs so far."""

    def __init__(self) -> None:
        self.fixed = 0.0
        # (workload, jobs*rounds, tokens*rounds, variable seconds), one per run
        self.points: list[tuple[str, float, float, float]] = []

    def add(self, name: str, report: dict, process_s: float) -> None:
        variable = sum(r["wall_s"] for p in report["policies"].values() for r in p["rounds"])
        rounds = report["rounds"]
        # Later runs reuse the probe's plan (--plan-cache): calibration is not
        # a fixed cost of theirs.
        self.fixed = max(self.fixed, process_s - variable - report["calibration_s"])
        self.points.append((name, report["jobs"] * rounds, report["real_tokens"] * rounds, variable))

    def per_job(self, name: str, mean_len: float) -> float:
        """Variable seconds per job and round, for a workload of jobs of `mean_len` tokens."""
        own = [(j, v) for n, j, _, v in self.points if n == name]
        if own:  # measured on this very workload (the probe's)
            return max(v / j for j, v in own)
        pts = [(j, k, v) for _, j, k, v in self.points]
        fit = nonnegative_fit(pts)
        if fit is None:
            # The runs cannot tell per-job from per-token cost apart (one
            # workload so far): take whichever predicts more for these jobs.
            j, k, v = (sum(x) for x in zip(*pts))
            return max(v / j, v / k * mean_len)
        return fit[0] + fit[1] * mean_len


def nonnegative_fit(pts: list[tuple[float, float, float]]) -> tuple[float, float] | None:
    """a, b >= 0 minimising sum (a*j + b*k - v)^2: a per-job cost (on a GPU,
    mostly kernel launches) and a per-token one. None when every point has
    the same tokens per job, so that the two cannot be told apart."""
    sjj = sum(j * j for j, _, _ in pts)
    skk = sum(k * k for _, k, _ in pts)
    sjk = sum(j * k for j, k, _ in pts)
    sjv = sum(j * v for j, _, v in pts)
    skv = sum(k * v for _, k, v in pts)
    det = sjj * skk - sjk * sjk
    if det <= 1e-3 * sjj * skk:
        return None
    a = (sjv * skk - skv * sjk) / det
    b = (skv * sjj - sjv * sjk) / det
    if a >= 0 and b >= 0:
        return a, b
    # On the boundary: the better of all-per-job and all-per-token.
    def residual(a: float, b: float) -> float:
        return sum((a * j + b * k - v) ** 2 for j, k, v in pts)
    per_job, per_token = (sjv / sjj, 0.0), (0.0, skv / skk)
    return min(per_job, per_token, key=lambda ab: residual(*ab))


def run_policy_bench(a: argparse.Namespace, model_dir: str, jobs: str, name: str, out: str, rounds: int,
                     timeout: float | None, *, policies: str | None = None, plan_cache: str | None = None,
                     fraction: float | None = None, test_device: str | None = None,
                     extra: tuple[str, ...] = ()) -> tuple[str, float]:
    """Runs policy_bench; returns ("ok" | "failed" | "timed_out", seconds). The keyword arguments
    override `a`'s policies, plan cache, memory fraction (on a GPU) and device (the test hook's)."""
    cmd = [a.policy_bench, "--model", model_dir, "--jobs", jobs, "--workload", name, "--out", out,
           "--rounds", str(rounds), "--threads", str(a.threads), "--policies", policies or a.policies,
           "--plan-cache", plan_cache or a.plan_cache, *extra]
    if a.max_batch_size:
        cmd += ["--max-batch-size", str(a.max_batch_size)]
    if is_test_device(a.device):
        cmd += ["--device", test_device or a.device]
    else:
        cmd += ["--device", "cuda:0", "--autocast", "bf16", "--cuda-memory-fraction",
                f"{a.fraction if fraction is None else fraction:.6f}"]
    say("$ " + " ".join(cmd))
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, start_new_session=True)
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        say(f"{name}: TIMED OUT after {time.monotonic() - t0:.0f} s (the deadline)")
        return "timed_out", time.monotonic() - t0
    seconds = time.monotonic() - t0
    if rc != 0:
        say(f"{name}: policy_bench exited with status {rc}")
        return "failed", seconds
    return "ok", seconds


def plan_run(est: Estimate, name: str, mean_len: float, share: float, rounds: int, cap: int) -> tuple[int, int]:
    """(jobs, rounds) that fit in `share` seconds; fewer rounds before fewer than MIN_JOBS jobs."""
    per_job = est.per_job(name, mean_len) * SAFETY
    for r in range(rounds, 0, -1):
        n = int((share - est.fixed) / (r * per_job)) if per_job > 0 else cap
        if n >= MIN_JOBS or r == 1:
            return max(min(n, cap), min(MIN_JOBS, cap)), r
    raise AssertionError("unreachable")


def open_device(a: argparse.Namespace) -> dict | None:
    """The out and work folders, what torch sees, and a.fraction (the share of the card that is 24 GiB);
    None when there is no CUDA device and no test device."""
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.work, exist_ok=True)
    info = device_info(a.device)
    if not is_test_device(a.device) and not info["cuda_available"]:
        print("bench.py: NO CUDA DEVICE is visible to torch; stopping", file=sys.stderr)
        return None
    total = info.get("total_memory", 0)
    a.fraction = min(1.0, EMULATED_CARD_BYTES / total) if total else 0.0
    return info


def cmd_run(a: argparse.Namespace) -> int:
    started = time.time()
    info = open_device(a)
    if info is None:
        return 1
    test = is_test_device(a.device)
    total_memory = info.get("total_memory", 0)
    if not test and a.fraction < 1:
        say(f"device: {info['gpu']}, {total_memory / GIB:.1f} GiB; the allocator is capped at "
            f"{a.fraction:.4f} of it = {a.fraction * total_memory / GIB:.1f} GiB (a 24 GiB card)")
    elif not test:
        say(f"device: {info['gpu']}, {total_memory / GIB:.1f} GiB: not more than 24 GiB, so no cap")
    else:
        say(f"TEST RUN on {a.device}: no GPU, no autocast, no memory fraction")
    if a.max_batch_size is None and not test:
        a.max_batch_size = 1024  # so that 24 GiB, not the plan's ceiling, sets the long buckets' sizes

    model_dir, export_s = export_model(a.work, a.model)
    # One calibration per command (the probe's, or the first workload's),
    # reused by the other runs: the same model, device and budget.
    a.plan_cache = os.path.join(a.work, "plan.json")
    if os.path.exists(a.plan_cache):
        os.remove(a.plan_cache)
    text_available = len(text_jobs())
    cap = {name: (text_available if name == "text" else MAX_JOBS) for name in WORKLOADS}

    est = Estimate()
    runs: dict[str, dict] = {}
    probe = None
    if a.jobs is None:
        jobs = write_jobs(a.work, PROBE_WORKLOAD, PROBE_JOBS)
        out = os.path.join(a.out, "probe.json")
        if os.path.exists(out):
            os.remove(out)
        left = a.deadline - time.time() - RESERVE_S
        status, seconds = run_policy_bench(a, model_dir, jobs, "probe", out, 1, max(left, 1))
        probe = {"workload": PROBE_WORKLOAD, "jobs": PROBE_JOBS, "status": status, "seconds": round(seconds, 1)}
        if status == "ok":
            with open(out) as f:
                report = json.load(f)
            est.add(PROBE_WORKLOAD, report, seconds)
            probe.update(calibration_s=round(report["calibration_s"], 1), fixed_s=round(est.fixed, 1))
            say(f"probe: {seconds:.1f} s: calibration {report['calibration_s']:.1f} s, other fixed cost "
                f"{est.fixed:.1f} s (CUDA start, model load)")
        else:
            say(f"probe: {status}; no workload runs")

    for i, name in enumerate(WORKLOADS):
        if probe is not None and probe["status"] != "ok":
            runs[name] = {"status": "not_run"}
            continue
        if a.jobs is not None:
            count, rounds = min(a.jobs, cap[name]), a.rounds
            timeout = None
        else:
            left = a.deadline - time.time() - RESERVE_S
            share = left / (len(WORKLOADS) - i)
            if share <= est.fixed + 1:
                say(f"{name}: skipped, {left:.0f} s left")
                runs[name] = {"status": "no_time"}
                continue
            count, rounds = plan_run(est, name, mean_tokens(a.work, name), share, a.rounds, cap[name])
            timeout = max(left, 1)
            say(f"{name}: {count} jobs x {rounds} rounds in a share of {share:.0f} s ({left:.0f} s left)")
        jobs = write_jobs(a.work, name, count)
        out = os.path.join(a.out, f"{name}.json")
        if os.path.exists(out):
            os.remove(out)  # never summarise a previous run's file
        status, seconds = run_policy_bench(a, model_dir, jobs, name, out, rounds, timeout)
        runs[name] = {"status": status, "seconds": round(seconds, 1), "file": os.path.basename(out)}
        if status == "ok":
            with open(out) as f:
                est.add(name, json.load(f), seconds)

    summary = summarise(a, info, runs, probe, started, export_s)
    with open(os.path.join(a.out, "gpu_summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    with open(os.path.join(a.out, "gpu_summary.md"), "w") as f:
        f.write(markdown(summary))
    say(f"wrote {a.out}/gpu_summary.json and gpu_summary.md")
    print(markdown(summary), flush=True)
    statuses = [r["status"] for r in runs.values()] + ([probe["status"]] if probe else [])
    if any(s != "ok" for s in statuses):
        say("NOT COMPLETE: " + ", ".join(f"{n} {r['status']}" for n, r in runs.items() if r["status"] != "ok"))
        return 4 if "failed" in statuses else 3
    return 0


# ---- checks ----------------------------------------------------------------

def read_outputs(path: str) -> dict[str, list[float]]:
    with open(path) as f:
        return {r["id"]: r["output"] for r in map(json.loads, f)}


def min_cosine(a: dict[str, list[float]], b: dict[str, list[float]]) -> tuple[float, int]:
    """The lowest cosine between the two runs' outputs of a job, over the jobs both have; and how many."""
    worst, n = 1.0, 0
    for key in a.keys() & b.keys():
        x, y = a[key], b[key]
        dot = sum(p * q for p, q in zip(x, y))
        norm = (sum(p * p for p in x) * sum(q * q for q in y)) ** 0.5
        worst, n = min(worst, dot / norm if norm else (1.0 if x == y else 0.0)), n + 1
    return worst, n


def cmd_checks(a: argparse.Namespace) -> int:
    """The GPU path's own checks, beside the comparison: for each --models model, the TorchScript export
    at the 24 GiB cap (policy qinfer), its AOTInductor export (--aoti-models: compiled here, the
    cuda/bfloat16 package) on the same jobs, and forced OOMs: the allocator capped at --oom-fraction of
    the card, so that sorted64's batches of 64 really run out of memory inside the model's forward and
    go down the OOM ladder. Each run's outputs are compared with the 24 GiB TorchScript run's (cosine per
    job). Fails (status 4) when a run fails, a job is lost, an output disagrees (cosine < --min-cosine),
    or the capped run had no OOM at all (the check would prove nothing)."""
    info = open_device(a)
    if info is None:
        return 1
    test = is_test_device(a.device)
    jobs = write_jobs(a.work, "bimodal", a.jobs)
    results: list[dict] = []
    problems: list[str] = []

    def run(model: str, kind: str, model_dir: str, policies: str, **kw) -> dict:
        name = f"checks-{model}-{kind}"
        out, outputs = os.path.join(a.out, f"{name}.json"), os.path.join(a.work, f"{name}.outputs.jsonl")
        for path in (out, outputs):
            if os.path.exists(path):
                os.remove(path)
        left = a.deadline - time.time()
        entry = {"model": model, "kind": kind, "policies": policies}
        if left < 10:
            entry["status"] = "no_time"
        else:
            entry["status"], entry["seconds"] = run_policy_bench(
                a, model_dir, jobs, name, out, a.rounds, left, policies=policies,
                plan_cache=os.path.join(a.work, f"{name}.plan.json"),
                extra=("--outputs", outputs, *kw.pop("extra", ())), **kw)
        if entry["status"] == "ok":
            with open(out) as f:
                report = json.load(f)
            entry["dtype"], entry["budget_bytes"] = report["dtype"], report["budget_bytes"]
            entry["plan"] = {str(e["bound"]): e["batch_size"] for e in report["plan"]}
            entry["policy"] = {p: {k: r["median"][k] for k in ("real_tokens_per_s", "oom_events_max", "lost_max",
                                                               "fallback_runs", "cap_lowerings", "failed")}
                               for p, r in report["policies"].items()}
            entry["outputs"] = outputs
            for p, m in entry["policy"].items():
                if m["lost_max"] or m["failed"]:
                    problems.append(f"{name}: {p} lost {m['lost_max']} and failed {m['failed']} jobs")
        else:
            problems.append(f"{name}: {entry['status']}")
        results.append(entry)
        say(f"check {name}: {entry['status']}")
        return entry

    def agree(entry: dict, reference: dict) -> None:
        if entry["status"] != "ok" or reference["status"] != "ok":
            return
        cos, n = min_cosine(read_outputs(reference["outputs"]), read_outputs(entry["outputs"]))
        entry["min_cosine_to_torchscript"], entry["jobs_compared"] = round(cos, 6), n
        if cos < a.min_cosine or n == 0:
            problems.append(f"checks-{entry['model']}-{entry['kind']}: outputs differ from the TorchScript "
                            f"run's (min cosine {cos:.6f} over {n} jobs, floor {a.min_cosine})")

    # The TorchScript and forced-OOM runs first; the AOTInductor compiles, the longest steps, last.
    reference = {}
    for model in a.models.split(","):
        ts_dir, _ = export_model(a.work, model)
        reference[model] = run(model, "torchscript", ts_dir, "qinfer")
        oom = run(model, "oom", ts_dir, "qinfer,sorted64", fraction=a.oom_fraction, test_device=a.oom_test_device)
        agree(oom, reference[model])
        if oom["status"] == "ok" and not any(m["oom_events_max"] for m in oom["policy"].values()):
            problems.append(f"checks-{model}-oom: no OOM under the cap, so the ladder was not exercised")
    for model in [m for m in a.aoti_models.split(",") if m in reference]:
        targets = ["--devices", "cpu" if test else "cuda", "--dtypes", "float32" if test else "bfloat16"]
        t0 = time.monotonic()
        try:
            aoti_dir, _ = export_model(a.work, model, ["--format", "aoti", "--max-batch", str(a.max_batch_size),
                                                       "--threads", str(a.threads)] + targets,
                                       timeout=max(a.deadline - time.time(), 1))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            problems.append(f"checks-{model}-aoti: the export failed ({e})")
            results.append({"model": model, "kind": "aoti", "status": "export_failed"})
            continue
        entry = run(model, "aoti", aoti_dir, "qinfer", extra=("--model-file", "model-cpu-float32.pt2"))
        entry["export_s"] = round(time.monotonic() - t0, 1)
        agree(entry, reference[model])

    for entry in results:
        entry.pop("outputs", None)
    summary = {"what": "qinfer's GPU path checks (bench/gpu/bench.py checks)", "test_run": info["test_device"],
               "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), **git_commit(),
               "machine": {k: info.get(k) for k in ("gpu", "total_memory", "torch", "torch_cuda")},
               "settings": {"jobs": a.jobs, "workload": "bimodal", "rounds": a.rounds, "threads": a.threads,
                            "max_batch_size": a.max_batch_size, "fraction": None if test else round(a.fraction, 6),
                            "oom_fraction": None if test else a.oom_fraction,
                            "oom_test_device": a.oom_test_device if test else None, "min_cosine": a.min_cosine},
               "runs": results, "problems": problems}
    with open(os.path.join(a.out, "checks.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    lines = ["| run | status | dtype | budget | tok/s (policy) | OOMs | fallback runs | lost | min cosine to TorchScript |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for e in results:
        pol = e.get("policy", {})
        cell = lambda k: " / ".join(f"{p} {m[k]:.0f}" for p, m in pol.items()) or "-"  # noqa: E731
        lines.append(f"| {e['model']} {e['kind']} | {e['status']} | {e.get('dtype', '-')} | "
                     f"{e.get('budget_bytes', 0) / GIB:.2f} GiB | {cell('real_tokens_per_s')} | "
                     f"{cell('oom_events_max')} | {cell('fallback_runs')} | {cell('lost_max')} | "
                     f"{e.get('min_cosine_to_torchscript', '-')} |")
    with open(os.path.join(a.out, "checks.md"), "w") as f:
        f.write("# qinfer GPU path checks\n\n" + "\n".join(lines) + "\n\n" +
                ("Problems:\n" + "\n".join(f"- {p}" for p in problems) if problems else "No problems.") + "\n")
    print("\n".join(lines), flush=True)
    for p in problems:
        say(f"CHECK FAILED: {p}")
    return 4 if problems else 0


# ---- summary ---------------------------------------------------------------

def git_commit() -> dict:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True,
                              check=True).stdout.strip()
    try:
        return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": "unknown (no git checkout)", "dirty": None}


def summarise(a: argparse.Namespace, info: dict, runs: dict, probe: dict | None, started: float,
              export_s: float) -> dict:
    workloads = {}
    for name in sorted(runs, key=CANONICAL_ORDER.index):
        run = runs[name]
        entry = dict(run)
        if run["status"] == "ok":
            with open(os.path.join(a.out, run["file"])) as f:
                r = json.load(f)
            entry.update(jobs=r["jobs"], rounds=r["rounds"], real_tokens=r["real_tokens"],
                         mean_length=round(r["real_tokens"] / r["jobs"], 1), budget_bytes=r["budget_bytes"],
                         dtype=r["dtype"], calibration_s=round(r["calibration_s"], 2),
                         plan_reused=r.get("plan_reused"),
                         plan={str(e["bound"]): e["batch_size"] for e in r["plan"]})
            entry["policies"] = {}
            for policy, p in r["policies"].items():
                m = p["median"]
                entry["policies"][policy] = {
                    "real_tokens_per_s": round(m["real_tokens_per_s"]),
                    "jobs_per_s": round(m["jobs_per_s"], 1),
                    "padding_efficiency": round(m["padding_efficiency"], 4),
                    "mean_batch": round(m["mean_batch"], 1),
                    "p50_ms": round(m["p50_ms"], 1), "p99_ms": round(m["p99_ms"], 1),
                    "peak_over_budget": round(m["peak_over_budget"], 3),
                    "oom_events_max": m["oom_events_max"], "lost_max": m["lost_max"]}
            entry["ratios"] = {k: (round(v, 3) if v is not None else None) for k, v in r["ratios"].items()}
        workloads[name] = entry
    elapsed = time.time() - a.start
    return {
        "what": "qinfer executor policies on one GPU (bench/gpu/run.sh)",
        "test_run": info["test_device"],
        "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        **git_commit(),
        "machine": {k: info.get(k) for k in ("gpu", "gpu_count", "total_memory", "capability", "torch", "torch_cuda",
                                             "python")} | {"cpus": os.cpu_count(), "platform": platform.platform()},
        "settings": {"device": a.device or "cuda:0", "autocast": None if info["test_device"] else "bf16",
                     "cuda_memory_fraction": None if info["test_device"] else round(a.fraction, 6),
                     "emulated_card_bytes": None if info["test_device"] else EMULATED_CARD_BYTES,
                     "model": a.model, "model_args": MODELS[a.model], "vocab": VOCAB, "max_tokens": MAX_TOKENS,
                     "threads": a.threads, "max_batch_size": a.max_batch_size, "policies": a.policies.split(","),
                     "rounds_asked": a.rounds, "jobs_asked": a.jobs, "minutes": round((a.deadline - a.start) / 60, 2)},
        "seconds": {"build": a.build_seconds, "export": round(export_s, 1), "driver": round(time.time() - started, 1),
                    "total": round(elapsed, 1)},
        "within_minutes": time.time() <= a.deadline,
        "probe": probe,
        "workloads": workloads,
    }


def fmt_rate(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.1f} k"


def markdown(s: dict) -> str:
    m, st = s["machine"], s["settings"]
    lines = [f"# qinfer executor policies on {'a TEST DEVICE (' + s['test_run'] + '), NOT A GPU' if s['test_run'] else m['gpu']}", ""]
    commit = s["commit"][:12] if len(s["commit"]) == 40 else s["commit"]
    lines.append(f"{s['date_utc']} UTC, commit {commit}{' (dirty)' if s['dirty'] else ''}; "
                 f"torch {m['torch']} (CUDA {m['torch_cuda']}), Python {m['python']}, {m['cpus']} CPUs.")
    if not s["test_run"]:
        lines.append(f"Device cuda:0 with {m['total_memory'] / GIB:.1f} GiB, capped at "
                     f"{st['cuda_memory_fraction']:.4f} of it (a 24 GiB card); bf16 autocast.")
    lines.append(f"Model {st['model']} ({' '.join(st['model_args']) or 'export_model.py defaults'}, vocab {st['vocab']}, "
                 f"{st['max_tokens']} tokens); {st['threads']} intra-op threads; max batch "
                 f"{st['max_batch_size'] or 'policy_bench default'}. Medians over the rounds; tok/s = real "
                 f"(unpadded) tokens per second.")
    lines.append(f"Took {s['seconds']['total']:.0f} s in all (build {s['seconds']['build']:.0f} s) of "
                 f"{st['minutes'] * 60:.0f} s allowed.")
    lines.append("")
    policies = st["policies"]
    ratios = ["arrival8", "shared", "ideal"] + [p for p in ("sorted64", "qinfer_arrival") if p in policies]
    head = (["workload", "jobs x rounds"] + [f"{p} tok/s" for p in policies] +
            [f"qinfer/{p}" for p in ratios] +
            [f"padding {p}" for p in policies if p != "ideal"] +
            ["peak/budget qinfer", "OOMs qinfer / all", "lost qinfer / all"])
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + " --- |" * len(head))
    for name, w in s["workloads"].items():
        if w["status"] != "ok":
            lines.append(f"| {name} | {w['status'].replace('_', ' ').upper()} |" + " |" * (len(head) - 2))
            continue
        p = w["policies"]
        ratio = lambda k: f"{w['ratios'][k]:.2f}x" if w["ratios"].get(k) is not None else "-"  # noqa: E731
        row = [name, f"{w['jobs']} x {w['rounds']}"]
        row += [fmt_rate(p[q]["real_tokens_per_s"]) if q in p else "-" for q in policies]
        row += [ratio(f"qinfer_over_{p}") for p in ratios]
        row += [f"{p[q]['padding_efficiency']:.3f}" if q in p else "-" for q in policies if q != "ideal"]
        def qinfer_and_all(key: str) -> str:
            return f"{p['qinfer'][key] if 'qinfer' in p else '-'} / {max(x[key] for x in p.values())}"
        row += [f"{p['qinfer']['peak_over_budget']:.2f}" if "qinfer" in p else "-",
                qinfer_and_all("oom_events_max"), qinfer_and_all("lost_max")]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    plans = [(n, w["plan"]) for n, w in s["workloads"].items() if w["status"] == "ok"]
    if plans:
        lines.append("Batch size per bucket, calibrated once and used by every workload (tokens: batch): " +
                     ", ".join(f"{b}: {c}" for b, c in plans[0][1].items()) + ".")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("device")
    d.add_argument("--device", default="")
    r = sub.add_parser("run")
    r.add_argument("--policy-bench", required=True)
    r.add_argument("--work", required=True, help="scratch dir: model, job files")
    r.add_argument("--out", required=True)
    r.add_argument("--start", type=float, default=time.time(), help="epoch seconds the command started")
    r.add_argument("--deadline", type=float, required=True, help="epoch seconds by which to be done")
    r.add_argument("--device", default="", help="test hook: cpu-budget:<size> instead of cuda:0")
    r.add_argument("--model", choices=sorted(MODELS), default="bert-base")
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--jobs", type=int, help="jobs per workload (default: sized to the deadline)")
    r.add_argument("--threads", type=int, default=4)
    r.add_argument("--max-batch-size", type=int)
    r.add_argument("--policies", default="arrival8,shared,qinfer,ideal,sorted64,qinfer:0.2")
    r.add_argument("--build-seconds", type=float, default=0.0)
    c = sub.add_parser("checks")
    c.add_argument("--policy-bench", required=True)
    c.add_argument("--work", required=True, help="scratch dir: models, job files, outputs")
    c.add_argument("--out", required=True)
    c.add_argument("--deadline", type=float, required=True, help="epoch seconds by which to be done")
    c.add_argument("--device", default="", help="test hook: cpu-budget:<size> instead of cuda:0")
    c.add_argument("--models", default="tiny,minilm")
    c.add_argument("--aoti-models", default="minilm", help="models also exported and run as AOTInductor packages")
    c.add_argument("--jobs", type=int, default=1000, help="bimodal jobs per run")
    c.add_argument("--rounds", type=int, default=1)
    c.add_argument("--threads", type=int, default=4)
    c.add_argument("--max-batch-size", type=int, default=256)
    c.add_argument("--oom-fraction", type=float, default=0.002,
                   help="the forced-OOM runs' cap, a fraction of the card (0.002 of an H200: about 280 MiB)")
    c.add_argument("--oom-test-device", default="cpu-budget:128MiB", help="test hook: the forced-OOM runs' device")
    c.add_argument("--min-cosine", type=float, default=0.99)
    a = ap.parse_args()
    return {"device": cmd_device, "run": cmd_run, "checks": cmd_checks}[a.cmd](a)

if __name__ == "__main__":
    sys.exit(main())
