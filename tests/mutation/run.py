#!/usr/bin/env python3
"""Applies each mutant of mutants.py alone, rebuilds, runs its tests, restores.

    tests/mutation/run.sh [SUBSTRING...]  (only mutants whose name contains one)

A mutant is *killed* when its tests fail, *survived* when they pass, and
*invalid* when it does not compile or its original text is not found once.
The report goes to stdout and to BUILD/mutation-report.txt.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from mutants import MUTANTS  # noqa: E402


def main():
    build = os.environ["QINFER_MUTATION_BUILD_DIR"]
    brokers = os.environ["QINFER_MUTATION_BROKERS"]
    only = sys.argv[1:]
    rows = []
    for name, path, original, mutated, targets, command in MUTANTS:
        if only and not any(o in name for o in only):
            continue
        full = os.path.join(REPO, path)
        with open(full) as f:
            source = f.read()
        start = time.time()
        if source.count(original) != 1:
            rows.append((name, "invalid", "original text found %d times" % source.count(original), 0))
            continue
        try:
            with open(full, "w") as f:
                f.write(source.replace(original, mutated))
            built = subprocess.run(["cmake", "--build", build, "--target"] + targets.split(),
                                   capture_output=True, text=True)
            if built.returncode != 0:
                rows.append((name, "invalid", "does not compile", time.time() - start))
                continue
            env = dict(os.environ, BROKERS=brokers, REPO=REPO)
            ran = subprocess.run(command, shell=True, cwd=build, env=env,
                                 capture_output=True, text=True, timeout=900)
            status = "killed" if ran.returncode != 0 else "survived"
            failed = [l for l in ran.stdout.splitlines() if l.startswith("[  FAILED  ]")]
            rows.append((name, status, failed[0][13:] if failed else "", time.time() - start))
        except subprocess.TimeoutExpired:
            rows.append((name, "killed", "timed out", time.time() - start))
        finally:
            with open(full, "w") as f:
                f.write(source)
        name_, status_, why_, took_ = rows[-1]
        print("%-55s %-8s %5.0fs %s" % (name_, status_, took_, why_), flush=True)
    # Leave the build as the sources are.
    subprocess.run(["cmake", "--build", build], capture_output=True)
    valid = [r for r in rows if r[1] != "invalid"]
    killed = [r for r in valid if r[1] == "killed"]
    lines = ["%-55s %-8s %s" % (r[0], r[1], r[2]) for r in rows]
    lines.append("mutants %d, valid %d, killed %d, survived %d, kill rate %.0f%%" % (
        len(rows), len(valid), len(killed), len(valid) - len(killed),
        100.0 * len(killed) / max(1, len(valid))))
    report = "\n".join(lines) + "\n"
    with open(os.path.join(build, "mutation-report.txt"), "w") as f:
        f.write(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
