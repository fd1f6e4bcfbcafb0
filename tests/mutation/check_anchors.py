"""Every mutant of tests/mutation/mutants.py still applies: its original text
occurs exactly once in its file. A refactor that moves or reformats the code
behind a guarantee fails here (seconds) instead of silently dropping the
mutant from the mutation check (tests/mutation/run.sh, not part of CI)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import mutants  # noqa: E402

failed = 0
for name, path, original, *_ in mutants.MUTANTS:
    full = os.path.join(REPO, path)
    count = open(full, encoding="utf-8").read().count(original) if os.path.exists(full) else -1
    if count != 1:
        failed += 1
        where = "no such file" if count < 0 else f"its original text occurs {count} times"
        print(f"FAIL mutant {name!r}: {path}: {where}; update tests/mutation/mutants.py")
print(f"{len(mutants.MUTANTS) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
