"""Tests of the coverage selection of scripts/mutate (moqtools/mutant_coverage.py and its
use in moqtools/mutation.py): which tests a mutant runs against, in what order, and the
NoCoverage status of a mutant nothing reaches."""

import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

from moqtools.mutant_coverage import Coverage, History, doctest_filter
from moqtools.mutation import Budget, counts, run_generated

from .support import moqsim


def write_lines(folder, name, entries):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as out:
        out.write("".join(json.dumps(entry) + "\n" for entry in entries))
    return path


def coverage_line(name, seconds, sites=None, generated=None):
    return {"test": name, "file": "core/tests/x.cpp", "seconds": seconds, "sites": sites or {},
            "generated": generated or {}}


MUTANT = "gen.model/group.cpp:10:5.cond_negate"


class CoverageTest(unittest.TestCase):
    def coverage(self, folder):
        coverage = Coverage()
        coverage.add_tests(write_lines(folder, "tests.jsonl", [
            coverage_line("slow_reader", 0.5, generated={MUTANT: 3}),
            coverage_line("fast_reader", 0.001, sites={"group.read.register": 2}, generated={MUTANT: 1}),
            coverage_line("unrelated", 0.001, generated={"gen.kio/waiter.cpp:1:1.rel_flip": 1}),
        ]))
        hits = os.path.join(folder, "group.json")
        with open(hits, "w", encoding="utf-8") as out:
            json.dump({"suites": [{"suite": "group", "evaluations": {"group.read.register": 0},
                                   "generated": {MUTANT: 7}}]}, out)
        coverage.add_suite("group", 0.2, hits)
        return coverage

    def test_a_mutant_is_reached_only_by_the_tests_and_suites_that_evaluate_it(self):
        with tempfile.TemporaryDirectory() as folder:
            coverage = self.coverage(folder)
        tests, suites = coverage.reaching(MUTANT, History())
        self.assertEqual(tests, ["fast_reader", "slow_reader"])  # the cheaper first
        self.assertEqual(suites, ["group"])
        self.assertEqual(coverage.reaching("group.read.register", History()), (["fast_reader"], []))
        self.assertEqual(coverage.reaching("gen.model/track.cpp:1:1.rel_flip", History()), ([], []))

    def test_the_last_runs_killers_come_first(self):
        with tempfile.TemporaryDirectory() as folder:
            coverage = self.coverage(folder)
        tests, _ = coverage.reaching(MUTANT, History(tests={"slow_reader": 12, "fast_reader": 1}))
        self.assertEqual(tests, ["slow_reader", "fast_reader"])

    def test_the_history_credits_each_kill_to_one_test_or_suite_and_reads_back(self):
        runs = [({}, {"credit": ("test", "slow_reader")}), ({}, {"credit": ("test", "slow_reader")}),
                ({}, {"credit": ("suite", "group")}), ({}, {"status": "Survived"})]
        history = History.from_runs(runs)
        self.assertEqual((history.tests, history.suites), ({"slow_reader": 2}, {"group": 1}))
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "killers.json")
            with open(path, "w", encoding="utf-8") as out:
                out.write(history.to_json())
            again = History.read(path)
            self.assertEqual((again.tests, again.suites), (history.tests, history.suites))
            self.assertEqual(History.read(os.path.join(folder, "none.json")).tests, {})

    def test_a_filter_escapes_a_comma_and_a_backslash_in_a_name(self):
        self.assertEqual(doctest_filter(["a_b", "x, y", "z\\"]), "a_b,x\\, y,z\\\\")

    def test_a_history_of_the_wrong_shape_is_no_history(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "killers.json")
            with open(path, "w", encoding="utf-8") as out:
                json.dump({"format": "moqsim-mutant-killers", "tests": {"a": "many", "b": 2}, "suites": []}, out)
            self.assertEqual(History.read(path).tests, {})

    def test_no_coverage_counts_against_the_score(self):
        tally = counts(["Killed", "Killed", "Killed", "NoCoverage", "Ignored"])
        self.assertEqual((tally["NoCoverage"], tally["score"]), (1, "75.0%"))


