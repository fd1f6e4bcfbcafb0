#!/usr/bin/env bash
# Configures and builds qinfer with CMake + Ninja. deploy/setup.sh calls it
# last; call it directly after the dependencies are in place.
#
#   deploy/build.sh [extra cmake configure args...]
#
# Environment:
#   QINFER_BUILD_DIR   build directory (default <repo>/build)
#   QINFER_BUILD_TYPE  CMAKE_BUILD_TYPE (default RelWithDebInfo: -O2, line tables
#                      only, CMakeLists.txt; Debug for full debug information)
#   QINFER_CMAKE_ARGS  extra configure args, word-split (e.g. "-DQINFER_WERROR=ON")
#   QINFER_JOBS        parallel compile jobs (default: number of CPUs)
#   QINFER_CACHE       cache root (default ~/.cache/qinfer); compiler outputs
#                      are kept in $QINFER_CACHE/ccache when ccache is
#                      installed (deploy/setup.sh installs it), so a fresh
#                      clone on the same machine (CI) rebuilds from the cache
#   QINFER_CCACHE      0 = do not use ccache
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${QINFER_BUILD_DIR:-$REPO/build}
JOBS=${QINFER_JOBS:-$(nproc)}

log() { printf '==> %s\n' "$*"; }

# CMake refuses to switch generators in an existing build tree; say so
# plainly instead of deleting someone's build directory.
cache=$BUILD_DIR/CMakeCache.txt
if [[ -f $cache ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then
  echo "build.sh: $BUILD_DIR was configured with another generator;" \
       "remove it or set QINFER_BUILD_DIR" >&2
  exit 1
fi

# Compiler cache, keyed by ccache on the preprocessed source and the flags:
# paths are taken relative to the repository (base_dir, no working directory
# in the hash), so another clone of the same tree hits the same entries.
launcher=()
if [[ ${QINFER_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-${QINFER_CACHE:-$HOME/.cache/qinfer}/ccache}
  export CCACHE_BASEDIR=$REPO CCACHE_NOHASHDIR=1
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  log "build: ccache in $CCACHE_DIR"
fi

# shellcheck disable=SC2086  # QINFER_CMAKE_ARGS is meant to be word-split
args=(-S "$REPO" -B "$BUILD_DIR" -G Ninja "${launcher[@]}"
      -DCMAKE_BUILD_TYPE="${QINFER_BUILD_TYPE:-RelWithDebInfo}"
      ${QINFER_CMAKE_ARGS:-} "$@")
log "build: cmake ${args[*]}"
cmake "${args[@]}"
log "build: cmake --build $BUILD_DIR -j$JOBS"
cmake --build "$BUILD_DIR" -j"$JOBS"
if ((${#launcher[@]})); then
  log "build: ccache totals: $(ccache --print-stats 2>/dev/null | awk -F'\t' '$1=="direct_cache_hit"||$1=="preprocessed_cache_hit"{h+=$2} $1=="cache_miss"{m=$2} END{printf "hits %d, misses %d", h, m}')"
fi
log "build: done ($BUILD_DIR)"
