#!/usr/bin/env bash
# Self-test of bench/torchserve: a tiny model, 200 jobs, one TorchServe run at
# batch 8, and checks on the result.
#
#   bench/torchserve/smoke.sh [WORKDIR]     (default: a new temp dir)
#
# Runs setup.sh first (cheap when already done), then model/export_model.py,
# model/make_jobs.py and run.py; checks that the result JSON has every field,
# that ok == jobs with no errors, that batches held at most 8 jobs, and that
# no process of that TorchServe is left. Prints the seconds each step took.
# Environment: as setup.sh (QINFER_CACHE, QINFER_TORCHSERVE_VENV,
# QINFER_PROJECT_VENV).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
die() { printf 'torchserve/smoke.sh: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=bench/torchserve/project-venv.sh
. "$HERE/project-venv.sh"

work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/qinfer-ts-smoke.XXXXXX")}
mkdir -p "$work"
echo "==> smoke: working in $work"

t0=$SECONDS
ts_python=$("$HERE/setup.sh" | tail -n 1)
echo "==> smoke: setup $((SECONDS - t0)) s ($ts_python)"

t1=$SECONDS
"$PROJECT_VENV/bin/python" "$REPO/model/export_model.py" --out "$work/model" >"$work/export.log" 2>&1 ||
  { cat "$work/export.log" >&2; die "model/export_model.py failed"; }
"$PROJECT_VENV/bin/python" "$REPO/model/make_jobs.py" --out "$work/jobs.jsonl" --count 200 \
  --vocab 4096 --max-tokens 512 --seed 1
echo "==> smoke: model and jobs $((SECONDS - t1)) s"

t2=$SECONDS
"$ts_python" "$HERE/run.py" --model "$work/model" --jobs "$work/jobs.jsonl" \
  --batch-size 8 --threads 2 --out "$work/result.json" >/dev/null
echo "==> smoke: run.py $((SECONDS - t2)) s"

"$ts_python" - "$work/result.json" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
fields = ["system", "batch_size", "max_batch_delay_ms", "threads", "concurrency", "rounds",
          "jobs", "jobs_per_round", "ok", "errors", "transport_errors", "lost", "wall_s",
          "jobs_per_s", "real_tokens_per_s", "padded_tokens_per_s", "padding_efficiency",
          "p50_ms", "p99_ms", "batches", "mean_batch", "forward_s", "forward_share",
          "per_round", "host", "logs"]
missing = [f for f in fields if f not in r or r[f] is None]
problems = [f"missing or null fields: {missing}"] if missing else []
checks = [
    (r.get("system") == "torchserve-0.12.0", f"system is {r.get('system')}"),
    (r.get("jobs") == 200, f"jobs is {r.get('jobs')}, not 200"),
    (r.get("ok") == r.get("jobs"), f"ok {r.get('ok')} != jobs {r.get('jobs')}"),
    (r.get("errors") == 0 and r.get("lost") == 0, f"errors {r.get('errors')} lost {r.get('lost')}"),
    (r.get("batch_size") == 8 and r.get("max_batch_delay_ms") == 50 and r.get("threads") == 2,
     "batch_size/max_batch_delay_ms/threads are not 8/50/2"),
    (0 < (r.get("padding_efficiency") or 0) <= 1, f"padding_efficiency {r.get('padding_efficiency')}"),
    ((r.get("batches") or 0) >= 25 and 0 < (r.get("mean_batch") or 0) <= 8,
     f"{r.get('batches')} batches, mean {r.get('mean_batch')}: a batch held more than 8 jobs"),
    (0 < (r.get("p50_ms") or 0) <= (r.get("p99_ms") or 0), f"p50 {r.get('p50_ms')} p99 {r.get('p99_ms')}"),
]
problems += [msg for ok, msg in checks if not ok]
# Nothing of that TorchServe may be left: its java and worker command lines
# name its temp dir.
workdir = os.path.dirname(r.get("logs", "/nonexistent/logs"))
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        continue
    if workdir in cmd:
        problems.append(f"process {pid} of the run is still there: {cmd[:200]}")
if problems:
    print("smoke: FAILED\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"smoke: ok: {r['ok']}/{r['jobs']} jobs, {r['jobs_per_s']} jobs/s, "
      f"{r['real_tokens_per_s']} tokens/s, padding efficiency {r['padding_efficiency']}, "
      f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, {r['batches']} batches, logs {r['logs']}")
PY
echo "==> smoke: passed in $((SECONDS - t0)) s ($((SECONDS - t1)) s after setup); result $work/result.json"
