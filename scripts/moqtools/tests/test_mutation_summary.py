"""Tests of the mutation run's closing summary: what scripts/mutate prints once every
mutant ran, and the exit status it returns."""

import contextlib
import io
import tempfile
import unittest

from moqtools.mutation import summarise


def site(name, reason=""):
    return {"kind": "site", "id": name, "file": "core/model/group.cpp", "line": 1, "survivor_reason": reason}


def result(status, swept=()):
    return {"status": status, "swept": {suite: {} for suite in swept}, "killed_by": [], "reason": ""}


class SummaryTest(unittest.TestCase):
    def summary(self, runs):
        meta = {"suites": ["gate", "group"], "selection": "sites", "elapsed_ms": 1000}
        printed = io.StringIO()
        with tempfile.TemporaryDirectory() as report_dir, contextlib.redirect_stdout(printed):
            status = summarise(runs, meta, report_dir)
        return status, printed.getvalue()

    def test_each_suite_is_credited_with_the_sites_its_sweep_kills(self):
        status, printed = self.summary([(site("a.notify"), result("Killed", ["group"])),
                                        (site("b.register"), result("Killed", ["gate", "group"])),
                                        (site("c.disarm", "never reached"), result("Survived"))])
        self.assertEqual(status, 0)
        self.assertIn("sites: 2 killed, 1 survived with a reason, 0 survived unexplained (0 reached by nothing), of 3",
                      printed)
        self.assertIn("gate sweep kills 1 site\n", printed)
        self.assertIn("group sweep kills 2 sites\n", printed)

    def test_a_survivor_with_no_reason_fails_the_run_and_is_named(self):
        status, printed = self.summary([(site("a.notify"), result("Survived"))])
        self.assertEqual(status, 1)
        self.assertIn("unexplained survivor a.notify (core/model/group.cpp:1)", printed)

    def test_a_site_nothing_reaches_without_a_reason_fails_the_run(self):
        status, printed = self.summary([(site("a.notify"), result("NoCoverage"))])
        self.assertEqual(status, 1)
        self.assertIn("1 survived unexplained (1 reached by nothing)", printed)
        self.assertIn("unexplained survivor a.notify (core/model/group.cpp:1)", printed)
