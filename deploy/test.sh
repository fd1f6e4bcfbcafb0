#!/usr/bin/env bash
# README command 2: set everything up and run the whole test suite.
#
#   deploy/test.sh [ctest args...]     e.g. deploy/test.sh -L integration
#
# Builds with warnings as errors, then runs ctest: unit tests, executor tests
# on the generated model, and integration tests against a real Kafka broker
# that ctest's `kafka` fixture starts (deploy/kafka-local.sh, port 19092) and
# stops. GPU tests (label gpu) skip with a reason on machines without one.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
QINFER_CMAKE_ARGS="${QINFER_CMAKE_ARGS:-} -DQINFER_WERROR=ON" deploy/setup.sh
build=${QINFER_BUILD_DIR:-build}
# ctest shows no output for skipped tests; say here why the GPU tests skip
# (or that they run) before the full run, whose summary stays last.
printf '==> GPU tests (label gpu) on this machine:\n'
ctest --test-dir "$build" -L gpu -V 2>&1 | grep -E "no CUDA device|CUDA device: a CPU-only|Passed|Failed" | sed 's/^[0-9]*: /  /' | sort -u || true
# Two at a time. The tests that stop the shared broker, kill processes at
# chosen moments or bound how long something takes are RUN_SERIAL and run
# alone (tests/integration/CMakeLists.txt).
printf '==> ctest\n'
ctest --test-dir "$build" --output-on-failure --timeout 900 -j2 "$@"
