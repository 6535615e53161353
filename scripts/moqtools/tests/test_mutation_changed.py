"""Tests of `scripts/mutate --changed REV`'s survivors new since REV: a survivor is new when
the sources at REV, parsed, have no mutant of its key."""

import contextlib
import io
import tempfile
import unittest

from moqtools import mutants, mutation
from moqtools.tests.support import ROOT


def generated(mutant_id, key):
    return {"kind": "generated", "id": mutant_id, "operator": "rel_flip", "file": "core/model/group.cpp", "line": 1,
            "column": 1, "end_line": 1, "end_column": 2, "original": "<", "replacement": "<=", "key": key}


def result(status):
    return {"status": status, "killed_by": [], "killer": "", "reason": "", "cases_to_kill": None, "tries": 1, "ms": 1}


class NewSurvivorsTest(unittest.TestCase):
    RUNS = [(generated("gen.a", "key old"), result("Survived")),
            (generated("gen.b", "key new"), result("Survived")),
            (generated("gen.c", "key newer"), result("Killed"))]

    def test_only_a_survivor_whose_key_is_new_is_marked(self):
        runs = [(m, dict(r)) for m, r in self.RUNS]
        mutation.mark_new_survivors(runs, {"key old"})
        self.assertEqual([m["id"] for m, r in runs if r.get("new_survivor")], ["gen.b"])

    def test_the_summary_and_the_report_list_them_apart(self):
        runs = [(m, dict(r)) for m, r in self.RUNS]
        mutation.mark_new_survivors(runs, {"key old"})
        meta = {"suites": ["gate"], "selection": "lines changed since v1", "elapsed_ms": 1000, "tests": 3, "jobs": 2,
                "when": "today", "changed": "v1"}
        printed = io.StringIO()
        with tempfile.TemporaryDirectory() as report_dir, contextlib.redirect_stdout(printed):
            mutation.summarise(runs, meta, report_dir)
        self.assertIn("mutate: 1 survivor new since v1: gen.b\n", printed.getvalue())
        markdown = mutation.report_markdown(runs, meta)
        self.assertIn("### Survivors new since v1 (1)", markdown)
        self.assertIn("- `gen.b`:", markdown)
        self.assertNotIn("- `gen.a`:", markdown)

    def test_the_keys_at_a_revision_are_those_its_sources_generate(self):
        # HEAD's sources are the checkout's wherever core/ has no uncommitted change; compare one file's.
        at_head = mutation.keys_at("HEAD")
        here = {point.key for point in mutants.generated_points(ROOT)}
        self.assertTrue(at_head)
        self.assertEqual({k for k in at_head if k.startswith("model/track.cpp ")},
                         {k for k in here if k.startswith("model/track.cpp ")})

    def test_a_revision_git_does_not_know_is_an_error(self):
        with self.assertRaisesRegex(mutation.UsageError, "git archive no-such-revision failed"):
            mutation.keys_at("no-such-revision")


if __name__ == "__main__":
    unittest.main()
