#!/usr/bin/env bash
# The flake hunt (not part of CI): runs the test labels that talk to a broker
# (integration, fuzz by default) several times under timings other than this
# machine's own, and tabulates each run's verdicts, so that a test whose
# verdict depends on which of two racing events comes first shows up here
# before it shows up on another machine's CI.
#
#   tests/flake_hunt.sh [--modes plain,load,one-core,shuffle] [--runs N]
#                       [--labels 'integration|fuzz'] [--build DIR]
#                       [--out FILE] [-- extra ctest args]
#
# Modes:
#   plain     ctest as CI runs it (-j2);
#   load      a busy loop on every core beside the tests (each test process gets
#             about half the CPU it would get alone; at nice 19 beside the loops
#             it would get about 1.5%, which starves a serve rather than
#             perturbing it);
#   one-core  the tests (and the broker the fixture starts) under taskset to
#             core 0, -j1;
#   shuffle   ctest --schedule-random, -j2.
# Each run of each mode writes its ctest log under the output folder; the
# table (mode, run, passed, failed, seconds, the failed tests) goes to
# stdout and to FILE (default: <build>/flake-hunt/table.md).
# Expects a build made by deploy/setup.sh (deploy/test.sh does it first).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
modes=plain,load,one-core,shuffle
runs=5
labels='integration|fuzz'
build="$REPO/build"
out=""
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --modes) modes=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --labels) labels=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "flake_hunt.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -f "$build/CTestTestfile.cmake" ]] || { echo "flake_hunt.sh: no build at $build: run deploy/setup.sh" >&2; exit 2; }
logs="$build/flake-hunt"
mkdir -p "$logs"
out=${out:-$logs/table.md}
cores=$(nproc)

load_pids=()
start_load() {
  for ((c = 0; c < cores; c++)); do
    ( while :; do :; done ) &
    load_pids+=($!)
  done
}
stop_load() {
  for p in "${load_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait "${load_pids[@]}" 2>/dev/null || true
  load_pids=()
}
trap stop_load EXIT

printf '| mode | run | passed | failed | seconds | failed tests |\n|---|---|---|---|---|---|\n' | tee "$out"
IFS=, read -ra mode_list <<< "$modes"
for mode in "${mode_list[@]}"; do
  for ((r = 1; r <= runs; r++)); do
    log="$logs/$mode-$r.log"
    cmd=(ctest --test-dir "$build" -L "$labels" --output-on-failure --timeout 900)
    case "$mode" in
      plain) cmd+=(-j2) ;;
      load) start_load; cmd+=(-j2) ;;
      one-core) cmd=(taskset -c 0 "${cmd[@]}" -j1) ;;
      shuffle) cmd+=(-j2 --schedule-random) ;;
      *) echo "flake_hunt.sh: unknown mode '$mode'" >&2; exit 2 ;;
    esac
    began=$(date +%s)
    "${cmd[@]}" "${extra[@]}" > "$log" 2>&1 || true
    took=$(( $(date +%s) - began ))
    [[ "$mode" == load ]] && stop_load
    passed=$(grep -oE '[0-9]+ tests? failed out of [0-9]+' "$log" | tail -1 || true)
    total=$(sed -nE 's/.* failed out of ([0-9]+).*/\1/p' <<< "$passed")
    failed=$(sed -nE 's/^([0-9]+) tests? failed.*/\1/p' <<< "$passed")
    # ctest says "100% tests passed, 0 tests failed out of N".
    failed=${failed:-$(grep -oE '[0-9]+ tests failed out of' "$log" | tail -1 | cut -d' ' -f1 || true)}
    names=$(sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+) \((Failed|Timeout|Exception|SEGFAULT|Not Run).*/\1/p' "$log" | sort -u | paste -sd, - || true)
    printf '| %s | %d | %s | %s | %d | %s |\n' "$mode" "$r" "$(( ${total:-0} - ${failed:-0} ))" "${failed:-?}" \
      "$took" "${names:--}" | tee -a "$out"
  done
done
