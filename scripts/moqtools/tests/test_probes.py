"""Tests of the probes' tools (moqtools/probes.py): checking sweeps' hits against an
expected list, making that list, the reports, and the index's section; on probes files
built here, as `moqsim sweep --probes` writes them (no moqsim needed).
"""

import json
import os
import re
import tempfile
import unittest

from moqtools.probes import check_probe_hits, join
from moqtools.report_index import index_page
from moqtools.tests.support import run_tool

PROBES = [("group.finish.late_reader", "state", "core/model/group.cpp", 250),
          ("group.read.recover_adopted", "path", "core/model/group.cpp", 210),
          ("resume.take.held_from_replaced", "state", "core/model/resume.cpp", 88),
          ("track.cursor.wrapped", "path", "core/model/track.cpp", 99)]


def sweep_file(suite, hits, first, seeds=(1, 1), probes=PROBES):
    """A probes file of one suite's sweep: `hits` {probe: n} (the rest 0), `first` {probe: (seed, case)}."""
    return {"format": "moqsim-probes", "version": 1, "seeds": list(seeds), "strategy": "random", "mix": "fixed",
            "mutant": None, "shard": {"index": 0, "total": 1},
            "probes": [{"name": n, "kind": k, "file": f, "line": line} for n, k, f, line in probes],
            "suites": [{"suite": suite, "cases": 500, "run": 500,
                        "hits": {n: hits.get(n, 0) for n, _, _, _ in probes},
                        "first": {n: {"seed": s, "case": c, "replay": f"moqsim replay --suite {suite} --seed {s} "
                                                                      f"--case {c}"}
                                  for n, (s, c) in first.items()}}]}


def group_sweep(recover=12, seeds=(1, 1), case=17):
    return sweep_file("group", {"group.read.recover_adopted": recover, "group.finish.late_reader": 3},
                      {"group.read.recover_adopted": (seeds[0], case), "group.finish.late_reader": (seeds[0], 40)},
                      seeds)


def resume_sweep():
    return sweep_file("resume", {"resume.take.held_from_replaced": 7, "group.read.recover_adopted": 1},
                      {"resume.take.held_from_replaced": (1, 2), "group.read.recover_adopted": (1, 300)})


