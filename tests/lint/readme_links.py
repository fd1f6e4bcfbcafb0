#!/usr/bin/env python3
"""Every relative link of README.md leads somewhere: its file exists, and its
#anchor is a heading of that file as the docs site names it (Python-Markdown's
toc, which MkDocs uses). The site's own links are checked by its strict build
(ctest docs_build); README.md is outside the site, so it is checked here.

usage: readme_links.py [REPO]. Prints each broken link; exits 1 when there is one.
"""
import os
import re
import sys

import markdown

REPO = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(path):
    md = markdown.Markdown(extensions=["toc", "tables", "fenced_code"])
    with open(path, encoding="utf-8") as f:
        md.convert(f.read())
    found, todo = set(), list(md.toc_tokens)
    while todo:
        token = todo.pop()
        found.add(token["id"])
        todo.extend(token["children"])
    return found


def main():
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    links = [m.group(1) for m in LINK.finditer(text) if "://" not in m.group(1)]
    broken = []
    for link in links:
        path, _, anchor = link.partition("#")
        target = os.path.join(REPO, path) if path else os.path.join(REPO, "README.md")
        if not os.path.exists(target):
            broken.append(f"{link}: no file {path}")
        elif anchor and anchor not in anchors(target):
            broken.append(f"{link}: {path or 'README.md'} has no heading #{anchor}")
    for b in broken:
        print(f"README.md: broken link {b}")
    if not links:
        print("README.md: no relative links found (the pattern no longer matches?)")
        return 1
    print(f"README.md: {len(links)} relative links, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
