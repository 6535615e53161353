"""Tests of scripts/moqtools/explore_score.py's pure parts: the order of the suites for a
mutant's file, the table's counts, and the refusal of bad arguments."""

import json
import os
import stat
import tempfile
import unittest

from moqtools.explore_score import disagreements, draw_sample, select_mutants, suite_order, table, tally
from moqtools.mutation import UsageError
from moqtools.tests.support import run_tool

SUITES = ["gate", "group", "track", "resume", "idle"]


def result(name, sweep=None, explore=None, ends=None, kinds=("failure", "failure"), path="core/model/group.cpp"):
    """One mutant's result: `sweep` and `explore` the killing suites (None: survived)."""
    return {"id": name, "file": path, "line": 1, "operator": "rel_flip", "change": "< -> <=", "equivalent": False,
            "sweep_killer": sweep, "sweep_kind": kinds[0] if sweep else None, "sweep_how": "",
            "explore_killer": explore, "explore_kind": kinds[1] if explore else None, "explore_message": "",
            "explore_ends": ends or {}, "sweep_seconds": 2.0, "explore_seconds": 3.0}


def equivalent(name, path="core/model/group.cpp"):
    return {"id": name, "file": path, "line": 1, "operator": "rel_flip", "equivalent": True}


def entry(name, path, operator="rel_flip", status="compiled"):
    return {"id": name, "key": f"key of {name}", "file": path, "line": 1, "column": 1, "operator": operator,
            "status": status, "original": "<", "replacement": "<="}


class SuiteOrderTest(unittest.TestCase):
    def test_the_suite_named_as_the_file_comes_first(self):
        self.assertEqual(suite_order("core/model/resume.cpp", SUITES), ["resume", "gate", "group", "track", "idle"])
        self.assertEqual(suite_order("core/model/track.hpp", SUITES), ["track", "gate", "group", "resume", "idle"])

    def test_a_file_named_after_a_suite_and_more_takes_that_suite(self):
        self.assertEqual(suite_order("core/model/group_state.hpp", SUITES)[0], "group")

    def test_a_file_no_suite_is_named_after_keeps_the_order(self):
        self.assertEqual(suite_order("core/model/codec.cpp", SUITES), SUITES)
        self.assertEqual(suite_order("core/model/groupie.hpp", SUITES), SUITES)


class TallyTest(unittest.TestCase):
    def setUp(self):
        exhaustive = {"group": "exhaustive", "gate": "exhaustive"}
        stopped = {"group": "exhaustive", "gate": "budget"}
        self.results = [result("both", "group", "group"), result("sweep-only", "gate", None, exhaustive),
                        result("explore-only", None, "track", kinds=("failure", "timeout")),
                        result("neither-exhaustive", None, None, exhaustive),
                        result("neither-stopped", None, None, stopped), result("crash", "group", "group", kinds=(
                            "crash", "failure")), equivalent("same")]

    def test_each_count(self):
        counts = tally(self.results)
        self.assertEqual({k: counts[k] for k in ("mutants", "equivalent", "run", "sweep", "explore", "both", "either",
                                                 "sweep only", "explore only", "neither")},
                         {"mutants": 7, "equivalent": 1, "run": 6, "sweep": 3, "explore": 3, "both": 2, "either": 4,
                          "sweep only": 1, "explore only": 1, "neither": 2})
        self.assertEqual(counts["explore survivors exhaustive"], 2)
        self.assertEqual(counts["explore survivors budget-stopped"], 1)
        self.assertEqual(counts["crash or timeout"], "1/1")

    def test_scores_leave_the_equivalents_out(self):
        counts = tally(self.results)
        self.assertEqual((counts["sweep score"], counts["explore score"], counts["either score"]),
                         ("50.0%", "50.0%", "66.7%"))

    def test_times_count_the_mutants_run(self):
        counts = tally(self.results)
        self.assertEqual((counts["sweep time"], counts["explore time"]), (12.0, 18.0))

    def test_an_empty_group_has_no_score(self):
        self.assertEqual(tally([equivalent("same")])["explore score"], "-")

    def test_the_table_has_a_row_per_file_and_the_total(self):
        rows = table(self.results + [result("codec", None, "gate", path="core/model/codec.cpp")]).splitlines()
        self.assertEqual(len(rows), 5)
        self.assertTrue(rows[2].startswith("| core/model/codec.cpp | 1 | 0 | 1 | 0 | 1 | 0 | 1 | 0 | 1 | 0 |"))
        self.assertTrue(rows[3].startswith("| core/model/group.cpp | 7 | 1 | 6 | 3 | 3 | 2 | 4 | 1 | 1 | 2 |"))
        self.assertTrue(rows[4].startswith("| **total** | 8 | 1 | 7 | 3 | 4 | 2 | 5 | 1 | 2 | 2 |"))

    def test_the_one_sided_kills_are_named(self):
        named = disagreements(self.results)
        self.assertEqual(len(named), 2)
        self.assertIn("`sweep-only`", named[0])
        self.assertIn("explore ends: group exhaustive, gate exhaustive", named[0])
        self.assertIn("`explore-only`", named[1])


