#!/usr/bin/env bash
# The pipeline ceiling: N tiny jobs through `qinfer serve` with a no-op
# model, storage only and with replies on, beside kcat reading the same
# topic. Builds nothing; takes under 2 minutes for 100,000 jobs.
#
#   bench/pipeline/run.sh [--jobs N] [--out FILE.json] [--rounds R]
#                         [--partitions P] [--max-batch-size B] [--threads T]
#                         [--arms kcat,storage,replies] [--set KEY=VALUE]...
#                         [--dim D] [--encodings float,base64,...]
#                         [--perf] [--keep]
#                         [--workload text [--tokenizer-threads 1,2]]
#
#   --jobs N            jobs (1-4 token ids each; default 100000)
#   --out FILE          results JSON (default bench/pipeline/results/pipeline.json)
#   --rounds R          rounds of every arm; medians are reported (default 3)
#   --partitions P      partitions of the jobs topic (default 1)
#   --max-batch-size B  scheduler.max_batch_size of the serve runs (default 64)
#   --threads T         model.threads (default 1)
#   --arms LIST         which arms run (default kcat,storage,replies)
#   --set KEY=VALUE     a configuration key of every serve run (repeatable),
#                       e.g. kafka.producer.linger.ms=25
#   --dim D             the no-op model's output width (default 8; 384 is MiniLM's)
#   --encodings LIST    also a storage-only run per output.encoding in LIST each
#                       round, side by side (e.g. --arms "" --encodings float,base64)
#   --perf              run each serve under `perf record -g`; keeps the data
#   --keep              keep the work directory (stores, logs, configs)
#   --workload text     text jobs of 8-40 words instead, tokenized by serve
#                       with MiniLM's tokenizer (storage only); each round
#                       first measures the single-thread tokenizer
#                       (bench/tokenizer_bench) and Python `tokenizers` on
#                       the same texts, and each run is read against its
#                       round's rates
#   --tokenizer-threads L  text: the tokenizer.threads values, side by side
#                       each round (default 1,2)
#
# Environment:
#   QINFER_BIN            the qinfer binary (default <repo>/build/qinfer)
#   QINFER_BENCH_BROKERS  use this broker instead of starting one
#                         (deploy/kafka-local.sh on a free port, stopped at
#                         the end)
#   QINFER_PERF_CALLGRAPH perf's call-graph option with --perf (default -g;
#                         "--call-graph dwarf" unwinds through libc and
#                         RocksDB, which have no frame pointers)
#   QINFER_PYTHON         Python with torch (default <repo>/.venv/bin/python,
#                         else the QINFER_PYTHON of <repo>/build)
#
# JSON: {jobs, tokens, rounds, kcat_msgs_per_s, storage_only_jobs_per_s,
# replies_jobs_per_s (medians), submit_seconds, bench_seconds, runs{kcat,
# storage, replies: one object per round}, setup{command, qinfer, commit,
# date, machine, brokers, partitions, max_batch_size, model_threads, model},
# definitions{...}}; with --workload text: {single_thread_texts_per_s,
# python_single_thread_texts_per_s (medians over rounds), tokenizer_threads
# {N: {jobs_per_s, ratio_to_threads_x_single, ratio_to_threads_x_python_single,
# stages, runs}}, definitions{...}}. How a serve run is timed:
# docs/benchmarks/pipeline.md.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi

py=${QINFER_PYTHON:-}
if [[ -z $py && -x $REPO/.venv/bin/python ]]; then py=$REPO/.venv/bin/python; fi
if [[ -z $py && -f $REPO/build/CMakeCache.txt ]]; then
  py=$(sed -n 's/^QINFER_PYTHON:FILEPATH=//p' "$REPO/build/CMakeCache.txt")
fi
[[ -n $py && -x $py ]] || {
  echo "run.sh: no Python with torch (run deploy/setup.sh, or set QINFER_PYTHON)" >&2
  exit 2
}
exec "$py" "$REPO/bench/pipeline/pipeline_bench.py" --python "$py" "$@"
