"""Runs a unittest suite for scripts/check: the failures on stderr, then the line
"NAME: N passed, M failed" (the line scripts/check counts), and exits 1 if any failed."""

import sys
import unittest


def run_and_exit(name, suite):
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite)
    failed = len(result.failures) + len(result.errors)
    print(f"{name}: {result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