class SelectionTest(unittest.TestCase):
    TABLE = [entry("gen.model/a.cpp:1:1.rel_flip", "model/a.cpp"), entry("gen.kio/b.cpp:1:1.rel_flip", "kio/b.cpp"),
             entry("gen.model/a.cpp:2:1.order_weaken", "model/a.cpp", "order_weaken"),
             entry("gen.model/a.cpp:3:1.rel_flip", "model/a.cpp", status="CompileError"),
             entry("gen.model/a.hpp:4:1.rel_flip", "model/a.hpp")]

    def test_compiled_mutants_of_the_files_without_order_weaken_or_equivalents(self):
        run, same = select_mutants(self.TABLE, "core/model/", {"key of gen.model/a.hpp:4:1.rel_flip": "why"})
        self.assertEqual([m["id"] for m in run], ["gen.model/a.cpp:1:1.rel_flip"])
        self.assertEqual([m["file"] for m in same], ["core/model/a.hpp"])

    def test_a_stale_equivalent_is_bad_input(self):
        with self.assertRaises(UsageError):
            select_mutants(self.TABLE, "core/model/", {"key of gen.model/gone.cpp:1:1.rel_flip": "why"})

    def test_a_sample_is_repeatable_and_of_distinct_mutants(self):
        mutants = list(range(100))
        first = draw_sample(mutants, 10, 7)
        self.assertEqual(first, draw_sample(mutants, 10, 7))
        self.assertEqual(len(set(first)), 10)
        self.assertNotEqual(first, draw_sample(mutants, 10, 8))
        self.assertEqual(sorted(draw_sample(mutants, 200, 7)), mutants)


class ArgumentsTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        self.moqsim = os.path.join(self.folder.name, "moqsim")
        with open(self.moqsim, "w", encoding="utf-8") as program:
            program.write("#!/bin/sh\necho gate group\n")
        os.chmod(self.moqsim, os.stat(self.moqsim).st_mode | stat.S_IXUSR)
        self.schemata = os.path.join(self.folder.name, "schemata.json")
        with open(self.schemata, "w", encoding="utf-8") as out:
            json.dump({"format": "moqsim-schemata", "version": 1, "mutants": SelectionTest.TABLE}, out)

    def refused(self, *args):
        run = run_tool("explore_score", *args)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
        self.assertTrue(run.stderr.startswith("explore_score: "), run.stderr)
        return run.stderr

    def test_bad_arguments_are_one_line_and_status_2(self):
        self.refused()
        self.refused(self.moqsim, self.schemata, "--budget", "0")
        self.refused(self.moqsim, self.schemata, "--ops", "7")
        self.refused(self.moqsim, self.schemata, "--cases", "ten")
        self.refused(self.moqsim, self.schemata, "--no-such-flag")
        self.assertIn("go together", self.refused(self.moqsim, self.schemata, "--sample", "5"))

    def test_bad_inputs_are_one_line_and_status_2(self):
        self.assertIn("no program", self.refused(os.path.join(self.folder.name, "none"), self.schemata))
        self.assertIn("cannot read", self.refused(self.moqsim, os.path.join(self.folder.name, "none.json")))
        self.assertIn("no compiled generated mutant", self.refused(self.moqsim, self.schemata, "--files", "core/x/"))

    def test_list_names_the_selection(self):
        run = run_tool("explore_score", self.moqsim, self.schemata, "--list")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("2 to run, 0 equivalent not run", run.stdout)
