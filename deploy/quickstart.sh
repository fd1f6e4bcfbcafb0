#!/usr/bin/env bash
# README command 1: set everything up and run the main job locally.
#
#   deploy/quickstart.sh [JOBS]     (default 3000 jobs)
#
# 1. deploy/setup.sh (packages, venv with torch, Kafka jars, build)
# 2. a fresh single-node Kafka broker on 127.0.0.1:9092 (run/quickstart/kafka)
# 3. the small generated TorchScript model (run/quickstart/model)
# 4. JOBS jobs with long-tailed lengths plus a few invalid and too-long ones,
#    published with `qinfer submit`
# 5. `qinfer serve` until every job has a record (--idle-exit), then the
#    summary from `qinfer results --summary`
# 6. `qinfer replay` of the too_long failures with --policy truncate, served
#    too, so they end as results; the broker is stopped at the end.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
JOBS=${1:-3000}
RUN=run/quickstart
log() { printf '==> %s\n' "$*"; }

deploy/setup.sh

log "fresh run directory $RUN"
deploy/kafka-local.sh stop "$RUN/kafka" >/dev/null 2>&1 || true
rm -rf "$RUN"
mkdir -p "$RUN"
trap 'deploy/kafka-local.sh stop "$RUN/kafka" >/dev/null 2>&1 || true' EXIT

deploy/kafka-local.sh start "$RUN/kafka" 9092 >/dev/null
deploy/kafka-local.sh create-topic "$RUN/kafka" jobs 3 results 3 jobs-failed 1

log "exporting the model"
.venv/bin/python model/export_model.py --out "$RUN/model"
vocab=$(.venv/bin/python -c "import json;print(json.load(open('$RUN/model/manifest.json'))['vocab_size'])")
max_tokens=$(.venv/bin/python -c "import json;print(json.load(open('$RUN/model/manifest.json'))['max_tokens'])")

log "generating $JOBS jobs (plus 20 invalid or too long)"
.venv/bin/python model/make_jobs.py --out "$RUN/jobs.jsonl" --count "$JOBS" \
  --vocab "$vocab" --max-tokens "$max_tokens" --seed 7 --invalid 20
build/qinfer submit --brokers 127.0.0.1:9092 --topic jobs "$RUN/jobs.jsonl"

log "serving until every job has a record (metrics: http://127.0.0.1:9400/metrics)"
build/qinfer serve --config deploy/quickstart.yaml --idle-exit 3

log "summary"
build/qinfer results --store "$RUN/results" --summary

log "replaying the too_long failures with --policy truncate, then serving them"
build/qinfer replay --store "$RUN/results" --reason too_long --policy truncate \
  --brokers 127.0.0.1:9092 --topic jobs --no-progress
build/qinfer serve --config deploy/quickstart.yaml --idle-exit 3
build/qinfer results --store "$RUN/results"
cat <<EOT

Results are in the RocksDB store $RUN/results:
  build/qinfer results --store $RUN/results --id job-000001     one record
  build/qinfer results --store $RUN/results --export -          all, as JSONL
  build/qinfer results --store $RUN/results --export - --failures
Replies went to the Kafka topic 'results', failure records to 'jobs-failed'.
Replay failures: build/qinfer replay --store $RUN/results --reason oom --device cpu --dry-run
EOT
