#!/usr/bin/env python3
"""Tests of the report tools: the HTML bundle of the mutation report, the index page,
site locations and site coverage, and the bundle rendered in headless Chromium; and the
shard scripts/mutate takes from the environment (shard_env.py), which must read as moqsim
sweep's does.

Usage: reports_test.py VIEWER_JS
VIEWER_JS is the viewer's browser bundle (scripts/lib/setup.sh's moq_report_viewer
prints its path). Ends with "reports: N passed, M failed"; exit 1 if any failed.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

LIB = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(LIB, "..", ".."))
sys.path.insert(0, LIB)
from browser import Browser, BrowserError  # noqa: E402
from render_check import expected_score, mismatches, read_file_view, read_rendered, source_problems  # noqa: E402
from report_html import bundle_page  # noqa: E402
from report_index import index_page  # noqa: E402
from site_coverage import check_site_hits, sites_markdown, unreached  # noqa: E402
from shard_env import ShardError, shard_from_environment  # noqa: E402
from site_location import site_location  # noqa: E402
from test_run import run_and_exit  # noqa: E402

VIEWER = None  # the viewer's bundle, from the command line
SITE_NAME = re.compile(r'MOQ_SITE(?:_EXPLAINED)?\("([^"]+)"')


def real_sites(path, count):
    """The first `count` mutation sites of a core source file: (name, line)."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    found = []
    for number, text in enumerate(lines, 1):
        for match in SITE_NAME.finditer(text):
            found.append((match.group(1), number))
    return found[:count]


