#!/usr/bin/env bash
# The policies benchmark, one command: qinfer's executor policy against real
# TorchServe and against the other executor policies, and the service end to
# end, on four seeded workloads of a small generated model, on this machine's
# CPU. (The real models, MiniLM, MPNet and Qwen3: bench/real_models/run.sh.)
#
#   bench/policies/run.sh [--jobs N] [--rounds R] [--out DIR] [--smoke]
#
# What it does (docs/benchmarks/policies.md says more):
#   1. deploy/setup.sh (packages, venv, build; skipped parts that exist) and
#      bench/torchserve/setup.sh (TorchServe 0.12 in a venv of its own);
#   2. exports the benchmark model (model/export_model.py --vocab 30522) and
#      the workloads (bench/common/workloads.py: lognormal-0.5, lognormal-1.0,
#      bimodal, text), N jobs each (default 1000);
#   3. per workload: the executor policies side by side (build/bench/
#      policy_bench, R rounds, default 3) and the whole service end to end on
#      a local broker (bench/common/e2e.py, R rounds); then real TorchServe at batch 8 and 32
#      on every workload (bench/torchserve/run.py, R rounds);
#   4. the pipeline's own ceiling with a no-op model beside kcat
#      (bench/pipeline/run.sh);
#   5. bench/policies/report.py: DIR/benchmarks.json (stamped with the
#      machine, the commit and the date), copied to
#      bench/policies/results/benchmarks.json, whose figures the page
#      docs/benchmarks/policies.md shows, and its chart
#      docs/benchmarks/policies.png. Default DIR: bench/policies/results/latest.
#
# --smoke: a seconds-long run for CI (the bimodal and text workloads of 40
# jobs, 1 round, TorchServe at batch 8 only, a 2,000-job pipeline run) into a temporary DIR (or --out; the temporary one is removed when the
# smoke passes and kept when it fails); it writes its report there, not to
# docs/, and fails unless every policy processed every job and every report
# file has every field. Environment: QINFER_BENCH_SKIP_SETUP=1 skips step 1's
# deploy/setup.sh (ctest runs it after the build); QINFER_BIN_DIR (default
# build) is where qinfer and bench/policy_bench are.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"
JOBS=1000
ROUNDS=3
OUT=
SMOKE=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --jobs) JOBS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --smoke) SMOKE=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/policies/run.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
PIPELINE_JOBS=100000
PIPELINE_ROUNDS=3
WORKLOADS=(lognormal-0.5 lognormal-1.0 bimodal text)
TS_BATCHES=(8 32)
if (( SMOKE )); then
  JOBS=40
  ROUNDS=1
  PIPELINE_JOBS=2000
  PIPELINE_ROUNDS=1
  # What a smoke checks is that every policy and every path runs and reports
  # every field, not the figures: bimodal (short and long jobs: every bucket)
  # and text (the real-text trace) cover the paths the two lognormal
  # workloads take, and TorchServe at batch 32 is batch 8's harness.
  WORKLOADS=(bimodal text)
  TS_BATCHES=(8)
  if [[ -z ${OUT:-} ]]; then
    # A smoke's own folder goes when it passes; a failed one keeps it.
    OUT=$(mktemp -d /tmp/qinfer-bench-smoke.XXXXXX)
    SMOKE_TMP=1
  fi
fi
OUT=${OUT:-bench/policies/results/latest}
BIN=${QINFER_BIN_DIR:-build}
PY=$REPO/.venv/bin/python
THREADS=2
DEVICE=cpu-budget:256MiB
# qinfer:0.2 is (c) with a looser scheduler.max_padding, measured beside the
# default (0.08) because a looser bound trades padding for larger batches.
POLICIES=arrival8,shared,qinfer,ideal,qinfer_arrival,sorted64,qinfer:0.2
log() { printf '==> bench %s: %s\n' "$(date +%T)" "$*" >&2; }
started=$(date +%s)

if [[ ${QINFER_BENCH_SKIP_SETUP:-0} != 1 ]]; then
  log "setup (deploy/setup.sh)"
  deploy/setup.sh >&2
