#!/usr/bin/env bash
# The mutation check (not part of CI; about 30-40 minutes on 2 cores):
# applies each deliberate break of the code behind qinfer's guarantees in
# tests/mutation/mutants.py, one at a time, rebuilds incrementally, runs the
# tests that should catch it, restores the source, and reports which mutants
# survived.
#
#   tests/mutation/run.sh [SUBSTRING...]  only the mutants whose name contains one
#
# Needs a configured build (deploy/test.sh or deploy/build.sh) in
# $QINFER_BUILD_DIR (default build/). Starts its own broker on port 19292
# (or $QINFER_MUTATION_PORT; kept in BUILD/kafka-mutation) for the mutants
# checked by integration
# tests, and stops it at the end. Leaves the sources as they were, even when
# interrupted. Report: BUILD/mutation-report.txt.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${QINFER_BUILD_DIR:-$REPO/build}
PORT=${QINFER_MUTATION_PORT:-19292}
[[ -f $BUILD/CMakeCache.txt ]] || { echo "run.sh: no build in $BUILD: run deploy/build.sh first" >&2; exit 1; }
if ! git -C "$REPO" diff --quiet; then
  echo "run.sh: the work tree has changes; commit or stash them first (mutants are restored from the files as they are)" >&2
  exit 1
fi
"$REPO/deploy/kafka-local.sh" start "$BUILD/kafka-mutation" "$PORT" >/dev/null
trap '"$REPO/deploy/kafka-local.sh" stop "$BUILD/kafka-mutation" >/dev/null 2>&1 || true; git -C "$REPO" checkout -- . 2>/dev/null || true' EXIT
QINFER_MUTATION_BUILD_DIR=$BUILD QINFER_MUTATION_BROKERS=127.0.0.1:$PORT \
  "$REPO/.venv/bin/python" "$REPO/tests/mutation/run.py" "$@"
