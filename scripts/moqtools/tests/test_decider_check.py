"""Tests of scripts/moqtools/decider_check.py: the executor as it is passes, and each way
of deciding beside the decider planted in a copy of it is refused."""

import os
import tempfile
import unittest

from moqtools import decider_check
from moqtools.tests.support import run_tool

EXECUTOR = os.path.join(decider_check.ROOT, "sim", "executor_decisions.cpp")


def planted(line):
    """The executor's decision points with `line` added to its first function."""
    with open(EXECUTOR, encoding="utf-8") as source:
        text = source.read()
    at = text.index("{\n", text.index("std::uint32_t Executor::choose_pick")) + 2
    return text[:at] + "    " + line + "\n" + text[at:]


class DeciderCheckTest(unittest.TestCase):
    def test_the_executor_has_no_branch_on_its_decider(self):
        run = run_tool("decider_check")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("no branch on the decider", run.stdout)

    def test_each_planted_branch_is_refused(self):
        for line in ("if (options_.decider) return 0;",
                     "if (decider_ == nullptr) return 0;",
                     "if (options_.strategy.kind == StrategyKind::fifo) return candidates.front();",
                     "if (dynamic_cast<ChoiceList*>(decider_)) return 0;",
                     "if (options_.chooser) return 0;",
                     "const bool seeded = own_decider_ != nullptr;"):
            with self.subTest(line=line), tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "executor_decisions.cpp")
                with open(path, "w", encoding="utf-8") as out:
                    out.write(planted(line))
                run = run_tool("decider_check", path)
                self.assertEqual(run.returncode, 1, run.stdout)
                self.assertIn(line, run.stdout)

    def test_an_unreadable_file_is_bad_input(self):
        run = run_tool("decider_check", "/nonexistent/executor.cpp")
        self.assertEqual(run.returncode, 2)
        self.assertIn("cannot read", run.stderr)


if __name__ == "__main__":
    unittest.main()
