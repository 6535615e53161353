"""Tests of scripts/moqtools/sweep_digests.py (scripts/determinism's sweep comparison), with
stand-in moqsim programs that write the sweep results given to them: builds that agree
pass and print each suite's digest; a suite that differs, a single build, a sweep of no
suite, a sample under 1,000 cases and a moqsim that cannot run each fail.
"""
import json
import tempfile
import unittest
from pathlib import Path

from moqtools.tests.support import run_tool

DIGESTS = {"waiter": "00000000000000a1", "gate": "00000000000000b2", "resume": "00000000000000c3"}


class SweepDigestsTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.TemporaryDirectory()
        self.folder = Path(self.work.name)

    def tearDown(self):
        self.work.cleanup()

    def moqsim(self, build, digests=None, status=0, stderr=""):
        """A stand-in BUILD/cli/moqsim whose sweep writes these digests (1,000 runs a suite)."""
        program = self.folder / build / "cli" / "moqsim"
        program.parent.mkdir(parents=True)
        suites = [{"suite": name, "run": 1000, "cases_digest": digest}
                  for name, digest in (DIGESTS if digests is None else digests).items()]
        program.write_text(f"""#!/usr/bin/env python3
import json, sys
args = sys.argv[1:]
assert args[0] == "sweep" and "--keep-going" in args, args
open(args[args.index("--json") + 1], "w").write(json.dumps({{"suites": {json.dumps(suites)}}}))
sys.stderr.write({stderr!r})
sys.exit({status})
""")
        program.chmod(0o755)
        return str(program)

    def compare(self, *programs, cases="500"):
        return run_tool("sweep_digests", "--seeds", "101-102", "--cases", cases, *programs)

    def test_builds_that_agree_pass_and_print_each_suite(self):
        run = self.compare(self.moqsim("build"), self.moqsim("build-debug"), self.moqsim("build-asan"))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        for suite, digest in DIGESTS.items():
            self.assertIn(f"determinism: {suite} cases_digest {digest} (1000 cases) in build, build-debug, build-asan",
                          run.stdout)
        self.assertIn("3 suites agree (1000 cases each) across build build-debug build-asan", run.stdout)

    def test_a_failing_case_still_compares(self):
        run = self.compare(self.moqsim("build", status=1), self.moqsim("build-debug", status=1))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def test_a_suite_that_differs_fails_and_is_named(self):
        other = dict(DIGESTS, gate="00000000000000ff")
        run = self.compare(self.moqsim("build"), self.moqsim("build-debug", other))
        self.assertEqual(run.returncode, 1)
        self.assertIn("determinism: gate differs: build 00000000000000b2, build-debug 00000000000000ff", run.stdout)

    def test_a_suite_one_build_lacks_fails(self):
        run = self.compare(self.moqsim("build"), self.moqsim("build-debug", {"waiter": DIGESTS["waiter"]}))
        self.assertEqual(run.returncode, 1)
        self.assertIn("gate differs", run.stdout)

    def test_one_build_compares_nothing(self):
        run = self.compare(self.moqsim("build"))
        self.assertEqual(run.returncode, 1)
        self.assertIn("compares nothing", run.stderr)

    def test_a_sweep_of_no_suite_compares_nothing(self):
        run = self.compare(self.moqsim("build", {}), self.moqsim("build-debug", {}))
        self.assertEqual(run.returncode, 1)
        self.assertIn("no suite", run.stderr)

    def test_a_sample_under_1000_cases_fails(self):
        run = self.compare(self.moqsim("build"), self.moqsim("build-debug"), cases="400")
        self.assertEqual(run.returncode, 1)
        self.assertIn("800 cases a suite is under the sample of 1000", run.stderr)

    def test_a_moqsim_that_cannot_run_fails(self):
        run = self.compare(self.moqsim("build"), self.moqsim("build-debug", status=2, stderr="moqsim: bad\n"))
        self.assertEqual(run.returncode, 1)
        self.assertIn("sweep failed (status 2): moqsim: bad", run.stderr)