fi
TS_PY=$(bench/torchserve/setup.sh | tail -n 1)
for f in "$BIN/qinfer" "$BIN/bench/policy_bench"; do
  [[ -x $f ]] || { echo "bench/policies/run.sh: $f is missing: build first (deploy/setup.sh)" >&2; exit 2; }
done

rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
log "results in $OUT ($JOBS jobs per workload, $ROUNDS rounds)"
"$PY" model/export_model.py --out "$OUT/model" --vocab 30522 >&2
"$PY" bench/common/workloads.py --out "$OUT" --count "$JOBS" --names "$(IFS=,; echo "${WORKLOADS[*]}")"

# auto: a free port pair, another when a test beside this one takes a port
# between the pick and the broker's bind.
BROKERS=$(deploy/kafka-local.sh start "$OUT/kafka" auto)
trap 'rc=$?; deploy/kafka-local.sh stop "$OUT/kafka" >/dev/null 2>&1 || true
      if (( ${SMOKE_TMP:-0} )); then
        if (( rc == 0 )); then rm -rf "$OUT"; else log "kept $OUT (the smoke failed)"; fi
      fi' EXIT

for workload in "${WORKLOADS[@]}"; do
  jobs=$OUT/$workload.jsonl
  log "$workload: executor policies"
  "$BIN/bench/policy_bench" --model "$OUT/model" --jobs "$jobs" --workload "$workload" \
    --out "$OUT/policy-$workload.json" --device "$DEVICE" --threads "$THREADS" --rounds "$ROUNDS" \
    --policies "$POLICIES" --plan-cache "$OUT/plan.json" 2> >(grep -v ' info ' >&2)
  log "$workload: qinfer serve end to end"
  "$PY" bench/common/e2e.py --qinfer "$BIN/qinfer" --brokers "$BROKERS" --kafka-dir "$OUT/kafka" --model "$OUT/model" \
    --jobs "$jobs" --workload "$workload" --device "$DEVICE" --threads "$THREADS" --store "$OUT/e2e-store" \
    --rounds "$ROUNDS" --out "$OUT/e2e-$workload.json"
done

# One TorchServe start per batch size replays every workload in turn.
for batch in "${TS_BATCHES[@]}"; do
  log "real TorchServe, batch $batch, every workload"
  args=()
  for workload in "${WORKLOADS[@]}"; do
    args+=(--jobs "$OUT/$workload.jsonl" --out "$OUT/torchserve-$workload-b$batch.json")
  done
  # TorchServe's work folder (its config and logs, kept for a look
  # afterwards) goes inside a smoke's own folder, which goes when it passes.
  TMPDIR=$( (( ${SMOKE_TMP:-0} )) && echo "$OUT" || echo "${TMPDIR:-/tmp}") \
    "$TS_PY" bench/torchserve/run.py --model "$OUT/model" --batch-size "$batch" --threads "$THREADS" \
    --rounds "$ROUNDS" "${args[@]}" >/dev/null
done

log "pipeline ceiling (no-op model, $PIPELINE_JOBS jobs)"
QINFER_BENCH_BROKERS=$BROKERS QINFER_BIN=$BIN/qinfer bench/pipeline/run.sh --jobs "$PIPELINE_JOBS" --rounds "$PIPELINE_ROUNDS" \
  --out "$OUT/pipeline.json" >&2

command="bench/policies/run.sh"
(( SMOKE )) && command="bench/policies/run.sh --smoke"
if (( SMOKE )); then
  "$PY" bench/policies/report.py --results "$OUT" --json "$OUT/benchmarks.json" --markdown "$OUT/BENCHMARKS.md" \
    --chart "$OUT/benchmarks.png" --command "$command" --check --torchserve-batches "$(IFS=,; echo "${TS_BATCHES[*]}")"
else
  [[ $JOBS == 1000 && $ROUNDS == 3 ]] || command="bench/policies/run.sh --jobs $JOBS --rounds $ROUNDS"
  "$PY" bench/policies/report.py --results "$OUT" --json "$OUT/benchmarks.json" --markdown "$OUT/BENCHMARKS.md" \
    --chart docs/benchmarks/policies.png --command "$command"
  cp "$OUT/benchmarks.json" bench/policies/results/benchmarks.json
fi
log "done in $(( $(date +%s) - started )) s"
