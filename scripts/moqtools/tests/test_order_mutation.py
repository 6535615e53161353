"""Tests of the order_weaken stage (moqtools/order_mutation.py and its part in
moqtools/mutation.py): stand-in thread programs in a folder laid out as a ThreadSanitizer
schemata build, each behaving as the test asks through the mutant it is given."""

import contextlib
import io
import json
import os
import stat
import sys
import tempfile
import textwrap
import unittest

from moqtools import mutation
from moqtools.order_mutation import (RACE_EXIT, OrderBudget, OrderError, environment, finding, run_order_mutant,
                                     run_program)

RACE = textwrap.dedent("""\
    ==================
    WARNING: ThreadSanitizer: data race (pid=4242)
      Write of size 8 at 0x7b0400000010 by thread T2:
    SUMMARY: ThreadSanitizer: data race core/kio/waiter.cpp:41 in moq::kio::release_weak
    ==================
""")

# A stand-in thread program: core_tests' --mutant-coverage FILE writes each stress test's
# coverage, MOQ_MUTANT_HITS=FILE the mutants the whole program evaluates; the mutant in
# MOQ_MUTANT says what each test does (see BEHAVIOUR).
PROGRAM = """
import json, os, sys, time
BEHAVIOUR = {behaviour!r}
REACH = {reach!r}
args = sys.argv[1:]
if os.environ.get("MOQ_MUTANT_HITS"):
    with open(os.environ["MOQ_MUTANT_HITS"], "w") as out:
        out.write("".join(id + "\\n" for id in {held!r}))
mutant = os.environ.get("MOQ_MUTANT", "")
if os.environ.get("TSAN_OPTIONS", "").find("halt_on_error=1") < 0:
    sys.exit(9)
if "--mutant-coverage" in args:
    path = args[args.index("--mutant-coverage") + 1]
    with open(path, "w") as out:
        for test, reached in REACH.items():
            out.write(json.dumps({{"test": test, "seconds": 0.01, "sites": [], "generated": reached}}) + "\\n")
    sys.exit(0)
if mutant and mutant not in {held!r}:
    sys.stderr.write("moqsim: unknown mutant '" + mutant + "'\\n")
    sys.exit(2)
tests = [a.split("=", 1)[1] for a in args if a.startswith("--test-case=")]
with open(os.environ["TRIES_LOG"], "a") as log:
    log.write("{name} " + ",".join(tests) + "\\n")
what = BEHAVIOUR.get(mutant + " " + ",".join(tests), BEHAVIOUR.get(mutant, "pass"))
if what == "race":
    sys.stderr.write({race!r})
    sys.exit({race_exit})
if what == "hang":
    time.sleep(30)
if what == "fail":
    sys.exit(1)
sys.exit(0)
"""


