#!/usr/bin/env bash
# Installs TorchServe 0.12.0 into a venv of its own, for bench/torchserve/run.py.
#
#   bench/torchserve/setup.sh        # prints the venv's python on its last line
#
# The venv gets torchserve, torch-model-archiver and pyyaml from PyPI, but NOT
# torch: a .pth file puts the project venv's site-packages (torch 2.8.0,
# numpy) on its path, so TorchServe's workers run exactly the torch that
# qinfer links against. The TorchServe venv's own site-packages come first on
# sys.path, the project's after it.
#
# Skipped when the marker file says it is done (re-running is cheap). The
# wheels are kept in $QINFER_CACHE/wheels/torchserve-0.12.0-<py> and installed
# from there with --no-index, like deploy/setup.sh does for torch.
#
# Needs: the project venv (deploy/setup.sh step 2) and java 17
# (default-jdk-headless, deploy/setup.sh step 1).
#
# Environment:
#   QINFER_CACHE             cache root (default ~/.cache/qinfer)
#   QINFER_TORCHSERVE_VENV   the venv (default $QINFER_CACHE/torchserve-venv-0.12.0)
#   QINFER_PROJECT_VENV      the project venv (default <repo>/.venv; in a git
#                            worktree without one, the main checkout's .venv)
#   QINFER_PIP_ARGS          extra pip arguments (e.g. an --index-url)
set -euo pipefail

TS_VERSION=0.12.0
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
QINFER_CACHE=${QINFER_CACHE:-$HOME/.cache/qinfer}
TS_VENV=${QINFER_TORCHSERVE_VENV:-$QINFER_CACHE/torchserve-venv-$TS_VERSION}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'torchserve/setup.sh: error: %s\n' "$*" >&2; exit 1; }

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi

# ------------------------------------------------------------ project venv
# shellcheck source=bench/torchserve/project-venv.sh
. "$HERE/project-venv.sh"
project_venv=$PROJECT_VENV
read -r torch_version project_site py_version < <("$project_venv/bin/python" -c '
import sys, sysconfig, torch
print(torch.__version__, sysconfig.get_paths()["purelib"], f"{sys.version_info[0]}.{sys.version_info[1]}")') ||
  die "torch is not importable from $project_venv (run deploy/setup.sh --no-build)"

# ------------------------------------------------------------ java
# TorchServe's frontend is a Java program; its install docs ask for JDK 17,
# Debian 12's default-jdk-headless (deploy/setup.sh step 1 installs it).
# (The launcher runs $JAVA_HOME/bin/java when JAVA_HOME is set.)
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
command -v "$java" >/dev/null ||
  die "java not found ($java): TorchServe 0.12 needs Java 17 (apt-get install default-jdk-headless, as deploy/setup.sh does)"
java_major=$("$java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
[[ -n $java_major && $java_major -ge 17 ]] ||
  die "$(command -v "$java") is Java '${java_major:-unknown}'; TorchServe 0.12 needs Java 17 (apt-get install default-jdk-headless)"

# ------------------------------------------------------------ venv
# The marker holds what the venv was built for; a different project torch or
# project venv path rebuilds the .pth and re-checks.
marker=$TS_VENV/.qinfer-torchserve
want="torchserve=$TS_VERSION torch=$torch_version site=$project_site"
ts_ok() {
  "$TS_VENV/bin/python" - "$torch_version" 2>/dev/null <<'PY'
import sys, torch, ts, model_archiver, yaml
from importlib.metadata import version
assert torch.__version__ == sys.argv[1], (torch.__version__, sys.argv[1])
assert version("torchserve") == "0.12.0" and version("torch-model-archiver") == "0.12.0"
print("torchserve", version("torchserve"), "torch", torch.__version__, "from", torch.__file__)
PY
}
if [[ -f $marker && $(cat "$marker") == "$want" ]] && versions=$(ts_ok); then
  log "torchserve: $versions (present in $TS_VENV)"
  echo "$TS_VENV/bin/python"
  exit 0
fi

mkdir -p "$QINFER_CACHE"
if [[ -x $TS_VENV/bin/python ]] && ! "$TS_VENV/bin/python" -c pass 2>/dev/null; then
  log "torchserve: $TS_VENV is broken; recreating it"
  rm -rf "$TS_VENV"
fi
if [[ ! -x $TS_VENV/bin/python ]]; then
  # The same interpreter as the project venv: its site-packages hold
  # compiled extensions (torch) built for that Python.
  base_python=$("$project_venv/bin/python" -c 'import sys; print(sys._base_executable)')
  log "torchserve: creating $TS_VENV with $base_python"
  "$base_python" -m venv "$TS_VENV"
fi
ts_site=$("$TS_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
ts_py=$("$TS_VENV/bin/python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
[[ $ts_py == "$py_version" ]] ||
  die "$TS_VENV runs Python $ts_py but the project venv $py_version; remove $TS_VENV and re-run"
# Written before pip runs, so pip sees the project's packages (numpy,
# packaging, ...) as installed and does not add second copies of them.
echo "$project_site" >"$ts_site/qinfer-project-venv.pth"

# torchserve 0.12.0 imports yaml (ts/utils/util.py, ts/metrics/*, which the
# worker loads at start-up) but does not declare PyYAML as a dependency, so it
# is named here. (When the project venv already has PyYAML, pip takes that
# one.)
REQS=("torchserve==$TS_VERSION" "torch-model-archiver==$TS_VERSION" pyyaml)
wheels=$QINFER_CACHE/wheels/torchserve-$TS_VERSION-cp${py_version/./}
if [[ ! -f $wheels/.complete ]]; then
  log "torchserve: downloading ${REQS[*]} and their dependencies into $wheels"
  rm -rf "$wheels.tmp"
  # shellcheck disable=SC2086  # QINFER_PIP_ARGS is meant to be word-split
  "$TS_VENV/bin/python" -m pip download --disable-pip-version-check -q \
    --only-binary=:all: -d "$wheels.tmp" ${QINFER_PIP_ARGS:-} "${REQS[@]}"
  if compgen -G "$wheels.tmp/torch-[0-9]*.whl" >/dev/null; then
    die "resolving ${REQS[*]} pulled in torch; refusing to install a second torch"
  fi
  rm -rf "$wheels"
  mv "$wheels.tmp" "$wheels"
  touch "$wheels/.complete"
fi
log "torchserve: installing ${REQS[*]} from $wheels"
"$TS_VENV/bin/python" -m pip install --disable-pip-version-check -q --no-index \
  --find-links "$wheels" "${REQS[@]}"
[[ ! -e $ts_site/torch ]] || die "$ts_site/torch exists: a second torch got into $TS_VENV"
versions=$(ts_ok) || die "torch $torch_version or torchserve $TS_VERSION not importable from $TS_VENV"
echo "$want" >"$marker"
log "torchserve: $versions installed in $TS_VENV"
echo "$TS_VENV/bin/python"
