#!/usr/bin/env python3
"""house_rules.py catches what it names: a module source that reads the
steady or the wall clock, or sleeps, outside core/clock, is a breach; the
same read inside core/clock, or in a comment or a string, is not. A module
is any top-level folder with a CMakeLists.txt and src/; it may include only
the modules it links, and its CMakeLists.txt opens with a charter."""
import os
import subprocess
import sys
import tempfile
import unittest

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "house_rules.py")


def run(files):
    """house_rules.py over a tree of `files`; each top-level folder with a src/
    gets a CMakeLists.txt with a charter and no links unless `files` has one
    (None: no CMakeLists.txt)."""
    files = dict(files)
    for rel in list(files):
        top, _, rest = rel.partition("/")
        if rest.startswith("src/"):
            files.setdefault(f"{top}/CMakeLists.txt", f"# {top}: a module.\nadd_library(qinfer_{top} src/a.cc)\n")
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            if text is None:
                continue
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        done = subprocess.run([sys.executable, RULES, root], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


class ClockRuleTest(unittest.TestCase):
    def test_each_read_of_real_time_outside_the_clock_is_a_breach(self):
        for read in ("std::chrono::steady_clock::now()", "std::chrono::system_clock::now()",
                     "std::this_thread::sleep_for(d)", "time(nullptr)"):
            with self.subTest(read=read):
                code, out = run({"pipeline/src/loop.cc": f"void F() {{\n  auto t = {read};\n}}\n"})
                self.assertEqual(code, 1, out)
                self.assertIn("pipeline/src/loop.cc:2: reads or sleeps on real time directly", out)

    def test_the_clock_itself_comments_and_strings_may_name_it(self):
        code, out = run({
            "core/src/clock.cc": "long W() { return std::chrono::system_clock::now().time_since_epoch().count(); }\n",
            "core/src/job.cc": '// not system_clock::now() here\nconst char* k = "system_clock::now()";\n',
        })
        self.assertEqual(code, 0, out)


class ModuleRulesTest(unittest.TestCase):
    LONG = "".join(f"int v{i} = {i};\n" for i in range(501))

    def test_a_module_is_found_from_the_tree_so_a_new_one_is_held_to_the_rules(self):
        code, out = run({"newmodule/src/big.cc": self.LONG})
        self.assertEqual(code, 1, out)
        self.assertIn("newmodule/src/big.cc: 501 lines, over 500", out)
        # Without a CMakeLists.txt the folder is no module.
        code, out = run({"scripts/src/big.cc": self.LONG, "scripts/CMakeLists.txt": None, "core/src/a.cc": "int a;\n"})
        self.assertEqual(code, 0, out)

    def test_a_module_includes_only_what_it_links_directly_or_through_a_public_link(self):
        cmake = lambda name, links: f"# {name}.\nadd_library(qinfer_{name} src/a.cc)\n" + \
            f"target_link_libraries(qinfer_{name}\n  {links})\n"
        tree = {
            "core/CMakeLists.txt": cmake("core", "PRIVATE absl::status"),
            "core/src/a.cc": "int a;\n",
            "scheduler/CMakeLists.txt": cmake("scheduler", "PUBLIC qinfer::core"),
            "scheduler/src/a.cc": '#include "qinfer/core/job.h"\n',
            "storage/CMakeLists.txt": cmake("storage", "PRIVATE qinfer::core"),
            "storage/src/a.cc": '#include "qinfer/core/job.h"\n',
            "pipeline/CMakeLists.txt": cmake("pipeline", "PUBLIC qinfer::storage\n  PRIVATE qinfer::scheduler"),
            # core through scheduler's PUBLIC link; storage and scheduler directly.
            "pipeline/src/a.cc": '#include "qinfer/core/job.h"\n#include "qinfer/storage/s.h"\n'
                                 '#include "qinfer/scheduler/q.h"\n',
        }
        code, out = run(tree)
        self.assertEqual(code, 0, out)
        # Drop the scheduler link: its header, and core's (reached only through it), are breaches;
        # storage links core PRIVATE, which does not pass it on.
        tree["pipeline/CMakeLists.txt"] = cmake("pipeline", "PUBLIC qinfer::storage")
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("pipeline/src/a.cc:1: pipeline includes qinfer/core but does not link qinfer::core", out)
        self.assertIn("pipeline/src/a.cc:3: pipeline includes qinfer/scheduler but does not link", out)
        self.assertNotIn("qinfer/storage but", out)

    def test_a_module_without_a_charter_is_a_breach(self):
        code, out = run({"core/CMakeLists.txt": "add_library(qinfer_core src/a.cc)\n", "core/src/a.cc": "int a;\n"})
        self.assertEqual(code, 1, out)
        self.assertIn("core/CMakeLists.txt:1: no charter", out)


if __name__ == "__main__":
    unittest.main()