def write_program(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"#!{sys.executable}\n" + text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


class OrderStageTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.build = self.folder.name
        self.log = os.path.join(self.build, "tries.log")
        self.env = dict(os.environ, TRIES_LOG=self.log)

    def tearDown(self):
        self.folder.cleanup()

    def make_build(self, behaviour=None, reach=None, held=("gen.a", "gen.b"), runtime_held=("gen.a",),
                   runtime=None, fanout=None):
        """Stand-ins for the three programs. behaviour: {"MUTANT" or "MUTANT TEST": pass|race|fail|hang};
        reach: the stress tests' coverage; held: the mutants each program knows (and the
        runtime's and fanout's evaluate)."""
        reach = reach if reach is not None else {"stress_one": ["gen.a"], "stress_two": ["gen.a", "gen.b"]}
        for name, path, table, linked in (
                ("core", "core/tests/core_tests", behaviour or {}, held),
                ("runtime", "runtime/tests/runtime_tests", runtime or {}, runtime_held),
                ("fanout", "bench/session_fanout", fanout or {}, held)):
            write_program(os.path.join(self.build, path),
                          PROGRAM.format(behaviour=table, reach=reach if name == "core" else {}, held=list(linked),
                                         name=name, race=RACE, race_exit=RACE_EXIT))

    def budget(self, floor=5.0):
        return OrderBudget(self.build, self.env, 5.0, floor=floor).measure()

    def tries(self):
        with open(self.log, encoding="utf-8") as log:
            return log.read().splitlines()

    def test_the_race_report_names_the_summary_or_else_the_warning(self):
        self.assertEqual(finding(RACE), "data race core/kio/waiter.cpp:41 in moq::kio::release_weak")
        self.assertEqual(finding("WARNING: ThreadSanitizer: data race (pid=1)\n"),
                         "WARNING: ThreadSanitizer: data race")
        self.assertEqual(finding("doctest: 1 failed\n"), "")

    def test_each_try_stops_at_the_first_report_and_carries_only_its_mutant(self):
        env = environment(dict(os.environ, MOQ_MUTANT="gen.stale"), "gen.a")
        self.assertIn("halt_on_error=1", env["TSAN_OPTIONS"])
        self.assertIn(f"exitcode={RACE_EXIT}", env["TSAN_OPTIONS"])
        self.assertEqual(env["MOQ_MUTANT"], "gen.a")
        self.assertNotIn("MOQ_MUTANT", environment(dict(os.environ, MOQ_MUTANT="gen.stale"), None))

    def test_a_try_is_killed_by_a_race_a_failure_or_a_signal_and_times_out(self):
        self.make_build(behaviour={"gen.a": "race", "gen.b": "fail"})
        program = os.path.join(self.build, "core/tests/core_tests")
        race = run_program("stress", [program], environment(self.env, "gen.a"), 10)
        self.assertEqual(race["status"], "Killed")
        self.assertIn("ThreadSanitizer: data race core/kio/waiter.cpp:41", race["reason"])
        self.assertEqual(run_program("stress", [program], environment(self.env, "gen.b"), 10)["reason"],
                         "stress: exit 1")
        self.assertEqual(run_program("stress", [program], environment(self.env, None), 10)["status"], "Survived")
        # The registry's refusal of a mutant is a broken stage, never a kill.
        with self.assertRaisesRegex(OrderError, "stress: moqsim: unknown mutant 'gen.other'"):
            run_program("stress", [program], environment(self.env, "gen.other"), 10)
        write_program(program, "import os, signal\nos.kill(os.getpid(), signal.SIGABRT)\n")
        self.assertEqual(run_program("stress", [program], self.env, 10)["reason"], "stress: signal 6")
        write_program(program, "import time\ntime.sleep(30)\n")
        self.assertEqual(run_program("stress", [program], self.env, 0.5)["status"], "Timeout")

    def test_a_program_failing_with_no_mutant_stops_the_stage(self):
        self.make_build(runtime={"": "race"})
        failing = "(?s)runtime_tests fails under ThreadSanitizer with no mutant.*data race"
        with self.assertRaisesRegex(OrderError, failing):
            self.budget()

    def test_only_the_tests_and_programs_that_reach_a_mutant_run_one_a_try(self):
        self.make_build()
        result = run_order_mutant({"id": "gen.b"}, self.budget())
        self.assertEqual(result["status"], "Survived")
        # The clean runs first (the stress tests' is the coverage run, which logs no try); then for
        # gen.b only stress_two, which reaches it, and the fanout program: runtime_tests does not evaluate it.
        self.assertEqual(self.tries(), ["runtime ", "fanout ", "core stress_two", "fanout "])
        self.assertEqual(result["reached_by"], ["stress_two", "session_fanout --test"])
        self.assertEqual(result["tries"], 2)
        self.assertIn("no race and no failure on the threads of stress_two, session_fanout --test", result["reason"])

    def test_the_first_race_kills_and_nothing_after_it_runs(self):
        self.make_build(behaviour={"gen.a stress_one": "race"})
        budget = self.budget()
        os.remove(self.log)
        result = run_order_mutant({"id": "gen.a"}, budget)
        self.assertEqual(result["status"], "Killed")
        self.assertEqual(result["killed_by"], ["stress_one"])
        self.assertIn("data race core/kio/waiter.cpp:41", result["killer"])
        self.assertEqual(self.tries(), ["core stress_one"])

    def test_a_kill_on_the_runtime_threads_after_the_stress_tests(self):
        self.make_build(runtime={"gen.a": "fail"})
        result = run_order_mutant({"id": "gen.a"}, self.budget())
        self.assertEqual(result["status"], "Killed")
        self.assertEqual(result["killed_by"], ["runtime_tests"])
        self.assertEqual(result["reason"], "runtime_tests: exit 1")

    def test_a_hang_is_a_timeout_of_its_budget(self):
        self.make_build(fanout={"gen.a": "hang"})
        result = run_order_mutant({"id": "gen.a"}, self.budget(floor=1.0))
        self.assertEqual(result["status"], "Timeout")
        self.assertEqual(result["killed_by"], ["session_fanout --test"])

    def test_a_mutant_no_thread_program_evaluates_is_no_coverage_and_never_run(self):
        self.make_build(held=("gen.a",), reach={"stress_one": ["gen.a"]})
        budget = self.budget()
        os.remove(self.log)
        result = run_order_mutant({"id": "gen.b"}, budget)
        self.assertEqual(result["status"], "NoCoverage")
        self.assertEqual(result["tries"], 0)
        self.assertFalse(os.path.exists(self.log))

    def test_a_program_that_writes_no_hits_is_no_mutants_build(self):
        self.make_build()
        write_program(os.path.join(self.build, "bench/session_fanout"), "")
        with self.assertRaisesRegex(OrderError, "session_fanout --test wrote no MOQ_MUTANT_HITS file"):
            self.budget()


def generated(mutant_id, operator):
    return {"kind": "generated", "id": mutant_id, "operator": operator, "file": "core/kio/waiter.cpp", "line": 1,
            "column": 1, "end_line": 1, "end_column": 2,
            "original": "std::memory_order_release", "replacement": "std::memory_order_relaxed", "key": mutant_id}


class OrderSelectionTest(unittest.TestCase):
    MUTANTS = [generated("gen.w:1:1.order_weaken", "order_weaken"), generated("gen.w:2:1.rel_flip", "rel_flip")]

    def select(self, operators=(), named=(), threads=None):
        selection = []
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            kept = mutation.select_operators(list(self.MUTANTS), self.MUTANTS, list(operators),
                                             (list(named), threads), selection)
        return [m["id"] for m in kept], selection, printed.getvalue()

    def test_without_a_thread_build_the_orders_are_left_out_and_said_so(self):
        kept, selection, printed = self.select()
        self.assertEqual(kept, ["gen.w:2:1.rel_flip"])
        self.assertIn("without order_weaken", selection)
        self.assertIn("1 order_weaken mutants not run", printed)

    def test_with_a_thread_build_every_mutant_runs(self):
        self.assertEqual(self.select(threads="build-mutants-tsan")[0], [m["id"] for m in self.MUTANTS])

    def test_naming_an_order_without_a_thread_build_is_an_error(self):
        with self.assertRaisesRegex(mutation.UsageError, "--threads-build"):
            self.select(operators=["order_weaken"])
        with self.assertRaisesRegex(mutation.UsageError, "--threads-build"):
            self.select(named=["gen.w:1:1.order_weaken"])

    def test_the_order_score_is_given_apart(self):
        killed = {"status": "Killed", "killed_by": ["x"], "killer": "x", "reason": "", "cases_to_kill": None,
                  "tries": 1, "ms": 1}
        survived = dict(killed, status="Survived", killed_by=[], killer="", reason="no race")
        runs = [(self.MUTANTS[1], killed), (self.MUTANTS[0], survived)]
        meta = {"suites": ["gate"], "selection": "every mutant", "elapsed_ms": 1000, "tests": 3, "jobs": 2,
                "when": "today"}
        printed = io.StringIO()
        with tempfile.TemporaryDirectory() as report_dir, contextlib.redirect_stdout(printed):
            mutation.summarise(runs, meta, report_dir)
        self.assertIn("generated: 1 killed, 0 timeout, 0 survived", printed.getvalue())
        self.assertIn("score 100.0% (without order_weaken)", printed.getvalue())
        self.assertIn("order_weaken under ThreadSanitizer: 0 killed, 0 timeout, 1 survived", printed.getvalue())
        self.assertIn("score 0.0%", printed.getvalue())
        # The tries count the unit tests and sweeps only: 1 mutant run against 3 tests and 1 sweep.
        self.assertIn("Tries: 1 (test or sweep, mutant) runs, against 4", printed.getvalue())
        markdown = mutation.report_markdown(runs, meta)
        self.assertIn("| order_weaken (ThreadSanitizer, scored apart) | 1 | 0 | 0 | 1 |", markdown)
        self.assertIn("## Weakened memory orders (ThreadSanitizer)", markdown)
        self.assertIn("| survived | no race |", markdown)
        report = json.loads(mutation.report_json(runs, 1000))
        self.assertEqual(len(report["files"]["core/kio/waiter.cpp"]["mutants"]), 2)


if __name__ == "__main__":
    unittest.main()