class Folder(unittest.TestCase):
    """A test with a temporary folder to write its inputs into."""

    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.folder = temp.name

    def write(self, name, content):
        path = os.path.join(self.folder, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def sweeps(self):
        return [self.write("group.json", group_sweep()), self.write("resume.json", resume_sweep())]

    def assert_refused(self, run):
        """Exit 2 with one line on stderr and nothing on stdout."""
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertTrue(run.stderr.startswith("probes: "), run.stderr)
        self.assertEqual(run.stdout, "")


class CheckTest(Folder):
    def test_a_list_the_sweeps_meet_passes_and_names_the_probes_it_leaves_out(self):
        expected = self.write("expected.txt", "# the group sweep\n\ngroup.read.recover_adopted group 12  # all\n"
                                              "resume.take.held_from_replaced resume 7\n")
        run = run_tool("probes", "check", expected, *self.sweeps())
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.stdout.splitlines(), [
            "probes: not in the expected list: group.finish.late_reader, track.cursor.wrapped (never hit)",
            "probes: 2 expected, 0 short"])

    def test_too_few_hits_are_short(self):
        expected = self.write("expected.txt", "group.finish.late_reader group 3\n"
                                              "group.read.recover_adopted group 13\n"
                                              "group.read.recover_adopted resume 2\n")
        run = run_tool("probes", "check", expected, *self.sweeps())
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertEqual(run.stdout.splitlines(), [
            f"probes: group.read.recover_adopted: hit 12 times by the group sweep, expected at least 13 ({expected}:2)",
            f"probes: group.read.recover_adopted: hit 1 time by the resume sweep, expected at least 2 ({expected}:3)",
            "probes: not in the expected list: resume.take.held_from_replaced, track.cursor.wrapped (never hit)",
            "probes: 3 expected, 2 short"])

    def test_a_probe_the_sweeps_do_not_know_is_short(self):
        expected = self.write("expected.txt", "group.read.recover_adopted group 1\ngroup.read.renamed group 1\n")
        run = run_tool("probes", "check", expected, *self.sweeps())
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn(f"probes: group.read.renamed: no such probe in the sweeps (removed or renamed?), expected "
                      f"at least 1 hits by the group sweep ({expected}:2)\n", run.stdout)
        self.assertTrue(run.stdout.endswith("probes: 2 expected, 1 short\n"), run.stdout)

    def test_a_suite_no_file_swept_is_short(self):
        expected = self.write("expected.txt", "group.read.recover_adopted track 5\n")
        run = run_tool("probes", "check", expected, *self.sweeps())
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn(f"probes: group.read.recover_adopted: no file holds a sweep of the track suite, expected at "
                      f"least 5 hits by it ({expected}:1)\n", run.stdout)
        self.assertTrue(run.stdout.endswith("probes: 1 expected, 1 short\n"), run.stdout)

    def test_a_malformed_line_is_refused_with_its_number(self):
        sweeps = self.sweeps()
        for line, why in [("group.read.recover_adopted group", "expected 'PROBE SUITE MIN'"),
                          ("group.read.recover_adopted group 0", "MIN must be a whole number of at least 1, not '0'"),
                          ("group.read.recover_adopted group 2.5", "not '2.5'"),
                          ("group.read.recover_adopted group 3 4", "expected 'PROBE SUITE MIN'"),
                          ("group.finish.late_reader group 2", "listed already on line 2")]:
            expected = self.write("expected.txt", f"# probes\ngroup.finish.late_reader group 1\n{line}\n")
            run = run_tool("probes", "check", expected, *sweeps)
            self.assert_refused(run)
            self.assertIn(f"{expected}:3: ", run.stderr)
            self.assertIn(why, run.stderr)

    def test_a_file_of_another_shape_is_refused(self):
        expected = self.write("expected.txt", "group.read.recover_adopted group 1\n")
        other_version = dict(group_sweep(), version=2)
        missing_probe = group_sweep()
        del missing_probe["suites"][0]["hits"]["track.cursor.wrapped"]
        first_not_hit = group_sweep()
        first_not_hit["suites"][0]["first"]["track.cursor.wrapped"] = {"seed": 1, "case": 2, "replay": "x"}
        bad_kind = group_sweep()
        bad_kind["probes"][0]["kind"] = "sometimes"
        for content, why in [("{ not json", "is not JSON"),
                             ({"format": "moqsim-site-hits", "version": 1}, "format moqsim-probes"),
                             (other_version, "unknown probes version 2"),
                             (missing_probe, "'hits' must count every probe once"),
                             (first_not_hit, "'first' of track.cursor.wrapped"),
                             (bad_kind, "kind (path or state)")]:
            bad = self.write("bad.json", content)
            run = run_tool("probes", "check", expected, bad)
            self.assert_refused(run)
            self.assertIn(why, run.stderr)
            self.assertIn(bad, run.stderr)
        self.assert_refused(run_tool("probes", "check", expected, os.path.join(self.folder, "absent.json")))
        self.assert_refused(run_tool("probes", "check", os.path.join(self.folder, "absent.txt"), *self.sweeps()))

    def test_files_of_different_probes_are_refused(self):
        older = sweep_file("resume", {}, {}, probes=PROBES[:3])
        run = run_tool("probes", "check", self.write("expected.txt", ""), self.sweeps()[0],
                       self.write("older.json", older))
        self.assert_refused(run)
        self.assertIn("names other probes than", run.stderr)


