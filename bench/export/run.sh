#!/usr/bin/env bash
# `qinfer results --export` to Parquet beside JSONL (bench/export/export_bench.py says how).
#
#   bench/export/run.sh [--records 1000000] [--rounds 3] [--encodings float,base64] [--baseline BIN] [--out FILE.json]
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
py=${QINFER_PYTHON:-$REPO/.venv/bin/python}
exec "$py" "$REPO/bench/export/export_bench.py" "$@"