class SelectionTest(unittest.TestCase):
    """run_generated against a stand-in test program that logs how it was called."""

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.log = os.path.join(self.folder, "calls")
        self.program = os.path.join(self.folder, "tests")
        # Fails (a kill) when its filter names `slow_reader`, as doctest does a failed test.
        with open(self.program, "w", encoding="utf-8") as out:
            out.write(f"#!/bin/sh\necho \"$@\" >> {self.log}\n"
                      "case \"$*\" in *slow_reader*) echo 'TEST CASE:  slow_reader'; exit 1;; esac\n"
                      "echo '[doctest] test cases: 1 | 1 passed | 0 failed | 0 skipped'\n")
        os.chmod(self.program, os.stat(self.program).st_mode | stat.S_IEXEC)
        self.coverage = CoverageTest().coverage(self.folder)

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.folder], check=False)

    def calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log, encoding="utf-8") as source:
            return source.read().splitlines()

    def corpus_stand_in(self, failing):
        """A moqsim whose corpus passes, or fails on its second case with the mutant on."""
        ending = ('print("corpus: corpus/b.json FAILED: missed_wake: R10: missed wake")\nsys.exit(1)\n'
                  if failing else 'sys.exit(0)\n')
        return self.stand_in("moqsim", f"""
with open({self.log!r}, "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
print("corpus: corpus/a.json passed")
""" + ending)

    def test_a_mutant_nothing_reaches_is_no_coverage_and_runs_only_the_saved_cases(self):
        mutant = {"id": "gen.model/track.cpp:1:1.rel_flip"}
        moqsim = self.corpus_stand_in(failing=False)
        result = run_generated(mutant, self.program, moqsim, 10, Budget(5, self.coverage), History())
        self.assertEqual(result["status"], "NoCoverage")
        self.assertEqual(self.calls(), [f"corpus --mutant {mutant['id']}"])

    def test_a_mutant_nothing_reaches_may_be_killed_by_a_saved_case(self):
        mutant = {"id": "gen.model/track.cpp:1:1.rel_flip"}
        moqsim = self.corpus_stand_in(failing=True)
        result = run_generated(mutant, self.program, moqsim, 10, Budget(5, self.coverage), History())
        self.assertEqual(result["status"], "Killed")
        self.assertEqual(result["killer"], "corpus b.json (missed_wake)")
        self.assertEqual(result["credit"], ("suite", "corpus"))
        self.assertEqual(self.calls(), [f"corpus --mutant {mutant['id']}"])

    def test_the_likely_killer_runs_alone_first_and_ends_the_mutants_run(self):
        history = History(tests={"slow_reader": 3})
        result = run_generated({"id": MUTANT}, self.program, "/no/moqsim", 10, Budget(5, self.coverage), history)
        self.assertEqual(result["status"], "Killed")
        self.assertEqual(result["credit"], ("test", "slow_reader"))
        calls = self.calls()
        self.assertEqual(len(calls), 1)
        self.assertIn("--test-case=slow_reader", calls[0])
        self.assertNotIn("unrelated", calls[0])

    def stand_in(self, name, text):
        path = os.path.join(self.folder, name)
        with open(path, "w", encoding="utf-8") as out:
            out.write(f"#!{sys.executable}\nimport json, sys\n" + text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path

    def test_a_survivor_of_the_tests_and_sweeps_is_killed_by_a_saved_case(self):
        passing = self.stand_in("passing", "print('[doctest] test cases: 1 | 1 passed | 0 failed | 0 skipped')\n")
        # A sweep that finds nothing; a corpus whose second case fails with the mutant on.
        moqsim = self.stand_in("moqsim", f"""
with open({self.log!r}, "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
if sys.argv[1] == "sweep":
    with open(sys.argv[sys.argv.index("--json") + 1], "w") as out:
        json.dump({{"suites": [{{"suite": "group", "failures": []}}]}}, out)
    sys.exit(0)
print("corpus: corpus/a.json passed")
print("corpus: corpus/b.json FAILED: missed_wake: R10: missed wake: the reader is parked")
sys.exit(1)
""")
        result = run_generated({"id": MUTANT}, passing, moqsim, 10, Budget(5, self.coverage), History())
        self.assertEqual(result["status"], "Killed")
        self.assertEqual(result["killer"], "corpus b.json (missed_wake)")
        self.assertEqual(result["credit"], ("suite", "corpus"))
        self.assertEqual(self.calls()[-1], f"corpus --mutant {MUTANT}")
        self.assertFalse(result.get("outside_coverage"))

    def test_without_a_history_the_cheap_tests_run_first_in_a_batch_of_their_own(self):
        result = run_generated({"id": MUTANT}, self.program, "/no/moqsim", 10, Budget(5, self.coverage), History())
        self.assertEqual(result["status"], "Killed")
        self.assertEqual(result["tries"], 2)
        calls = self.calls()
        self.assertEqual(len(calls), 2)
        self.assertIn("--test-case=fast_reader", calls[0])
        self.assertNotIn("slow_reader", calls[0])
        self.assertIn("--test-case=slow_reader", calls[1])


class ListenerTest(unittest.TestCase):
    """--mutant-coverage of a mutants build's unit test program (build-sites/: scripts/check
    builds its site_evaluations_test before these tests)."""

    def coverage_lines(self, *tests):
        program = os.path.join(os.path.dirname(os.path.dirname(moqsim())), "core", "tests", "site_evaluations_test")
        self.assertTrue(os.access(program, os.X_OK), f"no program at {program}: scripts/check builds it")
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "coverage.jsonl")
            done = subprocess.run([program, "--no-intro", "--no-version", "--mutant-coverage", path,
                                   "--test-case=" + ",".join(tests)], capture_output=True, text=True, check=False)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            coverage = Coverage()
            coverage.add_tests(path)
            with open(path, encoding="utf-8") as source:
                return [json.loads(line) for line in source], coverage

    def test_each_test_case_lists_what_it_evaluated(self):
        lines, coverage = self.coverage_lines("a_site_evaluated_n_times_reports_n",
                                              "a_generated_mutants_switch_counts_each_evaluation_and_only_its_own")
        self.assertEqual([line["test"] for line in lines],
                         ["a_site_evaluated_n_times_reports_n",
                          "a_generated_mutants_switch_counts_each_evaluation_and_only_its_own"])
        self.assertEqual(lines[0]["sites"], {"test.counted_site": 38})
        self.assertEqual(lines[0]["generated"], {})
        self.assertEqual(lines[1]["generated"], {"gen.test/table.cpp:1:1.rel_flip": 4,
                                                 "gen.test/table.cpp:2:1.cond_negate": 1})
        self.assertEqual(coverage.reaching("test.counted_site", History())[0], ["a_site_evaluated_n_times_reports_n"])

    def hits(self, path, test):
        program = os.path.join(os.path.dirname(os.path.dirname(moqsim())), "core", "tests", "site_evaluations_test")
        return subprocess.run([program, "--no-intro", "--no-version", "--test-case=" + test],
                              env=dict(os.environ, MOQ_MUTANT_HITS=path), capture_output=True, text=True, check=False)

    def test_the_hits_file_names_each_generated_mutant_evaluated_when_the_program_ends(self):
        # The test leaves the counts at {0, 1}: the file holds what was counted at exit.
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "hits")
            done = self.hits(path, "a_reset_starts_every_generated_count_again")
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            with open(path, encoding="utf-8") as source:
                self.assertEqual(source.read(), "gen.test/table.cpp:2:1.cond_negate\n")
            done = self.hits(path, "a_generated_mutants_switch_counts_each_evaluation_and_only_its_own")
            with open(path, encoding="utf-8") as source:
                self.assertEqual(source.read().split(), ["gen.test/table.cpp:1:1.rel_flip",
                                                         "gen.test/table.cpp:2:1.cond_negate"])

    def test_a_hits_file_that_cannot_be_written_is_exit_2(self):
        done = self.hits(os.path.join(tempfile.gettempdir(), "no-such-folder", "hits"),
                         "a_reset_starts_every_generated_count_again")
        self.assertEqual(done.returncode, 2)
        self.assertIn("cannot write MOQ_MUTANT_HITS=", done.stderr)

    def test_the_program_resets_the_counts_per_test_and_counts_generated_mutants_itself(self):
        # The first leaves 38 evaluations behind; the second resets nothing and switches
        # no counting on, so its line is right only if the program does both.
        lines, _ = self.coverage_lines("a_site_evaluated_n_times_reports_n", "an_evaluation_counts_for_the_test_that_makes_it")
        self.assertEqual(lines[1]["test"], "an_evaluation_counts_for_the_test_that_makes_it")
        self.assertEqual(lines[1]["sites"], {"test.counted_site": 1})
        self.assertEqual(lines[1]["generated"], {"gen.test/table.cpp:2:1.cond_negate": 1})
