#!/usr/bin/env bash
# Soak: does qinfer serve's memory reach a plateau under a long backlog?
#
#   bench/soak/run.sh [--minutes 10] [--jobs 600000] [--port 19992] [--out FILE]
#
# A fresh local broker (deploy/kafka-local.sh, under run/soak/), the generated
# test model on the CPU, JOBS jobs published before `qinfer serve` starts (a
# backlog far beyond the scheduler's queue bounds, so partitions pause and
# resume the whole time), replies on, and serve's resident memory (VmRSS of
# the process) and progress sampled every 5 s for MINUTES minutes. Writes
# FILE (default bench/soak/results/soak.json): the samples, the configured bounds
# that cap memory, and the RSS slope over the last two and the last minute.
# Not a CI test: it takes MINUTES plus about two minutes of set-up.
# QINFER_SOAK_WRAP prefixes the serve command (e.g. "env LD_PRELOAD=...",
# or "heaptrack -o run/soak/heap" to see what holds the memory; the RSS then
# read is that of the process the wrapper runs, found by its command line).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
minutes=10 jobs=600000 port=19992 out=bench/soak/results/soak.json
while (($#)); do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--minutes M] [--jobs N] [--port P] [--out FILE]" >&2; exit 2 ;;
  esac
done
run=run/soak
log() { printf '==> %s\n' "$*"; }
deploy/kafka-local.sh stop "$run/kafka" >/dev/null 2>&1 || true
rm -rf "$run"; mkdir -p "$run"
serve_pid= qinfer_pid=
cleanup() {
  # The wrapper's child too (heaptrack runs serve as a child of its own).
  [[ -n $qinfer_pid ]] && kill "$qinfer_pid" 2>/dev/null || true
  [[ -n $serve_pid ]] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null || true
  deploy/kafka-local.sh stop "$run/kafka" >/dev/null 2>&1 || true
}
trap cleanup EXIT
deploy/kafka-local.sh start "$run/kafka" "$port" >/dev/null
deploy/kafka-local.sh create-topic "$run/kafka" jobs 3 results 3 jobs-failed 1
.venv/bin/python model/export_model.py --out "$run/model" >/dev/null
log "generating and publishing $jobs jobs"
.venv/bin/python model/make_jobs.py --out "$run/jobs.jsonl" --count "$jobs" --vocab 4096 --max-tokens 512 --seed 11
build/qinfer submit --no-progress --brokers 127.0.0.1:"$port" --topic jobs "$run/jobs.jsonl"
rm -f "$run/jobs.jsonl"
http=127.0.0.1:$((port + 7))
# shellcheck disable=SC2086  # QINFER_SOAK_WRAP is meant to be word-split
${QINFER_SOAK_WRAP:-} build/qinfer serve --config deploy/quickstart.yaml --set model.path="$run/model/model.pt" \
  --set kafka.brokers=127.0.0.1:"$port" --set kafka.group_id=qinfer-soak --set storage.path="$run/results" \
  --set http.listen="$http" >"$run/serve.log" 2>&1 &
serve_pid=$!
sleep 2
qinfer_pid=$(pgrep -n -f "build/qinfer serve --config deploy/quickstart.yaml" || echo "$serve_pid")
log "sampling serve (pid $qinfer_pid) every 5 s for $minutes min"
samples=$run/samples.tsv
start=$SECONDS
while ((SECONDS - start < minutes * 60)); do
  kill -0 "$serve_pid" 2>/dev/null || { echo "soak: serve exited early" >&2; tail "$run/serve.log" >&2; exit 1; }
  rss=$(awk '/^VmRSS/ {print $2}' /proc/"$qinfer_pid"/status)
  done_jobs=$( (curl -s "http://$http/metrics" || true) | awk '/^qinfer_outcomes_total/ {s += $2} END {printf "%d", s}')
  printf '%d\t%d\t%d\n' $((SECONDS - start)) "$rss" "${done_jobs:-0}" >>"$samples"
  sleep 5
done
bounds=$(build/qinfer config --print-config --config deploy/quickstart.yaml \
  --set model.path="$run/model/model.pt" 2>/dev/null | grep -E "max_queued_(jobs|tokens|bytes)|write_buffer|queued" || true)
.venv/bin/python - "$samples" "$out" "$jobs" "$minutes" "$bounds" <<'PY'
import json, sys
rows = [tuple(map(int, l.split("\t"))) for l in open(sys.argv[1]) if l.strip()]
def slope(since):  # MB per minute over the samples at or after `since` seconds
    pts = [(t, r) for t, r, _ in rows if t >= since]
    if len(pts) < 2:
        return None
    n = len(pts); mt = sum(t for t, _ in pts) / n; mr = sum(r for _, r in pts) / n
    num = sum((t - mt) * (r - mr) for t, r in pts); den = sum((t - mt) ** 2 for t, _ in pts)
    return round(num / den * 60 / 1024, 2)
end = rows[-1][0]
report = {
    "what": "qinfer serve's VmRSS under a backlog of published jobs (bench/soak/run.sh), generated test model, cpu",
    "jobs_published": int(sys.argv[3]), "minutes": int(sys.argv[4]),
    "jobs_done_at_end": rows[-1][2],
    "rss_mb": {"first": round(rows[0][1] / 1024, 1), "max": round(max(r for _, r, _ in rows) / 1024, 1),
               "last": round(rows[-1][1] / 1024, 1)},
    "rss_slope_mb_per_min": {"last_2_min": slope(end - 120), "last_1_min": slope(end - 60),
                             "first_2_min": slope(0) if end <= 120 else None},
    "bounds_configured": sys.argv[5].split("\n") if sys.argv[5] else [],
    "samples": [{"t_s": t, "rss_mb": round(r / 1024, 1), "jobs_done": d} for t, r, d in rows],
}
json.dump(report, open(sys.argv[2], "w"), indent=1)
print(json.dumps({k: v for k, v in report.items() if k != "samples"}, indent=1))
PY
