"""Tests of `scripts/bench --base REV` without building a second revision: the report
(bench_pair.py) on fixture runs written here, in Google Benchmark's JSON and the
callgrind totals the script records, the issue 13 targets judged from the figures
(bench_targets.py, which the single-revision report uses too), and the script's refusal of
bad usage.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

from moqtools.bench_targets import target_lines
from moqtools.report_index import index_page
from moqtools.tests.support import ROOT, run_tool

SVG = "{http://www.w3.org/2000/svg}"
BASE_SHA = "50cd551" + "0" * 33
HEAD_SHA = "53cc228" + "1" * 33
COMPARE_PY = "/usr/share/benchmark/compare.py"


def gbench(cases):
    """Google Benchmark's JSON of one run: cases is {case: (counter, [(cpu_us, wall_us), ...])}.
    Each case also gets a mean aggregate far off its repetitions, as the real output has
    one, so that a report that reads aggregates as repetitions shows it."""
    runs = []
    for case, (counter, reps) in cases.items():
        name = f"{case}/process_time/real_time"
        for index, (cpu, wall) in enumerate(reps):
            runs.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": len(reps),
                         "repetition_index": index, "threads": 1, "iterations": 1000, "real_time": wall,
                         "cpu_time": cpu, "time_unit": "us", counter: 64.0})
        runs.append({"name": f"{name}_mean", "run_name": name, "run_type": "aggregate", "aggregate_name": "mean",
                     "aggregate_unit": "time", "repetitions": len(reps), "threads": 1, "iterations": len(reps),
                     "real_time": 99999.0, "cpu_time": 99999.0, "time_unit": "us", counter: 64.0})
    return {"context": {"num_cpus": 2, "library_build_type": "release"}, "benchmarks": runs}


def idle_lines(per_poll):
    """Lines of idle-REV.txt: CASE TRACKS GATES POLLS I(0) I(N) giving these per-poll costs."""
    return "".join(f"{which} {tracks} {gates} 20000 1000000 {1000000 + int(cost * 20000)}\n"
                   for (which, tracks, gates), cost in per_poll.items())


THREADS = "session_fanout_threads"
WAKES = "runtime_wake_fanout"


class Fixture:
    """A results folder as the paired run fills it: two rounds per revision."""

    def __init__(self, folder, base_fanout=True, base_idle=True):
        self.folder = folder
        self.write("meta.json", json.dumps({
            "base": {"rev": "50cd551", "sha": BASE_SHA}, "head": {"rev": "HEAD", "sha": HEAD_SHA, "dirty": False},
            "rounds": 2, "repetitions": 2, "idle_polls": 20000, "active_polls": 2000, "compiler": "c++ 12",
            "tool": "valgrind-3.19.0", "load": ["1.00 2.00 3.00", "1.50 2.00 3.00"]}))
        if base_fanout:
            # Base has no runtime_wake_fanout, as a revision older than that case.
            self.write("fanout-base-1.json", json.dumps(gbench({
                f"{THREADS}/workers=1": ("groups", [(100.0, 200.0), (120.0, 240.0)]),
                f"{THREADS}/workers=16": ("groups", [(300.0, 500.0), (320.0, 540.0)])})))
            self.write("fanout-base-2.json", json.dumps(gbench({
                f"{THREADS}/workers=1": ("groups", [(110.0, 220.0)]),
                f"{THREADS}/workers=16": ("groups", [(310.0, 520.0)])})))
        self.write("fanout-head-1.json", json.dumps(gbench({
            f"{THREADS}/workers=1": ("groups", [(60.0, 150.0), (80.0, 170.0)]),
            f"{THREADS}/workers=16": ("groups", [(150.0, 300.0)]),
            f"{WAKES}/workers=1": ("wakes", [(20.0, 40.0)]),
            f"{WAKES}/workers=16": ("wakes", [(40.0, 80.0)])})))
        self.write("fanout-head-2.json", json.dumps(gbench({
            f"{THREADS}/workers=1": ("groups", [(70.0, 160.0)]),
            f"{THREADS}/workers=16": ("groups", [(140.0, 280.0), (160.0, 320.0)]),
            f"{WAKES}/workers=1": ("wakes", [(22.0, 44.0), (24.0, 48.0)]),
            f"{WAKES}/workers=16": ("wakes", [(44.0, 88.0), (48.0, 96.0)])})))
        if base_idle:
            self.write("idle-base.txt", idle_lines({("idle", 1, "on"): 100.0, ("idle", 16, "on"): 992.0,
                                                    ("active", 16, "on"): 2150.0}))
        self.write("idle-head.txt", idle_lines({("idle", 1, "on"): 90.0, ("idle", 16, "on"): 1240.0,
                                                ("active", 16, "on"): 2150.0}))

    def write(self, name, text):
        with open(os.path.join(self.folder, name), "w", encoding="utf-8") as handle:
            handle.write(text)


def run_report(results, reports, *extra):
    return run_tool("bench_pair", results, reports, *extra)


class ResultsFolder(unittest.TestCase):
    """A results folder for the paired run's report, and the reports folder it writes."""

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.results = os.path.join(self.folder, "results")
        self.reports = os.path.join(self.folder, "reports")
        os.makedirs(self.results)

    def tearDown(self):
        shutil.rmtree(self.folder)


