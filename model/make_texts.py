#!/usr/bin/env python3
"""Real English text for embedding runs: paragraphs of the Python standard library's docstrings.

    python3 model/make_texts.py --count 1000 --out texts.jsonl [--seed 1] [--max-words 180]

Every Debian 12 machine that runs qinfer has them: python3 (libpython3.11-stdlib,
pulled in by python3-venv, which deploy/setup.sh installs) ships the standard
library as .py source. The modules are parsed with `ast` (never imported),
each module, class and function docstring is split into paragraphs at blank
lines, whitespace is collapsed, and paragraphs that look like prose are kept:
4 to --max-words words, starting with a letter, no doctest (>>>) lines, mostly
letters. Duplicates are dropped. --count of them are drawn with a fixed seed
(sorted by source file first), so the output is the same for the same Python
version; lengths range from a few words to --max-words.

Each output line is {"id": "text-000001", "text": "..."}; without --out the
lines go to stdout. Only the standard library is used.
"""

import argparse
import ast
import inspect
import json
import os
import random
import re
import sys
import sysconfig

SKIP_DIRS = {"test", "tests", "idlelib", "lib2to3", "site-packages", "dist-packages", "turtledemo",
             "__pycache__", "ensurepip", "tkinter"}


def docstrings(path: str):
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield inspect.cleandoc(doc)


def is_prose(p: str, max_words: int) -> bool:
    words = p.split()
    if not 4 <= len(words) <= max_words or not p[0].isalpha() or ">>>" in p:
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in p)
    return letters / len(p) > 0.85


def paragraphs(stdlib: str, max_words: int) -> list[str]:
    seen, out = set(), []
    for root, dirs, files in os.walk(stdlib):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            for doc in docstrings(os.path.join(root, name)):
                for para in re.split(r"\n\s*\n", doc):
                    p = " ".join(para.split())
                    if p and p not in seen and is_prose(p, max_words):
                        seen.add(p)
                        out.append(p)
    return out


def make_texts(count: int, seed: int = 1, max_words: int = 180, stdlib: str | None = None) -> list[str]:
    stdlib = stdlib or sysconfig.get_paths()["stdlib"]
    pool = paragraphs(stdlib, max_words)
    if len(pool) < count:
        raise SystemExit(f"make_texts.py: only {len(pool)} prose paragraphs in {stdlib}, {count} wanted")
    return random.Random(seed).sample(pool, count)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--out", help="JSONL file (default: stdout)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-words", type=int, default=180)
    ap.add_argument("--stdlib", help="standard library directory (default: this Python's)")
    a = ap.parse_args()
    texts = make_texts(a.count, a.seed, a.max_words, a.stdlib)
    out = open(a.out, "w", encoding="utf-8") if a.out else sys.stdout
    for i, t in enumerate(texts, 1):
        out.write(json.dumps({"id": f"text-{i:06d}", "text": t}, ensure_ascii=False) + "\n")
    if a.out:
        out.close()
        words = sorted(len(t.split()) for t in texts)
        print(f"wrote {len(texts)} paragraphs to {a.out} (words: min {words[0]}, median "
              f"{words[len(words) // 2]}, max {words[-1]})", file=sys.stderr)


if __name__ == "__main__":
    main()