def fixture_report(statuses):
    """A schema version 2 report over real core files, one mutant a status, each at a
    real site's place, as scripts/lib/mutate.py writes them."""
    files = {}
    per_file = {"core/model/group.cpp": statuses[:len(statuses) // 2 + 1],
                "core/model/track.cpp": statuses[len(statuses) // 2 + 1:]}
    for path, wanted in per_file.items():
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            source = handle.read()
        mutants = []
        for status, (name, line) in zip(wanted, real_sites(path, len(wanted))):
            mutants.append({"id": name, "mutatorName": "notify", "description": f"{name} switched off",
                            "location": site_location(source, name, line), "status": status,
                            "killedBy": ["a_test"] if status == "Killed" else []})
        files[path] = {"language": "cpp", "source": source, "mutants": mutants}
    return {"schemaVersion": "2", "thresholds": {"high": 90, "low": 70}, "projectRoot": ".", "files": files,
            "testFiles": {"core/tests": {"tests": [{"id": "a_test", "name": "a_test"}]}},
            "framework": {"name": "moqsim mutate"}}


def viewer_code():
    with open(VIEWER, encoding="utf-8") as handle:
        return handle.read()


class BundleTest(unittest.TestCase):
    def test_the_page_loads_nothing_from_outside(self):
        page = bundle_page(fixture_report(["Killed", "Survived"]), viewer_code())
        self.assertIsNone(re.search(r"<script\b[^>]*\bsrc\s*=", page, re.I), "a script with src")
        self.assertIsNone(re.search(r"<link\b", page, re.I), "a linked resource")
        # Links a person may follow (the viewer's help) are fine; nothing may load.
        self.assertIsNone(re.search(r"""\bsrc\s*=\s*["']?(?:https?:)?//""", page, re.I),
                          "a source loaded from the network")
        self.assertIsNone(re.search(r"""(?:@import|url\()\s*["']?(?:https?:)?//""", page, re.I),
                          "a style loaded from the network")

    def test_the_page_holds_the_viewer_and_the_report(self):
        report = fixture_report(["Killed", "Survived", "Timeout"])
        page = bundle_page(report, viewer_code())
        self.assertTrue(viewer_code() in page, "the viewer's code is not in the page")
        self.assertTrue("<mutation-test-report-app" in page)
        carried = re.search(r'<script id="mutation-report" type="application/json">(.*?)</script>', page, re.S)
        self.assertIsNotNone(carried)
        self.assertEqual(json.loads(carried.group(1)), report)

    def test_a_source_that_closes_a_script_stays_inside_it(self):
        report = fixture_report(["Killed"])
        path = next(iter(report["files"]))
        report["files"][path]["source"] += '\n// </script><script>alert(1)</script> <!-- </SCRIPT >\n'
        page = bundle_page(report, viewer_code() + '\n// <!-- <script> </script>\nconst closing = "</Script>";\n')
        # The fragment keeper, the viewer, the report and the start-up code: four scripts.
        self.assertEqual(len(re.findall(r"</script", page, re.I)), 4)
        self.assertEqual(len(re.findall(r"<script", page, re.I)), 4)
        self.assertTrue('const closing = "\\x3C/Script>";' in page)
        carried = re.search(r'<script id="mutation-report" type="application/json">(.*?)</script>', page, re.S)
        self.assertEqual(json.loads(carried.group(1)), report)

    def test_a_bad_report_is_refused_and_nothing_written(self):
        with tempfile.TemporaryDirectory() as folder:
            bad = os.path.join(folder, "bad.json")
            out = os.path.join(folder, "out.html")
            for text in ("{ not json", '{"schemaVersion": "1", "files": {}}'):
                with open(bad, "w", encoding="utf-8") as handle:
                    handle.write(text)
                run = subprocess.run([sys.executable, os.path.join(LIB, "report_html.py"), bad, VIEWER, out],
                                     capture_output=True, text=True, check=False)
                self.assertEqual(run.returncode, 2, run.stderr)
                self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
                self.assertFalse(os.path.exists(out))


class IndexTest(unittest.TestCase):
    def write(self, folder, name, text):
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)

    def test_links_what_exists_and_names_the_script_of_what_does_not(self):
        with tempfile.TemporaryDirectory() as folder:
            self.write(folder, "mutation.json", json.dumps(fixture_report(["Killed", "Killed", "Survived"])))
            self.write(folder, "mutation.html", "<!DOCTYPE html>")
            self.write(folder, "coverage/index.html", "<!DOCTYPE html>")
            page = index_page(folder)
            self.assertIn('href="mutation.html"', page)
            self.assertIn('href="mutation.json"', page)
            self.assertIn('href="coverage/index.html"', page)
            self.assertNotIn('href="bench.md"', page)
            self.assertNotIn('href="sweep.json"', page)
            self.assertNotIn('href="sites.md"', page)
            self.assertIn("not generated yet: run <code>scripts/bench</code>", page)
            self.assertIn("not generated yet: run <code>scripts/sweep</code>", page)
            self.assertIn("not generated yet: run <code>scripts/mutate</code>", page)  # the site coverage
            self.assertIn("mutation.png: not generated yet: run <code>scripts/report</code>", page)
            self.assertIn("mutation score 66.67%", page)

    def test_the_same_reports_give_the_same_page_with_no_date(self):
        with tempfile.TemporaryDirectory() as folder:
            self.write(folder, "sweep.json", json.dumps({
                "format": "moqsim-sweep", "version": 1, "seeds": [1, 4], "strategy": "random",
                "suites": [{"suite": "resume", "passed": 12000, "failed": 0}]}))
            first = index_page(folder)
            self.assertEqual(first, index_page(folder))
            self.assertIn('href="sweep.json"', first)
            self.assertIn("12000 passed, 0 failed (resume; seeds 1-4, strategy random)", first)
            self.assertIsNone(re.search(r"\b20\d\d-\d\d-\d\d\b", first))

    def test_a_malformed_report_is_still_linked(self):
        with tempfile.TemporaryDirectory() as folder:
            self.write(folder, "bench.json", "[{")
            page = index_page(folder)
            self.assertIn('href="bench.json"', page)
            self.assertNotIn('class="summary"', page)


class SiteLocationTest(unittest.TestCase):
    def test_the_span_is_the_site_call(self):
        source = 'x\n    if (!refused && MOQ_SITE("group.finish.notify", notify)) cell_.notify();\n'
        location = site_location(source, "group.finish.notify", 2)
        self.assertEqual(location, {"start": {"line": 2, "column": 21}, "end": {"line": 2, "column": 60}})
        # 1-based columns, the end one past the span: the viewer's convention.
        line = source.split("\n")[1]
        self.assertEqual(line[20:59], 'MOQ_SITE("group.finish.notify", notify)')

    def test_a_call_over_several_lines_ends_at_its_bracket(self):
        source = ('    if (MOQ_SITE_EXPLAINED("a.b", disarm,\n'
                  '                           "a reason (with brackets) and a \\" quote")) go();\n')
        location = site_location(source, "a.b", 1)
        self.assertEqual(location["start"], {"line": 1, "column": 9})
        self.assertEqual(location["end"], {"line": 2, "column": source.split("\n")[1].index(")) go") + 2})

    def test_a_site_that_is_not_there_marks_its_whole_line(self):
        self.assertEqual(site_location("a\nb\n", "gone", 2), {"start": {"line": 2, "column": 1},
                                                               "end": {"line": 3, "column": 1}})


def hits_fixture():
    sites = [{"name": n, "category": "gate", "file": "core/model/idle.hpp", "line": i + 1}
             for i, n in enumerate(["a.gate", "b.notify", "c.disarm"])]
    return {"format": "moqsim-site-hits", "version": 1, "seeds": [1, 1], "strategy": "random", "sites": sites,
            "suites": [{"suite": "gate", "cases": 2000, "run": 2000, "evaluations": {"a.gate": 1500, "b.notify": 0,
                                                                                     "c.disarm": 0}},
                       {"suite": "group", "cases": 2000, "run": 17, "evaluations": {"a.gate": 3, "b.notify": 9,
                                                                                     "c.disarm": 0}}]}


class SiteCoverageTest(unittest.TestCase):
    def test_sites_no_sweep_reaches_are_listed(self):
        hits = hits_fixture()
        check_site_hits(hits)
        self.assertEqual([site["name"] for site in unreached(hits)], ["c.disarm"])
        text = sites_markdown(hits, fixture_report(["Killed"]))
        self.assertIn("| `a.gate` | gate | core/model/idle.hpp:1 | 1,500 | 3 |", text)
        self.assertIn("- gate reaches 1 of 3 sites", text)
        self.assertIn("- group reaches 2 of 3 sites", text)
        self.assertIn("- `c.disarm` (core/model/idle.hpp:3)", text)
        self.assertIn("before their last case (counts cover the cases run): group.", text)

    def test_a_suite_that_misses_a_site_is_refused(self):
        hits = hits_fixture()
        del hits["suites"][1]["evaluations"]["b.notify"]
        with self.assertRaises(ValueError):
            check_site_hits(hits)
        with self.assertRaises(ValueError):
            check_site_hits({"format": "moqsim-sweep", "version": 1})


# Whether the window scrolls to show the site coverage section within 2 s.
SITES_AT_TOP = r"""
(async () => {
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline) {
    const top = document.getElementById("sites").getBoundingClientRect().top;
    if (window.scrollY > 0 && top > -2 && top < window.innerHeight / 2) return true;
    await new Promise(done => setTimeout(done, 50));
  }
  return false;
})()
"""


class ShardEnvironmentTest(unittest.TestCase):
    """The rules and messages of cli/shard.cpp, whose cases docs/TESTING.md lists."""

    def refused(self, environ):
        with self.assertRaises(ShardError) as caught:
            shard_from_environment(environ)
        return str(caught.exception)

    def test_each_engine_names_its_shard(self):
        self.assertEqual(shard_from_environment({}), (0, 1))
        self.assertEqual(shard_from_environment({"GTEST_TOTAL_SHARDS": "4", "GTEST_SHARD_INDEX": "3"}), (3, 4))
        self.assertEqual(shard_from_environment({"TEST_TOTAL_SHARDS": "4", "TEST_SHARD_INDEX": "1"}), (1, 4))
        self.assertEqual(shard_from_environment({"MOQSIM_SHARD_COUNT": "8", "JOB_COMPLETION_INDEX": "7"}), (7, 8))
        # Slurm's --array=1-8: IDs from 1, and --array=3-11:4 (IDs 3, 7, 11) steps of 4.
        self.assertEqual(shard_from_environment({"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1",
                                                 "SLURM_ARRAY_TASK_COUNT": "8"}), (0, 8))
        self.assertEqual(shard_from_environment({"SLURM_ARRAY_TASK_ID": "11", "SLURM_ARRAY_TASK_MIN": "3",
                                                 "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "3"}), (2, 3))
        self.assertEqual(shard_from_environment({"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3"}), (2, 3))
        # An empty variable is unset, as a shell's `VAR=` leaves it.
        self.assertEqual(shard_from_environment({"JOB_COMPLETION_INDEX": "", "MOQSIM_SHARD_COUNT": ""}), (0, 1))

    def test_engines_that_agree_are_one_shard_and_engines_that_disagree_are_refused(self):
        both = {"GTEST_TOTAL_SHARDS": "8", "GTEST_SHARD_INDEX": "1", "JOB_COMPLETION_INDEX": "1",
                "MOQSIM_SHARD_COUNT": "8"}
        self.assertEqual(shard_from_environment(both), (1, 8))
        self.assertEqual(self.refused({**both, "GTEST_TOTAL_SHARDS": "4"}),
                         "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS say shard 1 of 4 but "
                         "JOB_COMPLETION_INDEX/MOQSIM_SHARD_COUNT say 1 of 8")
        self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": "1", "MOQSIM_SHARD_COUNT": "8",
                                       "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1",
                                       "SLURM_ARRAY_TASK_COUNT": "8"}),
                         "JOB_COMPLETION_INDEX/MOQSIM_SHARD_COUNT say shard 1 of 8 but "
                         "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT say 0 of 8")

    def test_half_a_pair_is_refused(self):
        self.assertEqual(self.refused({"GTEST_TOTAL_SHARDS": "2"}), "GTEST_TOTAL_SHARDS is set but GTEST_SHARD_INDEX is not")
        self.assertEqual(self.refused({"TEST_SHARD_INDEX": "1"}), "TEST_SHARD_INDEX is set but TEST_TOTAL_SHARDS is not")
        self.assertEqual(self.refused({"MOQSIM_SHARD_COUNT": "8"}),
                         "MOQSIM_SHARD_COUNT is set but JOB_COMPLETION_INDEX is not")
        self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": "3"}),
                         "JOB_COMPLETION_INDEX is set but MOQSIM_SHARD_COUNT is not (an Indexed Job sets it from "
                         ".spec.completions in its manifest: deploy/kubernetes/sweep-job.yaml)")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "3"}),
                         "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")

    def test_an_index_past_the_count_and_bad_numbers_are_refused(self):
        self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": "8", "MOQSIM_SHARD_COUNT": "8"}),
                         "JOB_COMPLETION_INDEX 8 is out of range: MOQSIM_SHARD_COUNT is 8 (indices 0 to 7)")
        self.assertEqual(self.refused({"GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": "18446744073709551615"}),
                         "GTEST_SHARD_INDEX 18446744073709551615 is out of range: GTEST_TOTAL_SHARDS is 2 "
                         "(indices 0 to 1)")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "1",
                                       "SLURM_ARRAY_TASK_COUNT": "8"}),
                         "SLURM_ARRAY_TASK_ID 9 (index 8 from SLURM_ARRAY_TASK_MIN 1) is out of range: "
                         "SLURM_ARRAY_TASK_COUNT is 8 (indices 0 to 7)")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "1",
                                       "SLURM_ARRAY_TASK_COUNT": "8"}),
                         "SLURM_ARRAY_TASK_ID 0 is below SLURM_ARRAY_TASK_MIN 1")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "3",
                                       "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "3"}),
                         "SLURM_ARRAY_TASK_ID 4 is not SLURM_ARRAY_TASK_MIN 3 plus a multiple of "
                         "SLURM_ARRAY_TASK_STEP 4")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_STEP": "0",
                                       "SLURM_ARRAY_TASK_COUNT": "3"}),
                         "SLURM_ARRAY_TASK_STEP must be at least 1, not '0'")
        self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": "0", "MOQSIM_SHARD_COUNT": "0"}),
                         "MOQSIM_SHARD_COUNT must be at least 1, not '0'")
        self.assertEqual(self.refused({"GTEST_TOTAL_SHARDS": "1000001", "GTEST_SHARD_INDEX": "0"}),
                         "GTEST_TOTAL_SHARDS takes a whole number up to 1000000, not '1000001'")
        for garbage in ("-1", "+1", " 1", "1x", "\u0661"):
            self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": garbage, "MOQSIM_SHARD_COUNT": "8"}),
                             f"JOB_COMPLETION_INDEX takes a whole number up to {2**64 - 1}, not '{garbage}'")

    def test_scripts_mutate_refuses_a_bad_shard_in_one_line_before_building(self):
        with tempfile.TemporaryDirectory() as folder:
            root = os.path.join(folder, "tree")
            # A copy of the scripts alone: were the shard not refused first, the script
            # would go on to configure a build here and fail otherwise.
            shutil.copytree(os.path.join(ROOT, "scripts"), os.path.join(root, "scripts"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            env = {**os.environ, "JOB_COMPLETION_INDEX": "3", "MOQSIM_SHARD_COUNT": "2"}
            run = subprocess.run([os.path.join(root, "scripts", "mutate")], env=env, capture_output=True, text=True,
                                 timeout=60, check=False)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertEqual(run.stderr, "mutate: JOB_COMPLETION_INDEX 3 is out of range: MOQSIM_SHARD_COUNT is 2 "
                                         "(indices 0 to 1)\n")
            self.assertEqual(run.stdout, "")
            self.assertEqual(sorted(os.listdir(root)), ["scripts"])

    def test_mutate_py_refuses_a_bad_shard_and_keeps_it_from_the_programs_it_runs(self):
        with tempfile.TemporaryDirectory() as reports:
            env = {**os.environ, "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "2"}
            run = subprocess.run([sys.executable, os.path.join(LIB, "mutate.py"), "/bin/true", "/bin/true", reports],
                                 env=env, capture_output=True, text=True, timeout=60, check=False)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertEqual(run.stderr, "mutate: SLURM_ARRAY_TASK_ID 2 (index 2 from SLURM_ARRAY_TASK_MIN 0) is out "
                                         "of range: SLURM_ARRAY_TASK_COUNT is 2 (indices 0 to 1)\n")
            self.assertEqual(os.listdir(reports), [])
        # Each unit-test run and sweep a mutant gets runs whole: a moqsim that saw the
        # Job's index would sweep only its share.
        import mutate  # noqa: E402  (here: it needs nothing the other tests do)
        saved = dict(os.environ)
        try:
            os.environ.update({"JOB_COMPLETION_INDEX": "1", "MOQSIM_SHARD_COUNT": "4", "SLURM_ARRAY_TASK_ID": "1",
                               "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0",
                               "SLURM_ARRAY_TASK_STEP": "1"})
            child = mutate.child_environment("gate.wake.fire")
        finally:
            os.environ.clear()
            os.environ.update(saved)
        self.assertEqual(child["MOQ_MUTANT"], "gate.wake.fire")
        self.assertFalse({name for name in child if name.startswith(("SLURM_ARRAY", "JOB_COMPLETION", "MOQSIM_SHARD"))})


class BrowserTest(unittest.TestCase):
    """The bundled page in a real headless Chromium: what a person opening it sees."""

    def test_the_page_renders_the_files_the_score_and_the_sources(self):
        # 3 detected (2 killed, 1 timeout) of 4 valid (1 survived); ignored does not count.
        report = fixture_report(["Killed", "Timeout", "Survived", "Killed", "Ignored"])
        self.assertEqual(expected_score(report), "75.00")
        with tempfile.TemporaryDirectory() as folder:
            page_path = os.path.join(folder, "mutation.html")
            with open(page_path, "w", encoding="utf-8") as out:
                out.write(bundle_page(report, viewer_code(), hits_fixture()))
            # A page whose report never reaches the viewer, to show the check notices.
            broken_path = os.path.join(folder, "broken.html")
            with open(broken_path, "w", encoding="utf-8") as out:
                out.write(bundle_page(report, viewer_code()).replace("app.report = ", "void "))
            screenshot = os.path.join(folder, "mutation.png")
            with Browser() as browser:
                page = browser.open("file://" + page_path)
                shown = read_rendered(page)
                page.screenshot(screenshot)
                self.assertEqual(shown["score"], "75.00")
                self.assertEqual(sorted(shown["files"]), ["group.cpp", "track.cpp"])
                self.assertEqual(mismatches(report, shown), [])
                self.assertEqual(page.evaluate('document.querySelectorAll("#sites tbody tr").length'), 3)

                view = read_file_view(page, "group.cpp")
                source = report["files"]["core/model/group.cpp"]
                self.assertEqual(view["lines"], source["source"].split("\n"))
                self.assertEqual(view["mutants"], sorted(m["id"] for m in source["mutants"]))
                self.assertEqual(source_problems(report, "core/model/group.cpp", view), [])
                view["lines"][3] += " "
                self.assertEqual(len(source_problems(report, "core/model/group.cpp", view)), 1)

                # A link to the site coverage lands on it once the viewer has drawn.
                at_sites = browser.open("file://" + page_path + "#sites", height=300)
                read_rendered(at_sites)
                self.assertTrue(at_sites.evaluate(SITES_AT_TOP), "mutation.html#sites does not show the sites")

                broken = browser.open("file://" + broken_path)
                with self.assertRaises(BrowserError):
                    read_rendered(broken, wait_ms=2000)
            with open(screenshot, "rb") as handle:
                png = handle.read()
            self.assertTrue(png.startswith(b"\x89PNG\r\n\x1a\n"))
            self.assertGreater(len(png), 20000)


def main():
    global VIEWER
    if len(sys.argv) != 2 or not os.path.isfile(sys.argv[1]):
        print("usage: reports_test.py VIEWER_JS (the viewer's browser bundle)", file=sys.stderr)
        sys.exit(2)
    VIEWER = sys.argv[1]
    run_and_exit("reports", sys.modules[__name__])


if __name__ == "__main__":
    main()
