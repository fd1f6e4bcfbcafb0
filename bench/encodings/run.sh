#!/usr/bin/env bash
# Store bytes per MiniLM result in each output encoding (bench/encodings/encodings_bench.py says how).
#
#   bench/encodings/run.sh [--texts N] [--out FILE.json]
#
# Records/s at the no-op ceiling's workload, float beside base64:
#   bench/pipeline/run.sh --dim 384 --arms "" --encodings float,base64
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
py=${QINFER_PYTHON:-$REPO/.venv/bin/python}
exec "$py" "$REPO/bench/encodings/encodings_bench.py" "$@"