class JoinTest(Folder):
    def test_a_suite_swept_twice_adds_its_hits_and_keeps_its_earliest_first_case(self):
        later, earlier = group_sweep(12, (2, 2), case=3), group_sweep(5, (1, 1), case=90)
        for data in (later, earlier, resume_sweep()):
            check_probe_hits(data)
        joined = join([("a", later), ("b", earlier), ("c", resume_sweep())])
        self.assertEqual([suite["suite"] for suite in joined["suites"]], ["group", "resume"])
        group = joined["suites"][0]
        self.assertEqual(group["hits"]["group.read.recover_adopted"], 17)
        self.assertEqual(group["hits"]["group.finish.late_reader"], 6)
        self.assertEqual(group["run"], 1000)
        self.assertEqual(group["first"]["group.read.recover_adopted"]["replay"],
                         "moqsim replay --suite group --seed 1 --case 90")
        self.assertEqual(joined["sweeps"], ["seed 2, strategy random, mix fixed",
                                            "seed 1, strategy random, mix fixed"])

    def test_the_check_counts_every_file(self):
        expected = self.write("expected.txt", "group.read.recover_adopted group 20\n")
        first = self.write("first.json", group_sweep(12, (1, 1)))
        second = self.write("second.json", group_sweep(12, (2, 2)))
        self.assertEqual(run_tool("probes", "check", expected, first).returncode, 1)
        run = run_tool("probes", "check", expected, first, second)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("probes: 1 expected, 0 short", run.stdout)


class ExpectedTest(Folder):
    def make(self, *args):
        run = run_tool("probes", "expected", *args)
        self.assertEqual(run.returncode, 0, run.stderr)
        return run.stdout

    def test_the_list_holds_each_suites_hits_divided_aligned_and_sorted(self):
        text = self.make(*self.sweeps())
        entries = [line for line in text.splitlines() if line and not line.startswith("#")]
        self.assertEqual(entries, ["group.finish.late_reader        group   1",
                                   "group.read.recover_adopted      group   3",
                                   "group.read.recover_adopted      resume  1",
                                   "resume.take.held_from_replaced  resume  1"])
        self.assertIn("# never hit: track.cursor.wrapped (core/model/track.cpp:99)\n", text)
        self.assertIn("python3 -m moqtools.probes expected ", text)
        self.assertIn("seed 1, strategy random, mix fixed (cases run: group 500, resume 500)", text)
        self.assertEqual(text, self.make(*self.sweeps()))  # nothing of the day or the machine

    def test_a_list_made_from_sweeps_passes_on_them(self):
        sweeps = self.sweeps()
        expected = self.write("expected.txt", self.make(*sweeps))
        run = run_tool("probes", "check", expected, *sweeps)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("probes: 4 expected, 0 short", run.stdout)
        # The divisor leaves room: half the hits still pass; an eighth does not.
        halved = self.write("halved.json", group_sweep(recover=6))
        self.assertEqual(run_tool("probes", "check", expected, halved, sweeps[1]).returncode, 0)
        eighth = self.write("eighth.json", group_sweep(recover=1))
        run = run_tool("probes", "check", expected, eighth, sweeps[1])
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("group.read.recover_adopted: hit 1 time by the group sweep, expected at least 3", run.stdout)

    def test_with_divisor_one_halving_a_count_fails(self):
        sweeps = self.sweeps()
        text = self.make(*sweeps, "--divisor", "1")
        self.assertIn("group.read.recover_adopted      group   12\n", text)
        expected = self.write("expected.txt", text)
        self.assertEqual(run_tool("probes", "check", expected, *sweeps).returncode, 0)
        halved = self.write("halved.json", group_sweep(recover=6))
        run = run_tool("probes", "check", expected, halved, sweeps[1])
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("hit 6 times by the group sweep, expected at least 12", run.stdout)

    def test_a_bad_divisor_is_refused(self):
        for divisor in ("0", "x", "-1"):
            run = run_tool("probes", "expected", self.sweeps()[0], "--divisor", divisor)
            self.assertEqual(run.returncode, 2, run.stdout)
            self.assertEqual(run.stdout, "")


