#!/usr/bin/env bash
# Configures and builds qinfer with CMake + Ninja. deploy/setup.sh calls it
# last; call it directly after the dependencies are in place.
#
#   deploy/build.sh [extra cmake configure args...]
#
# Environment:
#   QINFER_BUILD_DIR   build directory (default <repo>/build)
#   QINFER_BUILD_TYPE  CMAKE_BUILD_TYPE (default RelWithDebInfo)
#   QINFER_CMAKE_ARGS  extra configure args, word-split (e.g. "-DQINFER_WERROR=ON")
#   QINFER_JOBS        parallel compile jobs (default: number of CPUs)
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

# shellcheck disable=SC2086  # QINFER_CMAKE_ARGS is meant to be word-split
args=(-S "$REPO" -B "$BUILD_DIR" -G Ninja
      -DCMAKE_BUILD_TYPE="${QINFER_BUILD_TYPE:-RelWithDebInfo}"
      ${QINFER_CMAKE_ARGS:-} "$@")
log "build: cmake ${args[*]}"
cmake "${args[@]}"
log "build: cmake --build $BUILD_DIR -j$JOBS"
cmake --build "$BUILD_DIR" -j"$JOBS"
log "build: done ($BUILD_DIR)"
