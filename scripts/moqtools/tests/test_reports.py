"""Tests of the report tools: the HTML bundle of the mutation report, the index page,
site locations and site coverage, and the bundle rendered in headless Chromium (the
viewer's browser bundle from pytest's --viewer).
"""

import json
import os
import re
import tempfile
import unittest

from moqtools.browser import Browser, BrowserError
from moqtools.render_check import expected_score, mismatches, read_file_view, read_rendered, source_problems
from moqtools.report_html import bundle_page
from moqtools.report_index import index_page
from moqtools.site_coverage import check_site_hits, sites_markdown, unreached
from moqtools.site_location import site_location
from moqtools.tests.support import ROOT, run_tool, viewer

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
    real site's place, as scripts/moqtools/mutation.py writes them."""
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
    with open(viewer(), encoding="utf-8") as handle:
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
                run = run_tool("report_html", bad, viewer(), out)
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

