#!/usr/bin/env python3
"""The house rules of the service's sources (STYLE.md; issue "the house after
tasks"), checked on every build so that they stay true:

  1. time is read and slept through core/clock.h: no steady_clock::now(),
     system_clock::now() (the wall time: Clock::WallMillis), sleep_for or
     sleep_until in a module's sources outside core/clock;
  2. no .cc under a module's src/ is over 500 lines, except the tables named
     in TABLES;
  3. no function in a module's sources is over 80 lines;
  4. the include graph runs app -> pipeline -> modules -> core: core includes
     no other module, no module includes pipeline or app, pipeline no app;
  5. a module includes another module's header only where its CMakeLists.txt
     links that module (directly, or through a module it links that links
     it PUBLIC or INTERFACE): a header reached without the link compiles
     only by the accident of an include path;
  6. each module's CMakeLists.txt opens with its charter: a comment that says
     what the module is for and what it keeps out.

The modules are found from the tree: each top-level folder with a
CMakeLists.txt and a src/ folder.

Prints each breach with its file and line, and exits 1 when there is one.
Function lengths are found by matching braces after a parameter list (what
a function body looks like in this code base); comments and string
literals are blanked first.
"""
import os
import re
import sys

REPO = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))

def find_modules(repo):
    """Each top-level folder with a CMakeLists.txt and a src/ folder."""
    return sorted(name for name in os.listdir(repo)
                  if os.path.isfile(os.path.join(repo, name, "CMakeLists.txt"))
                  and os.path.isdir(os.path.join(repo, name, "src")))


MODULES = find_modules(REPO)
TABLES = {"app/src/config_keys.cc": "the configuration's key table and its typed entries"}
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
CLOCK_FILES = {"core/src/clock.cc", "core/include/qinfer/core/clock.h"}
RAW_TIME = re.compile(r"(steady_clock|system_clock|high_resolution_clock)::now\(\)|\bsleep_for\b|\bsleep_until\b|\btime\(nullptr\)")
INCLUDE = re.compile(r'^#include "qinfer/([a-z_]+)/', re.M)


def sources():
    for module in MODULES:
        for root, _, files in os.walk(os.path.join(REPO, module)):
            for name in sorted(files):
                if name.endswith((".cc", ".h")):
                    path = os.path.join(root, name)
                    yield module, os.path.relpath(path, REPO), path


def blank(text):
    """Comments and string/char literals replaced by spaces, lines kept."""
    keep_lines = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    text = re.sub(r'R"([^(]*)\(.*?\)\1"', keep_lines, text, flags=re.S)
    text = re.sub(r"//[^\n]*", keep_lines, text)
    text = re.sub(r"/\*.*?\*/", keep_lines, text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\\n])*"', keep_lines, text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", keep_lines, text)
    return text


FUNCTION_HEAD = re.compile(r"\)\s*(const|override|noexcept|final|mutable|\s|->\s*[\w:<>,\s\*&]+)*$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch)\s*\([^;{}]*\)\s*$")
NAME = re.compile(r"([\w:~]+)\s*\(")


def functions(text):
    """(first line, lines, name) of each outermost function body."""
    stack = []
    for m in re.finditer(r"[{}]", text):
        if m.group(0) == "{":
            before = text[max(0, m.start() - 400):m.start()].rstrip()
            is_function = bool(FUNCTION_HEAD.search(before)) and not CONTROL.search(before)
            inside = any(f for f, _ in stack)
            stack.append((is_function and not inside, m.start()))
        elif stack:
            is_function, start = stack.pop()
            if is_function:
                first = text.count("\n", 0, start) + 1
                last = text.count("\n", 0, m.start()) + 1
                names = NAME.findall(text[max(0, start - 400):start])
                yield first, last - first + 1, names[-1] if names else "?"


LINK_CALL = re.compile(r"target_link_libraries\s*\(([^)]*)\)", re.S)
LINK_WORD = re.compile(r"\b(PUBLIC|PRIVATE|INTERFACE)\b|qinfer::(\w+)")


def module_links(module):
    """(every module `module` links, the modules it links PUBLIC or INTERFACE),
    read from its CMakeLists.txt; a target of its own (qinfer::serve_options in
    app/) counts as the module itself."""
    text = re.sub(r"#[^\n]*", "", open(os.path.join(REPO, module, "CMakeLists.txt")).read())
    links, public = set(), set()
    for call in LINK_CALL.finditer(text):
        visibility = "PUBLIC"
        for word, target in LINK_WORD.findall(call.group(1)):
            if word:
                visibility = word
            elif target in MODULES and target != module:
                links.add(target)
                if visibility != "PRIVATE":
                    public.add(target)
    return links, public


def linked_modules():
    """module -> the modules whose headers it may include: those it links, and
    what they link PUBLIC or INTERFACE, transitively."""
    direct = {m: module_links(m) for m in MODULES}
    reach = {}
    for module in MODULES:
        seen, todo = set(), list(direct[module][0])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(direct[m][1])
        reach[module] = seen
    return reach


def has_charter(module):
    with open(os.path.join(REPO, module, "CMakeLists.txt")) as f:
        return f.readline().startswith("#")


def allowed_includes(module):
    if module == "core":
        return {"core"}
    if module == "app":
        return set(MODULES)
    if module == "pipeline":
        return set(MODULES) - {"app"}
    return set(MODULES) - {"app", "pipeline"}


def main():
    breaches = []
    linked = linked_modules()
    for module in MODULES:
        if not has_charter(module):
            breaches.append(f"{module}/CMakeLists.txt:1: no charter: open it with a comment that says what the "
                            "module is for and what it keeps out")
    for module, rel, path in sources():
        raw = open(path, errors="replace").read()
        text = blank(raw)
        if rel not in CLOCK_FILES:
            for m in RAW_TIME.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                breaches.append(f"{rel}:{line}: reads or sleeps on real time directly ({m.group(0)}): use a Clock "
                                "(core/clock.h; RealClock() where real time is meant)")
        lines = raw.count("\n")
        if "/src/" in rel and rel.endswith(".cc") and lines > MAX_FILE_LINES and rel not in TABLES:
            breaches.append(f"{rel}: {lines} lines, over {MAX_FILE_LINES}: split it along its seams")
        for first, length, name in functions(text):
            if length > MAX_FUNCTION_LINES:
                breaches.append(f"{rel}:{first}: {name} is {length} lines, over {MAX_FUNCTION_LINES}")
        for m in INCLUDE.finditer(raw):
            target = m.group(1)
            if target in MODULES and target != module and target not in allowed_includes(module):
                line = raw.count("\n", 0, m.start()) + 1
                breaches.append(f"{rel}:{line}: {module} includes qinfer/{target}: the include graph runs "
                                "app -> pipeline -> modules -> core")
            elif target in MODULES and target != module and target not in linked[module]:
                line = raw.count("\n", 0, m.start()) + 1
                breaches.append(f"{rel}:{line}: {module} includes qinfer/{target} but does not link qinfer::"
                                f"{target} ({module}/CMakeLists.txt)")
    for breach in breaches:
        print(breach)
    print(f"house rules: {len(breaches)} breach(es)")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