class ReportTest(ResultsFolder):

    def report(self, **fixture):
        Fixture(self.results, **fixture)
        run = run_report(self.results, self.reports)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(os.path.join(self.reports, "bench.json"), encoding="utf-8") as handle:
            data = json.load(handle)
        cases = {(entry["case"], entry["metric"]): entry for entry in data["cases"]}
        return run, data, cases

    def test_medians_of_every_repetition_and_their_ratios(self):
        _, data, cases = self.report()
        one = f"{THREADS}/workers=1"
        # cpu: base 100, 120, 110 -> 110; head 60, 80, 70 -> 70 (aggregates left out).
        cpu = cases[(one, "process CPU per round")]
        self.assertEqual((cpu["base"], cpu["head"], cpu["unit"]), (110.0, 70.0, "µs"))
        self.assertAlmostEqual(cpu["ratio"], 70 / 110, places=4)
        per_group = cases[(one, "CPU per delivered group")]
        self.assertEqual((per_group["base"], per_group["head"], per_group["unit"]), (1719.0, 1094.0, "ns"))
        wall = cases[(one, "wall time per round")]
        self.assertEqual((wall["base"], wall["head"]), (220.0, 160.0))
        sixteen = cases[(f"{THREADS}/workers=16", "process CPU per round")]
        self.assertEqual((sixteen["base"], sixteen["head"]), (310.0, 150.0))
        scaling = cases[(THREADS, "process CPU, workers=16 / workers=1")]
        self.assertEqual((scaling["base"], scaling["head"], scaling["unit"]), (2.818, 2.143, "x"))
        self.assertAlmostEqual(scaling["ratio"], 2.143 / 2.818, places=4)
        idle = cases[("idle, 16 tracks, gates on", "instructions per poll")]
        self.assertEqual((idle["base"], idle["head"], idle["ratio"]), (992.0, 1240.0, 1.25))
        active = cases[("active, 16 tracks, gates on", "instructions per round")]
        self.assertEqual((active["base"], active["head"], active["ratio"]), (2150.0, 2150.0, 1.0))
        self.assertEqual((data["base"]["sha"], data["head"]["sha"]), (BASE_SHA, HEAD_SHA))
        self.assertEqual(data["rounds"], 2)

    def test_the_report_judges_the_targets_from_the_heads_figures(self):
        run, _, _ = self.report()
        with open(os.path.join(self.reports, "bench.md"), encoding="utf-8") as handle:
            page = handle.read()
        # Head: 1,240 at 16 tracks (77.5 a track), 90 at one, active 2,150 as the base.
        wanted = ["- Gated idle poll at 16 tracks, at most 30 instructions per track: 77.5 (missed).",
                  "- Gated idle poll at one track, at most 60 instructions: 90.0 (missed).",
                  "- Gated active round no slower than the base revision's: 16 tracks 2,150.0 against 2,150.0 (met)."]
        self.assertIn("\n".join(["Targets (issue 13), head's figures:", "", *wanted]), page)
        self.assertIn(wanted[2], run.stdout)

    def test_a_case_the_base_lacks_is_absent_not_a_crash(self):
        run, _, cases = self.report(base_idle=False)
        wakes = cases[(f"{WAKES}/workers=16", "CPU per delivered wake")]
        self.assertEqual((wakes["base"], wakes["head"], wakes["ratio"], wakes["absent"]), (None, 688.0, None, ["base"]))
        scaling = cases[(WAKES, "process CPU, workers=16 / workers=1")]
        self.assertEqual((scaling["base"], scaling["head"]), (None, 2.0))
        idle = cases[("idle, 1 track, gates on", "instructions per poll")]
        self.assertEqual((idle["base"], idle["head"], idle["absent"]), (None, 90.0, ["base"]))
        self.assertIn(f"| session_fanout | {WAKES}/workers=16 | CPU per delivered wake | ns | absent | 688 | n/a |",
                      run.stdout)
        with open(os.path.join(self.reports, "bench.md"), encoding="utf-8") as handle:
            markdown = handle.read()
        self.assertIn("| idle_export | idle, 1 track, gates on | instructions per poll | instructions | absent "
                      "| 90.0 | n/a |", markdown)
        self.assertIn(f"- base: 50cd551 ({BASE_SHA[:12]})", markdown)

    def test_a_base_without_the_fanout_bench_is_absent_throughout(self):
        _, _, cases = self.report(base_fanout=False)
        fanout = [entry for entry in cases.values() if entry["bench"] == "session_fanout"]
        self.assertEqual(len(fanout), 2 * (2 * 3 + 1))
        self.assertTrue(all(entry["base"] is None and entry["absent"] == ["base"] for entry in fanout))

    def test_the_chart_has_one_bar_per_revision_per_case(self):
        _, data, _ = self.report(base_idle=False)
        tree = ElementTree.parse(os.path.join(self.reports, "bench.svg"))
        bars = [rect for rect in tree.iter(f"{SVG}rect") if "bar" in rect.get("class", "").split()]
        labels = {f"{entry['case']}: {entry['metric']}": entry for entry in data["cases"]}
        self.assertEqual(len(bars), 2 * len(labels))
        for revision in ("base", "head"):
            mine = [bar for bar in bars if revision in bar.get("class").split()]
            self.assertEqual(sorted(bar.get("data-case") for bar in mine), sorted(labels))
            for bar in mine:
                entry = labels[bar.get("data-case")]
                self.assertEqual("absent" in bar.get("class").split(), entry[revision] is None)
                self.assertEqual(float(bar.get("width")) == 0, entry[revision] is None)
        # Within a panel the bars scale with their values: 70 against 110 µs.
        widths = {(bar.get("data-case"), bar.get("class").split()[1]): float(bar.get("width")) for bar in bars}
        key = f"{THREADS}/workers=1: process CPU per round"
        self.assertAlmostEqual(widths[(key, "head")] / widths[(key, "base")], 70 / 110, places=2)
        legend = [rect for rect in tree.iter(f"{SVG}rect") if "legend" in rect.get("class", "").split()]
        self.assertEqual(len(legend), 2)
        texts = " ".join(text.text or "" for text in tree.iter(f"{SVG}text"))
        self.assertIn(BASE_SHA[:12], texts)
        self.assertIn(HEAD_SHA[:12], texts)

    def test_the_index_page_links_and_sums_up_the_pair(self):
        self.report(base_idle=False)
        page = index_page(self.reports)
        for name in ("bench.md", "bench.json", "bench.svg"):
            self.assertIn(f'href="{name}"', page)
        # Paired: the 7 session_fanout_threads figures and none of the rest (base lacks them).
        self.assertIn(f"base {BASE_SHA[:12]} against head {HEAD_SHA[:12]}: 7 of 17 figures paired", page)

    def test_a_bad_input_leaves_the_previous_reports_whole(self):
        os.makedirs(self.reports)
        for name in ("bench.md", "bench.json", "bench.svg"):
            with open(os.path.join(self.reports, name), "w", encoding="utf-8") as handle:
                handle.write("previous\n")
        Fixture(self.results)
        with open(os.path.join(self.results, "fanout-head-2.json"), "w", encoding="utf-8") as handle:
            handle.write('{"benchmarks": [{"name": ')
        run = run_report(self.results, self.reports)
        self.assertNotEqual(run.returncode, 0)
        self.assertEqual(sorted(os.listdir(self.reports)), ["bench.json", "bench.md", "bench.svg"])
        for name in os.listdir(self.reports):
            with open(os.path.join(self.reports, name), encoding="utf-8") as handle:
                self.assertEqual(handle.read(), "previous\n")

    @unittest.skipUnless(os.path.exists(COMPARE_PY), "Debian's libbenchmark-tools is not installed")
    def test_compare_py_pairs_the_merged_rounds(self):
        Fixture(self.results)
        run = run_report(self.results, self.reports, "--compare", COMPARE_PY)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(os.path.join(self.reports, "bench.md"), encoding="utf-8") as handle:
            markdown = handle.read()
        # compare.py's median line: 110 -> 70 µs of CPU is -0.3636 (its relative change).
        line = next(line for line in markdown.splitlines()
                    if line.startswith(f"{THREADS}/workers=1/process_time/real_time_median"))
        self.assertIn("-0.3636", line)
        # All three repetitions of a revision went into the U test.
        self.assertIn("Repetitions: 3 vs 3", markdown)