class ReportTest(Folder):
    def report(self, *files):
        out = os.path.join(self.folder, "reports")
        os.makedirs(out, exist_ok=True)
        markdown, page = os.path.join(out, "probes.md"), os.path.join(out, "probes.html")
        run = run_tool("probes", "report", *files, "--markdown", markdown, "--html", page)
        return run, out, markdown, page

    def test_both_reports_are_written_with_every_probe(self):
        run, out, markdown, page = self.report(*self.sweeps())
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("probes: 3 of 4 probes hit by a sweep", run.stdout)
        self.assertIn("probes: no sweep hits track.cursor.wrapped (core/model/track.cpp:99)", run.stdout)
        self.assertEqual(sorted(os.listdir(out)), ["probes.html", "probes.md"])  # no temporary file left
        with open(markdown, encoding="utf-8") as handle:
            text = handle.read()
        self.assertIn("4 probes (2 paths, 2 states), 3 hit by at least one suite's sweep (1 path, 2 states)", text)
        self.assertIn("| probe | kind | where | group | resume | total | first hit |", text)
        self.assertIn("| `group.read.recover_adopted` | path | core/model/group.cpp:210 | 12 | 1 | 13 | "
                      "group seed 1 case 17: `moqsim replay --suite group --seed 1 --case 17` |", text)
        self.assertIn("| `track.cursor.wrapped` | path | core/model/track.cpp:99 | 0 | 0 | **0** | never hit |", text)
        self.assertIn("## Probes no sweep hit\n\n- `track.cursor.wrapped` (path, core/model/track.cpp:99)\n", text)
        with open(page, encoding="utf-8") as handle:
            html_text = handle.read()
        for name, _, _, _ in PROBES:
            self.assertIn(f"<code>{name}</code>", html_text)
        rows = re.findall(r"<tr( class=\"never\")?><td class=\"text\"><code>([^<]+)</code>", html_text)
        self.assertEqual([name for marked, name in rows if marked], ["track.cursor.wrapped"])
        self.assertEqual(len(rows), 4)
        self.assertIn("<code>moqsim replay --suite resume --seed 1 --case 2</code>", html_text)
        self.assertIsNone(re.search(r"<script|<link|src=", html_text))

    def test_everything_in_the_page_is_escaped(self):
        odd = [("a.<b>", "path", "core/<odd>&.cpp", 1)]
        data = sweep_file("g<r>", {"a.<b>": 2}, {"a.<b>": (1, 0)}, probes=odd)
        run, _, _, page = self.report(self.write("odd.json", data))
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(page, encoding="utf-8") as handle:
            html_text = handle.read()
        self.assertIn("a.&lt;b&gt;", html_text)
        self.assertIn("core/&lt;odd&gt;&amp;.cpp", html_text)
        self.assertIn("<th>g&lt;r&gt;</th>", html_text)
        self.assertNotIn("<b>", html_text)
        self.assertNotIn("<r>", html_text)

    def test_bad_input_writes_nothing(self):
        run, out, _, _ = self.report(self.write("bad.json", {"format": "moqsim-probes", "version": 1}))
        self.assert_refused(run)
        self.assertEqual(os.listdir(out), [])


class IndexTest(Folder):
    def test_the_probes_section_links_the_reports_and_sums_them_up(self):
        page = index_page(self.folder)
        section = re.search(r"<h2>Probes</h2>.*?</section>", page, re.S).group(0)
        self.assertIn("not generated yet: run <code>scripts/sweep</code>", section)
        joined = group_sweep()
        self.write("probes.json", joined)
        section = re.search(r"<h2>Probes</h2>.*?</section>", index_page(self.folder), re.S).group(0)
        self.assertIn('<p class="summary">2 of 4 probes hit by a sweep</p>', section)
        self.assertIn('href="probes.json"', section)
        self.assertIn("probes.html: not generated yet: run <code>scripts/report</code>", section)
        self.write("probes.html", "<!DOCTYPE html>")
        self.write("probes.md", "# Probes")
        section = re.search(r"<h2>Probes</h2>.*?</section>", index_page(self.folder), re.S).group(0)
        self.assertIn('href="probes.html"', section)
        self.assertIn('href="probes.md"', section)
        self.assertNotIn("not generated yet", section)
