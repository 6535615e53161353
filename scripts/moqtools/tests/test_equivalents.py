"""Tests of scripts/moqtools/equivalents.py on a fixture core
(scripts/moqtools/tests/fixtures/equivalents/: two small sources and lists of their mutants' ids).
"""

import os
import shutil
import tempfile
import unittest

from moqtools.equivalents import nearest
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

    def test_a_stale_id_fails_naming_its_line_and_where_it_moved(self):
        run = check(os.path.join(FIXTURE, "stale.txt"))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn(":4: gen.model/count.cpp:3:42.rel_flip is no generated mutant now", run.stderr)
        self.assertIn("the nearest of its file and operator is gen.model/count.cpp:4:42.rel_flip", run.stderr)
        self.assertNotIn("clock.cpp", run.stderr)

    def test_an_edit_above_a_listed_mutant_makes_it_stale(self):
        with tempfile.TemporaryDirectory() as root:
            shutil.copytree(os.path.join(FIXTURE, "core"), os.path.join(root, "core"))
            clock = os.path.join(root, "core", "kio", "clock.cpp")
            with open(clock, encoding="utf-8") as source:
                text = source.read()
            with open(clock, "w", encoding="utf-8") as source:
                source.write("// one line more\n" + text)
            run = check(os.path.join(FIXTURE, "listed.txt"), root)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("gen.kio/clock.cpp:6:12.rel_flip is no generated mutant now", run.stderr)
        self.assertIn("is gen.kio/clock.cpp:7:12.rel_flip", run.stderr)

    def test_a_malformed_or_missing_list_is_bad_input(self):
        for listed in (os.path.join(FIXTURE, "malformed.txt"), os.path.join(FIXTURE, "no-such-list.txt")):
            run = check(listed)
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)

    def test_the_nearest_keeps_the_file_and_operator_and_prefers_the_column(self):
        generated = ["gen.a.cpp:10:5.rel_flip", "gen.a.cpp:11:9.rel_flip", "gen.a.cpp:12:5.off_by_one",
                     "gen.b.cpp:12:9.rel_flip", "gen.a.cpp:30:9.rel_flip"]
        self.assertEqual(nearest("gen.a.cpp:12:9.rel_flip", generated), "gen.a.cpp:11:9.rel_flip")
        self.assertEqual(nearest("gen.a.cpp:12:5.rel_flip", generated), "gen.a.cpp:10:5.rel_flip")
        self.assertIsNone(nearest("gen.c.cpp:1:1.rel_flip", generated))
        self.assertIsNone(nearest("not an id", generated))

