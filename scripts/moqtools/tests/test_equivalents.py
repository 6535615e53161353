"""Tests of scripts/moqtools/equivalents.py on a fixture core
(scripts/moqtools/tests/fixtures/equivalents/: two small sources and lists of their mutants' keys).
"""

import os
import shutil
import tempfile
import unittest

from moqtools.equivalents import nearest
from moqtools.mutants import generated_points
from moqtools.tests.support import FIXTURES, run_tool

FIXTURE = os.path.join(FIXTURES, "equivalents")


def check(listed, root=FIXTURE):
    return run_tool("equivalents", "--root", root, "--list", listed)


class EquivalentsCheckTest(unittest.TestCase):
    def test_the_fixture_lists_exactly_these_mutants(self):
        ids = run_tool("mutants", "ids", "--root", FIXTURE, check=True).stdout.split()
        self.assertEqual(sorted(ids), sorted([
            "gen.kio/clock.cpp:6:5.cond_negate", "gen.kio/clock.cpp:6:12.rel_flip",
            "gen.kio/clock.cpp:6:5.block_delete", "gen.kio/clock.cpp:6:20.stmt_delete",
            "gen.kio/clock.cpp:7:12.return_default", "gen.model/count.cpp:4:36.return_default",
            "gen.model/count.cpp:4:42.rel_flip", "gen.model/count.cpp:4:45.off_by_one"]))

    def test_a_list_of_generated_mutants_passes(self):
        run = check(os.path.join(FIXTURE, "listed.txt"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, "equivalents: 2 listed, each a generated mutant\n")

    def test_a_stale_key_fails_naming_its_line_and_the_closest_mutant(self):
        run = check(os.path.join(FIXTURE, "stale.txt"))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn(':4: model/count.cpp rel_flip none_left 42 "bool none_left(int count) { return count <= 0; }" '
                      "is no generated mutant now", run.stderr)
        self.assertIn('the closest of its file and operator is model/count.cpp rel_flip none_left 42 '
                      '"bool none_left(int count) { return count == 0; }" (gen.model/count.cpp:4:42.rel_flip)', run.stderr)
        self.assertNotIn("clock.cpp", run.stderr)

    def edited(self, root, change):
        shutil.copytree(os.path.join(FIXTURE, "core"), os.path.join(root, "core"))
        clock = os.path.join(root, "core", "kio", "clock.cpp")
        with open(clock, encoding="utf-8") as source:
            text = source.read()
        with open(clock, "w", encoding="utf-8") as source:
            source.write(change(text))

    def test_an_edit_above_a_listed_mutant_keeps_its_entry(self):
        with tempfile.TemporaryDirectory() as root:
            self.edited(root, lambda text: "// one line more\n" + text)
            ids = run_tool("mutants", "ids", "--root", root, check=True).stdout.split()
            run = check(os.path.join(FIXTURE, "listed.txt"), root)
        self.assertIn("gen.kio/clock.cpp:7:12.rel_flip", ids)  # the id moved a line down
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def test_an_edit_of_a_listed_line_makes_its_entry_stale(self):
        with tempfile.TemporaryDirectory() as root:
            self.edited(root, lambda text: text.replace("if (at > kept) kept = at;", "if (at > kept) { kept = at; }"))
            run = check(os.path.join(FIXTURE, "listed.txt"), root)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn('kio/clock.cpp rel_flip later 8 "if (at > kept) kept = at;" is no generated mutant now', run.stderr)
        self.assertIn('is kio/clock.cpp rel_flip later 8 "if (at > kept) { kept = at; }"', run.stderr)

    def test_a_malformed_or_missing_list_is_bad_input(self):
        for listed in (os.path.join(FIXTURE, "malformed.txt"), os.path.join(FIXTURE, "no-such-list.txt")):
            run = check(listed)
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)

    def test_the_closest_keeps_the_file_and_operator_and_prefers_the_function(self):
        points = generated_points(os.path.join(FIXTURE))
        closest = nearest('kio/clock.cpp rel_flip later 8 "if (at >= kept) kept = at;"', points)
        self.assertEqual(closest.id, "gen.kio/clock.cpp:6:12.rel_flip")
        closest = nearest('model/count.cpp return_default other 8 "return kept;"', points)
        self.assertEqual(closest.id, "gen.model/count.cpp:4:36.return_default")  # its file's, not clock's
        self.assertIsNone(nearest('model/none.cpp rel_flip f 1 "x < y"', points))
        self.assertIsNone(nearest("not a key", points))
