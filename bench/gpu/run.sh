#!/usr/bin/env bash
# The executor comparison on a CUDA machine, in one command (see
# docs/benchmarks/gpu.md). Builds policy_bench against this machine's torch and
# bench/gpu/vendor/ (gathered first by bench/gpu/gather.sh if it is missing),
# first runs the GPU path's checks (bench.py checks: the tiny and MiniLM-shaped
# models as TorchScript at the 24 GiB cap, MiniLM as AOTInductor packages
# compiled here, and forced OOMs under a ~280 MiB cap, each compared with the
# TorchScript run's outputs) within --checks-minutes, then exports the model,
# writes the workloads and runs every policy on each of them with bf16
# autocast on a 24 GiB share of the card, all within --minutes.
#
#   bench/gpu/run.sh [--minutes 8] [--checks-minutes 3] [--out DIR] [--python PY] [--model bert-base|minilm|tiny]
#                    [--rounds 3] [--jobs N] [--threads 4] [--max-batch-size N]
#                    [--policies arrival8,shared,qinfer,ideal,sorted64,qinfer:0.2] [--build-dir DIR]
#                    [--device cpu-budget:512MiB]   # test hook: no GPU
#
# Exit status: 0 done; 1 no CUDA device (or no torch, CMake, nvcc, or no
# bench/gpu/vendor/ and it could not be gathered here); 2 bad arguments; 3 a
# workload timed out or got no time; 4 a policy_bench run or a check failed;
# other: a build or export step failed.
set -euo pipefail
start=$(date +%s)

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
minutes=8
checks_minutes=3
out=$REPO/bench/gpu/results
python=python3
build_dir=$REPO/build-gpu-bench
device=""
driver_args=()

usage() { sed -n '/^#   bench\/gpu\/run.sh/,/test hook/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
  case $1 in
    --minutes) minutes=${2:?}; shift 2 ;;
    --checks-minutes) checks_minutes=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --python) python=${2:?}; shift 2 ;;
    --build-dir) build_dir=${2:?}; shift 2 ;;
    --device) device=${2:?}; shift 2 ;;
    --model | --rounds | --jobs | --threads | --max-batch-size | --policies)
      driver_args+=("$1" "${2:?}"); shift 2 ;;
    -h | --help) usage ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $minutes =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "run.sh: --minutes takes a number" >&2; exit 2; }
[[ $checks_minutes =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "run.sh: --checks-minutes takes a number" >&2; exit 2; }
deadline=$(awk -v s="$start" -v m="$minutes" 'BEGIN { printf "%d", s + m * 60 }')
mkdir -p "$out"
out=$(cd "$out" && pwd)
exec > >(tee "$out/run.log") 2>&1

log() { printf '==> [%3ds] %s\n' $(($(date +%s) - start)) "$*"; }
die() { echo "run.sh: $*" >&2; exit 1; }

# 0. What the machine has.
command -v "$python" >/dev/null || die "no $python: pass --python /path/to/python (the one with torch)"
python=$(command -v "$python")
[[ $python == /* ]] || python=$PWD/$python
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
  die "$python is $("$python" -V 2>&1); model/export_model.py needs Python >= 3.10 (pass --python)"
command -v cmake >/dev/null || die "no cmake on PATH"
log "device: $python with $("$python" -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1)"
"$python" "$REPO/bench/gpu/bench.py" device --device "$device" || exit 1

# 1. The gathered dependencies (bench/gpu/CMakeLists.txt checks them against
# bench/gpu/vendor.lock), then the build (incremental when $build_dir is
# already configured).
vendor=$REPO/bench/gpu/vendor
if [[ ! -d $vendor ]]; then
  log "gather: no $vendor, so bench/gpu/gather.sh"
  "$REPO/bench/gpu/gather.sh" ||
    die "no $vendor, and bench/gpu/gather.sh could not gather it here (it says why above). Run bench/gpu/gather.sh where Debian's archive is reachable and bring bench/gpu/vendor/ along with the tree (docs/benchmarks/gpu.md)"
fi
cmake_args=(-S "$REPO/bench/gpu" -B "$build_dir" -DQINFER_PYTHON="$python")
if [[ -n $device ]]; then
  cmake_args+=(-DQINFER_GPU_REQUIRE_CUDA=OFF)
else
  cmake_args+=(-DQINFER_GPU_REQUIRE_CUDA=ON)
  # The wheel's CMake package enables CUDA only when it finds nvcc.
  if [[ -z ${CUDACXX:-} ]] && ! command -v nvcc >/dev/null; then
    for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda /opt/cuda; do
      if [[ -n $d && -x $d/bin/nvcc ]]; then export CUDACXX=$d/bin/nvcc PATH=$d/bin:$PATH; break; fi
    done
  fi
  [[ -n ${CUDACXX:-} ]] || command -v nvcc >/dev/null ||
    die "no nvcc (CUDA toolkit) on PATH, in \$CUDA_HOME or /usr/local/cuda; set CUDACXX=/path/to/nvcc"
fi
if [[ ! -f $build_dir/CMakeCache.txt ]] && command -v ninja >/dev/null; then cmake_args+=(-G Ninja); fi
build_jobs=${QINFER_JOBS:-$(nproc)}
log "build: cmake ${cmake_args[*]}"
build_start=$(date +%s)
mkdir -p "$build_dir"
cmake "${cmake_args[@]}" >"$build_dir/configure.log" 2>&1 || { cat "$build_dir/configure.log"; die "configure failed"; }
grep -E 'libtorch|gpu bench:' "$build_dir/configure.log" || true
log "build: cmake --build $build_dir --target policy_bench -j$build_jobs"
cmake --build "$build_dir" --target policy_bench -j"$build_jobs"
build_s=$(($(date +%s) - build_start))
log "build: done in ${build_s} s"

# 2. The GPU path's checks, in their own share of the time (0: none).
set +e
checks_rc=0
if [[ $checks_minutes != 0 && $checks_minutes != 0.0 ]]; then
  checks_deadline=$(awk -v s="$(date +%s)" -v m="$checks_minutes" -v d="$deadline" \
    'BEGIN { t = s + m * 60; printf "%d", (t < d ? t : d) }')
  log "checks: until $(date -d "@$checks_deadline" +%H:%M:%S 2>/dev/null || echo "$checks_deadline")"
  "$python" "$REPO/bench/gpu/bench.py" checks --policy-bench "$build_dir/bench/policy_bench" \
    --work "$build_dir/bench-work" --out "$out" --deadline "$checks_deadline" --device "$device"
  checks_rc=$?
  log "checks: done (status $checks_rc)"
fi

# 3-4. Model, workloads, runs, summary.
log "bench: until $(date -d "@$deadline" +%H:%M:%S 2>/dev/null || echo "$deadline")"
"$python" "$REPO/bench/gpu/bench.py" run --policy-bench "$build_dir/bench/policy_bench" \
  --work "$build_dir/bench-work" --out "$out" --start "$start" --deadline "$deadline" \
  --build-seconds "$build_s" --device "$device" ${driver_args[@]+"${driver_args[@]}"}
rc=$?
set -e
((rc == 0)) && rc=$checks_rc
log "done (status $rc); results in $out"
exit $rc
