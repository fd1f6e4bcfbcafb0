#!/usr/bin/env python3
"""house_rules.py catches what it names: a module source that reads the
steady or the wall clock, or sleeps, outside core/clock, is a breach; the
same read inside core/clock, or in a comment or a string, is not."""
import os
import subprocess
import sys
import tempfile
import unittest

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "house_rules.py")


def run(files):
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
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


if __name__ == "__main__":
    unittest.main()
