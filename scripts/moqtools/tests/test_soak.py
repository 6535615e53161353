"""Tests of scripts/soak (scripts/moqtools/soak.py), with the moqsim of a mutants build (the
build-sites/ the canaries build): short soaks of a second or two, a few cases a slice.

With a site switched off that breaks the gate suite (idle.finish.fired_during_walk), a
soak finds buckets and exits 1, having run every suite, strategy and mix; its reports
list each bucket with a replay command that fails as the bucket says and a timeline
page; the index links the report. Without a mutant it exits 0 with no bucket. The state
file carries a soak on from where the last one stopped (the first from 10,000,000);
shards soak seeds of their own and --merge joins them, refusing a missing or doubled
shard; bad usage is one line and exit 2 with nothing written. The moqsim is pytest's
--moqsim; the soak runs as a file, as the image runs it.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from moqtools.report_index import index_page
from moqtools.suites import suite_names
from moqtools.tests.support import ROOT, moqsim

sys.path.insert(0, os.path.join(ROOT, "cli", "tests"))
from moqsim_test_support import clean_environment  # noqa: E402  (cli's tests' own module)

SOAK = Path(ROOT) / "scripts" / "moqtools" / "soak.py"
SITE = "idle.finish.fired_during_walk"
STRATEGIES_AND_MIXES = 5 * 2


def soak(*args, env=None):
    return subprocess.run([sys.executable, str(SOAK), "--moqsim", moqsim(), "--cases", "60", *args],
                          env=clean_environment(env), capture_output=True, text=True, timeout=300, check=False)


def listing(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*"))


class SoakTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.TemporaryDirectory()
        self.reports = Path(self.work.name) / "reports"

    def tearDown(self):
        self.work.cleanup()

    def result(self):
        return json.loads((self.reports / "soak.json").read_text())

    def test_a_mutant_makes_buckets_listed_with_their_replays_and_timelines(self):
        run = soak("2s", "--seed", "40000000", "--mutant", SITE, "--reports", str(self.reports))
        self.assertEqual(run.returncode, 1, run.stderr)
        result = self.result()
        ran = {(c["suite"], c["strategy"], c["mix"]) for c in result["combinations"] if c["cases"] > 0}
        self.assertEqual(len(ran), len(suite_names(moqsim())) * STRATEGIES_AND_MIXES)
        gate = {b["rule"] for b in result["buckets"] if b["suite"] == "gate"}
        self.assertTrue({"I1", "I3"} <= gate, gate)
        markdown, page = (self.reports / "soak.md").read_text(), (self.reports / "soak.html").read_text()
        for bucket in result["buckets"]:
            smallest = bucket["smallest"]
            self.assertEqual(Path(smallest["file"]), self.reports / "soak-cases" / f"{bucket['id']}.json")
            replayed = subprocess.run(smallest["replay"].split(), capture_output=True, text=True, check=False)
            self.assertEqual(replayed.returncode, 1, smallest["replay"])
            self.assertIn(f"FAILED: {bucket['rule']}: ", replayed.stdout)
            timeline = Path(smallest["timeline"]).read_text()
            self.assertIn("<svg", timeline)
            self.assertIn(f"### {bucket['id']}: {bucket['rule']}", markdown)
            self.assertIn(smallest["replay"], markdown)
            self.assertIn(f'href="soak-cases/{bucket["id"]}.html"', page)
        self.assertIn("| gate |", markdown)
        self.assertEqual(json.loads((self.reports / "soak-state.json").read_text())["next_seed"],
                         result["seeds"]["next"])
        self.assertGreater(result["seeds"]["next"], 40000000)
        index = index_page(str(self.reports))
        self.assertIn('href="soak.html"', index)
        self.assertIn(f"{len(result['buckets'])} buckets", index)

    def test_the_state_carries_a_soak_on_from_far_away_seeds(self):
        first = soak("1s", "--reports", str(self.reports))
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertEqual(self.result()["seeds"]["first"], 10_000_000)
        self.assertEqual(self.result()["buckets"], [])
        after = self.result()["seeds"]["next"]
        second = soak("1s", "--reports", str(self.reports))
        self.assertEqual(second.returncode, 0, second.stderr)
        self.assertEqual(self.result()["seeds"]["first"], after)
        state = self.reports / "elsewhere.json"
        third = soak("1s", "--reports", str(self.reports), "--state", str(state), "--seed", "77")
        self.assertEqual(third.returncode, 0, third.stderr)
        self.assertEqual(json.loads(state.read_text())["next_seed"], self.result()["seeds"]["next"])
        self.assertEqual(self.result()["seeds"]["first"], 77)

    def test_shards_soak_seeds_of_their_own_and_merge(self):
        shards = [soak("1s", "--seed", "50000000", "--mutant", SITE, "--reports", str(self.reports),
                       env={"GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": str(i)}) for i in range(2)]
        self.assertEqual([s.returncode for s in shards], [1, 1], [s.stderr for s in shards])
        files = [self.reports / f"soak-shard-{i}-of-2.json" for i in range(2)]
        self.assertEqual(listing(self.reports), [f.name for f in files])  # no report, no state yet
        parts = [json.loads(f.read_text()) for f in files]
        for index, part in enumerate(parts):
            seeds = {seed for c in part["combinations"] for seed in range(c["seeds"][0], c["seeds"][1] + 1, 2)}
            self.assertTrue(all((seed - 50000000) % 2 == index for seed in seeds), seeds)
        merged = soak_merge(self.reports, *files)
        self.assertEqual(merged.returncode, 1, merged.stderr)
        result = self.result()
        self.assertEqual(result["shard"], {"merged": 2, "total": 2})
        self.assertEqual(sum(c["cases"] for c in result["combinations"]),
                         sum(c["cases"] for part in parts for c in part["combinations"]))
        self.assertEqual(sum(b["count"] for b in result["buckets"]),
                         sum(b["count"] for part in parts for b in part["buckets"]))
        self.assertEqual(json.loads((self.reports / "soak-state.json").read_text())["next_seed"],
                         max(part["seeds"]["next"] for part in parts))
        for refused in ([files[0]], [files[0], files[0]]):
            before = listing(self.reports)
            run = soak_merge(self.reports, *refused)
            self.assertEqual(run.returncode, 2)
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
            self.assertEqual(listing(self.reports), before)

    def test_bad_usage_is_one_line_and_writes_nothing(self):
        self.reports.mkdir()
        (self.reports / "bad-state.json").write_text("{ not json")
        for args, env, says in [(["10x"], None, "'10x'"), (["--seed", "abc"], None, "--seed"),
                                (["--frobnicate"], None, "--frobnicate"), (["1s", "--merge", "a.json"], None, "--merge"),
                                (["1s", "--state", str(self.reports / "bad-state.json")], None, "bad-state.json"),
                                (["1s", "--cases", "0"], None, "--cases"),
                                (["1s"], {"GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": "2"}, "GTEST_SHARD_INDEX"),
                                (["1s", "--mutant", "no.such.site"], None, "no.such.site")]:
            before = listing(self.reports)
            run = soak(*args, "--reports", str(self.reports), env=env)
            self.assertEqual(run.returncode, 2, (args, run.stderr))
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
            self.assertIn(says, run.stderr)
            self.assertEqual(listing(self.reports), before, args)


def soak_merge(reports, *files):
    return subprocess.run([sys.executable, str(SOAK), "--moqsim", moqsim(), "--reports", str(reports), "--merge",
                           *map(str, files)], env=clean_environment(), capture_output=True, text=True, timeout=300,
                          check=False)

