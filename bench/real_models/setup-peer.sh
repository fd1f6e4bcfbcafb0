#!/usr/bin/env bash
# Makes the venv of one of bench/real_models's peers, cached by versions outside
# the clone, and prints its python on the last line of stdout.
#
#   bench/real_models/setup-peer.sh [--check] onnx|openvino
#
#   onnx      sentence-transformers' ONNX Runtime backend:
#             optimum-onnx[onnxruntime] + onnxruntime (sentence-transformers 5)
#   openvino  sentence-transformers' OpenVINO backend:
#             optimum-intel[openvino] + openvino
#
# Each venv (${QINFER_CACHE:-~/.cache/qinfer}/bench-venv-<peer>-<key>, the key
# a hash of the requirements, the project torch and the Python version) has no
# torch of its own: a .pth file puts the project venv's site-packages (torch,
# transformers, sentence-transformers, the MiniLM weights package) after its
# own, as bench/torchserve/setup.sh does, and a constraint holds torch at the
# project's version. The wheels are downloaded once into
# $QINFER_CACHE/wheels/bench-<peer>-<key> and installed from there with
# --no-index. When the registry refuses a package, the script exits 3 and
# its last stderr lines are pip's own error. --check: set nothing up; exit 0
# when the venv is there and complete, 1 when not.
#
# Environment: QINFER_CACHE, QINFER_PROJECT_VENV (default: as
# bench/torchserve/project-venv.sh finds it), QINFER_PIP_ARGS.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
QINFER_CACHE=${QINFER_CACHE:-$HOME/.cache/qinfer}
log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'minilm/setup-peer.sh: error: %s\n' "$*" >&2; exit 1; }

check_only=0
if [[ ${1:-} == --check ]]; then check_only=1; shift; fi
peer=${1:-}
case $peer in
  # optimum-onnx 0.1.0 (the newest) wants transformers < 4.58, which
  # sentence-transformers 6 (transformers >= 5) refuses: this venv has the
  # newest sentence-transformers 5 and the transformers they agree on.
  onnx) REQS=("sentence-transformers>=5,<6" "optimum-onnx[onnxruntime]==0.1.0" "onnxruntime==1.31.1")
        CHECK='import onnxruntime as m; from importlib.metadata import version as v
print("onnxruntime", m.__version__, "optimum-onnx", v("optimum-onnx"))' ;;
  openvino) REQS=("sentence-transformers==6.2.0" "optimum-intel[openvino]==2.2.0" "openvino==2026.4.1")
        CHECK='import openvino as m; from importlib.metadata import version as v
print("openvino", m.__version__, "optimum-intel", v("optimum-intel"))' ;;
  *) die "usage: setup-peer.sh onnx|openvino" ;;
esac

# shellcheck source=bench/torchserve/project-venv.sh
. "$REPO/bench/torchserve/project-venv.sh"
read -r torch_version project_site py base_python < <("$PROJECT_VENV/bin/python" -c '
import sys, sysconfig, torch
v = sys.version_info
print(torch.__version__.split("+")[0], sysconfig.get_paths()["purelib"], f"cp{v[0]}{v[1]}", sys._base_executable)') ||
  die "torch is not importable from $PROJECT_VENV (run deploy/setup.sh --no-build)"
key=$(printf '%s\n' "${REQS[@]}" "torch==$torch_version" "$py" | sha256sum | cut -c1-12)
venv=$QINFER_CACHE/bench-venv-$peer-$key
wheels=$QINFER_CACHE/wheels/bench-$peer-$key
marker=$venv/.qinfer-bench-peer
want="${REQS[*]} torch==$torch_version site=$project_site"

if [[ -f $marker && $(cat "$marker") == "$want" ]] && versions=$("$venv/bin/python" -c "$CHECK" 2>/dev/null); then
  log "minilm peer $peer: $versions (present in $venv)"
  echo "$venv/bin/python"
  exit 0
fi
(( check_only )) && exit 1
mkdir -p "$QINFER_CACHE/wheels"
exec 9>"$QINFER_CACHE/bench-venv-$peer.lock"
flock 9
[[ -x $venv/bin/python ]] && ! "$venv/bin/python" -c pass 2>/dev/null && rm -rf "$venv"
[[ -x $venv/bin/python ]] || { log "minilm peer $peer: creating $venv"; "$base_python" -m venv "$venv"; }
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# Before pip runs, so that pip counts the project's torch as installed.
echo "$project_site" >"$site/qinfer-project-venv.pth"
constraints=$venv/constraints.txt
echo "torch==$torch_version" >"$constraints"
if [[ ! -f $wheels/.complete ]]; then
  log "minilm peer $peer: resolving ${REQS[*]} and downloading what the project venv lacks into $wheels"
  rm -rf "$wheels.tmp"
  mkdir -p "$wheels.tmp"
  # Resolved against what the .pth puts on the path (torch above all), so
  # only the missing packages are listed; then exactly those, wheels only.
  # shellcheck disable=SC2086  # QINFER_PIP_ARGS is meant to be word-split
  if ! "$venv/bin/python" -m pip install --disable-pip-version-check --dry-run -q --report "$wheels.tmp/report.json" \
      -c "$constraints" ${QINFER_PIP_ARGS:-} "${REQS[@]}" 2>"$venv/pip-resolve.log" ||
     ! "$venv/bin/python" -c '
import json, sys
for item in json.load(open(sys.argv[1]))["install"]:
    print(item["metadata"]["name"] + "==" + item["metadata"]["version"])' "$wheels.tmp/report.json" \
      >"$wheels.tmp/pinned.txt" ||
     grep -qiE '^(torch|nvidia-.*)==' "$wheels.tmp/pinned.txt" ||
     ! "$venv/bin/python" -m pip download --disable-pip-version-check -q --no-deps --only-binary=:all: \
      -d "$wheels.tmp" ${QINFER_PIP_ARGS:-} -r "$wheels.tmp/pinned.txt" 2>>"$venv/pip-resolve.log"; then
    tail -n 20 "$venv/pip-resolve.log" >&2
    grep -iE '^(torch|nvidia-.*)==' "$wheels.tmp/pinned.txt" >&2 2>/dev/null || true
    echo "minilm/setup-peer.sh: the registry refused ${REQS[*]} (pip's error above; log $venv/pip-resolve.log)" >&2
    exit 3
  fi
  rm -rf "$wheels"
  mv "$wheels.tmp" "$wheels"
  touch "$wheels/.complete"
fi
log "minilm peer $peer: installing from $wheels"
if ! "$venv/bin/python" -m pip install --disable-pip-version-check -q --no-index --find-links "$wheels" \
    -c "$constraints" "${REQS[@]}" 2>"$venv/pip-install.log"; then
  tail -n 20 "$venv/pip-install.log" >&2
  echo "minilm/setup-peer.sh: installing ${REQS[*]} failed (log $venv/pip-install.log)" >&2
  exit 3
fi
[[ ! -e $site/torch ]] || die "$site/torch exists: a second torch got into $venv"
versions=$("$venv/bin/python" -c "$CHECK") || die "$peer is not importable from $venv"
echo "$want" >"$marker"
log "minilm peer $peer: $versions installed in $venv"
echo "$venv/bin/python"
