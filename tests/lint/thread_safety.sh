#!/usr/bin/env bash
# clang's thread-safety analysis over the modules' sources: every member
# marked ABSL_GUARDED_BY is read and written with its mutex held, every
# function marked ABSL_EXCLUSIVE_LOCKS_REQUIRED is called with it held, and
# every lock taken is released (qinfer/core/mutex.h, docs/design/threads.md).
#
#   tests/lint/thread_safety.sh [BUILD_DIR]     default <repo>/build
#
# Reads BUILD_DIR/compile_commands.json (CMake writes it at configure time)
# and runs Debian's clang with -fsyntax-only -Wthread-safety -Werror over
# the module sources (app, collect, consumer, core, executor, kafka,
# pipeline, replay, scheduler, storage, tokenizer; not tests or bench) that
# can break a lock annotation (see `select` below). The build's own flags
# are kept except its warnings: this check is about locks, gcc's build about
# the rest (-Wno-everything turns clang's other warnings off).
#
# Environment:
#   CXX_LINT             the compiler (default clang++)
#   QINFER_LINT_JOBS     sources checked in parallel (default 2)
#   QINFER_LINT_SOURCES  `all`: every module source, not only those above
#   QINFER_LINT_VERBOSE  set: one line per source, with its time
#
# Exit status: 0 clean, 1 a violation (or a source clang cannot compile),
# 77 clang++ not installed (ctest shows the test as skipped; deploy/setup.sh
# installs it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
build=$(cd "${1:-$repo/build}" && pwd -P)
cxx=${CXX_LINT:-clang++}
jobs=${QINFER_LINT_JOBS:-2}

if ! command -v "$cxx" >/dev/null; then
  echo "thread_safety: $cxx not found; install clang (deploy/setup.sh)" >&2
  exit 77
fi
if [[ ! -f $build/compile_commands.json ]]; then
  echo "thread_safety: $build/compile_commands.json not found: configure first (deploy/build.sh)" >&2
  exit 1
fi

exec python3 - "$repo" "$build/compile_commands.json" "$cxx" "$jobs" <<'PY'
import concurrent.futures, json, os, re, shlex, subprocess, sys, time

repo, db, cxx, jobs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
MODULES = ("app", "collect", "consumer", "core", "executor", "kafka", "pipeline",
           "replay", "scheduler", "storage", "tokenizer")
FLAGS = ["-fsyntax-only", "-Wno-everything", "-Wthread-safety", "-Werror"]

# Which sources can break a lock annotation. clang's analysis is per
# function: it reports only in a body that takes or releases a lock, touches
# an ABSL_GUARDED_BY member or calls a function annotated with the locks it
# needs. In qinfer those members and functions are private to the class that
# owns the mutex (or local to one .cc), so only that class's own code can
# break them: its .cc, and inline bodies in its header, which that .cc
# includes. So a source is checked when it or its header (same name, same
# module) holds an annotation or a qinfer::Mutex; with
# QINFER_LINT_SOURCES=all, every module source is (several times slower:
# torch's headers, httplib's, RocksDB's). A public annotated member would
# also need the sources that use it: check with `all`, or keep it private.
ANNOTATION = re.compile(r"ABSL_(PT_)?GUARDED_BY|ABSL_[A-Z_]*LOCK|\bMutex\b")
everything = os.environ.get("QINFER_LINT_SOURCES", "locks") == "all"

def holds_annotation(path):
    return os.path.isfile(path) and bool(ANNOTATION.search(open(path, errors="replace").read()))

def select(path):
    rel = os.path.relpath(path, repo)
    module = rel.split(os.sep)[0]
    if module not in MODULES or not path.endswith(".cc"):
        return False
    if everything or holds_annotation(path):
        return True
    stem = os.path.splitext(os.path.basename(path))[0] + ".h"
    for root, _, files in os.walk(os.path.join(repo, module)):
        if stem in files and holds_annotation(os.path.join(root, stem)):
            return True
    return False

def command(args, path):
    out, skip = [cxx], False
    for a in args[1:]:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a == "-c" or a.startswith("-W") or os.path.realpath(a) == path:
            pass
        else:
            out.append(a)
    return out + FLAGS + [path]

checks = []
for entry in json.load(open(db)):
    path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    if select(path):
        checks.append((os.path.relpath(path, repo), entry["directory"], command(args, path)))
checks.sort()

def run(check):
    rel, directory, cmd = check
    start = time.monotonic()
    p = subprocess.run(cmd, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return rel, p.returncode, p.stdout, time.monotonic() - start

start = time.monotonic()
failed = []
with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
    for rel, rc, output, seconds in pool.map(run, checks):
        if os.environ.get("QINFER_LINT_VERBOSE"):
            print(f"thread_safety: {rel} {seconds:.1f}s rc={rc}")
        if rc != 0:
            failed.append(rel)
            sys.stdout.write(output)
elapsed = time.monotonic() - start
if failed:
    print(f"thread_safety: FAILED in {len(failed)} of {len(checks)} sources: {' '.join(failed)}")
    sys.exit(1)
print(f"thread_safety: ok: {len(checks)} sources in {elapsed:.1f}s ({cxx}, -j{jobs})")
PY
