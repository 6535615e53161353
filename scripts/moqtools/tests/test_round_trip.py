"""A sweep's failure under every strategy, through the one replay file: with a site switched
off (the moqsim of a mutants build, pytest's --moqsim), each strategy's sweep fails; the
replay of that case saves a case file; `replay FILE` runs it to the same digest; an
exploration around the file's decisions fails at bound 0; and `replay FILE --shrink
--save` ends at a case no larger, failing at no more preemptions than the sweep's run,
whose saved schedule replays to its failure and digest.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from moqtools.tests.support import ROOT, moqsim

sys.path.insert(0, os.path.join(ROOT, "cli", "tests"))
from moqsim_test_support import clean_environment  # noqa: E402  (cli's tests' own module)

SUITE = "gate"
SITE = "idle.fire.mark_fired"
STRATEGIES = ("fifo", "random", "pct", "pos", "surw")


def run(*args):
    return subprocess.run([moqsim(), *args], env=clean_environment(), capture_output=True, text=True, timeout=300,
                          check=False)


def first_failure(strategy):
    """The first failing case of the strategy's sweep with the site off: (seed, case)."""
    done = run("sweep", "--suite", SUITE, "--seeds", "1", "--cases", "3000", "--strategy", strategy,
               "--mutant", SITE)
    found = re.search(r"^gate: seed (\d+) case (\d+) FAILED", done.stdout, re.M)
    assert done.returncode == 1 and found, done.stdout[-2000:] + done.stderr
    return found.group(1), found.group(2)


def digest_of(output):
    found = re.search(r"digest ([0-9a-f]{16})", output)
    return found.group(1) if found else None


def preemptions_of(output):
    found = re.search(r"(\d+) preemptions", output)
    return int(found.group(1)) if found else None


class RoundTripTest(unittest.TestCase):
    def test_each_strategys_failure_saves_replays_explores_and_shrinks(self):
        for strategy in STRATEGIES:
            with self.subTest(strategy=strategy), tempfile.TemporaryDirectory() as work:
                seed, case = first_failure(strategy)
                saved = Path(work) / "failure.json"
                swept = run("replay", "--suite", SUITE, "--seed", seed, "--case", case, "--strategy", strategy,
                            "--mutant", SITE, "--save", str(saved))
                self.assertEqual(swept.returncode, 1, swept.stdout + swept.stderr)
                file = json.loads(saved.read_text())
                self.assertEqual(file["found_by"]["strategy"], strategy)
                self.assertEqual(file["mutant"], SITE)
                self.assertEqual(file["digest"], digest_of(swept.stdout))

                replayed = run("replay", str(saved))
                self.assertEqual(replayed.returncode, 1, replayed.stdout)
                self.assertEqual(digest_of(replayed.stdout), file["digest"], replayed.stdout)

                around = run("explore", "--suite", SUITE, "--case", str(saved), "--bound", "0", "--mutant", SITE,
                             "--failure", str(Path(work) / "around.json"))
                self.assertEqual(around.returncode, 1, around.stdout + around.stderr)
                self.assertIn("1 schedules", around.stdout)

                shrunk = Path(work) / "shrunk.json"
                small = run("replay", str(saved), "--shrink", "--save", str(shrunk))
                self.assertEqual(small.returncode, 1, small.stdout + small.stderr)
                after = json.loads(shrunk.read_text())
                self.assertLessEqual(len(after["case"]["steps"]), len(file["case"]["steps"]))
                self.assertLessEqual(after["bound"], file["bound"])
                again = run("replay", str(shrunk))
                self.assertEqual(again.returncode, 1)
                self.assertEqual(digest_of(again.stdout), after["digest"], again.stdout)
                self.assertEqual(preemptions_of(again.stdout), after["bound"], again.stdout)


if __name__ == "__main__":
    unittest.main()