class TargetTest(unittest.TestCase):
    """Issue 13's targets, judged from the figures (bench_targets.py)."""

    @staticmethod
    def figures(idle_16, idle_1, active=None):
        per_poll = {("idle", 16, "on"): idle_16, ("idle", 1, "on"): idle_1, ("idle", 16, "off"): 40000.0}
        for tracks, cost in (active or {}).items():
            per_poll[("active", tracks, "on")] = cost
            per_poll[("active", tracks, "off")] = cost * 2
        return per_poll

    def test_each_idle_bound_is_met_up_to_its_figure_and_missed_past_it(self):
        lines = target_lines(self.figures(480.0, 60.0))
        self.assertIn("at most 30 instructions per track: 30.0 (met)", lines[0])
        self.assertIn("at most 60 instructions: 60.0 (met)", lines[1])
        lines = target_lines(self.figures(481.6, 60.1))
        self.assertIn("at most 30 instructions per track: 30.1 (missed)", lines[0])
        self.assertIn("at most 60 instructions: 60.1 (missed)", lines[1])

    def test_the_active_path_is_judged_against_a_base_only(self):
        head = self.figures(400.0, 50.0, {1: 2119.6, 16: 35709.7})
        alone = target_lines(head)
        self.assertEqual(len(alone), 3)
        self.assertIn("not judged by a run of one revision", alone[2])
        self.assertNotIn("(met)", alone[2])
        same = target_lines(head, self.figures(900.0, 90.0, {1: 2119.6, 16: 35709.7}))
        self.assertEqual(same[2], "- Gated active round no slower than the base revision's: 1 track 2,119.6 "
                                  "against 2,119.6; 16 tracks 35,709.7 against 35,709.7 (met).")
        # One track count slower is enough to miss it; gates off do not count.
        slower = target_lines(head, self.figures(900.0, 90.0, {1: 2119.5, 16: 36062.8}))
        self.assertTrue(slower[2].endswith("(missed)."), slower[2])
        self.assertIn("1 track 2,119.6 against 2,119.5", slower[2])
        self.assertIn("not measured in both", target_lines(head, {})[2])

    def test_a_figure_not_measured_is_said_so(self):
        lines = target_lines({("active", 1, "on"): 10.0})
        self.assertIn("not measured", lines[0])
        self.assertIn("not measured", lines[1])


class UsageTest(unittest.TestCase):
    """scripts/bench refuses bad usage before it installs, builds or writes anything."""

    def bench(self, *args):
        before = self.state()
        run = subprocess.run([os.path.join(ROOT, "scripts", "bench"), *args], capture_output=True, text=True,
                             check=False, cwd=ROOT)
        self.assertEqual(self.state(), before, "scripts/bench changed files or worktrees")
        return run

    def state(self):
        listing = subprocess.run(["git", "-C", ROOT, "worktree", "list", "--porcelain"], capture_output=True,
                                 text=True, check=True).stdout
        reports = os.path.join(ROOT, "reports")
        stamps = sorted((name, os.stat(os.path.join(reports, name)).st_mtime_ns) for name in os.listdir(reports))
        return listing, os.path.exists(os.path.join(ROOT, ".bench-base")) and sorted(
            os.listdir(os.path.join(ROOT, ".bench-base"))), stamps

    def assert_refused(self, run, words):
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertEqual(run.stdout, "")
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn(words, run.stderr)

    def test_base_without_a_value(self):
        self.assert_refused(self.bench("--base"), "--base needs a revision")
        self.assert_refused(self.bench("--base="), "--base needs a revision")

    def test_a_revision_that_names_no_commit(self):
        self.assert_refused(self.bench("--base", "no-such-revision-here"), "'no-such-revision-here' names no commit")
        self.assert_refused(self.bench("--base", "0123456789abcdef0123456789abcdef01234567"), "names no commit")
        self.assert_refused(self.bench("--base=--help"), "names no commit")

    def test_options_that_do_not_go_with_base(self):
        self.assert_refused(self.bench("--base", "HEAD", "--sim"), "--base and --sim")
        self.assert_refused(self.bench("--rounds", "2"), "--rounds applies only with --base")
        self.assert_refused(self.bench("--base", "HEAD", "--rounds", "0"), "--rounds takes a number")

